use super::*;

fn write_hooks(dir: &Path, json: &str) -> HookRegistry {
    let path = dir.join("hooks.json");
    std::fs::write(&path, json).unwrap();
    HookRegistry::load(&path).unwrap()
}

fn tool_input(tool: &str) -> HookInput {
    HookInput {
        tool_name: Some(tool.into()),
        tool_call_id: Some("call_1".into()),
        tool_input: Some(serde_json::json!({"name": "M 31"})),
        ..HookInput::new(HookEvent::PreToolUse, "s1", "main")
    }
}

#[tokio::test]
async fn exit_2_blocks_with_stderr_and_stdin_carries_the_event() {
    let dir = tempfile::tempdir().unwrap();
    let hooks = write_hooks(
        dir.path(),
        r#"{"hooks": [
            {"event": "PreToolUse", "matcher": "query_*", "command": "cat > seen.json; echo 'no targets today' >&2; exit 2"},
            {"event": "PreToolUse", "matcher": "other", "command": "exit 2"}
        ]}"#,
    );
    let verdict = hooks.pre_tool_use(tool_input("query_target")).await;
    assert_eq!(verdict.block.as_deref(), Some("no targets today"));
    let seen: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("seen.json")).unwrap())
            .unwrap();
    assert_eq!(seen["sessionId"], "s1");
    assert_eq!(seen["agentName"], "main");
    assert_eq!(seen["toolName"], "query_target");
    assert_eq!(seen["toolInput"]["name"], "M 31");
    assert_eq!(
        hooks.pre_tool_use(tool_input("echo")).await,
        PreToolUseVerdict::default()
    );
}

#[tokio::test]
async fn json_output_mutates_input_and_appends_context() {
    let dir = tempfile::tempdir().unwrap();
    let hooks = write_hooks(
        dir.path(),
        r#"{"hooks": [{"event": "PreToolUse", "command": "echo '{\"updatedInput\": {\"name\": \"M 106\"}, \"additionalContext\": \"prefer Simbad\"}'"}]}"#,
    );
    let verdict = hooks.pre_tool_use(tool_input("query_target")).await;
    assert_eq!(
        verdict.arguments,
        Some(serde_json::json!({"name": "M 106"}))
    );
    assert_eq!(verdict.context, ["prefer Simbad"]);
}

#[tokio::test]
async fn a_hanging_hook_times_out_and_a_failing_one_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let hooks = write_hooks(
        dir.path(),
        r#"{"hooks": [
            {"event": "PreToolUse", "command": "sleep 30", "timeoutSecs": 1},
            {"event": "PreToolUse", "command": "echo broken >&2; exit 1"}
        ]}"#,
    );
    let started = std::time::Instant::now();
    let verdict = hooks.pre_tool_use(tool_input("query_target")).await;
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_eq!(verdict.block, None);
    assert_eq!(verdict.errors.len(), 2);
    assert!(matches!(
        verdict.errors[0],
        HookError::Timeout { seconds: 1, .. }
    ));
    assert!(
        verdict.errors[1]
            .to_string()
            .contains("exit status 1: broken")
    );
}

#[test]
fn an_invalid_hooks_file_is_a_clear_error_and_a_missing_one_is_none() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("hooks.json");
    assert!(HookRegistry::load(&path).unwrap().is_empty());
    std::fs::write(&path, "{not json").unwrap();
    let error = HookRegistry::load(&path).err().unwrap();
    assert!(error.contains("hooks.json is not valid"), "{error}");
    std::fs::write(
        &path,
        r#"{"hooks": [{"event": "Sometimes", "command": "true"}]}"#,
    )
    .unwrap();
    assert!(HookRegistry::load(&path).is_err());
}
