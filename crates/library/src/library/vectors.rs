//! The vector side of retrieval. sqlite-vec's `chunk_vectors` is the store of record;
//! beside it, in memory, HNSW graphs (usearch) over the vectors quantised to one signed
//! byte per dimension, each scaled to its own largest component (cosine is blind to a
//! vector's scale, so the codes keep it within ~0.003). A query walks the graphs instead
//! of scanning every vector: on MiniLM embeddings, which all lean one way, a sign-bit
//! scan needed 5% of the corpus as candidates to keep recall@10 at 0.95; two graphs
//! walked at once reach it at 100k in ~1.8 ms (the `vector_search` bench; at 1M in
//! ~10 ms, short of the goal).
//!
//! The graphs are saved next to the database (`vectors.usearch`, `vectors.1.usearch`
//! and the lists of their chunk ids, `vectors.keys`, `vectors.1.keys`) after each
//! indexing run, and read back on first use, so a restart does not rebuild them. On
//! first use (and after deletions) they are reconciled with the store: vectors of
//! deleted chunks leave them, stored vectors they lack (an indexing run that stopped
//! before saving) are added.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::RwLock;

use asterism_store::{PaperFilter, Store, StoreError};
use usearch::{Index, IndexOptions, MetricKind, ScalarKind};

use crate::library::embed::DIMENSIONS;

/// Links per node (twice as many on the bottom level): ~550 bytes a vector in all.
const CONNECTIVITY: usize = 16;
/// The beam while inserting.
const EXPANSION_ADD: usize = 128;
/// A filter that lets at most this many vectors through is searched exactly.
const EXACT_UP_TO: usize = 20_000;

/// The beam of each walk, wider as the graphs grow. On the real-distribution bench
/// (107 questions), two graphs: recall@10 0.960 at 100k with 384 (p95 1.2 ms; one graph
/// needed 640 for 0.954-0.959 at p95 2.1-2.6 ms); at 1M 0.945 with 1536 (p95 9.3 ms) and
/// 0.964 with 2048 (p95 12.7 ms), short of the 5 ms goal
/// (docs/architecture/agent/library-and-rag.md, "Vector index").
pub fn expansion_for(total: usize) -> usize {
    match total {
        0..=200_000 => 384,
        _ => 2048,
    }
}

/// One signed byte per dimension, the largest component at +-127.
fn codes(vector: &[f32]) -> Vec<i8> {
    let largest = vector.iter().fold(0.0f32, |m, x| m.max(x.abs()));
    let scale = if largest > 0.0 { 127.0 / largest } else { 1.0 };
    (0..DIMENSIONS)
        .map(|i| (vector.get(i).copied().unwrap_or(0.0) * scale).round() as i8)
        .collect()
}

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

fn new_graph() -> Option<Index> {
    let options = IndexOptions {
        dimensions: DIMENSIONS,
        metric: MetricKind::Cos,
        quantization: ScalarKind::I8,
        connectivity: CONNECTIVITY,
        expansion_add: EXPANSION_ADD,
        expansion_search: expansion_for(0),
        multi: false,
    };
    Index::new(&options)
        .inspect_err(|error| tracing::warn!(%error, "could not create the vector index"))
        .ok()
}

/// One graph and the chunk ids in it.
struct Shard {
    index: Index,
    keys: Vec<i64>,
}

impl Shard {
    fn new() -> Option<Self> {
        new_graph().map(|index| Self {
            index,
            keys: Vec::new(),
        })
    }

    fn len(&self) -> usize {
        self.keys.len()
    }

