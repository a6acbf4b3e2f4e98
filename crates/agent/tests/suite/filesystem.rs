//! The filesystem tools through the agent: reads, the unchanged-file stub, globs, grep,
//! and escapes refused. The project root is the test's working directory (this crate).

use asterism_agent::tools::filesystem::FILE_UNCHANGED_STUB;
use asterism_protocol::RunFinishReason;
use asterism_testkit::{ScriptedToolCall, Turn};
use serde_json::json;

use super::common::{Harness, tool_results};

fn calls(calls: &[(&str, serde_json::Value)]) -> Turn {
    Turn {
        tool_calls: calls
            .iter()
            .enumerate()
            .map(|(index, (name, arguments))| ScriptedToolCall {
                id: Some(format!("call_{index}_{name}")),
                name: (*name).into(),
                arguments: arguments.clone(),
            })
            .collect(),
        ..Turn::default()
    }
}

#[tokio::test]
async fn read_glob_and_grep_inside_the_project_and_nothing_outside() {
    let turns = vec![
        calls(&[(
            "read_file",
            json!({"path": "Cargo.toml", "offset": 1, "limit": 3}),
        )]),
        calls(&[
            (
                "read_file",
                json!({"path": "Cargo.toml", "offset": 1, "limit": 3}),
            ),
            (
                "glob_files",
                json!({"pattern": "src/tools/filesystem/*.rs"}),
            ),
            (
                "grep_files",
                json!({"pattern": "const FILE_UNCHANGED_STUB", "path": "src"}),
            ),
            ("read_file", json!({"path": "../../../etc/passwd"})),
            ("read_file", json!({"path": "/etc/passwd"})),
            ("grep_files", json!({"pattern": "root", "path": "/etc"})),
        ]),
        Turn {
            text: Some("Done.".into()),
            ..Turn::default()
        },
    ];
    let harness = Harness::start(turns).await;
    let (outcome, events) = harness.ask(None, "Look at the project files").await;
    assert_eq!(outcome.reason, RunFinishReason::Completed);
    let results = tool_results(&events);
    assert_eq!(results.len(), 7, "{results:#?}");
    let (first, error, meta) = &results[0];
    assert!(!error, "{first}");
    assert!(first.starts_with("     1\t[package]"), "{first}");
    assert!(first.contains("[lines 1–3 of"), "{first}");
    assert_eq!(meta["path"], "Cargo.toml");
    let by_id = |prefix: &str| {
        results
            .iter()
            .find(|(text, _, _)| text.contains(prefix))
            .unwrap_or_else(|| panic!("no result with {prefix:?}: {results:#?}"))
            .clone()
    };
    let (again, error, _) = by_id("file unchanged");
    assert!(!error);
    assert_eq!(again, FILE_UNCHANGED_STUB);
    let (globbed, _, _) = by_id("read.rs");
    assert!(
        globbed.contains("src/tools/filesystem/glob.rs"),
        "{globbed}"
    );
    assert!(
        globbed.contains("src/tools/filesystem/grep.rs"),
        "{globbed}"
    );
    let (grepped, _, _) = by_id("pub const FILE_UNCHANGED_STUB");
    assert!(
        grepped.starts_with("src/tools/filesystem/read.rs:"),
        "{grepped}"
    );
    let refusals: Vec<&(String, bool, serde_json::Value)> =
        results.iter().filter(|(_, error, _)| *error).collect();
    assert_eq!(refusals.len(), 3, "{results:#?}");
    assert!(
        refusals
            .iter()
            .any(|(text, _, _)| text.contains("`..` is not allowed"))
    );
    assert!(
        refusals
            .iter()
            .all(|(text, _, _)| !text.contains("root:x:0:0"))
    );
    harness.mock.assert_no_violations();
}

#[tokio::test]
async fn write_edit_and_run_in_the_project() {
    // A scratch folder inside the project root (this crate), removed afterwards.
    let scratch = tempfile::Builder::new()
        .prefix(".tmp-fs-test")
        .tempdir_in(".")
        .unwrap();
    let folder = scratch
        .path()
        .file_name()
        .unwrap()
        .to_str()
        .unwrap()
        .to_string();
    let notes = format!("{folder}/notes.md");
    let turns = vec![
        calls(&[(
            "file_write",
            json!({"path": notes, "content": "TRGB: 69.8\nCepheids: 73.0\nCepheids again\n"}),
        )]),
        calls(&[(
            "file_edit",
            json!({"path": notes, "old_string": "Cepheids", "new_string": "SH0ES"}),
        )]),
        calls(&[(
            "file_edit",
            json!({"path": notes, "old_string": "TRGB: 69.8", "new_string": "TRGB: 69.8 ± 1.9"}),
        )]),
        calls(&[(
            "run_bash",
            json!({"command": "wc -l < notes.md; echo oops >&2; exit 3", "cwd": folder}),
        )]),
        calls(&[(
            "file_write",
            json!({"path": "../escape.md", "content": "no"}),
        )]),
        calls(&[("run_bash", json!({"command": "sleep 5", "timeout_secs": 1}))]),
        Turn {
            text: Some("Done.".into()),
            ..Turn::default()
        },
    ];
    let mut harness = Harness::start(turns).await;
    harness.runtime = harness
        .runtime
        .clone()
        .with_permission_mode(asterism_agent::permissions::PermissionMode::Bypass);
    let (outcome, events) = harness.ask(None, "Keep notes").await;
    assert_eq!(outcome.reason, RunFinishReason::Completed);
    let results = tool_results(&events);
    assert_eq!(results.len(), 6, "{results:#?}");
    let (created, error, meta) = &results[0];
    assert!(!error, "{created}");
    assert_eq!(meta["created"], true);
    // "Cepheids" occurs twice: refused, file untouched.
    let (ambiguous, error, _) = &results[1];
    assert!(error);
    assert!(ambiguous.contains("occurs 2 times"), "{ambiguous}");
    let (edited, error, meta) = &results[2];
    assert!(!error, "{edited}");
    assert!(
        meta["diff"].as_str().unwrap().contains("+TRGB: 69.8 ± 1.9"),
        "{meta}"
    );
    let written = std::fs::read_to_string(scratch.path().join("notes.md")).unwrap();
    assert_eq!(
        written,
        "TRGB: 69.8 ± 1.9\nCepheids: 73.0\nCepheids again\n"
    );
    let (ran, error, meta) = &results[3];
    assert!(error, "a non-zero exit is an error result");
    assert_eq!(meta["exitCode"], 3);
    assert!(ran.starts_with("exit code 3\n3\n[stderr]\noops"), "{ran}");
    let (escape, error, _) = &results[4];
    assert!(error);
    assert!(escape.contains("`..` is not allowed"), "{escape}");
    let (slow, error, _) = &results[5];
    assert!(error);
    assert!(slow.contains("did not finish within 1 s"), "{slow}");
    // No temporary files are left beside the notes.
    let names: Vec<String> = std::fs::read_dir(scratch.path())
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["notes.md"]);
}
