use std::process::Output;

use asterism_testkit::{
    Fault, FixtureServer, MockLlm, Script, ScriptedToolCall, Turn, sesame_routes,
};
use serde_json::Value;

struct Env {
    dir: tempfile::TempDir,
    model_url: String,
    sesame_url: String,
}

impl Env {
    fn command(&self, args: &[&str]) -> Output {
        self.command_with(args, &[])
    }

    fn command_with(&self, args: &[&str], extra: &[(&str, &str)]) -> Output {
        std::process::Command::new(env!("CARGO_BIN_EXE_asterism"))
            .args(args)
            .current_dir(self.dir.path())
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("HOME", self.dir.path())
            .env("ASTERISM_DATA_DIR", self.dir.path().join("data"))
            .env("LLM_BASE_URL", &self.model_url)
            .env("LLM_MODEL", "scripted-qwen")
            .env("LLM_API_KEY", "sk-test-0123456789abcdef")
            .env("SESAME_URL", &self.sesame_url)
            .envs(extra.iter().copied())
            .output()
            .unwrap()
    }
}

fn ngc4258_turns() -> Vec<Turn> {
    vec![
        Turn {
            thinking: Some("Resolve the name with Sesame.".into()),
            tool_calls: vec![ScriptedToolCall {
                id: Some("call_1".into()),
                name: "query_target".into(),
                arguments: serde_json::json!({"name": "NGC 4258"}),
            }],
            ..Turn::default()
        },
        Turn {
            text: Some("NGC 4258 (M 106) is at 12:18:57.62 +47:18:13.4.".into()),
            ..Turn::default()
        },
    ]
}

async fn start(turns: Vec<Turn>) -> (Env, MockLlm, FixtureServer) {
    let mock = MockLlm::start(Script {
        turns,
        ..Script::default()
    })
    .await
    .unwrap();
    let sesame = FixtureServer::start(sesame_routes()).await.unwrap();
    let env = Env {
        dir: tempfile::tempdir().unwrap(),
        model_url: mock.base_url(),
        sesame_url: format!("{}/cgi-bin/nph-sesame", sesame.url()),
    };
    (env, mock, sesame)
}

