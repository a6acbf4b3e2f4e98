use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::Response;
use axum::routing::post;
use futures::StreamExt;
use serde_json::{Value, json};

use crate::script::{Fault, Script, Turn};
use crate::server::LoopbackServer;

/// One request the scripted model received.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordedRequest {
    pub body: Value,
    pub authorization: Option<String>,
}

#[derive(Debug, Default)]
struct MockState {
    script: Script,
    next_turn: usize,
    /// Which turns were served (scripts with `agent` turns pick by agent, not in order).
    served: Vec<bool>,
    requests: Vec<RecordedRequest>,
    /// Tool call ids each agent's previous answer made, which its next request must
    /// answer (keyed by the agent; `None` is the main agent).
    awaiting_results: std::collections::HashMap<Option<String>, Vec<String>>,
    /// Texts embedded so far by `/v1/embeddings`.
    embedded: usize,
    violations: Vec<String>,
}

/// A scripted OpenAI-compatible model on loopback. Serves `POST …/chat/completions`
/// with the script's turns in order as SSE streams.
#[derive(Debug)]
pub struct MockLlm {
    server: LoopbackServer,
    state: Arc<Mutex<MockState>>,
}

fn lock(state: &Mutex<MockState>) -> MutexGuard<'_, MockState> {
    state
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl MockLlm {
    /// Starts the server on a free port.
    pub async fn start(script: Script) -> anyhow::Result<Self> {
        Self::start_on(script, 0).await
    }

    /// Starts the server on `port` (0 picks a free one).
    pub async fn start_on(script: Script, port: u16) -> anyhow::Result<Self> {
        let state = Arc::new(Mutex::new(MockState {
            script,
            ..MockState::default()
        }));
        let router = Router::new()
            .route("/v1/chat/completions", post(chat_completions))
            .route("/chat/completions", post(chat_completions))
            .route("/v1/embeddings", post(embeddings))
            .route("/embeddings", post(embeddings))
            .with_state(state.clone());
        let server = LoopbackServer::start(router, port).await?;
        Ok(Self { server, state })
    }

    /// The base URL to configure as `LLM_BASE_URL` (ends in `/v1`).
    pub fn base_url(&self) -> String {
        format!("{}/v1", self.server.url())
    }

    /// Every request received so far.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        lock(&self.state).requests.clone()
    }

    /// Protocol violations seen (a tool call without a result in the next request).
    pub fn violations(&self) -> Vec<String> {
        lock(&self.state).violations.clone()
    }

    /// Fails the test if the runtime broke the tool-call protocol.
    pub fn assert_no_violations(&self) {
        let violations = self.violations();
        assert!(
            violations.is_empty(),
            "model protocol violations: {violations:#?}"
        );
    }

    /// Serves until the process ends (for the binary).
    pub async fn serve_forever(mut self) {
        self.server.wait().await;
    }
}

/// A deterministic embedding with meaning enough for tests: each word (lower-cased,
/// a plural `s` dropped) adds ±1 to a dimension chosen by its hash, then the vector is
/// scaled to unit length. Texts sharing words are close; texts sharing none are not.
pub fn bag_of_words_embedding(text: &str, dimensions: usize) -> Vec<f32> {
    let mut vector = vec![0.0f32; dimensions.max(1)];
    for word in text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|word| word.chars().count() >= 2)
    {
        let word = word.to_lowercase();
        let word = word
            .strip_suffix('s')
            .filter(|w| w.len() >= 3)
            .unwrap_or(&word);
        // FNV-1a: stable across runs and platforms.
        let hash = word.bytes().fold(0xcbf2_9ce4_8422_2325u64, |hash, byte| {
            (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3)
        });
        let index = (hash % vector.len() as u64) as usize;
        vector[index] += if hash >> 63 == 0 { 1.0 } else { -1.0 };
    }
    let norm = vector.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        vector.iter_mut().for_each(|x| *x /= norm);
    }
    vector
}

