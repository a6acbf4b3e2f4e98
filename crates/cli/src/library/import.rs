//! `asterism library import` from the terminal: one line per file (or NDJSON with
//! `--json`) with its count and ETA, a progress bar on a terminal, Ctrl-C that stops
//! cleanly, then the passages embedded.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use asterism_agent::{Services, Settings, bootstrap};
use asterism_library::library::{
    ImportCounts, ImportItem, ImportOutcome, ImportPlan, ImportWatcher, IndexReport,
};

use indicatif::{ProgressBar, ProgressStyle};
use std::sync::atomic::{AtomicUsize, Ordering};
use tokio_util::sync::CancellationToken;

use crate::signals;

fn bar(total: u64, json: bool, what: &str) -> ProgressBar {
    if json || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(total);
    if let Ok(style) =
        ProgressStyle::with_template(&format!("{what} {{bar:30}} {{pos}}/{{len}} {{msg}}"))
    {
        bar.set_style(style);
    }
    bar
}

pub(super) fn outcome_line(item: &ImportItem) -> String {
    match &item.outcome {
        ImportOutcome::Imported {
            title,
            identified,
            chunks,
            warning,
            ..
        } => {
            let mut line = format!(
                "imported  {}  → {title}{} ({chunks} passages)",
                item.path,
                if *identified { "" } else { " [unidentified]" }
            );
            if let Some(warning) = warning {
                line.push_str(&format!("; not searchable: {warning}"));
            }
            line
        }
        ImportOutcome::Linked {
            title,
            paper_id,
            same_text: true,
        } => format!(
            "linked    {}  → same paper as {paper_id} (text matches): {title}",
            item.path
        ),
        ImportOutcome::Linked { title, .. } => {
            format!("linked    {}  → another file of {title}", item.path)
        }
        ImportOutcome::Duplicate { paper_id } => {
            format!(
                "duplicate {}  (already in the library as {paper_id})",
                item.path
            )
        }
        ImportOutcome::MetadataOnly { title, .. } => {
            let looked = item
                .outcome
                .why_without_file()
                .unwrap_or_else(|| "it names no file".into());
            format!(
                "listed    {}  → {title} (metadata only: {looked})",
                item.path
            )
        }
        ImportOutcome::Skipped { reason } => format!("skipped   {}  ({reason})", item.path),
        ImportOutcome::Failed { reason } => format!("failed    {}  ({reason})", item.path),
    }
}

/// Embeds what is not embedded yet, with a progress bar on a terminal (lines at each
/// tenth without one).
pub(super) async fn index(services: &Services, json: bool) -> anyhow::Result<Option<IndexReport>> {
    let view = EmbeddingView::new(json, false);
    let (total, done) = services.store.chunk_counts().await?;
    view.report(done, total);
    let report = services
        .library
        .index(&|done, total| view.report(done, total))
        .await?;
    view.bar.finish_and_clear();
    Ok(report)
}

/// Where embedding is, shown as it goes: a bar on a terminal, a line at each tenth
/// without one, and with `events` an NDJSON object a batch (`import --json`).
struct EmbeddingView {
    bar: ProgressBar,
    /// Without a terminal (piped, redirected): the lines, from the first report on.
    lines: Option<std::sync::OnceLock<EmbeddingLines>>,
    events: bool,
}

impl EmbeddingView {
    fn new(json: bool, events: bool) -> Self {
        let bar = bar(0, json, "embedding");
        let lines = (bar.is_hidden() && !json).then(std::sync::OnceLock::new);
        Self { bar, lines, events }
    }

    fn report(&self, done: i64, total: i64) {
        self.bar.set_length(u64::try_from(total).unwrap_or(0));
        self.bar.set_position(u64::try_from(done).unwrap_or(0));
        if let Some(lines) = &self.lines {
            lines
                .get_or_init(|| EmbeddingLines::new(done))
                .report(done, total);
        }
        if self.events {
            emit(
                &serde_json::json!({"kind": "embedding", "done": done, "total": total}).to_string(),
            );
        }
    }
}

/// Embedding's progress as lines on stderr, one at each tenth of the passages:
/// `embedding: 320 of 848 passages (4.8 s, ETA 0:08)`.
struct EmbeddingLines {
    started: std::time::Instant,
    /// Passages already embedded when the run began (the pace counts this run's).
    before: i64,
    /// The last tenth reported.
    tenth: AtomicUsize,
}

impl EmbeddingLines {
    fn new(before: i64) -> Self {
        Self {
            started: std::time::Instant::now(),
            before,
            tenth: AtomicUsize::new(0),
        }
    }

    fn report(&self, done: i64, total: i64) {
        let tenth = usize::try_from(done * 10 / total.max(1)).unwrap_or(0);
        if tenth <= self.tenth.fetch_max(tenth, Ordering::SeqCst) {
            return;
        }
        let seconds = self.started.elapsed().as_secs_f64();
        let pace = seconds / (done - self.before).max(1) as f64;
        let eta = (pace * (total - done).max(0) as f64).round() as u64;
        eprintln!(
            "embedding: {done} of {total} passages ({seconds:.1} s, ETA {}:{:02})",
            eta / 60,
            eta % 60
        );
    }
}

