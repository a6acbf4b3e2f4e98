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