async fn embeddings(State(state): State<Arc<Mutex<MockState>>>, body: Bytes) -> Response {
    let body: Value = match serde_json::from_slice(&body) {
        Ok(body) => body,
        Err(error) => {
            return error_response(
                StatusCode::BAD_REQUEST,
                &format!("request body is not JSON: {error}"),
            );
        }
    };
    let inputs: Vec<String> = match &body["input"] {
        Value::String(text) => vec![text.clone()],
        Value::Array(items) => items
            .iter()
            .map(|item| item.as_str().unwrap_or_default().to_string())
            .collect(),
        _ => {
            return error_response(
                StatusCode::BAD_REQUEST,
                "input must be a string or a list of strings",
            );
        }
    };
    let dimensions = body["dimensions"].as_u64().unwrap_or(384) as usize;
    {
        let mut state = lock(&state);
        if let Some(limit) = state.script.embeddings_fail_after
            && state.embedded + inputs.len() > limit
        {
            return error_response(
                StatusCode::INTERNAL_SERVER_ERROR,
                "mock embeddings: failing as scripted",
            );
        }
        state.embedded += inputs.len();
    }
    let data: Vec<Value> = inputs
        .iter()
        .enumerate()
        .map(|(index, text)| {
            json!({"object": "embedding", "index": index, "embedding": bag_of_words_embedding(text, dimensions)})
        })
        .collect();
    let tokens: usize = inputs
        .iter()
        .map(|text| text.split_whitespace().count())
        .sum();
    Response::builder()
        .status(StatusCode::OK)
        .header(header::CONTENT_TYPE, "application/json")
        .body(Body::from(
            json!({
                "object": "list",
                "data": data,
                "model": body["model"].as_str().unwrap_or("mock-embedding"),
                "usage": {"prompt_tokens": tokens, "total_tokens": tokens}
            })
            .to_string(),
        ))
        .unwrap_or_else(|_| {
            error_response(
                StatusCode::INTERNAL_SERVER_ERROR,
                "mock embeddings: response",
            )
        })
}

/// Which agent sent the request: the scripted agent whose "You are {name}," opens the
/// system prompt's sentence, else the main agent (`None`).
fn request_agent(body: &Value, script: &Script) -> Option<String> {
    let system = body
        .pointer("/messages/0/content")
        .and_then(Value::as_str)
        .unwrap_or("");
    script
        .turns
        .iter()
        .filter_map(|turn| turn.agent.as_deref())
        .find(|agent| system.contains(&format!("You are {agent},")))
        .map(str::to_string)
}

