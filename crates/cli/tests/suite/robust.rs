//! Many processes, signals and silent servers: `asterism` as scripts and impatient users
//! run it.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use asterism_testkit::{Fault, MockLlm, Script, Turn};
use serde_json::Value;

pub(super) fn asterism(data: &Path, model_url: &str) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_asterism"));
    command
        .current_dir(data.parent().unwrap_or(data))
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", data.parent().unwrap_or(data))
        .env("ASTERISM_DATA_DIR", data)
        .env("ASTERISM_KEYRING", "off")
        .env("LLM_BASE_URL", model_url)
        .env("LLM_MODEL", "scripted-qwen")
        .env("LLM_API_KEY", "sk-test-0123456789abcdef")
        .env("EMBEDDINGS", "none");
    command
}

/// A turn that streams half its text and then says nothing, keeping the connection.
fn stalling(text: &str) -> Turn {
    Turn {
        text: Some(text.into()),
        fault: Some(Fault::Stall),
        ..Turn::default()
    }
}

async fn model(turns: Vec<Turn>) -> MockLlm {
    MockLlm::start(Script {
        turns,
        chunk_chars: 4,
        ..Script::default()
    })
    .await
    .unwrap()
}

/// Starts `ask --json` and returns once its first streamed text has arrived.
fn ask_until_streaming(command: Command) -> Child {
    ask_until_shown(command, "")
}

/// Starts the command and returns once the answer streamed so far holds `text`.
fn ask_until_shown(mut command: Command, text: &str) -> Child {
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let mut lines = BufReader::new(stdout).lines();
    let mut shown = String::new();
    loop {
        let line = lines
            .next()
            .expect("the run ended before streaming")
            .unwrap();
        let event: Value = serde_json::from_str(&line).unwrap();
        if event["type"] == "TextDelta" {
            shown.push_str(event["delta"].as_str().unwrap_or_default());
            if shown.contains(text) {
                break;
            }
        }
    }
    // Keep reading so the child never blocks on a full pipe.
    std::thread::spawn(move || for _ in lines {});
    child
}

