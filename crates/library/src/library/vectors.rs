//! The vector side of retrieval. sqlite-vec's `chunk_vectors` is the store of record;
//! beside it, in memory, an inverted file ([`cells`]) over the vectors quantised to one
//! signed byte per dimension, each scaled to its own largest component (cosine is blind
//! to a vector's scale, so the codes keep it within ~0.003): k-means cells, each cell's
//! codes together, and a query reads the cells nearest to it. On MiniLM embeddings, which
//! all lean one way, a sign-bit scan needed 5% of the corpus as candidates to keep
//! recall@10 at 0.95, and graph walks needed beams so wide that 1M took ~10 ms; reading
//! the nearest cells in order gives 0.969 at 100k (p95 ~1 ms) and 0.963 at 1M (p95 2.8
//! ms) on the `vector_search` bench's real-distribution set.
//!
//! Below 20,000 vectors there is one cell and every code is scored. The cells are
//! trained (k-means on a sample) when the corpus reaches 20,000 vectors and again each
//! time it doubles; meanwhile new vectors join the cell of their nearest centre.
//!
//! The cells are saved next to the database (`vectors.cells`) after each indexing run,
//! and read back on first use, so a restart does not rebuild them. Their codes are not
//! read onto the heap but memory-mapped from that file ([`codes`]), so every process
//! reading a library shares one copy that the kernel may evict, and a search reads from
//! disk only the cells it looks at; a cell that changes is copied to the heap until the
//! next save maps it again. On first use (and
//! after deletions) they are reconciled with the store: vectors of deleted chunks leave
//! them, stored vectors they lack (an indexing run that stopped before saving) are added.

mod cells;
mod codes;
mod file;

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::RwLock;

use asterism_store::{PaperFilter, Store, StoreError};

use cells::Cells;
pub use cells::{TRAIN_FROM, cells_for, share_for};

use crate::library::embed::DIMENSIONS;
use crate::library::idle::LastUse;

/// A filter that lets at most this many vectors through is searched exactly.
const EXACT_UP_TO: usize = 20_000;

/// Files of the HNSW graphs earlier releases saved beside the database: removed once the
/// cells are saved.
const GRAPH_FILES: [&str; 4] = [
    "vectors.usearch",
    "vectors.keys",
    "vectors.1.usearch",
    "vectors.1.keys",
];

fn cosine(a: &[i8], b: &[i8]) -> f64 {
    let (mut dot, mut aa, mut bb) = (0i32, 0i32, 0i32);
    for (x, y) in a.iter().zip(b) {
        let (x, y) = (i32::from(*x), i32::from(*y));
        dot += x * y;
        aa += x * x;
        bb += y * y;
    }
    let norms = (f64::from(aa) * f64::from(bb)).sqrt();
    if norms > 0.0 {
        f64::from(dot) / norms
    } else {
        0.0
    }
}

#[derive(Default)]
struct State {
    cells: Option<Cells>,
    /// Chunks may have been deleted: reconcile with the store before the next query.
    stale: bool,
    /// Changed since it was last saved.
    unsaved: bool,
    /// Counts changes, so a training that ran beside one is not applied over it.
    changes: u64,
    /// The share of the vectors a query reads, when not [`share_for`] (the benches).
    share: Option<f64>,
}

/// The in-memory cells over the stored vectors, saved beside the database when given a
/// path.
#[derive(Default)]
pub struct VectorIndex {
    inner: RwLock<State>,
    path: Option<PathBuf>,
    last_use: LastUse,
    /// Held by the indexing run in progress: two runs (an import's and the app's
    /// background one) would embed the same passages twice.
    pub(crate) indexing: tokio::sync::Mutex<()>,
}

impl std::fmt::Debug for VectorIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VectorIndex")
            .field("len", &self.len())
            .field("path", &self.path)
            .finish()
    }
}

impl VectorIndex {
    /// An index kept in memory only.
    pub fn new() -> Self {
        Self::default()
    }

    /// An index saved at `path` (`vectors.cells` beside the database).
    pub fn persisted_at(path: &Path) -> Self {
        Self {
            path: Some(path.to_path_buf()),
            ..Self::default()
        }
    }

