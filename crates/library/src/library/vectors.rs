//! The vector side of retrieval. sqlite-vec's `chunk_vectors` is the store of record;
//! beside it, in memory, each vector twice quantised: one sign bit per dimension (48
//! bytes) and one signed byte per dimension with a scale (388 bytes). A query scans the
//! bits with popcount (Hamming distance), keeps the closest few hundred candidates, and
//! rescores them with the int8 codes (cosine within ~0.003 of the float value). The copy
//! is built on first use from the stored vectors and kept current by the indexer.

use std::collections::HashSet;
use std::sync::RwLock;

use asterism_store::{Store, StoreError};

use crate::library::embed::DIMENSIONS;

const WORDS: usize = DIMENSIONS / 64;

type Bits = [u64; WORDS];

fn to_bits(vector: &[f32]) -> Bits {
    let mut bits = [0u64; WORDS];
    for (index, value) in vector.iter().take(DIMENSIONS).enumerate() {
        if *value > 0.0 {
            bits[index / 64] |= 1 << (index % 64);
        }
    }
    bits
}

fn hamming(a: &Bits, b: &Bits) -> u32 {
    a.iter().zip(b).map(|(x, y)| (x ^ y).count_ones()).sum()
}

#[derive(Default)]
struct BitIndex {
    loaded: bool,
    ids: Vec<i64>,
    bits: Vec<Bits>,
    /// `DIMENSIONS` signed bytes per vector, in `ids` order.
    codes: Vec<i8>,
    scales: Vec<f32>,
}

impl BitIndex {
    fn push(&mut self, id: i64, vector: &[f32]) {
        self.ids.push(id);
        self.bits.push(to_bits(vector));
        let largest = vector.iter().fold(0.0f32, |m, x| m.max(x.abs()));
        let scale = if largest > 0.0 { largest / 127.0 } else { 1.0 };
        self.scales.push(scale);
        self.codes.extend(
            (0..DIMENSIONS).map(|i| (vector.get(i).copied().unwrap_or(0.0) / scale).round() as i8),
        );
    }

    /// The cosine of `query` (unit length) with the vector at `slot`, from its codes.
    fn similarity(&self, slot: usize, query: &[f32]) -> f64 {
        let codes = &self.codes[slot * DIMENSIONS..(slot + 1) * DIMENSIONS];
        let dot: f32 = codes
            .iter()
            .zip(query)
            .map(|(c, q)| f32::from(*c) * q)
            .sum();
        f64::from(dot * self.scales[slot])
    }
}

/// The in-memory first pass over the stored vectors.
#[derive(Default)]
pub struct VectorIndex {
    inner: RwLock<BitIndex>,
}

impl std::fmt::Debug for VectorIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VectorIndex")
            .field("len", &self.len())
            .finish()
    }
}

/// Candidates kept for rescoring: 0.2% of the vectors, at least 200 (recall@10 0.985 at
/// 100k; 400 gave only 0.88 at 1M, hence a share rather than a constant).
pub fn candidates_for(k: usize, total: usize) -> usize {
    200.max(k * 10).max(total / 500)
}

impl VectorIndex {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn len(&self) -> usize {
        self.inner.read().map(|index| index.ids.len()).unwrap_or(0)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Reads every stored vector into the bit copy, once.
    pub async fn ensure_loaded(&self, store: &Store) -> Result<(), StoreError> {
        if self.inner.read().map(|index| index.loaded).unwrap_or(false) {
            return Ok(());
        }
        let mut loaded = BitIndex::default();
        store
            .scan_vectors(4096, |batch| {
                for (id, vector) in batch {
                    loaded.push(*id, vector);
                }
            })
            .await?;
        loaded.loaded = true;
        if let Ok(mut index) = self.inner.write() {
            *index = loaded;
        }
        Ok(())
    }

    /// Adds newly stored vectors (no effect before the first load, which reads them).
    pub fn add(&self, vectors: &[(i64, Vec<f32>)]) {
        if let Ok(mut index) = self.inner.write()
            && index.loaded
        {
            for (id, vector) in vectors {
                index.push(*id, vector);
            }
        }
    }

    /// Forgets the copy (after deletions); the next query reloads it.
    pub fn invalidate(&self) {
        if let Ok(mut index) = self.inner.write() {
            *index = BitIndex::default();
        }
    }