/// What `library import` does besides importing.
pub(super) struct ImportOptions {
    /// Let ADS/arXiv identify the papers.
    pub(super) online: bool,
    pub(super) collection: Option<String>,
    /// Embed the new passages afterwards.
    pub(super) index: bool,
    pub(super) json: bool,
}

/// Where a finished file is reported, the moment it finishes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum FileReport {
    /// One NDJSON object on stdout (`--json`).
    Json,
    /// One line on stdout: what a script reading a pipe sees as each file is done.
    Line,
    /// Above the progress bar, when stdout and stderr are both the terminal.
    AboveBar,
}

/// Prints one line on stdout and flushes it, so a reader of a pipe gets it now. (A
/// closed pipe ends the process quietly through main's panic hook, as `println!` does.)
fn emit(line: &str) {
    println!("{line}");
    let _ = std::io::stdout().flush();
}

/// One finished file as an NDJSON event: the app's `ImportEvent` `file` shape (camelCase)
/// plus, for an imported paper, whether it was identified and its passage count.
fn file_event(done: usize, total: usize, item: &ImportItem) -> serde_json::Value {
    let reported = item.reported();
    let mut event = serde_json::json!({
        "kind": "file",
        "done": done,
        "total": total,
        "path": item.path,
        "outcome": reported.outcome,
        "paperId": reported.paper_id,
        "title": reported.title,
        "message": reported.message,
        "resumed": item.resumed,
    });
    if let ImportOutcome::Imported {
        identified, chunks, ..
    } = &item.outcome
    {
        event["identified"] = serde_json::json!(identified);
        event["chunks"] = serde_json::json!(chunks);
    }
    if let ImportOutcome::MetadataOnly { missing, .. } = &item.outcome {
        event["missing"] = serde_json::json!(missing);
    }
    event
}

/// `2 imported, 1 skipped, 1 failed, 4 files in all` (outcomes no file had are left out,
/// except imported and failed).
pub(super) fn describe(counts: &ImportCounts, total: usize) -> String {
    let mut parts = vec![format!("{} imported", counts.imported)];
    for (count, what) in [
        (counts.linked, "linked to papers already in the library"),
        (counts.duplicates, "already in the library"),
        (counts.metadata_only, "listed without a file"),
        (counts.skipped, "skipped"),
    ] {
        if count > 0 {
            parts.push(format!("{count} {what}"));
        }
    }
    parts.push(format!("{} failed", counts.failed));
    parts.push(format!("{total} files in all"));
    parts.join(", ")
}

/// Counts and times the files of an import as they finish, for the `i/M` lines, the
/// ETA and what Ctrl-C reports.
struct ImportClock {
    started: std::time::Instant,
    last: std::sync::Mutex<std::time::Instant>,
    /// Files of this run done (not counting the resumed ones).
    done: AtomicUsize,
    /// The files named, until the import says how many items they hold (a `.bib` or a
    /// Zotero database is one file of many entries).
    total: AtomicUsize,
}

impl ImportClock {
    fn new(total: usize) -> Self {
        let now = std::time::Instant::now();
        Self {
            started: now,
            last: std::sync::Mutex::new(now),
            done: AtomicUsize::new(0),
            total: AtomicUsize::new(total),
        }
    }

    /// `[3/10] imported … (42 passages, 2.1 s, ETA 0:15)`.
    /// The import's count of items to do.
    fn set_total(&self, total: usize) {
        self.total.store(total, Ordering::SeqCst);
    }

    fn line(&self, item: &ImportItem) -> String {
        let now = std::time::Instant::now();
        let seconds = match self.last.lock() {
            Ok(mut last) => std::mem::replace(&mut *last, now).elapsed().as_secs_f64(),
            Err(_) => 0.0,
        };
        if item.resumed {
            return format!("[earlier] {} ({seconds:.1} s)", outcome_line(item));
        }
        let done = self.done.fetch_add(1, Ordering::SeqCst) + 1;
        let total = self.total.load(Ordering::SeqCst);
        let left = total.saturating_sub(done);
        let eta = self.started.elapsed().as_secs_f64() / done as f64 * left as f64;
        format!(
            "[{done}/{total}] {} ({seconds:.1} s, ETA {}:{:02})",
            outcome_line(item),
            eta as u64 / 60,
            eta as u64 % 60
        )
    }

    fn count(&self, item: &ImportItem) {
        if !item.resumed {
            self.done.fetch_add(1, Ordering::SeqCst);
        }
    }
}

