//! Vector search on two kinds of data, every first pass tried side by side:
//! - real-distribution: the mean and full covariance of real MiniLM embeddings (every
//!   passage of the fixture PDFs, 7 in 8 of them; see `vector_search/real.rs`), N
//!   vectors drawn from that Gaussian and normalised; queries are the real question
//!   embeddings and the held-out real passages;
//! - synthetic clusters: 1000 tight clusters, queries are stored vectors plus noise (the
//!   `library` bench's data).
//!
//! For each: recall@10 against exact search, p50/p95 latency of one query on one thread
//! (the scans use both cores from 250k vectors, as the old index did), bytes per vector
//! and build time. The index rows are the production `VectorIndex` (the inverted file),
//! built by adding the vectors in batches as the indexer does, saved and read back, with
//! other shares of its cells read per query beside the shipped one.
//!
//! `cargo bench -p asterism-library --bench vector_search` (100k vectors);
//! `BENCH_SIZES=100000,1000000` for 1M too; `BENCH_SKIP_SCANS=1` leaves the scans out,
//! `BENCH_SKIP_INDEX=1` the index; `BENCH_SETS=real` only the real-distribution set.
//! The HNSW graphs shipped before (usearch; one graph, two graphs walked at once, other
//! link counts, graphs over principal components) were measured with this bench as of
//! commit b7f4a22, where their code is.
//! `BENCH_WRITE_FIXTURE=1` only writes the test fixture
//! `testkit/fixtures/vectors/minilm_passages.bin`. Needs the local model
//! (scripts/install-deps.sh) for the real-distribution set.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "vector_search/real.rs"]
mod real;
#[path = "vector_search/scan.rs"]
mod scan;

use std::collections::HashSet;
use std::time::Instant;

use asterism_library::library::vectors::{VectorIndex, share_for};

pub use asterism_testkit::bench::XorShift as Rng;
use asterism_testkit::bench::percentile;
use real::DIMENSIONS;
use scan::{First, Scan};

pub fn normalize(v: &mut [f32]) {
    let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if n > 0.0 {
        v.iter_mut().for_each(|x| *x /= n);
    }
}

pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// Mean and lower Cholesky factor of the covariance of `vectors`.
struct Gaussian {
    mean: Vec<f64>,
    factor: Vec<f64>,
}

impl Gaussian {
    fn fit(vectors: &[&[f32]]) -> Self {
        let (n, d) = (vectors.len() as f64, DIMENSIONS);
        let mut mean = vec![0.0; d];
        for v in vectors {
            for (m, x) in mean.iter_mut().zip(v.iter()) {
                *m += f64::from(*x) / n;
            }
        }
        let mut cov = vec![0.0; d * d];
        for v in vectors {
            let c: Vec<f64> = v
                .iter()
                .zip(&mean)
                .map(|(x, m)| f64::from(*x) - m)
                .collect();
            for i in 0..d {
                for j in 0..=i {
                    cov[i * d + j] += c[i] * c[j] / (n - 1.0);
                }
            }
        }
        // A small ridge: fewer passages than twice the dimensions leave it ill-posed.
        let ridge = 1e-4 * (0..d).map(|i| cov[i * d + i]).sum::<f64>() / d as f64;
        for i in 0..d {
            cov[i * d + i] += ridge;
        }
        let mut factor = vec![0.0; d * d];
        for i in 0..d {
            for j in 0..=i {
                let s: f64 = (0..j).map(|k| factor[i * d + k] * factor[j * d + k]).sum();
                factor[i * d + j] = if i == j {
                    (cov[i * d + i] - s).max(1e-12).sqrt()
                } else {
                    (cov[i * d + j] - s) / factor[j * d + j]
                };
            }
        }
        Self { mean, factor }
    }

