//! The astronomer's paper library: import, chunking, embeddings, the vector index and
//! hybrid retrieval. [`Library`] ties them to one database.

pub mod ads_sync;
pub(crate) mod chunk;
pub mod embed;
pub mod figures;
pub mod fingerprint;
pub mod foreign;
pub mod identifiers;
pub mod identify;
pub mod idle;
pub mod import;
pub mod indexer;
pub mod local;
pub mod metadata;
pub mod objects;
pub mod outcomes;
pub mod run;
pub mod search;
pub mod snippet;
pub mod vectors;
pub mod zotero;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use asterism_store::{PaperFilter, Store, StoreError};

pub use chunk::Chunker;
pub use embed::{EmbedError, Embedder, RemoteEmbedder};
pub use import::{ImportItem, ImportOutcome, Importer};
pub use indexer::IndexReport;
pub use outcomes::ImportCounts;
pub use run::{ImportPlan, ImportRun, ImportWatcher};
pub use search::{SearchHit, SearchMode, SearchResults, Tuning};
pub use snippet::{Snippet, quote_for, split_sentences};
pub use vectors::VectorIndex;

use crate::papers::PaperSearch;

/// The library of one data directory.
#[derive(Clone)]
pub struct Library {
    pub store: Store,
    pub papers: PaperSearch,
    pub chunker: Chunker,
    pub data_dir: PathBuf,
    pub index: Arc<VectorIndex>,
    /// `None`: no embedding model; search is BM25 only.
    pub embedder: Option<Arc<dyn Embedder>>,
    /// `None`: papers are not looked up on Crossref.
    pub crossref: Option<crate::sources::crossref::CrossrefClient>,
    /// Resolves the names of the objects papers are about; `None`: they stay unresolved.
    pub targets: Option<crate::targets::TargetService>,
    pub tuning: Tuning,
}

impl std::fmt::Debug for Library {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Library")
            .field("data_dir", &self.data_dir)
            .field("embedder", &self.embedder.as_ref().map(|e| e.name()))
            .finish()
    }
}

impl Library {
    /// Lets go of the embedding model's session and the vector index's cells when each
    /// has gone unused for `keep` (they load again on their next use).
    pub fn release_idle(&self, keep: std::time::Duration) -> idle::Released {
        idle::Released {
            model: self
                .embedder
                .as_ref()
                .is_some_and(|embedder| embedder.release_if_idle(keep)),
            vectors: self.index.release_if_idle(keep),
        }
    }

    pub fn new(
        store: Store,
        papers: PaperSearch,
        chunker: Chunker,
        data_dir: &Path,
        embedder: Option<Arc<dyn Embedder>>,
    ) -> Self {
        Self {
            store,
            papers,
            chunker,
            data_dir: data_dir.to_path_buf(),
            index: Arc::new(VectorIndex::persisted_at(&data_dir.join("vectors.cells"))),
            embedder,
            crossref: None,
            targets: None,
            tuning: Tuning::default(),
        }
    }

    /// The same library looking papers up on Crossref too.
    pub fn with_crossref(self, crossref: Option<crate::sources::crossref::CrossrefClient>) -> Self {
        Self { crossref, ..self }
    }

    /// The same library resolving object names through `targets`.
    pub fn with_targets(self, targets: Option<crate::targets::TargetService>) -> Self {
        Self { targets, ..self }
    }

    fn importer(&self, online: bool) -> Importer {
        Importer {
            store: self.store.clone(),
            papers: self.papers.clone(),
            chunker: self.chunker.clone(),
            data_dir: self.data_dir.clone(),
            crossref: self.crossref.clone(),
            online,
            network_down: Default::default(),
        }
    }

    /// Imports files and folders (see [`import`]); `online` lets ADS/arXiv identify them.
    /// A file whose earlier import was interrupted is finished as it comes; then the
    /// other unfinished imports (of files not named this time) are finished too, reported
    /// through `progress` with their own count and `resumed` set.
    pub async fn import(
        &self,
        paths: &[PathBuf],
        online: bool,
        progress: import::ImportProgress<'_>,
    ) -> Vec<ImportItem> {
        let importer = self.importer(online);
        let mut items = importer.import(paths, progress).await;
        items.extend(importer.finish_pending(progress).await);
        self.link_new_objects(&items).await;
        items
    }

    /// Finishes the imports an earlier run left unfinished (interrupted by Ctrl-C, a
    /// crash or a power cut): each paper gets its text and passages, or a reason.
    pub async fn finish_incomplete(&self, progress: import::ImportProgress<'_>) -> Vec<ImportItem> {
        let items = self.importer(false).finish_pending(progress).await;
        self.link_new_objects(&items).await;
        items
    }

