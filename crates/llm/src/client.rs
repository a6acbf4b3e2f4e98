use std::pin::Pin;
use std::time::Duration;

use async_trait::async_trait;
use eventsource_stream::{EventStreamError, Eventsource};
use futures::{Stream, StreamExt};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::{ChatRequest, LlmError, ModelEvent, StreamAccumulator, ToolChoice};

/// The events of one model call, ending with [`ModelEvent::Completed`] or an error.
pub type ModelEventStream = Pin<Box<dyn Stream<Item = Result<ModelEvent, LlmError>> + Send>>;

/// A chat model that streams. The runtime only knows this trait, so tests and other
/// providers can stand in for the HTTP client.
#[async_trait]
pub trait ChatModel: Send + Sync {
    /// The configured model name.
    fn model_name(&self) -> &str;

    /// Whether this provider takes the `enable_thinking` switch.
    fn supports_thinking_toggle(&self) -> bool;

    /// Starts one streamed call.
    async fn stream(
        &self,
        request: ChatRequest,
        cancel: CancellationToken,
    ) -> Result<ModelEventStream, LlmError>;
}

/// Where and how to reach an OpenAI-compatible endpoint.
#[derive(Clone)]
pub struct OpenAiConfig {
    /// Base URL including the version path, e.g. `https://api.openai.com/v1`.
    pub base_url: String,
    pub api_key: Option<String>,
    pub model: String,
    /// The longest wait for the response to start or for its next chunk; past it the
    /// call fails as a network error (and is retried). `LLM_IDLE_TIMEOUT_S`.
    pub idle_timeout: Duration,
    pub connect_timeout: Duration,
}

impl std::fmt::Debug for OpenAiConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenAiConfig")
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "***"))
            .field("model", &self.model)
            .finish()
    }
}

impl OpenAiConfig {
    pub fn new(
        base_url: impl Into<String>,
        api_key: Option<String>,
        model: impl Into<String>,
    ) -> Self {
        Self {
            base_url: base_url.into(),
            api_key,
            model: model.into(),
            idle_timeout: Duration::from_secs(90),
            connect_timeout: Duration::from_secs(15),
        }
    }
}

/// Whether `enable_thinking` should be sent: only Qwen models and DashScope endpoints
/// take it; other providers reject or ignore unknown fields.
pub fn supports_enable_thinking(base_url: &str, model: &str) -> bool {
    base_url.to_lowercase().contains("dashscope") || model.to_lowercase().starts_with("qwen")
}

/// This machine: `localhost`, `127.0.0.0/8` or `[::1]`.
pub fn is_loopback_host(host: &str) -> bool {
    host == "localhost"
        || host
            .trim_start_matches('[')
            .trim_end_matches(']')
            .parse::<std::net::IpAddr>()
            .is_ok_and(|address| address.is_loopback())
}

/// Whether `base_url` is a server on this machine (llama.cpp, vLLM, SGLang, Ollama).
fn is_local(base_url: &str) -> bool {
    reqwest::Url::parse(base_url.trim())
        .ok()
        .and_then(|url| url.host_str().map(is_loopback_host))
        .unwrap_or(false)
}

/// The HTTP client for OpenAI-compatible Chat Completions.
#[derive(Debug, Clone)]
pub struct OpenAiClient {
    config: OpenAiConfig,
    http: reqwest::Client,
}

impl OpenAiClient {
    pub fn new(config: OpenAiConfig) -> Result<Self, LlmError> {
        // reqwest is built without a default TLS provider; install ring once.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let http = reqwest::Client::builder()
            .connect_timeout(config.connect_timeout)
            .build()
            .map_err(|error| {
                LlmError::NotConfigured(format!("cannot build the HTTP client: {error}"))
            })?;
        Ok(Self { config, http })
    }

    pub fn config(&self) -> &OpenAiConfig {
        &self.config
    }

