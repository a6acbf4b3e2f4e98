use serde::{Deserialize, Serialize};
use specta::Type;

/// Token accounting for one model call or a whole run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct TokenUsage {
    pub prompt_tokens: i32,
    pub completion_tokens: i32,
    /// Tokens spent on reasoning, when the provider reports them (part of completion).
    pub reasoning_tokens: i32,
}

impl TokenUsage {
    /// Adds another call's usage to this total, saturating instead of overflowing.
    pub fn add(&mut self, other: TokenUsage) {
        self.prompt_tokens = self.prompt_tokens.saturating_add(other.prompt_tokens);
        self.completion_tokens = self
            .completion_tokens
            .saturating_add(other.completion_tokens);
        self.reasoning_tokens = self.reasoning_tokens.saturating_add(other.reasoning_tokens);
    }
}

/// Why a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub enum RunFinishReason {
    /// The model answered without asking for more tools.
    Completed,
    /// The run hit its `max_steps` limit.
    MaxSteps,
    /// The user cancelled the run.
    Cancelled,
    /// The run stopped on an error (see the preceding `Error` event).
    Failed,
}

/// What kind of rule a permission grant adds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub enum GrantKind {
    /// Every call of the tool.
    Tool,
    /// This exact shell command, nothing appended.
    Exact,
    /// Shell commands whose first words are `text`.
    Prefix,
}

/// One way the user may answer "allow for this session" or "always".
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct PermissionGrant {
    pub kind: GrantKind,
    /// The rule added, as `--allow` takes it: `file_write`, `run_bash(=git status)`,
    /// `run_bash(git status)`.
    pub rule: String,
    /// What it covers, to show: the tool name, the command, or the prefix.
    pub text: String,
}

/// Everything the agent does, as it happens. One enum for the desktop app (through a
/// Tauri channel), the CLI (`--json` prints one per line) and tests.
///
/// Serialised with a `type` tag and camelCase fields, e.g.
/// `{"type":"ToolCall","id":"…","toolCallId":"…","name":"query_target",…}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Type)]
#[serde(tag = "type", rename_all_fields = "camelCase")]
pub enum AgentEvent {
    /// A run started: the user's question was stored in the session.
    RunStarted {
        run_id: String,
        session_id: String,
        question: String,
        model: String,
        started_at: String,
    },
    /// A fragment of the model's reasoning (`reasoning_content`), streamed as it arrives.
    Thinking {
        delta: String,
        step: i32,
        agent_name: String,
    },
    /// A fragment of the model's answer text, streamed as it arrives.
    TextDelta {
        delta: String,
        step: i32,
        agent_name: String,
    },
    /// The model called a tool. `toolCallId` is the id the model gave the call (made
    /// unique and non-empty by the executor) and pairs it with its `ToolResult`; `id`
    /// carries the same value for clients that key on `id`.
    ToolCall {
        id: String,
        tool_call_id: String,
        name: String,
        #[specta(type = crate::JsonValue)]
        arguments: serde_json::Value,
        step: i32,
        agent_name: String,
    },
    /// A long-running tool reported progress (a sentence, and a fraction when known).
    ToolProgress {
        id: String,
        tool_call_id: String,
        message: String,
        fraction: Option<f64>,
    },
    /// A tool finished. `output` is what the model sees; `metadata` is structured data
    /// for the UI (coordinates, paper cards, …).
    ToolResult {
        id: String,
        tool_call_id: String,
        name: String,
        output: String,
        is_error: bool,
        #[specta(type = crate::JsonValue)]
        metadata: serde_json::Value,
        step: i32,
        duration_ms: f64,
        agent_name: String,
    },
    /// A tool call needs the user's permission before it runs.
    PermissionRequest {
        request_id: String,
        tool_call_id: String,
        tool: String,
        #[specta(type = crate::JsonValue)]
        arguments: serde_json::Value,
        reason: String,
        /// What "allow for this session" and "always" may grant, narrowest first (the
        /// first is the default). Empty when only "once" may be given (a write that can
        /// run code later, such as `hooks.json` or `.git/hooks/`).
        #[serde(default)]
        grants: Vec<PermissionGrant>,
    },
    /// The agent asks the user a question and waits for the answer.
    AskUser {
        request_id: String,
        question: String,
        options: Vec<String>,
    },
    /// The conversation sent to the model was compacted (history is kept as stored).
    Compacted {
        kind: String,
        tokens_before: i32,
        tokens_after: i32,
        step: i32,
    },
    /// Token usage of one model call.
    Usage {
        step: i32,
        usage: TokenUsage,
        model: String,
        latency_ms: f64,
    },
    /// A subagent began work on a task. Its own events carry its `agentName` until
    /// `SubagentFinished`; `parent` is the agent that started it.
    SubagentStarted {
        agent_name: String,
        parent: String,
        task: String,
    },
    /// A subagent finished and returned its summary to its parent. `reason` says how it
    /// ended (`completed`, `maxSteps`, `cancelled`, `failed`).
    SubagentFinished {
        agent_name: String,
        summary: String,
        reason: RunFinishReason,
        steps: i32,
    },
    /// An agent's todo list changed (todo_write): the whole list, each entry
    /// `{taskId, content, status, blockedBy}`.
    TodoUpdated {
        agent_name: String,
        #[specta(type = crate::JsonValue)]
        todos: serde_json::Value,
    },
    /// Something the user should know that is not an error of the run: a model retry,
    /// the switch to the fallback model, a hook that failed, a compaction. `kind` is
    /// machine-readable (`retry`, `fallback`, `hook`, `compaction`, `hooks`).
    Notice {
        kind: String,
        message: String,
        step: i32,
    },
    /// Something went wrong. `kind` is machine-readable (`model`, `network`, `tool`,
    /// `cancelled`, …); `message` is for people.
    Error {
        kind: String,
        message: String,
        step: i32,
    },
    /// The run ended; the session is stored and can be resumed or replayed.
    RunFinished {
        session_id: String,
        reason: RunFinishReason,
        usage: TokenUsage,
        steps: i32,
        finished_at: String,
    },
}

