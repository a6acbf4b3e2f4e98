//! The ReAct loop: stream the model's answer, run the tools it calls, repeat until it
//! answers without tools, `max_steps` is reached, or the run is cancelled. Compaction
//! runs between steps; every message is handed to the write-behind persister.

mod compact;
mod ending;
mod extract;
mod step;

pub use extract::MEMORY_AGENT;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use asterism_llm::{ChatMessage, ChatModel, LlmError};
use asterism_protocol::{AgentEvent, MAIN_AGENT, RunFinishReason, TokenUsage};
use asterism_store::{MessageRole, MetricRow, StoreError};
use tokio_util::sync::CancellationToken;

use crate::compaction::{CompactionRequest, ContextWatch};
use crate::executor::{DuplicateDetector, ExecutorShared, StepExecutor};
use crate::history::{RowScope, conversation_from};
use crate::hooks::{HookEvent, HookInput, HookRegistry};
use crate::permissions::{
    PermissionBroker, PermissionChecker, PermissionGate, PermissionMode, Rule, RuleDecision,
};
use crate::persist::Persister;
use crate::{AgentConfig, EventSink, Services, ToolContext, ToolRegistry};

use step::StepOutcome;

/// The grants of one session, shared by its runs.
type SessionGrants = Arc<Mutex<Vec<Rule>>>;

/// What to run.
#[derive(Debug, Clone, PartialEq)]
pub struct RunRequest {
    /// Continue this session; `None` starts a new one.
    pub session_id: Option<String>,
    pub question: String,
    pub enable_thinking: bool,
    /// A tool the first step must call (`tool_choice`), for a model that does not pick
    /// tools itself (`ask --tool`); `None` leaves every step to the model.
    pub first_tool: Option<String>,
}

/// How a run ended.
#[derive(Debug, Clone, PartialEq)]
pub struct RunOutcome {
    pub session_id: String,
    pub reason: RunFinishReason,
    pub usage: TokenUsage,
    pub steps: i32,
    /// The error that ended a failed run.
    pub error: Option<String>,
    /// The final answer text (the last step's text).
    pub answer: String,
    /// Set when the session was busy in another run (its pid): nothing was done.
    pub busy_pid: Option<u32>,
}

/// The agent: a model, tools, services and the rules they run under.
#[derive(Clone)]
pub struct AgentRuntime {
    services: Arc<Services>,
    model: Arc<dyn ChatModel>,
    registry: Arc<ToolRegistry>,
    config: AgentConfig,
    broker: Arc<PermissionBroker>,
    questions: Arc<crate::questions::QuestionBroker>,
    mode: PermissionMode,
    rules: Vec<Rule>,
    grants: Vec<Rule>,
    hooks: HookRegistry,
    /// Wait for a session busy in another run instead of refusing (`ask --wait`).
    wait_for_session: bool,
    /// Rules granted "for this session", by session id.
    session_rules: Arc<Mutex<HashMap<String, SessionGrants>>>,
    /// Manual compaction flags, by session id.
    compaction_requests: Arc<Mutex<HashMap<String, CompactionRequest>>>,
}

/// Everything one run carries around.
pub(crate) struct Run<'a> {
    pub rows: RowScope,
    pub sink: &'a Arc<dyn EventSink>,
    pub cancel: &'a CancellationToken,
    pub persister: Persister,
    pub enable_thinking: bool,
    /// The tool the first step must call (the main agent's, from the request).
    pub first_tool: Option<String>,
}

impl AgentRuntime {
    pub fn new(
        services: Arc<Services>,
        model: Arc<dyn ChatModel>,
        mut registry: ToolRegistry,
        config: AgentConfig,
    ) -> Self {
        // The runtime adds what needs its own state on top of the registry, as the seed
        // adds save_memory: remembering, and asking the user for a missing permission.
        registry.add_tool(Arc::new(crate::tools::SaveMemoryTool));
        registry.add_tool(Arc::new(crate::tools::RequestPermissionTool));
        // A model that takes images may look at a paper's figure (asking the user first).
        if services.vision {
            registry.add_tool(Arc::new(crate::tools::ViewFigureTool));
        }
        let broker = PermissionBroker::new(config.permission_timeout, true);
        Self {
            services,
            model,
            registry: Arc::new(registry),
            config,
            broker,
            questions: Arc::new(crate::questions::QuestionBroker::default()),
            mode: PermissionMode::Default,
            rules: Vec::new(),
            grants: Vec::new(),
            hooks: HookRegistry::new(),
            wait_for_session: false,
            session_rules: Arc::default(),
            compaction_requests: Arc::default(),
        }
    }

