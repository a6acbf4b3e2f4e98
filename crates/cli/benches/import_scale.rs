//! A library of a real size, imported the way a user does: `asterism library import
//! DIR` (release build, offline) of 100 or 1,000 distinct papers, then `asterism library
//! index`, then searches.
//!
//! `cargo bench -p asterism-cli --bench import_scale` (sizes 100; `SCALE_SIZES=100,1000`).
//! Each paper is made from one of the fixture PDFs (`testkit/fixtures/pdfs`): a seeded
//! choice of 45–70% of its pages, shuffled, never its first page (which
//! carries its arXiv id), under a title of its own. So each has its own
//! bytes, text, fingerprint and metadata, and none is merged with another as a duplicate
//! (the bench says so if one is). Papers and libraries live under `target/import-scale/`.
//!
//! Reported per size: wall time until every paper is searchable by keywords (the import)
//! and until every passage is embedded (the index), parse pages/s and embed passages/s,
//! each command's peak RSS (`/usr/bin/time`), the database and vector-file sizes, hybrid
//! search p50/p95 over the question set (in process), and a CLI search's wall time and
//! peak RSS.
//!
//! `SCALE_GROW=1000` then grows the last size's library to 1,000 papers for the search
//! figures alone: copies of its papers, each copy's passages tagged with its number (so
//! their texts differ) and its vectors moved by a little noise. Embedding 1,000 papers
//! takes this 2-core machine hours; a search's cost depends on the passages and vectors
//! there are, not on how they came. The copies repeat their words, so the keyword side
//! meets longer posting lists than 1,000 distinct papers would give it.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use asterism_testkit::bench::{XorShift, percentile};
use lopdf::{Document, Object};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Paper `index` made of `source`: its own choice and order of pages and its own title.
fn variant(source: &[u8], index: usize) -> Vec<u8> {
    let mut doc = Document::load_mem(source).unwrap();
    let mut rng =
        XorShift(0x9e37_79b9_7f4a_7c15 ^ (index as u64 + 1).wrapping_mul(0x2545_f491_4f6c_dd1d));
    let pages: Vec<_> = doc.get_pages().into_values().collect();
    // Between 45% and 70% of the pages: two papers made of one source share few enough
    // pages that their text fingerprints differ.
    let share = 45 + rng.below(26);
    let keep = (pages.len() * share / 100).max(3).min(pages.len());
    let mut order: Vec<usize> = (1..pages.len()).collect();
    for i in (1..order.len()).rev() {
        order.swap(i, rng.below(i + 1));
    }
    // Never the first page: its arXiv stamp or DOI would make every paper of one
    // source the same paper.
    order.truncate(keep);
    let kids: Vec<Object> = order.iter().map(|&i| Object::Reference(pages[i])).collect();
    let tree = doc
        .catalog()
        .unwrap()
        .get(b"Pages")
        .unwrap()
        .as_reference()
        .unwrap();
    for &i in &order {
        let page = doc.get_object_mut(pages[i]).unwrap().as_dict_mut().unwrap();
        page.set("Parent", Object::Reference(tree));
    }
    let node = doc.get_object_mut(tree).unwrap().as_dict_mut().unwrap();
    node.set("Count", Object::Integer(kids.len() as i64));
    node.set("Kids", Object::Array(kids));
    let mut fields = lopdf::Dictionary::new();
    fields.set(
        "Title",
        Object::string_literal(format!("Scale paper {index}")),
    );
    fields.set("Producer", Object::string_literal("asterism import_scale"));
    let info = doc.new_object_id();
    doc.objects.insert(info, Object::Dictionary(fields));
    doc.trailer.set("Info", Object::Reference(info));
    doc.prune_objects();
    let mut bytes = Vec::new();
    doc.save_to(&mut bytes).unwrap();
    bytes
}

/// The folder of `size` papers (made once).
fn corpus(size: usize) -> PathBuf {
    let dir = root().join(format!("target/import-scale/papers-{size}"));
    let made = std::fs::read_dir(&dir)
        .map(|entries| entries.count())
        .unwrap_or(0);
    if made == size {
        return dir;
    }
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let fixtures = root().join("crates/testkit/fixtures/pdfs");
    let mut sources: Vec<PathBuf> = std::fs::read_dir(&fixtures)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "pdf"))
        .collect();
    sources.sort();
    let sources: Vec<Vec<u8>> = sources
        .iter()
        .map(|path| std::fs::read(path).unwrap())
        .collect();
    for index in 0..size {
        let bytes = variant(&sources[index % sources.len()], index);
        std::fs::write(dir.join(format!("paper-{index:04}.pdf")), bytes).unwrap();
    }
    dir
}

