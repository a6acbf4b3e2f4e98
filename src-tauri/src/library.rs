//! Library commands: import (with progress through a channel), listing, details, the
//! stored PDF for the viewer, notes, collections, passage search, deletion and BibTeX.

use std::path::{Path, PathBuf};

use asterism_library::library::run::{CollectionInfo, PassageResults};
use asterism_library::library::{ImportItem, ImportPlan, ImportRun, ImportWatcher};
use asterism_store::{LibraryPaper, Note, PaperFilter};
use serde::{Deserialize, Serialize};
use specta::Type;
use tauri::State;
use tauri::ipc::Channel;

use crate::dialogs::{Dialogs, FileDialog, Phrase, UiLanguage, shown};
use crate::error::{AppError, AppErrorKind};
use crate::state::AppState;

/// One file of an import, done.
#[derive(Debug, Clone, Serialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct ImportedFile {
    pub done: u32,
    pub total: u32,
    pub path: String,
    /// imported | linked | duplicate | metadataOnly | skipped | failed
    pub outcome: String,
    pub paper_id: Option<String>,
    pub title: Option<String>,
    /// Why it failed or was skipped, or a warning (e.g. a scanned PDF).
    pub message: Option<String>,
}

/// Passages embedded so far (after an import, or in the background).
#[derive(Debug, Clone, Serialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct EmbeddingProgress {
    pub done: u32,
    pub total: u32,
}

/// What an import did in all.
#[derive(Debug, Clone, Default, Serialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct ImportSummary {
    pub imported: u32,
    pub linked: u32,
    pub duplicates: u32,
    /// Entries of a `.bib` or CSL-JSON file listed without a file.
    pub metadata_only: u32,
    pub skipped: u32,
    pub failed: u32,
    /// Passages embedded after the import (`None`: no embedding model, keywords only).
    pub embedded: Option<u32>,
    /// Why embedding stopped early (the import itself is kept).
    pub index_error: Option<String>,
    /// Cancelled: what was done is kept, and importing the same files again (or the
    /// next start) finishes the rest.
    pub stopped: bool,
    /// Files handled before the end or the cancel, of `total`.
    pub done: u32,
    pub total: u32,
}

/// Progress of `library_import`, in order: files, then embedding, then `finished`.
#[derive(Debug, Clone, Serialize, Type)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum ImportEvent {
    File(ImportedFile),
    Embedding(EmbeddingProgress),
    Finished(ImportSummary),
}

pub(crate) use asterism_library::library::run::wire_count as count;

fn file_event(done: usize, total: usize, item: &ImportItem) -> ImportedFile {
    let reported = item.reported();
    ImportedFile {
        done: count(done),
        total: count(total),
        path: item.path.clone(),
        outcome: reported.outcome.into(),
        paper_id: reported.paper_id.map(str::to_string),
        title: reported.title.map(str::to_string),
        message: reported.message,
    }
}

/// An import's progress, sent through the channel as it comes.
struct ChannelWatcher(Channel<ImportEvent>);

impl ImportWatcher for ChannelWatcher {
    fn file(&self, done: usize, total: usize, item: &ImportItem) {
        let _ = self
            .0
            .send(ImportEvent::File(file_event(done, total, item)));
    }

    fn embedding(&self, done: i64, total: i64) {
        let _ = self.0.send(ImportEvent::Embedding(EmbeddingProgress {
            done: count(done),
            total: count(total),
        }));
    }
}

impl From<&ImportRun> for ImportSummary {
    fn from(run: &ImportRun) -> Self {
        let counts = &run.counts;
        Self {
            imported: count(counts.imported),
            linked: count(counts.linked),
            duplicates: count(counts.duplicates),
            metadata_only: count(counts.metadata_only),
            skipped: count(counts.skipped),
            failed: count(counts.failed),
            embedded: run.index.as_ref().map(|report| count(report.embedded)),
            index_error: run.index.as_ref().and_then(|report| report.error.clone()),
            stopped: run.stopped,
            done: count(run.items.len()),
            total: count(run.total),
        }
    }
}

/// Imports `paths`, puts the new papers in `collection` if given, then embeds their
/// passages; progress streams through `channel`.
async fn import_paths(
    state: &AppState,
    paths: Vec<PathBuf>,
    collection: Option<String>,
    channel: Channel<ImportEvent>,
) -> Result<ImportSummary, AppError> {
    let services = state.engine().services.clone();
    let import = state.start_import()?;
    let plan = ImportPlan {
        online: true,
        collection,
        embed: true,
    };
    let watcher = ChannelWatcher(channel);
    let run = services
        .library
        .import_run(&paths, &plan, &watcher, &import.token)
        .await?;
    asterism_agent::heap::release_free_memory();
    let summary = ImportSummary::from(&run);
    let _ = watcher.0.send(ImportEvent::Finished(summary.clone()));
    Ok(summary)
}

