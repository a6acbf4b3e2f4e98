//! One call's way through the executor, on its own task.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use asterism_protocol::AgentEvent;
use tokio_util::sync::CancellationToken;

use super::{CallResult, ExecutorShared};
use crate::hooks::{HookEvent, HookInput};
use crate::permissions::{Decision, PermissionAnswer, Rule, RuleDecision};
use crate::{AgentTool, InterruptBehavior, ProgressSender, ToolContext, ToolOutput};

/// A call after parsing, before the pipeline.
pub(super) struct Prepared {
    pub tool_call_id: String,
    pub name: String,
    pub arguments: serde_json::Value,
    pub parse_error: Option<String>,
    /// Times in a row this exact call has been made.
    pub repeats: usize,
}

/// When a call may run: after every call in `waits` has finished. `done` is fired when
/// this call has finished (also if its task panics or is dropped).
pub(super) struct Turn {
    pub waits: Vec<CancellationToken>,
    pub done: CancellationToken,
}

/// Emits a notice and stores it with the session, so replay shows it too.
fn notice(shared: &ExecutorShared, step: i32, kind: &str, message: String) {
    let event = AgentEvent::Notice {
        kind: kind.into(),
        message,
        step,
    };
    let context = &shared.context;
    shared.persister.messages(vec![asterism_store::NewMessage {
        session_id: context.session_id.clone(),
        run_id: context.run_id.clone(),
        step,
        agent_name: context.agent_name.clone(),
        role: asterism_store::MessageRole::Event,
        content: String::new(),
        tool_calls: None,
        tool_call_id: None,
        metadata: serde_json::json!({"event": event}),
        raw_json: None,
    }]);
    context.events.emit(event);
}

/// Runs the pipeline and emits the ToolResult.
pub(super) async fn run(
    shared: Arc<ExecutorShared>,
    call: Prepared,
    step: i32,
    sibling_abort: CancellationToken,
    turn: Turn,
) -> CallResult {
    let _done = turn.done.drop_guard();
    for wait in &turn.waits {
        wait.cancelled().await;
    }
    let started = Instant::now();
    let mut waited = Duration::ZERO;
    let (output, outcome, decision, arguments) =
        decide_and_execute(&shared, &call, step, &sibling_abort, &mut waited).await;
    let result = CallResult {
        tool_call_id: call.tool_call_id.clone(),
        name: call.name.clone(),
        arguments,
        output,
        duration: started.elapsed().saturating_sub(waited),
        waited,
        outcome,
        decision,
        finished_at: Instant::now(),
    };
    let context = &shared.context;
    context.events.emit(AgentEvent::ToolResult {
        id: result.tool_call_id.clone(),
        tool_call_id: result.tool_call_id.clone(),
        name: result.name.clone(),
        output: result.output.content.clone(),
        is_error: result.output.is_error,
        metadata: result.output.metadata.clone(),
        step,
        duration_ms: result.duration.as_secs_f64() * 1000.0,
        agent_name: context.agent_name.clone(),
    });
    result
}

type Verdict = (ToolOutput, &'static str, &'static str, serde_json::Value);

/// Decides and runs the call; `waited` is set to the time spent asking the user.
async fn decide_and_execute(
    shared: &ExecutorShared,
    call: &Prepared,
    step: i32,
    sibling_abort: &CancellationToken,
    waited: &mut Duration,
) -> Verdict {
    let tool = match admit(shared, call) {
        Ok(tool) => tool,
        Err(verdict) => return *verdict,
    };
    let permitted = match permit(shared, call, &tool, step, waited).await {
        Ok(permitted) => permitted,
        Err(verdict) => return *verdict,
    };
    let (output, outcome) =
        execute_and_finish(shared, call, &tool, &permitted, step, sibling_abort).await;
    (output, outcome, permitted.decision, permitted.arguments)
}

/// A refused call's verdict (boxed: it is large, and rare).
type Refused = Box<Verdict>;

/// A refused call's verdict: the error the model reads, the outcome and the decision.
fn refused(
    message: String,
    outcome: &'static str,
    decision: &'static str,
    arguments: serde_json::Value,
) -> Refused {
    Box::new((ToolOutput::error(message), outcome, decision, arguments))
}