    fn draw(&self, rng: &mut Rng) -> Vec<f32> {
        let d = DIMENSIONS;
        let z: Vec<f64> = (0..d).map(|_| rng.gaussian()).collect();
        let mut v: Vec<f32> = (0..d)
            .map(|i| {
                let row = &self.factor[i * d..i * d + i + 1];
                (self.mean[i] + row.iter().zip(&z).map(|(l, z)| l * z).sum::<f64>()) as f32
            })
            .collect();
        normalize(&mut v);
        v
    }
}

/// `n` vectors from `draw`, made on both cores (each part with its own seed).
fn generate(n: usize, draw: impl Fn(&mut Rng) -> Vec<f32> + Sync) -> Vec<Vec<f32>> {
    let threads = 2;
    let part = n.div_ceil(threads);
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let draw = &draw;
                scope.spawn(move || {
                    let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ ((t as u64 + 1) * 0x2545_f491));
                    (0..part.min(n - t * part))
                        .map(|_| draw(&mut rng))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        joined(handles)
    })
}

/// The exact top 10 of each query (indices), on both cores.
fn exact(data: &[Vec<f32>], queries: &[Vec<f32>]) -> Vec<HashSet<u32>> {
    let part = queries.len().div_ceil(2);
    std::thread::scope(|scope| {
        let handles: Vec<_> = queries
            .chunks(part)
            .map(|chunk| {
                scope.spawn(move || {
                    chunk
                        .iter()
                        .map(|q| {
                            let mut scored: Vec<(f32, u32)> = data
                                .iter()
                                .enumerate()
                                .map(|(i, v)| (-dot(v, q), i as u32))
                                .collect();
                            scored.select_nth_unstable_by(10, |a, b| a.0.total_cmp(&b.0));
                            scored[..10].iter().map(|(_, i)| *i).collect()
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        joined(handles)
    })
}

/// One data set: vectors, queries in named groups, and the exact answers.
struct Set {
    name: &'static str,
    data: Vec<Vec<f32>>,
    queries: Vec<Vec<f32>>,
    /// (group name, range of `queries`).
    groups: Vec<(&'static str, std::ops::Range<usize>)>,
    truth: Vec<HashSet<u32>>,
}

struct Row {
    name: String,
    recall: Vec<f64>,
    p50: f64,
    p95: f64,
    bytes: usize,
    build: f64,
}

fn measure(
    set: &Set,
    name: String,
    bytes: usize,
    build: f64,
    search: impl Fn(&[f32]) -> Vec<u32>,
) -> Row {
    for q in set.queries.iter().take(5) {
        search(q);
    }
    let mut latencies = Vec::new();
    let mut hits = Vec::new();
    for (q, truth) in set.queries.iter().zip(&set.truth) {
        let started = Instant::now();
        let found = search(q);
        latencies.push(started.elapsed().as_secs_f64() * 1000.0);
        hits.push(found.iter().filter(|i| truth.contains(i)).count() as f64 / 10.0);
    }
    let recall = set
        .groups
        .iter()
        .map(|(_, range)| hits[range.clone()].iter().sum::<f64>() / range.len() as f64)
        .collect();
    Row {
        name,
        recall,
        p50: percentile(&mut latencies.clone(), 0.5),
        p95: percentile(&mut latencies, 0.95),
        bytes,
        build,
    }
}

fn scans(set: &Set, rows: &mut Vec<Row>) {
    let n = set.data.len();
    let share = |p: f64| ((n as f64 * p) as usize).max(200);
    let firsts = [
        (
            First::Sign { centred: false },
            vec![
                ("0.2%, the old index", share(0.002)),
                ("1%", share(0.01)),
                ("5%", share(0.05)),
            ],
        ),
        (
            First::Sign { centred: true },
            vec![
                ("0.2%", share(0.002)),
                ("1%", share(0.01)),
                ("5%", share(0.05)),
            ],
        ),
        (
            First::Levels { bits: 2 },
            vec![("0.2%", share(0.002)), ("1%", share(0.01))],
        ),
        (
            First::Levels { bits: 4 },
            vec![("0.2%", share(0.002)), ("1%", share(0.01))],
        ),
    ];
    for (first, candidates) in firsts {
        let started = Instant::now();
        let index = Scan::build(&set.data, first);
        let build = started.elapsed().as_secs_f64();
        for (label, c) in candidates {
            let name = format!(
                "{} + int8 rescoring, {c} candidates ({label})",
                first.label()
            );
            rows.push(measure(set, name, index.bytes_per_vector(), build, |q| {
                index.search(q, 10, c)
            }));
        }
    }
}

fn cells(set: &Set, rows: &mut Vec<Row>, n: usize) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("vectors.cells");
    let index = VectorIndex::persisted_at(&path);
    index.load_saved();
    let pairs: Vec<(i64, Vec<f32>)> = set
        .data
        .iter()
        .enumerate()
        .map(|(i, v)| (i as i64, v.clone()))
        .collect();
    let started = Instant::now();
    for batch in pairs.chunks(4096) {
        index.add(batch);
    }
    let build = started.elapsed().as_secs_f64();
    drop(pairs);
    let started = Instant::now();
    index.save();
    let saved = started.elapsed().as_secs_f64();
    let reopened = VectorIndex::persisted_at(&path);
    let started = Instant::now();
    assert!(reopened.load_saved());
    let loaded = started.elapsed().as_secs_f64();
    let file = std::fs::metadata(&path).unwrap().len();
    println!(
        "{} N={n}: {} cells built in {build:.1} s, saved in {saved:.2} s ({} MB), read back in {loaded:.2} s",
        set.name,
        reopened.cell_count(),
        file / 1_000_000
    );
    let (bytes, allocated) = reopened.bytes_per_vector();
    println!(
        "{} N={n}: {bytes} B/vector in use, {allocated} B/vector allocated; file {} B/vector",
        set.name,
        file as usize / n
    );
    let search = |q: &[f32]| -> Vec<u32> {
        reopened
            .search(q, 10, None)
            .iter()
            .map(|(id, _)| *id as u32)
            .collect()
    };
    let shipped = share_for(n);
    let mut shares: Vec<f64> = SHARES.to_vec();
    shares.push(shipped);
    shares.sort_by(f64::total_cmp);
    shares.dedup();
    for share in shares {
        reopened.set_share(Some(share));
        let label = if share == shipped { " (shipped)" } else { "" };
        rows.push(measure(
            set,
            format!(
                "inverted file (the index), {} cells, int8, nearest cells holding {:.1}% of the vectors read{label}",
                reopened.cell_count(),
                share * 100.0
            ),
            bytes,
            build,
            search,
        ));
    }
}

/// Shares of the cells read per query, besides the shipped one.
const SHARES: [f64; 9] = [0.02, 0.04, 0.08, 0.12, 0.16, 0.20, 0.25, 0.30, 0.40];

/// What each thread made, in the threads' order.
fn joined<T>(handles: Vec<std::thread::ScopedJoinHandle<'_, Vec<T>>>) -> Vec<T> {
    handles
        .into_iter()
        .flat_map(|h| h.join().unwrap())
        .collect()
}

fn print(set: &Set, n: usize, rows: &[Row]) {
    let groups: Vec<String> = set
        .groups
        .iter()
        .map(|(g, r)| format!("recall@10 {g} ({})", r.len()))
        .collect();
    println!("\n{} N={n}\n", set.name);
    println!(
        "| configuration | {} | p50 ms | p95 ms | B/vector | build s |",
        groups.join(" | ")
    );
    println!("|---|{}---|---|---|---|", "---|".repeat(groups.len()));
    for row in rows {
        let recall: Vec<String> = row.recall.iter().map(|r| format!("{r:.3}")).collect();
        println!(
            "| {} | {} | {:.2} | {:.2} | {} | {:.1} |",
            row.name,
            recall.join(" | "),
            row.p50,
            row.p95,
            row.bytes,
            row.build
        );
    }
}

fn run(set: &Set) {
    let n = set.data.len();
    let mut rows = Vec::new();
    if std::env::var("BENCH_SKIP_SCANS").is_err() {
        scans(set, &mut rows);
    }
    if std::env::var("BENCH_SKIP_INDEX").is_err() {
        cells(set, &mut rows, n);
    }
    print(set, n, &rows);
}

fn real_distribution(found: &real::RealSet, n: usize) -> Set {
    // 7 in 8 passages fit the distribution, the 8th are queries.
    let (mut fit, mut held_out) = (Vec::new(), Vec::new());
    for (i, p) in found.passages.iter().enumerate() {
        if i % 8 == 7 {
            held_out.push(p.vector.clone())
        } else {
            fit.push(p.vector.as_slice())
        }
    }
    let gaussian = Gaussian::fit(&fit);
    let started = Instant::now();
    let data = generate(n, |rng| gaussian.draw(rng));
    let mut queries: Vec<Vec<f32>> = found.questions.iter().map(|q| q.vector.clone()).collect();
    let questions = queries.len();
    queries.extend(held_out);
    let truth = exact(&data, &queries);
    let mean = norm_of_mean(&data);
    println!(
        "real-distribution N={n}: drawn and exact answers in {:.1} s; norm of the mean {mean:.2} (real passages {:.2})",
        started.elapsed().as_secs_f64(),
        norm_of_mean(
            &found
                .passages
                .iter()
                .map(|p| p.vector.clone())
                .collect::<Vec<_>>()
        )
    );
    let total = queries.len();
    Set {
        name: "real-distribution",
        data,
        queries,
        groups: vec![
            ("questions", 0..questions),
            ("held-out passages", questions..total),
        ],
        truth,
    }
}

fn norm_of_mean(data: &[Vec<f32>]) -> f64 {
    let mut mean = vec![0.0f64; DIMENSIONS];
    for v in data {
        for (m, x) in mean.iter_mut().zip(v) {
            *m += f64::from(*x) / data.len() as f64;
        }
    }
    mean.iter().map(|x| x * x).sum::<f64>().sqrt()
}

fn clusters(n: usize) -> Set {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let centers: Vec<Vec<f32>> = (0..1000)
        .map(|_| {
            let mut v: Vec<f32> = (0..DIMENSIONS).map(|_| rng.gaussian() as f32).collect();
            normalize(&mut v);
            v
        })
        .collect();
    let data = generate(n, |rng| {
        let center = &centers[(rng.next_u64() % 1000) as usize];
        let mut v: Vec<f32> = center
            .iter()
            .map(|c| c + 0.06 * rng.gaussian() as f32)
            .collect();
        normalize(&mut v);
        v
    });
    let queries: Vec<Vec<f32>> = (0..200)
        .map(|_| {
            let base = &data[(rng.next_u64() % n as u64) as usize];
            let mut q: Vec<f32> = base
                .iter()
                .map(|x| x + 0.05 * rng.gaussian() as f32)
                .collect();
            normalize(&mut q);
            q
        })
        .collect();
    let truth = exact(&data, &queries);
    Set {
        name: "synthetic clusters",
        data,
        groups: vec![("stored + noise", 0..queries.len())],
        queries,
        truth,
    }
}

fn main() {
    let sizes: Vec<usize> = std::env::var("BENCH_SIZES")
        .unwrap_or_else(|_| "100000".into())
        .split(',')
        .filter_map(|s| s.trim().parse().ok())
        .collect();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let found = runtime.block_on(real::load());
    if std::env::var("BENCH_WRITE_FIXTURE").is_ok()
        && let Some(found) = &found
    {
        real::write_fixture(found);
        return;
    }
    let only = std::env::var("BENCH_SETS").unwrap_or_else(|_| "real,clusters".into());
    for n in sizes {
        if only.contains("real") {
            match &found {
                Some(found) => run(&real_distribution(found, n)),
                None => println!(
                    "real-distribution: no local embedding model (scripts/install-deps.sh); skipped"
                ),
            }
        }
        if only.contains("clusters") {
            run(&clusters(n));
        }
    }
}
