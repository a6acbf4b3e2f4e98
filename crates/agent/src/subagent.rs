//! Subagents: a ReAct loop of their own, with an isolated conversation (only the task
//! goes in, only the summary comes out), the parent's tools minus those that reach the
//! user or start more agents, the parent's permission rules (silent: what would need
//! asking is refused), and their own name on every event and stored row. The timeline
//! nests them between `SubagentStarted` and `SubagentFinished`.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use asterism_llm::ChatMessage;
use asterism_protocol::{AgentEvent, RunFinishReason, TokenUsage};
use asterism_store::MessageRole;

use crate::compaction::CompactionRequest;
use crate::executor::{DuplicateDetector, ExecutorShared};
use crate::history::RowScope;
use crate::hooks::{HookEvent, HookInput, HookRegistry};
use crate::permissions::PermissionChecker;
use crate::persist::Persister;
use crate::runtime::{Run, RunOutcome};
use crate::{AgentRuntime, EventSink, ToolContext, ToolOutput};

/// Steps a subagent gets unless asked otherwise, and the most it may be given.
pub const DEFAULT_MAX_STEPS: usize = 5;
pub const MAX_STEPS_LIMIT: usize = 10;

/// Tools only the main agent has: asking the user, asking for permissions, starting
/// agents.
pub const PARENT_ONLY: &[&str] = &[
    "ask_user",
    "request_permission",
    "subagent",
    "spawn_teammate",
];

/// What to run.
#[derive(Debug, Clone)]
pub struct SubagentSpec {
    /// Unique within the run (see [`SubagentLauncher::unique_name`]).
    pub name: String,
    pub task: String,
    /// Extra instructions (a skill's text) for its system prompt.
    pub instructions: Option<String>,
    pub max_steps: usize,
    /// Restricts its tools further (a skill's allowed-tools); `None` = all it may have.
    pub allowed_tools: Option<Vec<String>>,
}

/// How a subagent's work ended.
#[derive(Debug, Clone)]
pub struct SubagentReport {
    pub name: String,
    pub reason: RunFinishReason,
    pub steps: i32,
    /// Its last answer text.
    pub answer: String,
    pub error: Option<String>,
    /// One line per thought and per tool call, in order.
    pub activity: Vec<String>,
    pub usage: TokenUsage,
    pub max_steps: usize,
}

impl SubagentReport {
    /// What the parent reads: the summary (or why there is none), then the activity.
    pub fn summary(&self) -> String {
        match self.reason {
            RunFinishReason::Completed => self.answer.clone(),
            RunFinishReason::MaxSteps => format!(
                "The subagent stopped at its limit of {} steps before finishing. What it had so far: {}",
                self.max_steps,
                if self.answer.is_empty() {
                    "nothing written yet (see its activity)."
                } else {
                    self.answer.as_str()
                }
            ),
            RunFinishReason::Cancelled => "The subagent was cancelled.".into(),
            RunFinishReason::Failed => format!(
                "The subagent failed: {}",
                self.error.as_deref().unwrap_or("unknown error")
            ),
        }
    }

    pub fn to_tool_output(&self) -> ToolOutput {
        let mut text = self.summary();
        text.push_str(&format!(
            "\n\n[Activity of subagent {} ({} step{})]",
            self.name,
            self.steps,
            if self.steps == 1 { "" } else { "s" }
        ));
        for line in &self.activity {
            text.push_str("\n- ");
            text.push_str(line);
        }
        let output = if matches!(
            self.reason,
            RunFinishReason::Failed | RunFinishReason::Cancelled
        ) {
            ToolOutput::error(text)
        } else {
            ToolOutput::ok(text)
        };
        output.with_metadata(serde_json::json!({
            "agentName": self.name,
            "reason": self.reason,
            "steps": self.steps,
            "maxSteps": self.max_steps,
            "usage": self.usage,
        }))
    }
}

/// What a tool needs to start a subagent from inside a run.
#[derive(Clone)]
pub struct SubagentLauncher {
    pub(crate) runtime: AgentRuntime,
    pub(crate) persister: Persister,
    pub(crate) permissions: Arc<PermissionChecker>,
    pub(crate) hooks: Arc<HookRegistry>,
    pub(crate) enable_thinking: bool,
    /// Names given out in this run.
    pub(crate) names: Arc<Mutex<Vec<String>>>,
    pub(crate) counter: Arc<AtomicUsize>,
}

