use asterism_protocol::{AgentEvent, RunFinishReason};
use asterism_testkit::{Fault, Turn};

use super::common::{Harness, notices};

fn http(status: u16, retry_after: Option<u64>) -> Turn {
    Turn {
        fault: Some(Fault::Http {
            status,
            body: format!(r#"{{"error":{{"message":"upstream said {status}"}}}}"#),
            retry_after,
        }),
        ..Turn::default()
    }
}

fn text(answer: &str) -> Turn {
    Turn {
        text: Some(answer.into()),
        ..Turn::default()
    }
}

#[tokio::test]
async fn http_500_then_success_is_retried_and_said() {
    let harness = Harness::start(vec![http(500, None), text("fine now")]).await;
    let (outcome, events) = harness.ask(None, "go").await;
    assert_eq!(outcome.reason, RunFinishReason::Completed);
    assert_eq!(outcome.answer, "fine now");
    let notices = notices(&events);
    assert_eq!(notices.len(), 1);
    assert_eq!(notices[0].0, "retry");
    assert!(
        notices[0].1.contains("HTTP 500") && notices[0].1.contains("retry 1 of 2"),
        "{}",
        notices[0].1
    );
}

#[tokio::test]
async fn a_429_waits_for_its_retry_after() {
    let harness = Harness::start(vec![http(429, Some(1)), text("fine now")]).await;
    let (outcome, events) = harness.ask(None, "go").await;
    assert_eq!(outcome.reason, RunFinishReason::Completed);
    let notices = notices(&events);
    assert!(
        notices[0].1.contains("rate limited") && notices[0].1.contains("in 1.0 s"),
        "{}",
        notices[0].1
    );
}

#[tokio::test]
async fn the_fallback_model_answers_when_retries_are_used_up() {
    let harness = Harness::start(vec![
        http(503, None),
        http(503, None),
        http(503, None),
        text("from the fallback"),
    ])
    .await;
    let (outcome, events) = harness.ask(None, "go").await;
    assert_eq!(
        outcome.reason,
        RunFinishReason::Completed,
        "{:?}",
        outcome.error
    );
    assert_eq!(outcome.answer, "from the fallback");
    let notices = notices(&events);
    assert!(
        notices.iter().any(|(kind, message)| kind == "fallback"
            && message.contains("fallback model fallback-model")),
        "{notices:?}"
    );
    let requests = harness.mock.requests();
    assert_eq!(requests.len(), 4);
    assert_eq!(requests[2].body["model"], "scripted-model");
    assert_eq!(requests[3].body["model"], "fallback-model");
}

#[tokio::test]
async fn a_bad_key_is_not_retried() {
    let harness = Harness::start(vec![http(401, None), text("never served")]).await;
    let (outcome, events) = harness.ask(None, "go").await;
    assert_eq!(outcome.reason, RunFinishReason::Failed);
    assert!(notices(&events).is_empty());
    assert_eq!(harness.mock.requests().len(), 1);
}

#[tokio::test]
async fn invalid_utf8_and_a_missing_done_end_the_run_clearly_and_the_session_resumes() {
    for fault in [Fault::InvalidUtf8, Fault::NoDone] {
        let harness = Harness::start(vec![
            Turn {
                text: Some("partial answer streamed".into()),
                fault: Some(fault.clone()),
                ..Turn::default()
            },
            text("recovered"),
        ])
        .await;
        let (outcome, events) = harness.ask(None, "go").await;
        assert_eq!(outcome.reason, RunFinishReason::Failed, "{fault:?}");
        assert!(
            events
                .iter()
                .any(|event| matches!(event, AgentEvent::Error { .. })),
            "{fault:?}"
        );
        let (resumed, _) = harness.ask(Some(&outcome.session_id), "again").await;
        assert_eq!(resumed.answer, "recovered", "{fault:?}");
    }
}
