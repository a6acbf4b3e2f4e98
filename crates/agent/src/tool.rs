//! The tool contract ([`AgentTool`]), its typed form ([`TypedTool`]), what a call
//! receives ([`ToolContext`]) and returns ([`ToolOutput`]), and the [`ToolRegistry`].

use std::collections::BTreeMap;
use std::sync::Arc;

use asterism_llm::ToolDefinition;
use asterism_protocol::AgentEvent;
use async_trait::async_trait;
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use tokio_util::sync::CancellationToken;

use crate::{EventSink, Services};

/// What a tool returns: text for the model, structured metadata for the UI.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutput {
    pub content: String,
    /// An error the model should read and recover from (the run continues).
    pub is_error: bool,
    pub metadata: serde_json::Value,
    /// The model calls the tool made itself (rag_search writing its answer): counted in
    /// the session's metrics and totals under the tool.
    pub model_calls: Vec<ModelCall>,
}

/// One model call made inside a tool.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelCall {
    pub model: String,
    pub usage: asterism_protocol::TokenUsage,
    pub latency_ms: f64,
}

impl ToolOutput {
    pub fn ok(content: impl Into<String>) -> Self {
        Self {
            content: content.into(),
            is_error: false,
            metadata: serde_json::Value::Null,
            model_calls: Vec::new(),
        }
    }

    pub fn error(content: impl Into<String>) -> Self {
        Self {
            content: content.into(),
            is_error: true,
            metadata: serde_json::Value::Null,
            model_calls: Vec::new(),
        }
    }

    pub fn with_metadata(mut self, metadata: serde_json::Value) -> Self {
        self.metadata = metadata;
        self
    }

    /// Records a model call the tool made.
    pub fn with_model_call(mut self, call: Option<ModelCall>) -> Self {
        self.model_calls.extend(call);
        self
    }
}

/// What the executor does with a running call when the run is cancelled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InterruptBehavior {
    /// Stop it at once (read-only tools).
    Cancel,
    /// Let it finish (tools with side effects that must not be left half done).
    Block,
}

/// A tool's own view of whether a call may run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PermissionRule {
    Deny { reason: String },
    Ask { reason: String },
    Allow,
}

/// Reports progress of a long call as `ToolProgress` events.
#[derive(Clone)]
pub struct ProgressSender {
    sink: Arc<dyn EventSink>,
    tool_call_id: String,
}

impl ProgressSender {
    pub fn new(sink: Arc<dyn EventSink>, tool_call_id: String) -> Self {
        Self { sink, tool_call_id }
    }

    pub fn report(&self, message: impl Into<String>, fraction: Option<f64>) {
        self.sink.emit(AgentEvent::ToolProgress {
            id: self.tool_call_id.clone(),
            tool_call_id: self.tool_call_id.clone(),
            message: message.into(),
            fraction,
        });
    }
}

/// What the executor hands every call, uniformly.
#[derive(Clone)]
pub struct ToolContext {
    pub services: Arc<Services>,
    pub session_id: String,
    pub run_id: String,
    /// `main`, or the subagent's name.
    pub agent_name: String,
    pub tool_call_id: String,
    /// True in subagents: the tool must not ask the user anything.
    pub silent: bool,
    pub enable_thinking: bool,
    pub cancel: CancellationToken,
    pub events: Arc<dyn EventSink>,
    /// Set to ask for compaction before the next model call (`compress_context`).
    pub compaction: crate::compaction::CompactionRequest,
    /// Where the agent asks for a permission it lacks (`request_permission`).
    pub permissions: crate::permissions::PermissionGate,
    /// The permission rules of the run (for calls a tool makes on the agent's behalf).
    pub rules: Arc<crate::permissions::PermissionChecker>,
    /// The run's model, for tools that need an answer written (`rag_search`).
    pub model: Arc<dyn asterism_llm::ChatModel>,
    /// Where `ask_user` puts its question.
    pub questions: Arc<crate::questions::QuestionBroker>,
    /// Starts subagents (`subagent`, fork skills); `None` inside a subagent, which cannot
    /// start another.
    pub subagents: Option<crate::subagent::SubagentLauncher>,
}

