//! Property tests of the SSE reading path on every recorded provider stream, through
//! [`model_events_from_sse`]: the same pump the client runs on a response body.
//!
//! - However the connection cuts the body into chunks (every single split point, and
//!   proptest's arbitrary sets of split points), the call yields exactly the events and
//!   the final message it yields for the whole body.
//! - Corrupted bodies (flipped, inserted, deleted, overwritten bytes, truncation) and
//!   corrupted chunk JSON (huge or negative numbers, wrong types, dropped fields) never
//!   panic: the call ends in a complete message or a typed error.
//!
//! Each property runs proptest's default 256 cases (`PROPTEST_CASES=10000` runs more).

use std::sync::OnceLock;
use std::time::Duration;

use asterism_llm::{ChatResponse, LlmError, ModelEvent, model_events_from_sse};
use asterism_testkit::{fixture_path, sse_from_chunks_jsonl};
use futures::StreamExt;
use proptest::prelude::*;
use proptest::sample::Index;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

const STREAMS: &[&str] = &[
    "openai_gpt4o_stream_finish_reason_length.sse",
    "openai_gpt4o_stream_single_tool_call_get_weather.sse",
    "openai_gpt4o_stream_parallel_tool_calls.sse",
    "openai_gpt4o_stream_text_content.sse",
    "dashscope_qwen3max_stream_tool_call.chunks.jsonl",
    "dashscope_qwen3max_stream_reasoning_then_text.chunks.jsonl",
    "deepseek_reasoner_stream_reasoning_then_tool_call.chunks.jsonl",
    "deepseek_reasoner_stream_reasoning_then_text.chunks.jsonl",
];

/// How a call's event stream ended.
#[derive(Debug, Clone, PartialEq)]
enum End {
    Completed(ChatResponse),
    Failed(LlmError),
    /// The stream stopped with neither: the reading task died (a panic).
    Vanished,
}

/// Everything the reading path yielded for one body.
#[derive(Debug, Clone, PartialEq)]
struct Reading {
    events: Vec<ModelEvent>,
    end: End,
    /// Items after the end (there must be none).
    trailing: usize,
}

impl Reading {
    fn response(&self) -> Option<&ChatResponse> {
        match &self.end {
            End::Completed(response) => Some(response),
            _ => None,
        }
    }
}

struct Recorded {
    name: &'static str,
    body: Vec<u8>,
    /// What the whole body, in one chunk, reads as.
    whole: Reading,
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap()
}

/// The body as the provider sent it (`.chunks.jsonl` recordings get their framing back).
fn body_of(name: &str) -> Vec<u8> {
    let text = std::fs::read_to_string(fixture_path(&format!("llm_stream/{name}"))).unwrap();
    if name.ends_with(".chunks.jsonl") {
        sse_from_chunks_jsonl(&text).into_bytes()
    } else {
        text.into_bytes()
    }
}

fn recorded() -> &'static [Recorded] {
    static RECORDED: OnceLock<Vec<Recorded>> = OnceLock::new();
    RECORDED.get_or_init(|| {
        let runtime = runtime();
        STREAMS
            .iter()
            .map(|&name| {
                let body = body_of(name);
                let whole = runtime.block_on(read(vec![body.clone()]));
                Recorded { name, body, whole }
            })
            .collect()
    })
}

/// Reads a body delivered in `chunks` through the client's pump.
async fn read(chunks: Vec<Vec<u8>>) -> Reading {
    let bytes = futures::stream::iter(chunks.into_iter().map(Ok::<_, reqwest::Error>));
    let mut stream = model_events_from_sse(bytes, CancellationToken::new(), Duration::from_secs(5));
    let mut events = Vec::new();
    let mut end = End::Vanished;
    while let Some(item) = stream.next().await {
        match item {
            Ok(ModelEvent::Completed(response)) => {
                end = End::Completed(response);
                break;
            }
            Ok(event) => events.push(event),
            Err(error) => {
                end = End::Failed(error);
                break;
            }
        }
    }
    let trailing = match end {
        End::Vanished => 0,
        _ => stream.count().await,
    };
    Reading {
        events,
        end,
        trailing,
    }
}

/// `body` cut at `offsets` (any order, repeats and ends allowed: empty chunks are sent).
fn split_at(body: &[u8], offsets: &[usize]) -> Vec<Vec<u8>> {
    let mut cuts: Vec<usize> = offsets.iter().map(|&at| at.min(body.len())).collect();
    cuts.sort_unstable();
    let mut chunks = Vec::with_capacity(cuts.len() + 1);
    let mut from = 0;
    for cut in cuts {
        chunks.push(body[from..cut].to_vec());
        from = cut;
    }
    chunks.push(body[from..].to_vec());
    chunks
}