/// Lower-case letters, digits and dashes, at most 32 characters.
fn clean_name(name: &str) -> String {
    let cleaned: String = name
        .trim()
        .to_lowercase()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    let cleaned = cleaned.trim_matches('-').to_string();
    cleaned.chars().take(32).collect()
}

/// Records thoughts and tool calls of one agent while passing every event on.
struct ActivitySink {
    inner: Arc<dyn EventSink>,
    agent_name: String,
    log: Mutex<Activity>,
}

#[derive(Default)]
struct Activity {
    lines: Vec<String>,
    thinking: String,
    thinking_step: i32,
}

fn shorten(text: &str, limit: usize) -> String {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() <= limit {
        flat
    } else {
        format!("{}…", flat.chars().take(limit).collect::<String>())
    }
}

impl Activity {
    fn flush_thinking(&mut self) {
        if !self.thinking.trim().is_empty() {
            let line = format!(
                "step {} thought: {}",
                self.thinking_step,
                shorten(&self.thinking, 200)
            );
            self.lines.push(line);
        }
        self.thinking.clear();
    }
}

impl EventSink for ActivitySink {
    fn emit(&self, event: AgentEvent) {
        if let Ok(mut log) = self.log.lock() {
            match &event {
                AgentEvent::Thinking {
                    delta,
                    step,
                    agent_name,
                } if *agent_name == self.agent_name => {
                    if *step != log.thinking_step {
                        log.flush_thinking();
                        log.thinking_step = *step;
                    }
                    log.thinking.push_str(delta);
                }
                AgentEvent::ToolResult {
                    name,
                    output,
                    is_error,
                    step,
                    agent_name,
                    ..
                } if *agent_name == self.agent_name => {
                    log.flush_thinking();
                    let mark = if *is_error { "error" } else { "ok" };
                    let line = format!("step {step}: {name} → {mark}: {}", shorten(output, 120));
                    log.lines.push(line);
                }
                _ => {}
            }
        }
        self.inner.emit(event);
    }
}

impl SubagentLauncher {
    /// A name for a new subagent: the one asked for (cleaned), made unique in the run.
    pub fn unique_name(&self, wanted: Option<&str>) -> String {
        let base = wanted
            .map(clean_name)
            .filter(|name| !name.is_empty() && name != "main");
        let Ok(mut names) = self.names.lock() else {
            return format!("subagent-{}", uuid::Uuid::new_v4().simple());
        };
        let name = match base {
            Some(base) if !names.contains(&base) => base,
            Some(base) => {
                let mut n = 2;
                while names.contains(&format!("{base}-{n}")) {
                    n += 1;
                }
                format!("{base}-{n}")
            }
            None => {
                let n = self.counter.fetch_add(1, Ordering::Relaxed) + 1;
                let mut name = format!("subagent-{n}");
                while names.contains(&name) {
                    name.push('x');
                }
                name
            }
        };
        names.push(name.clone());
        name
    }

    /// Runs a subagent to the end and reports what it did. Its events go to the
    /// parent's sink; its messages are stored under its name.
    pub async fn run(&self, spec: SubagentSpec, parent: &ToolContext) -> SubagentReport {
        let activity = Arc::new(ActivitySink {
            inner: parent.events.clone(),
            agent_name: spec.name.clone(),
            log: Mutex::default(),
        });
        let sink: Arc<dyn EventSink> = activity.clone();
        let run = Run {
            rows: RowScope {
                session_id: parent.session_id.clone(),
                run_id: parent.run_id.clone(),
                agent_name: spec.name.clone(),
            },
            sink: &sink,
            cancel: &parent.cancel,
            persister: self.persister.clone(),
            enable_thinking: self.enable_thinking,
            first_tool: None,
        };
        let system = self.start(&run, &spec, parent);
        let compaction = CompactionRequest::default();
        let shared = self.executor_for(&spec, parent, &sink, &compaction);
        let mut outcome = RunOutcome {
            session_id: parent.session_id.clone(),
            reason: RunFinishReason::Failed,
            usage: TokenUsage::default(),
            steps: 0,
            error: None,
            answer: String::new(),
            busy_pid: None,
        };
        let max_steps = spec.max_steps.clamp(1, MAX_STEPS_LIMIT);
        let mut conversation = vec![ChatMessage::User {
            content: spec.task.clone(),
        }];
        self.runtime
            .react(
                &run,
                &system,
                &mut conversation,
                &shared,
                &compaction,
                i32::try_from(max_steps).unwrap_or(i32::MAX),
                &mut outcome,
            )
            .await;
        let activity_lines = activity
            .log
            .lock()
            .map(|mut log| {
                log.flush_thinking();
                std::mem::take(&mut log.lines)
            })
            .unwrap_or_default();
        let report = SubagentReport {
            name: spec.name.clone(),
            reason: outcome.reason,
            steps: outcome.steps,
            answer: outcome.answer,
            error: outcome.error,
            activity: activity_lines,
            usage: outcome.usage,
            max_steps,
        };
        self.finish(&run, parent, report).await
    }

