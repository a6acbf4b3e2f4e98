use std::time::Duration;

use asterism_agent::{AgentConfig, test_tools};
use asterism_protocol::{AgentEvent, RunFinishReason};
use asterism_testkit::{ScriptedToolCall, Turn};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use super::common::{Harness, tool_results};

fn call(id: &str, name: &str, arguments: Value) -> ScriptedToolCall {
    ScriptedToolCall {
        id: Some(id.into()),
        name: name.into(),
        arguments,
    }
}

fn calls_turn(calls: Vec<ScriptedToolCall>) -> Turn {
    Turn {
        tool_calls: calls,
        ..Turn::default()
    }
}

fn answer(text: &str) -> Turn {
    Turn {
        text: Some(text.into()),
        ..Turn::default()
    }
}

async fn harness(turns: Vec<Turn>, config: AgentConfig) -> Harness {
    Harness::start_with(
        turns,
        config,
        Duration::from_secs(5),
        test_tools::registry(),
    )
    .await
}

fn result_ids(events: &[AgentEvent]) -> Vec<String> {
    events
        .iter()
        .filter_map(|event| match event {
            AgentEvent::ToolResult { tool_call_id, .. } => Some(tool_call_id.clone()),
            _ => None,
        })
        .collect()
}

fn tool_messages(body: &Value) -> Vec<(String, String)> {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|message| message["role"] == "tool")
        .map(|message| {
            (
                message["tool_call_id"].as_str().unwrap().to_string(),
                message["content"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[tokio::test]
async fn results_stream_as_they_finish_but_reach_the_model_in_call_order() {
    let turns = vec![
        calls_turn(vec![
            call("slow", "delay", json!({"ms": 300})),
            call("fast", "delay", json!({"ms": 10})),
            call("mid", "delay", json!({"ms": 150})),
        ]),
        answer("done"),
    ];
    let harness = harness(turns, AgentConfig::default()).await;
    let (outcome, events) = harness.ask(None, "go").await;
    assert_eq!(outcome.reason, RunFinishReason::Completed);
    assert_eq!(result_ids(&events), ["fast", "mid", "slow"]);
    assert!(events.iter().any(|event| matches!(event, AgentEvent::ToolProgress { tool_call_id, .. } if tool_call_id == "slow")));
    let sent: Vec<String> = tool_messages(&harness.mock.requests()[1].body)
        .into_iter()
        .map(|(id, _)| id)
        .collect();
    assert_eq!(sent, ["slow", "fast", "mid"]);
    // Replay shows them as the live timeline did.
    let replayed = asterism_agent::session_events(&harness.store, &outcome.session_id)
        .await
        .unwrap();
    assert_eq!(result_ids(&replayed), ["fast", "mid", "slow"]);
    harness.mock.assert_no_violations();
}

#[tokio::test]
async fn a_call_that_is_not_concurrency_safe_runs_alone_in_call_order() {
    // `a` and `b` may run together; `write` waits for both and holds back `c` and `d`,
    // which then run together again.
    let turns = vec![
        calls_turn(vec![
            call("a", "delay", json!({"ms": 200})),
            call("b", "delay", json!({"ms": 100})),
            call("write", "delay", json!({"ms": 10, "exclusive": true})),
            call("c", "delay", json!({"ms": 150})),
            call("d", "delay", json!({"ms": 10})),
        ]),
        answer("done"),
    ];
    let harness = harness(turns, AgentConfig::default()).await;
    let (outcome, events) = harness.ask(None, "go").await;
    assert_eq!(outcome.reason, RunFinishReason::Completed);
    assert_eq!(result_ids(&events), ["b", "a", "write", "d", "c"]);
    harness.mock.assert_no_violations();
}

#[tokio::test]
async fn duplicate_and_empty_ids_are_made_unique() {
    let turns = vec![
        calls_turn(vec![
            call("same", "echo", json!({"text": "a"})),
            call("same", "echo", json!({"text": "b"})),
            call("", "echo", json!({"text": "c"})),
        ]),
        answer("done"),
    ];
    let harness = harness(turns, AgentConfig::default()).await;
    let (outcome, events) = harness.ask(None, "go").await;
    assert_eq!(outcome.reason, RunFinishReason::Completed);
    let ids = result_ids(&events);
    assert_eq!(ids.len(), 3);
    assert_eq!(
        ids.iter().collect::<std::collections::HashSet<_>>().len(),
        3
    );
    let sent = tool_messages(&harness.mock.requests()[1].body);
    let contents: Vec<&str> = sent.iter().map(|(_, content)| content.as_str()).collect();
    assert_eq!(contents, ["a", "b", "c"]);
    harness.mock.assert_no_violations();
}

#[tokio::test]
async fn the_same_call_three_times_in_a_row_is_refused_as_a_loop() {
    let same = || calls_turn(vec![call("", "echo", json!({"text": "again"}))]);
    let harness = harness(
        vec![same(), same(), same(), answer("ok, stopping")],
        AgentConfig::default(),
    )
    .await;
    let (outcome, events) = harness.ask(None, "go").await;
    assert_eq!(outcome.reason, RunFinishReason::Completed);
    let results = tool_results(&events);
    assert_eq!(results.len(), 3);
    assert!(!results[0].1 && !results[1].1);
    assert!(results[2].1);
    assert!(
        results[2].0.contains("3 times in a row"),
        "{}",
        results[2].0
    );
}

#[tokio::test]
async fn a_10_mb_output_goes_to_a_file_and_the_model_gets_a_stub() {
    let turns = vec![
        calls_turn(vec![call(
            "big",
            "big_output",
            json!({"chars": 10_000_000}),
        )]),
        answer("done"),
    ];
    let harness = harness(turns, AgentConfig::default()).await;
    let (outcome, events) = harness.ask(None, "go").await;
    assert_eq!(outcome.reason, RunFinishReason::Completed);
    let (output, is_error, metadata) = &tool_results(&events)[0];
    assert!(!is_error);
    assert!(
        output.starts_with("<persisted-output"),
        "{}",
        &output[..100]
    );
    assert!(output.len() < 5_000);
    let path = metadata["persistedPath"].as_str().unwrap();
    let folder = asterism_agent::security::tool_output_dir(harness.data_dir(), &outcome.session_id);
    assert!(path.starts_with(folder.to_str().unwrap()), "{path}");
    assert!(path.contains("/big-") && path.ends_with(".txt"), "{path}");
    assert_eq!(std::fs::metadata(path).unwrap().len(), 10_000_000);
    let sent = tool_messages(&harness.mock.requests()[1].body);
    assert!(sent[0].1.len() < 5_000);
}

#[tokio::test]
async fn a_panicking_tool_is_an_error_result_and_the_run_goes_on() {
    let turns = vec![
        calls_turn(vec![
            call("p", "panic", json!({})),
            call("e", "echo", json!({"text": "fine"})),
        ]),
        answer("done"),
    ];
    let harness = harness(turns, AgentConfig::default()).await;
    let (outcome, events) = harness.ask(None, "go").await;
    assert_eq!(outcome.reason, RunFinishReason::Completed);
    let results = tool_results(&events);
    let panicked = results.iter().find(|(_, is_error, _)| *is_error).unwrap();
    assert!(panicked.0.contains("panicked on purpose"), "{}", panicked.0);
    assert!(
        results
            .iter()
            .any(|(output, is_error, _)| !is_error && output == "fine")
    );
}

#[tokio::test]
async fn a_tool_that_never_finishes_times_out() {
    let config = AgentConfig {
        tool_timeout: Duration::from_millis(300),
        ..AgentConfig::default()
    };
    let harness = harness(
        vec![
            calls_turn(vec![call("n", "never", json!({}))]),
            answer("done"),
        ],
        config,
    )
    .await;
    let (outcome, events) = harness.ask(None, "go").await;
    assert_eq!(outcome.reason, RunFinishReason::Completed);
    let (output, is_error, _) = &tool_results(&events)[0];
    assert!(is_error);
    assert!(
        output.contains("did not finish within 0 s") || output.contains("did not finish within"),
        "{output}"
    );
}

#[tokio::test]
async fn a_failing_critical_tool_aborts_its_siblings() {
    let turns = vec![
        calls_turn(vec![
            call("dl", "critical_fail", json!({"ms": 20})),
            call("wait", "delay", json!({"ms": 5000})),
        ]),
        answer("done"),
    ];
    let harness = harness(turns, AgentConfig::default()).await;
    let (_, events) = harness.ask(None, "go").await;
    let results = tool_results(&events);
    assert!(
        results
            .iter()
            .any(|(output, _, _)| output.contains("another call of this step failed")),
        "{results:?}"
    );
}

#[tokio::test]
async fn cancelling_lets_a_block_tool_finish_and_leaves_a_resumable_history() {
    let turns = vec![
        calls_turn(vec![
            call("w", "blocking_write", json!({"ms": 400})),
            call("n", "never", json!({})),
        ]),
        answer("resumed fine"),
    ];
    let harness = harness(turns, AgentConfig::default()).await;
    let cancel = CancellationToken::new();
    let trigger = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(100)).await;
        trigger.cancel();
    });
    let (outcome, events) = harness.ask_with_cancel(None, "go", cancel).await;
    assert_eq!(outcome.reason, RunFinishReason::Cancelled);
    let results = tool_results(&events);
    assert!(
        results
            .iter()
            .any(|(output, is_error, _)| !is_error && output == "write completed"),
        "{results:?}"
    );
    assert!(
        results
            .iter()
            .any(|(output, _, _)| output.contains("cancelled by the user")),
        "{results:?}"
    );
    assert!(matches!(
        events.last(),
        Some(AgentEvent::RunFinished {
            reason: RunFinishReason::Cancelled,
            ..
        })
    ));
    let (resumed, _) = harness.ask(Some(&outcome.session_id), "continue").await;
    assert_eq!(resumed.reason, RunFinishReason::Completed);
    assert_eq!(resumed.answer, "resumed fine");
    harness.mock.assert_no_violations();
}