/// The embedding the app began in the background at start (passages without a vector,
/// or the whole library once after the local model changed); `None` when none runs.
#[tauri::command]
#[specta::specta]
pub fn library_background_embedding(state: State<'_, AppState>) -> Option<EmbeddingProgress> {
    state
        .background_embedding
        .lock()
        .ok()
        .and_then(|slot| slot.clone())
}

/// Stops the import in progress, between two commits. What was done is kept.
#[tauri::command]
#[specta::specta]
pub fn library_import_cancel(state: State<'_, AppState>) -> bool {
    state.cancel_import()
}

/// What the import dialog picks.
#[derive(Debug, Clone, Copy, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub enum ImportPick {
    /// PDFs (several may be chosen).
    Files,
    /// One folder, read with its subfolders.
    Folder,
}

/// Asks for PDFs or a folder (a native open dialog) and imports what was chosen, into
/// `collection` if given, then embeds their passages. Progress streams through
/// `on_progress`; the summary is also the answer, `None` when the user cancelled.
#[tauri::command]
#[specta::specta]
pub async fn library_import(
    window: tauri::WebviewWindow,
    state: State<'_, AppState>,
    dialogs: State<'_, Dialogs>,
    pick: ImportPick,
    collection: Option<String>,
    on_progress: Channel<ImportEvent>,
) -> Result<Option<ImportSummary>, AppError> {
    let chosen = match pick {
        ImportPick::Files => {
            let dialog = FileDialog {
                title: Phrase::ImportFiles,
                file_name: None,
                filter: Some((Phrase::Pdf, &["pdf", "bib", "json", "sqlite"])),
            };
            dialogs.pick_files(&window, dialog).await?
        }
        ImportPick::Folder => {
            let dialog = FileDialog {
                title: Phrase::ImportFolder,
                file_name: None,
                filter: None,
            };
            dialogs
                .pick_folder(&window, dialog)
                .await?
                .map(|folder| vec![folder])
        }
    };
    match chosen {
        Some(paths) => Ok(Some(
            import_paths(&state, paths, collection, on_progress).await?,
        )),
        None => Ok(None),
    }
}

/// The most paths one drop or paste may name.
const MAX_PATHS: usize = 10_000;

/// Whether every path is inside `data_dir` once links and `..` are resolved (a path
/// that does not exist is not).
fn inside_data_dir(paths: &[PathBuf], data_dir: &Path) -> bool {
    let Ok(data_dir) = std::fs::canonicalize(data_dir) else {
        return false;
    };
    paths
        .iter()
        .all(|path| std::fs::canonicalize(path).is_ok_and(|path| path.starts_with(&data_dir)))
}

/// The question a native message box asks before importing paths the webview named.
fn import_question(paths: &[PathBuf], language: UiLanguage) -> String {
    const LISTED: usize = 3;
    let listed: String = paths
        .iter()
        .take(LISTED)
        .map(|path| format!("\n{}", shown(path)))
        .collect();
    let more = paths.len().saturating_sub(LISTED);
    let count = paths.len();
    match language {
        UiLanguage::En => {
            let items = if count == 1 { "item" } else { "items" };
            let more = if more > 0 {
                format!("\n… and {more} more")
            } else {
                String::new()
            };
            format!(
                "Import {count} {items} into the library?\n{listed}{more}\n\nThese paths were dropped on the window or typed into the Library's path field, not chosen in a file dialog."
            )
        }
        UiLanguage::Zh => {
            let more = if more > 0 {
                format!("\n……另有 {more} 项")
            } else {
                String::new()
            };
            format!(
                "将 {count} 项导入文献库？\n{listed}{more}\n\n这些路径是拖放到窗口或输入到文献库路径栏中的，不是在文件对话框中选择的。"
            )
        }
    }
}

