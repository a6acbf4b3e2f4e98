//! Runtime figures (issue "2/6 Agent runtime"): run with
//! `cargo bench -p asterism-agent --bench runtime`.
//!
//! 1. Overhead per ReAct step: a 1,010-step session against an in-process model that
//!    answers instantly, one echo call per step, persistence to a real SQLite file
//!    included (flushed before the clock stops); the time per step around steps 10, 100
//!    and 1,000, and this process's CPU per step.
//! 2. Five concurrency-safe tools sleeping 200 ms each in one step: wall time of the step.
//! 3. Streaming executor: how long before the end of the model's stream the first tool
//!    starts, against the scripted model over loopback HTTP with 10 ms between chunks.
//! 4. Replay of a 10,000-message session: the whole timeline, and the tail the app opens
//!    with (first time and from the kept fold).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use asterism_agent::{
    AgentConfig, AgentRuntime, EventSink, RunRequest, Services, TimelineCache, ToolRegistry,
    session_timeline, test_tools,
};
use asterism_library::{SesameClient, TargetService};
use asterism_llm::{
    ChatModel, ChatRequest, ChatResponse, FinishReason, LlmError, ModelEvent, ModelEventStream,
    OpenAiClient, OpenAiConfig, ToolCall,
};
use asterism_protocol::AgentEvent;
use asterism_store::{MessageRole, NewMessage, Store};
use asterism_testkit::{MockLlm, Script, ScriptedToolCall, Turn};
use async_trait::async_trait;
use tokio_util::sync::CancellationToken;

/// Answers instantly: `steps` turns each calling `tool` with `calls` calls, then text.
struct InstantModel {
    turn: Mutex<usize>,
    steps: usize,
    calls: usize,
    tool: &'static str,
    arguments: fn(usize, usize) -> String,
}

#[async_trait]
impl ChatModel for InstantModel {
    fn model_name(&self) -> &str {
        "instant"
    }
    fn supports_thinking_toggle(&self) -> bool {
        false
    }
    async fn stream(
        &self,
        _request: ChatRequest,
        _cancel: CancellationToken,
    ) -> Result<ModelEventStream, LlmError> {
        let turn = {
            let mut turn = self.turn.lock().unwrap();
            *turn += 1;
            *turn
        };
        let response = if turn <= self.steps {
            ChatResponse {
                tool_calls: (0..self.calls)
                    .map(|index| ToolCall {
                        id: format!("call_{turn}_{index}"),
                        name: self.tool.into(),
                        arguments: (self.arguments)(turn, index),
                    })
                    .collect(),
                finish_reason: Some(FinishReason::ToolCalls),
                model: "instant".into(),
                ..ChatResponse::default()
            }
        } else {
            ChatResponse {
                text: "done".into(),
                finish_reason: Some(FinishReason::Stop),
                model: "instant".into(),
                ..ChatResponse::default()
            }
        };
        let mut events: Vec<Result<ModelEvent, LlmError>> = response
            .tool_calls
            .iter()
            .cloned()
            .map(|call| Ok(ModelEvent::ToolCallReady(call)))
            .collect();
        events.push(Ok(ModelEvent::Completed(response)));
        Ok(Box::pin(futures::stream::iter(events)))
    }
}

