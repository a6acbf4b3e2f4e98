//! The shell closed by construction: a model that read a hostile PDF chooses every
//! argument of `run_bash`, and the user granted the whole tool (the weakest position).
//! Secrets outside the workspace are not there to read in any encoding, no socket opens
//! without network, nothing it starts outlives it, a Deny rule sees through wrappers,
//! and a prefix grant does not cover options that run code. What a researcher does
//! (`git status`, `git log`, `git commit`, reading the workspace) still works.

use std::io::Read;
use std::time::Duration;

use asterism_agent::permissions::{PermissionBroker, PermissionMode, Rule, RuleDecision};
use asterism_agent::security::confine::{Confinement, confinement};
use asterism_agent::{AgentRuntime, CollectingSink, RunRequest};
use asterism_protocol::AgentEvent;
use asterism_testkit::{ScriptedToolCall, Turn};
use base64::Engine;
use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::security::{
    ADS_TOKEN, LLM_KEY, assert_nothing_leaked, harness, plant_data_dir_secrets, results_by_id,
    scene,
};

/// The secret values, and what they look like after the usual encodings.
fn recoverable(output: &str) -> Vec<&'static str> {
    let mut views = vec![output.to_string()];
    // One character (or a few) per line, joined back.
    views.push(output.lines().map(str::trim).collect::<String>());
    views.push(output.split_whitespace().collect::<String>());
    // Every run of base64 characters, decoded.
    for token in output.split(|c: char| !(c.is_ascii_alphanumeric() || "+/=".contains(c))) {
        if token.len() >= 8 {
            for engine in [
                base64::engine::general_purpose::STANDARD,
                base64::engine::general_purpose::STANDARD_NO_PAD,
            ] {
                if let Ok(bytes) = engine.decode(token.trim_end_matches('=')) {
                    views.push(String::from_utf8_lossy(&bytes).into_owned());
                }
            }
        }
    }
    let joined: String = output.lines().collect();
    if let Ok(bytes) = base64::engine::general_purpose::STANDARD.decode(joined.trim()) {
        views.push(String::from_utf8_lossy(&bytes).into_owned());
    }
    [
        LLM_KEY,
        ADS_TOKEN,
        "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ",
    ]
    .into_iter()
    .filter(|secret| views.iter().any(|view| view.contains(secret)))
    .collect()
}

/// Runs the calls with `run_bash` granted whole (or `grants`), `rules` configured.
async fn run_calls(
    harness: &super::common::Harness,
    mode: PermissionMode,
    rules: &[(RuleDecision, &str)],
    grants: &[&str],
) -> Vec<AgentEvent> {
    let runtime: AgentRuntime = harness
        .runtime
        .clone()
        .with_broker(PermissionBroker::new(Duration::from_secs(5), false))
        .with_permission_mode(mode)
        .with_rules(
            rules
                .iter()
                .map(|(decision, text)| Rule::parse(*decision, text).unwrap())
                .collect(),
        )
        .with_grants(
            grants
                .iter()
                .map(|rule| Rule::parse(RuleDecision::Allow, rule).unwrap())
                .collect(),
        );
    let sink = CollectingSink::new();
    runtime
        .run(
            RunRequest {
                session_id: None,
                question: "Tidy my project".into(),
                enable_thinking: false,
                first_tool: None,
            },
            std::sync::Arc::new(sink.clone()),
            CancellationToken::new(),
        )
        .await;
    sink.events()
}

fn calls(commands: &[String]) -> Vec<Turn> {
    let calls = commands
        .iter()
        .enumerate()
        .map(|(index, command)| {
            ScriptedToolCall::new(
                &format!("c{index}"),
                "run_bash",
                json!({"command": command}),
            )
        })
        .collect();
    vec![Turn::calls(calls), Turn::answer("done")]
}

fn enforced() -> bool {
    match confinement() {
        Confinement::Full | Confinement::WritesOnly => true,
        Confinement::NoLandlock => {
            eprintln!("SKIPPED: this kernel has no Landlock; the confinement is not tested");
            false
        }
        failed @ Confinement::Unavailable(_) => {
            panic!("Landlock is there but confining failed: {failed:?}")
        }
    }
}