    /// Adds vectors, on every core when there are many (usearch inserts concurrently).
    fn add(&mut self, vectors: &[(i64, Vec<f32>)]) {
        let fresh: Vec<&(i64, Vec<f32>)> = vectors
            .iter()
            .filter(|(id, _)| !self.index.contains(*id as u64))
            .collect();
        if fresh.is_empty() {
            return;
        }
        let needed = self.index.size() + fresh.len();
        if needed > self.index.capacity() {
            let grown = needed.max(self.index.capacity() * 3 / 2).max(1024);
            if let Err(error) = self.index.reserve(grown) {
                tracing::warn!(%error, "the vector index could not grow");
                return;
            }
        }
        let threads = if fresh.len() >= 256 {
            std::thread::available_parallelism().map_or(1, usize::from)
        } else {
            1
        };
        let part = fresh.len().div_ceil(threads);
        let index = &self.index;
        let added: Vec<i64> = std::thread::scope(|scope| {
            let handles: Vec<_> = fresh
                .chunks(part)
                .map(|chunk| {
                    scope.spawn(move || {
                        chunk
                            .iter()
                            .filter(|(id, vector)| index.add(*id as u64, &codes(vector)).is_ok())
                            .map(|(id, _)| *id)
                            .collect::<Vec<i64>>()
                    })
                })
                .collect();
            handles
                .into_iter()
                .filter_map(|handle| handle.join().ok())
                .flatten()
                .collect()
        });
        self.keys.extend(added);
    }

    fn remove(&mut self, gone: &HashSet<i64>) {
        for id in gone {
            let _ = self.index.remove(*id as u64);
        }
        self.keys.retain(|id| !gone.contains(id));
    }

    fn tune(&self, expansion: usize) {
        if self.index.expansion_search() != expansion {
            self.index.change_expansion_search(expansion);
        }
    }

    /// The `k` nearest among `allowed`, exactly: for a narrow filter, where a graph walk
    /// would mostly meet vectors the filter leaves out.
    fn exact_among(&self, query: &[i8], k: usize, allowed: &HashSet<i64>) -> Vec<(i64, f64)> {
        let mut stored = vec![0i8; DIMENSIONS];
        let mut scored: Vec<(i64, f64)> = allowed
            .iter()
            .filter_map(|id| match self.index.get(*id as u64, &mut stored) {
                Ok(1) => Some((*id, cosine(query, &stored))),
                _ => None,
            })
            .collect();
        best_first(&mut scored, k);
        scored
    }

    /// The graph walk (with `allowed` as a predicate when given).
    fn walk(&self, query: &[i8], k: usize, allowed: Option<&HashSet<i64>>) -> Vec<(i64, f64)> {
        let found = match allowed {
            Some(allowed) => self
                .index
                .filtered_search(query, k, |key| allowed.contains(&(key as i64))),
            None => self.index.search(query, k),
        };
        let Ok(found) = found.inspect_err(|error| tracing::warn!(%error, "vector search")) else {
            return Vec::new();
        };
        let mut hits: Vec<(i64, f64)> = found
            .keys
            .iter()
            .zip(&found.distances)
            .map(|(key, distance)| (*key as i64, 1.0 - f64::from(*distance)))
            .collect();
        best_first(&mut hits, k);
        hits
    }
}

/// The vectors in two graphs, each new one added to the smaller, both walked at once
/// (one per core): each walk covers half the corpus, where a graph is easier to walk.
/// On the real-distribution bench at 1M, two graphs reach recall@10 0.953 at p95 9.8 ms
/// where one reached 0.924 at 12 ms, and build in 347 s instead of 800-940 s.
struct Graph {
    shards: Vec<Shard>,
}

/// How many graphs the vectors are split into: the cores of the machines it was
/// measured on.
const SHARDS: usize = 2;

impl Graph {
    fn new() -> Option<Self> {
        let shards: Vec<Shard> = (0..SHARDS).filter_map(|_| Shard::new()).collect();
        (shards.len() == SHARDS).then_some(Self { shards })
    }

    fn len(&self) -> usize {
        self.shards.iter().map(Shard::len).sum()
    }

    fn keys(&self) -> impl Iterator<Item = &i64> {
        self.shards.iter().flat_map(|shard| shard.keys.iter())
    }

    /// Adds vectors, each to the graph holding fewer.
    fn add(&mut self, vectors: &[(i64, Vec<f32>)]) {
        let fresh: Vec<(i64, Vec<f32>)> = vectors
            .iter()
            .filter(|(id, _)| !self.shards.iter().any(|s| s.index.contains(*id as u64)))
            .cloned()
            .collect();
        let mut sizes: Vec<usize> = self.shards.iter().map(Shard::len).collect();
        let mut parts: Vec<Vec<(i64, Vec<f32>)>> = vec![Vec::new(); self.shards.len()];
        for vector in fresh {
            let smallest = (0..sizes.len()).min_by_key(|i| sizes[*i]).unwrap_or(0);
            sizes[smallest] += 1;
            parts[smallest].push(vector);
        }
        for (shard, part) in self.shards.iter_mut().zip(&parts) {
            shard.add(part);
        }
        self.tune();
    }