/// A corrupted body must still end the call properly: a message or a typed error of
/// the kinds a bad body can cause, and nothing after it.
fn assert_ends_properly(reading: &Reading) -> Result<(), TestCaseError> {
    prop_assert_eq!(reading.trailing, 0, "items after the end");
    match &reading.end {
        End::Completed(_) => {}
        End::Failed(error) => prop_assert!(
            matches!(
                error,
                LlmError::BadResponse(_)
                    | LlmError::Network(_)
                    | LlmError::Http { .. }
                    | LlmError::ContextLengthExceeded(_)
            ),
            "unexpected error kind: {error:?}"
        ),
        End::Vanished => prop_assert!(false, "the reading task died (panicked?)"),
    }
    Ok(())
}

#[test]
fn every_recorded_stream_reads_to_its_known_message() {
    let expected_tool_calls = [0, 1, 2, 0, 1, 0, 1, 0];
    for (recorded, calls) in recorded().iter().zip(expected_tool_calls) {
        assert_eq!(recorded.whole.trailing, 0, "{}", recorded.name);
        let response = recorded
            .whole
            .response()
            .unwrap_or_else(|| panic!("{}: {:?}", recorded.name, recorded.whole.end));
        assert!(response.finish_reason.is_some(), "{}", recorded.name);
        assert!(response.usage.is_some(), "{}", recorded.name);
        assert!(!response.model.is_empty(), "{}", recorded.name);
        assert_eq!(response.tool_calls.len(), calls, "{}", recorded.name);
        for call in &response.tool_calls {
            // Every recorded call carries its provider id: nothing is generated, so
            // readings compare whole.
            let id = format!("\"{}\"", call.id);
            assert!(
                recorded.body.windows(id.len()).any(|w| w == id.as_bytes()),
                "{}",
                recorded.name
            );
        }
    }
}

/// The events of a body, each with the blank line that ends it.
fn frames_of(body: &[u8]) -> Vec<&[u8]> {
    let mut frames = Vec::new();
    let mut from = 0;
    while let Some(gap) = body[from..].windows(2).position(|w| w == b"\n\n") {
        frames.push(&body[from..from + gap + 2]);
        from += gap + 2;
    }
    if from < body.len() {
        frames.push(&body[from..]);
    }
    frames
}

/// A reading with the ids the accumulator made up for id-less calls (`call_<uuid>`)
/// replaced by one placeholder, so readings of a body without ids compare.
fn without_generated_ids(mut reading: Reading, body: &[u8]) -> Reading {
    let made_up = |id: &mut String| {
        let quoted = format!("\"{id}\"");
        if !body.windows(quoted.len()).any(|w| w == quoted.as_bytes()) {
            *id = "call_<generated>".into();
        }
    };
    for event in &mut reading.events {
        if let ModelEvent::ToolCallReady(call) = event {
            made_up(&mut call.id);
        }
    }
    if let End::Completed(response) = &mut reading.end {
        response
            .tool_calls
            .iter_mut()
            .for_each(|call| made_up(&mut call.id));
    }
    reading
}

/// Two chunks cut at every byte offset of every recorded stream (192 559 offsets):
/// UTF-8 sequences, `data:` prefixes, JSON and blank lines split everywhere. Each cut is
/// read in a body made of the event it falls in, then `[DONE]`: the reader starts every
/// event afresh, and reading the whole stream per cut would cost the square of its
/// length (12 minutes in a debug build; that variant is the ignored test below).
#[test]
fn a_cut_at_every_byte_offset_reads_the_same() {
    let runtime = runtime();
    let mut checked = 0usize;
    for recorded in recorded() {
        let frames = frames_of(&recorded.body);
        assert_eq!(frames.concat(), recorded.body, "{}", recorded.name);
        for (number, frame) in frames.iter().enumerate() {
            let mut body = frame.to_vec();
            if !frame.starts_with(b"data: [DONE]") {
                body.extend_from_slice(b"data: [DONE]\n\n");
            }
            let whole = without_generated_ids(runtime.block_on(read(vec![body.clone()])), &body);
            assert!(
                !matches!(whole.end, End::Vanished),
                "{} event {number}",
                recorded.name
            );
            // The cut at the event's end is the cut at the next event's start.
            let last = if number + 1 == frames.len() {
                frame.len() - 1
            } else {
                frame.len()
            };
            for at in 1..=last {
                let reading = runtime.block_on(read(split_at(&body, &[at])));
                let reading = without_generated_ids(reading, &body);
                assert!(
                    reading == whole,
                    "{} event {number} cut at byte {at}: {:?} instead of {:?}",
                    recorded.name,
                    reading,
                    whole
                );
                checked += 1;
            }
        }
    }
    let expected: usize = recorded().iter().map(|r| r.body.len() - 1).sum();
    assert_eq!(checked, expected);
}

