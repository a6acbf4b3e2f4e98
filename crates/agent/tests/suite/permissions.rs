use std::sync::Arc;
use std::time::Duration;

use asterism_agent::permissions::{
    PermissionAnswer, PermissionBroker, PermissionMode, Rule, RuleDecision,
};
use asterism_agent::{AgentConfig, CollectingSink, EventSink, RunRequest, test_tools};
use asterism_protocol::AgentEvent;
use asterism_testkit::{ScriptedToolCall, Turn};
use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::common::{Harness, tool_results};

fn write_turn(id: &str, path: &str) -> Turn {
    Turn {
        tool_calls: vec![ScriptedToolCall {
            id: Some(id.into()),
            name: "write_note".into(),
            arguments: json!({"path": path, "text": "x"}),
        }],
        ..Turn::default()
    }
}

fn answer() -> Turn {
    Turn {
        text: Some("done".into()),
        ..Turn::default()
    }
}

/// Forwards events and answers every permission request with `answer`.
struct Answering {
    collected: CollectingSink,
    broker: Arc<PermissionBroker>,
    answer: PermissionAnswer,
    /// How long the user takes to answer.
    delay: Duration,
}

impl EventSink for Answering {
    fn emit(&self, event: AgentEvent) {
        if let AgentEvent::PermissionRequest { request_id, .. } = &event {
            let broker = self.broker.clone();
            let request_id = request_id.clone();
            let answer = self.answer.clone();
            let delay = self.delay;
            tokio::spawn(async move {
                tokio::time::sleep(delay).await;
                broker.answer(&request_id, answer);
            });
        }
        self.collected.emit(event);
    }
}

pub(super) async fn run_answering(
    harness: &Harness,
    session: Option<&str>,
    answer: PermissionAnswer,
) -> (asterism_agent::RunOutcome, Vec<AgentEvent>) {
    run_answering_after(harness, session, answer, Duration::from_millis(10)).await
}

async fn run_answering_after(
    harness: &Harness,
    session: Option<&str>,
    answer: PermissionAnswer,
    delay: Duration,
) -> (asterism_agent::RunOutcome, Vec<AgentEvent>) {
    let collected = CollectingSink::new();
    let sink = Arc::new(Answering {
        collected: collected.clone(),
        broker: harness.runtime.broker().clone(),
        answer,
        delay,
    });
    let request = RunRequest {
        session_id: session.map(str::to_string),
        question: "write it".into(),
        enable_thinking: false,
        first_tool: None,
    };
    let outcome = harness
        .runtime
        .run(request, sink, CancellationToken::new())
        .await;
    (outcome, collected.events())
}

pub(super) fn requests(events: &[AgentEvent]) -> usize {
    events
        .iter()
        .filter(|event| matches!(event, AgentEvent::PermissionRequest { .. }))
        .count()
}

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
async fn allow_for_the_session_asks_once() {
    let turns = vec![
        write_turn("a", "notes/a.md"),
        answer(),
        write_turn("b", "notes/b.md"),
        answer(),
    ];
    let harness = harness(turns).await;
    let (first, events) = run_answering(
        &harness,
        None,
        PermissionAnswer::AllowSession { rule: None },
    )
    .await;
    assert_eq!(requests(&events), 1);
    let request = events
        .iter()
        .find(|event| matches!(event, AgentEvent::PermissionRequest { .. }))
        .unwrap();
    let AgentEvent::PermissionRequest {
        tool,
        arguments,
        tool_call_id,
        ..
    } = request
    else {
        unreachable!()
    };
    assert_eq!((tool.as_str(), tool_call_id.as_str()), ("write_note", "a"));
    assert_eq!(arguments["path"], "notes/a.md");
    assert_eq!(tool_results(&events)[0].0, "wrote notes/a.md");
    let (_, events) = run_answering(
        &harness,
        Some(&first.session_id),
        PermissionAnswer::Deny { reason: None },
    )
    .await;
    assert_eq!(requests(&events), 0, "the session grant holds");
    assert_eq!(tool_results(&events)[0].0, "wrote notes/b.md");
}

#[tokio::test]
async fn the_time_spent_waiting_for_the_user_is_measured_apart_from_the_tools_own() {
    let harness = harness(vec![write_turn("a", "notes/a.md"), answer()]).await;
    let (outcome, events) = run_answering_after(
        &harness,
        None,
        PermissionAnswer::AllowOnce,
        Duration::from_millis(400),
    )
    .await;
    assert_eq!(tool_results(&events)[0].0, "wrote notes/a.md");
    let metrics = harness
        .store
        .session_metrics(&outcome.session_id)
        .await
        .unwrap();
    let of = |kind: &str| {
        metrics
            .iter()
            .filter(|m| m.kind == kind && m.name == "write_note")
            .map(|m| m.duration_ms)
            .collect::<Vec<_>>()
    };
    let (waits, runs) = (of("wait"), of("tool"));
    assert_eq!((waits.len(), runs.len()), (1, 1), "{metrics:?}");
    assert!(waits[0] >= 400.0, "the wait is the user's: {waits:?}");
    assert!(runs[0] < 400.0, "the tool's time is its own: {runs:?}");
    let shown = events.iter().find_map(|event| match event {
        AgentEvent::ToolResult { duration_ms, .. } => Some(*duration_ms),
        _ => None,
    });
    assert!(
        shown.unwrap() < 400.0,
        "the timeline shows the tool's own time"
    );
}