impl AgentEvent {
    /// The wire name of the variant (`"ToolCall"`, …), as in the `type` field.
    pub fn kind(&self) -> &'static str {
        match self {
            AgentEvent::RunStarted { .. } => "RunStarted",
            AgentEvent::Thinking { .. } => "Thinking",
            AgentEvent::TextDelta { .. } => "TextDelta",
            AgentEvent::ToolCall { .. } => "ToolCall",
            AgentEvent::ToolProgress { .. } => "ToolProgress",
            AgentEvent::ToolResult { .. } => "ToolResult",
            AgentEvent::PermissionRequest { .. } => "PermissionRequest",
            AgentEvent::AskUser { .. } => "AskUser",
            AgentEvent::Compacted { .. } => "Compacted",
            AgentEvent::Usage { .. } => "Usage",
            AgentEvent::SubagentStarted { .. } => "SubagentStarted",
            AgentEvent::SubagentFinished { .. } => "SubagentFinished",
            AgentEvent::TodoUpdated { .. } => "TodoUpdated",
            AgentEvent::Notice { .. } => "Notice",
            AgentEvent::Error { .. } => "Error",
            AgentEvent::RunFinished { .. } => "RunFinished",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_call_serialises_with_type_tag_and_camel_case() {
        let event = AgentEvent::ToolCall {
            id: "e1".into(),
            tool_call_id: "call_1".into(),
            name: "query_target".into(),
            arguments: serde_json::json!({"name": "NGC 4258"}),
            step: 1,
            agent_name: "main".into(),
        };
        let json = serde_json::to_value(&event).unwrap();
        assert_eq!(json["type"], "ToolCall");
        assert_eq!(json["toolCallId"], "call_1");
        assert_eq!(json["agentName"], "main");
        let back: AgentEvent = serde_json::from_value(json).unwrap();
        assert_eq!(back, event);
        assert_eq!(back.kind(), "ToolCall");
    }
}
