use asterism_llm::{
    ChatModel, ChatRequest, ChatResponse, FinishReason, LlmError, ModelEvent, OpenAiClient,
    OpenAiConfig,
};
use asterism_testkit::{fixture_path, serve_sse_body, sse_from_chunks_jsonl};
use futures::StreamExt;
use tokio_util::sync::CancellationToken;

/// Serves one recorded stream and collects what the client makes of it.
pub async fn run_body(
    body: String,
    model: &str,
) -> (Vec<ModelEvent>, Result<ChatResponse, LlmError>) {
    let server = serve_sse_body(body).await.unwrap();
    let client = OpenAiClient::new(OpenAiConfig::new(
        format!("{}/v1", server.url()),
        Some("k".into()),
        model,
    ))
    .unwrap();
    let request = ChatRequest {
        response_schema: None,
        tool_choice: None,
        images: Vec::new(),
        messages: Default::default(),
        tools: vec![],
        enable_thinking: false,
        model: None,
    };
    let mut stream = client
        .stream(request, CancellationToken::new())
        .await
        .unwrap();
    let mut events = Vec::new();
    while let Some(item) = stream.next().await {
        match item {
            Ok(ModelEvent::Completed(response)) => return (events, Ok(response)),
            Ok(event) => events.push(event),
            Err(error) => return (events, Err(error)),
        }
    }
    (
        events,
        Err(LlmError::BadResponse(
            "stream ended without Completed".into(),
        )),
    )
}

async fn recorded(name: &str) -> (Vec<ModelEvent>, ChatResponse) {
    let text = std::fs::read_to_string(fixture_path(&format!("llm_stream/{name}"))).unwrap();
    let body = if name.ends_with(".chunks.jsonl") {
        sse_from_chunks_jsonl(&text)
    } else {
        text
    };
    let (events, response) = run_body(body, "m").await;
    (
        events,
        response.unwrap_or_else(|error| panic!("{name}: {error}")),
    )
}

