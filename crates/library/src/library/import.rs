//! Importing the astronomer's own PDFs: files and whole folders. Each PDF is copied
//! into the library (the original is left untouched), described by what it says of
//! itself (see [`crate::library::metadata`]), identified online when allowed (by the
//! arXiv id or DOI it prints, else by title and first author; see
//! [`crate::library::identify`]), de-duplicated (same file by hash; same paper by bibcode, arXiv id or DOI,
//! so a preprint and the published version become one paper with both files), parsed
//! and chunked. Every file gets its own outcome; one bad file stops nothing.

use std::path::{Path, PathBuf};

use asterism_protocol::PaperRecord;
use asterism_store::{NewChunk, PaperFile, PaperText, PendingFile, Store};
use sha2::{Digest, Sha256};

use super::storage;
mod read;

use self::read::{READ_AHEAD, ReadAhead, is_pdf_name, read_pdf};
use crate::library::Chunker;
use crate::library::fingerprint::SAME_TEXT_BITS;
use crate::library::foreign::{ForeignEntry, is_foreign_library, read_library};
use crate::library::identify::{complete, identify_online, is_offline, why_not};
use crate::library::metadata::LOCAL_SOURCE;
use crate::papers::PaperSearch;
use crate::parse::{PdfText, pages_to_markdown};
use crate::sources::crossref::CrossrefClient;

/// What became of one file.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase", tag = "outcome")]
pub enum ImportOutcome {
    /// A new paper (identified, or `unidentified` when offline or unknown).
    Imported {
        paper_id: String,
        title: String,
        identified: bool,
        chunks: usize,
        /// Why the text is not searchable (encrypted, scanned), when it is not.
        warning: Option<String>,
    },
    /// Another file of a paper already in the library (e.g. the published version of a
    /// preprint): kept beside the first.
    Linked {
        paper_id: String,
        title: String,
        /// Found by its text (a re-saved copy), not by an identifier.
        same_text: bool,
    },
    /// This exact file is already in the library.
    Duplicate {
        paper_id: String,
    },
    /// An entry of another library (a `.bib` or CSL-JSON file) with no file, or whose
    /// files are missing: listed and exportable, downloadable later.
    MetadataOnly {
        paper_id: String,
        title: String,
        /// The files the entry names that were looked for and not found.
        missing: Vec<String>,
        /// The paper (`id: title`) that already keeps the file this entry names, when
        /// the entry is another work (two items of one Zotero library attached to the
        /// same bytes): the file stays with that paper, the entry is not merged into it.
        file_kept_by: Option<String>,
    },
    /// Not a PDF by its name: left alone.
    Skipped {
        reason: String,
    },
    Failed {
        reason: String,
    },
}

/// One file's line in the report.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ImportItem {
    pub path: String,
    #[serde(flatten)]
    pub outcome: ImportOutcome,
    /// A file an earlier, interrupted import left unfinished (not one of the paths
    /// asked for): `path` is the name it was imported under.
    pub resumed: bool,
}

/// Reports progress: (files done, files in all, the file just done).
pub type ImportProgress<'a> = &'a (dyn Fn(usize, usize, &ImportItem) + Send + Sync);

/// Copies, identifies, parses and chunks PDFs into the library.
#[derive(Debug, Clone)]
pub struct Importer {
    pub store: Store,
    pub papers: PaperSearch,
    pub chunker: Chunker,
    pub data_dir: PathBuf,
    /// Also ask Crossref (by DOI, and by title and first author).
    pub crossref: Option<CrossrefClient>,
    /// Ask ADS/arXiv/Crossref to identify papers (false: everything new is
    /// `unidentified`, described by what its PDF says).
    pub online: bool,
    /// Set when a lookup found the network down: why (the other files skip lookups).
    pub network_down: std::sync::Arc<std::sync::OnceLock<String>>,
}