    fn remove(&mut self, gone: &HashSet<i64>) {
        self.shards.iter_mut().for_each(|shard| shard.remove(gone));
    }

    fn tune(&self) {
        let wanted = expansion_for(self.len());
        self.shards.iter().for_each(|shard| shard.tune(wanted));
    }

    fn search(&self, query: &[f32], k: usize, allowed: Option<&HashSet<i64>>) -> Vec<(i64, f64)> {
        let query = codes(query);
        let exact = allowed.is_some_and(|a| a.len() <= EXACT_UP_TO.max(self.len() / 10));
        let look = |shard: &Shard| match allowed {
            Some(allowed) if exact => shard.exact_among(&query, k, allowed),
            _ => shard.walk(&query, k, allowed),
        };
        let mut hits: Vec<(i64, f64)> = std::thread::scope(|scope| {
            let (first, others) = self.shards.split_first()?;
            let walks: Vec<_> = others
                .iter()
                .map(|shard| scope.spawn(|| look(shard)))
                .collect();
            let mut hits = look(first);
            for walk in walks {
                hits.extend(walk.join().unwrap_or_default());
            }
            Some(hits)
        })
        .unwrap_or_default();
        best_first(&mut hits, k);
        hits
    }
}

fn best_first(hits: &mut Vec<(i64, f64)>, k: usize) {
    hits.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    hits.truncate(k);
}

#[derive(Default)]
struct State {
    graph: Option<Graph>,
    /// Chunks may have been deleted: reconcile with the store before the next query.
    stale: bool,
    /// Changed since it was last saved.
    unsaved: bool,
}

/// The in-memory graph over the stored vectors, saved beside the database when given a
/// path.
#[derive(Default)]
pub struct VectorIndex {
    inner: RwLock<State>,
    path: Option<PathBuf>,
}

impl std::fmt::Debug for VectorIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VectorIndex")
            .field("len", &self.len())
            .field("path", &self.path)
            .finish()
    }
}

fn keys_path(path: &Path) -> PathBuf {
    path.with_extension("keys")
}

/// Where graph `n` is saved: `vectors.usearch`, then `vectors.1.usearch`, ...
fn shard_path(path: &Path, n: usize) -> PathBuf {
    if n == 0 {
        path.to_path_buf()
    } else {
        path.with_extension(format!("{n}.usearch"))
    }
}

/// The saved graphs, when they are there and whole. A library saved with one graph (an
/// earlier release) has no second file: its graph is kept and the second starts empty.
fn read_saved(path: &Path) -> Option<Graph> {
    let mut shards = vec![read_shard(path)?];
    for n in 1..SHARDS {
        let at = shard_path(path, n);
        shards.push(if at.is_file() {
            read_shard(&at)?
        } else {
            Shard::new()?
        });
    }
    let graph = Graph { shards };
    // A stop between writing one file and the next can leave an id in two graphs (a
    // chunk deleted, its id reused): such files are not whole.
    let mut seen = HashSet::with_capacity(graph.len());
    if !graph.keys().all(|id| seen.insert(*id)) {
        tracing::warn!("the saved vector graphs disagree; rebuilding them");
        return None;
    }
    graph.tune();
    Some(graph)
}

/// One saved graph, when it is there and whole.
fn read_shard(path: &Path) -> Option<Shard> {
    let name = path.to_str()?;
    if !path.is_file() {
        return None;
    }
    let index = Index::restore(name)
        .inspect_err(|error| tracing::warn!(%error, "the saved vector index is unreadable"))
        .ok()?;
    let keys: Vec<i64> = std::fs::read(keys_path(path))
        .ok()?
        .chunks_exact(8)
        .filter_map(|bytes| bytes.try_into().ok().map(i64::from_le_bytes))
        .collect();
    let fits = index.dimensions() == DIMENSIONS
        && index.scalar_kind() == ScalarKind::I8
        && index.metric_kind() == MetricKind::Cos
        && keys.len() == index.size();
    fits.then_some(Shard { index, keys })
}

