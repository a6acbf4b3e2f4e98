//! The scanning first passes tried against the graph: every vector is scored by a cheap
//! code, the best `c` are rescored with int8 codes (as the index before the graph did).
//! Scores are integers; a histogram picks the best `c` without sorting the whole index.

use crate::DIMENSIONS;

const WORDS: usize = DIMENSIONS / 64;
/// From this many vectors the scan runs on both cores.
const PARALLEL_FROM: usize = 250_000;

#[derive(Clone, Copy)]
pub enum First {
    /// One sign bit per dimension, Hamming distance; `centred`: of the vector minus the
    /// corpus mean.
    Sign { centred: bool },
    /// `bits` per dimension of the centred vector in steps of the dimension's spread,
    /// scored by a dot product with the (centred, int8) query. The bench keeps them one
    /// per byte; the bytes per vector are given as packed.
    Levels { bits: u32 },
}

impl First {
    pub fn label(&self) -> String {
        match self {
            First::Sign { centred: false } => "sign bits".into(),
            First::Sign { centred: true } => "mean-centred sign bits".into(),
            First::Levels { bits } => format!("mean-centred {bits}-bit codes"),
        }
    }
}

pub struct Scan {
    first: First,
    mean: Vec<f32>,
    /// Per dimension, the step of one level (`Levels`).
    step: Vec<f32>,
    bits: Vec<[u64; WORDS]>,
    levels: Vec<i8>,
    codes: Vec<i8>,
    scales: Vec<f32>,
}

impl Scan {
    pub fn build(data: &[Vec<f32>], first: First) -> Self {
        let n = data.len() as f32;
        let mut mean = vec![0.0f32; DIMENSIONS];
        let mut spread = vec![0.0f32; DIMENSIONS];
        for v in data {
            for d in 0..DIMENSIONS {
                mean[d] += v[d] / n;
            }
        }
        for v in data {
            for d in 0..DIMENSIONS {
                spread[d] += (v[d] - mean[d]).powi(2) / n;
            }
        }
        let (centred, level_bits) = match first {
            First::Sign { centred } => (centred, 0),
            First::Levels { bits } => (true, bits),
        };
        if !centred {
            mean.iter_mut().for_each(|m| *m = 0.0);
        }
        // 2 bits: levels -3,-1,1,3 of half a deviation; 4 bits: -7..=7 of 0.4 of one.
        let step: Vec<f32> = spread
            .iter()
            .map(|s| s.sqrt() * if level_bits == 2 { 0.5 } else { 0.4 })
            .collect();
        let mut index = Self {
            first,
            mean,
            step,
            bits: Vec::new(),
            levels: Vec::new(),
            codes: Vec::with_capacity(data.len() * DIMENSIONS),
            scales: Vec::with_capacity(data.len()),
        };
        for v in data {
            match first {
                First::Sign { .. } => index.bits.push(index.sign_bits(v)),
                First::Levels { .. } => {
                    let levels = index.levels_of(v);
                    index.levels.extend(levels);
                }
            }
            let largest = v.iter().fold(0.0f32, |m, x| m.max(x.abs()));
            let scale = largest / 127.0;
            index.scales.push(scale);
            index
                .codes
                .extend(v.iter().map(|x| (x / scale).round() as i8));
        }
        index
    }

    fn sign_bits(&self, v: &[f32]) -> [u64; WORDS] {
        let mut bits = [0u64; WORDS];
        for d in 0..DIMENSIONS {
            if v[d] > self.mean[d] {
                bits[d / 64] |= 1 << (d % 64);
            }
        }
        bits
    }

    fn levels_of(&self, v: &[f32]) -> Vec<i8> {
        (0..DIMENSIONS)
            .map(|d| {
                let x = (v[d] - self.mean[d]) / self.step[d];
                match self.first {
                    First::Levels { bits: 2 } => {
                        // The nearest odd level in -3..=3.
                        ((x / 2.0 + 0.5).floor() * 2.0 - 1.0).clamp(-3.0, 3.0) as i8
                    }
                    _ => x.round().clamp(-7.0, 7.0) as i8,
                }
            })
            .collect()
    }

