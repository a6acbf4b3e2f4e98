use std::time::Duration;

use asterism_agent::{AgentConfig, test_tools};
use asterism_protocol::{AgentEvent, RunFinishReason};
use asterism_testkit::{ScriptedToolCall, Turn};
use serde_json::json;

use super::common::{Harness, notices, tool_results};

fn echo_turn() -> Vec<Turn> {
    vec![
        Turn {
            tool_calls: vec![ScriptedToolCall {
                id: Some("e".into()),
                name: "echo".into(),
                arguments: json!({"text": "hello"}),
            }],
            ..Turn::default()
        },
        Turn {
            text: Some("done".into()),
            ..Turn::default()
        },
    ]
}

async fn with_hooks(json: &str) -> Harness {
    let harness = Harness::start_with(
        echo_turn(),
        AgentConfig::default(),
        Duration::from_secs(5),
        test_tools::registry(),
    )
    .await;
    std::fs::write(harness.data_dir().join("hooks.json"), json).unwrap();
    harness
}

#[tokio::test]
async fn a_pre_tool_use_hook_blocks_with_its_reason_and_sees_the_session() {
    let harness = with_hooks(r#"{"hooks": [{"event": "PreToolUse", "matcher": "echo", "command": "cat > seen.json; echo 'echo is not allowed here' >&2; exit 2"}]}"#).await;
    let (outcome, events) = harness.ask(None, "go").await;
    assert_eq!(outcome.reason, RunFinishReason::Completed);
    let (output, is_error, _) = &tool_results(&events)[0];
    assert!(is_error);
    assert_eq!(
        output,
        "A hook blocked this echo call: echo is not allowed here"
    );
    let seen: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(harness.data_dir().join("seen.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(seen["sessionId"], outcome.session_id.as_str());
    assert_eq!(seen["agentName"], "main");
    assert_eq!(seen["event"], "PreToolUse");
}

#[tokio::test]
async fn post_tool_use_rewrites_the_output_and_pre_tool_use_the_input() {
    let harness = with_hooks(
        r#"{"hooks": [
            {"event": "PreToolUse", "command": "echo '{\"updatedInput\": {\"text\": \"changed\"}}'"},
            {"event": "PostToolUse", "command": "echo '{\"updatedOutput\": \"rewritten by a hook\"}'"}
        ]}"#,
    )
    .await;
    let (_, events) = harness.ask(None, "go").await;
    assert_eq!(tool_results(&events)[0].0, "rewritten by a hook");
    let sent = &harness.mock.requests()[1].body;
    assert!(sent.to_string().contains("rewritten by a hook"));
}

#[tokio::test]
async fn a_hanging_hook_is_reported_and_the_call_still_runs() {
    let harness = with_hooks(
        r#"{"hooks": [{"event": "PreToolUse", "command": "sleep 30", "timeoutSecs": 1}]}"#,
    )
    .await;
    let (outcome, events) = harness.ask(None, "go").await;
    assert_eq!(outcome.reason, RunFinishReason::Completed);
    assert_eq!(tool_results(&events)[0].0, "hello");
    let notices = notices(&events);
    assert!(
        notices
            .iter()
            .any(|(kind, message)| kind == "hook" && message.contains("did not finish within 1 s")),
        "{notices:?}"
    );
}

#[tokio::test]
async fn a_hooks_file_that_is_not_json_is_reported_and_ignored() {
    let harness = with_hooks("{this is not json").await;
    let (outcome, events) = harness.ask(None, "go").await;
    assert_eq!(outcome.reason, RunFinishReason::Completed);
    assert_eq!(tool_results(&events)[0].0, "hello");
    let notices = notices(&events);
    assert!(
        notices
            .iter()
            .any(|(kind, message)| kind == "hooks" && message.contains("hooks.json is not valid")),
        "{notices:?}"
    );
    // The notice is part of the stored history.
    let replayed = asterism_agent::session_events(&harness.store, &outcome.session_id)
        .await
        .unwrap();
    assert!(
        replayed
            .iter()
            .any(|event| matches!(event, AgentEvent::Notice { kind, .. } if kind == "hooks"))
    );
}

#[tokio::test]
async fn a_user_prompt_submit_hook_can_refuse_a_question() {
    let harness = with_hooks(r#"{"hooks": [{"event": "UserPromptSubmit", "command": "echo 'questions are paused' >&2; exit 2"}]}"#).await;
    let (outcome, events) = harness.ask(None, "go").await;
    assert_eq!(outcome.reason, RunFinishReason::Failed);
    assert!(events.iter().any(|event| matches!(event, AgentEvent::Error { kind, message, .. } if kind == "hook" && message.contains("questions are paused"))));
    assert!(harness.mock.requests().is_empty());
}
