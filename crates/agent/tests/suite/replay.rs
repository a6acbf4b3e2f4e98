use asterism_agent::{TimelineCache, session_timeline};
use asterism_protocol::TimelineItem;
use asterism_store::{MessageRole, NewMessage, Store};

fn message(session: &str, run: &str, role: MessageRole, content: &str) -> NewMessage {
    NewMessage {
        session_id: session.into(),
        run_id: run.into(),
        step: i32::from(role == MessageRole::Assistant),
        agent_name: "main".into(),
        role,
        content: content.into(),
        tool_calls: None,
        tool_call_id: None,
        metadata: serde_json::json!({}),
        raw_json: None,
    }
}

/// The row a finished run ends with (a run without one replays as interrupted).
fn finished(session: &str, run: &str) -> NewMessage {
    let mut row = message(session, run, MessageRole::Event, "");
    row.metadata = serde_json::json!({"event": {
        "type": "RunFinished", "sessionId": session, "reason": "completed",
        "usage": {"promptTokens": 0, "completionTokens": 0, "reasoningTokens": 0},
        "steps": 1, "finishedAt": "2026-12-01T10:00:00Z"
    }});
    row
}

fn texts(items: &[TimelineItem]) -> Vec<String> {
    items
        .iter()
        .filter_map(|item| match item {
            TimelineItem::User { text, .. } | TimelineItem::Text { text, .. } => Some(text.clone()),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn a_reopened_session_shows_what_was_added_since_and_the_tail_matches_the_whole() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open_in_dir(dir.path()).await.unwrap();
    store.ensure_session("s1", "first", "qwen").await.unwrap();
    store.ensure_session("s2", "second", "qwen").await.unwrap();
    let mut first = Vec::new();
    for n in 0..50 {
        first.push(message(
            "s1",
            &format!("r{n}"),
            MessageRole::User,
            &format!("Question {n}"),
        ));
        first.push(message(
            "s1",
            &format!("r{n}"),
            MessageRole::Assistant,
            &format!("Answer {n}"),
        ));
        first.push(finished("s1", &format!("r{n}")));
    }
    store.append_messages(&first).await.unwrap();
    store
        .append_messages(&[
            message("s2", "x", MessageRole::User, "Other session"),
            finished("s2", "x"),
        ])
        .await
        .unwrap();

    let cache = TimelineCache::default();
    let (total, tail) = cache.tail(&store, "s1", 3).await.unwrap();
    let whole = session_timeline(&store, "s1").await.unwrap();
    assert_eq!(total, whole.len());
    assert_eq!(tail, whole[whole.len() - 3..]);
    assert_eq!(texts(&tail), ["Answer 48", "Question 49", "Answer 49"]);
    assert_eq!(*cache.timeline(&store, "s1").await.unwrap(), whole);

    // Another session is not answered from the one kept.
    assert_eq!(
        texts(&cache.timeline(&store, "s2").await.unwrap()),
        ["Other session"]
    );

    // A question asked since is in the timeline when the session is opened again.
    let before = cache.timeline(&store, "s1").await.unwrap().len();
    store
        .append_messages(&[
            message("s1", "r50", MessageRole::User, "Question 50"),
            message("s1", "r50", MessageRole::Assistant, "Answer 50"),
            finished("s1", "r50"),
        ])
        .await
        .unwrap();
    let (total, tail) = cache.tail(&store, "s1", 2).await.unwrap();
    assert_eq!(total, before + 2);
    assert_eq!(texts(&tail), ["Question 50", "Answer 50"]);

    // A deleted session is gone, not served from memory.
    store.delete_session("s1").await.unwrap();
    assert!(cache.timeline(&store, "s1").await.is_err());
}

#[tokio::test]
async fn a_run_without_an_end_replays_as_interrupted_unless_it_is_still_running() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open_in_dir(dir.path()).await.unwrap();
    store.ensure_session("s", "killed", "qwen").await.unwrap();
    store
        .append_messages(&[
            message("s", "r1", MessageRole::User, "First"),
            message("s", "r1", MessageRole::Assistant, "Half an ans"),
            message("s", "r2", MessageRole::User, "Second"),
            message("s", "r2", MessageRole::Assistant, "Done"),
            finished("s", "r2"),
            message("s", "r3", MessageRole::User, "Third"),
        ])
        .await
        .unwrap();
    let interrupted = |items: &[TimelineItem]| {
        items
            .iter()
            .filter(|item| matches!(item, TimelineItem::Error { error_kind, .. } if error_kind == "interrupted"))
            .count()
    };
    // r1 (followed by another run) and r3 (nobody holds the session) were cut off.
    let items = session_timeline(&store, "s").await.unwrap();
    assert_eq!(interrupted(&items), 2, "{items:#?}");
    // While a live run holds the session, its open run is not called interrupted.
    store
        .acquire_lease("s", "r3", std::time::Duration::from_secs(10))
        .await
        .unwrap();
    let items = session_timeline(&store, "s").await.unwrap();
    assert_eq!(interrupted(&items), 1);
}