    /// The `k` nearest to `query`: the `n` closest by Hamming distance (among `allowed`
    /// when given), rescored with the int8 codes. (id, cosine similarity), best first.
    pub fn search(
        &self,
        query: &[f32],
        k: usize,
        n: usize,
        allowed: Option<&HashSet<i64>>,
    ) -> Vec<(i64, f64)> {
        let Ok(index) = self.inner.read() else {
            return Vec::new();
        };
        let query_bits = to_bits(query);
        let scored = closest_by_bits(&index, &query_bits, n, allowed);
        let mut rescored: Vec<(i64, f64)> = scored
            .into_iter()
            .map(|slot| (index.ids[slot], index.similarity(slot, query)))
            .collect();
        rescored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        rescored.truncate(k);
        rescored
    }
}

/// Hamming distances above every possible one: marks slots a filter leaves out.
const EXCLUDED: u16 = u16::MAX;
/// Below this many vectors one thread scans them all.
const PARALLEL_FROM: usize = 250_000;

/// The slots of (about) the `n` vectors closest to the query in Hamming distance of
/// their sign bits. One pass writes each slot's distance (2 bytes) and a histogram of
/// distances, on every core for a large index; the histogram gives the distance that
/// lets `n` in, and a second pass over the distances picks them. No sort and no
/// selection over the whole index.
fn closest_by_bits(
    index: &BitIndex,
    query: &Bits,
    n: usize,
    allowed: Option<&HashSet<i64>>,
) -> Vec<usize> {
    let total = index.bits.len();
    let mut distances = vec![EXCLUDED; total];
    let scan = |offset: usize, bits: &[Bits], out: &mut [u16]| {
        let mut histogram = [0usize; DIMENSIONS + 1];
        for (i, (bits, out)) in bits.iter().zip(out.iter_mut()).enumerate() {
            if allowed.is_some_and(|allowed| !allowed.contains(&index.ids[offset + i])) {
                continue;
            }
            let distance = hamming(query, bits) as usize;
            histogram[distance] += 1;
            *out = distance as u16;
        }
        histogram
    };
    let threads = if total >= PARALLEL_FROM {
        std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .min(8)
    } else {
        1
    };
    let part = total.div_ceil(threads.max(1)).max(1);
    let histograms: Vec<[usize; DIMENSIONS + 1]> = if threads > 1 {
        std::thread::scope(|scope| {
            let handles: Vec<_> = index
                .bits
                .chunks(part)
                .zip(distances.chunks_mut(part))
                .enumerate()
                .map(|(i, (bits, out))| scope.spawn(move || scan(i * part, bits, out)))
                .collect();
            handles
                .into_iter()
                .filter_map(|handle| handle.join().ok())
                .collect()
        })
    } else {
        vec![scan(0, &index.bits, &mut distances)]
    };
    let mut histogram = [0usize; DIMENSIONS + 1];
    for partial in &histograms {
        for (sum, count) in histogram.iter_mut().zip(partial) {
            *sum += count;
        }
    }
    // The smallest distance that lets at least n in; at that distance only some enter.
    let (mut within, mut threshold) = (0usize, DIMENSIONS);
    for (distance, count) in histogram.iter().enumerate() {
        if within + count >= n {
            threshold = distance;
            break;
        }
        within += count;
    }
    let mut room_at_threshold = n.saturating_sub(within);
    let mut slots = Vec::with_capacity(n.min(total));
    for (slot, distance) in distances.iter().enumerate() {
        let distance = usize::from(*distance);
        if distance < threshold {
            slots.push(slot);
        } else if distance == threshold && room_at_threshold > 0 {
            room_at_threshold -= 1;
            slots.push(slot);
        }
    }
    slots
}

/// The `k` nearest chunks to `query` (unit length): (chunk id, cosine similarity), best
/// first.
pub async fn nearest(
    store: &Store,
    index: &VectorIndex,
    query: &[f32],
    k: usize,
    allowed: Option<&HashSet<i64>>,
) -> Result<Vec<(i64, f64)>, StoreError> {
    index.ensure_loaded(store).await?;
    let n = candidates_for(k, index.len());
    Ok(index.search(query, k, n, allowed))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sign_bits_and_hamming() {
        let mut a = vec![-1.0f32; DIMENSIONS];
        a[0] = 1.0;
        a[383] = 0.5;
        let bits = to_bits(&a);
        assert_eq!(bits[0], 1);
        assert_eq!(bits[5], 1 << 63);
        assert_eq!(hamming(&bits, &to_bits(&a)), 0);
        let b = vec![1.0f32; DIMENSIONS];
        assert_eq!(hamming(&bits, &to_bits(&b)), 382);
    }

    #[test]
    fn int8_codes_keep_the_cosine() {
        let mut index = BitIndex::default();
        let mut v: Vec<f32> = (0..DIMENSIONS)
            .map(|i| ((i * 37 % 101) as f32 - 50.0) / 50.0)
            .collect();
        crate::library::embed::normalize(&mut v);
        let mut q: Vec<f32> = (0..DIMENSIONS)
            .map(|i| ((i * 53 % 97) as f32 - 48.0) / 48.0)
            .collect();
        crate::library::embed::normalize(&mut q);
        index.push(7, &v);
        let exact: f32 = v.iter().zip(&q).map(|(a, b)| a * b).sum();
        assert!((index.similarity(0, &q) - f64::from(exact)).abs() < 0.005);
        assert!((index.similarity(0, &v) - 1.0).abs() < 0.005);
    }
}
