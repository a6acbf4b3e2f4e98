use std::time::Duration;

use asterism_agent::{AgentConfig, ToolRegistry, session_events};
use asterism_protocol::{AgentEvent, RunFinishReason};
use asterism_store::MessageRole;
use asterism_testkit::{Fault, ScriptedToolCall, Turn};

use super::common::{Harness, ask_target_script, tool_results};

fn error_of(events: &[AgentEvent]) -> Option<(String, String)> {
    events.iter().find_map(|event| match event {
        AgentEvent::Error { kind, message, .. } => Some((kind.clone(), message.clone())),
        _ => None,
    })
}

#[tokio::test]
async fn an_unknown_object_is_a_clear_tool_error_and_the_run_goes_on() {
    let harness = Harness::start(ask_target_script(
        "Goober 42",
        "Sesame does not know that name.",
    ))
    .await;
    let (outcome, events) = harness.ask(None, "Where is Goober 42?").await;
    assert_eq!(outcome.reason, RunFinishReason::Completed);
    let (output, is_error, _) = &tool_results(&events)[0];
    assert!(is_error);
    assert_eq!(
        output,
        "Sesame found no object named \"Goober 42\" in Simbad, NED or VizieR"
    );
}

#[tokio::test]
async fn sesame_answering_garbage_is_a_clear_tool_error() {
    let harness = Harness::start(ask_target_script("garbage", "Sesame failed.")).await;
    let (_, events) = harness.ask(None, "Where is garbage?").await;
    let (output, is_error, _) = &tool_results(&events)[0];
    assert!(is_error);
    assert!(
        output.starts_with("Sesame's answer could not be read"),
        "{output}"
    );
}

#[tokio::test]
async fn sesame_timing_out_is_a_clear_tool_error() {
    let harness = Harness::start_with(
        ask_target_script("timeout", "Sesame is slow."),
        AgentConfig::default(),
        Duration::from_millis(300),
        ToolRegistry::new(),
    )
    .await;
    let (outcome, events) = harness.ask(None, "Where is timeout?").await;
    assert_eq!(outcome.reason, RunFinishReason::Completed);
    let (output, is_error, _) = &tool_results(&events)[0];
    assert!(is_error);
    assert!(output.contains("did not answer within"), "{output}");
}

#[tokio::test]
async fn a_model_stream_cut_mid_way_ends_the_run_with_an_error_and_keeps_the_session() {
    let mut turns = ask_target_script("NGC 4258", "unused");
    turns[1].fault = Some(Fault::Cut);
    turns[1].text = Some("NGC 4258 is a nearby spiral galaxy whose answer will be cut off".into());
    turns.push(Turn {
        text: Some("Recovered answer.".into()),
        ..Turn::default()
    });
    let harness = Harness::start(turns).await;
    let (outcome, events) = harness.ask(None, "Where is NGC 4258?").await;
    assert_eq!(outcome.reason, RunFinishReason::Failed);
    let (kind, message) = error_of(&events).unwrap();
    assert_eq!(kind, "network");
    assert!(message.contains("broke mid-stream"), "{message}");
    assert!(matches!(
        events.last(),
        Some(AgentEvent::RunFinished {
            reason: RunFinishReason::Failed,
            ..
        })
    ));

    // What happened before the cut is stored and replays with the error.
    let stored = harness.store.messages(&outcome.session_id).await.unwrap();
    let roles: Vec<MessageRole> = stored.iter().map(|m| m.role).collect();
    assert_eq!(
        roles,
        [
            MessageRole::System,
            MessageRole::User,
            MessageRole::Assistant,
            MessageRole::Tool,
            MessageRole::Event,
            MessageRole::Event
        ]
    );
    let replayed = session_events(&harness.store, &outcome.session_id)
        .await
        .unwrap();
    assert!(
        replayed
            .iter()
            .any(|e| matches!(e, AgentEvent::Error { kind, .. } if kind == "network"))
    );
    assert!(replayed.iter().any(|e| matches!(
        e,
        AgentEvent::ToolResult {
            is_error: false,
            ..
        }
    )));

    // The session can be resumed.
    let (resumed, _) = harness.ask(Some(&outcome.session_id), "Try again?").await;
    assert_eq!(resumed.reason, RunFinishReason::Completed);
    assert_eq!(resumed.answer, "Recovered answer.");
    harness.mock.assert_no_violations();
}

#[tokio::test]
async fn a_model_http_error_is_reported_not_panicked() {
    let turns = vec![Turn {
        fault: Some(Fault::Http {
            status: 401,
            body: r#"{"error":{"message":"Incorrect API key provided"}}"#.into(),
            retry_after: None,
        }),
        ..Turn::default()
    }];
    let harness = Harness::start(turns).await;
    let (outcome, events) = harness.ask(None, "Where is NGC 4258?").await;
    assert_eq!(outcome.reason, RunFinishReason::Failed);
    let (kind, message) = error_of(&events).unwrap();
    assert_eq!(kind, "auth");
    assert!(message.contains("Incorrect API key provided"));
}

#[tokio::test]
async fn invalid_arguments_and_unknown_tools_become_error_results() {
    let turns = vec![
        Turn {
            tool_calls: vec![
                ScriptedToolCall {
                    id: Some("bad_json".into()),
                    name: "query_target".into(),
                    arguments: serde_json::json!("{\"name\": \"NGC 42"),
                },
                ScriptedToolCall {
                    id: Some("no_tool".into()),
                    name: "launch_rocket".into(),
                    arguments: serde_json::json!({}),
                },
                ScriptedToolCall {
                    id: Some("wrong_field".into()),
                    name: "query_target".into(),
                    arguments: serde_json::json!({"object": "M 31"}),
                },
            ],
            ..Turn::default()
        },
        Turn {
            text: Some("Sorry.".into()),
            ..Turn::default()
        },
    ];
    let harness = Harness::start(turns).await;
    let (outcome, events) = harness.ask(None, "Go").await;
    assert_eq!(outcome.reason, RunFinishReason::Completed);
    let results = tool_results(&events);
    assert_eq!(results.len(), 3);
    assert!(results.iter().all(|(_, is_error, _)| *is_error));
    assert!(
        results
            .iter()
            .any(|(output, _, _)| output.contains("not valid JSON"))
    );
    assert!(
        results
            .iter()
            .any(|(output, _, _)| output.contains("no tool named \"launch_rocket\""))
    );
    assert!(
        results
            .iter()
            .any(|(output, _, _)| output.contains("Invalid arguments for query_target"))
    );
    harness.mock.assert_no_violations();
}

#[tokio::test]
async fn max_steps_stops_a_model_that_keeps_calling_tools() {
    let looping: Vec<Turn> = (0..5)
        .flat_map(|i| {
            ask_target_script(&format!("NGC {}", 4000 + i), "x")
                .into_iter()
                .take(1)
        })
        .collect();
    let config = AgentConfig {
        max_steps: 3,
        ..AgentConfig::default()
    };
    let harness =
        Harness::start_with(looping, config, Duration::from_secs(5), ToolRegistry::new()).await;
    let (outcome, events) = harness.ask(None, "Loop").await;
    assert_eq!(outcome.reason, RunFinishReason::MaxSteps);
    assert_eq!(outcome.steps, 3);
    assert_eq!(error_of(&events).unwrap().0, "maxSteps");
}
