//! Runs the tool calls of one model answer, in the seed's order: validate and prepare
//! (unique ids, duplicate-call detector, argument JSON, unknown tools), announce
//! (`ToolCall`), permissions, PreToolUse hooks, run (concurrency-safe calls beside each
//! other, any other call alone and in call order; per-call timeout,
//! cancellation by token honouring [`InterruptBehavior`], sibling abort), keep oversized
//! output on disk, PostToolUse hooks, announce (`ToolResult`), record audit and metrics.
//! Results come back in call order whatever order they finish in.
//!
//! A [`StepExecutor`] can start each call as soon as its arguments are complete in the
//! model's stream (the streaming executor) or after the answer is complete.

mod pipeline;

use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use asterism_llm::ToolCall;
use asterism_protocol::AgentEvent;
use asterism_store::{AuditRow, MetricRow};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::hooks::HookRegistry;
use crate::permissions::{PermissionBroker, PermissionChecker};
use crate::persist::Persister;
use crate::{AgentConfig, ToolContext, ToolOutput, ToolRegistry};

pub use pipeline::redact_secrets;

/// One finished call.
#[derive(Debug, Clone, PartialEq)]
pub struct CallResult {
    pub tool_call_id: String,
    pub name: String,
    pub arguments: serde_json::Value,
    pub output: ToolOutput,
    /// How long it ran (its own time, without `waited`).
    pub duration: Duration,
    /// How long it waited for the user's permission.
    pub waited: Duration,
    /// `ok`, `error`, `cancelled`, `timeout`, `aborted` or `rejected` (never ran).
    pub outcome: &'static str,
    /// `allow`, `ask-allowed`, `deny`, `hook-blocked`, `duplicate` or `rejected`.
    pub decision: &'static str,
    /// When the call finished (results are stored in this order).
    pub finished_at: std::time::Instant,
}

/// Notices repeated identical calls: the same tool with the same arguments `threshold`
/// times in a row is refused with a message telling the model it is looping.
#[derive(Debug, Default)]
pub struct DuplicateDetector {
    last: Option<(String, String)>,
    repeats: usize,
}

impl DuplicateDetector {
    /// Records a call; returns how many times in a row it has now been made.
    pub fn record(&mut self, name: &str, arguments: &serde_json::Value) -> usize {
        let key = (name.to_string(), arguments.to_string());
        if self.last.as_ref() == Some(&key) {
            self.repeats += 1;
        } else {
            self.last = Some(key);
            self.repeats = 1;
        }
        self.repeats
    }
}

/// What every call of a run shares.
pub struct ExecutorShared {
    pub registry: Arc<ToolRegistry>,
    pub config: AgentConfig,
    pub permissions: Arc<PermissionChecker>,
    pub broker: Arc<PermissionBroker>,
    pub hooks: Arc<HookRegistry>,
    pub persister: Persister,
    /// Context template; each call gets a copy with its own `tool_call_id`.
    pub context: ToolContext,
    pub duplicates: Mutex<DuplicateDetector>,
}

/// The calls of one step.
pub struct StepExecutor {
    shared: Arc<ExecutorShared>,
    step: i32,
    seen_ids: HashSet<String>,
    started: Vec<(ToolCall, JoinHandle<CallResult>)>,
    /// Fired when each started call has finished, in call order.
    done: Vec<CancellationToken>,
    /// The last call that may not run beside others.
    last_exclusive: Option<usize>,
    sibling_abort: CancellationToken,
}

impl StepExecutor {
    pub fn new(shared: Arc<ExecutorShared>, step: i32) -> Self {
        Self {
            shared,
            step,
            seen_ids: HashSet::new(),
            started: Vec::new(),
            done: Vec::new(),
            last_exclusive: None,
            sibling_abort: CancellationToken::new(),
        }
    }

    /// The tools this step may call (the model is offered these).
    pub fn registry(&self) -> &ToolRegistry {
        &self.shared.registry
    }

    /// How many calls have been started.
    pub fn started(&self) -> usize {
        self.started.len()
    }

    /// Starts a call now: its id is made unique and non-empty, `ToolCall` is emitted and
    /// the pipeline runs on its own task.
    pub fn start(&mut self, mut call: ToolCall) {
        let id = call.id.trim();
        if id.is_empty() || self.seen_ids.contains(id) {
            call.id = format!("call_{}", uuid::Uuid::new_v4().simple());
        }
        self.seen_ids.insert(call.id.clone());
        let raw = call.arguments.trim();
        let parsed = if raw.is_empty() {
            Ok(serde_json::json!({}))
        } else {
            serde_json::from_str::<serde_json::Value>(raw)
        };
        let arguments = parsed
            .as_ref()
            .cloned()
            .unwrap_or_else(|_| serde_json::Value::String(call.arguments.clone()));
        let repeats = match &parsed {
            Ok(arguments) => self
                .shared
                .duplicates
                .lock()
                .map(|mut detector| detector.record(&call.name, arguments))
                .unwrap_or(1),
            Err(_) => 1,
        };
        let context = &self.shared.context;
        context.events.emit(AgentEvent::ToolCall {
            id: call.id.clone(),
            tool_call_id: call.id.clone(),
            name: call.name.clone(),
            arguments: arguments.clone(),
            step: self.step,
            agent_name: context.agent_name.clone(),
        });
        let prepared = pipeline::Prepared {
            tool_call_id: call.id.clone(),
            name: call.name.clone(),
            arguments,
            parse_error: parsed.err().map(|error| error.to_string()),
            repeats,
        };
        // A call that is not concurrency-safe waits for every call before it and holds
        // back every call after it; safe calls run beside each other.
        let exclusive = prepared.parse_error.is_none()
            && self
                .shared
                .registry
                .get(&prepared.name)
                .is_some_and(|tool| !tool.is_concurrency_safe(&prepared.arguments));
        let waits: Vec<CancellationToken> = if exclusive {
            self.done.clone()
        } else {
            self.last_exclusive
                .map(|index| self.done[index].clone())
                .into_iter()
                .collect()
        };
        if exclusive {
            self.last_exclusive = Some(self.done.len());
        }
        let done = CancellationToken::new();
        self.done.push(done.clone());
        let task = tokio::spawn(pipeline::run(
            self.shared.clone(),
            prepared,
            self.step,
            self.sibling_abort.clone(),
            pipeline::Turn { waits, done },
        ));
        self.started.push((call, task));
    }