/// The call's tool, unless the call cannot run at all: arguments that are not JSON or
/// too large, a tool that does not exist, the same call made too often in a row.
fn admit(shared: &ExecutorShared, call: &Prepared) -> Result<Arc<dyn AgentTool>, Refused> {
    let rejected =
        |message: String| refused(message, "rejected", "rejected", call.arguments.clone());
    if let Some(error) = &call.parse_error {
        return Err(rejected(format!(
            "The arguments of this {} call are not valid JSON ({error}). Call the tool again with a complete JSON object.",
            call.name
        )));
    }
    let size = call.arguments.to_string().len();
    if size > shared.config.max_argument_bytes {
        let start: String = call.arguments.to_string().chars().take(200).collect();
        return Err(rejected(format!(
            "The arguments of this {} call are {size} bytes, over the limit of {} bytes, so it did not run. They began: {start}… Call it again with short arguments (put long text in a file and pass its path).",
            call.name, shared.config.max_argument_bytes
        )));
    }
    let Some(tool) = shared.registry.get(&call.name) else {
        return Err(rejected(format!(
            "There is no tool named \"{}\". Available tools: {}.",
            call.name,
            shared.registry.names().join(", ")
        )));
    };
    let threshold = shared.config.duplicate_call_threshold;
    if threshold > 0 && call.repeats >= threshold {
        return Err(refused(
            format!(
                "You have called {} with exactly these arguments {} times in a row; the result will not change. \
                 You are looping: use the results you have, change the arguments, or answer.",
                call.name, call.repeats
            ),
            "rejected",
            "duplicate",
            call.arguments.clone(),
        ));
    }
    Ok(tool)
}

/// A call the rules, the hooks and (when asked) the user let run.
struct Permitted {
    /// The arguments it runs with (a hook may have changed them).
    arguments: serde_json::Value,
    /// allow, or ask-allowed when the user was asked.
    decision: &'static str,
    /// What PreToolUse hooks added for the model to read with the result.
    hook_context: Vec<String>,
}

/// What the permission rules, then the PreToolUse hooks (which may change the
/// arguments or demand permission too), then the user when asked, say of the call.
async fn permit(
    shared: &ExecutorShared,
    call: &Prepared,
    tool: &Arc<dyn AgentTool>,
    step: i32,
    waited: &mut Duration,
) -> Result<Permitted, Refused> {
    let sandbox = shared.context.sandbox();
    let always = tool.always_ask(&call.arguments, &sandbox);
    let ask = match shared
        .permissions
        .check(tool.as_ref(), &call.arguments, always)
    {
        Decision::Allow => None,
        Decision::Deny { reason } => {
            return Err(refused(
                format!("Permission denied for {}: {reason}.", call.name),
                "rejected",
                "deny",
                call.arguments.clone(),
            ));
        }
        Decision::Ask { reason, grants } => Some((reason, grants)),
    };
    let mut permitted = Permitted {
        arguments: call.arguments.clone(),
        decision: "allow",
        hook_context: Vec::new(),
    };
    let ask = match shared.hooks.is_empty() {
        true => ask,
        false => pre_tool_hooks(shared, call, tool, step, ask, &mut permitted).await?,
    };
    if let Some((reason, grants)) = ask {
        ask_user(
            shared,
            call,
            tool,
            &permitted.arguments,
            reason,
            &grants,
            waited,
        )
        .await?;
        permitted.decision = "ask-allowed";
    }
    Ok(permitted)
}

type Ask = Option<(String, Vec<asterism_protocol::PermissionGrant>)>;

