//! `asterism` against a real model server: llama.cpp's `llama-server` with Gemma 3 270M
//! on loopback (not the scripted model): its streaming, its own tool-call format, its
//! model list. Ignored by a plain `cargo test` (they need `scripts/real-model.sh`'s
//! server and model); `scripts/test.sh` runs them with `--ignored`, and without the two
//! they fail, saying what to run.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::Duration;

use asterism_testkit::{FixtureServer, LLAMA_MODEL_NAME, LlamaOptions, LlamaServer, sesame_routes};
use serde_json::Value;

use super::robust::{asterism, show, show_latest, signal, wait_with_limit};

fn start(options: LlamaOptions) -> LlamaServer {
    LlamaServer::start(options).unwrap_or_else(|error| panic!("llama-server: {error}"))
}

/// `asterism` pointed at the real server as its model.
fn against(server: &LlamaServer, data: &Path) -> Command {
    let mut command = asterism(data, &server.base_url());
    command.env("LLM_MODEL", LLAMA_MODEL_NAME);
    command
}

fn events(output: &Output) -> Vec<Value> {
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}")))
        .collect()
}

fn streamed_text(events: &[Value]) -> String {
    events
        .iter()
        .filter(|event| event["type"] == "TextDelta")
        .map(|event| event["delta"].as_str().unwrap_or_default())
        .collect()
}

fn of_type<'a>(events: &'a [Value], kind: &str) -> Vec<&'a Value> {
    events
        .iter()
        .filter(|event| event["type"] == kind)
        .collect()
}

fn session_of(events: &[Value]) -> String {
    events[0]["sessionId"].as_str().unwrap().to_string()
}

