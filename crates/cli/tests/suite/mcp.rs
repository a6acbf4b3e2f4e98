//! MCP servers as tools: `asterism mcp add/list/disable` and `ask` calling
//! `mcp__NAME__TOOL` on a real MCP server (the testkit's `asterism-mcp-server`, over
//! stdio, and the same server over streamable HTTP on loopback).

use std::path::{Path, PathBuf};
use std::process::Output;

use asterism_testkit::{MockLlm, Script, ScriptedToolCall, Turn, start_http_mcp_server};
use serde_json::{Value, json};

/// The testkit's MCP server binary, built beside `asterism` by `cargo build --workspace`.
fn server_binary() -> PathBuf {
    let path = Path::new(env!("CARGO_BIN_EXE_asterism")).with_file_name("asterism-mcp-server");
    assert!(
        path.is_file(),
        "{} is missing: run `cargo build --workspace` first",
        path.display()
    );
    path
}

fn asterism(home: &Path, model_url: Option<&str>, args: &[&str]) -> Output {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_asterism"));
    command
        .args(args)
        .current_dir(home)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", home)
        .env("ASTERISM_DATA_DIR", home.join("data"))
        .env("ASTERISM_KEYRING", "off")
        .env("EMBEDDINGS", "none")
        .env("LLM_API_KEY", "sk-secret-key-0123456789");
    if let Some(url) = model_url {
        command
            .env("LLM_BASE_URL", url)
            .env("LLM_MODEL", "scripted-qwen");
    }
    command.output().unwrap()
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn tool_results(output: &Output) -> Vec<Value> {
    stdout(output)
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|event| event["type"] == "ToolResult")
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_list_shows_each_server_its_state_and_its_tools() {
    let home = tempfile::tempdir().unwrap();
    let (url, _http) = start_http_mcp_server().await.unwrap();
    let server = server_binary();
    let home_path = home.path().to_path_buf();
    let (added, listed, json_list, disabled, relisted) = tokio::task::spawn_blocking(move || {
        let h = home_path.as_path();
        let server = server.to_str().unwrap();
        let added = [
            asterism(h, None, &["mcp", "add", "astro", "--", server]),
            asterism(h, None, &["mcp", "add", "remote", "--url", &url]),
            asterism(
                h,
                None,
                &["mcp", "add", "broken", "--", "/nonexistent/mcp-server"],
            ),
        ];
        let listed = asterism(h, None, &["mcp", "list"]);
        let json_list = asterism(h, None, &["mcp", "list", "--json"]);
        let disabled = asterism(h, None, &["mcp", "disable", "broken"]);
        let relisted = asterism(h, None, &["mcp", "list"]);
        (added, listed, json_list, disabled, relisted)
    })
    .await
    .unwrap();
    for output in &added {
        assert!(output.status.success(), "{output:?}");
    }
    let text = stdout(&listed);
    assert!(text.contains("astro  "), "{text}");
    assert!(text.contains("(running, 6 tools)"), "{text}");
    assert!(text.contains("mcp__astro__cone_search"), "{text}");
    assert!(text.contains("mcp__remote__cone_search"), "{text}");
    assert!(
        text.contains("broken  /nonexistent/mcp-server  (FAILED: "),
        "{text}"
    );
    assert_eq!(listed.status.code(), Some(1), "a server that fails: exit 1");

    let value: Value = serde_json::from_slice(&json_list.stdout).unwrap();
    let servers = value["servers"].as_array().unwrap();
    let names: Vec<&str> = servers
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["astro", "broken", "remote"]);
    assert_eq!(servers[0]["state"], "running");
    assert_eq!(servers[1]["state"], "failed");
    assert_eq!(servers[2]["tools"].as_array().unwrap().len(), 6);

    assert!(disabled.status.success(), "{disabled:?}");
    assert!(stdout(&relisted).contains("broken  /nonexistent/mcp-server  (disabled)"));
    assert_eq!(relisted.status.code(), Some(0), "{relisted:?}");
    let file = std::fs::read_to_string(home.path().join("data/mcp.json")).unwrap();
    let config: Value = serde_json::from_str(&file).unwrap();
    assert_eq!(config["mcpServers"]["broken"]["disabled"], true, "{file}");
    assert!(
        config["mcpServers"]["remote"]["url"]
            .as_str()
            .unwrap()
            .ends_with("/mcp")
    );
}