    /// Shows and stores that the subagent started, with its system prompt and task; the
    /// system prompt.
    fn start(&self, run: &Run<'_>, spec: &SubagentSpec, parent: &ToolContext) -> String {
        let started = AgentEvent::SubagentStarted {
            agent_name: spec.name.clone(),
            parent: parent.agent_name.clone(),
            task: spec.task.clone(),
        };
        self.runtime.store_event(run, 0, &started, None);
        run.sink.emit(started);
        let system = crate::prompt::subagent_prompt(
            &chrono::Utc::now().format("%Y-%m-%d").to_string(),
            &spec.name,
            spec.instructions.as_deref(),
        );
        let mut task_row = run.rows.row(0, MessageRole::User, spec.task.clone());
        task_row.metadata = serde_json::json!({"subagentTask": true, "parent": parent.agent_name});
        self.persister.messages(vec![
            run.rows.row(0, MessageRole::System, system.clone()),
            task_row,
        ]);
        system
    }

    /// What the subagent's tool calls run with: the parent's tools less those only the
    /// parent may use (and those `allowed_tools` leaves out), its rules and hooks, its
    /// context under the subagent's name, silently, without subagents of its own.
    fn executor_for(
        &self,
        spec: &SubagentSpec,
        parent: &ToolContext,
        sink: &Arc<dyn EventSink>,
        compaction: &CompactionRequest,
    ) -> Arc<ExecutorShared> {
        let runtime = &self.runtime;
        let registry = Arc::new(runtime.registry().filtered(|name| {
            !PARENT_ONLY.contains(&name)
                && spec
                    .allowed_tools
                    .as_ref()
                    .is_none_or(|allowed| allowed.iter().any(|tool| tool == name))
        }));
        Arc::new(ExecutorShared {
            registry,
            config: runtime.config().clone(),
            permissions: self.permissions.clone(),
            broker: runtime.broker().clone(),
            hooks: self.hooks.clone(),
            persister: self.persister.clone(),
            context: ToolContext {
                agent_name: spec.name.clone(),
                tool_call_id: String::new(),
                silent: true,
                events: sink.clone(),
                compaction: compaction.clone(),
                subagents: None,
                ..parent.clone()
            },
            duplicates: Mutex::new(DuplicateDetector::default()),
        })
    }

    /// Runs the SubagentStop hooks, then shows and stores that it finished.
    async fn finish(
        &self,
        run: &Run<'_>,
        parent: &ToolContext,
        report: SubagentReport,
    ) -> SubagentReport {
        let stop = HookInput::new(HookEvent::SubagentStop, &parent.session_id, &report.name);
        let (_, errors) = self.hooks.notify(stop).await;
        for error in errors {
            self.runtime
                .notice(run, report.steps, "hook", error.to_string());
        }
        let finished = AgentEvent::SubagentFinished {
            agent_name: report.name.clone(),
            summary: report.summary(),
            reason: report.reason,
            steps: report.steps,
        };
        self.runtime.store_event(run, report.steps, &finished, None);
        run.sink.emit(finished);
        report
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_cleaned_and_shortened() {
        assert_eq!(clean_name("  Literature Scout! "), "literature-scout");
        assert_eq!(clean_name("../../etc"), "etc");
        assert_eq!(clean_name(&"a".repeat(50)).len(), 32);
        assert_eq!(shorten("a  b\n c", 10), "a b c");
        assert_eq!(shorten("abcdef", 3), "abc…");
    }
}