    fn request_body(&self, request: &ChatRequest) -> serde_json::Value {
        let model = request
            .model
            .clone()
            .unwrap_or_else(|| self.config.model.clone());
        let mut body = serde_json::json!({
            "model": model,
            "messages": &*request.messages,
            "stream": true,
            "stream_options": {"include_usage": true},
        });
        if !request.images.is_empty() {
            with_images(&mut body["messages"], &request.images);
        }
        if !request.tools.is_empty() {
            body["tools"] = request
                .tools
                .iter()
                .map(|tool| {
                    serde_json::json!({
                        "type": "function",
                        "function": {
                            "name": tool.name,
                            "description": tool.description,
                            "parameters": tool.parameters,
                        }
                    })
                })
                .collect();
        }
        if supports_enable_thinking(&self.config.base_url, &model) {
            body["enable_thinking"] = serde_json::Value::Bool(request.enable_thinking);
        }
        if let Some(choice) = request
            .tool_choice
            .as_ref()
            .filter(|_| !request.tools.is_empty())
        {
            body["tool_choice"] = choice.to_json();
            // A call that must be made is one call (a small model, constrained to calls,
            // would otherwise repeat it until the token limit).
            if matches!(choice, ToolChoice::Required | ToolChoice::Function(_)) {
                body["parallel_tool_calls"] = false.into();
            }
        }
        if let Some(format) = &request.response_schema {
            body["response_format"] = serde_json::json!({
                "type": "json_schema",
                "json_schema": {"name": format.name, "strict": true, "schema": format.schema},
            });
            // A chat template that opens a thinking channel first (Gemma 4's, Qwen 3's)
            // sends the answer there, where the JSON grammar does not hold: servers on
            // this machine (llama.cpp, vLLM, SGLang) take the template's own switch.
            // Remote APIs would refuse the field, and have no such template.
            if !request.enable_thinking && is_local(&self.config.base_url) {
                body["chat_template_kwargs"] = serde_json::json!({"enable_thinking": false});
            }
        }
        body
    }
}

/// The last user message's text as a content part, followed by one `image_url` part per
/// image (the shape OpenAI, Qwen-VL, vLLM and Ollama's compatible endpoint take).
fn with_images(messages: &mut serde_json::Value, images: &[String]) {
    let Some(last_user) = messages
        .as_array_mut()
        .and_then(|all| all.iter_mut().rev().find(|m| m["role"] == "user"))
    else {
        return;
    };
    let text = last_user["content"].take();
    let mut parts = vec![serde_json::json!({"type": "text", "text": text})];
    parts.extend(
        images
            .iter()
            .map(|url| serde_json::json!({"type": "image_url", "image_url": {"url": url}})),
    );
    last_user["content"] = serde_json::Value::Array(parts);
}

fn retry_after(headers: &reqwest::header::HeaderMap) -> Option<Duration> {
    let value = headers.get(reqwest::header::RETRY_AFTER)?.to_str().ok()?;
    value
        .trim()
        .parse::<f64>()
        .ok()
        .filter(|secs| secs.is_finite() && *secs >= 0.0)
        .map(Duration::from_secs_f64)
}

#[async_trait]
impl ChatModel for OpenAiClient {
    fn model_name(&self) -> &str {
        &self.config.model
    }

    fn supports_thinking_toggle(&self) -> bool {
        supports_enable_thinking(&self.config.base_url, &self.config.model)
    }

    async fn stream(
        &self,
        request: ChatRequest,
        cancel: CancellationToken,
    ) -> Result<ModelEventStream, LlmError> {
        if self.config.model.trim().is_empty() {
            return Err(LlmError::NotConfigured("LLM_MODEL is empty".into()));
        }
        let url = format!(
            "{}/chat/completions",
            self.config.base_url.trim_end_matches('/')
        );
        let mut builder = self.http.post(&url).json(&self.request_body(&request));
        if let Some(key) = self.config.api_key.as_deref().filter(|key| !key.is_empty()) {
            builder = builder.bearer_auth(key);
        }
        // A server that accepts the connection and never answers must not hang the run:
        // the wait for the response to start has the same limit as a stalled stream.
        let idle = self.config.idle_timeout;
        let response = tokio::select! {
            response = tokio::time::timeout(idle, builder.send()) => match response {
                Ok(response) => response.map_err(|error| LlmError::Network(format!("{url}: {}", describe(&error))))?,
                Err(_) => return Err(LlmError::Network(format!("{url}: no response within {} s", idle.as_secs()))),
            },
            () = cancel.cancelled() => return Err(LlmError::Cancelled),
        };
        let status = response.status();
        if !status.is_success() {
            let retry = retry_after(response.headers());
            let mut body = response.text().await.unwrap_or_default();
            // Providers echo the key they refused; it must not reach logs or events.
            if let Some(key) = self.config.api_key.as_deref().filter(|key| key.len() >= 8)
                && body.contains(key)
            {
                body = body.replace(key, "***");
            }
            return Err(LlmError::from_status(status.as_u16(), &body, retry));
        }
        let (sender, receiver) = mpsc::channel(256);
        let idle_timeout = self.config.idle_timeout;
        let bytes = response.bytes_stream();
        tokio::spawn(pump(bytes, sender, cancel, idle_timeout));
        Ok(Box::pin(futures::stream::unfold(
            receiver,
            |mut receiver| async move { receiver.recv().await.map(|item| (item, receiver)) },
        )))
    }
}

