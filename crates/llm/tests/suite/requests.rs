use asterism_llm::{
    ChatMessage, ChatModel, ChatRequest, ModelEvent, OpenAiClient, OpenAiConfig, ResponseSchema,
    ToolCall, ToolChoice, ToolDefinition,
};
use asterism_testkit::{MockLlm, Script, Turn};
use futures::StreamExt;
use tokio_util::sync::CancellationToken;

async fn send(model: &str, enable_thinking: bool) -> serde_json::Value {
    send_with(model, enable_thinking, Vec::new(), None, None).await
}

async fn send_with(
    model: &str,
    enable_thinking: bool,
    images: Vec<String>,
    tool_choice: Option<ToolChoice>,
    response_schema: Option<ResponseSchema>,
) -> serde_json::Value {
    let mock = MockLlm::start(Script {
        turns: vec![Turn {
            text: Some("ok".into()),
            ..Turn::default()
        }],
        ..Script::default()
    })
    .await
    .unwrap();
    let client = OpenAiClient::new(OpenAiConfig::new(
        mock.base_url(),
        Some("sk-secret".into()),
        model,
    ))
    .unwrap();
    let request = ChatRequest {
        response_schema: None,
        tool_choice: None,
        images: Vec::new(),
        messages: vec![
            ChatMessage::System {
                content: "You are Asterism.".into(),
            },
            ChatMessage::User {
                content: "Where is NGC 4258?".into(),
            },
            ChatMessage::Assistant {
                content: None,
                tool_calls: vec![ToolCall {
                    id: "call_1".into(),
                    name: "query_target".into(),
                    arguments: "{\"name\":\"NGC 4258\"}".into(),
                }],
            },
            ChatMessage::Tool {
                tool_call_id: "call_1".into(),
                content: "M 106".into(),
            },
        ]
        .into(),
        tools: vec![ToolDefinition {
            name: "query_target".into(),
            description: "Resolve an object name".into(),
            parameters: serde_json::json!({"type": "object"}),
        }],
        enable_thinking,
        model: None,
    };
    let request = ChatRequest {
        images,
        tool_choice,
        response_schema,
        ..request
    };
    let mut stream = client
        .stream(request, CancellationToken::new())
        .await
        .unwrap();
    while let Some(event) = stream.next().await {
        if matches!(event.unwrap(), ModelEvent::Completed(_)) {
            break;
        }
    }
    let recorded = mock.requests();
    assert_eq!(
        recorded[0].authorization.as_deref(),
        Some("Bearer sk-secret")
    );
    recorded[0].body.clone()
}

#[tokio::test]
async fn enable_thinking_is_sent_only_to_qwen() {
    let qwen = send("qwen3-max", true).await;
    assert_eq!(qwen["enable_thinking"], true);
    let deepseek = send("deepseek-reasoner", true).await;
    assert!(deepseek.get("enable_thinking").is_none());
}

#[tokio::test]
async fn the_request_has_the_chat_completions_shape() {
    let body = send("gpt-4o", false).await;
    assert_eq!(body["stream"], true);
    assert_eq!(body["model"], "gpt-4o");
    assert_eq!(body["tools"][0]["type"], "function");
    assert_eq!(body["tools"][0]["function"]["name"], "query_target");
    let messages = body["messages"].as_array().unwrap();
    assert_eq!(messages[2]["role"], "assistant");
    assert_eq!(messages[2]["tool_calls"][0]["type"], "function");
    assert_eq!(
        messages[2]["tool_calls"][0]["function"]["arguments"],
        "{\"name\":\"NGC 4258\"}"
    );
    assert_eq!(messages[3]["role"], "tool");
    assert_eq!(messages[3]["tool_call_id"], "call_1");
}

#[tokio::test]
async fn tool_choice_is_sent_only_when_set() {
    let free = send("gpt-4o", false).await;
    assert!(free.get("tool_choice").is_none());
    let named = send_with(
        "gpt-4o",
        false,
        Vec::new(),
        Some(ToolChoice::Function("query_target".into())),
        None,
    )
    .await;
    assert_eq!(
        named["tool_choice"],
        serde_json::json!({"type": "function", "function": {"name": "query_target"}})
    );
    assert_eq!(named["parallel_tool_calls"], false);
    let required = send_with(
        "gpt-4o",
        false,
        Vec::new(),
        Some(ToolChoice::Required),
        None,
    )
    .await;
    assert_eq!(required["tool_choice"], "required");
    assert_eq!(required["parallel_tool_calls"], false);
    let auto = send_with("gpt-4o", false, Vec::new(), Some(ToolChoice::Auto), None).await;
    assert_eq!(auto["tool_choice"], "auto");
    assert!(auto.get("parallel_tool_calls").is_none());
}

/// An image goes with the last user message as an `image_url` part after its text; the
/// other messages keep their plain-text content.
#[tokio::test]
async fn images_go_with_the_last_user_message_as_content_parts() {
    let png = "data:image/png;base64,iVBORw0KGgo=".to_string();
    let body = send_with("qwen-vl-max", false, vec![png.clone()], None, None).await;
    let messages = body["messages"].as_array().unwrap();
    assert_eq!(messages[0]["content"], "You are Asterism.");
    assert_eq!(
        messages[1]["content"],
        serde_json::json!([
            {"type": "text", "text": "Where is NGC 4258?"},
            {"type": "image_url", "image_url": {"url": png}},
        ])
    );
    assert_eq!(messages[3]["content"], "M 106");
    let plain = send("qwen-vl-max", false).await;
    assert_eq!(plain["messages"][1]["content"], "Where is NGC 4258?");
}

/// A structured answer asked of a server on this machine carries the chat template's
/// switch that keeps a thinking channel closed (llama.cpp with Gemma 4's template put
/// the whole answer in `reasoning_content`, outside the JSON grammar); with thinking
/// asked for, or with no schema, it does not.
#[tokio::test]
async fn a_local_server_asked_for_json_gets_thinking_off_in_its_template() {
    let schema = || {
        Some(ResponseSchema {
            name: "verdicts".into(),
            schema: serde_json::json!({"type": "object"}),
        })
    };
    let body = send_with("gemma-3-270m", false, Vec::new(), None, schema()).await;
    assert_eq!(body["response_format"]["json_schema"]["name"], "verdicts");
    assert_eq!(
        body["chat_template_kwargs"],
        serde_json::json!({"enable_thinking": false})
    );
    let thinking = send_with("gemma-3-270m", true, Vec::new(), None, schema()).await;
    assert!(thinking.get("chat_template_kwargs").is_none());
    let plain = send_with("gemma-3-270m", false, Vec::new(), None, None).await;
    assert!(plain.get("chat_template_kwargs").is_none());
}
