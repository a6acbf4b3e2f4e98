//! Where the local model's limit is: passages embedded a second and the process's peak
//! memory for each batching and thread setting, on the passages of the fixture papers.
//!
//! `cargo bench -p asterism-library --bench embed_speed`. Each setting runs in a process
//! of its own (the peak, VmHWM, is a process's), the passages are those the import makes
//! (cached under `target/`). `EMBED_CONFIGS=batch:tokens:threads:sessions:arena,…` picks the
//! rows (e.g. `16:2048:0:1:off`; threads 0 is every core), `LOCAL_EMBEDDING_MODEL` (bge-small, minilm) the
//! model, `ASTERISM_BENCH_PDFS` the papers. The first row is the
//! default ([`EmbedTuning::default`]).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::time::{Duration, Instant};

use asterism_library::library::Library;
use asterism_library::library::embed::Embedder;
use asterism_library::library::local::{EmbedTuning, LocalModel};
use asterism_library::papers::PaperSearch;
use asterism_library::sources::ads::AdsClient;
use asterism_library::sources::arxiv::ArxivClient;
use asterism_store::Store;

const DEFAULT_CONFIGS: &str = "1:512:0:1:on,1:512:0:1:off,4:1024:0:1:off,16:2048:0:1:off,\
     1:512:1:2:on,1:512:1:2:off,4:1024:1:2:off,16:2048:1:2:off";

fn parse_config(text: &str) -> Option<EmbedTuning> {
    let parts: Vec<&str> = text.split(':').collect();
    let [batch, tokens, threads, sessions, arena] = parts.as_slice() else {
        return None;
    };
    Some(EmbedTuning {
        max_batch: batch.parse().ok()?,
        batch_tokens: tokens.parse().ok()?,
        threads: threads.parse().ok()?,
        sessions: sessions.parse().ok()?,
        arena: *arena == "on",
    })
}

/// The passages the import makes of the papers, cached as JSON under `target/`.
async fn passages(model: &LocalModel) -> Vec<String> {
    let cache =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target/embed-speed-passages.json");
    if let Ok(bytes) = std::fs::read(&cache)
        && let Ok(texts) = serde_json::from_slice::<Vec<String>>(&bytes)
    {
        return texts;
    }
    let folder = std::env::var_os("ASTERISM_BENCH_PDFS")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../testkit/fixtures/pdfs")
        });
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open_in_dir(dir.path()).await.unwrap();
    let papers = PaperSearch {
        ads: AdsClient::new(
            "http://127.0.0.1:9".to_string(),
            None,
            Duration::from_secs(1),
        )
        .unwrap(),
        arxiv: ArxivClient::new("http://127.0.0.1:9".to_string(), Duration::from_secs(1)).unwrap(),
        store: store.clone(),
    };
    let library = Library::new(
        store.clone(),
        papers,
        model.chunker().unwrap(),
        dir.path(),
        None,
    );
    library.import(&[folder], false, &|_, _, _| {}).await;
    let texts: Vec<String> = store
        .chunks_to_embed(i64::MAX)
        .await
        .unwrap()
        .into_iter()
        .map(|(_, text)| text)
        .collect();
    let _ = std::fs::write(&cache, serde_json::to_vec(&texts).unwrap());
    texts
}

fn peak_kb() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|rest| rest.split_whitespace().next()?.parse().ok())
        .unwrap_or(0.0)
}

/// One setting, in this process: embeds every passage in the indexer's calls of
/// [`asterism_library::library::indexer::BATCH`] and prints a row.
async fn measure(model: &LocalModel, config: &str, tuning: EmbedTuning) {
    let texts = passages(model).await;
    let embedder = model.load_tuned(tuning).unwrap();
    embedder.embed(&["warm up".to_string()]).await.unwrap();
    let call = usize::try_from(asterism_library::library::indexer::BATCH).unwrap();
    let started = Instant::now();
    let mut vectors = Vec::with_capacity(texts.len());
    for slice in texts.chunks(call) {
        vectors.extend(embedder.embed(slice).await.unwrap());
    }
    let seconds = started.elapsed().as_secs_f64();
    assert_eq!(vectors.len(), texts.len());
    println!(
        "| {config} | {} | {:.1} | {:.1} | {:.0} |",
        texts.len(),
        seconds,
        texts.len() as f64 / seconds,
        peak_kb() / 1024.0
    );
}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let choice = std::env::var("LOCAL_EMBEDDING_MODEL")
        .unwrap_or_else(|_| asterism_library::library::local::DEFAULT_CHOICE.into());
    let Some(model) = LocalModel::find_preferring(&choice) else {
        println!(
            "embed_speed: the local model is not installed (scripts/install-deps.sh); skipped"
        );
        return;
    };
    if let Ok(config) = std::env::var("EMBED_SPEED_CHILD") {
        let tuning = parse_config(&config).expect("a setting batch:tokens:threads:sessions:arena");
        runtime.block_on(measure(&model, &config, tuning));
        return;
    }
    // The passages once, before any timing.
    let count = runtime.block_on(passages(&model)).len();
    println!(
        "model {} ({}), {count} passages",
        model.spec.name,
        model.dir.display()
    );
    println!("| batch:tokens:threads:sessions:arena | passages | seconds | passages/s | peak MB |");
    println!("|---|---|---|---|---|");
    let configs = std::env::var("EMBED_CONFIGS").unwrap_or_else(|_| DEFAULT_CONFIGS.into());
    let exe = std::env::current_exe().unwrap();
    for config in configs.split(',').map(str::trim).filter(|c| !c.is_empty()) {
        let status = std::process::Command::new(&exe)
            .env("EMBED_SPEED_CHILD", config)
            .arg("--bench")
            .status()
            .unwrap();
        if !status.success() {
            println!("| {config} | failed: {status} | | | |");
        }
    }
}
