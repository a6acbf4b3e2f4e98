//! Retrieval quality on real papers: the four fixture PDFs are imported and embedded,
//! then every question of `crates/testkit/fixtures/retrieval/questions.json` is asked
//! under each configuration, and the rank of the first hit on the answer's exact page
//! (the paper and the page of the hit's snippet) gives top-1, top-3 and MRR@10, apart
//! for English and Chinese questions. Query latency (p50, p95) is measured on the same
//! library and, with `RETRIEVAL_SCALE=10000`, on one padded to that many passages, where
//! the same questions are scored again (the answers' pages among that many passages).
//!
//! `cargo bench -p asterism-library --bench retrieval`. The model is the installed one
//! (`ASTERISM_EMBEDDING_DIR` chooses another);
//! `RETRIEVAL_PASSAGE=120,200` sets the passage size in tokens; `RETRIEVAL_CONFIGS`
//! picks configurations by name (comma-separated; default all); `RETRIEVAL_BUDGETS`
//! adds the hybrid search with other keyword budgets (`hybrid-budget-N`).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use asterism_library::library::embed::Embedder;
use asterism_library::library::local::LocalModel;
use asterism_library::library::{Library, SearchHit, Tuning};
use asterism_library::papers::PaperSearch;
use asterism_library::sources::ads::AdsClient;
use asterism_library::sources::arxiv::ArxivClient;
use asterism_protocol::PaperRecord;
use asterism_store::{NewChunk, PaperFilter, Store};
use asterism_testkit::bench::percentile;

#[derive(serde::Deserialize)]
struct Question {
    id: String,
    paper: String,
    pages: Vec<i64>,
    kind: String,
    lang: String,
    question: String,
}

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../testkit/fixtures")
}