/// The full error chain of a reqwest error, which hides the interesting part in sources.
pub(crate) fn describe(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(inner) = source {
        text.push_str(": ");
        text.push_str(&inner.to_string());
        source = inner.source();
    }
    text
}

/// Reads the SSE body, feeding the accumulator, and forwards events until the stream
/// ends, fails, stalls or is cancelled.
async fn pump<S, B>(
    bytes: S,
    sender: mpsc::Sender<Result<ModelEvent, LlmError>>,
    cancel: CancellationToken,
    idle_timeout: Duration,
) where
    S: Stream<Item = Result<B, reqwest::Error>> + Send + Unpin + 'static,
    B: AsRef<[u8]>,
{
    let mut events = bytes.eventsource();
    let mut accumulator = StreamAccumulator::new();
    let mut saw_done = false;
    loop {
        let next = tokio::select! {
            next = tokio::time::timeout(idle_timeout, events.next()) => next,
            () = cancel.cancelled() => {
                let _ = sender.send(Err(LlmError::Cancelled)).await;
                return;
            }
        };
        let event = match next {
            Err(_) => {
                let _ = sender
                    .send(Err(LlmError::Network(format!(
                        "the model stream stalled: nothing received for {} s",
                        idle_timeout.as_secs()
                    ))))
                    .await;
                return;
            }
            Ok(None) => break,
            Ok(Some(Ok(event))) => event,
            Ok(Some(Err(EventStreamError::Utf8(error)))) => {
                let _ = sender
                    .send(Err(LlmError::BadResponse(format!(
                        "the model stream is not valid UTF-8: {error}"
                    ))))
                    .await;
                return;
            }
            Ok(Some(Err(EventStreamError::Parser(error)))) => {
                let _ = sender
                    .send(Err(LlmError::BadResponse(format!(
                        "the model stream is not valid SSE: {error}"
                    ))))
                    .await;
                return;
            }
            Ok(Some(Err(EventStreamError::Transport(error)))) => {
                let _ = sender
                    .send(Err(LlmError::Network(format!(
                        "the connection to the model broke mid-stream: {}",
                        describe(&error)
                    ))))
                    .await;
                return;
            }
        };
        let data = event.data.trim();
        if data.is_empty() {
            continue;
        }
        if data == "[DONE]" {
            saw_done = true;
            break;
        }
        match accumulator.push_data(data) {
            Ok(model_events) => {
                for model_event in model_events {
                    if sender.send(Ok(model_event)).await.is_err() {
                        return;
                    }
                }
            }
            Err(error) => {
                let _ = sender.send(Err(error)).await;
                return;
            }
        }
    }
    if !saw_done && !accumulator.has_finished() {
        let _ = sender
            .send(Err(LlmError::Network(
                "the model stream ended before the model finished (no finish_reason, no [DONE])"
                    .into(),
            )))
            .await;
        return;
    }
    let (model_events, response) = accumulator.finish();
    for model_event in model_events {
        if sender.send(Ok(model_event)).await.is_err() {
            return;
        }
    }
    let _ = sender.send(Ok(ModelEvent::Completed(response))).await;
}

/// Reads an OpenAI-compatible SSE response body, given as the byte chunks the connection
/// delivered, into the events of one model call, with the same reader (`pump`) that
/// [`OpenAiClient::stream`] runs on every response. Public so that tests can feed any
/// chunking or corruption of a recorded stream without HTTP. Must be called inside a
/// Tokio runtime: the body is read on a task of its own.
pub fn model_events_from_sse<S, B>(
    bytes: S,
    cancel: CancellationToken,
    idle_timeout: Duration,
) -> ModelEventStream
where
    S: Stream<Item = Result<B, reqwest::Error>> + Send + Unpin + 'static,
    B: AsRef<[u8]> + Send + 'static,
{
    let (sender, receiver) = mpsc::channel(256);
    tokio::spawn(pump(bytes, sender, cancel, idle_timeout));
    Box::pin(futures::stream::unfold(
        receiver,
        |mut receiver| async move { receiver.recv().await.map(|item| (item, receiver)) },
    ))
}

#[cfg(test)]
mod tests {
    /// Only this machine's servers are local: a remote API never gets a field meant for
    /// a chat template.
    #[test]
    fn local_means_this_machine() {
        for url in [
            "http://127.0.0.1:8080/v1",
            "http://localhost:11434/v1",
            "http://[::1]:8000/v1",
        ] {
            assert!(super::is_local(url), "{url}");
        }
        for url in [
            "https://api.openai.com/v1",
            "https://dashscope.aliyuncs.com/compatible-mode/v1",
            "http://127.0.0.1.example.com/v1",
            "not a url",
        ] {
            assert!(!super::is_local(url), "{url}");
        }
    }
}