fn text_of(events: &[ModelEvent]) -> String {
    events
        .iter()
        .filter_map(|event| match event {
            ModelEvent::Text(text) => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

fn thinking_of(events: &[ModelEvent]) -> String {
    events
        .iter()
        .filter_map(|event| match event {
            ModelEvent::Thinking(text) => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn openai_single_tool_call_is_assembled_from_fragments() {
    let (events, response) = recorded("openai_gpt4o_stream_single_tool_call_get_weather.sse").await;
    assert_eq!(response.finish_reason, Some(FinishReason::ToolCalls));
    assert_eq!(response.tool_calls.len(), 1);
    let call = &response.tool_calls[0];
    assert_eq!(call.id, "call_4XzlGBLtUe9dy3GVNV4jhq7h");
    assert_eq!(call.name, "get_weather");
    let arguments: serde_json::Value = serde_json::from_str(&call.arguments).unwrap();
    assert_eq!(arguments["city"], "New York City");
    assert!(
        events
            .iter()
            .any(|event| matches!(event, ModelEvent::ToolCallReady(ready) if ready == call))
    );
    assert!(response.usage.unwrap().prompt_tokens > 0);
}

#[tokio::test]
async fn openai_parallel_tool_calls_stay_separate_and_the_first_is_ready_early() {
    let (events, response) = recorded("openai_gpt4o_stream_parallel_tool_calls.sse").await;
    assert_eq!(response.tool_calls.len(), 2);
    assert_ne!(response.tool_calls[0].id, response.tool_calls[1].id);
    for call in &response.tool_calls {
        serde_json::from_str::<serde_json::Value>(&call.arguments).unwrap();
    }
    let first_ready = events.iter().position(|event| matches!(event, ModelEvent::ToolCallReady(call) if call.id == response.tool_calls[0].id)).unwrap();
    let second_ready = events.iter().position(|event| matches!(event, ModelEvent::ToolCallReady(call) if call.id == response.tool_calls[1].id)).unwrap();
    assert!(first_ready < second_ready);
}

#[tokio::test]
async fn openai_text_stream_yields_text_deltas_and_usage() {
    let (events, response) = recorded("openai_gpt4o_stream_text_content.sse").await;
    assert!(text_of(&events).starts_with("I'm unable to provide real-time weather"));
    assert_eq!(text_of(&events), response.text);
    assert_eq!(response.finish_reason, Some(FinishReason::Stop));
    assert!(response.usage.unwrap().completion_tokens > 0);
    assert_eq!(response.model, "gpt-4o-2024-08-06");
}

#[tokio::test]
async fn openai_length_finish_reason_is_reported() {
    let (_, response) = recorded("openai_gpt4o_stream_finish_reason_length.sse").await;
    assert_eq!(response.finish_reason, Some(FinishReason::Length));
    assert_eq!(response.usage.unwrap().completion_tokens, 1);
}

#[tokio::test]
async fn deepseek_reasoning_then_tool_call() {
    let (events, response) =
        recorded("deepseek_reasoner_stream_reasoning_then_tool_call.chunks.jsonl").await;
    assert!(thinking_of(&events).starts_with("The user is asking for the weather"));
    assert_eq!(response.tool_calls.len(), 1);
    serde_json::from_str::<serde_json::Value>(&response.tool_calls[0].arguments).unwrap();
    assert_eq!(response.usage.unwrap().reasoning_tokens, 39);
    let first_thinking = events
        .iter()
        .position(|event| matches!(event, ModelEvent::Thinking(_)))
        .unwrap();
    let ready = events
        .iter()
        .position(|event| matches!(event, ModelEvent::ToolCallReady(_)))
        .unwrap();
    assert!(first_thinking < ready);
}

#[tokio::test]
async fn deepseek_reasoning_then_text() {
    let (events, response) =
        recorded("deepseek_reasoner_stream_reasoning_then_text.chunks.jsonl").await;
    assert!(!thinking_of(&events).is_empty());
    assert!(!response.text.is_empty());
    assert_eq!(response.thinking, thinking_of(&events));
    assert_eq!(response.finish_reason, Some(FinishReason::Stop));
}

#[tokio::test]
async fn dashscope_reasoning_then_text_with_usage_in_a_separate_chunk() {
    let (events, response) =
        recorded("dashscope_qwen3max_stream_reasoning_then_text.chunks.jsonl").await;
    assert!(thinking_of(&events).starts_with("We are asked"));
    assert!(!response.text.is_empty());
    assert!(response.usage.unwrap().prompt_tokens > 0);
    assert_eq!(response.model, "qwen3-max");
}

#[tokio::test]
async fn dashscope_empty_ids_on_later_deltas_keep_the_first_id() {
    let (_, response) = recorded("dashscope_qwen3max_stream_tool_call.chunks.jsonl").await;
    assert_eq!(response.tool_calls.len(), 1);
    let call = &response.tool_calls[0];
    assert_eq!(call.id, "call_eee11723464a4b9eb8cee71d");
    assert_eq!(call.name, "weather");
    let arguments: serde_json::Value = serde_json::from_str(&call.arguments).unwrap();
    assert_eq!(arguments["location"], "San Francisco");
}

#[tokio::test]
async fn a_tool_call_without_any_id_gets_a_uuid() {
    let body = concat!(
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"name\":\"query_target\",\"arguments\":\"{\\\"name\\\":\"}}]}}]}\n\n",
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"\",\"function\":{\"arguments\":\"\\\"M 31\\\"}\"}}]}}]}\n\n",
        "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\n",
        "data: [DONE]\n\n",
    );
    let (_, response) = run_body(body.to_string(), "m").await;
    let response = response.unwrap();
    assert!(response.tool_calls[0].id.starts_with("call_"));
    assert!(response.tool_calls[0].id.len() > 20);
    assert_eq!(response.tool_calls[0].arguments, "{\"name\":\"M 31\"}");
}