    /// Uses this broker for permission requests (the app and CLI keep it to answer).
    pub fn with_broker(mut self, broker: Arc<PermissionBroker>) -> Self {
        self.broker = broker;
        self
    }

    /// Uses this broker for ask_user (the app and CLI keep it to answer).
    pub fn with_questions(mut self, questions: Arc<crate::questions::QuestionBroker>) -> Self {
        self.questions = questions;
        self
    }

    pub fn questions(&self) -> &Arc<crate::questions::QuestionBroker> {
        &self.questions
    }

    pub fn with_permission_mode(mut self, mode: PermissionMode) -> Self {
        self.mode = mode;
        self
    }

    /// Adds rules on top of the stored ones (Deny > Ask > Allow).
    pub fn with_rules(mut self, rules: Vec<Rule>) -> Self {
        self.rules.extend(rules);
        self
    }

    /// Answers permission questions in advance, as "allow for this session" does (the
    /// CLI's `--allow RULE`): a call they match runs instead of asking. A Deny still wins.
    pub fn with_grants(mut self, grants: Vec<Rule>) -> Self {
        self.grants.extend(grants);
        self
    }

    /// Waits for a session that another run holds instead of refusing at once.
    pub fn with_wait_for_session(mut self, wait: bool) -> Self {
        self.wait_for_session = wait;
        self
    }

    /// Hooks registered in code, run before those of `hooks.json`.
    pub fn with_hooks(mut self, hooks: HookRegistry) -> Self {
        self.hooks = hooks;
        self
    }

    pub fn services(&self) -> &Arc<Services> {
        &self.services
    }

    pub fn model(&self) -> &Arc<dyn ChatModel> {
        &self.model
    }

    pub fn registry(&self) -> &ToolRegistry {
        &self.registry
    }

    /// The run's tools: the registry's, and those of the MCP servers (started on first
    /// use); a server that cannot start is a notice, and the run goes on without it.
    async fn registry_with_mcp(&self, run: &Run<'_>) -> Arc<ToolRegistry> {
        if self.services.mcp.is_empty() {
            return self.registry.clone();
        }
        let (tools, notices) = self.services.mcp.tools().await;
        for notice in notices {
            self.notice(run, 0, "mcp", notice);
        }
        let mut registry = (*self.registry).clone();
        for tool in tools {
            registry.add_tool(tool);
        }
        Arc::new(registry)
    }

    pub fn broker(&self) -> &Arc<PermissionBroker> {
        &self.broker
    }

    pub fn config(&self) -> &AgentConfig {
        &self.config
    }

    /// The manual-compaction flag of a session (what `compress_context` sets).
    pub fn compaction_request(&self, session_id: &str) -> CompactionRequest {
        self.compaction_requests
            .lock()
            .map(|mut requests| requests.entry(session_id.to_string()).or_default().clone())
            .unwrap_or_default()
    }

    fn session_rules(&self, session_id: &str) -> SessionGrants {
        self.session_rules
            .lock()
            .map(|mut rules| rules.entry(session_id.to_string()).or_default().clone())
            .unwrap_or_default()
    }