    pub fn len(&self) -> usize {
        self.inner
            .read()
            .ok()
            .and_then(|state| state.cells.as_ref().map(Cells::len))
            .unwrap_or(0)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes per vector in memory, for the figures: (in use by the codes, scales, ids,
    /// their map and the centres; allocated, with the vectors' room to grow).
    pub fn bytes_per_vector(&self) -> (usize, usize) {
        self.inner
            .read()
            .ok()
            .and_then(|state| state.cells.as_ref().map(Cells::bytes_per_vector))
            .unwrap_or((0, 0))
    }

    /// How many cells hold their codes on the heap rather than in the saved file.
    pub fn cells_on_heap(&self) -> usize {
        self.inner
            .read()
            .ok()
            .and_then(|state| {
                let cells = state.cells.as_ref()?;
                Some(cells.cells.iter().filter(|c| !c.codes.is_saved()).count())
            })
            .unwrap_or(0)
    }

    /// How many cells there are.
    pub fn cell_count(&self) -> usize {
        self.inner
            .read()
            .ok()
            .and_then(|state| state.cells.as_ref().map(|c| c.cells.len()))
            .unwrap_or(0)
    }

    fn read_or_create(&self) -> Cells {
        self.path
            .as_deref()
            .filter(|path| path.is_file())
            .and_then(file::read)
            .unwrap_or_default()
    }

    /// Reads the saved cells (empty ones when there are none), without looking at the
    /// store; true when they came from the file. For the benches: a library uses
    /// [`VectorIndex::ensure_loaded`].
    pub fn load_saved(&self) -> bool {
        let cells = self.read_or_create();
        let from_file = cells.len() > 0;
        if let Ok(mut state) = self.inner.write() {
            state.cells = Some(cells);
        }
        from_file
    }

    /// Overrides the share of the vectors a query reads ([`share_for`]; for the benches).
    pub fn set_share(&self, share: Option<f64>) {
        if let Ok(mut state) = self.inner.write() {
            state.share = share;
        }
    }

    /// Makes the cells match the store: read from their file (or built) on first use,
    /// then reconciled. Cheap once loaded and nothing was deleted.
    pub async fn ensure_loaded(&self, store: &Store) -> Result<(), StoreError> {
        self.last_use.touch();
        let ready = self
            .inner
            .read()
            .map(|state| state.cells.is_some() && !state.stale)
            .unwrap_or(false);
        if ready {
            return Ok(());
        }
        let chunk_ids: HashSet<i64> = store
            .chunk_ids_matching(&PaperFilter::default())
            .await?
            .into_iter()
            .collect();
        let (_, embedded) = store.chunk_counts().await?;
        let missing = {
            let Ok(mut state) = self.inner.write() else {
                return Ok(());
            };
            if state.cells.is_none() {
                state.cells = Some(self.read_or_create());
            }
            let Some(cells) = state.cells.as_mut() else {
                return Ok(());
            };
            let gone: HashSet<i64> = cells
                .ids()
                .filter(|id| !chunk_ids.contains(id))
                .copied()
                .collect();
            cells.remove(&gone);
            let missing = usize::try_from(embedded).unwrap_or(0) != cells.len();
            state.stale = false;
            state.unsaved |= !gone.is_empty();
            state.changes += 1;
            missing
        };
        if missing {
            // Vectors stored after the last save: read them all, add those not there.
            store.scan_vectors(4096, |batch| self.add(batch)).await?;
        }
        self.save();
        Ok(())
    }

    /// Adds newly stored vectors (no effect before the first load, which reads them);
    /// trains the cells anew when the corpus has doubled.
    pub fn add(&self, vectors: &[(i64, Vec<f32>)]) {
        self.last_use.touch();
        let wants_training = match self.inner.write() {
            Ok(mut state) => {
                let state = &mut *state;
                let Some(cells) = state.cells.as_mut() else {
                    return;
                };
                cells.add(vectors);
                state.unsaved = true;
                state.changes += 1;
                cells.wants_training()
            }
            Err(_) => false,
        };
        if wants_training {
            self.train();
        }
    }

    /// New centres and every vector moved to its nearest, worked out under the read
    /// lock (queries go on meanwhile) and swapped in unless the cells changed meanwhile.
    fn train(&self) {
        let (regrouped, seen) = {
            let Ok(state) = self.inner.read() else {
                return;
            };
            let Some(cells) = state.cells.as_ref() else {
                return;
            };
            let started = std::time::Instant::now();
            let regrouped = cells.regrouped(cells.train());
            tracing::info!(
                vectors = cells.len(),
                cells = regrouped.cells.len(),
                seconds = started.elapsed().as_secs_f64(),
                "trained the vector index"
            );
            (regrouped, state.changes)
        };
        if let Ok(mut state) = self.inner.write()
            && state.changes == seen
        {
            state.cells = Some(regrouped);
            state.changes += 1;
        }
    }

    /// Lets go of the cells when unused for `keep`, saved first if they changed; the
    /// next [`VectorIndex::ensure_loaded`] reads them back from their file. Only an
    /// index saved beside a database lets go (one in memory only has nowhere to read
    /// them back from). True when the cells were let go.
    pub fn release_if_idle(&self, keep: std::time::Duration) -> bool {
        if self.path.is_none() || !self.last_use.idle_for(keep) {
            return false;
        }
        self.save();
        // In use (a search or an indexing run holds the lock): not idle after all.
        let Ok(mut state) = self.inner.try_write() else {
            return false;
        };
        if state.unsaved || state.cells.is_none() {
            return false;
        }
        state.cells = None;
        state.changes += 1;
        true
    }

    /// Chunks were deleted: the next query first drops their vectors.
    pub fn invalidate(&self) {
        if let Ok(mut state) = self.inner.write() {
            state.stale = true;
        }
    }

    /// Forgets every vector (the embedding model changed).
    pub fn clear(&self) {
        if let Ok(mut state) = self.inner.write() {
            state.cells = Some(Cells::default());
            state.unsaved = true;
            state.changes += 1;
        }
    }

    /// Writes the cells to their file if they changed since the last save. A failure is
    /// logged: the cells are rebuilt from the store when the file is missing or stale.
    pub fn save(&self) {
        let Some(path) = &self.path else {
            return;
        };
        let Ok(mut state) = self.inner.write() else {
            return;
        };
        if !state.unsaved {
            return;
        }
        if let Some(cells) = &state.cells {
            match file::write(path, cells) {
                Ok(()) => {
                    state.unsaved = false;
                    forget_graph_files(path);
                    // The codes just written, from the file: the heap's copy goes.
                    if let Some(saved) = file::read(path) {
                        state.cells = Some(saved);
                        state.changes += 1;
                    }
                }
                Err(error) => tracing::warn!(%error, "could not save the vector index"),
            }
        }
    }

    /// The `k` nearest to `query` (among `allowed` when given): (id, cosine
    /// similarity), best first.
    pub fn search(
        &self,
        query: &[f32],
        k: usize,
        allowed: Option<&HashSet<i64>>,
    ) -> Vec<(i64, f64)> {
        self.last_use.touch();
        let Ok(state) = self.inner.read() else {
            return Vec::new();
        };
        match &state.cells {
            Some(cells) if k > 0 => {
                let share = state.share.unwrap_or_else(|| share_for(cells.len()));
                let exact_up_to = EXACT_UP_TO.max(cells.len() / 10);
                cells.search(query, k, allowed, share, exact_up_to)
            }
            _ => Vec::new(),
        }
    }
}

/// Removes the graph files an earlier release saved beside `path` (their vectors are in
/// the cells now).
fn forget_graph_files(path: &Path) {
    let Some(dir) = path.parent() else {
        return;
    };
    for name in GRAPH_FILES {
        let old = dir.join(name);
        if old.is_file()
            && let Err(error) = std::fs::remove_file(&old)
        {
            tracing::warn!(%error, path = %old.display(), "could not remove an old vector graph");
        }
    }
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
    Ok(index.search(query, k, allowed))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit(seed: usize) -> Vec<f32> {
        let mut v: Vec<f32> = (0..DIMENSIONS)
            .map(|i| ((i * (37 + seed) % 101) as f32 - 50.0) / 50.0)
            .collect();
        crate::library::embed::normalize(&mut v);
        v
    }

    /// `n` unit vectors in 50 loose groups (xorshift: the same every run).
    fn corpus(n: usize) -> Vec<(i64, Vec<f32>)> {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 40) as f32 / (1u64 << 24) as f32 - 0.5
        };
        let groups: Vec<Vec<f32>> = (0..50)
            .map(|_| (0..DIMENSIONS).map(|_| next()).collect())
            .collect();
        (0..n)
            .map(|i| {
                let mut v: Vec<f32> = groups[i % 50].iter().map(|g| g + 0.5 * next()).collect();
                crate::library::embed::normalize(&mut v);
                (i as i64 + 1, v)
            })
            .collect()
    }

