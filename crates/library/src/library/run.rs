//! One import as the CLI and the app run it: the files imported (and the imports an
//! earlier run left unfinished finished), this run's new papers put into a collection,
//! then their passages embedded, each step told to a watcher, and a cancel that keeps
//! what was done. The app's wire types for search hits and collections live here too,
//! so the shell only adapts.

use std::path::PathBuf;
use std::sync::Mutex;

use asterism_store::StoreError;
use serde::Serialize;
use specta::Type;
use tokio_util::sync::CancellationToken;

use crate::library::{ImportCounts, ImportItem, IndexReport, Library, SearchResults};

/// What to do with the files besides importing them.
#[derive(Debug, Clone, Default)]
pub struct ImportPlan {
    /// Let ADS/arXiv identify the papers.
    pub online: bool,
    /// Put this run's new papers into this collection (created on first use).
    pub collection: Option<String>,
    /// Embed the passages still without a vector afterwards.
    pub embed: bool,
}

/// Hears how an import run goes.
pub trait ImportWatcher: Send + Sync {
    /// A file is done: `done` of `total` (a resumed earlier import has its own count).
    fn file(&self, done: usize, total: usize, item: &ImportItem);
    /// Once before the embedding begins, then after each batch: `done` of `total`
    /// passages of the library have a vector.
    fn embedding(&self, _done: i64, _total: i64) {}
}

/// What an import run did.
#[derive(Debug, Default)]
pub struct ImportRun {
    /// This run's files, in the order they were done.
    pub items: Vec<ImportItem>,
    /// Imports an earlier run left unfinished, finished by this one.
    pub resumed: Vec<ImportItem>,
    /// The files this run was given.
    pub total: usize,
    pub counts: ImportCounts,
    /// The embedding, if it ran to its end (`None`: no model, not asked, or stopped).
    pub index: Option<IndexReport>,
    /// Cancelled: what was done is kept, and importing the same files again (or the
    /// next start) finishes the rest.
    pub stopped: bool,
}

impl Library {
    /// Imports `paths` as `plan` says, telling `watcher` each file and embedding batch;
    /// `cancel` stops it between two commits.
    pub async fn import_run(
        &self,
        paths: &[PathBuf],
        plan: &ImportPlan,
        watcher: &dyn ImportWatcher,
        cancel: &CancellationToken,
    ) -> Result<ImportRun, StoreError> {
        let seen = Mutex::new((Vec::new(), 0usize));
        let progress = |done, total, item: &ImportItem| {
            if let Ok(mut seen) = seen.lock() {
                seen.0.push(item.clone());
                if !item.resumed {
                    seen.1 = total;
                }
            }
            watcher.file(done, total, item);
        };
        // Dropped at a cancel: a paper counts as imported only once its passages are
        // committed, and the rest is finished by the next import or start.
        let finished = tokio::select! {
            _ = self.import(paths, plan.online, &progress) => true,
            () = cancel.cancelled() => false,
        };
        let (all, total) = seen.into_inner().unwrap_or_default();
        let (resumed, items): (Vec<ImportItem>, Vec<ImportItem>) =
            all.into_iter().partition(|item| item.resumed);
        if let Some(collection) = &plan.collection {
            self.collect_imported(&items, collection).await?;
        }
        let mut run = ImportRun {
            counts: ImportCounts::of(&items),
            total: total.max(items.len()),
            items,
            resumed,
            index: None,
            stopped: !finished,
        };
        if finished && plan.embed && self.embedder.is_some() {
            // Where the embedding starts from, before its first batch.
            let (total, done) = self.store.chunk_counts().await?;
            watcher.embedding(done, total);
            let progress = |done, total| watcher.embedding(done, total);
            tokio::select! {
                report = self.index(&progress) => run.index = report?,
                () = cancel.cancelled() => run.stopped = true,
            }
        }
        Ok(run)
    }
}

/// A count for the app's wire (its TypeScript numbers), saturating.
pub fn wire_count(value: impl TryInto<u32>) -> u32 {
    value.try_into().unwrap_or(u32::MAX)
}

/// A passage found by a library search, as the app shows it.
#[derive(Debug, Clone, Serialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct PassageHit {
    pub paper_id: String,
    pub title: String,
    pub authors: Vec<String>,
    pub year: Option<u32>,
    pub page: Option<u32>,
    pub section: Option<String>,
    /// The first and last page when the passage spans two (`page` is the snippet's).
    pub pages: Option<PageSpan>,
    pub text: String,
    /// The passage's best-matching sentence(s), and the query's words in them.
    pub snippet: String,
    pub marks: Vec<Mark>,
    pub score: f64,
}

/// Pages a passage spans.
#[derive(Debug, Clone, Copy, Serialize, Type)]
pub struct PageSpan {
    pub first: u32,
    pub last: u32,
}

/// A query word in a snippet: [start, end) in Unicode scalar values (`Array.from`).
#[derive(Debug, Clone, Copy, Serialize, Type)]
pub struct Mark {
    pub start: u32,
    pub end: u32,
}

/// Passages matching a query, and why the search was not hybrid.
#[derive(Debug, Clone, Serialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct PassageResults {
    pub hits: Vec<PassageHit>,
    pub note: Option<String>,
}

impl From<SearchResults> for PassageResults {
    fn from(results: SearchResults) -> Self {
        let hits = results
            .hits
            .into_iter()
            .map(|hit| PassageHit {
                paper_id: hit.chunk.paper_id,
                title: hit.chunk.title,
                authors: hit.chunk.authors,
                year: hit.chunk.year.and_then(|year| u32::try_from(year).ok()),
                page: hit.chunk.page.and_then(|page| u32::try_from(page).ok()),
                section: hit.chunk.section,
                pages: hit.pages.map(|[first, last]| PageSpan {
                    first: u32::try_from(first).unwrap_or(0),
                    last: u32::try_from(last).unwrap_or(0),
                }),
                text: hit.chunk.text,
                marks: hit
                    .snippet
                    .marks
                    .iter()
                    .map(|[start, end]| Mark {
                        start: wire_count(*start),
                        end: wire_count(*end),
                    })
                    .collect(),
                snippet: hit.snippet.text,
                score: hit.score,
            })
            .collect();
        Self {
            hits,
            note: results.note,
        }
    }
}

/// A collection and how many papers it holds.
#[derive(Debug, Clone, Serialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct CollectionInfo {
    pub name: String,
    pub papers: u32,
}

impl Library {
    /// The collections, each with its paper count.
    pub async fn collections(&self) -> Result<Vec<CollectionInfo>, StoreError> {
        Ok(self
            .store
            .collections()
            .await?
            .into_iter()
            .map(|(name, papers)| CollectionInfo {
                name,
                papers: wire_count(papers),
            })
            .collect())
    }
}