    /// Starts the calls of `calls` not started yet (those the stream did not announce
    /// early; the stream announces calls in order, so they are the tail).
    pub fn start_remaining(&mut self, calls: &[ToolCall]) {
        for call in calls.iter().skip(self.started.len()) {
            self.start(call.clone());
        }
    }

    /// The started calls with their final ids, in call order.
    pub fn calls(&self) -> Vec<ToolCall> {
        self.started.iter().map(|(call, _)| call.clone()).collect()
    }

    /// Waits for every started call, records audit and metrics, and returns the results
    /// in call order.
    pub async fn finish(self) -> Vec<CallResult> {
        let mut results = Vec::with_capacity(self.started.len());
        for (call, task) in self.started {
            results.push(match task.await {
                Ok(result) => result,
                Err(error) => CallResult {
                    tool_call_id: call.id.clone(),
                    name: call.name.clone(),
                    arguments: serde_json::Value::Null,
                    output: ToolOutput::error(format!(
                        "The {} call failed unexpectedly: {error}",
                        call.name
                    )),
                    duration: Duration::ZERO,
                    waited: Duration::ZERO,
                    outcome: "error",
                    decision: "allow",
                    finished_at: std::time::Instant::now(),
                },
            });
        }
        record(&results, &self.shared, self.step);
        results
    }
}

/// Arguments longer than this (bytes of JSON) are kept in the audit log as a digest and
/// their first KiB: the assistant message already stores them whole, once.
pub const AUDIT_ARGUMENT_BYTES: usize = 4096;

/// What the audit row keeps of a call's arguments.
fn audit_arguments(arguments: &serde_json::Value) -> serde_json::Value {
    let text = arguments.to_string();
    if text.len() <= AUDIT_ARGUMENT_BYTES {
        return arguments.clone();
    }
    use sha2::Digest;
    let digest = sha2::Sha256::digest(text.as_bytes());
    let hex: String = digest.iter().map(|byte| format!("{byte:02x}")).collect();
    let start: String = text.chars().take(1024).collect();
    serde_json::json!({"sha256": hex, "bytes": text.len(), "start": start})
}

/// Hands the audit and metric rows of the calls to the writer.
fn record(results: &[CallResult], shared: &ExecutorShared, step: i32) {
    let context = &shared.context;
    shared.persister.audit(
        results
            .iter()
            .map(|result| AuditRow {
                session_id: context.session_id.clone(),
                agent_name: context.agent_name.clone(),
                tool_call_id: result.tool_call_id.clone(),
                tool: result.name.clone(),
                arguments: audit_arguments(
                    &context
                        .services
                        .scrubber
                        .json(&redact_secrets(&result.arguments)),
                ),
                decision: result.decision.into(),
                outcome: result.outcome.into(),
                duration_ms: result.duration.as_secs_f64() * 1000.0,
                error: result
                    .output
                    .is_error
                    .then(|| result.output.content.chars().take(500).collect()),
            })
            .collect(),
    );
    let ms = |duration: Duration| duration.as_secs_f64() * 1000.0;
    let row = |kind: &str, name: &str, via: Option<&str>, duration_ms: f64| MetricRow {
        session_id: context.session_id.clone(),
        run_id: context.run_id.clone(),
        step,
        agent_name: context.agent_name.clone(),
        kind: kind.into(),
        name: name.into(),
        via: via.map(str::to_string),
        prompt_tokens: 0,
        completion_tokens: 0,
        duration_ms,
    };
    let mut rows = Vec::new();
    for result in results {
        if !result.waited.is_zero() {
            rows.push(row("wait", &result.name, None, ms(result.waited)));
        }
        if result.outcome != "rejected" {
            rows.push(row("tool", &result.name, None, ms(result.duration)));
        }
        for call in &result.output.model_calls {
            rows.push(MetricRow {
                prompt_tokens: call.usage.prompt_tokens,
                completion_tokens: call.usage.completion_tokens,
                ..row("model", &call.model, Some(&result.name), call.latency_ms)
            });
        }
    }
    shared.persister.metrics(rows);
}