    pub fn bytes_per_vector(&self) -> usize {
        let first = match self.first {
            First::Sign { .. } => WORDS * 8,
            First::Levels { bits } => DIMENSIONS * bits as usize / 8,
        };
        first + DIMENSIONS + 4 + 8
    }

    /// Integer scores, higher is closer, on both cores for a large index.
    fn scores(&self, query: &[f32]) -> Vec<i32> {
        let n = self.scales.len();
        let mut out = vec![0i32; n];
        let threads = if n >= PARALLEL_FROM { 2 } else { 1 };
        let part = n.div_ceil(threads);
        match self.first {
            First::Sign { .. } => {
                let q = self.sign_bits(query);
                let score = |bits: &[[u64; WORDS]], out: &mut [i32]| {
                    for (b, o) in bits.iter().zip(out) {
                        let distance: u32 =
                            b.iter().zip(&q).map(|(x, y)| (x ^ y).count_ones()).sum();
                        *o = -(distance as i32);
                    }
                };
                std::thread::scope(|scope| {
                    for (bits, out) in self.bits.chunks(part).zip(out.chunks_mut(part)) {
                        scope.spawn(move || score(bits, out));
                    }
                });
            }
            First::Levels { .. } => {
                // The centred query, times each dimension's step, as int8.
                let weighted: Vec<f32> = (0..DIMENSIONS)
                    .map(|d| (query[d] - self.mean[d]) * self.step[d])
                    .collect();
                let largest = weighted.iter().fold(0.0f32, |m, x| m.max(x.abs()));
                let q: Vec<i8> = weighted
                    .iter()
                    .map(|x| (x / largest * 127.0).round() as i8)
                    .collect();
                let score = |levels: &[i8], out: &mut [i32]| {
                    for (code, o) in levels.chunks_exact(DIMENSIONS).zip(out) {
                        *o = code
                            .iter()
                            .zip(&q)
                            .map(|(a, b)| i32::from(*a) * i32::from(*b))
                            .sum();
                    }
                };
                std::thread::scope(|scope| {
                    for (levels, out) in self
                        .levels
                        .chunks(part * DIMENSIONS)
                        .zip(out.chunks_mut(part))
                    {
                        scope.spawn(move || score(levels, out));
                    }
                });
            }
        }
        out
    }

    /// The top `k` (indices): the best `c` by the first pass, rescored with int8 codes.
    pub fn search(&self, query: &[f32], k: usize, c: usize) -> Vec<u32> {
        let scores = self.scores(query);
        let candidates = best(&scores, c);
        let mut rescored: Vec<(f32, u32)> = candidates
            .into_iter()
            .map(|i| {
                let code = &self.codes[i as usize * DIMENSIONS..(i as usize + 1) * DIMENSIONS];
                let s: f32 = code.iter().zip(query).map(|(c, q)| f32::from(*c) * q).sum();
                (-s * self.scales[i as usize], i)
            })
            .collect();
        rescored.sort_by(|a, b| a.0.total_cmp(&b.0));
        rescored.truncate(k);
        rescored.into_iter().map(|(_, i)| i).collect()
    }
}

/// The indices of (about) the `c` highest scores: a 1024-bin histogram gives the
/// threshold.
fn best(scores: &[i32], c: usize) -> Vec<u32> {
    let (low, high) = scores
        .iter()
        .fold((i32::MAX, i32::MIN), |(l, h), s| (l.min(*s), h.max(*s)));
    let width = (i64::from(high) - i64::from(low)) / 1024 + 1;
    let bin = |s: i32| ((i64::from(high) - i64::from(s)) / width) as usize;
    let mut histogram = vec![0usize; 1025];
    for s in scores {
        histogram[bin(*s)] += 1;
    }
    let (mut within, mut threshold) = (0, 1024);
    for (b, count) in histogram.iter().enumerate() {
        within += count;
        if within >= c {
            threshold = b;
            break;
        }
    }
    let mut kept: Vec<(i32, u32)> = scores
        .iter()
        .enumerate()
        .filter(|(_, s)| bin(**s) <= threshold)
        .map(|(i, s)| (-*s, i as u32))
        .collect();
    if kept.len() > c {
        kept.select_nth_unstable(c);
        kept.truncate(c);
    }
    kept.into_iter().map(|(_, i)| i).collect()
}