#[tokio::test]
async fn secrets_outside_the_workspace_cannot_be_read_in_any_encoding() {
    if !enforced() {
        return;
    }
    let scene = scene();
    let outside = scene.outside.join("notes.txt");
    let history = scene.home.join(".bash_history");
    let id_rsa = scene.home.join(".ssh/id_rsa");
    std::fs::write(&outside, format!("token {ADS_TOKEN}\n")).unwrap();
    std::fs::write(&history, format!("export K={LLM_KEY}\n")).unwrap();
    // The data folder is reached from the shell's own temporary folder
    // (`{data}/sessions/{id}/tmp`).
    let data = "$TMPDIR/../../..";
    let commands = vec![
        format!("base64 {}", id_rsa.display()),
        format!("grep -o . {}", outside.display()),
        format!("fold -w4 {}", history.display()),
        format!("od -c {}", outside.display()),
        format!("xxd -p {}", id_rsa.display()),
        format!("rev {data}/secrets.json"),
        format!("base64 -w0 {data}/secrets.json"),
        format!("cp {} copy.txt; base64 copy.txt", history.display()),
        format!("ln -s {} link.txt; base64 link.txt", outside.display()),
        format!("ls -a {}", scene.home.join(".ssh").display()),
        "base64 /etc/shadow; cat /etc/gshadow".into(),
        // Asterism's own environment and command line, through /proc.
        "base64 /proc/$PPID/environ".into(),
        "base64 /proc/$PPID/cmdline".into(),
        format!("grep -r HOSTILE {} {data}", scene.home.display()),
        // The workspace stays readable to the commands the user allowed.
        "cat notes/plan.md".into(),
    ];
    let harness = harness(calls(&commands), Some(&scene.workspace)).await;
    plant_data_dir_secrets(&harness);
    let events = run_calls(&harness, PermissionMode::Default, &[], &["run_bash"]).await;
    let results = results_by_id(&events);
    assert_eq!(results.len(), commands.len(), "{results:#?}");
    for (index, command) in commands.iter().enumerate() {
        let (output, _, metadata) = &results[&format!("c{index}")];
        assert!(
            metadata["sandbox"].as_str().unwrap().contains("reads only"),
            "{metadata}"
        );
        let found = recoverable(output);
        assert!(
            found.is_empty(),
            "{command:?} gave away {found:?}: {output}"
        );
    }
    for index in [commands.len() - 4, commands.len() - 3] {
        let (output, is_error, _) = &results[&format!("c{index}")];
        assert!(
            *is_error && output.contains("Permission denied"),
            "{:?}: {output}",
            commands[index]
        );
    }
    let plan = &results[&format!("c{}", commands.len() - 1)];
    assert!(!plan.1 && plan.0.contains("Measure H0"), "{}", plan.0);
    assert!(
        !scene.workspace.join("copy.txt").exists() || {
            let copied = std::fs::read_to_string(scene.workspace.join("copy.txt")).unwrap();
            !copied.contains(LLM_KEY)
        }
    );
    assert_nothing_leaked(&harness, &events).await;
}

#[tokio::test]
async fn without_network_no_socket_opens_and_no_unconfined_process_is_reached() {
    if !enforced() {
        return;
    }
    let scene = scene();
    let unix = scene.outside.join("bus.sock");
    let listener = std::os::unix::net::UnixListener::bind(&unix).unwrap();
    listener.set_nonblocking(true).unwrap();
    let udp = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    udp.set_nonblocking(true).unwrap();
    let port = udp.local_addr().unwrap().port();
    let commands = vec![
        format!("curl -s --unix-socket {} http://localhost/run", unix.display()),
        format!("echo leak > /dev/udp/127.0.0.1/{port}"),
        format!("exec 3<>/dev/tcp/127.0.0.1/{port} && echo connected"),
        "systemd-run --user --wait true; dbus-send --session --dest=org.freedesktop.DBus / org.freedesktop.DBus.ListNames".into(),
        "setsid true && echo escaped".into(),
    ];
    let harness = harness(calls(&commands), Some(&scene.workspace)).await;
    let events = run_calls(&harness, PermissionMode::Default, &[], &["run_bash"]).await;
    let results = results_by_id(&events);
    for index in 0..commands.len() {
        let (output, is_error, _) = &results[&format!("c{index}")];
        assert!(*is_error, "{:?} succeeded: {output}", commands[index]);
        assert!(
            !output.contains("connected") && !output.contains("escaped"),
            "{output}"
        );
    }
    assert!(listener.accept().is_err(), "a Unix socket was reached");
    let mut buffer = [0u8; 64];
    assert!(
        udp.recv_from(&mut buffer).is_err(),
        "a UDP datagram was sent"
    );
}