/// A Title metadata value worth believing (not "Microsoft Word - draft.docx", not a
/// file name, not empty).
fn plausible_title(title: &str) -> bool {
    let lower = title.to_lowercase();
    title.split_whitespace().count() >= 3
        && !lower.starts_with("microsoft word")
        && !lower.ends_with(".pdf")
        && !lower.ends_with(".dvi")
        && !lower.ends_with(".tex")
        && !lower.starts_with("untitled")
}

fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

/// Every file under the paths (folders recursively, hidden entries skipped), sorted
/// per folder; paths that do not exist are reported.
pub fn collect_files(paths: &[PathBuf]) -> Vec<Result<PathBuf, ImportItem>> {
    let mut files = Vec::new();
    for path in paths {
        // A Zotero data folder is its database (its storage/ is reached from there).
        if let Some(database) = crate::library::zotero::zotero_database(path) {
            files.push(Ok(database));
        } else if path.is_dir() {
            let mut found: Vec<PathBuf> = ignore::WalkBuilder::new(path)
                .git_ignore(false)
                .git_exclude(false)
                .ignore(false)
                .build()
                .filter_map(Result::ok)
                .filter(|entry| entry.file_type().is_some_and(|kind| kind.is_file()))
                .map(|entry| entry.into_path())
                .collect();
            found.sort();
            files.extend(found.into_iter().map(Ok));
        } else if path.is_file() {
            files.push(Ok(path.clone()));
        } else {
            files.push(Err(ImportItem {
                path: path.display().to_string(),
                outcome: ImportOutcome::Failed {
                    reason: "no such file or folder".into(),
                },
                resumed: false,
            }));
        }
    }
    files
}

impl Importer {
    /// Imports files and folders; returns one item per file, in order.
    pub async fn import(&self, paths: &[PathBuf], progress: ImportProgress<'_>) -> Vec<ImportItem> {
        let files = collect_files(paths);
        let mut items = Vec::with_capacity(files.len());
        let units = expand_libraries(files).await;
        let total = units.len();
        let pdfs: Vec<Option<PathBuf>> = units
            .iter()
            .map(|unit| match unit {
                Unit::Pdf(path) if is_pdf_name(path) => Some(path.clone()),
                _ => None,
            })
            .collect();
        let mut ahead: std::collections::VecDeque<ReadAhead> = Default::default();
        let mut looked_ahead = 0;
        for (done, unit) in units.into_iter().enumerate() {
            let item = match unit {
                Unit::Pdf(path) => {
                    let mine = match ahead.front() {
                        Some(next) if next.path == path => ahead.pop_front(),
                        _ => None,
                    };
                    looked_ahead = looked_ahead.max(done + 1);
                    while looked_ahead <= done + READ_AHEAD {
                        if let Some(next) = pdfs.get(looked_ahead).cloned().flatten() {
                            ahead.extend(ReadAhead::start(&self.store, next).await);
                        }
                        looked_ahead += 1;
                    }
                    ImportItem {
                        path: path.display().to_string(),
                        outcome: self.import_file_read(&path, mine).await,
                        resumed: false,
                    }
                }
                Unit::Entry(source, entry) if entry.is_empty() => ImportItem {
                    path: format!("{}#{}", source.display(), entry.label()),
                    outcome: ImportOutcome::Skipped {
                        reason: "an empty entry: no title, authors, identifiers, files or notes"
                            .into(),
                    },
                    resumed: false,
                },
                Unit::Entry(source, entry) => ImportItem {
                    path: format!("{}#{}", source.display(), entry.label()),
                    outcome: self
                        .import_entry(&entry)
                        .await
                        .unwrap_or_else(|reason| ImportOutcome::Failed { reason }),
                    resumed: false,
                },
                Unit::Done(item) => item,
            };
            progress(done + 1, total, &item);
            items.push(item);
        }
        items
    }