fn write_saved(path: &Path, graph: &Graph) -> std::io::Result<()> {
    for (n, shard) in graph.shards.iter().enumerate() {
        write_shard(&shard_path(path, n), shard)?;
    }
    Ok(())
}

fn write_shard(path: &Path, graph: &Shard) -> std::io::Result<()> {
    let fail = |what: String| std::io::Error::other(what);
    let name = path
        .to_str()
        .ok_or_else(|| fail(format!("{} is not UTF-8", path.display())))?;
    let temporary = format!("{name}.tmp");
    graph
        .index
        .save(&temporary)
        .map_err(|error| fail(error.to_string()))?;
    let keys: Vec<u8> = graph.keys.iter().flat_map(|id| id.to_le_bytes()).collect();
    let keys_temporary = keys_path(path).with_extension("keys.tmp");
    std::fs::write(&keys_temporary, keys)?;
    std::fs::rename(&temporary, path)?;
    std::fs::rename(&keys_temporary, keys_path(path))
}

impl VectorIndex {
    /// An index kept in memory only.
    pub fn new() -> Self {
        Self::default()
    }

    /// An index saved at `path` (and `path` with the extension `keys`).
    pub fn persisted_at(path: &Path) -> Self {
        Self {
            inner: RwLock::default(),
            path: Some(path.to_path_buf()),
        }
    }

    pub fn len(&self) -> usize {
        self.inner
            .read()
            .ok()
            .and_then(|state| state.graph.as_ref().map(Graph::len))
            .unwrap_or(0)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes per vector in memory, for the figures: (in use by the graph, the codes and
    /// the id list; allocated, with the allocator's room to grow).
    pub fn bytes_per_vector(&self) -> (usize, usize) {
        self.inner
            .read()
            .ok()
            .and_then(|state| {
                let graph = state.graph.as_ref()?;
                let n = graph.len().max(1);
                let (mut used, mut allocated) = (graph.len() * 8, graph.len() * 8);
                for shard in &graph.shards {
                    let stats = shard.index.memory_stats();
                    let slack = stats.graph_wasted
                        + stats.graph_reserved
                        + stats.vectors_wasted
                        + stats.vectors_reserved;
                    used += (stats.graph_allocated + stats.vectors_allocated).saturating_sub(slack);
                    allocated += shard.index.memory_usage();
                }
                Some((used / n, allocated / n))
            })
            .unwrap_or((0, 0))
    }

    fn read_or_create(&self) -> Option<Graph> {
        self.path
            .as_deref()
            .and_then(read_saved)
            .or_else(Graph::new)
    }

    /// Reads the saved graph (an empty one when there is none), without looking at the
    /// store; true when it came from the file. For the benches: a library uses
    /// [`VectorIndex::ensure_loaded`].
    pub fn load_saved(&self) -> bool {
        let graph = self.read_or_create();
        let from_file = graph.as_ref().is_some_and(|graph| graph.len() > 0);
        if let Ok(mut state) = self.inner.write() {
            state.graph = graph;
        }
        from_file
    }

    /// Overrides the search beam of [`expansion_for`] until more vectors are added (for
    /// the benches).
    pub fn set_expansion(&self, expansion: usize) {
        if let Ok(state) = self.inner.read()
            && let Some(graph) = &state.graph
        {
            graph.shards.iter().for_each(|shard| shard.tune(expansion));
        }
    }

    /// Makes the graph match the store: read from its file (or built) on first use, then
    /// reconciled. Cheap once loaded and nothing was deleted.
    pub async fn ensure_loaded(&self, store: &Store) -> Result<(), StoreError> {
        let ready = self
            .inner
            .read()
            .map(|state| state.graph.is_some() && !state.stale)
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
            if state.graph.is_none() {
                state.graph = self.read_or_create();
            }
            let Some(graph) = state.graph.as_mut() else {
                return Ok(());
            };
            let gone: HashSet<i64> = graph
                .keys()
                .filter(|id| !chunk_ids.contains(id))
                .copied()
                .collect();
            graph.remove(&gone);
            let missing = usize::try_from(embedded).unwrap_or(0) != graph.len();
            state.stale = false;
            state.unsaved |= !gone.is_empty();
            missing
        };
        if missing {
            // Vectors stored after the last save: read them all, add those not there.
            store.scan_vectors(4096, |batch| self.add(batch)).await?;
        }
        self.save();
        Ok(())
    }

    /// Adds newly stored vectors (no effect before the first load, which reads them).
    pub fn add(&self, vectors: &[(i64, Vec<f32>)]) {
        if let Ok(mut state) = self.inner.write()
            && let Some(graph) = state.graph.as_mut()
        {
            graph.add(vectors);
            state.unsaved = true;
        }
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
            state.graph = Graph::new();
            state.unsaved = true;
        }
    }

