use asterism_agent::session_events;
use asterism_protocol::{AgentEvent, RunFinishReason, Timeline};
use pretty_assertions::assert_eq;

use super::common::{Harness, ask_target_script, kinds, tool_results};

#[tokio::test]
async fn where_is_ngc_4258_streams_calls_sesame_answers_and_replays() {
    let harness = Harness::start(ask_target_script(
        "NGC 4258",
        "NGC 4258 (M 106) lies at RA 12:18:57.62, Dec +47:18:13.4.",
    ))
    .await;
    let (outcome, events) = harness.ask(None, "Where is NGC 4258?").await;
    assert_eq!(
        outcome.reason,
        RunFinishReason::Completed,
        "{:?}",
        outcome.error
    );
    assert_eq!(outcome.steps, 2);
    // The streaming executor starts the call before the step's usage arrives.
    assert_eq!(
        kinds(&events),
        [
            "RunStarted",
            "Thinking",
            "ToolCall",
            "Usage",
            "ToolResult",
            "Thinking",
            "TextDelta",
            "Usage",
            "RunFinished"
        ]
    );
    let call = events
        .iter()
        .find(|event| matches!(event, AgentEvent::ToolCall { .. }))
        .unwrap();
    let AgentEvent::ToolCall {
        id,
        tool_call_id,
        name,
        arguments,
        ..
    } = call
    else {
        unreachable!()
    };
    assert_eq!(
        (id.as_str(), tool_call_id.as_str(), name.as_str()),
        ("call_target_1", "call_target_1", "query_target")
    );
    assert_eq!(arguments["name"], "NGC 4258");
    let results = tool_results(&events);
    assert_eq!(results.len(), 1);
    let (output, is_error, metadata) = &results[0];
    assert!(!is_error, "{output}");
    assert!(output.contains("12:18:57.62 +47:18:13.4"), "{output}");
    assert!(output.contains("LINER"), "{output}");
    assert!((metadata["raDeg"].as_f64().unwrap() - 184.74008333).abs() < 1e-6);
    assert_eq!(metadata["resolver"], "Simbad");
    assert_eq!(
        outcome.answer,
        "NGC 4258 (M 106) lies at RA 12:18:57.62, Dec +47:18:13.4."
    );

    // The model saw the tool's result in its next request, under the call's id.
    harness.mock.assert_no_violations();
    let requests = harness.mock.requests();
    assert_eq!(requests.len(), 2);
    let second = requests[1].body["messages"].as_array().unwrap();
    let tool_message = second
        .iter()
        .find(|message| message["role"] == "tool")
        .unwrap();
    assert_eq!(tool_message["tool_call_id"], "call_target_1");
    assert!(tool_message["content"].as_str().unwrap().contains("M 106"));
    let tool_names: Vec<&str> = requests[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["function"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        tool_names,
        [
            "ask_user",
            "bibtex",
            "citation_graph",
            "compress_context",
            "download_paper",
            "file_edit",
            "file_write",
            "get_paper_content",
            "get_paper_metadata",
            "glob_files",
            "grep_files",
            "load_skill",
            "parse_paper",
            "query_target",
            "rag_search",
            "read_file",
            "request_permission",
            "run_bash",
            "save_memory",
            "save_note",
            "search_library_by_object",
            "search_papers",
            "subagent",
            "todo_write"
        ]
    );

    // Replay from the database alone gives the same timeline.
    let replayed = session_events(&harness.store, &outcome.session_id)
        .await
        .unwrap();
    assert_eq!(
        Timeline::from_events(&replayed).into_items(),
        Timeline::from_events(&events).into_items()
    );
    assert!(matches!(
        replayed.last(),
        Some(AgentEvent::RunFinished {
            reason: RunFinishReason::Completed,
            ..
        })
    ));

    // Audit and metrics were written.
    assert_eq!(
        harness
            .store
            .audit_count(&outcome.session_id)
            .await
            .unwrap(),
        1
    );
    assert_eq!(
        harness
            .store
            .metrics_count(&outcome.session_id)
            .await
            .unwrap(),
        3
    );
    let sessions = harness.store.list_sessions(10).await.unwrap();
    assert_eq!(sessions[0].title, "Where is NGC 4258?");
}

#[tokio::test]
async fn a_second_lookup_of_the_same_name_comes_from_the_cache() {
    let mut turns = ask_target_script("NGC 4258", "First.");
    turns.extend(ask_target_script("ngc4258", "Second."));
    let harness = Harness::start(turns).await;
    let (first, _) = harness.ask(None, "Where is NGC 4258?").await;
    let (_, events) = harness.ask(Some(&first.session_id), "And again?").await;
    let (_, _, metadata) = &tool_results(&events)[0];
    assert_eq!(metadata["fromCache"], true);
    assert_eq!(harness.sesame.requests().len(), 1, "Sesame asked once");
}

#[tokio::test]
async fn a_follow_up_question_continues_the_stored_conversation() {
    let mut turns = ask_target_script("NGC 4258", "It is M 106.");
    turns.push(asterism_testkit::Turn {
        text: Some("It is a LINER.".into()),
        ..Default::default()
    });
    let harness = Harness::start(turns).await;
    let (first, _) = harness.ask(None, "Where is NGC 4258?").await;
    let (second, _) = harness
        .ask(Some(&first.session_id), "What kind of nucleus?")
        .await;
    assert_eq!(second.reason, RunFinishReason::Completed);
    let third_request = &harness.mock.requests()[2].body;
    let roles: Vec<&str> = third_request["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(
        roles,
        ["system", "user", "assistant", "tool", "assistant", "user"]
    );
    harness.mock.assert_no_violations();
}