fn json_lines(output: &Output) -> Vec<Value> {
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

fn tool_events(events: &[Value]) -> Vec<Value> {
    events
        .iter()
        .filter(|event| event["type"] == "ToolCall" || event["type"] == "ToolResult")
        .map(|event| {
            let mut event = event.clone();
            event.as_object_mut().unwrap().remove("durationMs");
            event
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn ask_json_then_replay_from_the_database_alone() {
    let (env, mock, sesame) = start(ngc4258_turns()).await;
    let (output, env) = tokio::task::spawn_blocking(move || {
        (env.command(&["ask", "--json", "Where is NGC 4258?"]), env)
    })
    .await
    .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let events = json_lines(&output);
    let types: Vec<&str> = events
        .iter()
        .map(|event| event["type"].as_str().unwrap())
        .collect();
    assert_eq!(types.first(), Some(&"RunStarted"));
    assert_eq!(types.last(), Some(&"RunFinished"));
    let tools = tool_events(&events);
    assert_eq!(tools.len(), 2);
    assert_eq!(tools[0]["name"], "query_target");
    assert_eq!(tools[0]["toolCallId"], "call_1");
    assert!(
        tools[1]["output"]
            .as_str()
            .unwrap()
            .contains("12:18:57.62 +47:18:13.4")
    );
    let text: String = events
        .iter()
        .filter(|e| e["type"] == "TextDelta")
        .map(|e| e["delta"].as_str().unwrap())
        .collect();
    assert_eq!(text, "NGC 4258 (M 106) is at 12:18:57.62 +47:18:13.4.");
    mock.assert_no_violations();
    let session_id = events[0]["sessionId"].as_str().unwrap().to_string();

    // No model, no Sesame: replay comes from the database alone.
    drop(mock);
    drop(sesame);
    let replay = env.command(&["sessions", "replay", &session_id, "--json"]);
    assert!(
        replay.status.success(),
        "{}",
        String::from_utf8_lossy(&replay.stderr)
    );
    assert_eq!(tool_events(&json_lines(&replay)), tools);

    let list = env.command(&["sessions", "list", "--json"]);
    let sessions: Value = serde_json::from_slice(&list.stdout).unwrap();
    assert_eq!(sessions[0]["id"], session_id.as_str());
    assert_eq!(sessions[0]["title"], "Where is NGC 4258?");

    let show = env.command(&["sessions", "show", &session_id]);
    let shown = String::from_utf8_lossy(&show.stdout);
    assert!(shown.contains("→ query_target"), "{shown}");
    assert!(shown.contains("NGC 4258 (M 106) is at"), "{shown}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_cut_model_stream_exits_non_zero_and_keeps_the_session() {
    let mut turns = ngc4258_turns();
    turns[1].fault = Some(Fault::Cut);
    let (env, _mock, _sesame) = start(turns).await;
    let (output, env) =
        tokio::task::spawn_blocking(move || (env.command(&["ask", "Where is NGC 4258?"]), env))
            .await
            .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("broke mid-stream"), "{stderr}");
    assert!(stderr.contains("the session so far is stored"), "{stderr}");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("← query_target"), "{stdout}");
    let list = env.command(&["sessions", "list", "--json"]);
    let sessions: Value = serde_json::from_slice(&list.stdout).unwrap();
    assert_eq!(sessions.as_array().unwrap().len(), 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn target_prints_coordinates_and_unknown_names_fail_clearly() {
    let (env, _mock, _sesame) = start(vec![]).await;
    let (found, missing, env) = tokio::task::spawn_blocking(move || {
        (
            env.command(&["target", "NGC 4258", "--json"]),
            env.command(&["target", "Goober 42"]),
            env,
        )
    })
    .await
    .unwrap();
    assert!(found.status.success());
    let target: Value = serde_json::from_slice(&found.stdout).unwrap();
    assert_eq!(target["name"], "M 106");
    assert_eq!(target["raSexagesimal"], "12:18:57.62");
    assert_eq!(missing.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("no object named \"Goober 42\""));
    drop(env);
}

#[tokio::test(flavor = "multi_thread")]
async fn without_a_model_ask_explains_what_to_set() {
    let (env, _mock, _sesame) = start(vec![]).await;
    let output = tokio::task::spawn_blocking(move || {
        std::process::Command::new(env!("CARGO_BIN_EXE_asterism"))
            .args(["ask", "Where is NGC 4258?"])
            .current_dir(env.dir.path())
            .env_clear()
            .env("ASTERISM_DATA_DIR", env.dir.path().join("data"))
            .output()
            .unwrap()
    })
    .await
    .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("no model is configured: set LLM_MODEL")
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn an_ask_rule_denies_without_a_terminal_and_allow_lets_it_run() {
    let mut turns = ngc4258_turns();
    turns.extend(ngc4258_turns());
    let (env, mock, _sesame) = start(turns).await;
    let (added, denied, allowed, listed) = tokio::task::spawn_blocking(move || {
        let added = env.command(&["permissions", "add", "query_target", "--decision", "ask"]);
        let denied = env.command(&["ask", "--json", "Where is NGC 4258?"]);
        let allowed = env.command(&[
            "ask",
            "--json",
            "--allow",
            "query_target",
            "Where is NGC 4258?",
        ]);
        let listed = env.command(&["permissions", "list"]);
        (added, denied, allowed, listed)
    })
    .await
    .unwrap();
    assert!(
        added.status.success(),
        "{}",
        String::from_utf8_lossy(&added.stderr)
    );
    assert!(String::from_utf8_lossy(&listed.stdout).contains("ask   query_target"));
    let denied_result = tool_events(&json_lines(&denied))
        .into_iter()
        .find(|e| e["type"] == "ToolResult")
        .unwrap();
    assert_eq!(denied_result["isError"], true);
    assert!(
        denied_result["output"]
            .as_str()
            .unwrap()
            .contains("--allow query_target"),
        "{denied_result}"
    );
    let allowed_result = tool_events(&json_lines(&allowed))
        .into_iter()
        .find(|e| e["type"] == "ToolResult")
        .unwrap();
    assert_eq!(allowed_result["isError"], false);
    assert!(allowed_result["output"].as_str().unwrap().contains("M 106"));
    mock.assert_no_violations();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_plan_skills_and_memories_from_the_terminal() {
    let turns = vec![
        Turn {
            tool_calls: vec![ScriptedToolCall {
                id: Some("plan".into()),
                name: "todo_write".into(),
                arguments: serde_json::json!({"todos": [
                    {"id": "find", "content": "Find TRGB distance papers", "status": "completed"},
                    {"id": "read", "content": "Read the JWST calibrations", "status": "in_progress", "blockedBy": ["find"]}
                ]}),
            }],
            ..Turn::default()
        },
        Turn {
            text: Some("Planned.".into()),
            ..Turn::default()
        },
        Turn {
            agent: Some("memory-extractor".into()),
            tool_calls: vec![ScriptedToolCall {
                id: Some("mem".into()),
                name: "save_memory".into(),
                arguments: serde_json::json!({
                    "content": "The user studies the Hubble tension with JWST TRGB distances.",
                    "kind": "project"
                }),
            }],
            ..Turn::default()
        },
        Turn {
            agent: Some("memory-extractor".into()),
            text: Some("Saved 1 memory.".into()),
            ..Turn::default()
        },
    ];
    let (env, mock, _sesame) = start(turns).await;
    let ask = env.command_with(
        &["ask", "Plan a TRGB review"],
        &[("MEMORY_EXTRACTION", "true")],
    );
    assert!(ask.status.success(), "{ask:?}");
    let text = String::from_utf8_lossy(&ask.stdout);
    assert!(text.contains("▸ memory-extractor"), "{text}");
    assert!(text.contains("  │ → save_memory"), "{text}");

    let tasks = env.command(&["tasks"]);
    assert!(tasks.status.success(), "{tasks:?}");
    let listed = String::from_utf8_lossy(&tasks.stdout);
    assert!(
        listed.contains("[x] find: Find TRGB distance papers"),
        "{listed}"
    );
    assert!(
        listed.contains("[>] read: Read the JWST calibrations"),
        "{listed}"
    );

    let memories = env.command(&["memories", "list", "--json"]);
    let memories: Value = serde_json::from_slice(&memories.stdout).unwrap();
    assert_eq!(memories.as_array().unwrap().len(), 1);
    assert_eq!(memories[0]["kind"], "project");

    let skills = env.command(&["skills", "list", "--json"]);
    assert!(skills.status.success(), "{skills:?}");
    let skills: Value = serde_json::from_slice(&skills.stdout).unwrap();
    let names: Vec<&str> = skills["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|skill| skill["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "bibtex-cleanup",
            "literature-review",
            "object-dossier",
            "referee-checklist"
        ]
    );
    let show = env.command(&["skills", "show", "referee-checklist"]);
    assert!(String::from_utf8_lossy(&show.stdout).contains("Major comments"));
    mock.assert_no_violations();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn import_a_folder_search_it_and_ask_it_from_the_terminal() {
    // `rag` has the model score the passages first (RAG_RERANK=model, the default): the
    // first passage is the one that answers, the others are dropped.
    let mut verdicts =
        vec![serde_json::json!({"n": 1, "score": 9, "summary": "Kepler 1627Ab is 38 Myr old."})];
    verdicts.extend(
        (2..=8).map(|n| serde_json::json!({"n": n, "score": 1, "summary": "Not relevant."})),
    );
    let say = |text: String| Turn {
        text: Some(text),
        ..Turn::default()
    };
    let turns = vec![
        say(serde_json::json!({ "passages": verdicts }).to_string()),
        say("Kepler 1627Ab is about 38 Myr old [1].".into()),
        say("Kepler 1627Ab is about 38 Myr old [1].".into()),
        // `library search --rerank`: the second passage scored best.
        say(r#"{"passages": [{"n": 1, "score": 4, "summary": "Mentions the cluster."}, {"n": 2, "score": 8, "summary": "Lithium gives 38 Myr."}]}"#.into()),
    ];
    let (env, mock, _sesame) = start(turns).await;
    let folder = env.dir.path().join("My Papers");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::copy(
        asterism_testkit::fixture_path("pdfs/rudolf_ms.pdf"),
        folder.join("bouma2022.pdf"),
    )
    .unwrap();
    std::fs::write(folder.join("notes.txt"), "not a paper").unwrap();
    std::fs::write(folder.join("broken.pdf"), b"%PDF-1.4\n1 0 obj\n<<").unwrap();
    let embeddings = [
        ("EMBEDDINGS", "remote"),
        ("EMBEDDING_BASE_URL", env.model_url.as_str()),
        ("EMBEDDING_MODEL", "mock-embedding"),
        ("RAG_CANDIDATES", "8"),
    ];
    let run = |args: &[&str]| env.command_with(args, &embeddings);

    let import = run(&[
        "library",
        "import",
        folder.to_str().unwrap(),
        "--offline",
        "--json",
    ]);
    // One file failed, so the exit code says so; the rest went in.
    assert_eq!(import.status.code(), Some(2), "{import:?}");
    // NDJSON: one object per file as it finishes, embedding batches, then the summary.
    let events = json_lines(&import);
    let outcomes: Vec<&str> = events
        .iter()
        .filter(|event| event["kind"] == "file")
        .map(|file| file["outcome"].as_str().unwrap())
        .collect();
    assert_eq!(outcomes, ["imported", "failed", "skipped"]);
    let report = events.last().unwrap();
    assert_eq!(report["kind"], "finished");
    assert_eq!(report["index"]["remaining"], 0);
    assert!(report["index"]["embedded"].as_i64().unwrap() > 20);

    let list = run(&["library", "list", "--json"]);
    let papers: Value = serde_json::from_slice(&list.stdout).unwrap();
    assert_eq!(papers.as_array().unwrap().len(), 1);
    let paper_id = papers[0]["id"].as_str().unwrap().to_string();
    assert_eq!(
        papers[0]["title"],
        "A 30 Million Year Old Mini-Neptune in the Kepler Field"
    );

    let search = run(&[
        "library",
        "search",
        "lithium age of the δ Lyr cluster",
        "--json",
    ]);
    assert!(search.status.success(), "{search:?}");
    let results: Value = serde_json::from_slice(&search.stdout).unwrap();
    let hit = &results["hits"][0];
    assert_eq!(hit["paperId"], paper_id.as_str());
    assert_eq!(hit["originalName"], "bouma2022.pdf");
    assert!(hit["page"].as_i64().is_some());
    assert!(hit["text"].as_str().unwrap().len() > 100);
    assert_eq!(results["mode"], "hybrid");

    let rag = run(&["rag", "How old is Kepler 1627?"]);
    assert!(rag.status.success(), "{rag:?}");
    let text = String::from_utf8_lossy(&rag.stdout);
    assert!(
        text.starts_with("Kepler 1627Ab is about 38 Myr old [1]."),
        "{text}"
    );
    assert!(text.contains("Sources:\n[1] "), "{text}");
    assert!(text.contains("[bouma2022.pdf]"), "{text}");
    // Under the answer: the claim and the words of passage 1 that back it, with a page.
    assert!(
        text.contains("Evidence:\n- Kepler 1627Ab is about 38 Myr old.\n    [1] p. "),
        "{text}"
    );
    assert!(
        text.contains("\n    9/10: Kepler 1627Ab is 38 Myr old.\n"),
        "{text}"
    );
    assert!(text.contains("(Scored by "), "{text}");
    // Asked again: the verdicts come from the database; only the answer is asked for.
    let again = run(&["rag", "How old is Kepler 1627?", "--json"]);
    assert!(again.status.success(), "{again:?}");
    let again: Value = serde_json::from_slice(&again.stdout).unwrap();
    assert_eq!(again["rerank"]["calls"], 0, "{again:#}");
    assert!(again["rerank"]["cached"].as_u64().unwrap() >= 1);
    assert_eq!(again["evidence"].as_array().unwrap().len(), 1);
    let scored = run(&[
        "library",
        "search",
        "lithium age of the δ Lyr cluster",
        "--rerank",
        "--limit",
        "3",
        "--json",
    ]);
    assert!(scored.status.success(), "{scored:?}");
    let scored: Value = serde_json::from_slice(&scored.stdout).unwrap();
    assert_eq!(scored["hits"][0]["verdict"]["score"], 8, "{scored:#}");
    assert_eq!(
        scored["hits"][0]["verdict"]["summary"],
        "Lithium gives 38 Myr."
    );
    assert_eq!(scored["hits"][1]["verdict"]["score"], 4);
    assert_eq!(scored["rerank"]["calls"], 1);
    assert!(scored["hits"].as_array().unwrap().len() <= 3);

    run(&["library", "collect", &paper_id, "young planets"]);
    let bib = run(&["library", "export-bib", "--collection", "young planets"]);
    assert!(
        String::from_utf8_lossy(&bib.stdout)
            .contains("title = {{A 30 Million Year Old Mini-Neptune")
    );

    let delete = run(&["library", "delete", "bouma2022.pdf"]);
    assert!(delete.status.success(), "{delete:?}");
    let list = run(&["library", "list", "--json"]);
    let papers: Value = serde_json::from_slice(&list.stdout).unwrap();
    assert!(papers.as_array().unwrap().is_empty());
    mock.assert_no_violations();
}