    async fn link_new_objects(&self, items: &[ImportItem]) {
        for item in items {
            if let ImportOutcome::Imported { paper_id, .. } = &item.outcome
                && let Err(error) = self.link_objects(paper_id).await
            {
                tracing::warn!(%error, %paper_id, "could not link the paper's objects");
            }
        }
    }

    /// The library id of a paper named by library id, bibcode, arXiv id, DOI or the name
    /// of the file it was imported from.
    pub async fn resolve(&self, id: &str) -> Result<Option<String>, String> {
        let local = self
            .papers
            .local(id)
            .await
            .map_err(|error| error.to_string())?;
        if let Some((paper_id, _)) = local {
            return Ok(Some(paper_id));
        }
        self.store
            .paper_by_file_name(id.trim())
            .await
            .map_err(|error| format!("the library: {error}"))
    }

    /// Whether [`Self::index`] has work: passages without a vector, or vectors of another
    /// model than the configured one (after `LOCAL_EMBEDDING_MODEL` changed).
    pub async fn needs_indexing(&self) -> Result<bool, StoreError> {
        let Some(embedder) = &self.embedder else {
            return Ok(false);
        };
        let (total, embedded) = self.store.chunk_counts().await?;
        if total == 0 {
            return Ok(false);
        }
        let recorded = self.store.index_state("embedding_model").await?;
        Ok(embedded < total || recorded.is_some_and(|name| name != embedder.name()))
    }

    /// Embeds what is not embedded yet. Without an embedding model it does nothing.
    pub async fn index(
        &self,
        progress: &(dyn Fn(i64, i64) + Send + Sync),
    ) -> Result<Option<IndexReport>, StoreError> {
        match &self.embedder {
            Some(embedder) => Ok(Some(
                indexer::index_pending(&self.store, &self.index, embedder.as_ref(), progress)
                    .await?,
            )),
            None => Ok(None),
        }
    }

    /// Hybrid search (BM25 alone without an embedding model).
    pub async fn search(
        &self,
        query: &str,
        filter: &PaperFilter,
        k: usize,
    ) -> Result<SearchResults, StoreError> {
        let retriever = search::Retriever {
            store: &self.store,
            index: &self.index,
            embedder: self.embedder.as_deref(),
            tuning: self.tuning,
        };
        retriever.search(query, filter, k).await
    }

    /// CSL-JSON (what Zotero, Better BibTeX and pandoc read) for the whole library or
    /// one collection: one item per paper, keyed by its citation key (the one it came
    /// with, else `{family}{year}{word}`, made unique), its tags as `keyword`, the ADS
    /// page as `URL` and `arXiv: ID` in `note`, so `library import` reads it back whole.
    pub async fn csl_json(
        &self,
        collection: Option<String>,
    ) -> Result<(String, usize), StoreError> {
        let filter = PaperFilter {
            collection,
            ..PaperFilter::default()
        };
        let mut items = Vec::new();
        let mut keys = std::collections::HashSet::new();
        for paper in self.store.library_papers(&filter).await? {
            let Some(record) = self.store.paper_record(&paper.id).await? else {
                continue;
            };
            let key = match self.store.foreign_entry(&paper.id).await?.0 {
                Some(key) => key,
                None => crate::papers::bibtex::citation_key(
                    record.authors.first().map(String::as_str),
                    record.year,
                    &record.title,
                ),
            };
            let mut unique = key.clone();
            let mut suffix = b'a';
            while !keys.insert(unique.clone()) && suffix <= b'z' {
                unique = format!("{key}{}", suffix as char);
                suffix += 1;
            }
            items.push(crate::library::foreign::csl_item(
                &record,
                &unique,
                &paper.tags,
            ));
        }
        let count = items.len();
        let text = serde_json::to_string_pretty(&items).unwrap_or_else(|_| "[]".into());
        Ok((text + "\n", count))
    }