fn answered_tool_call_ids(body: &Value) -> Vec<String> {
    body.get("messages")
        .and_then(Value::as_array)
        .map(|messages| {
            messages
                .iter()
                .filter(|message| message.get("role").and_then(Value::as_str) == Some("tool"))
                .filter_map(|message| message.get("tool_call_id").and_then(Value::as_str))
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

/// Fills `{{last_result:NAME}}` in a turn's tool-call arguments with the value of
/// `NAME="…"` in the last tool result of the request, as a model copies a path it was
/// just shown (the persisted-output stub's `path`, say).
fn copy_from_last_result(mut turn: Turn, body: &Value) -> Turn {
    let last_result = body
        .get("messages")
        .and_then(Value::as_array)
        .and_then(|messages| {
            messages
                .iter()
                .rev()
                .find(|message| message.get("role").and_then(Value::as_str) == Some("tool"))
        })
        .and_then(|message| message.get("content").and_then(Value::as_str))
        .unwrap_or_default()
        .to_string();
    for call in &mut turn.tool_calls {
        let text = call.arguments.to_string();
        if !text.contains("{{last_result:") {
            continue;
        }
        let mut filled = text.clone();
        while let Some(start) = filled.find("{{last_result:") {
            let Some(length) = filled[start..].find("}}") else {
                break;
            };
            let name = filled[start + "{{last_result:".len()..start + length].to_string();
            let needle = format!("{name}=\"");
            let value = last_result
                .find(&needle)
                .map(|at| &last_result[at + needle.len()..])
                .and_then(|rest| rest.split('"').next())
                .unwrap_or_default()
                .to_string();
            filled.replace_range(start..start + length + 2, &value);
        }
        if let Ok(arguments) = serde_json::from_str(&filled) {
            call.arguments = arguments;
        }
    }
    turn
}

async fn chat_completions(
    State(state): State<Arc<Mutex<MockState>>>,
    headers: axum::http::HeaderMap,
    body: Bytes,
) -> Response {
    let body: Value = match serde_json::from_slice(&body) {
        Ok(body) => body,
        Err(error) => {
            return error_response(
                StatusCode::BAD_REQUEST,
                &format!("request body is not JSON: {error}"),
            );
        }
    };
    let (turn, script, request_number, violation, turn_number) = {
        let mut state = lock(&state);
        state.requests.push(RecordedRequest {
            body: body.clone(),
            authorization: headers
                .get(header::AUTHORIZATION)
                .and_then(|value| value.to_str().ok())
                .map(str::to_string),
        });
        let agent = request_agent(&body, &state.script);
        // A side call without tools (a compaction summary) cannot carry the agent's tool
        // results: the results are checked on the next request that has tools.
        let side_call = body.get("tools").is_none();
        let violation = state.missing_results(&body, &agent, side_call);
        let turn = state.next_turn_for(&agent);
        state.expect_results(agent, turn.as_ref(), side_call);
        (
            turn,
            state.script.clone(),
            state.requests.len(),
            violation,
            state.next_turn,
        )
    };
    if let Some(violation) = violation {
        return error_response(StatusCode::BAD_REQUEST, &format!("mock model: {violation}"));
    }
    let turn = turn.map(|turn| copy_from_last_result(turn, &body));
    let Some(turn) = turn else {
        return error_response(
            StatusCode::INTERNAL_SERVER_ERROR,
            &format!("mock model: the script has no turn for request #{request_number}"),
        );
    };
    if let Some(response) = http_fault(turn.fault.as_ref()) {
        return response;
    }
    let model = body
        .get("model")
        .and_then(Value::as_str)
        .unwrap_or("scripted")
        .to_string();
    stream_turn(turn, &script, &model, turn_number)
}

impl MockState {
    /// The violation, if this request of `agent` lacks results of the tool calls its
    /// previous answer made (recorded).
    fn missing_results(
        &mut self,
        body: &Value,
        agent: &Option<String>,
        side_call: bool,
    ) -> Option<String> {
        let answered = answered_tool_call_ids(body);
        let missing: Vec<String> = self
            .awaiting_results
            .get(agent)
            .into_iter()
            .flatten()
            .filter(|id| !side_call && !answered.contains(id))
            .cloned()
            .collect();
        let violation = (!missing.is_empty()).then(|| {
            format!(
                "request #{} lacks tool results for {missing:?}",
                self.requests.len()
            )
        });
        if let Some(violation) = &violation {
            self.violations.push(violation.clone());
        }
        violation
    }

    /// The turn that answers `agent`'s request: in a script with `agent` turns, the
    /// first not served yet that is meant for it; else the next in order.
    fn next_turn_for(&mut self, agent: &Option<String>) -> Option<Turn> {
        let by_agent = self.script.turns.iter().any(|turn| turn.agent.is_some());
        if by_agent {
            let turns = self.script.turns.len();
            self.served.resize(turns, false);
            let index =
                (0..turns).find(|&i| !self.served[i] && self.script.turns[i].agent == *agent);
            return index.map(|i| {
                self.served[i] = true;
                self.next_turn = i + 1;
                self.script.turns[i].clone()
            });
        }
        if self.next_turn >= self.script.turns.len() && self.script.repeat {
            self.next_turn = 0;
        }
        let turn = self.script.turns.get(self.next_turn).cloned();
        if turn.is_some() {
            self.next_turn += 1;
        }
        turn
    }

    /// Records the tool calls `turn` makes, whose results `agent`'s next request must
    /// carry (a side call keeps what was awaited before it).
    fn expect_results(&mut self, agent: Option<String>, turn: Option<&Turn>, side_call: bool) {
        let still_awaiting = self.awaiting_results.remove(&agent).unwrap_or_default();
        let awaiting: Vec<String> = turn
            .filter(|turn| turn.fault.is_none())
            .map(|turn| {
                turn.tool_calls
                    .iter()
                    .enumerate()
                    .map(|(i, call)| call_id(call.id.as_deref(), self.next_turn, i))
                    // An empty id (a quirk under test) gets its id from the client:
                    // there is nothing to check it against.
                    .filter(|id| !id.is_empty())
                    .collect()
            })
            .unwrap_or_default();
        let awaiting = if side_call && awaiting.is_empty() {
            still_awaiting
        } else {
            awaiting
        };
        self.awaiting_results.insert(agent, awaiting);
    }
}

/// The HTTP error a turn scripts, if it scripts one.
fn http_fault(fault: Option<&Fault>) -> Option<Response> {
    let Some(Fault::Http {
        status,
        body,
        retry_after,
    }) = fault
    else {
        return None;
    };
    let mut response = Response::builder()
        .status(StatusCode::from_u16(*status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR))
        .header(header::CONTENT_TYPE, "application/json");
    if let Some(seconds) = retry_after {
        response = response.header(header::RETRY_AFTER, seconds.to_string());
    }
    Some(response.body(Body::from(body.clone())).unwrap_or_default())
}

/// The id a scripted call gets when the script does not name one.
fn call_id(id: Option<&str>, turn: usize, index: usize) -> String {
    id.map(str::to_string)
        .unwrap_or_else(|| format!("call_t{turn}_{index}"))
}

fn error_response(status: StatusCode, message: &str) -> Response {
    Response::builder()
        .status(status)
        .header(header::CONTENT_TYPE, "application/json")
        .body(Body::from(
            json!({"error": {"message": message, "type": "mock_error"}}).to_string(),
        ))
        .unwrap_or_default()
}

fn pieces(text: &str, size: usize) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    chars
        .chunks(size.max(1))
        .map(|piece| piece.iter().collect())
        .collect()
}

/// The chunks (each one `data:` payload) of a turn.
fn turn_chunks(turn: &Turn, script: &Script, model: &str, turn_number: usize) -> Vec<String> {
    let id = format!("chatcmpl-mock-{turn_number}");
    let chunk = |delta: Value, finish: Value| {
        json!({"id": id, "object": "chat.completion.chunk", "created": 0, "model": model,
               "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
        .to_string()
    };
    let mut chunks = vec![chunk(
        json!({"role": "assistant", "content": ""}),
        Value::Null,
    )];
    for piece in pieces(turn.thinking.as_deref().unwrap_or(""), script.chunk_chars) {
        chunks.push(chunk(json!({"reasoning_content": piece}), Value::Null));
    }
    for piece in pieces(turn.text.as_deref().unwrap_or(""), script.chunk_chars) {
        chunks.push(chunk(json!({"content": piece}), Value::Null));
    }
    for (index, call) in turn.tool_calls.iter().enumerate() {
        let call_id = call_id(call.id.as_deref(), turn_number, index);
        chunks.push(chunk(
            json!({"tool_calls": [{"index": index, "id": call_id, "type": "function",
                                   "function": {"name": call.name, "arguments": ""}}]}),
            Value::Null,
        ));
        for piece in pieces(&call.argument_text(), script.chunk_chars) {
            let mut delta = json!({"index": index, "function": {"arguments": piece}});
            if turn.empty_ids_after_first {
                delta["id"] = json!("");
                delta["type"] = json!("function");
            }
            chunks.push(chunk(json!({"tool_calls": [delta]}), Value::Null));
        }
    }
    let finish = turn.finish_reason.clone().unwrap_or_else(|| {
        if turn.tool_calls.is_empty() {
            "stop".into()
        } else {
            "tool_calls".into()
        }
    });
    if turn.fault != Some(Fault::NoDone) {
        chunks.push(chunk(json!({}), json!(finish)));
        let prompt = turn.prompt_tokens.unwrap_or(100 + 10 * turn_number);
        let completion = chunks.len();
        chunks.push(
            json!({"id": id, "object": "chat.completion.chunk", "created": 0, "model": model, "choices": [],
                   "usage": {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}})
            .to_string(),
        );
    }
    chunks
}

fn stream_turn(turn: Turn, script: &Script, model: &str, turn_number: usize) -> Response {
    let chunks = turn_chunks(&turn, script, model, turn_number);
    let half = chunks.len() / 2;
    let mut frames: Vec<Result<Bytes, std::io::Error>> = Vec::new();
    let frame = |data: &str| Ok(Bytes::from(format!("data: {data}\n\n")));
    let mut end_with_done = true;
    match &turn.fault {
        Some(Fault::Cut) => {
            frames.extend(chunks[..half].iter().map(|data| frame(data)));
            frames.push(Err(std::io::Error::new(
                std::io::ErrorKind::ConnectionReset,
                "mock model cut the stream",
            )));
            end_with_done = false;
        }
        Some(Fault::Garbage) => {
            frames.extend(chunks[..half].iter().map(|data| frame(data)));
            frames.push(frame("<html>502 Bad Gateway</html>"));
            frames.extend(chunks[half..].iter().map(|data| frame(data)));
        }
        Some(Fault::InvalidUtf8) => {
            frames.extend(chunks[..half].iter().map(|data| frame(data)));
            frames.push(Ok(Bytes::from_static(
                b"data: {\"choices\":[{\"delta\":{\"content\":\"\xff\xfe\"}}]}\n\n",
            )));
            frames.extend(chunks[half..].iter().map(|data| frame(data)));
        }
        Some(Fault::NoDone) => {
            frames.extend(chunks.iter().map(|data| frame(data)));
            end_with_done = false;
        }
        Some(Fault::Stall) => {
            frames.extend(chunks[..half].iter().map(|data| frame(data)));
            end_with_done = false;
        }
        Some(Fault::Http { .. }) | None => frames.extend(chunks.iter().map(|data| frame(data))),
    }
    if end_with_done {
        frames.push(frame("[DONE]"));
    }
    let delay = Duration::from_millis(script.delay_ms);
    let stall = turn.fault == Some(Fault::Stall);
    let stream = futures::stream::iter(frames).then(move |frame| async move {
        if !delay.is_zero() {
            tokio::time::sleep(delay).await;
        }
        if frame.is_err() {
            // Let what came before reach the client, so the cut is mid-stream.
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        frame
    });
    let stream = stream.chain(futures::stream::once(async move {
        if stall {
            // Keep the connection open and silent until the client gives up.
            tokio::time::sleep(Duration::from_secs(3600)).await;
        }
        Ok::<Bytes, std::io::Error>(Bytes::new())
    }));
    Response::builder()
        .header(header::CONTENT_TYPE, "text/event-stream")
        .header(header::CACHE_CONTROL, "no-cache")
        .body(Body::from_stream(stream))
        .unwrap_or_default()
}