/// Two chunks cut at every byte offset, each read as the whole stream: 192 559 readings
/// of up to 80 kB, about 12 minutes in a debug build. Run it with `--ignored`.
#[test]
#[ignore = "slow: about 12 minutes in a debug build; the per-event test covers the same cuts"]
fn every_split_point_of_the_whole_stream_reads_the_same() {
    let runtime = runtime();
    let mut checked = 0usize;
    for recorded in recorded() {
        for at in 1..recorded.body.len() {
            let reading = runtime.block_on(read(split_at(&recorded.body, &[at])));
            assert!(
                reading == recorded.whole,
                "{} split at byte {at}: {:?} instead of {:?}",
                recorded.name,
                reading.end,
                recorded.whole.end
            );
            checked += 1;
        }
    }
    let expected: usize = recorded().iter().map(|r| r.body.len() - 1).sum();
    assert_eq!(checked, expected);
}

/// One byte per chunk, the worst case for a reader that assumes whole lines or whole
/// characters.
#[test]
fn byte_by_byte_delivery_reads_the_same() {
    let runtime = runtime();
    for recorded in recorded() {
        let chunks = recorded.body.iter().map(|&byte| vec![byte]).collect();
        let reading = runtime.block_on(read(chunks));
        assert!(reading == recorded.whole, "{}", recorded.name);
    }
}

/// A change to one byte.
#[derive(Debug, Clone)]
enum Corruption {
    Flip { at: Index, bit: u8 },
    Overwrite { at: Index, byte: u8 },
    Insert { at: Index, byte: u8 },
    Delete { at: Index },
    Truncate { at: Index },
}

fn corruption() -> impl Strategy<Value = Corruption> {
    prop_oneof![
        (any::<Index>(), 0u8..8).prop_map(|(at, bit)| Corruption::Flip { at, bit }),
        (any::<Index>(), any::<u8>()).prop_map(|(at, byte)| Corruption::Overwrite { at, byte }),
        (any::<Index>(), any::<u8>()).prop_map(|(at, byte)| Corruption::Insert { at, byte }),
        any::<Index>().prop_map(|at| Corruption::Delete { at }),
        any::<Index>().prop_map(|at| Corruption::Truncate { at }),
    ]
}

fn corrupt(body: &mut Vec<u8>, corruption: &Corruption) {
    let len = body.len();
    if len == 0 {
        return;
    }
    match corruption {
        Corruption::Flip { at, bit } => body[at.index(len)] ^= 1 << bit,
        Corruption::Overwrite { at, byte } => body[at.index(len)] = *byte,
        Corruption::Insert { at, byte } => body.insert(at.index(len + 1), *byte),
        Corruption::Delete { at } => {
            body.remove(at.index(len));
        }
        Corruption::Truncate { at } => body.truncate(at.index(len)),
    }
}

/// Offsets into a body of unknown length, as fractions of it.
fn split_points() -> impl Strategy<Value = Vec<Index>> {
    prop::collection::vec(any::<Index>(), 0..48)
}

fn offsets(points: &[Index], len: usize) -> Vec<usize> {
    points.iter().map(|point| point.index(len + 1)).collect()
}

/// A JSON-level change to one node of one chunk.
#[derive(Debug, Clone)]
enum Tamper {
    /// Replace the node with this value (huge, negative, fractional numbers; wrong types).
    Replace(Value),
    /// Drop the node from its object or array.
    Remove,
    /// Repeat the node in its array, or put a copy of its chunk after it.
    Duplicate,
}