fn questions() -> Vec<Question> {
    let path = fixtures().join("retrieval/questions.json");
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

fn offline_papers(store: &Store) -> PaperSearch {
    let nowhere = "http://127.0.0.1:9".to_string();
    PaperSearch {
        ads: AdsClient::new(nowhere.clone(), None, Duration::from_secs(1)).unwrap(),
        arxiv: ArxivClient::new(nowhere, Duration::from_secs(1)).unwrap(),
        store: store.clone(),
    }
}

/// One configuration: which signals, and the knobs.
struct Config {
    name: &'static str,
    vectors: bool,
    keywords: bool,
    tuning: Tuning,
}

fn configs() -> Vec<Config> {
    let base = Tuning::default();
    let config = |name, vectors, keywords, tuning| Config {
        name,
        vectors,
        keywords,
        tuning,
    };
    let weighted = |bm25_weight, vector_weight| Tuning {
        bm25_weight,
        vector_weight,
        ..base
    };
    let all = vec![
        config("bm25", false, true, base),
        config("vectors", true, false, base),
        config("hybrid", true, true, base),
        config("hybrid-rrf", true, true, weighted(1.0, 1.0)),
        config(
            "hybrid-all-passages",
            true,
            true,
            Tuning {
                one_per_page: false,
                ..base
            },
        ),
        config("hybrid-v2", true, true, weighted(1.0, 2.0)),
        config("hybrid-b3", true, true, weighted(3.0, 1.0)),
        config(
            "hybrid-every-word",
            true,
            true,
            Tuning {
                scored_budget: i64::MAX,
                ..base
            },
        ),
    ];
    // `RETRIEVAL_BUDGETS=10000,20000`: the hybrid search with other keyword budgets.
    let budgets = std::env::var("RETRIEVAL_BUDGETS").unwrap_or_default();
    let all = all.into_iter().chain(
        budgets
            .split(',')
            .filter_map(|budget| budget.trim().parse::<i64>().ok())
            .map(|budget| {
                let name: &'static str = format!("hybrid-budget-{budget}").leak();
                config(
                    name,
                    true,
                    true,
                    Tuning {
                        scored_budget: budget,
                        ..base
                    },
                )
            }),
    );
    let all: Vec<Config> = all.collect();
    match std::env::var("RETRIEVAL_CONFIGS") {
        Ok(names) => all
            .into_iter()
            .filter(|c| names.split(',').any(|name| name.trim() == c.name))
            .collect(),
        Err(_) => all,
    }
}

/// The library of the four fixture papers, embedded by the installed model.
async fn build(dir: &std::path::Path, model: &LocalModel) -> Library {
    let store = Store::open_in_dir(dir).await.unwrap();
    let embedder: Arc<dyn Embedder> = Arc::new(model.load().unwrap());
    let mut chunker = model.chunker().unwrap();
    if let Ok(range) = std::env::var("RETRIEVAL_PASSAGE") {
        let (low, high) = range.split_once(',').expect("RETRIEVAL_PASSAGE=min,max");
        chunker = chunker.with_token_range(low.parse().unwrap()..high.parse().unwrap());
    }
    let library = Library::new(
        store.clone(),
        offline_papers(&store),
        chunker,
        dir,
        Some(embedder),
    );
    let files: Vec<PathBuf> = std::fs::read_dir(fixtures().join("pdfs"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    let started = Instant::now();
    library.import(&files, false, &|_, _, _| {}).await;
    let parsed = started.elapsed().as_secs_f64();
    let started = Instant::now();
    library.index(&|_, _| {}).await.unwrap().unwrap();
    let (passages, _) = store.chunk_counts().await.unwrap();
    println!(
        "library: {passages} passages; import {parsed:.1} s, embedding {:.1} s with {}",
        started.elapsed().as_secs_f64(),
        model.spec.name
    );
    library
}

/// 1-based rank of the first hit on the answer's paper and page.
fn rank(question: &Question, hits: &[SearchHit]) -> Option<usize> {
    hits.iter()
        .position(|hit| {
            let paper = hit.chunk.original_name.as_deref().unwrap_or_default();
            paper.starts_with(&question.paper)
                && hit
                    .chunk
                    .page
                    .is_some_and(|page| question.pages.contains(&page))
        })
        .map(|position| position + 1)
}

#[derive(Default)]
struct Score {
    asked: usize,
    top1: usize,
    top3: usize,
    reciprocal: f64,
    paper_top3: usize,
}

impl Score {
    fn add(&mut self, question: &Question, hits: &[SearchHit]) {
        self.asked += 1;
        let found = rank(question, hits);
        self.top1 += usize::from(found == Some(1));
        self.top3 += usize::from(found.is_some_and(|rank| rank <= 3));
        self.reciprocal += found.map_or(0.0, |rank| 1.0 / rank as f64);
        let on_paper = hits.iter().take(3).any(|hit| {
            let paper = hit.chunk.original_name.as_deref().unwrap_or_default();
            paper.starts_with(&question.paper)
        });
        self.paper_top3 += usize::from(on_paper);
    }

    fn cells(&self) -> String {
        let share = |n: usize| 100.0 * n as f64 / self.asked.max(1) as f64;
        format!(
            "{:.0}% | {:.0}% | {:.3} | {:.0}%",
            share(self.top1),
            share(self.top3),
            self.reciprocal / self.asked.max(1) as f64,
            share(self.paper_top3)
        )
    }
}

/// The library as a configuration sees it.
fn configured(library: &Library, config: &Config) -> Library {
    let mut tuning = config.tuning;
    if !config.keywords {
        tuning.bm25_weight = 0.0;
    }
    Library {
        embedder: config.vectors.then(|| library.embedder.clone()).flatten(),
        tuning,
        ..library.clone()
    }
}

/// Asks every question; returns the English and Chinese scores and the latencies (ms).
async fn ask_all(library: &Library, questions: &[Question]) -> (Score, Score, Vec<f64>) {
    // One warm-up query loads the models outside the timing.
    library
        .search("warm up", &PaperFilter::default(), 10)
        .await
        .unwrap();
    let (mut english, mut chinese, mut latencies) = (Score::default(), Score::default(), vec![]);
    for question in questions {
        let started = Instant::now();
        let results = library
            .search(&question.question, &PaperFilter::default(), 10)
            .await
            .unwrap();
        latencies.push(started.elapsed().as_secs_f64() * 1000.0);
        let score = if question.lang == "zh" {
            &mut chinese
        } else {
            &mut english
        };
        score.add(question, &results.hits);
        if std::env::var("RETRIEVAL_DEBUG").is_ok() && rank(question, &results.hits) != Some(1) {
            let got: Vec<String> = results
                .hits
                .iter()
                .take(3)
                .map(|hit| {
                    let paper = hit.chunk.original_name.clone().unwrap_or_default();
                    format!(
                        "{}:{}",
                        &paper[..paper.len().min(8)],
                        hit.chunk.page.unwrap_or(0)
                    )
                })
                .collect();
            println!(
                "  miss {} ({}, want p{:?}): got {got:?}",
                question.id, question.kind, question.pages
            );
        }
    }
    (english, chinese, latencies)
}

/// Pads the library to `total` passages: sentences of its own passages shuffled into
/// new ones under made-up papers, each with a vector near a real one.
async fn pad(library: &Library, total: usize) {
    let store = &library.store;
    let ids = store
        .chunk_ids_matching(&PaperFilter::default())
        .await
        .unwrap();
    let real = store.chunk_hits(&ids).await.unwrap();
    let vectors = library
        .embedder
        .as_ref()
        .unwrap()
        .embed(
            &real
                .iter()
                .take(64)
                .map(|c| c.text.clone())
                .collect::<Vec<_>>(),
        )
        .await
        .unwrap();
    let mut seed = 0x2545_f491_4f6c_dd1d_u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let missing = total.saturating_sub(real.len());
    for paper in 0..missing.div_ceil(500) {
        let paper_id = store
            .upsert_paper(&PaperRecord {
                title: format!("padding paper {paper}"),
                ..PaperRecord::default()
            })
            .await
            .unwrap();
        let chunks: Vec<NewChunk> = (0..500)
            .map(|_| {
                let mut words: Vec<&str> = Vec::new();
                for _ in 0..3 {
                    let source = &real[next() as usize % real.len()].text;
                    for word in source.split(' ') {
                        if next() % 3 == 0 {
                            words.push(word);
                        }
                    }
                }
                NewChunk {
                    page: Some(1),
                    page_end: Some(1),
                    page_breaks: Vec::new(),
                    section: None,
                    text: words.join(" "),
                    keywords_only: false,
                }
            })
            .collect();
        store.replace_chunks(&paper_id, &chunks).await.unwrap();
    }
    loop {
        let batch = store.chunks_to_embed(5_000).await.unwrap();
        if batch.is_empty() {
            break;
        }
        let pairs: Vec<(i64, Vec<f32>)> = batch
            .iter()
            .map(|(id, _)| {
                let base = &vectors[next() as usize % vectors.len()];
                let mut v: Vec<f32> = base
                    .iter()
                    .map(|x| x + ((next() >> 40) as f32 / (1u64 << 24) as f32 - 0.5) * 0.05)
                    .collect();
                asterism_library::library::embed::normalize(&mut v);
                (*id, v)
            })
            .collect();
        store.store_vectors(&pairs).await.unwrap();
    }
    library.index.invalidate();
}

async fn run() {
    let Some(model) = LocalModel::find() else {
        println!("retrieval: no local embedding model (scripts/install-deps.sh); nothing measured");
        return;
    };
    let questions = questions();
    let dir = tempfile::tempdir().unwrap();
    let library = build(dir.path(), &model).await;
    println!(
        "questions: {} ({} in Chinese)",
        questions.len(),
        questions.iter().filter(|q| q.lang == "zh").count(),
    );
    println!(
        "| configuration | en top-1 | en top-3 | en MRR | en paper top-3 | zh top-1 | zh top-3 | zh MRR | zh paper top-3 | p50 ms | p95 ms |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|");
    let configs = configs();
    for config in &configs {
        let configured = configured(&library, config);
        let (english, chinese, mut latencies) = ask_all(&configured, &questions).await;
        println!(
            "| {} | {} | {} | {:.1} | {:.1} |",
            config.name,
            english.cells(),
            chinese.cells(),
            percentile(&mut latencies.clone(), 0.5),
            percentile(&mut latencies, 0.95)
        );
    }
    let Some(total) = std::env::var("RETRIEVAL_SCALE")
        .ok()
        .and_then(|v| v.parse().ok())
    else {
        return;
    };
    pad(&library, total).await;
    println!("padded to {total} passages:");
    for config in &configs {
        let configured = configured(&library, config);
        let (english, chinese, mut latencies) = ask_all(&configured, &questions).await;
        println!(
            "| {} | {} | {} | {:.1} | {:.1} |",
            config.name,
            english.cells(),
            chinese.cells(),
            percentile(&mut latencies.clone(), 0.5),
            percentile(&mut latencies, 0.95)
        );
    }
}

fn main() {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(run());
}
