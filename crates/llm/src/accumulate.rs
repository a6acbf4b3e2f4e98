use asterism_protocol::TokenUsage;
use serde::Deserialize;

use crate::{ChatResponse, FinishReason, LlmError, ModelEvent, ToolCall};

#[derive(Debug, Deserialize)]
struct Chunk {
    #[serde(default)]
    choices: Vec<Choice>,
    usage: Option<WireUsage>,
    model: Option<String>,
    error: Option<serde_json::Value>,
}

#[derive(Debug, Deserialize)]
struct Choice {
    delta: Option<Delta>,
    finish_reason: Option<String>,
}

#[derive(Debug, Deserialize)]
struct Delta {
    content: Option<String>,
    reasoning_content: Option<String>,
    /// Ollama and some gateways name the reasoning field `reasoning`.
    reasoning: Option<String>,
    tool_calls: Option<Vec<ToolCallDelta>>,
}

#[derive(Debug, Deserialize)]
struct ToolCallDelta {
    index: Option<usize>,
    id: Option<String>,
    function: Option<FunctionDelta>,
}

#[derive(Debug, Deserialize)]
struct FunctionDelta {
    name: Option<String>,
    arguments: Option<String>,
}

#[derive(Debug, Deserialize)]
struct WireUsage {
    prompt_tokens: Option<u64>,
    completion_tokens: Option<u64>,
    completion_tokens_details: Option<CompletionDetails>,
}

#[derive(Debug, Deserialize)]
struct CompletionDetails {
    reasoning_tokens: Option<u64>,
}

#[derive(Debug)]
struct PartialCall {
    index: usize,
    id: String,
    name: String,
    arguments: String,
    announced: bool,
}

/// Folds streamed Chat Completions chunks into [`ModelEvent`]s and the final
/// [`ChatResponse`].
///
/// Tool calls are assembled by `index` from their fragments. A call whose id never
/// arrives, or arrives empty (DashScope sends `id: ""` on later deltas), gets a
/// `call_<uuid>` id. A call is announced as ready once a later call has begun and its
/// arguments parse, or when the stream finishes.
#[derive(Debug, Default)]
pub struct StreamAccumulator {
    response: ChatResponse,
    calls: Vec<PartialCall>,
}

fn clamp(value: Option<u64>) -> i32 {
    value.map_or(0, |value| i32::try_from(value).unwrap_or(i32::MAX))
}

impl StreamAccumulator {
    pub fn new() -> Self {
        Self::default()
    }

    /// Whether the provider has said why it stopped.
    pub fn has_finished(&self) -> bool {
        self.response.finish_reason.is_some()
    }

    /// Feeds one `data:` payload (already known not to be `[DONE]`).
    pub fn push_data(&mut self, data: &str) -> Result<Vec<ModelEvent>, LlmError> {
        let chunk: Chunk = serde_json::from_str(data).map_err(|error| {
            LlmError::BadResponse(format!(
                "a stream chunk is not valid JSON ({error}): {}",
                preview(data)
            ))
        })?;
        if let Some(error) = chunk.error {
            let message = error
                .get("message")
                .and_then(|message| message.as_str())
                .map(str::to_string)
                .unwrap_or_else(|| error.to_string());
            return Err(LlmError::from_status(
                500,
                &serde_json::json!({"error": {"message": message}}).to_string(),
                None,
            ));
        }
        let mut events = Vec::new();
        if let Some(model) = chunk.model
            && self.response.model.is_empty()
        {
            self.response.model = model;
        }
        for choice in chunk.choices {
            if let Some(delta) = choice.delta {
                let reasoning = delta.reasoning_content.or(delta.reasoning);
                if let Some(thinking) = reasoning.filter(|text| !text.is_empty()) {
                    self.response.thinking.push_str(&thinking);
                    events.push(ModelEvent::Thinking(thinking));
                }
                if let Some(text) = delta.content.filter(|text| !text.is_empty()) {
                    self.response.text.push_str(&text);
                    events.push(ModelEvent::Text(text));
                }
                for call_delta in delta.tool_calls.unwrap_or_default() {
                    self.push_tool_call_delta(call_delta, &mut events);
                }
            }
            if let Some(reason) = choice.finish_reason.filter(|reason| !reason.is_empty()) {
                self.response.finish_reason = Some(FinishReason::parse(&reason));
            }
        }
        if let Some(usage) = chunk.usage {
            self.response.usage = Some(TokenUsage {
                prompt_tokens: clamp(usage.prompt_tokens),
                completion_tokens: clamp(usage.completion_tokens),
                reasoning_tokens: clamp(
                    usage
                        .completion_tokens_details
                        .and_then(|details| details.reasoning_tokens),
                ),
            });
        }
        Ok(events)
    }

