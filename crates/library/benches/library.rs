//! The library's figures: ingest throughput (import + parse + chunk + local embedding),
//! vector and hybrid query latency with recall against exact search on synthetic
//! clustered 384-d vectors. Retrieval quality is the `retrieval` bench's.
//!
//! `cargo bench -p asterism-library --bench library` (100k vectors); set
//! `BENCH_SIZES=100000,1000000` for the 1M figure and `ASTERISM_BENCH_PDFS=../shared/pdfs`
//! to ingest another folder (default: the test fixtures).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use asterism_library::library::embed::{EmbedError, Embedder};
use asterism_library::library::local::LocalModel;
use asterism_library::library::search::Retriever;
use asterism_library::library::vectors::{VectorIndex, nearest};
use asterism_library::library::{Library, Tuning};
use asterism_library::papers::PaperSearch;
use asterism_library::sources::ads::AdsClient;
use asterism_library::sources::arxiv::ArxivClient;
use asterism_protocol::PaperRecord;
use asterism_store::{NewChunk, PaperFilter, Store};
use asterism_testkit::bench::{XorShift as Rng, percentile};
use async_trait::async_trait;

fn normalize(v: &mut [f32]) {
    let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    v.iter_mut().for_each(|x| *x /= n);
}

fn papers(store: &Store) -> PaperSearch {
    PaperSearch {
        ads: AdsClient::new(
            "http://127.0.0.1:9".to_string(),
            None,
            Duration::from_secs(1),
        )
        .unwrap(),
        arxiv: ArxivClient::new("http://127.0.0.1:9".to_string(), Duration::from_secs(1)).unwrap(),
        store: store.clone(),
    }
}

/// Returns the vector stored for a query text.
struct FixedEmbedder(HashMap<String, Vec<f32>>);

#[async_trait]
impl Embedder for FixedEmbedder {
    fn name(&self) -> String {
        "fixed".into()
    }
    async fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError> {
        Ok(texts
            .iter()
            .map(|t| self.0.get(t).cloned().unwrap_or_else(|| vec![0.0; 384]))
            .collect())
    }
}

async fn ingest() {
    let folder = std::env::var_os("ASTERISM_BENCH_PDFS")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../testkit/fixtures/pdfs")
        });
    let Some(model) = LocalModel::find() else {
        println!("ingest: the local model is not installed (scripts/install-deps.sh); skipped");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open_in_dir(dir.path()).await.unwrap();
    let embedder: Arc<dyn Embedder> = Arc::new(model.load().unwrap());
    // Load the model outside the timing.
    embedder.embed(&["warm up".to_string()]).await.unwrap();
    let library = Library::new(
        store.clone(),
        papers(&store),
        model.chunker().unwrap(),
        dir.path(),
        Some(embedder),
    );
    let started = Instant::now();
    let items = library
        .import(std::slice::from_ref(&folder), false, &|_, _, _| {})
        .await;
    let imported = started.elapsed().as_secs_f64();
    let pages: i64 = sqlx_pages(&store).await;
    let (chunks, _) = store.chunk_counts().await.unwrap();
    let started = Instant::now();
    let report = library.index(&|_, _| {}).await.unwrap().unwrap();
    let indexed = started.elapsed().as_secs_f64();
    println!(
        "ingest {} ({} files): import+parse+chunk {pages} pages in {imported:.2} s = {:.1} pages/s, {chunks} chunks = {:.1} chunks/s; \
         local embeddings {} chunks in {indexed:.2} s = {:.1} chunks/s on {} threads; total {:.1} s",
        folder.display(),
        items.len(),
        pages as f64 / imported,
        chunks as f64 / imported,
        report.embedded,
        report.embedded as f64 / indexed,
        std::thread::available_parallelism().map_or(1, usize::from),
        imported + indexed
    );
}

async fn sqlx_pages(store: &Store) -> i64 {
    let mut pages = 0;
    for paper in store.library_papers(&PaperFilter::default()).await.unwrap() {
        if let Some(text) = store.paper_text(&paper.id).await.unwrap() {
            pages += text.pages.unwrap_or(0);
        }
    }
    pages
}

const VOCABULARY: &[&str] = &[
    "galaxy",
    "cluster",
    "distance",
    "redshift",
    "luminosity",
    "metallicity",
    "spectrum",
    "photometry",
    "supernova",
    "cepheid",
    "branch",
    "giant",
    "tip",
    "calibration",
    "parallax",
    "magnitude",
    "extinction",
    "dust",
    "halo",
    "disk",
    "bulge",
    "bar",
    "spiral",
    "elliptical",
    "dwarf",
    "stream",
    "velocity",
    "dispersion",
    "rotation",
    "curve",
    "mass",
    "dark",
    "matter",
    "lensing",
    "shear",
    "quasar",
    "nucleus",
    "accretion",
    "jet",
    "radio",
    "infrared",
    "ultraviolet",
    "xray",
    "gamma",
    "neutrino",
    "wave",
    "merger",
    "binary",
    "planet",
    "transit",
    "exoplanet",
    "atmosphere",
    "star",
    "formation",
    "feedback",
    "wind",
    "outflow",
    "gas",
    "molecular",
    "hydrogen",
    "survey",
    "catalog",
];

