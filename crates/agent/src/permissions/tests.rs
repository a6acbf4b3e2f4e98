use super::*;
use crate::test_tools::{CommandTool, EchoTool, WriteTool};
use serde_json::json;

fn rule(decision: RuleDecision, text: &str) -> Rule {
    Rule::parse(decision, text).unwrap()
}

#[test]
fn rules_parse_tool_globs_subjects_and_fields() {
    let bash = rule(RuleDecision::Allow, "command(git status*)");
    assert!(bash.matches(
        "command",
        &json!({"command": "git status --short"}),
        Some("git status --short")
    ));
    assert!(!bash.matches("command", &json!({"command": "git push"}), Some("git push")));
    let notes = rule(RuleDecision::Allow, "write_note(path:notes/**)");
    assert!(notes.matches(
        "write_note",
        &json!({"path": "notes/a/b.md", "text": "x"}),
        None
    ));
    assert!(!notes.matches(
        "write_note",
        &json!({"path": "papers/a.pdf", "text": "x"}),
        None
    ));
    assert!(rule(RuleDecision::Deny, "*").matches("anything", &json!({}), None));
    assert!(Rule::parse(RuleDecision::Allow, "run_bash(git status*").is_err());
    assert!(Rule::parse(RuleDecision::Allow, "").is_err());
}

#[test]
fn deny_beats_ask_beats_allow() {
    let checker = PermissionChecker::new(
        PermissionMode::Bypass,
        vec![
            rule(RuleDecision::Allow, "*"),
            rule(RuleDecision::Deny, "command(rm *)"),
        ],
    );
    assert!(matches!(
        checker.check(&CommandTool, &json!({"command": "rm -rf /"})),
        Decision::Deny { .. }
    ));
    assert_eq!(
        checker.check(&CommandTool, &json!({"command": "ls"})),
        Decision::Allow
    );
    let checker = PermissionChecker::new(
        PermissionMode::Default,
        vec![
            rule(RuleDecision::Allow, "*"),
            rule(RuleDecision::Ask, "write_note"),
        ],
    );
    assert!(matches!(
        checker.check(&WriteTool, &json!({"path": "a", "text": "b"})),
        Decision::Ask { .. }
    ));
    assert_eq!(
        checker.check(&EchoTool, &json!({"text": "hi"})),
        Decision::Allow
    );
}

#[test]
fn modes_decide_what_no_rule_covers() {
    let write = json!({"path": "notes/x.md", "text": "t"});
    let command = json!({"command": "ls"});
    let check = |mode| {
        let checker = PermissionChecker::new(mode, vec![]);
        (
            checker.check(&EchoTool, &json!({"text": "x"})),
            checker.check(&WriteTool, &write),
            checker.check(&CommandTool, &command),
        )
    };
    let (read, w, c) = check(PermissionMode::Default);
    assert_eq!(read, Decision::Allow);
    assert!(matches!(w, Decision::Ask { .. }));
    assert!(matches!(c, Decision::Ask { .. }));
    let (_, w, c) = check(PermissionMode::ReadOnly);
    assert!(matches!(w, Decision::Deny { .. }));
    assert!(matches!(c, Decision::Deny { .. }));
    let (_, w, c) = check(PermissionMode::AcceptEdits);
    assert_eq!(w, Decision::Allow);
    assert!(matches!(c, Decision::Ask { .. }));
    let (_, w, c) = check(PermissionMode::Bypass);
    assert_eq!((w, c), (Decision::Allow, Decision::Allow));
}

#[test]
fn session_rules_allow_later_calls() {
    let checker = PermissionChecker::new(PermissionMode::Default, vec![]);
    let call = json!({"command": "ls"});
    assert!(matches!(
        checker.check(&CommandTool, &call),
        Decision::Ask { .. }
    ));
    checker.add_session_rule(rule(RuleDecision::Allow, "command"));
    assert_eq!(checker.check(&CommandTool, &call), Decision::Allow);
}

#[tokio::test]
async fn the_broker_delivers_answers_and_denies_on_timeout() {
    let sink = crate::CollectingSink::new();
    let broker = PermissionBroker::new(Duration::from_millis(200), true);
    let cancel = tokio_util::sync::CancellationToken::new();
    let answering = {
        let broker = broker.clone();
        tokio::spawn(async move {
            loop {
                if let Some(id) = broker.waiting().first() {
                    assert!(broker.answer(id, PermissionAnswer::AllowSession));
                    break;
                }
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        })
    };
    let answer = broker
        .ask(
            &sink,
            "call_1",
            "command",
            &json!({"command": "ls"}),
            "runs a command",
            &cancel,
        )
        .await;
    answering.await.unwrap();
    assert_eq!(answer, PermissionAnswer::AllowSession);
    assert!(matches!(
        sink.events()[0],
        AgentEvent::PermissionRequest { .. }
    ));
    let timed_out = broker
        .ask(
            &sink,
            "call_2",
            "command",
            &json!({}),
            "runs a command",
            &cancel,
        )
        .await;
    assert_eq!(
        timed_out,
        PermissionAnswer::NoAnswer {
            reason: "no answer within 0 s".into()
        }
    );
    assert!(broker.waiting().is_empty());
    let headless = PermissionBroker::new(Duration::from_secs(60), false);
    let denied = headless
        .ask(
            &sink,
            "call_3",
            "command",
            &json!({}),
            "runs a command",
            &cancel,
        )
        .await;
    assert!(
        matches!(denied, PermissionAnswer::NoAnswer { reason } if reason.contains("--allow command"))
    );
}