    fn push_tool_call_delta(&mut self, delta: ToolCallDelta, events: &mut Vec<ModelEvent>) {
        let index = delta.index.unwrap_or_else(|| {
            // Without an index, a delta carrying a new id starts a new call; anything
            // else continues the latest one. (A provider's index can be usize::MAX: then
            // there is no next index and the delta continues that call.)
            match (&delta.id, self.calls.last()) {
                (Some(id), Some(last)) if !id.is_empty() && *id != last.id => {
                    last.index.saturating_add(1)
                }
                (_, Some(last)) => last.index,
                (_, None) => 0,
            }
        });
        let position = match self.calls.iter().position(|call| call.index == index) {
            Some(position) => position,
            None => {
                self.announce_ready_calls(events);
                self.calls.push(PartialCall {
                    index,
                    id: String::new(),
                    name: String::new(),
                    arguments: String::new(),
                    announced: false,
                });
                self.calls.len() - 1
            }
        };
        let call = &mut self.calls[position];
        if let Some(id) = delta.id.filter(|id| !id.is_empty())
            && call.id.is_empty()
        {
            call.id = id;
        }
        if let Some(function) = delta.function {
            if let Some(name) = function.name.filter(|name| !name.is_empty()) {
                call.name.push_str(&name);
            }
            if let Some(arguments) = function.arguments {
                call.arguments.push_str(&arguments);
            }
        }
    }

    /// Announces the calls before the newest whose arguments are complete JSON.
    fn announce_ready_calls(&mut self, events: &mut Vec<ModelEvent>) {
        for call in &mut self.calls {
            if !call.announced && serde_json::from_str::<serde_json::Value>(&call.arguments).is_ok()
            {
                ensure_id(call);
                call.announced = true;
                events.push(ModelEvent::ToolCallReady(to_tool_call(call)));
            }
        }
    }

    /// Ends the stream: announces the remaining calls and returns the whole answer.
    pub fn finish(mut self) -> (Vec<ModelEvent>, ChatResponse) {
        let mut events = Vec::new();
        for call in &mut self.calls {
            ensure_id(call);
            if !call.announced {
                call.announced = true;
                events.push(ModelEvent::ToolCallReady(to_tool_call(call)));
            }
        }
        self.response.tool_calls = self.calls.iter().map(to_tool_call).collect();
        (events, self.response)
    }
}

fn ensure_id(call: &mut PartialCall) {
    if call.id.is_empty() {
        call.id = format!("call_{}", uuid::Uuid::new_v4().simple());
    }
}

fn to_tool_call(call: &PartialCall) -> ToolCall {
    ToolCall {
        id: call.id.clone(),
        name: call.name.clone(),
        arguments: call.arguments.clone(),
    }
}

fn preview(text: &str) -> String {
    let short: String = text.chars().take(120).collect();
    if short.len() < text.len() {
        short + "…"
    } else {
        short
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Found by the SSE property tests (`arbitrary_tool_call_fragments_assemble`): a call
    /// at index usize::MAX, then a delta with a new id and no index, overflowed
    /// `index + 1` and panicked in a debug build.
    #[test]
    fn a_new_id_after_a_call_at_the_largest_index_does_not_overflow() {
        let mut accumulator = StreamAccumulator::new();
        accumulator
            .push_data(r#"{"choices":[{"delta":{"tool_calls":[{"index":18446744073709551615,"function":{}}]}}]}"#)
            .unwrap();
        accumulator
            .push_data(r#"{"choices":[{"delta":{"tool_calls":[{"id":"call_a","function":{"name":"query_target"}}]}}]}"#)
            .unwrap();
        let (_, response) = accumulator.finish();
        assert_eq!(response.tool_calls.len(), 1);
        assert_eq!(response.tool_calls[0].id, "call_a");
        assert_eq!(response.tool_calls[0].name, "query_target");
    }
}
