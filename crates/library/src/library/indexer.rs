//! Embedding the chunks that have no vector yet, in batches, each batch committed on
//! its own: an interrupted run (a crash, a failing endpoint) leaves the index consistent
//! and the next run goes on where it stopped. Vectors of a different model are never
//! mixed: when the model changes, the old vectors are dropped and everything is queued.
//! The vector graph (see `vectors`) follows: vectors of deleted chunks leave it, new
//! ones enter it, and it is saved beside the database at the end of the run.

use asterism_store::{Store, StoreError};

use crate::library::embed::{EmbedError, Embedder};
use crate::library::vectors::VectorIndex;

/// Chunks embedded per call to the model.
pub const BATCH: i64 = 32;

/// How an indexing run went.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct IndexReport {
    pub embedded: usize,
    /// Chunks still without a vector.
    pub remaining: i64,
    pub total: i64,
    /// Why the run stopped early.
    pub error: Option<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Embed(#[from] EmbedError),
}

/// Embeds every chunk without a vector. `progress(done, total)` after each batch.
pub async fn index_pending(
    store: &Store,
    index: &VectorIndex,
    embedder: &dyn Embedder,
    progress: &(dyn Fn(i64, i64) + Send + Sync),
) -> Result<IndexReport, StoreError> {
    let _running = index.indexing.lock().await;
    let model = embedder.name();
    if store.index_state("embedding_model").await?.as_deref() != Some(model.as_str()) {
        // A different (or no recorded) model: its vectors cannot be compared with ours.
        store.clear_vectors().await?;
        index.clear();
        store.set_index_state("embedding_model", &model).await?;
    }
    // The graph is read (or reconciled) first, so new vectors go into it and are saved
    // with it at the end of the run.
    index.invalidate();
    index.ensure_loaded(store).await?;
    let mut embedded = 0;
    let mut error = None;
    loop {
        let batch = store.chunks_to_embed(BATCH).await?;
        if batch.is_empty() {
            break;
        }
        let texts: Vec<String> = batch.iter().map(|(_, text)| text.clone()).collect();
        let vectors = match embedder.embed(&texts).await {
            Ok(vectors) => vectors,
            Err(failure) => {
                error = Some(failure.to_string());
                break;
            }
        };
        let pairs: Vec<(i64, Vec<f32>)> = batch.iter().map(|(id, _)| *id).zip(vectors).collect();
        embedded += store.store_vectors(&pairs).await?;
        index.add(&pairs);
        let (total, done) = store.chunk_counts().await?;
        progress(done, total);
    }
    index.save();
    let (total, done) = store.chunk_counts().await?;
    Ok(IndexReport {
        embedded,
        remaining: total - done,
        total,
        error,
    })
}