struct Timestamps {
    started: Instant,
    marks: Mutex<Vec<(Duration, &'static str)>>,
}

impl EventSink for Timestamps {
    fn emit(&self, event: AgentEvent) {
        let elapsed = self.started.elapsed();
        self.marks.lock().unwrap().push((elapsed, event.kind()));
    }
}

async fn services(dir: &std::path::Path) -> Arc<Services> {
    let store = Store::open_in_dir(dir).await.unwrap();
    let targets = TargetService::new(
        SesameClient::new("http://127.0.0.1:9", Duration::from_secs(1)).unwrap(),
        store.clone(),
        Duration::from_secs(60),
    );
    let papers = asterism_library::papers::PaperSearch {
        ads: asterism_library::sources::ads::AdsClient::new(
            "http://127.0.0.1:9",
            None,
            Duration::from_secs(1),
        )
        .unwrap(),
        arxiv: asterism_library::sources::arxiv::ArxivClient::new(
            "http://127.0.0.1:9",
            Duration::from_secs(1),
        )
        .unwrap(),
        store: store.clone(),
    };
    let downloader = asterism_library::download::Downloader::new(
        "http://127.0.0.1:9",
        papers.ads.clone(),
        store.clone(),
        dir,
    )
    .unwrap();
    let parser = asterism_library::parse::Parser::new("http://127.0.0.1:9", store.clone()).unwrap();
    let library = asterism_library::library::Library::new(
        store.clone(),
        papers.clone(),
        asterism_library::library::Chunker::characters(),
        dir,
        None,
    );
    Arc::new(Services {
        store,
        targets,
        papers,
        library,
        downloader,
        parser,
        data_dir: dir.to_path_buf(),
        file_state: Default::default(),
        background: Default::default(),
        team: asterism_agent::team::TeamManager::new(dir),
        workspace: None,
        scrubber: Default::default(),
        shell_network: false,
        vision: false,
        shell_read: Vec::new(),
        mcp: Default::default(),
        rerank: asterism_agent::rag::RerankSettings::off(),
    })
}

/// The mean time between consecutive tool results over steps `from..to` (1-based).
fn window_ms(results: &[Duration], from: usize, to: usize) -> f64 {
    let gaps: Vec<f64> = results
        .windows(2)
        .skip(from.saturating_sub(1))
        .take(to - from)
        .map(|pair| (pair[1] - pair[0]).as_secs_f64() * 1000.0)
        .collect();
    gaps.iter().sum::<f64>() / gaps.len().max(1) as f64
}

async fn step_overhead() {
    let dir = tempfile::tempdir().unwrap();
    let steps = 1_010;
    let model = Arc::new(InstantModel {
        turn: Mutex::new(0),
        steps,
        calls: 1,
        tool: "echo",
        arguments: |turn, _| format!("{{\"text\": \"step {turn}\"}}"),
    });
    let config = AgentConfig {
        max_steps: 2_000,
        ..AgentConfig::default()
    };
    let runtime = AgentRuntime::new(
        services(dir.path()).await,
        model,
        test_tools::registry(),
        config,
    );
    let sink = Arc::new(Timestamps {
        started: Instant::now(),
        marks: Mutex::default(),
    });
    let started = Instant::now();
    let cpu = cpu_seconds();
    let outcome = runtime
        .run(
            RunRequest {
                session_id: None,
                question: "bench".into(),
                enable_thinking: false,
                first_tool: None,
            },
            sink.clone(),
            CancellationToken::new(),
        )
        .await;
    let total = started.elapsed();
    let cpu = cpu_seconds() - cpu;
    let marks = sink.marks.lock().unwrap().clone();
    let results: Vec<Duration> = marks
        .iter()
        .filter(|(_, kind)| *kind == "ToolResult")
        .map(|(at, _)| *at)
        .collect();
    let last_result = *results.last().unwrap();
    let finished = marks
        .iter()
        .find(|(_, kind)| *kind == "RunFinished")
        .unwrap()
        .0;
    let stored = runtime
        .services()
        .store
        .messages(&outcome.session_id)
        .await
        .unwrap()
        .len();
    let per_step = total.as_secs_f64() * 1000.0 / f64::from(outcome.steps);
    println!(
        "step overhead: {} steps in {:.1} ms = {per_step:.3} ms per step, {:.3} ms of this process's CPU per step (target < 1 ms, flat), {stored} messages stored; flush to RunFinished {:.1} ms",
        outcome.steps,
        total.as_secs_f64() * 1000.0,
        cpu * 1000.0 / f64::from(outcome.steps),
        (finished - last_result).as_secs_f64() * 1000.0
    );
    println!(
        "  per step around step 10: {:.3} ms, 100: {:.3} ms, 1000: {:.3} ms",
        window_ms(&results, 5, 15),
        window_ms(&results, 95, 105),
        window_ms(&results, 995, 1005),
    );
}

/// CPU time (user + system) this process has used, in seconds.
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map(|(_, rest)| rest.split_whitespace().collect())
        .unwrap_or_default();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|v| v.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    // After the command: state is field 0, utime 11 and stime 12 (clock ticks of 1/100 s).
    (ticks(11) + ticks(12)) / 100.0
}

async fn five_parallel_sleeps() {
    let dir = tempfile::tempdir().unwrap();
    let model = Arc::new(InstantModel {
        turn: Mutex::new(0),
        steps: 1,
        calls: 5,
        tool: "delay",
        arguments: |_, _| "{\"ms\": 200}".into(),
    });
    let runtime = AgentRuntime::new(
        services(dir.path()).await,
        model,
        test_tools::registry(),
        AgentConfig::default(),
    );
    let sink = Arc::new(Timestamps {
        started: Instant::now(),
        marks: Mutex::default(),
    });
    runtime
        .run(
            RunRequest {
                session_id: None,
                question: "bench".into(),
                enable_thinking: false,
                first_tool: None,
            },
            sink.clone(),
            CancellationToken::new(),
        )
        .await;
    let marks = sink.marks.lock().unwrap();
    let first_call = marks
        .iter()
        .find(|(_, kind)| *kind == "ToolCall")
        .unwrap()
        .0;
    let last_result = marks
        .iter()
        .filter(|(_, kind)| *kind == "ToolResult")
        .map(|(at, _)| *at)
        .max()
        .unwrap();
    println!(
        "five 200 ms tools: step wall {:.1} ms from first call to last result (target < 260 ms)",
        (last_result - first_call).as_secs_f64() * 1000.0
    );
}

