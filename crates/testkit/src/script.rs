use serde::{Deserialize, Serialize};

/// A scripted conversation: the model's turns, served in order, one per request.
///
/// ```json
/// {"chunkChars": 12, "delayMs": 10, "turns": [
///   {"thinking": "Resolve the name first.",
///    "toolCalls": [{"id": "call_1", "name": "query_target", "arguments": {"name": "NGC 4258"}}]},
///   {"text": "NGC 4258 (M 106) lies at RA 12h18m57.6s, Dec +47°18′13″."}
/// ]}
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Script {
    pub turns: Vec<Turn>,
    /// Text, thinking and arguments are split into pieces of this many characters.
    #[serde(default = "default_chunk_chars")]
    pub chunk_chars: usize,
    /// Pause between chunks, so streaming is visible in a UI.
    #[serde(default)]
    pub delay_ms: u64,
    /// Start again from the first turn once the last was served (for demos).
    #[serde(default, rename = "loop")]
    pub repeat: bool,
    /// `/v1/embeddings` answers HTTP 500 once this many texts have been embedded (an
    /// endpoint that fails half-way).
    #[serde(default)]
    pub embeddings_fail_after: Option<usize>,
}

fn default_chunk_chars() -> usize {
    16
}

/// One model answer.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Turn {
    #[serde(default)]
    pub thinking: Option<String>,
    #[serde(default)]
    pub text: Option<String>,
    #[serde(default)]
    pub tool_calls: Vec<ScriptedToolCall>,
    /// Defaults to `tool_calls` when there are calls, else `stop`.
    #[serde(default)]
    pub finish_reason: Option<String>,
    /// Send `id: ""` on every delta after a call's first, as DashScope does.
    #[serde(default)]
    pub empty_ids_after_first: bool,
    /// Misbehave instead of answering normally.
    #[serde(default)]
    pub fault: Option<Fault>,
    /// Serve this turn only to the subagent of this name (a request whose system prompt
    /// says "You are {agent},"); turns without it serve the main agent. Lets a script
    /// interleave the main agent and subagents that run at the same time.
    #[serde(default)]
    pub agent: Option<String>,
    /// The prompt tokens the turn's `usage` reports (default 100 + 10 × the turn's
    /// number): what a real server counted for a long conversation.
    #[serde(default)]
    pub prompt_tokens: Option<usize>,
}

/// A tool call the scripted model makes. `arguments` may be any JSON value, or a string
/// holding raw (possibly invalid) argument text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ScriptedToolCall {
    #[serde(default)]
    pub id: Option<String>,
    pub name: String,
    pub arguments: serde_json::Value,
}

impl ScriptedToolCall {
    /// A call with this id, tool and arguments.
    pub fn new(id: &str, name: &str, arguments: serde_json::Value) -> Self {
        Self {
            id: Some(id.into()),
            name: name.into(),
            arguments,
        }
    }

    /// The argument text as the model streams it.
    pub fn argument_text(&self) -> String {
        match &self.arguments {
            serde_json::Value::String(raw) => raw.clone(),
            other => other.to_string(),
        }
    }
}

/// Ways the scripted model can fail, to test that the client and runtime cope.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase", deny_unknown_fields)]
pub enum Fault {
    /// Answer with this HTTP status and body instead of a stream.
    #[serde(rename_all = "camelCase")]
    Http {
        status: u16,
        body: String,
        #[serde(default)]
        retry_after: Option<u64>,
    },
    /// Stream about half of the turn, then drop the connection.
    Cut,
    /// Stream a chunk that is not JSON.
    Garbage,
    /// Stream half of the turn, then send nothing more while keeping the connection.
    Stall,
    /// Stream the turn, including a chunk with invalid UTF-8 bytes.
    InvalidUtf8,
    /// Stream the whole turn but end without `[DONE]` and without a finish reason.
    NoDone,
}

impl Turn {
    /// A turn that only answers with `text`.
    pub fn answer(text: &str) -> Self {
        Self {
            text: Some(text.into()),
            ..Self::default()
        }
    }

    /// A turn that only makes these calls.
    pub fn calls(calls: Vec<ScriptedToolCall>) -> Self {
        Self {
            tool_calls: calls,
            ..Self::default()
        }
    }
}

impl Script {
    pub fn from_json(text: &str) -> anyhow::Result<Self> {
        Ok(serde_json::from_str(text)?)
    }
}