/// Runs the PreToolUse hooks: a block refuses the call; changed arguments are checked
/// by the rules again (a hook cannot produce a call the rules refuse) and replace the
/// call's; a hook may demand the user's permission. The question to ask, if any.
async fn pre_tool_hooks(
    shared: &ExecutorShared,
    call: &Prepared,
    tool: &Arc<dyn AgentTool>,
    step: i32,
    mut ask: Ask,
    permitted: &mut Permitted,
) -> Result<Ask, Refused> {
    let context = &shared.context;
    let input = HookInput {
        tool_name: Some(call.name.clone()),
        tool_call_id: Some(call.tool_call_id.clone()),
        tool_input: Some(permitted.arguments.clone()),
        ..HookInput::new(
            HookEvent::PreToolUse,
            &context.session_id,
            &context.agent_name,
        )
    };
    let verdict = shared.hooks.pre_tool_use(input).await;
    for error in verdict.errors {
        notice(shared, step, "hook", error.to_string());
    }
    if let Some(reason) = verdict.block {
        return Err(refused(
            format!("A hook blocked this {} call: {reason}", call.name),
            "rejected",
            "hook-blocked",
            permitted.arguments.clone(),
        ));
    }
    if let Some(mutated) = verdict.arguments {
        let always = tool.always_ask(&mutated, &context.sandbox());
        match shared.permissions.check(tool.as_ref(), &mutated, always) {
            Decision::Deny { reason } => {
                return Err(refused(
                    format!(
                        "Permission denied for {} (arguments changed by a hook): {reason}.",
                        call.name
                    ),
                    "rejected",
                    "deny",
                    mutated,
                ));
            }
            // The changed call is the one asked about.
            Decision::Ask { reason, grants } => ask = Some((reason, grants)),
            Decision::Allow => {}
        }
        permitted.arguments = mutated;
    }
    permitted.hook_context = verdict.context;
    if let Some(reason) = verdict.permission_required {
        let line = tool
            .shell_command(&permitted.arguments)
            .map(|command| crate::security::shell::analyse(&command));
        ask.get_or_insert_with(|| {
            (
                reason,
                crate::permissions::offered_grants(&call.name, line.as_ref()),
            )
        });
    }
    Ok(ask)
}

/// Asks the user (a subagent cannot: refused); what they grant for the session or for
/// good is kept. `waited` is the time the question was open.
async fn ask_user(
    shared: &ExecutorShared,
    call: &Prepared,
    tool: &Arc<dyn AgentTool>,
    arguments: &serde_json::Value,
    mut reason: String,
    grants: &[asterism_protocol::PermissionGrant],
    waited: &mut Duration,
) -> Result<(), Refused> {
    let context = &shared.context;
    let deny = |message: String| refused(message, "rejected", "deny", arguments.clone());
    if context.silent {
        return Err(deny(format!(
            "{} needs the user's permission ({reason}), and a subagent cannot ask. Report this to the main agent instead.",
            call.name
        )));
    }
    if tool.shell_command(arguments).is_some() {
        reason.push_str(&format!(
            " ({})",
            crate::security::confine::confinement().describe()
        ));
    }
    let asked = Instant::now();
    let answer = shared
        .broker
        .ask(
            context.events.as_ref(),
            crate::permissions::PermissionQuestion {
                tool_call_id: &call.tool_call_id,
                tool: &call.name,
                arguments,
                reason: &reason,
                grants,
            },
            &context.cancel,
        )
        .await;
    *waited = asked.elapsed();
    match answer {
        PermissionAnswer::AllowOnce => Ok(()),
        PermissionAnswer::AllowSession { rule } => {
            grant(shared, grants, rule, false).await;
            Ok(())
        }
        PermissionAnswer::AllowAlways { rule } => {
            grant(shared, grants, rule, true).await;
            Ok(())
        }
        PermissionAnswer::NoAnswer { reason } => Err(deny(format!(
            "This {} call was not allowed: {reason}.",
            call.name
        ))),
        PermissionAnswer::Deny { reason } => {
            let why = reason
                .filter(|reason| !reason.trim().is_empty())
                .unwrap_or_else(|| "no reason given".into());
            Err(deny(format!(
                "The user denied this {} call: {why}",
                call.name
            )))
        }
    }
}

