use std::time::Duration;

use asterism_agent::compaction::{CLEARED_TOOL_OUTPUT, CompactionConfig, SUMMARY_PREFIX};
use asterism_agent::{AgentConfig, ToolRegistry};
use asterism_protocol::{AgentEvent, RunFinishReason};
use asterism_testkit::{Fault, Turn};

use super::common::{Harness, ask_target_script};

fn text(answer: &str) -> Turn {
    Turn {
        text: Some(answer.into()),
        ..Turn::default()
    }
}

fn messages_of(body: &serde_json::Value) -> Vec<(String, String)> {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["role"].as_str().unwrap().to_string(),
                m["content"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

#[tokio::test]
async fn manual_compaction_summarises_old_turns_and_later_runs_keep_it() {
    let turns = vec![
        text("Answer one."),
        text("Answer two."),
        text("Answer three."),
        text("- NGC 4258 is M 106 at 12:18:57.62 +47:18:13.4."), // the summary call
        text("Answer four."),
        text("Answer five."),
    ];
    let harness = Harness::start(turns).await;
    let (first, _) = harness.ask(None, "Question one?").await;
    let session = first.session_id.clone();
    harness.ask(Some(&session), "Question two?").await;
    harness.ask(Some(&session), "Question three?").await;
    let stored_before = harness.store.messages(&session).await.unwrap().len();
    harness.runtime.compaction_request(&session).request();
    let (fourth, events) = harness.ask(Some(&session), "Question four?").await;
    assert_eq!(fourth.reason, RunFinishReason::Completed);
    let compacted = events
        .iter()
        .find(|event| matches!(event, AgentEvent::Compacted { .. }))
        .unwrap();
    assert!(matches!(compacted, AgentEvent::Compacted { kind, .. } if kind == "manual"));

    let requests = harness.mock.requests();
    let summary_request = messages_of(&requests[3].body);
    assert!(
        summary_request[0]
            .1
            .contains("You compress research conversations")
    );
    assert!(
        requests[3].body.get("tools").is_none(),
        "the summary call has no tools"
    );
    let main_request = messages_of(&requests[4].body);
    assert_eq!(main_request[1].0, "user");
    assert!(main_request[1].1.starts_with(SUMMARY_PREFIX));
    let users: Vec<&str> = main_request
        .iter()
        .filter(|(role, _)| role == "user")
        .map(|(_, c)| c.as_str())
        .collect();
    assert_eq!(users[1..], ["Question three?", "Question four?"]);

    // History is never rewritten: every message is still stored.
    assert!(harness.store.messages(&session).await.unwrap().len() > stored_before);
    assert!(
        harness.store.list_sessions(10).await.unwrap()[0]
            .summary
            .as_deref()
            .unwrap()
            .contains("M 106")
    );

    // The next run starts from the summary too.
    harness.ask(Some(&session), "Question five?").await;
    let fifth = messages_of(&harness.mock.requests()[5].body);
    assert!(fifth[1].1.starts_with(SUMMARY_PREFIX));
    assert!(!fifth.iter().any(|(_, content)| content == "Question one?"));
    harness.mock.assert_no_violations();
}

#[tokio::test]
async fn auto_compaction_runs_past_the_soft_limit_and_a_failure_is_reported() {
    let config = AgentConfig {
        compaction: CompactionConfig {
            soft_limit_tokens: 10,
            keep_user_turns: 1,
            ..CompactionConfig::default()
        },
        ..AgentConfig::default()
    };
    let turns = vec![
        text("Answer one."),
        Turn {
            fault: Some(Fault::Http {
                status: 400,
                body: r#"{"error":{"message":"summary refused"}}"#.into(),
                retry_after: None,
            }),
            ..Turn::default()
        },
        text("Answer two."),
    ];
    let harness =
        Harness::start_with(turns, config, Duration::from_secs(5), ToolRegistry::new()).await;
    let (first, _) = harness.ask(None, "Question one?").await;
    let (second, events) = harness.ask(Some(&first.session_id), "Question two?").await;
    assert_eq!(
        second.reason,
        RunFinishReason::Completed,
        "{:?}",
        second.error
    );
    assert!(events.iter().any(|event| matches!(event, AgentEvent::Notice { kind, message, .. } if kind == "compaction" && message.contains("summary refused"))));
}

#[tokio::test]
async fn compaction_goes_by_the_model_s_own_token_count_not_the_characters() {
    // Short messages (a few dozen tokens by characters), but the server counted 9,000
    // tokens for the call: past the 5,000-token soft limit, so the next step compacts.
    let config = AgentConfig {
        compaction: CompactionConfig {
            soft_limit_tokens: 5_000,
            keep_user_turns: 1,
            ..CompactionConfig::default()
        },
        ..AgentConfig::default()
    };
    let counted = Turn {
        tool_calls: vec![asterism_testkit::ScriptedToolCall {
            id: Some("call_1".into()),
            name: "no_such_tool".into(),
            arguments: serde_json::json!({}),
        }],
        prompt_tokens: Some(9_000),
        ..Turn::default()
    };
    let turns = vec![
        text("Answer one."),
        counted,
        text("- summary of question one"),
        text("Answer two."),
    ];
    let harness =
        Harness::start_with(turns, config, Duration::from_secs(5), ToolRegistry::new()).await;
    let (first, events) = harness.ask(None, "Question one?").await;
    assert!(
        !events
            .iter()
            .any(|e| matches!(e, AgentEvent::Compacted { .. }))
    );
    let (second, events) = harness.ask(Some(&first.session_id), "Question two?").await;
    assert_eq!(second.answer, "Answer two.", "{:?}", second.error);
    let compacted = events.iter().find_map(|event| match event {
        AgentEvent::Compacted {
            tokens_before,
            step,
            ..
        } => Some((*tokens_before, *step)),
        _ => None,
    });
    let (before, step) = compacted.expect("no compaction after the 9,000-token call");
    assert_eq!(step, 2);
    assert!(before >= 9_000, "{before}");
}

#[tokio::test]
async fn a_context_overflow_compacts_once_and_retries() {
    let overflow = Fault::Http {
        status: 400,
        body: r#"{"error":{"message":"This model's maximum context length is 8192 tokens"}}"#
            .into(),
        retry_after: None,
    };
    let mut turns = vec![text("Answer one."), text("Answer two.")];
    turns.push(Turn {
        fault: Some(overflow),
        ..Turn::default()
    });
    turns.push(text("- summary of one and two"));
    turns.push(text("Answer three."));
    let harness = Harness::start(turns).await;
    let (first, _) = harness.ask(None, "Question one?").await;
    harness.ask(Some(&first.session_id), "Question two?").await;
    let (third, events) = harness
        .ask(Some(&first.session_id), "Question three?")
        .await;
    assert_eq!(
        third.reason,
        RunFinishReason::Completed,
        "{:?}",
        third.error
    );
    assert_eq!(third.answer, "Answer three.");
    assert!(
        events
            .iter()
            .any(|event| matches!(event, AgentEvent::Compacted { .. }))
    );
    let last = messages_of(&harness.mock.requests().last().unwrap().body);
    assert!(last[1].1.starts_with(SUMMARY_PREFIX));
}

#[tokio::test]
async fn old_tool_outputs_are_cleared_in_what_is_sent_not_in_what_is_stored() {
    let config = AgentConfig {
        compaction: CompactionConfig {
            keep_tool_outputs: 1,
            ..CompactionConfig::default()
        },
        ..AgentConfig::default()
    };
    let mut turns = ask_target_script("NGC 4258", "one");
    turns.extend(ask_target_script("castor", "two"));
    let harness =
        Harness::start_with(turns, config, Duration::from_secs(5), ToolRegistry::new()).await;
    let (first, _) = harness.ask(None, "Where is NGC 4258?").await;
    harness.ask(Some(&first.session_id), "And Castor?").await;
    let last = messages_of(&harness.mock.requests()[3].body);
    let tools: Vec<&str> = last
        .iter()
        .filter(|(role, _)| role == "tool")
        .map(|(_, content)| content.as_str())
        .collect();
    assert_eq!(tools[0], CLEARED_TOOL_OUTPUT);
    assert!(tools[1].contains("CASTOR"));
    let stored = harness.store.messages(&first.session_id).await.unwrap();
    assert!(
        stored
            .iter()
            .any(|m| m.content.contains("M 106 (asked: NGC 4258)"))
    );
}

#[tokio::test]
async fn the_compress_context_tool_compacts_before_the_next_step_once() {
    let compress = |id: &str| asterism_testkit::ScriptedToolCall {
        id: Some(id.into()),
        name: "compress_context".into(),
        arguments: serde_json::json!({"reason": "long papers read"}),
    };
    let turns = vec![
        text("Answer one."),
        text("Answer two."),
        text("Answer three."),
        Turn {
            tool_calls: vec![compress("c1"), compress("c2")],
            ..Turn::default()
        },
        text("- The user compares TRGB and Cepheid H0."), // the summary call
        text("Answer four."),
    ];
    let harness = Harness::start(turns).await;
    let (first, _) = harness.ask(None, "Question one?").await;
    let session = first.session_id.clone();
    harness.ask(Some(&session), "Question two?").await;
    harness.ask(Some(&session), "Question three?").await;
    let (fourth, events) = harness.ask(Some(&session), "Question four?").await;
    assert_eq!(fourth.reason, RunFinishReason::Completed);
    let compactions = events
        .iter()
        .filter(|event| matches!(event, AgentEvent::Compacted { kind, .. } if kind == "manual"))
        .count();
    assert_eq!(compactions, 1, "two calls, one compaction");
    let results = super::common::tool_results(&events);
    assert_eq!(results.len(), 2);
    assert!(
        results
            .iter()
            .all(|(_, error, meta)| !error && meta["requested"] == true)
    );
    let requests = harness.mock.requests();
    assert!(
        messages_of(&requests[4].body)[0]
            .1
            .contains("You compress research conversations")
    );
    assert!(
        messages_of(&requests[5].body)[1]
            .1
            .starts_with(SUMMARY_PREFIX)
    );
    harness.mock.assert_no_violations();
}
