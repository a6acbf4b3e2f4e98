//! Huge inputs: a giant tool argument, a giant question, a provider that says the
//! request is too large. Nothing breaks the session for good.

use std::time::Duration;

use asterism_agent::{AgentConfig, test_tools};
use asterism_protocol::RunFinishReason;
use asterism_testkit::{Fault, ScriptedToolCall, Turn};
use serde_json::json;

use super::common::{Harness, notices, tool_results};

async fn harness(turns: Vec<Turn>) -> Harness {
    Harness::start_with(
        turns,
        AgentConfig::default(),
        Duration::from_secs(5),
        test_tools::registry(),
    )
    .await
}

#[tokio::test]
async fn a_giant_tool_argument_is_refused_before_the_tool_runs_and_stored_once() {
    let huge = "x".repeat(300 * 1024);
    let turns = vec![
        Turn {
            tool_calls: vec![ScriptedToolCall {
                id: Some("big".into()),
                name: "echo".into(),
                arguments: json!({"text": huge}),
            }],
            ..Turn::default()
        },
        Turn::answer("I will keep arguments short."),
        Turn::answer("Still fine."),
    ];
    let harness = harness(turns).await;
    let (outcome, events) = harness.ask(None, "go").await;
    assert_eq!(outcome.reason, RunFinishReason::Completed);
    let (output, is_error, _) = &tool_results(&events)[0];
    assert!(
        *is_error && output.contains("over the limit"),
        "{}",
        &output[..output.len().min(200)]
    );
    assert!(output.len() < 1000, "the error quotes only the start");
    // The next request carries the call's arguments cut, not 300 KB again.
    let requests = harness.mock.requests();
    assert!(requests[1].body.to_string().len() < 64 * 1024);
    // The audit row keeps a digest and the start, not the whole argument.
    let audit = harness
        .store
        .audit_page(&Default::default(), 0, 10)
        .await
        .unwrap();
    let arguments = audit.entries[0].arguments.to_string();
    assert!(
        arguments.contains("sha256") && arguments.len() < 4096,
        "{arguments:.200}"
    );
    // The session can be continued.
    let (again, _) = harness.ask(Some(&outcome.session_id), "and now?").await;
    assert_eq!(again.reason, RunFinishReason::Completed);
    assert!(harness.mock.requests()[2].body.to_string().len() < 64 * 1024);
}

/// A long argument (under the limit) is stored with the assistant's message (its
/// `tool_calls` and the `raw_json` the seed keeps), not a third time with the result.
#[tokio::test]
async fn a_tool_call_s_arguments_are_stored_at_most_twice() {
    let long = "y".repeat(200 * 1024);
    let turns = vec![
        Turn {
            tool_calls: vec![ScriptedToolCall {
                id: Some("long".into()),
                name: "echo".into(),
                arguments: json!({"text": long}),
            }],
            ..Turn::default()
        },
        Turn::answer("Echoed."),
    ];
    let harness = harness(turns).await;
    let (outcome, _) = harness.ask(None, "go").await;
    assert_eq!(outcome.reason, RunFinishReason::Completed);
    let messages = harness.store.messages(&outcome.session_id).await.unwrap();
    let copies: usize = messages
        .iter()
        .map(|message| {
            [
                message.tool_calls.as_ref().map(|v| v.to_string()),
                Some(message.metadata.to_string()),
                message.raw_json.as_ref().map(|v| v.to_string()),
            ]
            .into_iter()
            .flatten()
            .filter(|field| field.contains(&long))
            .count()
        })
        .sum();
    assert_eq!(copies, 2, "tool_calls and raw_json of the assistant's row");
    let result = messages
        .iter()
        .find(|message| message.tool_call_id.as_deref() == Some("long"))
        .unwrap();
    assert_eq!(result.metadata["name"], "echo");
    // The replayed timeline still shows the call with its arguments.
    let replayed = harness.store.messages_for_replay(&outcome.session_id).await;
    assert!(replayed.unwrap().iter().any(|message| {
        message
            .tool_calls
            .as_ref()
            .is_some_and(|calls| calls.to_string().contains(&long))
    }));
}

#[tokio::test]
async fn a_session_holding_a_giant_question_is_cut_for_the_model_and_kept_whole() {
    let question = format!("Summarise this: {}", "TRGB ".repeat(200_000));
    let harness = harness(vec![
        Turn::answer("A long text."),
        Turn::answer("Continued."),
    ])
    .await;
    let (outcome, _) = harness.ask(None, &question).await;
    assert_eq!(outcome.reason, RunFinishReason::Completed);
    let (again, _) = harness.ask(Some(&outcome.session_id), "and?").await;
    assert_eq!(again.reason, RunFinishReason::Completed);
    for request in harness.mock.requests() {
        assert!(request.body.to_string().len() < 100 * 1024);
    }
    let stored = harness.store.messages(&outcome.session_id).await.unwrap();
    assert!(
        stored
            .iter()
            .any(|message| message.content == question.trim())
    );
}

#[tokio::test]
async fn a_request_too_large_for_the_provider_is_compacted_once_and_retried() {
    let turns = vec![
        Turn {
            fault: Some(Fault::Http {
                status: 413,
                body: "{\"error\": {\"message\": \"Request Entity Too Large\"}}".into(),
                retry_after: None,
            }),
            ..Turn::default()
        },
        Turn::answer("After compaction."),
    ];
    let harness = harness(turns).await;
    let (outcome, events) = harness.ask(None, "go").await;
    assert_eq!(outcome.reason, RunFinishReason::Completed, "{outcome:?}");
    assert!(
        notices(&events)
            .iter()
            .any(|(_, message)| message.contains("compacting and retrying once")),
        "{:?}",
        notices(&events)
    );
}