/// `asterism library import`: each file is reported as soon as it is done (a line, or an
/// NDJSON object with `--json`), then the summary: on stderr for people, as the last
/// NDJSON object (`kind: "finished"`) with `--json`. Exit 2 when a file failed. Imports
/// an earlier run left unfinished are finished first. Ctrl-C (or SIGTERM, SIGHUP) stops
/// it between two commits: what was done is kept, and running it again finishes it.
pub(super) async fn import(
    settings: &Settings,
    paths: &[PathBuf],
    options: ImportOptions,
) -> anyhow::Result<ExitCode> {
    // Signals are caught before the library opens, so a Ctrl-C at any moment says so.
    let cancel = CancellationToken::new();
    let stopped_by = signals::cancel_on_signal(cancel.clone());
    let clock = Arc::new(ImportClock::new(
        asterism_library::library::import::collect_files(paths).len(),
    ));
    let run = async {
        let services = bootstrap::open_services(settings).await?;
        import_and_index(&services, paths, &options, clock.clone(), &cancel).await
    };
    let stopped = || {
        eprintln!(
            "stopped after {} of {} papers; run the same command again to finish",
            clock.done.load(Ordering::SeqCst),
            clock.total.load(Ordering::SeqCst)
        );
        Ok(ExitCode::from(stopped_by.exit_code()))
    };
    tokio::select! {
        result = run => match result? {
            Some(code) => Ok(code),
            None => stopped(),
        },
        () = cancel.cancelled() => stopped(),
    }
}

/// The terminal's side of an import run: each file as it is done, then the embedding.
struct TerminalWatcher {
    report: FileReport,
    clock: Arc<ImportClock>,
    bar: ProgressBar,
    embedding: EmbeddingView,
}

impl ImportWatcher for TerminalWatcher {
    fn file(&self, done: usize, total: usize, item: &ImportItem) {
        if !item.resumed {
            self.clock.set_total(total);
            self.bar.set_length(total as u64);
            self.bar.set_position(done as u64);
        }
        match self.report {
            FileReport::Json => {
                self.clock.count(item);
                emit(&file_event(done, total, item).to_string())
            }
            FileReport::Line => emit(&self.clock.line(item)),
            FileReport::AboveBar => {
                self.clock.count(item);
                self.bar.println(outcome_line(item))
            }
        }
    }

    fn embedding(&self, done: i64, total: i64) {
        // The files are done: their bar gives way to the embedding's.
        self.bar.finish_and_clear();
        self.embedding.report(done, total);
    }
}

/// The import run with the terminal's view of it; `None` when it was cancelled (what
/// was done is kept; the caller says where it stopped).
async fn import_and_index(
    services: &Services,
    paths: &[PathBuf],
    options: &ImportOptions,
    clock: Arc<ImportClock>,
    cancel: &CancellationToken,
) -> anyhow::Result<Option<ExitCode>> {
    let bar = bar(0, options.json, "importing");
    let report = if options.json {
        FileReport::Json
    } else if !bar.is_hidden() && std::io::stdout().is_terminal() {
        FileReport::AboveBar
    } else {
        FileReport::Line
    };
    let watcher = TerminalWatcher {
        report,
        clock,
        bar,
        embedding: EmbeddingView::new(options.json, options.json),
    };
    let plan = ImportPlan {
        online: options.online,
        collection: options.collection.clone(),
        embed: options.index,
    };
    let run = services
        .library
        .import_run(paths, &plan, &watcher, cancel)
        .await?;
    watcher.bar.finish_and_clear();
    watcher.embedding.bar.finish_and_clear();
    if run.stopped {
        return Ok(None);
    }
    let index_report = run.index.clone();
    let counts = &run.counts;
    if options.json {
        emit(
            &serde_json::json!({
                "kind": "finished",
                "total": run.items.len(),
                "resumed": run.resumed.len(),
                "imported": counts.imported,
                "linked": counts.linked,
                "duplicates": counts.duplicates,
                "metadataOnly": counts.metadata_only,
                "skipped": counts.skipped,
                "failed": counts.failed,
                "index": index_report,
            })
            .to_string(),
        );
    } else {
        eprintln!("{}", describe(counts, run.items.len()));
        if !run.resumed.is_empty() {
            eprintln!(
                "and {} imported earlier, interrupted, now finished",
                ImportCounts::of(&run.resumed).imported
            );
        }
        if options.index {
            print_index(&index_report);
        }
    }
    Ok(Some(if counts.failed > 0 {
        ExitCode::from(2)
    } else {
        ExitCode::SUCCESS
    }))
}

pub(super) fn print_index(report: &Option<IndexReport>) {
    match report {
        None => eprintln!(
            "no embedding model: search uses keywords only (see EMBEDDINGS in .env.example)"
        ),
        Some(report) => {
            eprintln!(
                "embedded {} passages; {} of {} still to embed",
                report.embedded, report.remaining, report.total
            );
            if let Some(error) = &report.error {
                eprintln!(
                    "warning: embedding stopped: {error}; run `asterism library index` to resume"
                );
            }
        }
    }
}
