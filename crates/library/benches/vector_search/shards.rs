//! The corpus split in two graphs, both walked at once, one per core
//! (`BENCH_SHARDS=2`; `BENCH_SHARDS_EF=512,1024` for the beams): each half is a smaller
//! graph, easier to walk, and the two walks share the query's time.

use std::time::Instant;

use usearch::{Index, IndexOptions, MetricKind, ScalarKind};

use super::{Row, Set, bytes_in_use, codes, measure, on_both_cores};
use crate::real::DIMENSIONS;

pub fn graphs(set: &Set, rows: &mut Vec<Row>) {
    let Some(count) = std::env::var("BENCH_SHARDS")
        .ok()
        .and_then(|s| s.parse::<usize>().ok())
        .filter(|n| *n > 1)
    else {
        return;
    };
    let beams: Vec<usize> = std::env::var("BENCH_SHARDS_EF")
        .unwrap_or_else(|_| "256,512,768,1024,1536".into())
        .split(',')
        .filter_map(|s| s.trim().parse().ok())
        .collect();
    let part = set.data.len().div_ceil(count);
    let started = Instant::now();
    let shards: Vec<Index> = set
        .data
        .chunks(part)
        .map(|chunk| {
            let index = Index::new(&IndexOptions {
                dimensions: DIMENSIONS,
                metric: MetricKind::Cos,
                quantization: ScalarKind::I8,
                connectivity: 16,
                expansion_add: 128,
                expansion_search: 64,
                multi: false,
            })
            .unwrap();
            index.reserve(chunk.len()).unwrap();
            on_both_cores(chunk, |i, v| index.add(i as u64, &codes(v)).unwrap());
            index
        })
        .collect();
    let build = started.elapsed().as_secs_f64();
    let bytes = shards
        .iter()
        .map(|s| bytes_in_use(s, s.size()) * s.size())
        .sum::<usize>()
        / set.data.len()
        + 8;
    println!(
        "{}: {count} graphs of {part} built in {build:.1} s",
        set.name
    );
    for ef in beams {
        shards.iter().for_each(|s| s.change_expansion_search(ef));
        rows.push(measure(
            set,
            format!("{count} HNSW graphs M=16, int8, one per core, ef={ef}"),
            bytes,
            build,
            |q| {
                let code = codes(q);
                let mut found: Vec<(f32, u32)> = std::thread::scope(|scope| {
                    let walks: Vec<_> = shards
                        .iter()
                        .enumerate()
                        .map(|(n, shard)| {
                            let code = &code;
                            scope.spawn(move || {
                                let hits = shard.search(code, 10).unwrap();
                                hits.keys
                                    .iter()
                                    .zip(&hits.distances)
                                    .map(|(k, d)| (*d, (n * part) as u32 + *k as u32))
                                    .collect::<Vec<_>>()
                            })
                        })
                        .collect();
                    walks.into_iter().flat_map(|w| w.join().unwrap()).collect()
                });
                found.sort_unstable_by(|a, b| a.0.total_cmp(&b.0));
                found.iter().take(10).map(|(_, k)| *k).collect()
            },
        ));
    }
}