/// Runs the permitted call, then makes its output safe to keep and show: secrets
/// scrubbed, an oversized output saved to a file, PostToolUse hooks applied and the
/// hooks' context appended.
async fn execute_and_finish(
    shared: &ExecutorShared,
    call: &Prepared,
    tool: &Arc<dyn AgentTool>,
    permitted: &Permitted,
    step: i32,
    sibling_abort: &CancellationToken,
) -> (ToolOutput, &'static str) {
    let context = &shared.context;
    let (output, outcome) = execute(
        tool.clone(),
        permitted.arguments.clone(),
        context,
        &call.tool_call_id,
        shared.config.tool_timeout,
        sibling_abort,
    )
    .await;
    if output.is_error && tool.causes_sibling_abort() && outcome == "error" {
        sibling_abort.cancel();
    }
    let scrubber = &context.services.scrubber;
    let output = scrub_output(output, scrubber);
    let mut output = persist_if_oversized(
        output,
        &call.tool_call_id,
        shared.config.max_output_chars,
        &crate::security::tool_output_dir(&context.services.data_dir, &context.session_id),
    )
    .await;
    if !shared.hooks.is_empty() {
        let input = HookInput {
            tool_name: Some(call.name.clone()),
            tool_call_id: Some(call.tool_call_id.clone()),
            tool_input: Some(permitted.arguments.clone()),
            tool_output: Some(output.content.clone()),
            tool_is_error: Some(output.is_error),
            ..HookInput::new(
                HookEvent::PostToolUse,
                &context.session_id,
                &context.agent_name,
            )
        };
        let (replaced, errors) = shared.hooks.post_tool_use(input).await;
        for error in errors {
            notice(shared, step, "hook", error.to_string());
        }
        if let Some(replaced) = replaced {
            output.content = scrubber.text(&replaced);
        }
    }
    for extra in &permitted.hook_context {
        output.content.push_str("\n\n[context from a hook] ");
        output.content.push_str(&scrubber.text(extra));
    }
    (output, outcome)
}

/// Grants what the user picked among the offered grants (the first when none was named)
/// for the session, and for good when `always` (stored as a rule). A rule that was not
/// offered is ignored: the answer cannot widen what the card showed.
async fn grant(
    shared: &ExecutorShared,
    offered: &[asterism_protocol::PermissionGrant],
    picked: Option<String>,
    always: bool,
) {
    let chosen = match &picked {
        Some(rule) => offered.iter().find(|grant| grant.rule == *rule),
        None => offered.first(),
    };
    let Some(chosen) = chosen else {
        return;
    };
    let Ok(rule) = Rule::parse(RuleDecision::Allow, &chosen.rule) else {
        return;
    };
    shared.permissions.add_session_rule(rule);
    if always
        && let Err(error) = shared
            .context
            .services
            .store
            .add_permission_rule(&chosen.rule, RuleDecision::Allow.as_str())
            .await
    {
        tracing::warn!(%error, "could not store the permission rule");
    }
}

/// A tool's output with every secret value and private key replaced.
fn scrub_output(mut output: ToolOutput, scrubber: &crate::security::Scrubber) -> ToolOutput {
    scrubber.in_place(&mut output.content);
    if !output.metadata.is_null() {
        output.metadata = scrubber.json(&output.metadata);
    }
    output
}

/// Runs a tool on its own task (a panic becomes an error result) under the timeout;
/// stops it on cancellation unless it blocks interruption, and on sibling abort.
async fn execute(
    tool: Arc<dyn AgentTool>,
    arguments: serde_json::Value,
    template: &ToolContext,
    tool_call_id: &str,
    timeout: Duration,
    sibling_abort: &CancellationToken,
) -> (ToolOutput, &'static str) {
    let mut context = template.clone();
    context.tool_call_id = tool_call_id.to_string();
    let cancel = context.cancel.clone();
    let behavior = tool.interrupt_behavior();
    let name = tool.name().to_string();
    let progress = ProgressSender::new(context.events.clone(), tool_call_id.to_string());
    let mut task = tokio::spawn(async move {
        tool.execute_with_progress(arguments, &context, progress)
            .await
    });
    let interrupted = async {
        match behavior {
            InterruptBehavior::Cancel => tokio::select! {
                () = cancel.cancelled() => "cancelled",
                () = sibling_abort.cancelled() => "aborted",
            },
            InterruptBehavior::Block => std::future::pending().await,
        }
    };
    tokio::select! {
        joined = tokio::time::timeout(timeout, &mut task) => match joined {
            Ok(Ok(output)) => {
                let outcome = if output.is_error { "error" } else { "ok" };
                (output, outcome)
            }
            Ok(Err(join_error)) => (ToolOutput::error(format!("The {name} tool failed unexpectedly: {}", panic_message(join_error))), "error"),
            Err(_) => {
                task.abort();
                (ToolOutput::error(format!("The {name} tool did not finish within {} s and was stopped.", timeout.as_secs())), "timeout")
            }
        },
        why = interrupted => {
            task.abort();
            if why == "cancelled" {
                (ToolOutput::error(format!("The {name} call was cancelled by the user.")), "cancelled")
            } else {
                (ToolOutput::error(format!("The {name} call was stopped because another call of this step failed.")), "aborted")
            }
        }
    }
}