impl ToolContext {
    /// The folders this call's session may use (see [`crate::security::Sandbox`]).
    pub fn sandbox(&self) -> crate::security::Sandbox {
        self.services.sandbox(&self.session_id)
    }
}

/// The tool contract of the seed: name, description, JSON Schema, execution and flags.
#[async_trait]
pub trait AgentTool: Send + Sync {
    /// Lower-case snake_case, as the model calls it.
    fn name(&self) -> &str;
    /// Tells the model when to use the tool.
    fn description(&self) -> &str;
    /// JSON Schema of the arguments.
    fn parameters(&self) -> serde_json::Value;
    async fn execute(&self, arguments: serde_json::Value, context: &ToolContext) -> ToolOutput;

    fn interrupt_behavior(&self) -> InterruptBehavior {
        InterruptBehavior::Cancel
    }
    fn is_concurrency_safe(&self, _arguments: &serde_json::Value) -> bool {
        false
    }
    fn check_permissions(&self, _arguments: &serde_json::Value) -> Vec<PermissionRule> {
        Vec::new()
    }
    fn causes_sibling_abort(&self) -> bool {
        false
    }
    /// What the call does, for the permission mode: reads by default when the tool is
    /// concurrency-safe, writes otherwise.
    fn effect(&self, arguments: &serde_json::Value) -> crate::permissions::ToolEffect {
        if self.is_concurrency_safe(arguments) {
            crate::permissions::ToolEffect::Read
        } else {
            crate::permissions::ToolEffect::Write
        }
    }
    /// The string permission patterns without a field name match (a command, a path).
    fn permission_subject(&self, _arguments: &serde_json::Value) -> Option<String> {
        None
    }
    /// The shell command line this call runs, if it runs one: permission rules then
    /// match each part of it (see [`crate::security::shell`]).
    fn shell_command(&self, _arguments: &serde_json::Value) -> Option<String> {
        None
    }
    /// Why this call must be asked every time, whatever the mode and the grants (a write
    /// that can make code run later). Resolved against the call's sandbox.
    fn always_ask(
        &self,
        _arguments: &serde_json::Value,
        _sandbox: &crate::security::Sandbox,
    ) -> Option<String> {
        None
    }
    async fn execute_with_progress(
        &self,
        arguments: serde_json::Value,
        context: &ToolContext,
        _progress: ProgressSender,
    ) -> ToolOutput {
        self.execute(arguments, context).await
    }
}

/// A tool with typed arguments: the JSON Schema is generated from `Args` (its doc
/// comments become the field descriptions) and arguments are parsed before `run`.
#[async_trait]
pub trait TypedTool: Send + Sync + 'static {
    type Args: DeserializeOwned + JsonSchema + Send;
    const NAME: &'static str;
    const DESCRIPTION: &'static str;
    const CONCURRENCY_SAFE: bool = false;
    const INTERRUPT: InterruptBehavior = InterruptBehavior::Cancel;
    /// Whether a failure aborts the sibling calls of the same batch.
    const SIBLING_ABORT: bool = false;
    /// The effect for the permission mode when it is not the default (reads when
    /// concurrency-safe, writes otherwise).
    const EFFECT: Option<crate::permissions::ToolEffect> = None;

    async fn run(&self, args: Self::Args, context: &ToolContext) -> ToolOutput;

    /// See [`AgentTool::always_ask`].
    fn always_ask(
        &self,
        _arguments: &serde_json::Value,
        _sandbox: &crate::security::Sandbox,
    ) -> Option<String> {
        None
    }
}

/// The schema of `T` as a tool's `parameters`, without the `$schema`/`title` keys that
/// some providers reject.
pub fn parameters_schema<T: JsonSchema>() -> serde_json::Value {
    let mut schema = serde_json::to_value(schemars::schema_for!(T)).unwrap_or_default();
    if let Some(object) = schema.as_object_mut() {
        object.remove("$schema");
        object.remove("title");
    }
    schema
}