    /// BibTeX for the whole library or one collection: one entry per paper (the entry it
    /// was imported with from a `.bib` file, with its key and every field; else ADS's
    /// where ADS answers, a local one otherwise), and notes saying which. `with_files`:
    /// each entry names its stored files (`file = {:/path:PDF}`, the JabRef and Zotero
    /// form) so the library can go back into those tools.
    pub async fn bibtex(
        &self,
        collection: Option<String>,
        with_files: bool,
    ) -> Result<(String, usize, Vec<String>), StoreError> {
        let filter = PaperFilter {
            collection,
            ..PaperFilter::default()
        };
        let mut kept = Vec::new();
        let mut records = Vec::new();
        let mut files = Vec::new();
        let mut groups = Vec::new();
        let mut all_collections: Vec<String> = Vec::new();
        for paper in self.store.library_papers(&filter).await? {
            let paths: Vec<String> = paper.files.iter().map(|file| file.path.clone()).collect();
            all_collections.extend(paper.collections.iter().cloned());
            let fields = (paths, paper.collections);
            match self.store.foreign_entry(&paper.id).await? {
                (_, Some(entry)) => kept.push((entry, fields)),
                _ => {
                    if let Some(record) = self.store.paper_record(&paper.id).await? {
                        files.push(fields.0);
                        groups.push(fields.1);
                        records.push(record);
                    }
                }
            }
        }
        let (entries, mut notes) =
            crate::papers::bibtex::bibtex(&records, Some(&self.papers.ads)).await;
        if !kept.is_empty() {
            notes.push(format!(
                "{} entries as they were imported from .bib files (their keys and fields)",
                kept.len()
            ));
        }
        let mut texts: Vec<String> = kept
            .into_iter()
            .map(|(entry, (paths, collections))| {
                with_fields(&entry, with_files.then_some(&paths[..]), &collections)
            })
            .collect();
        for entry in &entries {
            let paths = files.get(entry.paper).map(Vec::as_slice);
            let collections = groups.get(entry.paper).map_or(&[][..], Vec::as_slice);
            texts.push(with_fields(
                &entry.text,
                paths.filter(|_| with_files),
                collections,
            ));
        }
        let count = texts.len();
        texts.extend(foreign::groups::jabref_grouping(&all_collections));
        let text: String = texts
            .iter()
            .map(|entry| format!("{}\n\n", entry.trim_end()))
            .collect();
        Ok((text, count, notes))
    }

    /// Deletes a paper, its chunks, vectors and stored files; its notes are kept unless
    /// `delete_notes`. Returns false when there was no such paper.
    pub async fn delete(&self, paper_id: &str, delete_notes: bool) -> Result<bool, StoreError> {
        let Some(files) = self.store.delete_paper(paper_id, delete_notes).await? else {
            return Ok(false);
        };
        self.index.invalidate();
        let papers_dir = self.data_dir.join("papers");
        for file in files {
            let path = PathBuf::from(file);
            // Only files the library itself stored are removed.
            if path.starts_with(&papers_dir)
                && let Err(error) = tokio::fs::remove_file(&path).await
                && error.kind() != std::io::ErrorKind::NotFound
            {
                tracing::warn!(%error, path = %path.display(), "could not remove a library file");
            }
        }
        Ok(true)
    }
}

/// The entry with a `file` field naming `paths` (JabRef's `:path:PDF;…`, `:` and `;`
/// escaped), replacing any it had, and a `groups` field naming its collections (their
/// last part: the file's grouping comment holds the tree); unchanged when it already
/// says so.
fn with_fields(entry: &str, paths: Option<&[String]>, collections: &[String]) -> String {
    use biblatex::ChunksExt as _;
    let paths = paths.filter(|paths| !paths.is_empty());
    let leaves: Vec<&str> = collections
        .iter()
        .map(|path| path.rsplit('/').next().unwrap_or(path))
        .collect();
    let Ok(bibliography) = biblatex::Bibliography::parse(entry) else {
        return entry.to_string();
    };
    let Some(mut parsed) = bibliography.into_iter().next() else {
        return entry.to_string();
    };
    let named: Vec<String> = parsed
        .get("groups")
        .map(|chunks| chunks.format_verbatim())
        .unwrap_or_default()
        .split(',')
        .map(|name| name.trim().to_string())
        .filter(|name| !name.is_empty())
        .collect();
    let regroup = !leaves.is_empty() && named != leaves;
    if paths.is_none() && !regroup {
        return entry.to_string();
    }
    if regroup {
        let value = biblatex::Chunk::Verbatim(leaves.join(", "));
        parsed.set("groups", vec![biblatex::Spanned::detached(value)]);
    }
    let Some(paths) = paths else {
        return parsed
            .to_bibtex_string()
            .unwrap_or_else(|_| parsed.to_biblatex_string());
    };
    let value = paths
        .iter()
        .map(|path| {
            let escaped = path
                .replace('\\', "\\\\")
                .replace(':', "\\:")
                .replace(';', "\\;");
            format!(":{escaped}:PDF")
        })
        .collect::<Vec<_>>()
        .join(";");
    parsed.set(
        "file",
        vec![biblatex::Spanned::detached(biblatex::Chunk::Verbatim(
            value,
        ))],
    );
    parsed
        .to_bibtex_string()
        .unwrap_or_else(|_| parsed.to_biblatex_string())
}

/// A storage error, said for the user.
pub(crate) fn storage(error: StoreError) -> String {
    format!("storing it failed: {error}")
}