    /// Runs the agent on a question. Every event goes to `sink`; every message is stored
    /// before the run returns (write-behind, flushed at the end and on cancellation).
    pub async fn run(
        &self,
        request: RunRequest,
        sink: Arc<dyn EventSink>,
        cancel: CancellationToken,
    ) -> RunOutcome {
        let session_id = request
            .session_id
            .clone()
            .unwrap_or_else(crate::new_session_id);
        // Nothing leaves the run with a secret value in it: not the events, not the rows.
        let sink = crate::security::ScrubbingSink::wrap(sink, &self.services.scrubber);
        let run_id = uuid::Uuid::new_v4().to_string();
        // One run per session, across processes: nothing is written before the lease.
        let lease = match crate::lease::SessionLease::take(
            &self.services.store,
            &session_id,
            &run_id,
            self.wait_for_session,
            &cancel,
        )
        .await
        {
            Ok(lease) => lease,
            Err(error) => return self.not_started(&session_id, &sink, error),
        };
        let run = Run {
            rows: RowScope {
                session_id: session_id.clone(),
                run_id,
                agent_name: MAIN_AGENT.to_string(),
            },
            sink: &sink,
            cancel: &cancel,
            persister: Persister::start(
                self.services.store.clone(),
                self.services.scrubber.clone(),
            ),
            enable_thinking: request.enable_thinking,
            first_tool: request.first_tool.clone(),
        };
        let mut outcome = RunOutcome {
            session_id: session_id.clone(),
            reason: RunFinishReason::Failed,
            usage: TokenUsage::default(),
            steps: 0,
            error: None,
            answer: String::new(),
            busy_pid: None,
        };
        // A broken hooks.json is reported once the question is stored (see run_inner).
        let (hooks, hooks_problem) = self.load_hooks();
        if let Err(error) = self
            .run_inner(&request, &run, (&hooks, hooks_problem), &mut outcome)
            .await
        {
            self.fail_storage(&run, &mut outcome, error.to_string());
        }
        let (_, hook_errors) = hooks
            .notify(HookInput::new(HookEvent::Stop, &session_id, MAIN_AGENT))
            .await;
        for error in hook_errors {
            self.notice(&run, outcome.steps, "hook", error.to_string());
        }
        let errors = run.persister.flush().await;
        if !errors.is_empty() {
            self.fail_storage(&run, &mut outcome, errors.join("; "));
        }
        let finished = AgentEvent::RunFinished {
            session_id: session_id.clone(),
            reason: outcome.reason,
            usage: outcome.usage,
            steps: outcome.steps,
            finished_at: asterism_store::now_rfc3339(),
        };
        self.store_event(&run, outcome.steps, &finished, None);
        sink.emit(finished);
        let _ = run.persister.flush().await;
        if let Err(error) = self.services.store.touch_session(&session_id).await {
            tracing::warn!(%error, "could not update the session time");
        }
        lease.release().await;
        outcome.error = outcome
            .error
            .map(|error| self.services.scrubber.text(&error));
        outcome
    }

    /// Code hooks plus those of `{data_dir}/hooks.json`; a broken file is reported and
    /// ignored.
    fn load_hooks(&self) -> (HookRegistry, Option<String>) {
        let mut hooks = self.hooks.clone();
        match HookRegistry::load(&self.services.data_dir.join("hooks.json")) {
            Ok(user_hooks) => {
                hooks.extend(user_hooks);
                (hooks, None)
            }
            Err(error) => (hooks, Some(format!("Hooks disabled for this run: {error}"))),
        }
    }

    async fn permission_checker(&self, run: &Run<'_>) -> PermissionChecker {
        let mut rules = Vec::new();
        match self.services.store.permission_rules().await {
            Ok(stored) => {
                for (text, decision) in stored {
                    let decision = match decision.as_str() {
                        "deny" => RuleDecision::Deny,
                        "ask" => RuleDecision::Ask,
                        _ => RuleDecision::Allow,
                    };
                    match Rule::parse(decision, &text) {
                        Ok(rule) => rules.push(rule),
                        Err(error) => self.notice(
                            run,
                            0,
                            "permissions",
                            format!("A stored permission rule is ignored: {error}"),
                        ),
                    }
                }
            }
            Err(error) => self.notice(
                run,
                0,
                "permissions",
                format!("Stored permission rules could not be read: {error}"),
            ),
        }
        rules.extend(self.rules.iter().cloned());
        let grants = self.session_rules(&run.rows.session_id);
        if let Ok(mut session_grants) = grants.lock() {
            for grant in &self.grants {
                if !session_grants.iter().any(|known| known.text == grant.text) {
                    session_grants.push(grant.clone());
                }
            }
        }
        PermissionChecker::with_session_rules(self.mode, rules, grants)
    }