/// Imports files and folders dropped on the window or typed into the path field, like
/// `library_import`. The webview names these paths, so unless all lie inside the data
/// directory a native message box asks the user first; `None` when the user declined.
#[tauri::command]
#[specta::specta]
pub async fn library_import_paths(
    window: tauri::WebviewWindow,
    state: State<'_, AppState>,
    dialogs: State<'_, Dialogs>,
    paths: Vec<String>,
    collection: Option<String>,
    on_progress: Channel<ImportEvent>,
) -> Result<Option<ImportSummary>, AppError> {
    if paths.is_empty() {
        return Err(AppError::new(
            AppErrorKind::InvalidInput,
            "Choose at least one PDF or folder.",
        ));
    }
    if paths.len() > MAX_PATHS {
        return Err(AppError::new(
            AppErrorKind::InvalidInput,
            format!("At most {MAX_PATHS} files or folders at once."),
        ));
    }
    let paths: Vec<PathBuf> = paths.into_iter().map(PathBuf::from).collect();
    if let Some(relative) = paths.iter().find(|path| !path.is_absolute()) {
        return Err(AppError::new(
            AppErrorKind::InvalidInput,
            format!("Give the full path: {} is not one.", shown(relative)),
        ));
    }
    let data_dir = state.engine().settings.data_dir.clone();
    let (paths, inside) = tokio::task::spawn_blocking(move || {
        let inside = inside_data_dir(&paths, &data_dir);
        (paths, inside)
    })
    .await
    .map_err(|error| AppError::new(AppErrorKind::Internal, error.to_string()))?;
    if !inside {
        let question = import_question(&paths, dialogs.language());
        let confirmed = dialogs
            .confirm(
                &window,
                Phrase::ConfirmImportTitle,
                question,
                Phrase::Import,
            )
            .await?;
        if !confirmed {
            return Ok(None);
        }
    }
    Ok(Some(
        import_paths(&state, paths, collection, on_progress).await?,
    ))
}

/// Papers of the library, newest first.
#[tauri::command]
#[specta::specta]
pub async fn library_list(
    state: State<'_, AppState>,
    filter: PaperFilter,
) -> Result<Vec<LibraryPaper>, AppError> {
    Ok(state
        .engine()
        .services
        .store
        .library_papers(&filter)
        .await?)
}

/// A paper with its notes.
#[derive(Debug, Clone, Serialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct PaperDetails {
    pub paper: LibraryPaper,
    pub abstract_text: Option<String>,
    pub journal: Option<String>,
    pub notes: Vec<Note>,
}

#[tauri::command]
#[specta::specta]
pub async fn library_paper(
    state: State<'_, AppState>,
    paper_id: String,
) -> Result<PaperDetails, AppError> {
    let store = &state.engine().services.store;
    let filter = PaperFilter {
        paper_id: Some(paper_id.clone()),
        ..PaperFilter::default()
    };
    let paper = store
        .library_papers(&filter)
        .await?
        .into_iter()
        .next()
        .ok_or_else(|| {
            AppError::new(AppErrorKind::NotFound, "That paper is not in the library.")
        })?;
    let record = store.paper_record(&paper_id).await?;
    Ok(PaperDetails {
        paper,
        abstract_text: record.as_ref().and_then(|r| r.abstract_text.clone()),
        journal: record.and_then(|r| r.journal),
        notes: store.notes(Some(&paper_id)).await?,
    })
}

/// The paper's stored PDF for the viewer, served on the `pdf` URI scheme
/// (`convertFileSrc(paperId, "pdf")` in the webview) so the bytes never go through JSON.
pub async fn pdf_bytes(state: &AppState, paper_id: &str) -> Result<Vec<u8>, AppError> {
    let store = &state.engine().services.store;
    let path = store
        .paper_pdf(paper_id)
        .await?
        .map(|file| file.path)
        .ok_or_else(|| AppError::new(AppErrorKind::NotFound, "This paper has no stored PDF."))?;
    tokio::fs::read(&path).await.map_err(|error| {
        AppError::new(
            AppErrorKind::Storage,
            format!("cannot read the stored PDF: {error}"),
        )
    })
}

/// A library paper's figures and tables, where they are on their pages (found in its
/// PDF now, and kept, when it was parsed before regions were).
#[tauri::command]
#[specta::specta]
pub async fn library_figures(
    state: State<'_, AppState>,
    paper_id: String,
) -> Result<Vec<asterism_store::StoredFigure>, AppError> {
    let store = &state.engine().services.store;
    asterism_library::library::figures::figures(store, &paper_id)
        .await
        .map_err(figure_error)
}

/// The figure or table `{paper_id}/{label}` (URL-encoded as a whole, as the webview's
/// `convertFileSrc` does) of a library paper, rendered as a PNG from its stored PDF.
pub async fn figure_png(state: &AppState, path: &str) -> Result<Vec<u8>, AppError> {
    use asterism_library::library::figures;
    let path = percent_encoding::percent_decode_str(path).decode_utf8_lossy();
    let (paper_id, label) = path
        .trim_start_matches('/')
        .split_once('/')
        .ok_or_else(|| AppError::new(AppErrorKind::InvalidInput, "figure://{paper}/{label}"))?;
    let store = &state.engine().services.store;
    figures::figure_png(store, paper_id, label, figures::DEFAULT_DPI)
        .await
        .map(|(_, png)| png)
        .map_err(figure_error)
}