async fn vectors(n: usize) {
    let dir = tempfile::tempdir().unwrap();
    // BENCH_DB_DIR keeps the database for a look afterwards, and for the next run of
    // the same size (one size per directory: `{BENCH_DB_DIR}/{n}`).
    let db_dir = std::env::var_os("BENCH_DB_DIR")
        .map(|root| PathBuf::from(root).join(n.to_string()))
        .unwrap_or_else(|| dir.path().to_path_buf());
    let store = Store::open_in_dir(&db_dir).await.unwrap();
    let paper_id = store
        .upsert_paper(&PaperRecord {
            title: "synthetic".into(),
            ..PaperRecord::default()
        })
        .await
        .unwrap();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let centers: Vec<Vec<f32>> = (0..1000)
        .map(|_| {
            let mut v: Vec<f32> = (0..384).map(|_| rng.rough_gaussian()).collect();
            normalize(&mut v);
            v
        })
        .collect();
    let started = Instant::now();
    let mut chunks = Vec::with_capacity(n);
    let mut data: Vec<Vec<f32>> = Vec::with_capacity(n);
    for _ in 0..n {
        let center = &centers[(rng.next_u64() % 1000) as usize];
        let mut v: Vec<f32> = center
            .iter()
            .map(|c| c + 0.06 * rng.rough_gaussian())
            .collect();
        normalize(&mut v);
        data.push(v);
        // 40 words: 10% from 62 astronomy words (each in ~6% of passages), 45% from
        // 2,000 common words (each in ~1%), 45% from 18,000 rare ones.
        let words: Vec<String> = (0..40)
            .map(|_| {
                let r = rng.unit_f32();
                if r < 0.1 {
                    VOCABULARY[(rng.next_u64() % VOCABULARY.len() as u64) as usize].to_string()
                } else if r < 0.55 {
                    format!("w{}", rng.next_u64() % 2_000)
                } else {
                    format!("w{}", 2_000 + rng.next_u64() % 18_000)
                }
            })
            .collect();
        chunks.push(NewChunk {
            page: Some(1),
            page_end: Some(1),
            page_breaks: Vec::new(),
            section: None,
            text: words.join(" "),
            keywords_only: false,
        });
    }
    // A BENCH_DB_DIR that already holds this library (same seed, same n) is reused:
    // the 1M insert takes minutes.
    let reused = store.chunk_counts().await.unwrap() == (n as i64, n as i64);
    if !reused {
        store.replace_chunks(&paper_id, &chunks).await.unwrap();
    }
    drop(chunks);
    let ids: Vec<i64> = if reused {
        let mut ids = store
            .chunk_ids_matching(&PaperFilter::default())
            .await
            .unwrap();
        ids.sort_unstable();
        ids
    } else {
        store
            .chunks_to_embed(n as i64)
            .await
            .unwrap()
            .into_iter()
            .map(|(id, _)| id)
            .collect()
    };
    for batch in ids
        .chunks(20_000)
        .zip(data.chunks(20_000))
        .filter(|_| !reused)
    {
        let pairs: Vec<(i64, Vec<f32>)> = batch
            .0
            .iter()
            .copied()
            .zip(batch.1.iter().cloned())
            .collect();
        store.store_vectors(&pairs).await.unwrap();
    }
    let inserted = started.elapsed().as_secs_f64();
    let index = VectorIndex::new();
    let started = Instant::now();
    index.ensure_loaded(&store).await.unwrap();
    let loaded = started.elapsed().as_secs_f64();

    let queries: Vec<Vec<f32>> = (0..200)
        .map(|_| {
            let base = &data[(rng.next_u64() % n as u64) as usize];
            let mut q: Vec<f32> = base
                .iter()
                .map(|x| x + 0.05 * rng.rough_gaussian())
                .collect();
            normalize(&mut q);
            q
        })
        .collect();
    let mut latencies = Vec::new();
    let mut recall = 0.0;
    for query in &queries {
        let started = Instant::now();
        let found = nearest(&store, &index, query, 10, None).await.unwrap();
        latencies.push(started.elapsed().as_secs_f64() * 1000.0);
        // Exact top 10 in memory.
        let mut exact: Vec<(f32, usize)> = data
            .iter()
            .enumerate()
            .map(|(i, v)| (-v.iter().zip(query).map(|(a, b)| a * b).sum::<f32>(), i))
            .collect();
        exact.select_nth_unstable_by(10, |a, b| a.0.total_cmp(&b.0));
        let truth: std::collections::HashSet<i64> =
            exact[..10].iter().map(|(_, i)| ids[*i]).collect();
        recall += found.iter().filter(|(id, _)| truth.contains(id)).count() as f64 / 10.0;
    }
    let recall = recall / queries.len() as f64;
    // Full hybrid: BM25 + vectors + fusion + fetching the hits.
    let mut map = HashMap::new();
    // A question as people type it: function words, one astronomy word (in ~6% of the
    // passages) and two ordinary ones (~1% each).
    let texts: Vec<String> = (0..queries.len())
        .map(|i| {
            format!(
                "what do the papers say about the {} of w{} and w{}",
                VOCABULARY[i % VOCABULARY.len()],
                (i * 37) % 2_000,
                (i * 101 + 7) % 2_000
            )
        })
        .collect();
    for (text, query) in texts.iter().zip(&queries) {
        map.insert(text.clone(), query.clone());
    }
    let embedder = FixedEmbedder(map);
    let mut keyword = Vec::new();
    for text in &texts {
        let started = Instant::now();
        let found = asterism_library::library::search::keyword_search(
            &store,
            text,
            &PaperFilter::default(),
            &asterism_library::library::Tuning::default(),
        )
        .await
        .unwrap();
        if std::env::var("BENCH_DEBUG").is_ok() {
            eprintln!(
                "{text}: {} after {:.2} ms",
                found.len(),
                started.elapsed().as_secs_f64() * 1000.0
            );
        }
        keyword.push(started.elapsed().as_secs_f64() * 1000.0);
    }
    let mut hybrid = Vec::new();
    for text in &texts {
        let started = Instant::now();
        let retriever = Retriever {
            store: &store,
            index: &index,
            embedder: Some(&embedder),
            tuning: Tuning::default(),
        };
        let results = retriever
            .search(text, &PaperFilter::default(), 10)
            .await
            .unwrap();
        hybrid.push(started.elapsed().as_secs_f64() * 1000.0);
        assert!(!results.hits.is_empty());
    }
    println!(
        "vectors N={n}: insert {inserted:.1} s, bit index load {loaded:.2} s; vector part p50 {:.2} ms p95 {:.2} ms, recall@10 {recall:.3}; \
         BM25 part p50 {:.2} ms p95 {:.2} ms; hybrid (BM25 + vectors + fusion + hits) p50 {:.2} ms p95 {:.2} ms",
        percentile(&mut latencies.clone(), 0.5),
        percentile(&mut latencies, 0.95),
        percentile(&mut keyword.clone(), 0.5),
        percentile(&mut keyword, 0.95),
        percentile(&mut hybrid.clone(), 0.5),
        percentile(&mut hybrid, 0.95),
    );
    reopened(&store, &db_dir, &index, &queries[0]).await;
}