#[test]
#[ignore = "needs llama-server and a GGUF model: scripts/test.sh runs it"]
fn ask_streams_a_real_answer_that_is_stored_and_replays() {
    let server = start(LlamaOptions::default());
    let root = tempfile::tempdir().unwrap();
    let data = root.path().join("data");
    let output = against(&server, &data)
        .args([
            "ask",
            "--json",
            "--max-steps",
            "1",
            "What is a galaxy? Answer in one sentence.",
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}\n{}", server.log());
    let events = events(&output);
    let text = streamed_text(&events);
    let deltas = of_type(&events, "TextDelta").len();
    // Streamed: the answer came in pieces, as the server generated it.
    assert!(deltas >= 3, "{deltas} text deltas: {text:?}");
    assert!(text.split_whitespace().count() >= 3, "{text:?}");
    let finished = of_type(&events, "RunFinished");
    assert_eq!(finished.len(), 1, "{events:?}");
    assert_eq!(finished[0]["reason"], "completed", "{events:?}");
    // The server's own token counts reached the run's usage.
    assert!(
        finished[0]["usage"]["promptTokens"].as_u64().unwrap_or(0) > 100,
        "{:?}",
        finished[0]
    );

    // Stored: listed, shown and replayed from the database with no server.
    let session = session_of(&events);
    drop(server);
    let shown = show(&data, &session);
    assert!(shown.contains(text.trim()), "{shown}");
    let replay = asterism(&data, "http://127.0.0.1:9/v1")
        .args(["sessions", "replay", &session, "--json"])
        .output()
        .unwrap();
    assert!(replay.status.success(), "{replay:?}");
    assert_eq!(streamed_text(&self::events(&replay)), text);
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs llama-server and a GGUF model: scripts/test.sh runs it"]
async fn a_forced_tool_call_in_llama_cpp_s_format_is_parsed_and_the_tool_runs() {
    let sesame = FixtureServer::start(sesame_routes()).await.unwrap();
    let sesame_url = format!("{}/cgi-bin/nph-sesame", sesame.url());
    let (output, log, data, _root) = tokio::task::spawn_blocking(move || {
        let server = start(LlamaOptions { max_tokens: 128 });
        let root = tempfile::tempdir().unwrap();
        let data = root.path().join("data");
        let output = against(&server, &data)
            .env("SESAME_URL", &sesame_url)
            // One step: the forced call and its tool (a second step, offered every
            // tool, is a 6,000-token prompt: half a minute on two cores).
            .args(["ask", "--json", "--max-steps", "1", "--tool", "query_target"])
            // A 270M base model copies what it sees: the question shows it a call in
            // the template's format (without it, it fills the argument with a piece
            // of the tool's description).
            .arg(r#"Where is NGC 4258? <|tool_call>call:query_target{name:<|"|>NGC 4258<|"|>}<tool_call|>"#)
            .output()
            .unwrap();
        (output, server.log(), data, root)
    })
    .await
    .unwrap();
    let events = events(&output);
    let calls = of_type(&events, "ToolCall");
    assert!(!calls.is_empty(), "no tool call: {events:?}\n{log}");
    let call = calls[0];
    assert_eq!(call["name"], "query_target", "{call:?}");
    // The arguments the server parsed out of the model's text are a JSON object with
    // the schema's required field.
    let arguments: Value = match &call["arguments"] {
        Value::String(text) => serde_json::from_str(text).unwrap_or(Value::Null),
        other => other.clone(),
    };
    assert!(arguments["name"].is_string(), "{call:?}");
    assert_eq!(arguments["name"], "NGC 4258", "{call:?}");
    // The tool ran: Sesame's answer is its result.
    let results = of_type(&events, "ToolResult");
    let result = results
        .iter()
        .find(|result| result["toolCallId"] == call["toolCallId"])
        .unwrap_or_else(|| panic!("no result for {call:?}: {events:?}"));
    let shown = result["output"].as_str().unwrap_or_default();
    assert!(shown.contains("12:18:57.62 +47:18:13.4"), "{result:?}");
    assert_eq!(of_type(&events, "RunFinished")[0]["reason"], "maxSteps");
    let shown = show(&data, &session_of(&events));
    assert!(shown.contains("→ query_target"), "{shown}");
}

#[test]
#[ignore = "needs llama-server and a GGUF model: scripts/test.sh runs it"]
fn doctor_reports_the_real_endpoint_and_its_model() {
    let server = start(LlamaOptions::default());
    let root = tempfile::tempdir().unwrap();
    let data = root.path().join("data");
    let output = against(&server, &data).arg("doctor").output().unwrap();
    let printed = String::from_utf8_lossy(&output.stdout);
    let line = printed
        .lines()
        .find(|line| line.trim_start().starts_with("model "))
        .unwrap_or_else(|| panic!("no model line: {printed}"));
    assert!(line.contains(&server.base_url()), "{line}");
    assert!(line.contains("answers"), "{line}");
    assert!(line.contains(LLAMA_MODEL_NAME), "{line}");
    // The wrong model name is named as missing, with what the server offers.
    let wrong = against(&server, &data)
        .env("LLM_MODEL", "qwen3-max")
        .arg("doctor")
        .output()
        .unwrap();
    let printed = String::from_utf8_lossy(&wrong.stdout);
    assert!(!wrong.status.success(), "{printed}");
    assert!(printed.contains("qwen3-max"), "{printed}");
    assert!(printed.contains(LLAMA_MODEL_NAME), "{printed}");
}

/// Runs `command` until the answer has streamed at least `words` words; the child and
/// what it had shown.
fn until_words(mut command: Command, words: usize) -> (Child, String) {
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut shown = String::new();
    while shown.split_whitespace().count() < words {
        let line = lines
            .next()
            .expect("the run ended before streaming")
            .unwrap();
        let event: Value = serde_json::from_str(&line).unwrap();
        if event["type"] == "TextDelta" {
            shown.push_str(event["delta"].as_str().unwrap_or_default());
        }
    }
    std::thread::spawn(move || for _ in lines {});
    (child, shown)
}

#[test]
#[ignore = "needs llama-server and a GGUF model: scripts/test.sh runs it"]
fn ctrl_c_mid_stream_stores_the_partial_answer() {
    // Long enough to be cut: up to 2,000 tokens.
    let server = start(LlamaOptions { max_tokens: 2000 });
    let root = tempfile::tempdir().unwrap();
    let data = root.path().join("data");
    let mut command = against(&server, &data);
    command.args([
        "ask",
        "--json",
        "--max-steps",
        "1",
        "Write a long essay on the history of astronomy, from Babylon to JWST.",
    ]);
    let (child, shown) = until_words(command, 5);
    assert_eq!(
        std::fs::read_to_string(format!("/proc/{}/comm", child.id()))
            .unwrap()
            .trim(),
        "asterism"
    );
    signal(&child, "INT");
    let output = wait_with_limit(child, Duration::from_secs(20));
    assert_eq!(output.status.code(), Some(130), "{output:?}");
    let stored = show_latest(&data);
    assert!(
        stored.contains(shown.trim()),
        "shown {shown:?}, stored: {stored}"
    );
    assert!(stored.contains("cancelled"), "{stored}");
}

/// The model weighs the passages (`library search --rerank`), against llama-server:
/// the verdict schema constrains Gemma's answer (with thinking kept closed in its
/// template), the scores are parsed and order the hits, the tokens are counted; asked
/// again, every verdict comes from the cache and the model is not called. Mechanics
/// only: a 270M model's judgement says nothing about the quality of a real one's.
#[test]
#[ignore = "needs llama-server and a GGUF model: scripts/test.sh runs it"]
fn rerank_scores_from_a_real_model_order_the_hits_and_are_kept() {
    let server = start(LlamaOptions { max_tokens: 600 });
    let root = tempfile::tempdir().unwrap();
    let data = root.path().join("data");
    let paper = asterism_testkit::fixture_path("pdfs/celerite_ms.pdf");
    let import = against(&server, &data)
        .args(["library", "import", "--offline", "--no-index"])
        .arg(&paper)
        .output()
        .unwrap();
    assert!(import.status.success(), "{import:?}");
    let search = || {
        // Eight passages weighed (the candidates and the hits): one batch, one call.
        let output = against(&server, &data)
            .env("RAG_CANDIDATES", "8")
            .args([
                "library",
                "search",
                "Which kernels make Gaussian process likelihoods scale linearly?",
                "--limit",
                "8",
                "--rerank",
                "--json",
            ])
            .output()
            .unwrap();
        assert!(output.status.success(), "{output:?}");
        serde_json::from_slice::<Value>(&output.stdout).unwrap()
    };
    let first = search();
    let rerank = &first["rerank"];
    assert_eq!(rerank["model"], LLAMA_MODEL_NAME, "{first:#}");
    assert_eq!(rerank["asked"], 8, "{rerank}");
    assert_eq!(rerank["calls"], 1, "{rerank}");
    assert!(rerank["promptTokens"].as_u64().unwrap() > 500, "{rerank}");
    assert!(rerank["completionTokens"].as_u64().unwrap() > 0, "{rerank}");
    assert_eq!(rerank["scored"], 8, "every passage scored: {rerank}");
    let scores: Vec<u64> = first["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|hit| hit["verdict"]["score"].as_u64().unwrap())
        .collect();
    assert!(
        scores.windows(2).all(|pair| pair[0] >= pair[1]) && scores.iter().all(|s| *s <= 10),
        "hits in the model's order: {scores:?}"
    );
    let again = search();
    assert_eq!(again["rerank"]["calls"], 0, "{}", again["rerank"]);
    assert_eq!(again["rerank"]["cached"], 8, "{}", again["rerank"]);
    let scores_again: Vec<u64> = again["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|hit| hit["verdict"]["score"].as_u64().unwrap())
        .collect();
    assert_eq!(scores_again, scores);
}