fn figure_error(error: asterism_library::library::figures::FigureError) -> AppError {
    use asterism_library::library::figures::FigureError;
    let kind = match &error {
        FigureError::BadLabel(_) => AppErrorKind::InvalidInput,
        FigureError::NotFound { .. } | FigureError::NoPdf => AppErrorKind::NotFound,
        _ => AppErrorKind::Storage,
    };
    AppError::new(kind, error.to_string())
}

/// Deletes a paper, its passages, vectors and stored files; notes are kept (labelled
/// with the paper's title) unless `delete_notes`.
#[tauri::command]
#[specta::specta]
pub async fn library_delete(
    state: State<'_, AppState>,
    paper_id: String,
    delete_notes: bool,
) -> Result<bool, AppError> {
    Ok(state
        .engine()
        .services
        .library
        .delete(&paper_id, delete_notes)
        .await?)
}

#[tauri::command]
#[specta::specta]
pub async fn library_collections(
    state: State<'_, AppState>,
) -> Result<Vec<CollectionInfo>, AppError> {
    Ok(state.engine().services.library.collections().await?)
}

/// Adds a paper to a collection (created on first use).
#[tauri::command]
#[specta::specta]
pub async fn library_collect(
    state: State<'_, AppState>,
    paper_id: String,
    collection: String,
) -> Result<(), AppError> {
    let collection = collection.trim();
    if collection.is_empty() {
        return Err(AppError::new(
            AppErrorKind::InvalidInput,
            "A collection needs a name.",
        ));
    }
    Ok(state
        .engine()
        .services
        .store
        .add_to_collection(&paper_id, collection)
        .await?)
}

/// A note to add: a highlight (quote and rectangles on a page) with a comment.
#[derive(Debug, Clone, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct NewNote {
    pub paper_id: String,
    pub page: Option<u32>,
    pub quote: Option<String>,
    pub comment: String,
    pub color: Option<String>,
    /// `[{x, y, width, height}]` in PDF points.
    pub rects: Vec<NoteRect>,
}

#[derive(Debug, Clone, Serialize, Deserialize, Type)]
pub struct NoteRect {
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub height: f64,
}

#[tauri::command]
#[specta::specta]
pub async fn note_add(state: State<'_, AppState>, note: NewNote) -> Result<Note, AppError> {
    if note.quote.as_deref().is_none_or(|q| q.trim().is_empty()) && note.comment.trim().is_empty() {
        return Err(AppError::new(
            AppErrorKind::InvalidInput,
            "A note needs a highlight or a comment.",
        ));
    }
    let rects = serde_json::to_value(&note.rects)
        .map_err(|error| AppError::new(AppErrorKind::InvalidInput, error.to_string()))?;
    let stored = Note {
        id: String::new(),
        paper_id: Some(note.paper_id),
        paper_label: None,
        page: note.page.map(i64::from),
        quote: note.quote.map(|q| q.trim().to_string()),
        comment: note.comment.trim().to_string(),
        color: note.color,
        rects,
        created_at: String::new(),
        updated_at: String::new(),
    };
    Ok(state.engine().services.store.add_note(&stored).await?)
}

/// Notes of one paper, or of the whole library.
#[tauri::command]
#[specta::specta]
pub async fn notes_list(
    state: State<'_, AppState>,
    paper_id: Option<String>,
) -> Result<Vec<Note>, AppError> {
    Ok(state
        .engine()
        .services
        .store
        .notes(paper_id.as_deref())
        .await?)
}

#[tauri::command]
#[specta::specta]
pub async fn library_search(
    state: State<'_, AppState>,
    query: String,
    filter: PaperFilter,
    limit: u32,
) -> Result<PassageResults, AppError> {
    let results = state
        .engine()
        .services
        .library
        .search(&query, &filter, limit.clamp(1, 100) as usize)
        .await?;
    Ok(results.into())
}

/// What a BibTeX export wrote: how many entries, where, and the notes (e.g. "ADS
/// unreachable: local entries").
#[derive(Debug, Clone, Serialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct BibExport {
    pub entries: u32,
    pub path: String,
    pub notes: Vec<String>,
}

