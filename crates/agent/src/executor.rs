//! Runs the tool calls of one model answer: validate and prepare, announce, run
//! concurrently with a per-call timeout and cancellation, keep oversized output on disk,
//! record audit and metrics, and hand results back in call order.

use std::collections::HashSet;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use asterism_llm::ToolCall;
use asterism_protocol::AgentEvent;
use asterism_store::{AuditRow, MetricRow};
use futures::StreamExt;
use futures::stream::FuturesUnordered;

use crate::{
    AgentConfig, AgentTool, InterruptBehavior, ProgressSender, ToolContext, ToolOutput,
    ToolRegistry,
};

/// One finished call.
#[derive(Debug, Clone, PartialEq)]
pub struct CallResult {
    pub tool_call_id: String,
    pub name: String,
    pub arguments: serde_json::Value,
    pub output: ToolOutput,
    pub duration: Duration,
    /// `ok`, `error`, `cancelled`, `timeout` or `rejected` (never ran).
    pub outcome: &'static str,
}

/// A call after validation: either runnable, or already answered with an error.
struct PreparedCall {
    tool_call_id: String,
    name: String,
    arguments: serde_json::Value,
    tool: Result<Arc<dyn AgentTool>, ToolOutput>,
}

/// Gives every call a non-empty id unique within the answer: models sometimes omit ids
/// or repeat them, and results are matched to calls by id. Run before the answer is
/// stored so history, events and the next request agree.
pub fn assign_call_ids(calls: &mut [ToolCall]) {
    let mut seen = HashSet::new();
    for call in calls {
        let id = call.id.trim();
        if id.is_empty() || !seen.insert(id.to_string()) {
            call.id = format!("call_{}", uuid::Uuid::new_v4().simple());
            seen.insert(call.id.clone());
        }
    }
}

/// Parses arguments and finds the tool of each call.
fn prepare(calls: &[ToolCall], registry: &ToolRegistry) -> Vec<PreparedCall> {
    let mut calls = calls.to_vec();
    assign_call_ids(&mut calls);
    calls
        .iter()
        .map(|call| {
            let tool_call_id = call.id.clone();
            let raw = call.arguments.trim();
            let parsed = if raw.is_empty() { Ok(serde_json::json!({})) } else { serde_json::from_str::<serde_json::Value>(raw) };
            let (arguments, tool) = match parsed {
                Err(error) => (
                    serde_json::Value::String(call.arguments.clone()),
                    Err(ToolOutput::error(format!(
                        "The arguments of this {} call are not valid JSON ({error}). Call the tool again with a complete JSON object.",
                        call.name
                    ))),
                ),
                Ok(arguments) => {
                    let tool = registry.get(&call.name).ok_or_else(|| {
                        ToolOutput::error(format!(
                            "There is no tool named \"{}\". Available tools: {}.",
                            call.name,
                            registry.names().join(", ")
                        ))
                    });
                    (arguments, tool)
                }
            };
            PreparedCall { tool_call_id, name: call.name.clone(), arguments, tool }
        })
        .collect()
}

/// Everything the executor needs besides the calls.
pub struct ExecutionScope<'a> {
    pub registry: &'a ToolRegistry,
    pub config: &'a AgentConfig,
    /// Context template; each call gets a copy with its own `tool_call_id`.
    pub context: &'a ToolContext,
    pub step: i32,
}

/// Runs the calls and returns their results in call order.
pub async fn execute_calls(calls: &[ToolCall], scope: ExecutionScope<'_>) -> Vec<CallResult> {
    let prepared = prepare(calls, scope.registry);
    let context = scope.context;
    for call in &prepared {
        context.events.emit(AgentEvent::ToolCall {
            id: call.tool_call_id.clone(),
            tool_call_id: call.tool_call_id.clone(),
            name: call.name.clone(),
            arguments: call.arguments.clone(),
            step: scope.step,
            agent_name: context.agent_name.clone(),
        });
    }
    let mut results: Vec<Option<CallResult>> = vec![None; prepared.len()];
    let mut running = FuturesUnordered::new();
    for (index, call) in prepared.into_iter().enumerate() {
        match call.tool {
            Err(output) => {
                let result = CallResult {
                    tool_call_id: call.tool_call_id,
                    name: call.name,
                    arguments: call.arguments,
                    output,
                    duration: Duration::ZERO,
                    outcome: "rejected",
                };
                finish_call(&result, &scope);
                results[index] = Some(result);
            }
            Ok(tool) => {
                let mut call_context = context.clone();
                call_context.tool_call_id = call.tool_call_id.clone();
                let timeout = scope.config.tool_timeout;
                running.push(async move {
                    let started = Instant::now();
                    let (output, outcome) =
                        run_one(tool, call.arguments.clone(), call_context, timeout).await;
                    (
                        index,
                        CallResult {
                            tool_call_id: call.tool_call_id,
                            name: call.name,
                            arguments: call.arguments,
                            output,
                            duration: started.elapsed(),
                            outcome,
                        },
                    )
                });
            }
        }
    }
    while let Some((index, mut result)) = running.next().await {
        result.output = persist_if_oversized(
            result.output,
            &result.tool_call_id,
            scope.config.max_output_chars,
            &context.services.data_dir,
        )
        .await;
        finish_call(&result, &scope);
        results[index] = Some(result);
    }
    let results: Vec<CallResult> = results.into_iter().flatten().collect();
    record(&results, &scope).await;
    results
}

