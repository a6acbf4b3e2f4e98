//! The vector side of retrieval. sqlite-vec's `chunk_vectors` is the store of record;
//! beside it, in memory, one sign bit per dimension per chunk (48 bytes for 384
//! dimensions). A query scans the bits with popcount (Hamming distance), keeps the
//! closest few hundred candidates, and rescores them exactly (cosine) from the stored
//! float vectors. The bit copy is built on first use and kept current by the indexer.

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

/// Candidates kept for exact rescoring: enough for recall ≥ 0.95 at 1M vectors.
pub fn candidates_for(k: usize, total: usize) -> usize {
    let base = if total > 300_000 { 400 } else { 200 };
    base.max(k * 10)
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
        let mut ids = Vec::new();
        let mut bits = Vec::new();
        store
            .scan_vectors(4096, |batch| {
                for (id, vector) in batch {
                    ids.push(*id);
                    bits.push(to_bits(vector));
                }
            })
            .await?;
        if let Ok(mut index) = self.inner.write() {
            index.ids = ids;
            index.bits = bits;
            index.loaded = true;
        }
        Ok(())
    }

    /// Adds newly stored vectors (no effect before the first load, which reads them).
    pub fn add(&self, vectors: &[(i64, Vec<f32>)]) {
        if let Ok(mut index) = self.inner.write()
            && index.loaded
        {
            for (id, vector) in vectors {
                index.ids.push(*id);
                index.bits.push(to_bits(vector));
            }
        }
    }

    /// Forgets the copy (after deletions); the next query reloads it.
    pub fn invalidate(&self) {
        if let Ok(mut index) = self.inner.write() {
            *index = BitIndex::default();
        }
    }

    /// The `n` ids closest to `query` by Hamming distance, among `allowed` when given.
    pub fn candidates(&self, query: &[f32], n: usize, allowed: Option<&HashSet<i64>>) -> Vec<i64> {
        let Ok(index) = self.inner.read() else {
            return Vec::new();
        };
        let query = to_bits(query);
        let mut scored: Vec<(u32, i64)> = index
            .ids
            .iter()
            .zip(&index.bits)
            .filter(|(id, _)| allowed.is_none_or(|allowed| allowed.contains(id)))
            .map(|(id, bits)| (hamming(&query, bits), *id))
            .collect();
        if scored.len() > n {
            scored.select_nth_unstable(n);
            scored.truncate(n);
        }
        scored.sort_unstable();
        scored.into_iter().map(|(_, id)| id).collect()
    }
}

/// The `k` nearest chunks to `query`: (chunk id, cosine similarity), best first. The
/// bit pass picks candidates; the stored vectors rescore them exactly.
pub async fn nearest(
    store: &Store,
    index: &VectorIndex,
    query: &[f32],
    k: usize,
    allowed: Option<&HashSet<i64>>,
) -> Result<Vec<(i64, f64)>, StoreError> {
    index.ensure_loaded(store).await?;
    let n = candidates_for(k, index.len());
    let candidates = index.candidates(query, n, allowed);
    let mut scored: Vec<(i64, f64)> = store
        .vector_distances(query, &candidates)
        .await?
        .into_iter()
        .map(|(id, distance)| (id, 1.0 - distance))
        .collect();
    scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    scored.truncate(k);
    Ok(scored)
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
}