    #[test]
    fn int8_codes_keep_the_cosine() {
        let (v, q) = (unit(0), unit(16));
        let exact: f32 = v.iter().zip(&q).map(|(a, b)| a * b).sum();
        let (cv, cq) = (cells::encode(&v).0, cells::encode(&q).0);
        assert!((cosine(&cv, &cq) - f64::from(exact)).abs() < 0.005);
        assert!((cosine(&cv, &cv) - 1.0).abs() < 0.005);
    }

    #[test]
    fn finds_a_stored_vector_and_respects_a_filter() {
        let index = VectorIndex::new();
        index.inner.write().unwrap().cells = Some(Cells::default());
        let vectors: Vec<(i64, Vec<f32>)> = (0..100).map(|i| (i as i64 + 1, unit(i))).collect();
        index.add(&vectors);
        index.add(&vectors[..10]);
        assert_eq!(index.len(), 100, "an id already there is not added twice");
        let found = index.search(&unit(42), 3, None);
        assert_eq!(found[0].0, 43);
        assert!((found[0].1 - 1.0).abs() < 0.01);
        let allowed: HashSet<i64> = [5, 6, 7].into();
        let found = index.search(&unit(42), 10, Some(&allowed));
        assert_eq!(found.len(), 3);
        assert!(found.iter().all(|(id, _)| allowed.contains(id)));
        assert!(index.search(&unit(42), 0, None).is_empty());
    }