/// Emits the ToolResult event of a finished call.
fn finish_call(result: &CallResult, scope: &ExecutionScope<'_>) {
    scope.context.events.emit(AgentEvent::ToolResult {
        id: result.tool_call_id.clone(),
        tool_call_id: result.tool_call_id.clone(),
        name: result.name.clone(),
        output: result.output.content.clone(),
        is_error: result.output.is_error,
        metadata: result.output.metadata.clone(),
        step: scope.step,
        duration_ms: result.duration.as_secs_f64() * 1000.0,
        agent_name: scope.context.agent_name.clone(),
    });
}

/// Runs one call on its own task (a panic becomes an error result), under the timeout,
/// and stops it on cancellation unless the tool blocks interruption.
async fn run_one(
    tool: Arc<dyn AgentTool>,
    arguments: serde_json::Value,
    context: ToolContext,
    timeout: Duration,
) -> (ToolOutput, &'static str) {
    let cancel = context.cancel.clone();
    let behavior = tool.interrupt_behavior();
    let name = tool.name().to_string();
    let progress = ProgressSender::new(context.events.clone(), context.tool_call_id.clone());
    let mut task = tokio::spawn(async move {
        tool.execute_with_progress(arguments, &context, progress)
            .await
    });
    let cancelled = async {
        match behavior {
            InterruptBehavior::Cancel => cancel.cancelled().await,
            InterruptBehavior::Block => std::future::pending().await,
        }
    };
    tokio::select! {
        joined = tokio::time::timeout(timeout, &mut task) => match joined {
            Ok(Ok(output)) => {
                let outcome = if output.is_error { "error" } else { "ok" };
                (output, outcome)
            }
            Ok(Err(join_error)) => (
                ToolOutput::error(format!("The {name} tool failed unexpectedly: {}", panic_message(join_error))),
                "error",
            ),
            Err(_) => {
                task.abort();
                (ToolOutput::error(format!("The {name} tool did not finish within {} s and was stopped.", timeout.as_secs())), "timeout")
            }
        },
        () = cancelled => {
            task.abort();
            (ToolOutput::error(format!("The {name} call was cancelled by the user.")), "cancelled")
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

/// Output over `max_chars` is written once to `{data_dir}/tool-results/{id}.txt` and
/// replaced by a stub naming the file, with a preview.
async fn persist_if_oversized(
    output: ToolOutput,
    tool_call_id: &str,
    max_chars: usize,
    data_dir: &Path,
) -> ToolOutput {
    let total_chars = output.content.chars().count();
    if total_chars <= max_chars {
        return output;
    }
    let safe_id: String = tool_call_id
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '-')
        .collect();
    let folder = data_dir.join("tool-results");
    let path = folder.join(format!("{safe_id}.txt"));
    let written = async {
        tokio::fs::create_dir_all(&folder).await?;
        match tokio::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
            .await
        {
            Ok(mut file) => {
                use tokio::io::AsyncWriteExt;
                file.write_all(output.content.as_bytes()).await?;
                file.flush().await
            }
            Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
            Err(error) => Err(error),
        }
    }
    .await;
    let preview: String = output.content.chars().take(max_chars.min(1500)).collect();
    let content = match written {
        Ok(()) => format!(
            "<persisted-output path=\"{}\" chars=\"{total_chars}\">\n{preview}\n…\n</persisted-output>\nThe full output ({total_chars} characters) is in the file above.",
            path.display()
        ),
        Err(error) => format!(
            "{preview}\n… [output shortened from {total_chars} characters; saving the rest failed: {error}]"
        ),
    };
    let mut metadata = output.metadata;
    if let Some(object) = metadata.as_object_mut() {
        object.insert("persistedPath".into(), path.display().to_string().into());
    }
    ToolOutput {
        content,
        is_error: output.is_error,
        metadata,
    }
}

/// Secrets never reach the audit log: values of keys that look like credentials are
/// replaced.
pub fn redact_secrets(value: &serde_json::Value) -> serde_json::Value {
    const SECRET_WORDS: [&str; 6] = [
        "key",
        "token",
        "secret",
        "password",
        "authorization",
        "cookie",
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

/// Writes the audit and metric rows of the calls; a failure is logged, never fatal.
async fn record(results: &[CallResult], scope: &ExecutionScope<'_>) {
    let context = scope.context;
    let audit: Vec<AuditRow> = results
        .iter()
        .map(|result| AuditRow {
            session_id: context.session_id.clone(),
            agent_name: context.agent_name.clone(),
            tool_call_id: result.tool_call_id.clone(),
            tool: result.name.clone(),
            arguments: redact_secrets(&result.arguments),
            decision: if result.outcome == "rejected" {
                "rejected".into()
            } else {
                "allow".into()
            },
            outcome: result.outcome.into(),
            duration_ms: result.duration.as_secs_f64() * 1000.0,
            error: result
                .output
                .is_error
                .then(|| result.output.content.chars().take(500).collect()),
        })
        .collect();
    let metrics: Vec<MetricRow> = results
        .iter()
        .map(|result| MetricRow {
            session_id: context.session_id.clone(),
            run_id: context.run_id.clone(),
            step: scope.step,
            agent_name: context.agent_name.clone(),
            kind: "tool".into(),
            name: result.name.clone(),
            prompt_tokens: 0,
            completion_tokens: 0,
            duration_ms: result.duration.as_secs_f64() * 1000.0,
        })
        .collect();
    let store = &context.services.store;
    if let Err(error) = store.append_audit(&audit).await {
        tracing::warn!(%error, "could not write the audit log");
    }
    if let Err(error) = store.append_metrics(&metrics).await {
        tracing::warn!(%error, "could not write tool metrics");
    }
}
