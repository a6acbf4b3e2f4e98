use asterism_llm::{ChatModel, ChatRequest, LlmError, ModelEvent, OpenAiClient, OpenAiConfig};
use asterism_testkit::{Fault, MockLlm, Script, Turn};
use futures::StreamExt;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

fn one_turn(fault: Option<Fault>) -> Script {
    Script {
        turns: vec![Turn {
            text: Some("The answer streams in several pieces.".into()),
            fault,
            ..Turn::default()
        }],
        chunk_chars: 4,
        ..Script::default()
    }
}

async fn outcome(script: Script) -> Result<String, LlmError> {
    let mock = MockLlm::start(script).await.unwrap();
    let mut config = OpenAiConfig::new(mock.base_url(), None, "m");
    config.idle_timeout = Duration::from_millis(500);
    let client = OpenAiClient::new(config).unwrap();
    let request = ChatRequest {
        response_schema: None,
        tool_choice: None,
        images: Vec::new(),
        messages: Default::default(),
        tools: vec![],
        enable_thinking: false,
        model: None,
    };
    let mut stream = client.stream(request, CancellationToken::new()).await?;
    while let Some(item) = stream.next().await {
        if let ModelEvent::Completed(response) = item? {
            return Ok(response.text);
        }
    }
    Err(LlmError::BadResponse("no Completed".into()))
}

#[tokio::test]
async fn a_normal_turn_completes() {
    assert_eq!(
        outcome(one_turn(None)).await.unwrap(),
        "The answer streams in several pieces."
    );
}

#[tokio::test]
async fn a_stream_cut_mid_way_is_a_network_error() {
    let error = outcome(one_turn(Some(Fault::Cut))).await.unwrap_err();
    assert!(matches!(error, LlmError::Network(_)), "{error:?}");
    assert!(error.is_retryable());
}

#[tokio::test]
async fn a_stream_without_done_or_finish_reason_is_an_error() {
    let error = outcome(one_turn(Some(Fault::NoDone))).await.unwrap_err();
    assert!(
        error
            .to_string()
            .contains("ended before the model finished"),
        "{error}"
    );
}

#[tokio::test]
async fn a_garbage_chunk_is_a_bad_response() {
    let error = outcome(one_turn(Some(Fault::Garbage))).await.unwrap_err();
    assert!(matches!(error, LlmError::BadResponse(_)), "{error:?}");
    assert!(error.to_string().contains("not valid JSON"));
}

#[tokio::test]
async fn invalid_utf8_is_a_bad_response() {
    let error = outcome(one_turn(Some(Fault::InvalidUtf8)))
        .await
        .unwrap_err();
    assert!(matches!(error, LlmError::BadResponse(_)), "{error:?}");
}

#[tokio::test]
async fn a_stalled_stream_times_out() {
    let error = outcome(one_turn(Some(Fault::Stall))).await.unwrap_err();
    assert!(error.to_string().contains("stalled"), "{error}");
}

#[tokio::test]
async fn http_errors_are_typed() {
    let server_error = Fault::Http {
        status: 500,
        body: r#"{"error":{"message":"upstream overloaded"}}"#.into(),
        retry_after: None,
    };
    let error = outcome(one_turn(Some(server_error))).await.unwrap_err();
    assert_eq!(
        error,
        LlmError::Http {
            status: 500,
            message: "upstream overloaded".into()
        }
    );
    let limited = Fault::Http {
        status: 429,
        body: "{}".into(),
        retry_after: Some(7),
    };
    assert_eq!(
        outcome(one_turn(Some(limited))).await.unwrap_err(),
        LlmError::RateLimited {
            retry_after: Some(Duration::from_secs(7))
        }
    );
}

#[tokio::test]
async fn an_unreachable_endpoint_is_a_network_error() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    let client = OpenAiClient::new(OpenAiConfig::new(
        format!("http://127.0.0.1:{port}/v1"),
        None,
        "m",
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
    let error = client
        .stream(request, CancellationToken::new())
        .await
        .err()
        .unwrap();
    assert!(matches!(error, LlmError::Network(_)), "{error:?}");
}