#[tokio::test]
async fn a_denial_reaches_the_model_with_its_reason() {
    let harness = harness(vec![write_turn("a", "notes/a.md"), answer()]).await;
    let (_, events) = run_answering(
        &harness,
        None,
        PermissionAnswer::Deny {
            reason: Some("not in my notes folder".into()),
        },
    )
    .await;
    let (output, is_error, _) = &tool_results(&events)[0];
    assert!(is_error);
    assert_eq!(
        output,
        "The user denied this write_note call: not in my notes folder"
    );
    let sent = &harness.mock.requests()[1].body["messages"];
    assert!(sent.to_string().contains("not in my notes folder"));
}

#[tokio::test]
async fn allow_always_is_stored_as_a_rule() {
    let harness = harness(vec![write_turn("a", "notes/a.md"), answer()]).await;
    run_answering(&harness, None, PermissionAnswer::AllowAlways { rule: None }).await;
    assert_eq!(
        harness.store.permission_rules().await.unwrap(),
        [("write_note".to_string(), "allow".to_string())]
    );
}

#[tokio::test]
async fn no_answer_in_time_means_deny() {
    let mut harness = harness(vec![write_turn("a", "notes/a.md"), answer()]).await;
    harness.runtime = harness
        .runtime
        .clone()
        .with_broker(PermissionBroker::new(Duration::from_millis(100), true));
    let (_, events) = harness.ask(None, "write").await;
    assert_eq!(requests(&events), 1);
    let (output, is_error, _) = &tool_results(&events)[0];
    assert!(is_error);
    assert!(output.contains("no answer within"), "{output}");
}

#[tokio::test]
async fn without_a_terminal_ask_means_deny_unless_allowed() {
    let mut harness = harness(vec![
        write_turn("a", "notes/a.md"),
        answer(),
        write_turn("b", "notes/b.md"),
        answer(),
    ])
    .await;
    harness.runtime = harness
        .runtime
        .clone()
        .with_broker(PermissionBroker::new(Duration::from_secs(60), false));
    let (first, events) = harness.ask(None, "write").await;
    assert_eq!(requests(&events), 0);
    assert!(tool_results(&events)[0].0.contains("--allow write_note"));
    harness.runtime = harness.runtime.clone().with_grants(vec![
        Rule::parse(RuleDecision::Allow, "write_note(path:notes/**)").unwrap(),
    ]);
    let (_, events) = harness.ask(Some(&first.session_id), "write again").await;
    assert_eq!(tool_results(&events)[0].0, "wrote notes/b.md");
}

#[tokio::test]
async fn read_only_mode_refuses_writes_without_asking() {
    let mut harness = harness(vec![write_turn("a", "notes/a.md"), answer()]).await;
    harness.runtime = harness
        .runtime
        .clone()
        .with_permission_mode(PermissionMode::ReadOnly);
    let (_, events) = harness.ask(None, "write").await;
    assert_eq!(requests(&events), 0);
    assert!(tool_results(&events)[0].0.contains("read-only"));
    let audit: Vec<(String, String)> = sqlx_audit(&harness).await;
    assert_eq!(audit, [("deny".to_string(), "rejected".to_string())]);
}

async fn sqlx_audit(harness: &Harness) -> Vec<(String, String)> {
    harness.store.audit_decisions().await.unwrap()
}

#[tokio::test]
async fn the_agent_can_request_a_permission_it_lacks_with_its_reason() {
    let turns = vec![
        Turn {
            tool_calls: vec![ScriptedToolCall {
                id: Some("req".into()),
                name: "request_permission".into(),
                arguments: json!({"tool": "write_note", "pattern": "path:notes/**", "reason": "to save the coordinates you asked for"}),
            }],
            ..Turn::default()
        },
        write_turn("w", "notes/ngc4258.md"),
        answer(),
    ];
    let harness = harness(turns).await;
    let (_, events) = run_answering(
        &harness,
        None,
        PermissionAnswer::AllowSession { rule: None },
    )
    .await;
    let reasons: Vec<String> = events
        .iter()
        .filter_map(|event| match event {
            AgentEvent::PermissionRequest { reason, .. } => Some(reason.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(
        reasons,
        ["The agent asks to use write_note(path:notes/**): to save the coordinates you asked for"]
    );
    let results = tool_results(&events);
    assert_eq!(
        results[0].0,
        "Granted for this session: write_note(path:notes/**)"
    );
    assert_eq!(
        results[1].0, "wrote notes/ngc4258.md",
        "the grant covers the later write without asking"
    );
}