/// Wall seconds and peak RSS (MB) of one `asterism` command, and its stdout.
fn timed(data: &Path, args: &[&str]) -> (f64, f64, String) {
    let report = data.with_extension("time");
    let started = Instant::now();
    let output = Command::new("/usr/bin/time")
        .arg("-f")
        .arg("%M")
        .arg("-o")
        .arg(&report)
        .arg(env!("CARGO_BIN_EXE_asterism"))
        .args(args)
        .env("ASTERISM_DATA_DIR", data)
        .env("ADS_API_URL", "http://127.0.0.1:9")
        .env("ARXIV_API_URL", "http://127.0.0.1:9")
        .env("CROSSREF_URL", "http://127.0.0.1:9")
        .env("SESAME_URL", "http://127.0.0.1:9")
        .output()
        .expect("/usr/bin/time (Debian's `time`) runs asterism");
    let seconds = started.elapsed().as_secs_f64();
    assert!(
        output.status.code().is_some_and(|code| code <= 2),
        "asterism {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let peak: f64 = std::fs::read_to_string(&report)
        .unwrap_or_default()
        .lines()
        .last()
        .and_then(|line| line.trim().parse().ok())
        .unwrap_or(0.0);
    (
        seconds,
        peak / 1024.0,
        String::from_utf8_lossy(&output.stdout).into_owned(),
    )
}

/// Hybrid search p50/p95 (ms) over the question set, in one process.
async fn search_latency(data: &Path) -> (f64, f64, usize) {
    let questions: Vec<serde_json::Value> = serde_json::from_slice(
        &std::fs::read(root().join("crates/testkit/fixtures/retrieval/questions.json")).unwrap(),
    )
    .unwrap();
    let mut environment: std::collections::HashMap<String, String> = std::env::vars().collect();
    environment.insert("ASTERISM_DATA_DIR".into(), data.display().to_string());
    let settings = asterism_agent::Settings::load_from(environment, None).unwrap();
    let services = asterism_agent::bootstrap::open_services(&settings)
        .await
        .unwrap();
    let library = &services.library;
    let filter = asterism_store::PaperFilter::default();
    // The first query reads the vectors and loads the model: outside the figures.
    library.search("warm up", &filter, 10).await.unwrap();
    let mut samples = Vec::new();
    for question in &questions {
        let text = question["question"].as_str().unwrap_or_default();
        let started = Instant::now();
        library.search(text, &filter, 10).await.unwrap();
        samples.push(started.elapsed().as_secs_f64() * 1e3);
    }
    let p50 = percentile(&mut samples, 0.5);
    let figures = (p50, percentile(&mut samples, 0.95), samples.len());
    for line in search_phases(library, &questions).await {
        println!("{line}");
    }
    figures
}

/// Where a search's time goes: each half of it timed alone over the same questions
/// (p50/p95, ms): the keyword side, the query's embedding, the vector scan.
async fn search_phases(
    library: &asterism_library::library::Library,
    questions: &[serde_json::Value],
) -> Vec<String> {
    use asterism_library::library::search::keyword_search;
    let filter = asterism_store::PaperFilter::default();
    let (mut keywords, mut embedding, mut scan) = (Vec::new(), Vec::new(), Vec::new());
    for question in questions {
        let text = question["question"].as_str().unwrap_or_default();
        let started = Instant::now();
        keyword_search(&library.store, text, &filter, &library.tuning)
            .await
            .unwrap();
        keywords.push(started.elapsed().as_secs_f64() * 1e3);
        let Some(embedder) = &library.embedder else {
            continue;
        };
        let started = Instant::now();
        let vector = embedder.embed_query(text).await.unwrap();
        embedding.push(started.elapsed().as_secs_f64() * 1e3);
        let started = Instant::now();
        library.index.search(&vector, library.tuning.per_side, None);
        scan.push(started.elapsed().as_secs_f64() * 1e3);
    }
    [
        ("keywords", keywords),
        ("query embedding", embedding),
        ("vector scan", scan),
    ]
    .into_iter()
    .filter(|(_, samples)| !samples.is_empty())
    .map(|(name, mut samples)| {
        let p50 = percentile(&mut samples, 0.5);
        let p95 = percentile(&mut samples, 0.95);
        format!("  of which {name}: p50 {p50:.1} ms, p95 {p95:.1} ms")
    })
    .collect()
}

fn file_mb(path: &Path) -> f64 {
    std::fs::metadata(path).map_or(0.0, |meta| meta.len() as f64 / 1e6)
}

/// The last NDJSON object of `kind` on stdout.
fn last_event(stdout: &str, kind: &str) -> serde_json::Value {
    stdout
        .lines()
        .rev()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .find(|event| event["kind"] == kind)
        .unwrap_or_default()
}

async fn measure(size: usize) -> Vec<String> {
    let papers = corpus(size);
    let data = root().join(format!("target/import-scale/data-{size}"));
    let _ = std::fs::remove_dir_all(&data);
    std::fs::create_dir_all(&data).unwrap();
    let folder = papers.to_str().unwrap();
    let (import_s, import_mb, stdout) = timed(
        &data,
        &[
            "library",
            "import",
            folder,
            "--offline",
            "--no-index",
            "--json",
        ],
    );
    let finished = last_event(&stdout, "finished");
    let imported = finished["imported"].as_u64().unwrap_or(0);
    if imported != size as u64 {
        println!("warning: {imported} of {size} imported: {finished}");
    }
    let (pages, passages) = counts(&data).await;
    let (index_s, index_mb, _) = timed(&data, &["library", "index", "--json"]);
    let db = file_mb(&data.join("asterism.db"));
    let cells = file_mb(&data.join("vectors.cells"));
    let (p50, p95, asked) = search_latency(&data).await;
    let (search_s, search_mb, _) = timed(
        &data,
        &["library", "search", "TRGB distance to the LMC", "--json"],
    );
    vec![
        format!("{size} papers ({imported} imported), {pages} pages, {passages} passages"),
        format!(
            "import (keywords searchable): {import_s:.1} s = {:.2} pages/s, peak {import_mb:.0} MB",
            pages as f64 / import_s
        ),
        format!(
            "index (every passage embedded): {index_s:.1} s = {:.1} passages/s, peak {index_mb:.0} MB",
            passages as f64 / index_s
        ),
        format!("until all embedded: {:.1} s", import_s + index_s),
        format!("database {db:.1} MB, vectors.cells {cells:.1} MB"),
        format!("hybrid search over {asked} questions: p50 {p50:.1} ms, p95 {p95:.1} ms"),
        format!("one CLI search: {search_s:.2} s, peak {search_mb:.0} MB"),
    ]
}

const COPY_PAPER: &str = "INSERT INTO papers (id, title, authors, year, journal, abstract, status, added_at, updated_at, metadata_source)
     SELECT ?1, title || ?2, authors, year, journal, abstract, status, added_at, updated_at, metadata_source
     FROM papers WHERE id = ?3";
const COPY_PASSAGES: &str =
    "INSERT INTO chunks (paper_id, ordinal, page, section, text, embedded, page_end, page_breaks)
     SELECT ?1, ordinal, page, section, text || ?2, embedded, page_end, page_breaks
     FROM chunks WHERE paper_id = ?3 ORDER BY ordinal";
const COPY_VECTORS: &str = "INSERT INTO chunk_vectors (rowid, embedding)
     SELECT n.id, vec_add(v.embedding, vec_f32(?2))
     FROM chunks n JOIN chunks o ON o.paper_id = ?3 AND o.ordinal = n.ordinal
     JOIN chunk_vectors v ON v.rowid = o.id WHERE n.paper_id = ?1";

/// Grows the library at `data` to `papers` papers with copies of the ones there (see
/// the module's notes); the number of passages then.
async fn grow(data: &Path, papers: usize) -> i64 {
    let store = asterism_store::Store::open_in_dir(data).await.unwrap();
    let pool = store.pool();
    let originals: Vec<String> = sqlx::query_scalar("SELECT id FROM papers ORDER BY id")
        .fetch_all(pool)
        .await
        .unwrap();
    let mut random = XorShift(11);
    let mut count = originals.len();
    let mut copy = 0;
    while count < papers {
        copy += 1;
        // One small step for every dimension of this copy's vectors.
        let noise: Vec<f32> = (0..384).map(|_| (random.unit_f32() - 0.5) * 0.02).collect();
        let noise = serde_json::to_string(&noise).unwrap();
        let mut tx = pool.begin().await.unwrap();
        for original in originals.iter().take(papers - count) {
            let id = format!("{original}-copy{copy}");
            let tag = format!(" (copy {copy})");
            // Each statement: ?1 the copy's id, ?2 its tag (or its vectors' noise), ?3
            // the paper copied.
            for (statement, second) in [
                (COPY_PAPER, &tag),
                (COPY_PASSAGES, &tag),
                (COPY_VECTORS, &noise),
            ] {
                sqlx::query(statement)
                    .bind(&id)
                    .bind(second)
                    .bind(original)
                    .execute(&mut *tx)
                    .await
                    .unwrap();
            }
            count += 1;
        }
        tx.commit().await.unwrap();
    }
    sqlx::query_scalar("SELECT COUNT(*) FROM chunks")
        .fetch_one(pool)
        .await
        .unwrap()
}

/// The library of `size` papers grown to `papers` (a copy of it, under
/// `target/import-scale/grown-{papers}`): what a search costs there.
async fn measure_grown(size: usize, papers: usize) -> Vec<String> {
    let from = root().join(format!("target/import-scale/data-{size}"));
    let data = root().join(format!("target/import-scale/grown-{papers}"));
    let _ = std::fs::remove_dir_all(&data);
    std::fs::create_dir_all(&data).unwrap();
    for name in ["asterism.db", "vectors.cells"] {
        let _ = std::fs::copy(from.join(name), data.join(name));
    }
    let started = Instant::now();
    let passages = grow(&data, papers).await;
    let grown_s = started.elapsed().as_secs_f64();
    // The first search reads every new vector into `vectors.cells`: outside the figures.
    let (first_s, _, _) = timed(&data, &["library", "search", "warm up", "--json"]);
    let mut walls = Vec::new();
    let mut peaks = Vec::new();
    for _ in 0..15 {
        let (wall, peak, _) = timed(
            &data,
            &["library", "search", "TRGB distance to the LMC", "--json"],
        );
        walls.push(wall);
        peaks.push(peak);
    }
    let (p50, p95, asked) = search_latency(&data).await;
    let db = file_mb(&data.join("asterism.db"));
    let cells = file_mb(&data.join("vectors.cells"));
    vec![
        format!(
            "grown to {papers} papers, {passages} passages ({grown_s:.0} s; the first search then indexed them in {first_s:.0} s)"
        ),
        format!("database {db:.1} MB, vectors.cells {cells:.1} MB"),
        format!("hybrid search over {asked} questions: p50 {p50:.1} ms, p95 {p95:.1} ms"),
        format!(
            "one CLI search, 15 runs: median {:.2} s, p90 {:.2} s, peak {:.0} MB",
            percentile(&mut walls, 0.5),
            percentile(&mut walls, 0.9),
            percentile(&mut peaks, 0.5)
        ),
    ]
}

/// Pages and passages (to embed) of the library at `data`.
async fn counts(data: &Path) -> (i64, i64) {
    let store = asterism_store::Store::open_in_dir(data).await.unwrap();
    let mut pages = 0;
    for paper in store
        .library_papers(&asterism_store::PaperFilter::default())
        .await
        .unwrap()
    {
        if let Some(text) = store.paper_text(&paper.id).await.unwrap() {
            pages += text.pages.unwrap_or(0);
        }
    }
    let pending = store.pending_chunks().await.unwrap();
    (pages, pending)
}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let sizes = std::env::var("SCALE_SIZES").unwrap_or_else(|_| "100".into());
    let mut last = None;
    for size in sizes
        .split(',')
        .filter_map(|size| size.trim().parse::<usize>().ok())
    {
        for line in runtime.block_on(measure(size)) {
            println!("{line}");
        }
        println!();
        last = Some(size);
    }
    let grow_to = std::env::var("SCALE_GROW")
        .ok()
        .and_then(|n| n.parse().ok());
    if let (Some(size), Some(papers)) = (last, grow_to) {
        for line in runtime.block_on(measure_grown(size, papers)) {
            println!("{line}");
        }
    }
}