    /// Imports one entry of another library: its first file (PDF first) with the
    /// entry's record, its other files beside it, or the record alone when it has none
    /// that exists; then its key, entry, collections and tags. An entry already here (by
    /// bibcode, arXiv id, DOI, file hash or citation key) gains what it brings.
    pub async fn import_entry(&self, entry: &ForeignEntry) -> Result<ImportOutcome, String> {
        let mut into = match entry.origin.as_deref() {
            Some(origin) => self.store.paper_by_origin(origin).await.map_err(storage)?,
            None => None,
        };
        if into.is_none() && !entry.key.is_empty() {
            into = self
                .store
                .paper_by_citekey(&entry.key)
                .await
                .map_err(storage)?;
        }
        let mut outcome = None;
        let mut file_kept_by = None;
        for file in &entry.files {
            let bytes = tokio::fs::read(file)
                .await
                .map_err(|error| format!("cannot read {}: {error}", file.display()))?;
            // A file with no record of its own describes itself, as a loose PDF does.
            let given = (!entry.file_only).then_some((&entry.record, into.as_deref()));
            let done = self.import_pdf(file, bytes, given, None).await?;
            // A file with no record is its work: the same bytes are the same paper.
            if let ImportOutcome::Duplicate { paper_id } = &done
                && !entry.file_only
                && into.as_deref() != Some(paper_id.as_str())
                && let Some(other) = self.another_work(paper_id, &entry.record).await?
            {
                file_kept_by = Some(other);
                continue;
            }
            into = outcome_paper(&done).map(String::from).or(into);
            outcome.get_or_insert(done);
        }
        let outcome = match outcome {
            Some(outcome) => outcome,
            None => {
                let paper_id = self
                    .store
                    .upsert_paper_into(&entry.record, into.as_deref())
                    .await
                    .map_err(storage)?;
                ImportOutcome::MetadataOnly {
                    title: self.title_of(&paper_id, &entry.record.title).await?,
                    paper_id,
                    missing: entry
                        .missing
                        .iter()
                        .map(|path| path.display().to_string())
                        .collect(),
                    file_kept_by,
                }
            }
        };
        if let Some(paper_id) = outcome_paper(&outcome) {
            self.keep_entry(paper_id, entry).await?;
        }
        Ok(outcome)
    }

    /// `id: title` of the paper that keeps a file an entry also names, when the entry is
    /// another work: an identifier both have differs, or, with none to compare, their
    /// titles are not alike. `None`: the same work (it gains what the entry brings).
    async fn another_work(
        &self,
        paper_id: &str,
        entry: &PaperRecord,
    ) -> Result<Option<String>, String> {
        let Some(kept) = self.store.paper_record(paper_id).await.map_err(storage)? else {
            return Ok(None);
        };
        let same = |a: &Option<String>, b: &Option<String>| match (a, b) {
            (Some(a), Some(b)) => Some(a.eq_ignore_ascii_case(b)),
            _ => None,
        };
        let by_ids = same(&kept.doi, &entry.doi)
            .or_else(|| same(&kept.arxiv_id, &entry.arxiv_id))
            .or_else(|| same(&kept.bibcode, &entry.bibcode));
        let alike = by_ids.unwrap_or_else(|| {
            kept.title.trim().is_empty()
                || entry.title.trim().is_empty()
                || crate::library::identify::title_similarity(&kept.title, &entry.title) >= 0.5
        });
        Ok((!alike).then(|| format!("{paper_id}: {}", kept.title)))
    }

    /// The entry's key, text, origin, collections, tags and notes, on its paper.
    async fn keep_entry(&self, paper_id: &str, entry: &ForeignEntry) -> Result<(), String> {
        self.store
            .set_foreign_entry(paper_id, &entry.key, entry.entry.as_deref())
            .await
            .map_err(storage)?;
        if let Some(origin) = &entry.origin {
            self.store
                .set_origin(origin, paper_id)
                .await
                .map_err(storage)?;
        }
        for note in &entry.notes {
            let note = asterism_store::Note {
                id: note.id.clone(),
                paper_id: Some(paper_id.to_string()),
                paper_label: None,
                page: note.page,
                quote: note.quote.clone(),
                comment: note.comment.clone(),
                color: note.color.clone(),
                rects: serde_json::json!([]),
                created_at: String::new(),
                updated_at: String::new(),
            };
            self.store.add_note_once(&note).await.map_err(storage)?;
        }
        for collection in &entry.collections {
            self.store
                .add_to_collection(paper_id, collection)
                .await
                .map_err(storage)?;
        }
        for tag in &entry.tags {
            self.store.tag_paper(paper_id, tag).await.map_err(storage)?;
        }
        Ok(())
    }

