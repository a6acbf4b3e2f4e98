//! The self-management and orchestration tools through the agent against the scripted
//! model: todo_write, ask_user, subagent, load_skill, background tasks, teams, and the
//! registry factories.

use std::sync::Arc;
use std::time::Duration;

use asterism_agent::questions::QuestionBroker;
use asterism_agent::skills::SkillRegistry;
use asterism_agent::{AgentConfig, ToolRegistry, session_timeline};
use asterism_protocol::{AgentEvent, RunFinishReason, TimelineItem};
use asterism_testkit::{ScriptedToolCall, Turn};
use serde_json::{Value, json};

use super::common::{Harness, tool_results};

fn call(id: &str, name: &str, arguments: Value) -> ScriptedToolCall {
    ScriptedToolCall {
        id: Some(id.into()),
        name: name.into(),
        arguments,
    }
}

fn calls(calls: Vec<ScriptedToolCall>) -> Turn {
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

/// A turn served only to the subagent `agent`.
fn for_agent(agent: &str, mut turn: Turn) -> Turn {
    turn.agent = Some(agent.into());
    turn
}

fn tool_names(body: &Value) -> Vec<String> {
    body["tools"]
        .as_array()
        .map(|tools| {
            tools
                .iter()
                .map(|tool| tool["function"]["name"].as_str().unwrap().to_string())
                .collect()
        })
        .unwrap_or_default()
}

fn system_of(body: &Value) -> String {
    body["messages"][0]["content"].as_str().unwrap().to_string()
}

fn todo(id: &str, status: &str, blocked_by: &[&str]) -> Value {
    json!({"id": id, "content": format!("Step {id}"), "status": status, "blockedBy": blocked_by})
}

#[tokio::test]
async fn todo_write_keeps_a_valid_plan_and_refuses_cycles_and_two_tasks_in_progress() {
    let plan = json!({"todos": [
        todo("search", "completed", &[]),
        todo("read", "in_progress", &["search"]),
        todo("answer", "pending", &["read"]),
    ]});
    let cyclic = json!({"todos": [
        todo("a", "pending", &["b"]),
        todo("b", "pending", &["a"]),
    ]});
    let two_started = json!({"todos": [
        todo("a", "in_progress", &[]),
        todo("b", "in_progress", &[]),
    ]});
    let turns = vec![
        calls(vec![call("t1", "todo_write", plan)]),
        calls(vec![call("t2", "todo_write", cyclic)]),
        calls(vec![call("t3", "todo_write", two_started)]),
        answer("Planned."),
    ];
    let harness = Harness::start(turns).await;
    let (outcome, events) = harness.ask(None, "Plan a review").await;
    assert_eq!(outcome.reason, RunFinishReason::Completed);
    let results = tool_results(&events);
    assert!(!results[0].1, "{}", results[0].0);
    assert!(results[0].0.contains("1 of 3 done"), "{}", results[0].0);
    assert!(results[0].0.contains("[>] read"), "{}", results[0].0);
    assert!(
        results[1].1 && results[1].0.contains("cycle: a → b → a"),
        "{}",
        results[1].0
    );
    assert!(
        results[2].1 && results[2].0.contains("exactly one task"),
        "{}",
        results[2].0
    );

    // One list announced; the refused ones changed nothing.
    let updates: Vec<&Value> = events
        .iter()
        .filter_map(|event| match event {
            AgentEvent::TodoUpdated { todos, agent_name } => {
                assert_eq!(agent_name, "main");
                Some(todos)
            }
            _ => None,
        })
        .collect();
    assert_eq!(updates.len(), 1);
    assert_eq!(updates[0][1]["taskId"], "read");
    let stored = harness
        .store
        .tasks(&outcome.session_id, "main")
        .await
        .unwrap();
    assert_eq!(stored.len(), 3);
    assert_eq!(stored[2].blocked_by, ["read"]);

    // Replay shows the plan where the live timeline did.
    let timeline = session_timeline(&harness.store, &outcome.session_id)
        .await
        .unwrap();
    let live = asterism_protocol::Timeline::from_events(&events).into_items();
    assert_eq!(timeline, live);
    assert_eq!(
        timeline
            .iter()
            .filter(|item| matches!(item, TimelineItem::Todos { .. }))
            .count(),
        1
    );
    harness.mock.assert_no_violations();
}

#[tokio::test]
async fn ask_user_waits_for_the_answer_and_carries_on_without_one() {
    let question =
        json!({"question": "Which object do you mean?", "options": ["NGC 1068", "NGC 4258"]});
    let turns = vec![
        calls(vec![call("q1", "ask_user", question.clone())]),
        answer("You chose NGC 4258."),
        calls(vec![call("q2", "ask_user", question)]),
        answer("I assumed NGC 1068."),
    ];
    let mut harness = Harness::start(turns).await;
    let questions = QuestionBroker::new(Duration::from_secs(5), true);
    harness.runtime = harness.runtime.clone().with_questions(questions.clone());
    let answering = questions.clone();
    let answerer = tokio::spawn(async move {
        loop {
            if let Some(id) = answering.waiting().first() {
                assert!(answering.answer(id, "NGC 4258"));
                return;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    });
    let (outcome, events) = harness.ask(None, "Where is it?").await;
    answerer.await.unwrap();
    assert_eq!(outcome.reason, RunFinishReason::Completed);
    assert!(events.iter().any(|event| matches!(
        event,
        AgentEvent::AskUser { question, options, .. }
            if question == "Which object do you mean?" && options.len() == 2
    )));
    let results = tool_results(&events);
    assert_eq!(results[0].0, "The user answered: NGC 4258");
    assert_eq!(results[0].2["answered"], true);

    // Nobody answers: after the timeout the agent is told so and the run goes on.
    let quiet = QuestionBroker::new(Duration::from_millis(100), true);
    harness.runtime = harness.runtime.clone().with_questions(quiet.clone());
    let (outcome, events) = harness.ask(Some(&outcome.session_id), "And now?").await;
    assert_eq!(outcome.reason, RunFinishReason::Completed);
    let results = tool_results(&events);
    assert!(!results[0].1);
    assert!(
        results[0]
            .0
            .contains("did not answer (no answer within 0 s)"),
        "{}",
        results[0].0
    );
    assert!(quiet.waiting().is_empty());
    harness.mock.assert_no_violations();
}

#[tokio::test]
async fn a_subagent_works_in_its_own_context_and_reports_back() {
    let turns = vec![
        calls(vec![call(
            "sub1",
            "subagent",
            json!({"task": "Where is NGC 4258? Give coordinates.", "name": "Scout"}),
        )]),
        for_agent(
            "scout",
            Turn {
                thinking: Some("I should resolve the name with Sesame.".into()),
                tool_calls: vec![call("s1", "query_target", json!({"name": "NGC 4258"}))],
                ..Turn::default()
            },
        ),
        for_agent(
            "scout",
            answer("NGC 4258 is M 106, at 12:18:57.6 +47:18:14 (Sesame)."),
        ),
        answer("The scout found M 106."),
    ];
    let harness = Harness::start(turns).await;
    let (outcome, events) = harness.ask(None, "Send a scout").await;
    assert_eq!(outcome.reason, RunFinishReason::Completed);
    assert!(events.iter().any(|event| matches!(
        event,
        AgentEvent::SubagentStarted { agent_name, parent, .. } if agent_name == "scout" && parent == "main"
    )));
    assert!(events.iter().any(|event| matches!(
        event,
        AgentEvent::ToolCall { name, agent_name, .. } if name == "query_target" && agent_name == "scout"
    )));
    assert!(events.iter().any(|event| matches!(
        event,
        AgentEvent::SubagentFinished { agent_name, reason: RunFinishReason::Completed, steps: 2, .. }
            if agent_name == "scout"
    )));
    let report = tool_results(&events)
        .into_iter()
        .find(|(_, _, metadata)| metadata["agentName"] == "scout")
        .unwrap();
    assert!(!report.1);
    assert!(report.0.starts_with("NGC 4258 is M 106"), "{}", report.0);
    assert!(
        report.0.contains("[Activity of subagent scout (2 steps)]"),
        "{}",
        report.0
    );
    assert!(
        report
            .0
            .contains("step 1 thought: I should resolve the name"),
        "{}",
        report.0
    );
    assert!(
        report.0.contains("step 1: query_target → ok"),
        "{}",
        report.0
    );

    let requests = harness.mock.requests();
    assert_eq!(requests.len(), 4);
    // The subagent starts from its task alone, with its own instructions and without
    // the tools that reach the user or start agents.
    let first = &requests[1].body;
    assert!(system_of(first).starts_with("You are scout, a subagent"));
    let messages = first["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 2);
    assert_eq!(
        messages[1]["content"],
        "Where is NGC 4258? Give coordinates."
    );
    let tools = tool_names(first);
    for parent_only in ["ask_user", "subagent", "request_permission"] {
        assert!(!tools.contains(&parent_only.to_string()), "{tools:?}");
    }
    assert!(tools.contains(&"query_target".to_string()));
    // The main agent sees the report, not the subagent's steps.
    let main_next = requests[3].body.to_string();
    assert!(main_next.contains("Activity of subagent scout"));
    assert!(!main_next.contains("\"s1\""));

    // Stored under its name; replay nests it as the live timeline did.
    let stored = harness.store.messages(&outcome.session_id).await.unwrap();
    assert!(
        stored
            .iter()
            .any(|m| m.agent_name == "scout" && m.role == asterism_store::MessageRole::Tool)
    );
    let timeline = session_timeline(&harness.store, &outcome.session_id)
        .await
        .unwrap();
    assert_eq!(
        timeline,
        asterism_protocol::Timeline::from_events(&events).into_items()
    );
    assert!(timeline.iter().any(|item| matches!(
        item,
        TimelineItem::Subagent { agent_name, summary: Some(summary), .. }
            if agent_name == "scout" && summary.contains("M 106")
    )));
    let users = timeline
        .iter()
        .filter(|item| matches!(item, TimelineItem::User { .. }))
        .count();
    assert_eq!(users, 1, "the subagent's task is not a user question");
    harness.mock.assert_no_violations();
}

#[tokio::test]
async fn a_subagent_that_reaches_its_step_limit_says_so() {
    let turns = vec![
        calls(vec![call(
            "sub1",
            "subagent",
            json!({"task": "Resolve NGC 4258 and NGC 1068", "max_steps": 1}),
        )]),
        for_agent(
            "subagent-1",
            calls(vec![call(
                "s1",
                "query_target",
                json!({"name": "NGC 4258"}),
            )]),
        ),
        answer("Partial."),
    ];
    let harness = Harness::start(turns).await;
    let (outcome, events) = harness.ask(None, "go").await;
    assert_eq!(outcome.reason, RunFinishReason::Completed);
    let report = &tool_results(&events)[1];
    assert!(
        report
            .0
            .starts_with("The subagent stopped at its limit of 1 steps before finishing"),
        "{}",
        report.0
    );
    assert_eq!(report.2["reason"], "maxSteps");
    assert!(report.0.contains("query_target → ok"), "{}", report.0);
    // The parent run did not end: only the subagent hit its limit.
    assert!(
        !events
            .iter()
            .any(|event| matches!(event, AgentEvent::Error { .. }))
    );
    harness.mock.assert_no_violations();
}

#[tokio::test]
async fn skills_load_inline_or_run_forked_with_their_own_tools() {
    let turns = vec![
        calls(vec![call(
            "k1",
            "load_skill",
            json!({"name": "referee-checklist"}),
        )]),
        calls(vec![call(
            "k2",
            "load_skill",
            json!({"name": "object-dossier", "task": "NGC 1068"}),
        )]),
        for_agent(
            "object-dossier",
            answer("NGC 1068 is M 77, a Seyfert 2 galaxy."),
        ),
        calls(vec![call(
            "k3",
            "load_skill",
            json!({"name": "no-such-skill"}),
        )]),
        answer("Done."),
    ];
    let harness = Harness::start(turns).await;
    // A broken skill of the user's is reported, not fatal.
    let broken = harness.data_dir().join("skills/broken");
    std::fs::create_dir_all(&broken).unwrap();
    std::fs::write(broken.join("SKILL.md"), "# No front matter\n").unwrap();
    let (outcome, events) = harness.ask(None, "Review and dossier").await;
    assert_eq!(outcome.reason, RunFinishReason::Completed);
    let results = tool_results(&events);
    assert!(
        results[0].0.starts_with("# Skill: referee-checklist"),
        "{}",
        results[0].0
    );
    assert!(results[0].0.contains("Major comments"));
    let fork = &results[1];
    assert!(fork.0.starts_with("NGC 1068 is M 77"), "{}", fork.0);
    assert_eq!(fork.2["skill"], "object-dossier");
    assert!(results[2].1);
    assert!(
        results[2].0.contains("literature-review"),
        "{}",
        results[2].0
    );

    let requests = harness.mock.requests();
    assert!(system_of(&requests[0].body).contains("- object-dossier: "));
    let dossier = &requests[2].body;
    assert!(system_of(dossier).contains("# Object dossier"));
    assert_eq!(
        tool_names(dossier),
        [
            "get_paper_content",
            "get_paper_metadata",
            "glob_files",
            "grep_files",
            "query_target",
            "read_file",
            "search_papers"
        ]
    );
    let registry = SkillRegistry::load(&harness.data_dir().join("skills"));
    assert_eq!(registry.skills().len(), 4);
    assert_eq!(registry.problems().len(), 1);
    assert!(
        registry.problems()[0]
            .to_string()
            .contains("no front matter")
    );
    harness.mock.assert_no_violations();
}

async fn full_harness(turns: Vec<Turn>) -> Harness {
    Harness::start_with_registry(
        turns,
        AgentConfig::default(),
        Duration::from_secs(5),
        |services| ToolRegistry::new_with_team(services.background.clone(), services.team.clone()),
    )
    .await
}

#[tokio::test]
async fn a_background_download_reaches_the_agent_before_its_next_step() {
    let turns = vec![
        calls(vec![call(
            "b1",
            "bg_task_run",
            json!({"tool": "download_paper", "arguments": {"id": "2013PASP..125..306F"}}),
        )]),
        answer("Downloading in the background."),
        calls(vec![call("b2", "bg_task_check", json!({}))]),
        answer("It is in the library."),
    ];
    let harness = full_harness(turns).await;
    let services = harness.runtime.services().clone();
    let (first, events) = harness.ask(None, "Fetch emcee").await;
    assert_eq!(first.reason, RunFinishReason::Completed);
    let started = &tool_results(&events)[0];
    assert!(!started.1, "{}", started.0);
    let task_id = started.2["taskId"].as_str().unwrap().to_string();
    services.background.wait_idle().await;
    let task = harness
        .store
        .background_task(&task_id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(task.status, "completed", "{:?}", task.output);
    assert!(!task.notified);

    let (second, events) = harness.ask(Some(&first.session_id), "Is it there?").await;
    assert_eq!(second.reason, RunFinishReason::Completed);
    let requests = harness.mock.requests();
    let delivered = requests[2].body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "user")
        .filter_map(|m| m["content"].as_str())
        .find(|content| content.starts_with(&format!("[Background task {task_id} (download_paper")))
        .unwrap()
        .to_string();
    assert!(delivered.contains("completed"), "{delivered}");
    assert!(events.iter().any(|event| matches!(
        event,
        AgentEvent::Notice { kind, .. } if kind == "background"
    )));
    let check = &tool_results(&events)[0];
    assert!(
        check.0.contains(&task_id) && check.0.contains("completed"),
        "{}",
        check.0
    );
    assert!(
        harness
            .store
            .background_task(&task_id)
            .await
            .unwrap()
            .unwrap()
            .notified
    );
    // Delivered once only.
    assert!(
        harness
            .store
            .unnotified_background_tasks(&first.session_id)
            .await
            .unwrap()
            .is_empty()
    );
    harness.mock.assert_no_violations();
}

#[tokio::test]
async fn background_tasks_left_running_are_interrupted_at_start_and_still_reported() {
    let turns = vec![
        answer("Noted."),
        answer("The parse was interrupted; run it again."),
    ];
    let harness = full_harness(turns).await;
    let (first, _) = harness.ask(None, "hello").await;
    harness
        .store
        .add_background_task(
            "bg-old",
            &first.session_id,
            "parse_paper",
            &json!({"id": "x"}),
        )
        .await
        .unwrap();
    let interrupted = asterism_agent::background::BackgroundQueue::recover(&harness.store)
        .await
        .unwrap();
    assert_eq!(interrupted, 1);
    harness.ask(Some(&first.session_id), "what happened?").await;
    let body = harness.mock.requests()[1].body.to_string();
    assert!(
        body.contains("[Background task bg-old (parse_paper"),
        "{body}"
    );
    assert!(body.contains("interrupted"));
    let tasks = harness
        .store
        .background_tasks(Some(&first.session_id))
        .await
        .unwrap();
    assert_eq!(tasks[0].status, "interrupted");
}

#[tokio::test]
async fn a_teammate_works_beside_the_lead_and_reports_through_the_inbox() {
    let turns = vec![
        calls(vec![call(
            "t1",
            "spawn_teammate",
            json!({"name": "reader", "task": "Find the TRGB H0 value and tell main."}),
        )]),
        answer("The reader is on it."),
        for_agent(
            "reader",
            calls(vec![call(
                "r1",
                "send_teammate_message",
                json!({"to": "main", "content": "TRGB gives H0 = 69.8 ± 1.9"}),
            )]),
        ),
        for_agent(
            "reader",
            answer("H0 = 69.8 ± 1.9 km/s/Mpc (Freedman 2019)."),
        ),
        calls(vec![call("t2", "check_team_inbox", json!({}))]),
        answer("The reader reports 69.8."),
    ];
    let harness = full_harness(turns).await;
    let services = harness.runtime.services().clone();
    let (first, events) = harness.ask(None, "Split the work").await;
    assert_eq!(first.reason, RunFinishReason::Completed);
    assert!(
        tool_results(&events)[0]
            .0
            .contains("Teammate reader is working")
    );
    services.team.wait_idle().await;

    let (_, events) = harness.ask(Some(&first.session_id), "Any news?").await;
    let inbox = &tool_results(&events)[0];
    assert!(!inbox.1, "{}", inbox.0);
    assert!(inbox.0.contains("From reader"), "{}", inbox.0);
    assert!(inbox.0.contains("TRGB gives H0 = 69.8"), "{}", inbox.0);
    assert!(inbox.0.contains("Final report: H0 = 69.8"), "{}", inbox.0);
    assert_eq!(inbox.2["messages"].as_array().unwrap().len(), 2);
    // Drained: a second look finds nothing.
    assert!(
        services
            .team
            .drain(&first.session_id, "main")
            .unwrap()
            .is_empty()
    );
    // The teammate's own steps are stored under its name.
    let stored = harness.store.messages(&first.session_id).await.unwrap();
    assert!(stored.iter().any(|m| m.agent_name == "reader"));
    harness.mock.assert_no_violations();
}

#[test]
fn registry_factories_match_the_seed_and_definitions_are_sorted() {
    let queue = asterism_agent::background::BackgroundQueue::new();
    let dir = tempfile::tempdir().unwrap();
    let team = asterism_agent::team::TeamManager::new(dir.path());
    let base = ToolRegistry::new();
    // The seed's 19 base tools plus bibtex, search_library_by_object and citation_graph;
    // save_memory and request_permission are
    // added by the runtime.
    assert_eq!(ToolRegistry::empty().len(), 0);
    assert_eq!(
        base.names(),
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
            "run_bash",
            "save_note",
            "search_library_by_object",
            "search_papers",
            "subagent",
            "todo_write"
        ]
    );
    assert_eq!(base.len(), 19 + 3);
    let with_queue = ToolRegistry::new_with_queue(queue.clone());
    assert_eq!(with_queue.len(), base.len() + 2);
    assert!(with_queue.get("bg_task_run").is_some() && with_queue.get("bg_task_check").is_some());
    let with_team = ToolRegistry::new_with_team(queue, team);
    assert_eq!(with_team.len(), base.len() + 6);
    let names: Vec<String> = with_team
        .definitions()
        .into_iter()
        .map(|d| d.name)
        .collect();
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(
        names, sorted,
        "definitions are sorted for prompt-cache stability"
    );
    // Twice the same: the same bytes go to the model.
    let again: Vec<String> = with_team
        .definitions()
        .into_iter()
        .map(|d| d.name)
        .collect();
    assert_eq!(names, again);
}

#[tokio::test]
async fn fork_skills_and_subagents_cannot_nest() {
    let turns = vec![
        calls(vec![call(
            "s",
            "subagent",
            json!({"task": "Try to start another agent", "name": "outer"}),
        )]),
        for_agent(
            "outer",
            calls(vec![call(
                "k",
                "load_skill",
                json!({"name": "literature-review", "task": "TRGB"}),
            )]),
        ),
        for_agent("outer", answer("I could not start a subagent.")),
        answer("ok"),
    ];
    let harness = Harness::start(turns).await;
    let (_, events) = harness.ask(None, "nest").await;
    let results = tool_results(&events);
    let inner = results
        .iter()
        .find(|(text, _, _)| text.contains("literature-review runs as a subagent"))
        .unwrap();
    assert!(inner.1);
    assert!(Arc::strong_count(&harness.runtime.services().clone()) >= 1);
    harness.mock.assert_no_violations();
}