/// What a new process pays for the saved index: the cells saved beside the database,
/// then opened as a CLI search opens them (read, reconciled with the store, one query),
/// with the heap and the file-backed memory that adds.
async fn reopened(store: &Store, db_dir: &std::path::Path, index: &VectorIndex, query: &[f32]) {
    let path = db_dir.join("bench-vectors.cells");
    let saved = VectorIndex::persisted_at(&path);
    saved.load_saved();
    store
        .scan_vectors(4096, |batch| saved.add(batch))
        .await
        .unwrap();
    saved.save();
    drop(saved);
    let before = memory();
    let started = Instant::now();
    let fresh = VectorIndex::persisted_at(&path);
    fresh.ensure_loaded(store).await.unwrap();
    let loaded = started.elapsed().as_secs_f64() * 1000.0;
    let found = fresh.search(query, 10, None);
    let first = started.elapsed().as_secs_f64() * 1000.0;
    let after = memory();
    assert_eq!(found.len(), 10);
    assert_eq!(fresh.len(), index.len());
    let (_, heap) = fresh.bytes_per_vector();
    println!(
        "saved index N={}: {:.0} MB file; a new process reads and reconciles it in {loaded:.0} ms, \
         first query answered at {first:.0} ms; heap {heap} bytes a vector; anonymous memory +{:.0} MB, \
         file-backed +{:.0} MB (shared, evictable)",
        fresh.len(),
        std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0) as f64 / 1e6,
        (after.0 - before.0) / 1e3,
        (after.1 - before.1) / 1e3,
    );
    let _ = std::fs::remove_file(&path);
}

/// This process's resident anonymous and file-backed memory, in kB.
fn memory() -> (f64, f64) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|line| line.strip_prefix(name))
            .and_then(|rest| rest.split_whitespace().next()?.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    (field("RssAnon:"), field("RssFile:"))
}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let only = std::env::var("BENCH_ONLY").unwrap_or_default();
    runtime.block_on(async {
        if only.is_empty() || only == "ingest" {
            ingest().await;
        }
        if !(only.is_empty() || only == "vectors") {
            return;
        }
        let sizes = std::env::var("BENCH_SIZES").unwrap_or_else(|_| "100000".into());
        for size in sizes
            .split(',')
            .filter_map(|s| s.trim().parse::<usize>().ok())
        {
            vectors(size).await;
        }
    });
}