/// Asks where to save (a native save dialog) and writes BibTeX for the whole library or
/// one collection there; `None` when the user cancelled.
#[tauri::command]
#[specta::specta]
pub async fn library_export_bib(
    window: tauri::WebviewWindow,
    state: State<'_, AppState>,
    dialogs: State<'_, Dialogs>,
    collection: Option<String>,
) -> Result<Option<BibExport>, AppError> {
    let dialog = FileDialog {
        title: Phrase::ExportBib,
        file_name: Some(format!(
            "{}.bib",
            collection
                .as_deref()
                .map(|name| name.replace(['/', '\\'], "-"))
                .unwrap_or_else(|| "library".into())
        )),
        filter: Some((Phrase::BibTex, &["bib"])),
    };
    let Some(path) = dialogs.save_file(&window, dialog).await? else {
        return Ok(None);
    };
    // A file on disk, for JabRef or Zotero: it names the stored PDFs.
    let (text, entries, notes) = state
        .engine()
        .services
        .library
        .bibtex(collection, true)
        .await?;
    tokio::fs::write(&path, text).await.map_err(|error| {
        AppError::new(
            AppErrorKind::Storage,
            format!("cannot write {}: {error}", path.display()),
        )
    })?;
    Ok(Some(BibExport {
        entries: count(entries),
        path: path.display().to_string(),
        notes,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_paths_inside_the_data_dir_skip_the_question() {
        let root = std::env::temp_dir().join(format!("asterism-inside-{}", std::process::id()));
        let data_dir = root.join("data");
        let papers = data_dir.join("papers");
        std::fs::create_dir_all(&papers).unwrap();
        std::fs::write(papers.join("a.pdf"), b"%PDF").unwrap();
        std::fs::create_dir_all(root.join("elsewhere")).unwrap();
        assert!(inside_data_dir(
            &[papers.join("a.pdf"), papers.clone()],
            &data_dir
        ));
        // `..` and links are resolved first; a missing path is not inside.
        assert!(!inside_data_dir(
            &[papers.join("../../elsewhere")],
            &data_dir
        ));
        assert!(!inside_data_dir(&[papers.join("missing.pdf")], &data_dir));
        assert!(!inside_data_dir(
            &[papers.join("a.pdf"), "/etc/hostname".into()],
            &data_dir
        ));
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(root.join("elsewhere"), papers.join("link")).unwrap();
            assert!(!inside_data_dir(&[papers.join("link")], &data_dir));
        }
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn the_question_lists_the_first_paths() {
        let paths: Vec<PathBuf> = ["/home/astro/a.pdf", "/home/astro/b.pdf", "/etc", "/x", "/y"]
            .iter()
            .map(PathBuf::from)
            .collect();
        assert_eq!(
            import_question(&paths, UiLanguage::En),
            "Import 5 items into the library?\n\n/home/astro/a.pdf\n/home/astro/b.pdf\n/etc\n… and 2 more\n\nThese paths were dropped on the window or typed into the Library's path field, not chosen in a file dialog."
        );
        assert!(
            import_question(&paths[..1], UiLanguage::Zh)
                .starts_with("将 1 项导入文献库？\n\n/home/astro/a.pdf\n\n")
        );
    }
}

/// The objects the library's papers are about, with coordinates and papers.
#[tauri::command]
#[specta::specta]
pub async fn library_objects(
    state: State<'_, AppState>,
) -> Result<Vec<asterism_library::library::objects::LibraryObject>, AppError> {
    Ok(state.engine().services.library.objects().await?)
}

/// Papers about objects within `radius_arcmin` of `name` (resolved through Sesame).
#[tauri::command]
#[specta::specta]
pub async fn library_objects_near(
    state: State<'_, AppState>,
    name: String,
    radius_arcmin: f64,
) -> Result<asterism_library::library::objects::NearbyObjects, AppError> {
    if !(radius_arcmin > 0.0 && radius_arcmin <= 600.0) {
        return Err(AppError::new(
            AppErrorKind::InvalidInput,
            "the radius is above 0 and at most 600 arcmin",
        ));
    }
    state
        .engine()
        .services
        .library
        .objects_near(&name, radius_arcmin)
        .await
        .map_err(|error| {
            use asterism_library::library::objects::NearError;
            let kind = match &error {
                NearError::Invalid(_) => AppErrorKind::InvalidInput,
                NearError::UnknownName { .. } => AppErrorKind::NotFound,
                NearError::Resolver { .. } => AppErrorKind::Service,
                NearError::Store(_) => AppErrorKind::Storage,
            };
            AppError::new(kind, error.to_string())
        })
}