fn panic_message(error: tokio::task::JoinError) -> String {
    if error.is_cancelled() {
        return "it was cancelled".into();
    }
    let payload = error.into_panic();
    payload
        .downcast_ref::<&str>()
        .map(|message| format!("panic: {message}"))
        .or_else(|| {
            payload
                .downcast_ref::<String>()
                .map(|message| format!("panic: {message}"))
        })
        .unwrap_or_else(|| "panic".into())
}

/// Output over `max_chars` is written to the session's own tool-output folder (inside
/// the sandbox, so `read_file` reads it back) under a name of its own, and replaced by a
/// stub naming the file, with a preview.
pub(super) async fn persist_if_oversized(
    output: ToolOutput,
    tool_call_id: &str,
    max_chars: usize,
    folder: &Path,
) -> ToolOutput {
    let total_chars = output.content.chars().count();
    if total_chars <= max_chars {
        return output;
    }
    let safe_id: String = tool_call_id
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '-')
        .take(64)
        .collect();
    let unique = uuid::Uuid::new_v4().simple().to_string();
    let path = folder.join(format!("{safe_id}-{}.txt", &unique[..12]));
    let written = write_private(folder, &path, output.content.as_bytes()).await;
    let preview: String = output.content.chars().take(max_chars.min(1500)).collect();
    let total_lines = output.content.lines().count();
    let content = match written {
        Ok(()) => format!(
            "<persisted-output path=\"{}\" chars=\"{total_chars}\" lines=\"{total_lines}\">\n{preview}\n…\n</persisted-output>\nThe full output ({total_chars} characters, {total_lines} lines) is in the file above: read the rest with read_file on that path (offset and limit for a range).",
            path.display()
        ),
        Err(error) => format!(
            "{preview}\n… [output shortened from {total_chars} characters; saving the rest failed: {error}]"
        ),
    };
    let mut metadata = output.metadata;
    if metadata.is_null() {
        metadata = serde_json::json!({});
    }
    if let Some(object) = metadata.as_object_mut() {
        object.insert("persistedPath".into(), path.display().to_string().into());
    }
    ToolOutput {
        content,
        is_error: output.is_error,
        metadata,
        model_calls: output.model_calls,
    }
}

/// Creates `folder` (owner-only) and writes a new owner-only file.
async fn write_private(folder: &Path, path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    crate::security::files::create_private_dir(folder)?;
    let mut options = tokio::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    options.mode(0o600);
    let mut file = options.open(path).await?;
    use tokio::io::AsyncWriteExt;
    file.write_all(bytes).await?;
    file.flush().await
}

/// Secrets never reach the audit log: values of keys that look like credentials are
/// replaced.
pub fn redact_secrets(value: &serde_json::Value) -> serde_json::Value {
    const SECRET_WORDS: [&str; 7] = [
        "key",
        "token",
        "secret",
        "password",
        "authorization",
        "cookie",
        "credential",
    ];
    match value {
        serde_json::Value::Object(object) => serde_json::Value::Object(
            object
                .iter()
                .map(|(key, value)| {
                    let lower = key.to_lowercase();
                    if SECRET_WORDS.iter().any(|word| lower.contains(word)) {
                        (key.clone(), serde_json::Value::String("***".into()))
                    } else {
                        (key.clone(), redact_secrets(value))
                    }
                })
                .collect(),
        ),
        serde_json::Value::Array(items) => {
            serde_json::Value::Array(items.iter().map(redact_secrets).collect())
        }
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_are_redacted_at_any_depth() {
        let redacted = redact_secrets(
            &serde_json::json!({"name": "M 31", "apiKey": "sk-1", "nested": [{"ADS_API_TOKEN": "t", "path": "a"}]}),
        );
        assert_eq!(
            redacted,
            serde_json::json!({"name": "M 31", "apiKey": "***", "nested": [{"ADS_API_TOKEN": "***", "path": "a"}]})
        );
    }
}