    /// Imports one file.
    pub async fn import_file(&self, path: &Path) -> ImportOutcome {
        self.import_file_read(path, None).await
    }

    /// Imports one file, with its text when it was read ahead.
    async fn import_file_read(&self, path: &Path, ahead: Option<ReadAhead>) -> ImportOutcome {
        if !is_pdf_name(path) {
            return ImportOutcome::Skipped {
                reason: "not a PDF, .bib or CSL-JSON file".into(),
            };
        }
        let bytes = match tokio::fs::read(path).await {
            Ok(bytes) => bytes,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                return ImportOutcome::Failed {
                    reason: "the file disappeared before it could be read".into(),
                };
            }
            Err(error) => {
                return ImportOutcome::Failed {
                    reason: format!("cannot read it: {error}"),
                };
            }
        };
        match self.import_pdf(path, bytes, None, ahead).await {
            Ok(outcome) => outcome,
            Err(reason) => ImportOutcome::Failed { reason },
        }
    }

    /// Imports a PDF; `given`: the record another library has for it (trusted over what
    /// the PDF says, not looked up online) and the paper it is already known as.
    async fn import_pdf(
        &self,
        path: &Path,
        bytes: Vec<u8>,
        given: Option<(&PaperRecord, Option<&str>)>,
        ahead: Option<ReadAhead>,
    ) -> Result<ImportOutcome, String> {
        let sha256 = sha256_hex(&bytes);
        if let Some(stored) = self.store.stored_file(&sha256).await.map_err(storage)? {
            if !stored.pending {
                return Ok(ImportOutcome::Duplicate {
                    paper_id: stored.paper_id,
                });
            }
            // The same file, its import interrupted: finish it.
            return self.finish(&stored, Some(bytes)).await;
        }
        let file_name = path
            .file_name()
            .map(|name| name.to_string_lossy().into_owned())
            .unwrap_or_default();
        let read = match ahead {
            Some(ahead) => match ahead.take(&sha256).await {
                Some(read) => read?,
                None => read_pdf(bytes, &file_name).await?,
            },
            None => read_pdf(bytes, &file_name).await?,
        };
        let (record, not_identified) = match given {
            Some((record, _)) => (complete(record.clone(), &read.local), None),
            None => self.identify(read.local.clone()).await,
        };
        let identified = given.is_none() && not_identified.is_none();
        let into = given.and_then(|(_, into)| into);
        let (existing, by_text) = self.paper_of(&record, into, read.fingerprint).await?;
        let into = into.or(by_text.as_deref());
        let existing_text = match &existing {
            Some(paper_id) => self.store.paper_text(paper_id).await.map_err(storage)?,
            None => None,
        };
        let needs_text = existing_text.is_none();
        let stored_path = |paper_id: &str| self.stored_path(paper_id, &sha256);
        let file_at = |paper_id: &str| PaperFile {
            paper_id: paper_id.to_string(),
            kind: "pdf".into(),
            path: stored_path(paper_id).display().to_string(),
            sha256: sha256.clone(),
            size_bytes: i64::try_from(read.bytes.len()).unwrap_or(i64::MAX),
            source: "import".into(),
        };
        let paper_id = self
            .store
            .begin_import(&record, into, &file_at, Some(&file_name), needs_text)
            .await
            .map_err(storage)?;
        if (identified || given.is_some()) && existing.is_some() {
            self.prefer_online(&paper_id, &record).await?;
        }
        if existing.is_none() {
            self.store
                .set_identify_note(&paper_id, not_identified.as_deref())
                .await
                .map_err(storage)?;
        }
        write_copy(&stored_path(&paper_id), &read.bytes).await?;
        let title = self.title_of(&paper_id, &record.title).await?;
        if let (Some(fingerprint), None) = (read.fingerprint, &existing) {
            self.store
                .set_text_fingerprint(&paper_id, fingerprint)
                .await
                .map_err(storage)?;
        }
        if !needs_text {
            return Ok(ImportOutcome::Linked {
                paper_id,
                title,
                same_text: by_text.is_some(),
            });
        }
        self.commit(&paper_id, &title, read.text, read.warning)
            .await
    }

    /// The paper a new file belongs to, if the library has it: by bibcode, arXiv id or
    /// DOI, else the one it is known as (`into`), else, offline, the paper whose text it
    /// has (a re-saved copy has no id to be found by). The second: the paper found by
    /// its text.
    async fn paper_of(
        &self,
        record: &PaperRecord,
        into: Option<&str>,
        fingerprint: Option<u64>,
    ) -> Result<(Option<String>, Option<String>), String> {
        let existing = self
            .store
            .find_paper(
                record.bibcode.as_deref(),
                record.arxiv_id.as_deref(),
                record.doi.as_deref(),
            )
            .await
            .map_err(storage)?
            .or_else(|| into.map(String::from));
        let by_text = match (&existing, fingerprint) {
            (None, Some(fingerprint)) => self
                .store
                .paper_with_fingerprint(fingerprint, SAME_TEXT_BITS)
                .await
                .map_err(storage)?,
            _ => None,
        };
        Ok((existing.or_else(|| by_text.clone()), by_text))
    }

    /// The paper's record from ADS/arXiv/Crossref (completed with what the PDF says),
    /// or what the PDF says when offline or not found; and whether it was identified.
    /// Also: why it was not identified (a plain line, see [`why_not`]). Once a lookup
    /// found the network down, the other files of this import are not looked up.
    async fn identify(&self, local: PaperRecord) -> (PaperRecord, Option<String>) {
        if !self.online {
            let reason = "not looked up (imported with --offline): run `asterism library identify`";
            return (local, Some(reason.into()));
        }
        if let Some(reason) = self.network_down.get() {
            return (local, Some(reason.clone()));
        }
        let mut notes = Vec::new();
        match identify_online(&self.papers, self.crossref.as_ref(), &local, &mut notes).await {
            Some(found) => (complete(found.record, &local), None),
            None => {
                let reason = why_not(&notes, self.papers.ads.has_token());
                if is_offline(&reason) {
                    let _ = self.network_down.set(reason.clone());
                }
                (local, Some(reason))
            }
        }
    }

    /// An online record replaces what an earlier import read from the PDF.
    async fn prefer_online(&self, paper_id: &str, record: &PaperRecord) -> Result<(), String> {
        let source = self
            .store
            .paper_metadata_source(paper_id)
            .await
            .map_err(storage)?;
        if source.as_deref() == Some(LOCAL_SOURCE) {
            self.store
                .replace_paper_metadata(paper_id, record)
                .await
                .map_err(storage)?;
        }
        Ok(())
    }

    async fn title_of(&self, paper_id: &str, fallback: &str) -> Result<String, String> {
        Ok(self
            .store
            .paper_record(paper_id)
            .await
            .map_err(storage)?
            .map(|paper| paper.title)
            .unwrap_or_else(|| fallback.to_string()))
    }

    /// Finishes a file whose import was interrupted: parses the stored copy (written
    /// again from `bytes` when it is missing and they are given) and commits its text.
    pub async fn finish(
        &self,
        stored: &PendingFile,
        bytes: Option<Vec<u8>>,
    ) -> Result<ImportOutcome, String> {
        let path = PathBuf::from(&stored.path);
        let bytes = match (tokio::fs::read(&path).await, bytes) {
            (Ok(stored_bytes), _) if sha256_hex(&stored_bytes) == stored.sha256 => stored_bytes,
            (_, Some(bytes)) => {
                write_copy(&path, &bytes).await?;
                bytes
            }
            (_, None) => {
                return Err(format!(
                    "its import was interrupted and the library's copy is missing: import {} again",
                    stored.original_name.as_deref().unwrap_or("the file")
                ));
            }
        };
        let name = stored.original_name.clone().unwrap_or_default();
        let read = read_pdf(bytes, &name).await?;
        let title = self.title_of(&stored.paper_id, &read.local.title).await?;
        self.commit(&stored.paper_id, &title, read.text, read.warning)
            .await
    }

    /// Finishes every import that was interrupted (see [`Importer::finish`]).
    pub async fn finish_pending(&self, progress: ImportProgress<'_>) -> Vec<ImportItem> {
        let pending = match self.store.pending_files().await {
            Ok(pending) => pending,
            Err(error) => {
                return vec![ImportItem {
                    path: self.data_dir.display().to_string(),
                    outcome: ImportOutcome::Failed {
                        reason: storage(error),
                    },
                    resumed: true,
                }];
            }
        };
        let total = pending.len();
        let mut items = Vec::with_capacity(total);
        for (done, stored) in pending.iter().enumerate() {
            let outcome = self
                .finish(stored, None)
                .await
                .unwrap_or_else(|reason| ImportOutcome::Failed { reason });
            let item = ImportItem {
                path: stored.original_name.clone().unwrap_or(stored.path.clone()),
                outcome,
                resumed: true,
            };
            progress(done + 1, total, &item);
            items.push(item);
        }
        items
    }

    /// Commits the paper's text and passages (none for an encrypted or scanned PDF) and
    /// ends its import.
    async fn commit(
        &self,
        paper_id: &str,
        title: &str,
        text: Option<PdfText>,
        warning: Option<String>,
    ) -> Result<ImportOutcome, String> {
        let local_only = self
            .store
            .paper_metadata_source(paper_id)
            .await
            .map_err(storage)?
            .as_deref()
            == Some(LOCAL_SOURCE);
        let figures: Option<Vec<_>> = text.as_ref().map(|text| {
            text.figures
                .iter()
                .map(|figure| figure.stored(paper_id))
                .collect()
        });
        let parsed = match text {
            Some(text) => Some(self.passages(paper_id, title, text).await?),
            None => None,
        };
        let status = match (local_only, parsed.is_some()) {
            (true, _) => "unidentified",
            (false, true) => "parsed",
            (false, false) => "downloaded",
        };
        let chunks = self
            .store
            .commit_import(
                paper_id,
                parsed
                    .as_ref()
                    .map(|(text, chunks)| (text, chunks.as_slice())),
                figures.as_deref(),
                status,
            )
            .await
            .map_err(storage)?;
        Ok(ImportOutcome::Imported {
            paper_id: paper_id.to_string(),
            title: title.to_string(),
            identified: !local_only,
            chunks,
            warning,
        })
    }

    /// The paper's Markdown and passages, made off the async threads (a long paper's
    /// passages take a few hundred milliseconds).
    async fn passages(
        &self,
        paper_id: &str,
        title: &str,
        text: PdfText,
    ) -> Result<(PaperText, Vec<NewChunk>), String> {
        let chunker = self.chunker.clone();
        let (paper_id, title) = (paper_id.to_string(), title.to_string());
        tokio::task::spawn_blocking(move || {
            let heading = Some(title.as_str()).filter(|title| !title.is_empty());
            let (markdown, sections) = pages_to_markdown(&text.pages, heading);
            let chunks = chunker.chunk(&markdown);
            let text = PaperText {
                paper_id,
                source: "pdf".into(),
                engine: text.engine.name().into(),
                markdown,
                pages: i64::try_from(text.pages.len()).ok(),
                sections: serde_json::to_string(&sections).unwrap_or_else(|_| "[]".into()),
                parsed_at: chrono::Utc::now().to_rfc3339(),
            };
            (text, chunks)
        })
        .await
        .map_err(|error| format!("cutting the paper into passages failed: {error}"))
    }

    /// `{data_dir}/papers/{paper_id}-{hash}.pdf`.
    fn stored_path(&self, paper_id: &str, sha256: &str) -> PathBuf {
        self.data_dir
            .join("papers")
            .join(format!("{paper_id}-{}.pdf", &sha256[..12]))
    }
}