#[async_trait]
impl<T: TypedTool> AgentTool for T {
    fn name(&self) -> &str {
        T::NAME
    }
    fn description(&self) -> &str {
        T::DESCRIPTION
    }
    fn parameters(&self) -> serde_json::Value {
        parameters_schema::<T::Args>()
    }
    fn interrupt_behavior(&self) -> InterruptBehavior {
        T::INTERRUPT
    }
    fn is_concurrency_safe(&self, _arguments: &serde_json::Value) -> bool {
        T::CONCURRENCY_SAFE
    }
    fn causes_sibling_abort(&self) -> bool {
        T::SIBLING_ABORT
    }
    fn effect(&self, arguments: &serde_json::Value) -> crate::permissions::ToolEffect {
        match T::EFFECT {
            Some(effect) => effect,
            None if self.is_concurrency_safe(arguments) => crate::permissions::ToolEffect::Read,
            None => crate::permissions::ToolEffect::Write,
        }
    }
    fn always_ask(
        &self,
        arguments: &serde_json::Value,
        sandbox: &crate::security::Sandbox,
    ) -> Option<String> {
        TypedTool::always_ask(self, arguments, sandbox)
    }
    async fn execute(&self, arguments: serde_json::Value, context: &ToolContext) -> ToolOutput {
        match serde_json::from_value::<T::Args>(arguments) {
            Ok(args) => self.run(args, context).await,
            Err(error) => ToolOutput::error(format!(
                "Invalid arguments for {}: {error}. Expected arguments matching: {}",
                T::NAME,
                parameters_schema::<T::Args>()
            )),
        }
    }
}

/// The tools the model may call, by name. Definitions come out sorted by name so the
/// request prefix is identical from call to call (prompt caching).
#[derive(Default, Clone)]
pub struct ToolRegistry {
    tools: BTreeMap<String, Arc<dyn AgentTool>>,
}

impl ToolRegistry {
    /// No tools at all.
    pub fn empty() -> Self {
        Self::default()
    }

    /// The standard research agent's tools (see `tools::add_base_tools`).
    pub fn new() -> Self {
        let mut registry = Self::empty();
        crate::tools::add_base_tools(&mut registry);
        registry
    }

    /// The standard tools plus background tasks (bg_task_run, bg_task_check).
    pub fn new_with_queue(queue: crate::background::BackgroundQueue) -> Self {
        let mut registry = Self::new();
        crate::tools::add_background_tools(&mut registry, queue);
        registry
    }

    /// The standard tools, background tasks and the four team tools.
    pub fn new_with_team(
        queue: crate::background::BackgroundQueue,
        team: crate::team::TeamManager,
    ) -> Self {
        let mut registry = Self::new_with_queue(queue);
        crate::tools::add_team_tools(&mut registry, team);
        registry
    }

    /// Adds a tool; a tool of the same name is kept (use [`Self::replace_tool`]).
    pub fn add_tool(&mut self, tool: Arc<dyn AgentTool>) {
        self.tools.entry(tool.name().to_string()).or_insert(tool);
    }

    pub fn replace_tool(&mut self, tool: Arc<dyn AgentTool>) {
        self.tools.insert(tool.name().to_string(), tool);
    }

    /// The tools whose names `keep` accepts (a subagent's or a skill's set).
    pub fn filtered(&self, keep: impl Fn(&str) -> bool) -> Self {
        Self {
            tools: self
                .tools
                .iter()
                .filter(|(name, _)| keep(name))
                .map(|(name, tool)| (name.clone(), tool.clone()))
                .collect(),
        }
    }

    pub fn get(&self, name: &str) -> Option<Arc<dyn AgentTool>> {
        self.tools.get(name).cloned()
    }

    pub fn len(&self) -> usize {
        self.tools.len()
    }

    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    pub fn names(&self) -> Vec<String> {
        self.tools.keys().cloned().collect()
    }

    /// Tool definitions for the model, sorted by name.
    pub fn definitions(&self) -> Vec<ToolDefinition> {
        self.tools
            .values()
            .map(|tool| ToolDefinition {
                name: tool.name().to_string(),
                description: tool.description().to_string(),
                parameters: tool.parameters(),
            })
            .collect()
    }
}