    /// Removing moves the last vector of a cell into the hole: every other vector must
    /// still be found where the map says it is.
    #[test]
    fn removed_vectors_are_gone_and_the_others_still_found() {
        let index = VectorIndex::new();
        index.inner.write().unwrap().cells = Some(Cells::default());
        let vectors: Vec<(i64, Vec<f32>)> = (0..100).map(|i| (i as i64 + 1, unit(i))).collect();
        index.add(&vectors);
        let gone: HashSet<i64> = (1..=100).step_by(3).collect();
        index
            .inner
            .write()
            .unwrap()
            .cells
            .as_mut()
            .unwrap()
            .remove(&gone);
        assert_eq!(index.len(), 100 - gone.len());
        for (id, vector) in &vectors {
            let found = index.search(vector, 1, None);
            if gone.contains(id) {
                assert_ne!(found[0].0, *id);
            } else {
                assert_eq!(found[0].0, *id);
                let only: HashSet<i64> = [*id].into();
                assert_eq!(index.search(vector, 5, Some(&only))[0].0, *id);
            }
        }
    }

    /// At 20,000 vectors the cells are trained; they are saved, read back the same, and
    /// the graph files of an earlier release are removed.
    #[test]
    fn cells_are_trained_saved_and_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("vectors.cells");
        for old in GRAPH_FILES {
            std::fs::write(dir.path().join(old), b"an old graph").unwrap();
        }
        let index = VectorIndex::persisted_at(&path);
        assert!(!index.load_saved());
        let vectors = corpus(TRAIN_FROM + 1000);
        for batch in vectors.chunks(4096) {
            index.add(batch);
        }
        assert_eq!(index.len(), vectors.len());
        assert!(
            index.cell_count() >= cells_for(TRAIN_FROM),
            "trained: {} cells",
            index.cell_count()
        );
        let probe: Vec<&(i64, Vec<f32>)> = vectors.iter().step_by(997).collect();
        let answers: Vec<Vec<(i64, f64)>> = probe
            .iter()
            .map(|(_, v)| index.search(v, 10, None))
            .collect();
        for ((id, _), found) in probe.iter().zip(&answers) {
            assert_eq!(found[0].0, *id, "a stored vector is its own nearest");
        }
        index.save();
        assert!(path.is_file());
        for old in GRAPH_FILES {
            assert!(!dir.path().join(old).exists(), "{old} is removed");
        }
        let reopened = VectorIndex::persisted_at(&path);
        assert!(reopened.load_saved());
        assert_eq!(reopened.len(), vectors.len());
        assert_eq!(reopened.cell_count(), index.cell_count());
        for ((_, v), before) in probe.iter().zip(&answers) {
            assert_eq!(&reopened.search(v, 10, None), before);
        }
        // Read back, the codes stay in the file: the heap holds ids, scales and the map.
        assert_eq!(reopened.cells_on_heap(), 0);
        let (_, allocated) = reopened.bytes_per_vector();
        assert!(
            allocated < DIMENSIONS / 2,
            "{allocated} heap bytes a vector"
        );
        // A new vector copies the one cell it joins; the next save maps it again.
        let newcomer = (10_000_000, unit(7));
        reopened.add(std::slice::from_ref(&newcomer));
        assert_eq!(reopened.cells_on_heap(), 1);
        assert_eq!(reopened.search(&newcomer.1, 1, None)[0].0, newcomer.0);
        reopened.save();
        assert_eq!(reopened.cells_on_heap(), 0);
        assert_eq!(reopened.search(&newcomer.1, 1, None)[0].0, newcomer.0);
    }

    /// Another process saving the library's index replaces the file: a process that
    /// mapped the earlier one still reads what it mapped, and reads the new one next time.
    #[test]
    fn a_file_replaced_under_a_mapping_is_still_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("vectors.cells");
        let vectors = corpus(400);
        let writer = VectorIndex::persisted_at(&path);
        writer.load_saved();
        writer.add(&vectors[..300]);
        writer.save();
        let reader = VectorIndex::persisted_at(&path);
        assert!(reader.load_saved());
        assert_eq!(reader.cells_on_heap(), 0);
        let before: Vec<Vec<(i64, f64)>> = vectors[..300]
            .iter()
            .step_by(37)
            .map(|(_, v)| reader.search(v, 5, None))
            .collect();
        writer.add(&vectors[300..]);
        writer.save();
        let after: Vec<Vec<(i64, f64)>> = vectors[..300]
            .iter()
            .step_by(37)
            .map(|(_, v)| reader.search(v, 5, None))
            .collect();
        assert_eq!(before, after, "the mapping still holds the first file");
        assert_eq!(reader.len(), 300);
        let next = VectorIndex::persisted_at(&path);
        assert!(next.load_saved());
        assert_eq!(next.len(), 400);
        assert_eq!(next.search(&vectors[350].1, 1, None)[0].0, vectors[350].0);
    }

    /// A file cut short, with a byte changed in its header, or claiming more than it
    /// holds is not read (the index is rebuilt from the store), and nothing panics.
    #[test]
    fn a_damaged_file_is_not_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("vectors.cells");
        let index = VectorIndex::persisted_at(&path);
        index.load_saved();
        index.add(&corpus(300));
        index.save();
        let whole = std::fs::read(&path).unwrap();
        assert!(file::read(&path).is_some());
        let mut damaged = vec![
            whole[..whole.len() - 1].to_vec(),
            whole[..whole.len() / 2].to_vec(),
        ];
        let mut huge = whole.clone();
        // The first cell's length, after the 8 + 4 + 4 + 8 + 1 bytes of header.
        huge[25..33].copy_from_slice(&u64::MAX.to_le_bytes());
        damaged.push(huge);
        let mut longer = whole.clone();
        longer.push(0);
        damaged.push(longer);
        let mut dimensions = whole.clone();
        dimensions[8] ^= 1;
        damaged.push(dimensions);
        for bytes in damaged {
            std::fs::write(&path, &bytes).unwrap();
            assert!(file::read(&path).is_none(), "{} bytes read", bytes.len());
            let reopened = VectorIndex::persisted_at(&path);
            assert!(!reopened.load_saved());
            assert_eq!(reopened.len(), 0);
        }
    }
}
