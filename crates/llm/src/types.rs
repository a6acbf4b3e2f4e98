use asterism_protocol::TokenUsage;
use serde::{Deserialize, Serialize};

/// A tool the model may call: name, description and JSON Schema of its arguments.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolDefinition {
    pub name: String,
    pub description: String,
    pub parameters: serde_json::Value,
}

/// A tool call the model made. `arguments` is the raw JSON text the model produced: it
/// may be invalid, and the executor decides what to do about that.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    pub arguments: String,
}

/// One message of the conversation, in the shape Chat Completions expects.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "role", rename_all = "lowercase")]
pub enum ChatMessage {
    System {
        content: String,
    },
    User {
        content: String,
    },
    Assistant {
        content: Option<String>,
        #[serde(
            default,
            skip_serializing_if = "Vec::is_empty",
            with = "wire_tool_calls"
        )]
        tool_calls: Vec<ToolCall>,
    },
    Tool {
        tool_call_id: String,
        content: String,
    },
}

/// Tool calls as the wire spells them: `{id, type: "function", function: {name, arguments}}`.
mod wire_tool_calls {
    use super::ToolCall;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    #[derive(Serialize, Deserialize)]
    struct WireFunction {
        name: String,
        arguments: String,
    }

    #[derive(Serialize, Deserialize)]
    struct WireToolCall {
        id: String,
        #[serde(rename = "type", default = "function_type")]
        kind: String,
        function: WireFunction,
    }

    fn function_type() -> String {
        "function".into()
    }

    pub fn serialize<S: Serializer>(calls: &[ToolCall], serializer: S) -> Result<S::Ok, S::Error> {
        let wire: Vec<WireToolCall> = calls
            .iter()
            .map(|call| WireToolCall {
                id: call.id.clone(),
                kind: function_type(),
                function: WireFunction {
                    name: call.name.clone(),
                    arguments: call.arguments.clone(),
                },
            })
            .collect();
        wire.serialize(serializer)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Vec<ToolCall>, D::Error> {
        let wire = Vec::<WireToolCall>::deserialize(deserializer)?;
        Ok(wire
            .into_iter()
            .map(|call| ToolCall {
                id: call.id,
                name: call.function.name,
                arguments: call.function.arguments,
            })
            .collect())
    }
}

/// What to ask the model.
#[derive(Debug, Clone, PartialEq)]
pub struct ChatRequest {
    /// Shared, so a long conversation is not copied for each step (the runtime appends
    /// to the same list while no request holds it).
    pub messages: std::sync::Arc<Vec<ChatMessage>>,
    pub tools: Vec<ToolDefinition>,
    /// Ask for reasoning. Sent as `enable_thinking` only to Qwen/DashScope; other
    /// providers decide by model (DeepSeek's reasoner always thinks).
    pub enable_thinking: bool,
    /// Override of the configured model (used for the fallback model).
    pub model: Option<String>,
    /// Images (`data:image/png;base64,…` URLs) shown with the last user message, as
    /// Chat Completions' `image_url` content parts (`view_figure`); empty for text.
    pub images: Vec<String>,
    /// The JSON the answer must be, sent as `response_format: {type: "json_schema"}`
    /// (structured output: OpenAI, vLLM, llama.cpp, Ollama, recent Qwen). An endpoint
    /// without it answers HTTP 400; the caller asks again without (see `rag::rerank`).
    pub response_schema: Option<ResponseSchema>,
    /// Which tool the model must call (`tool_choice`); `None` leaves it to the model.
    pub tool_choice: Option<ToolChoice>,
}

/// Chat Completions' `tool_choice`: what the model may or must do with the tools. A
/// small local model rarely calls a tool on its own; naming one makes the server
/// constrain the answer to a call of it (llama.cpp, vLLM, OpenAI).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolChoice {
    /// Call a tool or answer, as the model decides.
    Auto,
    /// Answer without a tool.
    None,
    /// Call some tool.
    Required,
    /// Call this tool.
    Function(String),
}

impl ToolChoice {
    /// The request field's value.
    pub fn to_json(&self) -> serde_json::Value {
        match self {
            ToolChoice::Auto => "auto".into(),
            ToolChoice::None => "none".into(),
            ToolChoice::Required => "required".into(),
            ToolChoice::Function(name) => {
                serde_json::json!({"type": "function", "function": {"name": name}})
            }
        }
    }
}

/// A named JSON Schema for a structured answer.
#[derive(Debug, Clone, PartialEq)]
pub struct ResponseSchema {
    pub name: String,
    pub schema: serde_json::Value,
}

/// Why the model stopped.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FinishReason {
    Stop,
    ToolCalls,
    Length,
    ContentFilter,
    Other(String),
}

impl FinishReason {
    pub fn parse(reason: &str) -> Self {
        match reason {
            "stop" => FinishReason::Stop,
            "tool_calls" | "function_call" => FinishReason::ToolCalls,
            "length" => FinishReason::Length,
            "content_filter" => FinishReason::ContentFilter,
            other => FinishReason::Other(other.to_string()),
        }
    }
}

/// The model's whole answer for one call, assembled from the stream.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ChatResponse {
    pub text: String,
    pub thinking: String,
    pub tool_calls: Vec<ToolCall>,
    pub finish_reason: Option<FinishReason>,
    pub usage: Option<TokenUsage>,
    /// The model that answered, as the provider reports it.
    pub model: String,
}

/// What the stream yields, in order.
#[derive(Debug, Clone, PartialEq)]
pub enum ModelEvent {
    /// A fragment of reasoning (`reasoning_content`).
    Thinking(String),
    /// A fragment of answer text.
    Text(String),
    /// A tool call whose arguments are complete (the model moved on to the next call or
    /// finished). Lets an executor start it before the stream ends.
    ToolCallReady(ToolCall),
    /// Something the user should know about the call itself (a retry, a switch to the
    /// fallback model), not part of the answer.
    Notice {
        /// `retry` or `fallback`.
        kind: String,
        message: String,
    },
    /// The stream ended normally; the whole answer.
    Completed(ChatResponse),
}