    async fn run_inner(
        &self,
        request: &RunRequest,
        run: &Run<'_>,
        (hooks, hooks_problem): (&HookRegistry, Option<String>),
        outcome: &mut RunOutcome,
    ) -> Result<(), StoreError> {
        let store = &self.services.store;
        let rows = &run.rows;
        let question = request.question.trim().to_string();
        let is_new = store.session(&rows.session_id).await.is_err();
        store
            .ensure_session(&rows.session_id, &question, self.model.model_name())
            .await?;
        let previous = store.messages(&rows.session_id).await?;
        let mut conversation = conversation_from(&previous, &rows.agent_name);
        let system = self.system_prompt().await;
        if previous.is_empty() {
            run.persister
                .messages(vec![rows.row(0, MessageRole::System, system.clone())]);
        }
        let mut user_row = rows.row(0, MessageRole::User, question.clone());
        user_row.metadata = serde_json::json!({"model": self.model.model_name(), "enableThinking": request.enable_thinking});
        run.persister.messages(vec![user_row]);
        run.sink.emit(AgentEvent::RunStarted {
            run_id: rows.run_id.clone(),
            session_id: rows.session_id.clone(),
            question: question.clone(),
            model: self.model.model_name().to_string(),
            started_at: asterism_store::now_rfc3339(),
        });
        if let Some(problem) = hooks_problem {
            self.notice(run, 0, "hooks", problem);
        }
        if let Some(reason) = self.prompt_hooks(run, hooks, is_new, &question).await {
            outcome.error = Some(reason);
            return Ok(());
        }
        conversation.push(crate::history::cut_for_model(ChatMessage::User {
            content: question,
        }));
        let compaction = self.compaction_request(&rows.session_id);
        let shared = self.executor_shared(request, run, hooks, &compaction).await;
        let max_steps = i32::try_from(self.config.max_steps).unwrap_or(i32::MAX);
        self.react(
            run,
            &system,
            &mut conversation,
            &shared,
            &compaction,
            max_steps,
            outcome,
        )
        .await;
        if outcome.reason == RunFinishReason::MaxSteps {
            let event = AgentEvent::Error {
                kind: "maxSteps".into(),
                message: format!(
                    "The run stopped after {} steps, its limit, before the model finished.",
                    self.config.max_steps
                ),
                step: outcome.steps,
            };
            self.store_event(run, outcome.steps, &event, None);
            run.sink.emit(event);
        }
        Ok(())
    }

    /// The system prompt of today: the base prompt, the user's memories and, when the
    /// agent can load skills, the skills it has.
    async fn system_prompt(&self) -> String {
        let memories = self
            .services
            .store
            .memories(crate::memory::PROMPT_MEMORIES)
            .await
            .unwrap_or_default();
        let skills = crate::skills::SkillRegistry::load(&self.services.skills_dir());
        crate::prompt::system_prompt(&chrono::Utc::now().format("%Y-%m-%d").to_string())
            + &crate::memory::prompt_section(&memories)
            + &if self.registry.get("load_skill").is_some() {
                skills.prompt_section()
            } else {
                String::new()
            }
    }

    /// SessionStart (for a new session) and UserPromptSubmit hooks; the reason when a
    /// hook blocked the question (said in the timeline and stored).
    async fn prompt_hooks(
        &self,
        run: &Run<'_>,
        hooks: &HookRegistry,
        is_new: bool,
        question: &str,
    ) -> Option<String> {
        let rows = &run.rows;
        if is_new {
            let start = HookInput::new(HookEvent::SessionStart, &rows.session_id, MAIN_AGENT);
            let (_, errors) = hooks.notify(start).await;
            for error in errors {
                self.notice(run, 0, "hook", error.to_string());
            }
        }
        let prompt_input = HookInput {
            prompt: Some(question.to_string()),
            ..HookInput::new(HookEvent::UserPromptSubmit, &rows.session_id, MAIN_AGENT)
        };
        let (blocked, errors) = hooks.notify(prompt_input).await;
        for error in errors {
            self.notice(run, 0, "hook", error.to_string());
        }
        let reason = blocked?;
        let event = AgentEvent::Error {
            kind: "hook".into(),
            message: format!("A hook blocked this question: {reason}"),
            step: 0,
        };
        self.store_event(run, 0, &event, None);
        run.sink.emit(event);
        Some(reason)
    }