/// One thing to import: a PDF, an entry of a library file, or a file already reported.
enum Unit {
    Pdf(PathBuf),
    Entry(PathBuf, Box<ForeignEntry>),
    Done(ImportItem),
}

/// The files, with each `.bib`, CSL-JSON file and Zotero database replaced by its
/// entries (one that cannot be read is reported once, as failed).
async fn expand_libraries(files: Vec<Result<PathBuf, ImportItem>>) -> Vec<Unit> {
    let mut units = Vec::with_capacity(files.len());
    for file in files {
        let read = match &file {
            Ok(path) if crate::library::zotero::zotero_database(path).is_some() => {
                Some(crate::library::zotero::read_zotero(path).await)
            }
            Ok(path) if is_foreign_library(path) => Some(read_library(path)),
            _ => None,
        };
        match (file, read) {
            (Ok(path), Some(read)) => match read {
                Ok(entries) => units.extend(
                    entries
                        .into_iter()
                        .map(|entry| Unit::Entry(path.clone(), Box::new(entry))),
                ),
                Err(error) => units.push(Unit::Done(ImportItem {
                    path: path.display().to_string(),
                    outcome: ImportOutcome::Failed {
                        reason: error.to_string(),
                    },
                    resumed: false,
                })),
            },
            (Ok(path), None) => units.push(Unit::Pdf(path)),
            (Err(item), _) => units.push(Unit::Done(item)),
        }
    }
    units
}

