//! A graph over the leading principal components, candidates rescored with the full
//! int8 codes (`BENCH_PCA=64,96`; `BENCH_PCA_EF=256,512` for the beams).
//!
//! Every data vector is unit length, so ranking by cosine is ranking by `q·c`, `c` the
//! vector minus the corpus mean; projected on the top components, `|P(q-μ) - Pc|²`
//! keeps most of that order in a space where a graph walks far better than in 384
//! dimensions of a Gaussian. The walk returns `ef` candidates; the int8 codes sort them.

use std::time::Instant;

use nalgebra::{DMatrix, SymmetricEigen};
use usearch::{Index, IndexOptions, MetricKind, ScalarKind};

use super::{Row, Set, bytes_in_use, codes, measure, on_both_cores};
use crate::real::DIMENSIONS;

/// Mean and the leading `dims` principal directions of a sample of `data`.
pub struct Projection {
    mean: Vec<f32>,
    /// `dims` rows of DIMENSIONS.
    rows: Vec<Vec<f32>>,
    pub explained: f64,
}

impl Projection {
    pub fn fit(data: &[Vec<f32>], dims: usize) -> Self {
        let sample: Vec<&Vec<f32>> = data.iter().step_by((data.len() / 20_000).max(1)).collect();
        let n = sample.len() as f64;
        let mut mean = vec![0.0f64; DIMENSIONS];
        for v in &sample {
            for (m, x) in mean.iter_mut().zip(v.iter()) {
                *m += f64::from(*x) / n;
            }
        }
        let centred = DMatrix::from_fn(sample.len(), DIMENSIONS, |r, c| {
            f64::from(sample[r][c]) - mean[c]
        });
        let cov = centred.transpose() * &centred / (n - 1.0);
        let eigen = SymmetricEigen::new(cov);
        let mut order: Vec<usize> = (0..DIMENSIONS).collect();
        order.sort_by(|a, b| eigen.eigenvalues[*b].total_cmp(&eigen.eigenvalues[*a]));
        let total: f64 = eigen.eigenvalues.iter().sum();
        let explained = order[..dims]
            .iter()
            .map(|i| eigen.eigenvalues[*i])
            .sum::<f64>()
            / total;
        let rows = order[..dims]
            .iter()
            .map(|i| {
                eigen
                    .eigenvectors
                    .column(*i)
                    .iter()
                    .map(|x| *x as f32)
                    .collect()
            })
            .collect();
        Self {
            mean: mean.iter().map(|x| *x as f32).collect(),
            rows,
            explained,
        }
    }

    pub fn project(&self, v: &[f32]) -> Vec<f32> {
        let centred: Vec<f32> = v.iter().zip(&self.mean).map(|(x, m)| x - m).collect();
        self.rows
            .iter()
            .map(|r| r.iter().zip(&centred).map(|(a, b)| a * b).sum())
            .collect()
    }
}

/// Minus the cosine of two codes (each scaled to its own largest component).
fn distance(a: &[i8], b: &[i8]) -> f32 {
    let (mut dot, mut bb) = (0i32, 0i32);
    for (x, y) in a.iter().zip(b) {
        dot += i32::from(*x) * i32::from(*y);
        bb += i32::from(*y) * i32::from(*y);
    }
    -(dot as f32) / (bb as f32).sqrt()
}

pub fn graphs(set: &Set, rows: &mut Vec<Row>) {
    let dims: Vec<usize> = std::env::var("BENCH_PCA")
        .unwrap_or_default()
        .split(',')
        .filter_map(|s| s.trim().parse().ok())
        .collect();
    let beams: Vec<usize> = std::env::var("BENCH_PCA_EF")
        .unwrap_or_else(|_| "64,128,256,512,1024".into())
        .split(',')
        .filter_map(|s| s.trim().parse().ok())
        .collect();
    let scalar = match std::env::var("BENCH_PCA_SCALAR").as_deref() {
        Ok("f16") => ScalarKind::F16,
        Ok("i8") => ScalarKind::I8,
        _ => ScalarKind::F32,
    };
    for d in dims {
        let started = Instant::now();
        let projection = Projection::fit(&set.data, d);
        // usearch's i8 takes values in [-1, 1]; the leading component's spread sets it.
        let scale = 1.0 / (4.0 * projection_spread(&projection, &set.data));
        let reduced = |v: &[f32]| -> Vec<f32> {
            let mut p = projection.project(v);
            if scalar == ScalarKind::I8 {
                p.iter_mut()
                    .for_each(|x| *x = (*x * scale).clamp(-1.0, 1.0));
            }
            p
        };
        let options = IndexOptions {
            dimensions: d,
            metric: MetricKind::L2sq,
            quantization: scalar,
            connectivity: 16,
            expansion_add: 128,
            expansion_search: 64,
            multi: false,
        };
        let index = Index::new(&options).unwrap();
        index.reserve(set.data.len()).unwrap();
        let full: Vec<Vec<i8>> = on_both_cores(&set.data, |i, v| {
            index.add(i as u64, &reduced(v)).unwrap();
            codes(v)
        });
        let build = started.elapsed().as_secs_f64();
        let bytes = bytes_in_use(&index, set.data.len()) + 8 + DIMENSIONS;
        println!(
            "{}: PCA {d} explains {:.1}% of the variance; graph built in {build:.1} s",
            set.name,
            projection.explained * 100.0
        );
        for &ef in &beams {
            index.change_expansion_search(ef);
            rows.push(measure(
                set,
                format!("PCA {d} ({scalar:?}) graph M=16, ef={ef}, int8 rescoring"),
                bytes,
                build,
                |q| {
                    let found = index.search(&reduced(q), ef).unwrap();
                    let code = codes(q);
                    let mut scored: Vec<(f32, u32)> = found
                        .keys
                        .iter()
                        .map(|k| (distance(&code, &full[*k as usize]), *k as u32))
                        .collect();
                    scored.sort_unstable_by(|a, b| a.0.total_cmp(&b.0));
                    scored.iter().take(10).map(|(_, k)| *k).collect()
                },
            ));
        }
    }
}

/// The standard deviation along the leading component.
fn projection_spread(projection: &Projection, data: &[Vec<f32>]) -> f32 {
    let sample: Vec<f32> = data
        .iter()
        .step_by((data.len() / 5000).max(1))
        .map(|v| projection.project(v)[0])
        .collect();
    let n = sample.len() as f32;
    (sample.iter().map(|x| x * x).sum::<f32>() / n).sqrt()
}