    /// What every tool call of this run shares: the tools (with the MCP servers'), the
    /// permission rules, the hooks, and the context tools run in (with the launcher of
    /// subagents).
    async fn executor_shared(
        &self,
        request: &RunRequest,
        run: &Run<'_>,
        hooks: &HookRegistry,
        compaction: &CompactionRequest,
    ) -> Arc<ExecutorShared> {
        let rows = &run.rows;
        let permissions = Arc::new(self.permission_checker(run).await);
        let hooks = Arc::new(hooks.clone());
        let subagents = crate::subagent::SubagentLauncher {
            runtime: self.clone(),
            persister: run.persister.clone(),
            permissions: permissions.clone(),
            hooks: hooks.clone(),
            enable_thinking: request.enable_thinking,
            names: Arc::default(),
            counter: Arc::default(),
        };
        let registry = self.registry_with_mcp(run).await;
        Arc::new(ExecutorShared {
            registry,
            config: self.config.clone(),
            permissions: permissions.clone(),
            broker: self.broker.clone(),
            hooks,
            persister: run.persister.clone(),
            context: ToolContext {
                services: self.services.clone(),
                session_id: rows.session_id.clone(),
                run_id: rows.run_id.clone(),
                agent_name: rows.agent_name.clone(),
                tool_call_id: String::new(),
                silent: false,
                enable_thinking: request.enable_thinking,
                cancel: run.cancel.clone(),
                events: run.sink.clone(),
                compaction: compaction.clone(),
                permissions: PermissionGate {
                    broker: self.broker.clone(),
                    grants: self.session_rules(&rows.session_id),
                },
                rules: permissions.clone(),
                model: self.model.clone(),
                questions: self.questions.clone(),
                subagents: Some(subagents),
            },
            duplicates: Mutex::new(DuplicateDetector::default()),
        })
    }

    /// The ReAct loop of one agent (the main agent or a subagent): compaction when
    /// needed, stream the model's answer, run its tools, repeat until it answers without
    /// tools (Completed), fails, is cancelled or reaches `max_steps` (MaxSteps, left to
    /// the caller to report).
    #[allow(clippy::too_many_arguments)]
    pub(crate) async fn react(
        &self,
        run: &Run<'_>,
        system: &str,
        conversation: &mut Vec<ChatMessage>,
        shared: &Arc<ExecutorShared>,
        compaction: &CompactionRequest,
        max_steps: i32,
        outcome: &mut RunOutcome,
    ) {
        let rows = &run.rows;
        let mut watch = ContextWatch::new(self.config.compaction.breaker_threshold);
        let mut context_retry_used = false;
        let mut sent = crate::compaction::SentMessages::default();
        let mut step = 1;
        while step <= max_steps {
            outcome.steps = step;
            if run.cancel.is_cancelled() {
                self.end_cancelled(run, step, outcome);
                return;
            }
            if rows.agent_name == MAIN_AGENT {
                self.deliver_background_results(run, step, conversation)
                    .await;
            }
            let manual = compaction.take();
            self.compact_if_needed(
                run,
                step,
                system,
                conversation,
                manual.then_some("manual"),
                &mut watch,
            )
            .await;
            let mut executor = StepExecutor::new(shared.clone(), step);
            let response = match self
                .stream_step(run, step, system, conversation, &mut sent, &mut executor)
                .await
            {
                StepOutcome::Answer(response, latency_ms) => (response, latency_ms),
                StepOutcome::Failed {
                    error: LlmError::ContextLengthExceeded(message),
                    ..
                } if !context_retry_used => {
                    context_retry_used = true;
                    self.notice(
                        run,
                        step,
                        "compaction",
                        format!(
                            "The model's context is full ({message}); compacting and retrying once."
                        ),
                    );
                    self.compact_if_needed(
                        run,
                        step,
                        system,
                        conversation,
                        Some("overflow"),
                        &mut watch,
                    )
                    .await;
                    // Calls started before the failure are finished and discarded.
                    let _ = executor.finish().await;
                    continue;
                }
                StepOutcome::Failed {
                    error,
                    thinking,
                    text,
                } => {
                    let _ = executor.finish().await;
                    self.end_failed(run, step, error, thinking, text, outcome);
                    return;
                }
            };
            let (mut response, latency_ms) = response;
            executor.start_remaining(&response.tool_calls);
            response.tool_calls = executor.calls();
            let assistant_message = self.record_answer(run, step, &response, latency_ms, outcome);
            conversation.push(crate::history::cut_for_model(assistant_message));
            watch.counted(response.usage.as_ref(), conversation.len());
            if response.tool_calls.is_empty() {
                outcome.reason = RunFinishReason::Completed;
                return;
            }
            let results = executor.finish().await;
            self.record_results(run, step, &results, conversation, outcome);
            step += 1;
        }
        outcome.steps = max_steps;
        outcome.reason = RunFinishReason::MaxSteps;
    }