    /// Writes the graph to its file if it changed since the last save. A failure is
    /// logged: the graph is rebuilt from the store when the file is missing or stale.
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
        if let Some(graph) = &state.graph {
            match write_saved(path, graph) {
                Ok(()) => state.unsaved = false,
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
        let Ok(state) = self.inner.read() else {
            return Vec::new();
        };
        match &state.graph {
            Some(graph) if k > 0 => graph.search(query, k, allowed),
            _ => Vec::new(),
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

    #[test]
    fn int8_codes_keep_the_cosine() {
        let (v, q) = (unit(0), unit(16));
        let exact: f32 = v.iter().zip(&q).map(|(a, b)| a * b).sum();
        assert!((cosine(&codes(&v), &codes(&q)) - f64::from(exact)).abs() < 0.005);
        assert!((cosine(&codes(&v), &codes(&v)) - 1.0).abs() < 0.005);
    }

    /// A library saved by a release with one graph: its file is read as the first
    /// graph, nothing is rebuilt, and new vectors go to the second until they balance.
    #[test]
    fn a_graph_saved_as_one_file_is_read_and_grows_into_two() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("vectors.usearch");
        let mut single = Shard::new().unwrap();
        let vectors: Vec<(i64, Vec<f32>)> = (0..60).map(|i| (i as i64 + 1, unit(i))).collect();
        single.add(&vectors);
        write_shard(&path, &single).unwrap();
        let index = VectorIndex::persisted_at(&path);
        assert!(index.load_saved());
        assert_eq!(index.len(), 60);
        assert_eq!(index.search(&unit(42), 1, None)[0].0, 43);
        let more: Vec<(i64, Vec<f32>)> = (60..80).map(|i| (i as i64 + 1, unit(i))).collect();
        index.add(&more);
        let sizes = |index: &VectorIndex| -> Vec<usize> {
            let state = index.inner.read().unwrap();
            state
                .graph
                .as_ref()
                .unwrap()
                .shards
                .iter()
                .map(Shard::len)
                .collect()
        };
        assert_eq!(sizes(&index), vec![60, 20]);
        assert_eq!(index.search(&unit(70), 1, None)[0].0, 71);
        index.save();
        assert!(dir.path().join("vectors.1.usearch").is_file());
        let reopened = VectorIndex::persisted_at(&path);
        assert!(reopened.load_saved());
        assert_eq!(sizes(&reopened), vec![60, 20]);
        assert_eq!(reopened.search(&unit(70), 1, None)[0].0, 71);
    }

    #[test]
    fn finds_a_stored_vector_and_respects_a_filter() {
        let index = VectorIndex::new();
        index.inner.write().unwrap().graph = Graph::new();
        let vectors: Vec<(i64, Vec<f32>)> = (0..100).map(|i| (i as i64 + 1, unit(i))).collect();
        index.add(&vectors);
        assert_eq!(index.len(), 100);
        let found = index.search(&unit(42), 3, None);
        assert_eq!(found[0].0, 43);
        assert!((found[0].1 - 1.0).abs() < 0.01);
        let allowed: HashSet<i64> = [5, 6, 7].into();
        let found = index.search(&unit(42), 10, Some(&allowed));
        assert_eq!(found.len(), 3);
        assert!(found.iter().all(|(id, _)| allowed.contains(id)));
        assert!(index.search(&unit(42), 0, None).is_empty());
    }
}
