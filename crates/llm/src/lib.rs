//! A streaming client for OpenAI-compatible Chat Completions endpoints (DashScope/Qwen,
//! DeepSeek, OpenAI, Ollama, vLLM, LM Studio).
//!
//! The wire is parsed with `eventsource-stream`; chunks are folded by
//! [`StreamAccumulator`] into text and thinking deltas, tool calls assembled from their
//! argument fragments, a finish reason and token usage.

mod accumulate;
mod client;
pub mod endpoint;
mod error;
mod resilient;
mod types;

pub use accumulate::StreamAccumulator;
pub use client::{
    ChatModel, ModelEventStream, OpenAiClient, OpenAiConfig, is_loopback_host,
    model_events_from_sse, supports_enable_thinking,
};
pub use error::LlmError;
pub use resilient::{ResilientModel, RetryPolicy};
pub use types::{
    ChatMessage, ChatRequest, ChatResponse, FinishReason, ModelEvent, ResponseSchema, ToolCall,
    ToolChoice, ToolDefinition,
};
