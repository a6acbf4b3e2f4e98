//! Hooks: code that runs at fixed points of a run and may change what happens.
//!
//! - PreToolUse: block a call, change its arguments, add context to its result, or
//!   require the user's permission.
//! - PostToolUse: change the output the model sees.
//! - SessionStart, UserPromptSubmit, Stop: observe (a UserPromptSubmit hook may block).
//!
//! Users configure shell hooks in `{data_dir}/hooks.json`:
//!
//! ```json
//! {"hooks": [{"event": "PreToolUse", "matcher": "query_*", "command": "./check.sh", "timeoutSecs": 10}]}
//! ```
//!
//! The command gets the event as JSON on stdin. Exit 0 continues; its stdout, if JSON,
//! may say `{"block": "reason"}`, `{"updatedInput": {…}}`, `{"additionalContext": "…"}`,
//! `{"permissionRequired": "reason"}` or (PostToolUse) `{"updatedOutput": "…"}`. Exit 2
//! blocks, with stderr as the reason. Any other failure, or the timeout, is reported and
//! the run goes on.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use globset::{Glob, GlobMatcher};
use serde::{Deserialize, Serialize};
use tokio::io::AsyncWriteExt;

/// Where a hook runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum HookEvent {
    PreToolUse,
    PostToolUse,
    SessionStart,
    UserPromptSubmit,
    Stop,
    /// A subagent finished (its name is the input's `agentName`).
    SubagentStop,
}

/// What a hook is told, as the JSON a shell hook reads on stdin.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HookInput {
    pub event: HookEvent,
    pub session_id: String,
    pub agent_name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_input: Option<serde_json::Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_output: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_is_error: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
}

impl HookInput {
    pub fn new(event: HookEvent, session_id: &str, agent_name: &str) -> Self {
        Self {
            event,
            session_id: session_id.to_string(),
            agent_name: agent_name.to_string(),
            tool_name: None,
            tool_call_id: None,
            tool_input: None,
            tool_output: None,
            tool_is_error: None,
            prompt: None,
        }
    }
}

/// What a hook asks for. Every field is optional; an empty output means "go on".
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct HookOutput {
    pub block: Option<String>,
    pub updated_input: Option<serde_json::Value>,
    pub additional_context: Option<String>,
    pub permission_required: Option<String>,
    pub updated_output: Option<String>,
}

/// A hook that could not run; reported, never fatal.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum HookError {
    #[error("the hook `{command}` did not finish within {seconds} s")]
    Timeout { command: String, seconds: u64 },
    #[error("the hook `{command}` failed: {message}")]
    Failed { command: String, message: String },
}

#[async_trait]
pub trait Hook: Send + Sync {
    /// Whether the hook wants this event (and tool).
    fn matches(&self, event: HookEvent, tool: Option<&str>) -> bool;
    async fn run(&self, input: &HookInput) -> Result<HookOutput, HookError>;
}

/// The combined verdict of the PreToolUse hooks of one call.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PreToolUseVerdict {
    pub block: Option<String>,
    pub arguments: Option<serde_json::Value>,
    pub context: Vec<String>,
    pub permission_required: Option<String>,
    pub errors: Vec<HookError>,
}

/// The hooks of a run, in registration order.
#[derive(Clone, Default)]
pub struct HookRegistry {
    hooks: Vec<Arc<dyn Hook>>,
}

impl HookRegistry {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn add(&mut self, hook: Arc<dyn Hook>) {
        self.hooks.push(hook);
    }

    pub fn is_empty(&self) -> bool {
        self.hooks.is_empty()
    }

    /// Appends another registry's hooks after these.
    pub fn extend(&mut self, other: HookRegistry) {
        self.hooks.extend(other.hooks);
    }

    /// Runs the PreToolUse hooks in order; a block stops the chain; a changed input is
    /// what later hooks see.
    pub async fn pre_tool_use(&self, mut input: HookInput) -> PreToolUseVerdict {
        let mut verdict = PreToolUseVerdict::default();
        for hook in self
            .hooks
            .iter()
            .filter(|hook| hook.matches(HookEvent::PreToolUse, input.tool_name.as_deref()))
        {
            match hook.run(&input).await {
                Ok(output) => {
                    if let Some(reason) = output.block {
                        verdict.block = Some(reason);
                        return verdict;
                    }
                    if let Some(arguments) = output.updated_input {
                        input.tool_input = Some(arguments.clone());
                        verdict.arguments = Some(arguments);
                    }
                    verdict.context.extend(output.additional_context);
                    if output.permission_required.is_some() {
                        verdict.permission_required = output.permission_required;
                    }
                }
                Err(error) => verdict.errors.push(error),
            }
        }
        verdict
    }

    /// Runs the PostToolUse hooks; returns the output to use instead, if one changed it.
    pub async fn post_tool_use(&self, mut input: HookInput) -> (Option<String>, Vec<HookError>) {
        let mut replaced = None;
        let mut errors = Vec::new();
        for hook in self
            .hooks
            .iter()
            .filter(|hook| hook.matches(HookEvent::PostToolUse, input.tool_name.as_deref()))
        {
            match hook.run(&input).await {
                Ok(output) => {
                    if let Some(output) = output.updated_output {
                        input.tool_output = Some(output.clone());
                        replaced = Some(output);
                    }
                }
                Err(error) => errors.push(error),
            }
        }
        (replaced, errors)
    }