async fn streaming_head_start() {
    let dir = tempfile::tempdir().unwrap();
    let long_text = "a".repeat(400);
    let turns = vec![
        Turn {
            tool_calls: vec![
                ScriptedToolCall {
                    id: Some("first".into()),
                    name: "echo".into(),
                    arguments: serde_json::json!({"text": "first"}),
                },
                ScriptedToolCall {
                    id: Some("second".into()),
                    name: "echo".into(),
                    arguments: serde_json::json!({"text": long_text}),
                },
            ],
            ..Turn::default()
        },
        Turn {
            text: Some("done".into()),
            ..Turn::default()
        },
    ];
    let mock = MockLlm::start(Script {
        turns,
        chunk_chars: 16,
        delay_ms: 10,
        ..Script::default()
    })
    .await
    .unwrap();
    let model: Arc<dyn ChatModel> =
        Arc::new(OpenAiClient::new(OpenAiConfig::new(mock.base_url(), None, "scripted")).unwrap());
    let runtime = AgentRuntime::new(
        services(dir.path()).await,
        model,
        test_tools::registry(),
        AgentConfig::default(),
    );
    let sink = Arc::new(Timestamps {
        started: Instant::now(),
        marks: Mutex::default(),
    });
    runtime
        .run(
            RunRequest {
                session_id: None,
                question: "bench".into(),
                enable_thinking: false,
                first_tool: None,
            },
            sink.clone(),
            CancellationToken::new(),
        )
        .await;
    let marks = sink.marks.lock().unwrap();
    let first_result = marks
        .iter()
        .find(|(_, kind)| *kind == "ToolResult")
        .unwrap()
        .0;
    let stream_end = marks.iter().find(|(_, kind)| *kind == "Usage").unwrap().0;
    let first_call = marks
        .iter()
        .find(|(_, kind)| *kind == "ToolCall")
        .unwrap()
        .0;
    println!(
        "streaming executor: first tool started {:.1} ms and finished {:.1} ms before the model's stream ended",
        (stream_end.saturating_sub(first_call)).as_secs_f64() * 1000.0,
        (stream_end.saturating_sub(first_result)).as_secs_f64() * 1000.0
    );
}

/// 4. Replay of a 10,000-message session (5,000 questions and answers with a formula, as
///    the app's end-to-end test imports): the whole timeline read and folded; the tail
///    the app opens with, the first time and again (the kept fold).
async fn replay_10k() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open_in_dir(dir.path()).await.unwrap();
    store.ensure_session("long", "10k", "bench").await.unwrap();
    let messages: Vec<NewMessage> = (1..=10_000u32)
        .map(|seq| {
            let user = seq % 2 == 1;
            NewMessage {
                session_id: "long".into(),
                run_id: format!("r{}", seq.div_ceil(2)),
                step: i32::from(!user),
                agent_name: "main".into(),
                role: if user {
                    MessageRole::User
                } else {
                    MessageRole::Assistant
                },
                content: if user {
                    format!("Question {seq}")
                } else {
                    format!("Answer {seq}: TRGB distance modulus $\\mu = 29.4$ for NGC {seq}.")
                },
                tool_calls: None,
                tool_call_id: None,
                metadata: serde_json::json!({}),
                raw_json: None,
            }
        })
        .collect();
    store.append_messages(&messages).await.unwrap();
    let time = |started: Instant| started.elapsed().as_secs_f64() * 1000.0;
    let mut whole = Vec::new();
    let mut cold = Vec::new();
    let mut warm = Vec::new();
    for _ in 0..10 {
        let started = Instant::now();
        let items = session_timeline(&store, "long").await.unwrap();
        whole.push(time(started));
        assert_eq!(items.len(), 10_000);
        let cache = TimelineCache::default();
        let started = Instant::now();
        let (total, tail) = cache.tail(&store, "long", 300).await.unwrap();
        cold.push(time(started));
        assert_eq!((total, tail.len()), (10_000, 300));
        let started = Instant::now();
        let _ = cache.timeline(&store, "long").await.unwrap();
        warm.push(time(started));
    }
    let median = |values: &mut Vec<f64>| {
        values.sort_by(f64::total_cmp);
        values[values.len() / 2]
    };
    println!(
        "replay of 10,000 messages: whole timeline {:.1} ms; tail of 300 first time {:.1} ms, the whole again from the kept fold {:.2} ms (medians of 10)",
        median(&mut whole),
        median(&mut cold),
        median(&mut warm)
    );
}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let _ = ToolRegistry::empty();
        // `cargo bench … --bench runtime -- steps`: the step overhead alone.
        let only_steps = std::env::args().any(|arg| arg == "steps");
        for round in 1..=3 {
            println!("-- round {round}");
            step_overhead().await;
            if only_steps {
                continue;
            }
            five_parallel_sleeps().await;
            streaming_head_start().await;
            replay_10k().await;
        }
    });
}