fn tamper() -> impl Strategy<Value = Tamper> {
    let odd_values = prop_oneof![
        Just(json!(u64::MAX)),
        Just(json!(i64::MIN)),
        Just(json!(-1)),
        Just(json!(1e308)),
        Just(json!(-0.5)),
        Just(json!(usize::MAX)),
        Just(json!(u32::MAX as u64 + 1)),
        Just(json!("")),
        Just(json!("\u{0}\u{fffd}")),
        Just(json!(null)),
        Just(json!(true)),
        Just(json!([])),
        Just(json!({})),
        Just(json!({"message": 7})),
    ];
    prop_oneof![
        4 => odd_values.prop_map(Tamper::Replace),
        2 => Just(Tamper::Remove),
        1 => Just(Tamper::Duplicate),
    ]
}

/// Walks from `value` along `path` (one index per level, reduced modulo the number of
/// children) and applies `tamper` where the walk ends. Returns whether to duplicate the
/// whole chunk (a `Duplicate` that ended at the root).
fn apply_tamper(value: &mut Value, path: &[Index], tamper: &Tamper) -> bool {
    let children = match value {
        Value::Object(map) => map.len(),
        Value::Array(items) => items.len(),
        _ => 0,
    };
    let Some((step, rest)) = path.split_first().filter(|_| children > 0) else {
        return match tamper {
            Tamper::Replace(new) => {
                *value = new.clone();
                false
            }
            Tamper::Remove => {
                *value = Value::Null;
                false
            }
            Tamper::Duplicate => true,
        };
    };
    let at = step.index(children);
    let last_level = rest.is_empty() || {
        let child = match value {
            Value::Object(map) => map.values().nth(at),
            Value::Array(items) => items.get(at),
            _ => None,
        };
        !matches!(child, Some(Value::Object(_) | Value::Array(_)))
    };
    match (value, tamper) {
        (Value::Object(map), Tamper::Remove) if last_level => {
            if let Some(key) = map.keys().nth(at).cloned() {
                map.remove(&key);
            }
            false
        }
        (Value::Array(items), Tamper::Remove) if last_level => {
            items.remove(at);
            false
        }
        (Value::Array(items), Tamper::Duplicate) if last_level => {
            let copy = items[at].clone();
            items.insert(at, copy);
            false
        }
        (Value::Object(map), _) => match map.values_mut().nth(at) {
            Some(child) => apply_tamper(child, rest, tamper),
            None => false,
        },
        (Value::Array(items), _) => apply_tamper(&mut items[at], rest, tamper),
        _ => false,
    }
}

/// The `data:` payloads of a recorded SSE body (without `[DONE]`), as JSON.
fn chunks_of(body: &[u8]) -> Vec<Value> {
    String::from_utf8_lossy(body)
        .lines()
        .filter_map(|line| line.strip_prefix("data: "))
        .filter(|data| *data != "[DONE]")
        .map(|data| serde_json::from_str(data).unwrap())
        .collect()
}

fn sse_of(chunks: &[Value]) -> Vec<u8> {
    let mut body = String::new();
    for chunk in chunks {
        body.push_str(&format!("data: {chunk}\n\n"));
    }
    body.push_str("data: [DONE]\n\n");
    body.into_bytes()
}

/// One tool-call fragment in a delta, with the odd indices and ids providers send.
#[derive(Debug, Clone)]
struct CallFragment {
    index: Option<u64>,
    id: Option<&'static str>,
    name: Option<&'static str>,
    arguments: Option<&'static str>,
}

fn call_fragment() -> impl Strategy<Value = CallFragment> {
    let index = prop::option::of(prop_oneof![
        3 => 0u64..3,
        1 => Just(u64::MAX),
        1 => Just(u64::MAX - 1),
    ]);
    let id = prop::option::of(prop::sample::select(vec!["", "call_a", "call_b", "call_c"]));
    let name = prop::option::of(prop::sample::select(vec!["", "query_target", "ads_"]));
    let arguments = prop::option::of(prop::sample::select(vec![
        "",
        "{",
        "}",
        "{}",
        "\"",
        "name",
        ":",
        "1",
        "{\"name\":\"M 31\"}",
        "[",
        "]",
    ]));
    (index, id, name, arguments).prop_map(|(index, id, name, arguments)| CallFragment {
        index,
        id,
        name,
        arguments,
    })
}

fn tool_call_chunk(fragment: &CallFragment) -> Value {
    let mut call = json!({"type": "function", "function": {}});
    if let Some(index) = fragment.index {
        call["index"] = json!(index);
    }
    if let Some(id) = fragment.id {
        call["id"] = json!(id);
    }
    if let Some(name) = fragment.name {
        call["function"]["name"] = json!(name);
    }
    if let Some(arguments) = fragment.arguments {
        call["function"]["arguments"] = json!(arguments);
    }
    json!({"choices": [{"index": 0, "delta": {"tool_calls": [call]}}]})
}

