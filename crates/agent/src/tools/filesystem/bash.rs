//! `run_bash`: a shell command in the workspace, with a timeout and its output cut to a
//! size the model can read. Asks first unless a rule allows each part of the command;
//! runs with a cleared environment (plus [`ENV_ALLOWLIST`]) and, on Linux, under
//! Landlock: writes only in the workspace and the session's temporary folder (`TMPDIR`),
//! no network unless
//! `SHELL_NETWORK` is on (see [`crate::security::confine`]).

use std::process::Stdio;
use std::time::Duration;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;

use crate::security::confine::{ShellLimits, kill_session, spawn_confined};
use crate::security::later::{Snapshot, Undone};
use crate::tool::parameters_schema;
use crate::{AgentTool, InterruptBehavior, ToolContext, ToolOutput};

/// Default and largest timeout, and the most output characters kept.
const DEFAULT_TIMEOUT_SECS: u64 = 120;
const MAX_TIMEOUT_SECS: u64 = 600;
const MAX_OUTPUT_CHARS: usize = 30_000;

/// The environment variables a shell (and a hook) gets from Asterism's own; every other
/// variable, API keys included, is left out. `LC_*` are passed too.
pub const ENV_ALLOWLIST: [&str; 8] = [
    "PATH", "HOME", "LANG", "TERM", "TZ", "USER", "LOGNAME", "TMPDIR",
];

/// Clears `command`'s environment and passes on the allowed variables and `extra` names.
pub fn allowlisted_environment(command: &mut tokio::process::Command, extra: &[String]) {
    command.env_clear();
    for (name, value) in std::env::vars_os() {
        let Some(text) = name.to_str() else {
            continue;
        };
        if ENV_ALLOWLIST.contains(&text)
            || text.starts_with("LC_")
            || extra.iter().any(|n| n == text)
        {
            command.env(&name, value);
        }
    }
}

/// Run a command.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RunBashArgs {
    /// The command, run by `bash -c`.
    pub command: String,
    /// Seconds before it is killed (default 120, at most 600).
    pub timeout_secs: Option<u64>,
    /// The folder to run in (default: the workspace).
    pub cwd: Option<String>,
}

/// Keeps the start and the end of a long output.
pub(crate) fn truncate_middle(text: &str, max: usize) -> String {
    let count = text.chars().count();
    if count <= max {
        return text.to_string();
    }
    let head: String = text.chars().take(max / 2).collect();
    let tail: String = text.chars().skip(count - max / 2).collect();
    format!("{head}\n[… {} characters cut …]\n{tail}", count - max)
}

pub struct RunBashTool;

/// The line telling the model and the user which code-running files were put back.
fn undone_note(undone: &[Undone]) -> String {
    if undone.is_empty() {
        return String::new();
    }
    let list: Vec<String> = undone
        .iter()
        .map(|undone| format!("{} ({}: {})", undone.path, undone.change, undone.why))
        .collect();
    format!(
        "\n[Asterism undid the command's changes to files that run code later: {}. Ask the user to make such a change themselves.]",
        list.join("; ")
    )
}

/// What the shell may read besides the system and the workspace: the user's `SHELL_READ`
/// folders, and git's own configuration (its name and e-mail for `git commit`; no
/// credentials live there, `~/.git-credentials` stays unreadable).
fn readable_folders(extra: &[std::path::PathBuf]) -> Vec<std::path::PathBuf> {
    let mut folders = extra.to_vec();
    if let Some(home) = dirs::home_dir() {
        folders.extend(
            [home.join(".gitconfig"), home.join(".config/git")]
                .into_iter()
                .filter(|path| path.exists()),
        );
    }
    folders
}

/// Waits for the shell (at most `timeout`, or until cancelled), then kills every process
/// of its session, background ones included, and collects what it wrote. A child that
/// kept the output open does not hold the answer back more than a moment after that.
async fn finish(
    mut child: tokio::process::Child,
    timeout: Duration,
    cancel: &tokio_util::sync::CancellationToken,
) -> Result<std::process::Output, String> {
    use tokio::io::AsyncReadExt;
    let leader = child.id();
    let read = |pipe: Option<Box<dyn tokio::io::AsyncRead + Unpin + Send>>| {
        tokio::spawn(async move {
            let mut bytes = Vec::new();
            if let Some(mut pipe) = pipe {
                let _ = pipe.read_to_end(&mut bytes).await;
            }
            bytes
        })
    };
    let stdout = read(child.stdout.take().map(|pipe| Box::new(pipe) as Box<_>));
    let stderr = read(child.stderr.take().map(|pipe| Box::new(pipe) as Box<_>));
    let status = tokio::select! {
        status = tokio::time::timeout(timeout, child.wait()) => status,
        () = cancel.cancelled() => {
            let _ = child.start_kill();
            leader.map(kill_session);
            return Err("cancelled; the command and everything it started were killed".into());
        }
    };
    if status.is_err() {
        let _ = child.start_kill();
    }
    leader.map(kill_session);
    let status = match status {
        Ok(Ok(status)) => status,
        Ok(Err(error)) => return Err(format!("the command failed to run: {error}")),
        Err(_) => {
            return Err(format!(
                "the command did not finish within {} s and was killed, with everything it started",
                timeout.as_secs()
            ));
        }
    };
    let collect = |task: tokio::task::JoinHandle<Vec<u8>>| async move {
        tokio::time::timeout(Duration::from_secs(2), task)
            .await
            .ok()
            .and_then(Result::ok)
            .unwrap_or_default()
    };
    Ok(std::process::Output {
        status,
        stdout: collect(stdout).await,
        stderr: collect(stderr).await,
    })
}