pub(super) fn wait_with_limit(mut child: Child, limit: Duration) -> Output {
    let started = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            return child.wait_with_output().unwrap();
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            panic!("the process did not end within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

pub(super) fn signal(child: &Child, name: &str) {
    let status = Command::new("kill")
        .args([format!("-{name}"), child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
}

fn new_session(data: &Path, model_url: &str) -> String {
    let output = asterism(data, model_url)
        .args(["ask", "--json", "Where is M 31?"])
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let first: Value = serde_json::from_str(
        String::from_utf8_lossy(&output.stdout)
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    first["sessionId"].as_str().unwrap().to_string()
}

/// `sessions show` of the newest session.
pub(super) fn show_latest(data: &Path) -> String {
    let listed = asterism(data, "http://127.0.0.1:9/v1")
        .args(["sessions", "list", "--json"])
        .output()
        .unwrap();
    let sessions: Value = serde_json::from_slice(&listed.stdout).unwrap();
    show(data, sessions[0]["id"].as_str().unwrap())
}

pub(super) fn show(data: &Path, session: &str) -> String {
    let output = asterism(data, "http://127.0.0.1:9/v1")
        .args(["sessions", "show", session])
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn twenty_processes_opening_a_new_data_directory_at_once_all_succeed() {
    let root = tempfile::tempdir().unwrap();
    let data = root.path().join("data");
    let children: Vec<Child> = (0..20)
        .map(|_| {
            asterism(&data, "http://127.0.0.1:9/v1")
                .args(["sessions", "list"])
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let failed: Vec<String> = children
        .into_iter()
        .map(|child| child.wait_with_output().unwrap())
        .filter(|output| !output.status.success())
        .map(|output| String::from_utf8_lossy(&output.stderr).into_owned())
        .collect();
    assert!(
        failed.is_empty(),
        "{} of 20 failed: {failed:?}",
        failed.len()
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_session_busy_in_another_process_is_refused_and_freed_when_its_holder_is_killed() {
    let mock = model(vec![
        Turn::answer("M 31 is in Andromeda."),
        stalling("Looking at the distance ladder for a long while now"),
        Turn::answer("Continued after the kill."),
    ])
    .await;
    let root = tempfile::tempdir().unwrap();
    let data = root.path().join("data");
    let session = new_session(&data, &mock.base_url());

    let mut holder_command = asterism(&data, &mock.base_url());
    holder_command.args(["ask", "--json", "--session", &session, "And its distance?"]);
    let holder = ask_until_streaming(holder_command);

    let busy = asterism(&data, &mock.base_url())
        .args(["ask", "--session", &session, "Me too"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&busy.stderr);
    assert_eq!(busy.status.code(), Some(3), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "session {session} is busy in another run (pid {})",
            holder.id()
        )),
        "{stderr}"
    );

    signal(&holder, "KILL");
    let killed = wait_with_limit(holder, Duration::from_secs(10));
    assert!(!killed.status.success());
    // Replay ends the killed run with an interrupted marker.
    assert!(show(&data, &session).contains("interrupted"));
    let continued = asterism(&data, &mock.base_url())
        .args(["ask", "--session", &session, "Go on"])
        .output()
        .unwrap();
    assert!(
        continued.status.success(),
        "{}",
        String::from_utf8_lossy(&continued.stderr)
    );
    assert!(String::from_utf8_lossy(&continued.stdout).contains("Continued after the kill."));
    // Three runs, each user message followed by its own answer or marker: no interleaving.
    let shown = show(&data, &session);
    let first = shown.find("And its distance?").unwrap();
    let marker = shown.find("interrupted").unwrap();
    let last = shown.find("Go on").unwrap();
    assert!(first < marker && marker < last, "{shown}");
    mock.assert_no_violations();
}

#[tokio::test(flavor = "multi_thread")]
async fn with_wait_a_second_run_waits_for_the_first_instead_of_failing() {
    let mock = model(vec![
        Turn::answer("M 31 is in Andromeda."),
        stalling("Thinking about the Cepheids"),
        Turn::answer("After waiting."),
    ])
    .await;
    let root = tempfile::tempdir().unwrap();
    let data = root.path().join("data");
    let session = new_session(&data, &mock.base_url());
    let mut holder_command = asterism(&data, &mock.base_url());
    holder_command.args(["ask", "--json", "--session", &session, "Distance?"]);
    let holder = ask_until_streaming(holder_command);
    let waiter = asterism(&data, &mock.base_url())
        .args(["ask", "--wait", "--session", &session, "Then this"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(500));
    signal(&holder, "TERM");
    let stopped = wait_with_limit(holder, Duration::from_secs(10));
    assert_eq!(stopped.status.code(), Some(143));
    let waited = wait_with_limit(waiter, Duration::from_secs(30));
    assert!(
        waited.status.success(),
        "{}",
        String::from_utf8_lossy(&waited.stderr)
    );
    assert!(String::from_utf8_lossy(&waited.stdout).contains("After waiting."));
}

#[tokio::test(flavor = "multi_thread")]
async fn sigterm_and_sighup_keep_the_partial_answer_like_ctrl_c() {
    for (name, code) in [("TERM", 143), ("HUP", 129), ("INT", 130)] {
        let mock = model(vec![stalling(
            "The tip of the red giant branch gives a distance of",
        )])
        .await;
        let root = tempfile::tempdir().unwrap();
        let data = root.path().join("data");
        let mut command = asterism(&data, &mock.base_url());
        command.args(["ask", "--json", "How far is NGC 4258?"]);
        // Signalled once the words it checks for were shown (the model streams 4
        // characters at a time).
        let child = ask_until_shown(command, "The tip of the");
        signal(&child, name);
        let output = wait_with_limit(child, Duration::from_secs(10));
        assert_eq!(output.status.code(), Some(code), "SIG{name}");
        let shown = show_latest(&data);
        assert!(
            shown.contains("The tip of the"),
            "SIG{name}: partial answer lost: {shown}"
        );
        assert!(shown.contains("cancelled"), "SIG{name}: {shown}");
    }
}

#[test]
fn a_model_server_that_accepts_and_never_answers_does_not_hang_ask() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    // Accept every connection and say nothing.
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming().flatten() {
            held.push(stream);
        }
    });
    let root = tempfile::tempdir().unwrap();
    let data = root.path().join("data");
    let child = asterism(&data, &url)
        .env("LLM_IDLE_TIMEOUT_S", "1")
        .args(["ask", "Where is M 31?"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let output = wait_with_limit(child, Duration::from_secs(120));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("no response within 1 s"), "{stderr}");
}