proptest! {
    // Failures are kept as the named regression tests above, not in a seed file.
    #![proptest_config(ProptestConfig {
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// Any set of split points (up to 47, repeats and empty chunks included) gives the
    /// same events and message as the whole body. 256 cases.
    #[test]
    fn any_chunking_reads_the_same(stream in any::<Index>(), points in split_points()) {
        let recorded = &recorded()[stream.index(STREAMS.len())];
        let chunks = split_at(&recorded.body, &offsets(&points, recorded.body.len()));
        let reading = runtime().block_on(read(chunks));
        prop_assert!(reading == recorded.whole, "{}", recorded.name);
    }

    /// Up to 8 byte-level corruptions, then arbitrary chunking: never a panic, always a
    /// message or a typed error. 256 cases.
    #[test]
    fn corrupted_bytes_end_in_a_message_or_a_typed_error(
        stream in any::<Index>(),
        corruptions in prop::collection::vec(corruption(), 1..8),
        points in split_points(),
    ) {
        let recorded = &recorded()[stream.index(STREAMS.len())];
        let mut body = recorded.body.clone();
        for corruption in &corruptions {
            corrupt(&mut body, corruption);
        }
        let chunks = split_at(&body, &offsets(&points, body.len()));
        let reading = runtime().block_on(read(chunks));
        assert_ends_properly(&reading)?;
    }

    /// Arbitrary bytes, with or without an SSE `data: ` prefix. 256 cases.
    #[test]
    fn arbitrary_bytes_end_in_a_message_or_a_typed_error(
        prefix in any::<bool>(),
        bytes in prop::collection::vec(any::<u8>(), 0..512),
        points in split_points(),
    ) {
        let mut body = if prefix { b"data: ".to_vec() } else { Vec::new() };
        body.extend_from_slice(&bytes);
        let chunks = split_at(&body, &offsets(&points, body.len()));
        let reading = runtime().block_on(read(chunks));
        assert_ends_properly(&reading)?;
    }

    /// Up to 6 JSON-level changes to the recorded chunks (huge, negative and fractional
    /// numbers, wrong types, dropped fields and array items, repeated items and chunks):
    /// never a panic. 256 cases.
    #[test]
    fn tampered_chunk_json_ends_in_a_message_or_a_typed_error(
        stream in any::<Index>(),
        tampers in prop::collection::vec(
            (any::<Index>(), prop::collection::vec(any::<Index>(), 0..8), tamper()),
            1..6,
        ),
    ) {
        let recorded = &recorded()[stream.index(STREAMS.len())];
        let mut chunks = chunks_of(&recorded.body);
        for (chunk, path, tamper) in &tampers {
            let at = chunk.index(chunks.len());
            if apply_tamper(&mut chunks[at], path, tamper) {
                let copy = chunks[at].clone();
                chunks.insert(at, copy);
            }
        }
        let reading = runtime().block_on(read(vec![sse_of(&chunks)]));
        assert_ends_properly(&reading)?;
    }

    /// Arbitrary sequences of tool-call fragments (missing, repeated and extreme indices,
    /// empty and changing ids, argument pieces that do and do not parse): the call
    /// completes, every call has an id and is announced ready exactly once. 256 cases.
    #[test]
    fn arbitrary_tool_call_fragments_assemble(
        fragments in prop::collection::vec(call_fragment(), 1..12),
    ) {
        let mut chunks: Vec<Value> = fragments.iter().map(tool_call_chunk).collect();
        chunks.push(json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}));
        let reading = runtime().block_on(read(vec![sse_of(&chunks)]));
        assert_ends_properly(&reading)?;
        let Some(response) = reading.response() else {
            return Err(TestCaseError::fail(format!("{:?}", reading.end)));
        };
        let mut ready: Vec<&str> = reading
            .events
            .iter()
            .filter_map(|event| match event {
                ModelEvent::ToolCallReady(call) => Some(call.id.as_str()),
                _ => None,
            })
            .collect();
        let mut final_ids: Vec<&str> = response.tool_calls.iter().map(|c| c.id.as_str()).collect();
        prop_assert!(final_ids.iter().all(|id| !id.is_empty()));
        ready.sort_unstable();
        final_ids.sort_unstable();
        prop_assert_eq!(ready, final_ids);
    }
}