/// The paper an outcome is about, if any.
pub fn outcome_paper(outcome: &ImportOutcome) -> Option<&str> {
    match outcome {
        ImportOutcome::Imported { paper_id, .. }
        | ImportOutcome::Linked { paper_id, .. }
        | ImportOutcome::Duplicate { paper_id }
        | ImportOutcome::MetadataOnly { paper_id, .. } => Some(paper_id),
        ImportOutcome::Skipped { .. } | ImportOutcome::Failed { .. } => None,
    }
}

/// Writes the library's copy of a PDF (temp file + rename: never half a file).
async fn write_copy(target: &Path, bytes: &[u8]) -> Result<(), String> {
    let folder = target.parent().unwrap_or(Path::new("."));
    tokio::fs::create_dir_all(folder)
        .await
        .map_err(|error| format!("cannot create {}: {error}", folder.display()))?;
    let mut temp = target.as_os_str().to_owned();
    temp.push(".part");
    tokio::fs::write(&temp, bytes)
        .await
        .map_err(|error| format!("cannot write into the library: {error}"))?;
    tokio::fs::rename(&temp, target)
        .await
        .map_err(|error| format!("cannot write into the library: {error}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::library::identifiers::{find_arxiv_id, find_doi};

    #[test]
    fn identifiers_in_the_text() {
        assert_eq!(
            find_arxiv_id("arXiv:2401.01234v2 [astro-ph.CO] 3 Jan 2024").as_deref(),
            Some("2401.01234")
        );
        assert_eq!(
            find_arxiv_id("astro-ph/0601001v1").as_deref(),
            Some("astro-ph/0601001")
        );
        assert_eq!(find_arxiv_id("see Table 2401.01234"), None);
        assert_eq!(
            find_doi("DOI: 10.1051/0004-6361/202346488.").as_deref(),
            Some("10.1051/0004-6361/202346488")
        );
        assert_eq!(
            find_doi("https://doi.org/10.3847/1538-4357/ab1234)").as_deref(),
            Some("10.3847/1538-4357/ab1234")
        );
        assert!(!plausible_title("Microsoft Word - draft3.docx"));
        assert!(!plausible_title("ms.dvi"));
        assert!(plausible_title("The Tip of the Red Giant Branch"));
    }
}