    /// Counts, shows and stores one step's answer (its usage, its row, its metric): the
    /// message that goes into the conversation.
    fn record_answer(
        &self,
        run: &Run<'_>,
        step: i32,
        response: &asterism_llm::ChatResponse,
        latency_ms: f64,
        outcome: &mut RunOutcome,
    ) -> ChatMessage {
        let rows = &run.rows;
        let usage = response.usage.unwrap_or_default();
        outcome.usage.add(usage);
        run.sink.emit(AgentEvent::Usage {
            step,
            usage,
            model: response.model.clone(),
            latency_ms,
        });
        let assistant_message = ChatMessage::Assistant {
            content: (!response.text.is_empty()).then(|| response.text.clone()),
            tool_calls: response.tool_calls.clone(),
        };
        let mut assistant = rows.row(step, MessageRole::Assistant, response.text.clone());
        assistant.tool_calls = (!response.tool_calls.is_empty())
            .then(|| serde_json::to_value(&response.tool_calls).unwrap_or_default());
        assistant.metadata = serde_json::json!({
            "thinking": response.thinking,
            "model": response.model,
            "finishReason": response.finish_reason,
            "usage": usage,
            "latencyMs": latency_ms,
        });
        assistant.raw_json = serde_json::to_value(&assistant_message).ok();
        run.persister.messages(vec![assistant]);
        run.persister.metrics(vec![MetricRow {
            session_id: rows.session_id.clone(),
            run_id: rows.run_id.clone(),
            step,
            agent_name: rows.agent_name.clone(),
            kind: "model".into(),
            name: response.model.clone(),
            via: None,
            prompt_tokens: usage.prompt_tokens,
            completion_tokens: usage.completion_tokens,
            duration_ms: latency_ms,
        }]);
        if !response.text.is_empty() {
            outcome.answer = response.text.clone();
        }
        assistant_message
    }

    /// Counts the tools' own model calls, stores the results in the order they finished
    /// (as the timeline showed them) and puts them into the conversation in call order.
    fn record_results(
        &self,
        run: &Run<'_>,
        step: i32,
        results: &[crate::executor::CallResult],
        conversation: &mut Vec<ChatMessage>,
        outcome: &mut RunOutcome,
    ) {
        // A tool's own model calls (rag_search's answer) count in the run's usage.
        for call in results.iter().flat_map(|result| &result.output.model_calls) {
            outcome.usage.add(call.usage);
        }
        let mut by_finish: Vec<&crate::executor::CallResult> = results.iter().collect();
        by_finish.sort_by_key(|result| result.finished_at);
        let rows = &run.rows;
        run.persister.messages(
            by_finish
                .iter()
                .map(|result| {
                    let mut row = rows.row(step, MessageRole::Tool, result.output.content.clone());
                    row.tool_call_id = Some(result.tool_call_id.clone());
                    // The call's arguments are the assistant row's (`tool_calls`,
                    // `raw_json`): not a third copy here.
                    row.metadata = serde_json::json!({
                        "name": result.name,
                        "isError": result.output.is_error,
                        "metadata": result.output.metadata,
                        "durationMs": result.duration.as_secs_f64() * 1000.0,
                        "outcome": result.outcome,
                        "decision": result.decision,
                    });
                    row
                })
                .collect(),
        );
        for result in results {
            conversation.push(ChatMessage::Tool {
                tool_call_id: result.tool_call_id.clone(),
                content: result.output.content.clone(),
            });
        }
    }

    /// Hands the agent the results of background tasks that finished since it last
    /// looked (stored as user-side messages, so later runs see them too).
    async fn deliver_background_results(
        &self,
        run: &Run<'_>,
        step: i32,
        conversation: &mut Vec<ChatMessage>,
    ) {
        let store = &self.services.store;
        let tasks = match store
            .unnotified_background_tasks(&run.rows.session_id)
            .await
        {
            Ok(tasks) => tasks,
            Err(error) => {
                tracing::warn!(%error, "could not read background results");
                return;
            }
        };
        for task in tasks {
            let text = crate::background::notification_text(&task);
            let mut row = run.rows.row(step, MessageRole::User, text.clone());
            row.metadata = serde_json::json!({"background": task.id});
            run.persister.messages(vec![row]);
            conversation.push(ChatMessage::User { content: text });
            if let Err(error) = store.mark_background_task_notified(&task.id).await {
                tracing::warn!(%error, "could not mark a background result delivered");
            }
            self.notice(
                run,
                step,
                "background",
                format!(
                    "Background task {} ({}) {}; its result was handed to the agent.",
                    task.id, task.tool, task.status
                ),
            );
        }
    }
}