/// Whether a process whose command line holds `marker` is running.
fn running(marker: &str) -> bool {
    std::fs::read_dir("/proc").unwrap().flatten().any(|entry| {
        let mut cmdline = String::new();
        std::fs::File::open(entry.path().join("cmdline"))
            .and_then(|mut file| file.read_to_string(&mut cmdline))
            .is_ok()
            && cmdline.contains(marker)
    })
}

#[tokio::test]
async fn nothing_a_command_starts_outlives_it() {
    let scene = scene();
    let marker = format!("asterism-bg-{}", std::process::id());
    let commands = vec![
        format!("(exec -a {marker}-a sleep 300) & echo started"),
        format!("nohup bash -c 'exec -a {marker}-b sleep 300' >/dev/null 2>&1 & echo started"),
        format!("(setsid bash -c 'exec -a {marker}-c sleep 300' &) ; echo started"),
    ];
    let harness = harness(calls(&commands), Some(&scene.workspace)).await;
    let events = run_calls(&harness, PermissionMode::Default, &[], &["run_bash"]).await;
    let results = results_by_id(&events);
    assert!(results["c0"].0.contains("started"), "{:?}", results["c0"]);
    // The kill is sent before each result; give the kernel a moment to reap.
    let mut left = Vec::new();
    for _ in 0..50 {
        left = ["a", "b", "c"]
            .into_iter()
            .filter(|suffix| running(&format!("{marker}-{suffix}")))
            .collect();
        if left.is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(
        left.is_empty(),
        "still running after the command ended: {left:?}"
    );
}

#[tokio::test]
async fn a_deny_rule_sees_through_paths_and_wrappers_in_bypass_mode() {
    let scene = scene();
    let keep = scene.workspace.join("notes/plan.md");
    let commands: Vec<String> = [
        "/bin/rm notes/plan.md",
        "command rm notes/plan.md",
        "env rm notes/plan.md",
        "echo notes/plan.md | xargs rm",
        "find notes -name plan.md -delete",
        "find notes -name plan.md -exec rm {} ;",
        "nice -n 5 nohup timeout 5 rm notes/plan.md",
        "bash -c 'rm notes/plan.md'",
        "busybox rm notes/plan.md",
    ]
    .map(String::from)
    .to_vec();
    let harness = harness(calls(&commands), Some(&scene.workspace)).await;
    let events = run_calls(
        &harness,
        PermissionMode::Bypass,
        &[(RuleDecision::Deny, "run_bash(rm)")],
        &[],
    )
    .await;
    let results = results_by_id(&events);
    for (index, command) in commands.iter().enumerate() {
        let (output, is_error, _) = &results[&format!("c{index}")];
        assert!(*is_error && output.contains("rm"), "{command:?}: {output}");
    }
    assert!(keep.exists(), "a wrapped rm ran");
}

#[tokio::test]
async fn a_prefix_grant_covers_what_it_says_and_ordinary_git_still_works() {
    let scene = scene();
    let git = |args: &[&str]| {
        let status = std::process::Command::new("git")
            .args(args)
            .current_dir(&scene.workspace)
            .output()
            .unwrap();
        assert!(status.status.success(), "{args:?}: {status:?}");
    };
    // The hooks folder the scene planted is an ordinary folder; start a real repository.
    std::fs::remove_dir_all(scene.workspace.join(".git")).unwrap();
    git(&["init", "-q"]);
    git(&["config", "user.name", "Ada Astronomer"]);
    git(&["config", "user.email", "ada@example.org"]);
    git(&["add", "notes/plan.md"]);
    git(&["commit", "-qm", "plan"]);
    let config_before = std::fs::read_to_string(scene.workspace.join(".git/config")).unwrap();
    let commands: Vec<String> = [
        "git status --short",
        "git log --oneline",
        "git add notes/plan.md && git commit -m 'Note the TRGB plan' --allow-empty",
        "git log --output=.git/config --format='[core]%n fsmonitor = touch pwned'",
        "git -c core.pager='touch pwned' log",
        "git log -O'touch pwned'",
        "git config core.fsmonitor 'touch pwned'",
        "git fetch --upload-pack='touch pwned' .",
        "find . -name '*.md' -exec touch pwned ;",
        "./notes/plan.md",
    ]
    .map(String::from)
    .to_vec();
    let harness = harness(calls(&commands), Some(&scene.workspace)).await;
    let events = run_calls(
        &harness,
        PermissionMode::Default,
        &[],
        &[
            "run_bash(git status)",
            "run_bash(git log)",
            "run_bash(git add)",
            "run_bash(git commit)",
            "run_bash(git)",
            "run_bash(git fetch)",
            "run_bash(find)",
        ],
    )
    .await;
    let results = results_by_id(&events);
    for index in 0..3 {
        let (output, is_error, _) = &results[&format!("c{index}")];
        assert!(!is_error, "{:?} must run: {output}", commands[index]);
    }
    assert!(results["c1"].0.contains("plan"), "{:?}", results["c1"]);
    for index in 3..commands.len() {
        let (output, is_error, _) = &results[&format!("c{index}")];
        assert!(
            *is_error && output.contains("not allowed"),
            "{:?} ran under a prefix grant: {output}",
            commands[index]
        );
    }
    assert!(!scene.workspace.join("pwned").exists());
    assert_eq!(
        std::fs::read_to_string(scene.workspace.join(".git/config")).unwrap(),
        config_before
    );
}

#[tokio::test]
async fn file_tools_refuse_fifos_and_links_read_a_bounded_size_and_never_overflow() {
    let scene = scene();
    let fifo = scene.workspace.join("notes/pipe");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    // 40 MB of lines: more than a read takes.
    let big = scene.workspace.join("notes/catalogue.txt");
    let line = "NGC 4258 184.7396 47.3040 TRGB 29.40 0.05\n";
    std::fs::write(&big, line.repeat((40 << 20) / line.len())).unwrap();
    let turns = vec![
        Turn::calls(vec![
            ScriptedToolCall::new("fifo", "read_file", json!({"path": "notes/pipe"})),
            ScriptedToolCall::new(
                "grep",
                "grep_files",
                json!({"pattern": "H0", "path": "notes"}),
            ),
            ScriptedToolCall::new(
                "overflow",
                "read_file",
                json!({"path": "notes/plan.md", "offset": usize::MAX, "limit": usize::MAX}),
            ),
            ScriptedToolCall::new(
                "huge_limit",
                "read_file",
                json!({"path": "notes/plan.md", "offset": 1, "limit": usize::MAX}),
            ),
            ScriptedToolCall::new(
                "big",
                "read_file",
                json!({"path": "notes/catalogue.txt", "limit": 2}),
            ),
        ]),
        Turn::answer("done"),
    ];
    let harness = harness(turns, Some(&scene.workspace)).await;
    // A read blocked on the FIFO would hold the run (and this test) until killed.
    let events = run_calls(&harness, PermissionMode::Default, &[], &[]).await;
    let results = results_by_id(&events);
    let (fifo_out, fifo_error, _) = &results["fifo"];
    assert!(
        *fifo_error && fifo_out.contains("not a regular file"),
        "{fifo_out}"
    );
    let (grep_out, grep_error, _) = &results["grep"];
    assert!(!grep_error && grep_out.contains("plan.md:1"), "{grep_out}");
    assert!(
        grep_out.contains("larger than 32 MB not searched"),
        "{grep_out}"
    );
    assert!(!results["overflow"].1, "{:?}", results["overflow"]);
    assert!(
        results["huge_limit"].0.contains("Measure H0"),
        "{:?}",
        results["huge_limit"]
    );
    let (big_out, big_error, _) = &results["big"];
    assert!(
        !big_error && big_out.contains("only its first 32 MB"),
        "{big_out}"
    );
}

#[tokio::test]
async fn a_command_cannot_leave_behind_files_that_run_code_later() {
    let scene = scene();
    let w = &scene.workspace;
    let git = |args: &[&str]| {
        let out = std::process::Command::new("git")
            .args(args)
            .current_dir(w)
            .output()
            .unwrap();
        assert!(out.status.success(), "{args:?}: {out:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    std::fs::remove_dir_all(w.join(".git")).unwrap();
    git(&["init", "-q"]);
    git(&["config", "user.name", "Ada"]);
    git(&["config", "user.email", "ada@example.org"]);
    git(&["commit", "-q", "--allow-empty", "-m", "first"]);
    let post_commit = w.join(".git/hooks/post-commit");
    std::fs::write(&post_commit, "#!/bin/sh\necho committed\n").unwrap();
    let commands: Vec<String> = [
        "printf '#!/bin/sh\\ntouch pwned\\n' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit",
        "echo 'touch pwned' >> .git/hooks/post-commit",
        "git config core.fsmonitor 'touch pwned'",
        "printf '[core]\\n\\tpager = touch pwned\\n' > .git/config.worktree",
        "mkdir -p .git/modules/lib && printf '[core]\\n\\tfsmonitor = touch pwned\\n' > .git/modules/lib/config",
        "mkdir -p .vscode && echo '{\"tasks\": [{\"command\": \"touch pwned\"}]}' > .vscode/tasks.json",
        "echo 'repos: [{repo: local, hooks: [{id: x, entry: touch pwned}]}]' > .pre-commit-config.yaml",
        "echo 'touch pwned' > .envrc",
        "mkdir -p sub && echo 'gitdir: /tmp/elsewhere' > sub/.git",
        "echo \"\\$pdflatex = 'touch pwned';\" > notes/.latexmkrc",
        // Ordinary work: all of it stays.
        "git config user.name 'Ada Lovelace' && git commit -q --allow-empty -m second && git init -q nested && echo fine",
    ]
    .map(String::from)
    .to_vec();
    let harness = harness(calls(&commands), Some(w)).await;
    let events = run_calls(&harness, PermissionMode::Default, &[], &["run_bash"]).await;
    let results = results_by_id(&events);
    for index in 0..commands.len() - 1 {
        let (output, _, metadata) = &results[&format!("c{index}")];
        assert!(
            output.contains("Asterism undid") && !metadata["undone"].as_array().unwrap().is_empty(),
            "{:?} was not undone: {output}",
            commands[index]
        );
    }
    let (last, last_error, last_metadata) = &results[&format!("c{}", commands.len() - 1)];
    assert!(
        !last_error && last.contains("fine") && !last.contains("undid"),
        "{last}"
    );
    assert!(last_metadata["undone"].as_array().unwrap().is_empty());
    for planted in [
        ".git/hooks/pre-commit",
        ".git/config.worktree",
        ".git/modules/lib/config",
        ".vscode/tasks.json",
        ".pre-commit-config.yaml",
        ".envrc",
        "sub/.git",
        "notes/.latexmkrc",
        "pwned",
    ] {
        assert!(!w.join(planted).exists(), "{planted} was left behind");
    }
    assert_eq!(
        std::fs::read_to_string(&post_commit).unwrap(),
        "#!/bin/sh\necho committed\n"
    );
    let config = std::fs::read_to_string(w.join(".git/config")).unwrap();
    assert!(!config.contains("fsmonitor"), "{config}");
    assert!(config.contains("Ada Lovelace"), "{config}");
    assert_eq!(git(&["log", "--format=%s"]), "second\nfirst\n");
    assert!(w.join("nested/.git/config").exists());
}