/// The model calls the server's cone search; asked without a terminal it is refused,
/// `--allow 'mcp__astro__*'` lets it run, and its answer reaches the model.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_agent_calls_an_mcp_tool_after_permission_and_a_dead_server_is_restarted() {
    let home = tempfile::tempdir().unwrap();
    let log = home.path().join("mcp-calls.log");
    let cone = || {
        Turn::calls(vec![ScriptedToolCall::new(
            "call_cone",
            "mcp__astro__cone_search",
            json!({"ra": 184.74, "dec": 47.30, "radius_arcmin": 30}),
        )])
    };
    let turns = vec![
        // 1: asked, no terminal: refused.
        cone(),
        Turn::answer("I could not search."),
        // 2: allowed: the answer lists the neighbours of NGC 4258.
        cone(),
        Turn::answer("NGC 4248 and UGC 7356 are near NGC 4258."),
        // 3: the server crashes during a call; the next call starts it again.
        Turn::calls(vec![ScriptedToolCall::new(
            "call_exit",
            "mcp__astro__exit",
            json!({}),
        )]),
        Turn::calls(vec![ScriptedToolCall::new(
            "call_echo",
            "mcp__astro__echo",
            json!({"text": "back"}),
        )]),
        // The server gets the variables mcp.json names, not Asterism's secrets.
        Turn::calls(vec![
            ScriptedToolCall::new(
                "call_key",
                "mcp__astro__getenv",
                json!({"name": "LLM_API_KEY"}),
            ),
            ScriptedToolCall::new(
                "call_token",
                "mcp__astro__getenv",
                json!({"name": "ASTRO_TOKEN"}),
            ),
        ]),
        Turn::answer("It came back."),
    ];
    let mock = MockLlm::start(Script {
        turns,
        ..Script::default()
    })
    .await
    .unwrap();
    let url = mock.base_url();
    let server = server_binary();
    let home_path = home.path().to_path_buf();
    let log_path = log.clone();
    let (refused, allowed, restarted) = tokio::task::spawn_blocking(move || {
        let h = home_path.as_path();
        let log = log_path.to_str().unwrap();
        let added = asterism(
            h,
            None,
            &[
                "mcp",
                "add",
                "astro",
                "--env",
                "ASTRO_TOKEN=vizier-7",
                "--",
                server.to_str().unwrap(),
                "--log",
                log,
            ],
        );
        assert!(added.status.success(), "{added:?}");
        let ask = |allow: &[&str]| {
            let mut args = vec!["ask", "--json"];
            args.extend_from_slice(allow);
            args.push("What is near NGC 4258?");
            asterism(h, Some(&url), &args)
        };
        (
            ask(&[]),
            ask(&["--allow", "mcp__astro__*"]),
            ask(&["--allow", "mcp__astro__*"]),
        )
    })
    .await
    .unwrap();

    let refused = tool_results(&refused);
    assert_eq!(refused[0]["isError"], true, "{refused:?}");
    assert!(
        refused[0]["output"].as_str().unwrap().contains("--allow"),
        "{refused:?}"
    );

    let allowed = tool_results(&allowed);
    assert_eq!(allowed[0]["isError"], false, "{allowed:?}");
    let found = allowed[0]["output"].as_str().unwrap();
    assert!(found.starts_with("NGC 4258: ra=184.740083 deg"), "{found}");
    assert!(found.contains("NGC 4248") && found.contains("UGC 7356") && !found.contains("M 87"));

    let restarted_text = stdout(&restarted);
    let restarted = tool_results(&restarted);
    assert_eq!(restarted.len(), 4, "{restarted_text}");
    assert_eq!(
        restarted[0]["isError"], true,
        "the crash is the call's error: {restarted:?}"
    );
    assert!(
        restarted[0]["output"]
            .as_str()
            .unwrap()
            .contains("MCP server astro"),
        "{restarted:?}"
    );
    assert_eq!(restarted[1]["isError"], false, "{restarted:?}");
    assert_eq!(restarted[1]["output"], "back");
    assert_eq!(
        restarted[2]["output"], "",
        "the model's key stays out: {restarted:?}"
    );
    // The server has its token (it answered it), and the token, as a secret, is masked
    // in what the model and the user see.
    assert_eq!(restarted[3]["output"], "***");
    assert!(!restarted_text.contains("vizier-7"), "{restarted_text}");

    // The server saw only allowed calls; it was started once per run, and again after
    // the crash.
    let calls = std::fs::read_to_string(&log).unwrap();
    let calls: Vec<&str> = calls.lines().collect();
    assert_eq!(
        calls,
        [
            "started",
            "started",
            "cone_search",
            "started",
            "exit",
            "started",
            "echo",
            "getenv",
            "getenv"
        ],
        "{calls:?}"
    );
    // What the model was sent back: the tool's answer, in the next request.
    let bodies: Vec<String> = mock.requests().iter().map(|r| r.body.to_string()).collect();
    assert!(bodies.iter().any(|b| b.contains("UGC 7356")));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_cannot_start_is_a_notice_and_the_run_still_answers() {
    let home = tempfile::tempdir().unwrap();
    let mock = MockLlm::start(Script {
        turns: vec![Turn::answer("Answered without the catalogue.")],
        ..Script::default()
    })
    .await
    .unwrap();
    let url = mock.base_url();
    let home_path = home.path().to_path_buf();
    let output = tokio::task::spawn_blocking(move || {
        let h = home_path.as_path();
        let added = asterism(
            h,
            None,
            &["mcp", "add", "gone", "--", "/nonexistent/mcp-server"],
        );
        assert!(added.status.success(), "{added:?}");
        asterism(h, Some(&url), &["ask", "--json", "Anything near M 87?"])
    })
    .await
    .unwrap();
    assert!(output.status.success(), "{output:?}");
    let events: Vec<Value> = stdout(&output)
        .lines()
        .filter_map(|line| serde_json::from_str(line).ok())
        .collect();
    let notice = events
        .iter()
        .find(|e| e["type"] == "Notice" && e["kind"] == "mcp")
        .unwrap_or_else(|| panic!("no mcp notice in {events:?}"));
    assert!(
        notice["message"]
            .as_str()
            .unwrap()
            .starts_with("MCP server gone could not start: "),
        "{notice}"
    );
    let text: String = events
        .iter()
        .filter(|e| e["type"] == "TextDelta")
        .filter_map(|e| e["delta"].as_str())
        .collect();
    assert_eq!(text, "Answered without the catalogue.");
    // The model was not offered the missing server's tools.
    let request = mock.requests()[0].body.to_string();
    assert!(!request.contains("mcp__gone"), "{request}");
}