#[async_trait]
impl AgentTool for RunBashTool {
    fn name(&self) -> &str {
        "run_bash"
    }
    fn description(&self) -> &str {
        "Run a shell command (bash -c) in the workspace, with a timeout (default 120 s). Answers the \
         exit code and the output (long output is cut in the middle). Asks the user first. Runs with a \
         minimal environment (no API keys) and, on Linux, may write only in the workspace and \
         $TMPDIR, without network."
    }
    fn parameters(&self) -> serde_json::Value {
        parameters_schema::<RunBashArgs>()
    }
    fn interrupt_behavior(&self) -> InterruptBehavior {
        InterruptBehavior::Cancel
    }
    fn effect(&self, _arguments: &serde_json::Value) -> crate::permissions::ToolEffect {
        crate::permissions::ToolEffect::Command
    }
    fn permission_subject(&self, arguments: &serde_json::Value) -> Option<String> {
        self.shell_command(arguments)
    }
    fn shell_command(&self, arguments: &serde_json::Value) -> Option<String> {
        arguments
            .get("command")
            .and_then(|command| command.as_str())
            .map(str::to_string)
    }
    async fn execute(&self, arguments: serde_json::Value, context: &ToolContext) -> ToolOutput {
        let args: RunBashArgs = match serde_json::from_value(arguments) {
            Ok(args) => args,
            Err(error) => {
                return ToolOutput::error(format!("Invalid arguments for run_bash: {error}"));
            }
        };
        if args.command.trim().is_empty() {
            return ToolOutput::error("the command is empty");
        }
        let sandbox = context.sandbox();
        let Some(workspace) = sandbox.workspace().map(std::path::Path::to_path_buf) else {
            return ToolOutput::error(
                "run_bash needs a workspace folder, and none is set (choose one in Settings, or start asterism with --workspace DIR)",
            );
        };
        let cwd = match sandbox.resolve(args.cwd.as_deref().unwrap_or(".")) {
            Ok(cwd) if cwd.is_dir() => cwd,
            Ok(_) => return ToolOutput::error("cwd is not a folder"),
            Err(error) => return ToolOutput::error(error.to_string()),
        };
        let timeout = Duration::from_secs(
            args.timeout_secs
                .unwrap_or(DEFAULT_TIMEOUT_SECS)
                .clamp(1, MAX_TIMEOUT_SECS),
        );
        let mut command = bash_command(&args.command, &cwd);
        let temp = crate::security::shell_temp_dir(&context.services.data_dir, &context.session_id);
        if let Err(error) = crate::security::files::create_private_dir(&temp) {
            return ToolOutput::error(format!(
                "cannot create the shell's temporary folder: {error}"
            ));
        }
        command.env("TMPDIR", &temp);
        let guarded = workspace.clone();
        let before = tokio::task::spawn_blocking(move || Snapshot::take(&guarded))
            .await
            .unwrap_or_default();
        let limits = ShellLimits {
            writable: vec![workspace, temp],
            readable: readable_folders(&context.services.shell_read),
            network: context.services.shell_network,
        };
        let (child, confinement) = match spawn_confined(command, limits).await {
            Ok(spawned) => spawned,
            Err(error) => return ToolOutput::error(format!("cannot start bash: {error}")),
        };
        let output = finish(child, timeout, &context.cancel).await;
        let undone = tokio::task::spawn_blocking(move || before.undo_changes())
            .await
            .unwrap_or_default();
        let undone_note = undone_note(&undone);
        let output = match output {
            Ok(output) => output,
            Err(message) => return ToolOutput::error(format!("{message}{undone_note}")),
        };
        let code = output.status.code();
        let text = report(&output, &undone_note);
        let metadata = serde_json::json!({
            "exitCode": code,
            "cwd": super::shown(&cwd, sandbox.roots()),
            "stdoutBytes": output.stdout.len(),
            "stderrBytes": output.stderr.len(),
            "sandbox": confinement.describe(),
            "undone": undone
                .iter()
                .map(|undone| serde_json::json!({"path": undone.path, "change": undone.change, "why": undone.why}))
                .collect::<Vec<_>>(),
        });
        if output.status.success() {
            ToolOutput::ok(text).with_metadata(metadata)
        } else {
            ToolOutput::error(text).with_metadata(metadata)
        }
    }
}

/// `bash -c COMMAND` in `cwd`, its output piped, no input, the allowlisted environment
/// only, killed if dropped.
fn bash_command(script: &str, cwd: &std::path::Path) -> tokio::process::Command {
    let mut command = tokio::process::Command::new("bash");
    command
        .arg("-c")
        .arg(script)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    allowlisted_environment(&mut command, &[]);
    command
}

/// What the model reads of a run: the exit code, the output with the errors after
/// `[stderr]` (the middle cut when long), and what was undone.
fn report(output: &std::process::Output, undone_note: &str) -> String {
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let mut text = String::new();
    if !stdout.is_empty() {
        text.push_str(&stdout);
    }
    if !stderr.is_empty() {
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str("[stderr]\n");
        text.push_str(&stderr);
    }
    format!(
        "exit code {}\n{}{undone_note}",
        output
            .status
            .code()
            .map_or("none (killed by a signal)".into(), |c| c.to_string()),
        truncate_middle(&text, MAX_OUTPUT_CHARS)
    )
}