    /// Runs the hooks of an event without a tool (session start, prompt, stop). A block
    /// from a UserPromptSubmit hook is returned.
    pub async fn notify(&self, input: HookInput) -> (Option<String>, Vec<HookError>) {
        let mut errors = Vec::new();
        for hook in self
            .hooks
            .iter()
            .filter(|hook| hook.matches(input.event, None))
        {
            match hook.run(&input).await {
                Ok(output) if output.block.is_some() => return (output.block, errors),
                Ok(_) => {}
                Err(error) => errors.push(error),
            }
        }
        (None, errors)
    }

    /// Loads the shell hooks of `{data_dir}/hooks.json`. A missing file is no hooks; an
    /// invalid one is an error naming the file (the caller reports it and runs without).
    pub fn load(path: &Path) -> Result<Self, String> {
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(Self::new()),
            Err(error) => return Err(format!("{}: {error}", path.display())),
        };
        let file: HooksFile = serde_json::from_str(&text)
            .map_err(|error| format!("{} is not valid: {error}", path.display()))?;
        let mut registry = Self::new();
        for entry in file.hooks {
            let matcher = match entry
                .matcher
                .as_deref()
                .filter(|m| !m.is_empty() && *m != "*")
            {
                None => None,
                Some(pattern) => Some(
                    Glob::new(pattern)
                        .map_err(|error| {
                            format!("{}: bad matcher {pattern:?}: {error}", path.display())
                        })?
                        .compile_matcher(),
                ),
            };
            registry.add(Arc::new(ShellHook {
                event: entry.event,
                matcher,
                command: entry.command,
                timeout: Duration::from_secs(entry.timeout_secs.unwrap_or(30).max(1)),
                working_dir: path.parent().map(Path::to_path_buf),
                env: entry.env,
            }));
        }
        Ok(registry)
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct HooksFile {
    hooks: Vec<HookEntry>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct HookEntry {
    event: HookEvent,
    #[serde(default)]
    matcher: Option<String>,
    command: String,
    #[serde(default)]
    timeout_secs: Option<u64>,
    /// Environment variables passed to the hook besides the allowlist of `run_bash`
    /// (everything else, API keys included, is left out).
    #[serde(default)]
    env: Vec<String>,
}

/// A hook that runs a shell command.
pub struct ShellHook {
    event: HookEvent,
    matcher: Option<GlobMatcher>,
    command: String,
    timeout: Duration,
    working_dir: Option<std::path::PathBuf>,
    /// Variables passed on besides the allowlist.
    env: Vec<String>,
}

#[async_trait]
impl Hook for ShellHook {
    fn matches(&self, event: HookEvent, tool: Option<&str>) -> bool {
        event == self.event
            && self
                .matcher
                .as_ref()
                .is_none_or(|matcher| tool.is_some_and(|tool| matcher.is_match(tool)))
    }

    async fn run(&self, input: &HookInput) -> Result<HookOutput, HookError> {
        let failed = |message: String| HookError::Failed {
            command: self.command.clone(),
            message,
        };
        let mut command = tokio::process::Command::new("sh");
        command
            .arg("-c")
            .arg(&self.command)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .kill_on_drop(true);
        crate::tools::filesystem::allowlisted_environment(&mut command, &self.env);
        if let Some(dir) = &self.working_dir {
            command.current_dir(dir);
        }
        let mut child = command.spawn().map_err(|error| failed(error.to_string()))?;
        let payload = serde_json::to_vec(input).map_err(|error| failed(error.to_string()))?;
        if let Some(mut stdin) = child.stdin.take() {
            // A hook that does not read its input is fine.
            let _ = stdin.write_all(&payload).await;
        }
        let output = match tokio::time::timeout(self.timeout, child.wait_with_output()).await {
            Ok(output) => output.map_err(|error| failed(error.to_string()))?,
            Err(_) => {
                return Err(HookError::Timeout {
                    command: self.command.clone(),
                    seconds: self.timeout.as_secs(),
                });
            }
        };
        let stdout = String::from_utf8_lossy(&output.stdout);
        let stderr = String::from_utf8_lossy(&output.stderr).trim().to_string();
        match output.status.code() {
            Some(0) => {
                let stdout = stdout.trim();
                if stdout.is_empty() || !stdout.starts_with('{') {
                    return Ok(HookOutput::default());
                }
                serde_json::from_str(stdout)
                    .map_err(|error| failed(format!("its output is not valid hook JSON: {error}")))
            }
            Some(2) => Ok(HookOutput {
                block: Some(if stderr.is_empty() {
                    format!("blocked by the hook `{}`", self.command)
                } else {
                    stderr
                }),
                ..HookOutput::default()
            }),
            code => Err(failed(format!(
                "exit status {}{}",
                code.map_or("(signal)".to_string(), |c| c.to_string()),
                if stderr.is_empty() {
                    String::new()
                } else {
                    format!(": {stderr}")
                }
            ))),
        }
    }
}

#[cfg(test)]
mod tests;
