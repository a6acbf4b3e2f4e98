//! `asterism library import` from the terminal: one line per file (or NDJSON with
//! `--json`) with its count and ETA, a progress bar on a terminal, Ctrl-C that stops
//! cleanly, then the passages embedded.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use asterism_agent::{Services, Settings, bootstrap};
use asterism_library::library::{ImportCounts, ImportItem, ImportOutcome, IndexReport};

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
        ImportOutcome::MetadataOnly { title, missing, .. } => {
            let looked = match missing.as_slice() {
                [] => "it names no file".to_string(),
                missing => format!("file not found: {}", missing.join(", ")),
            };
            format!(
                "listed    {}  → {title} (metadata only: {looked})",
                item.path
            )
        }
        ImportOutcome::Skipped { reason } => format!("skipped   {}  ({reason})", item.path),
        ImportOutcome::Failed { reason } => format!("failed    {}  ({reason})", item.path),
    }
}

/// Embeds what is not embedded yet, with a progress bar on a terminal; `on_batch(done,
/// total)` after each batch as well, when given.
pub(super) async fn index(
    services: &Services,
    json: bool,
    on_batch: Option<&(dyn Fn(i64, i64) + Send + Sync)>,
) -> anyhow::Result<Option<IndexReport>> {
    let (total, done) = services.store.chunk_counts().await?;
    let progress = bar(u64::try_from(total).unwrap_or(0), json, "embedding");
    progress.set_position(u64::try_from(done).unwrap_or(0));
    let shown = progress.clone();
    // Without a terminal (piped, redirected), a line at each tenth instead of the bar.
    let lines = (progress.is_hidden() && !json).then(|| EmbeddingLines::new(done));
    let report = services
        .library
        .index(&move |done, total| {
            shown.set_length(u64::try_from(total).unwrap_or(0));
            shown.set_position(u64::try_from(done).unwrap_or(0));
            if let Some(lines) = &lines {
                lines.report(done, total);
            }
            if let Some(on_batch) = on_batch {
                on_batch(done, total);
            }
        })
        .await?;
    progress.finish_and_clear();
    Ok(report)
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
        import_and_index(&services, paths, &options, clock.clone()).await
    };
    tokio::select! {
        result = run => result,
        () = cancel.cancelled() => {
            eprintln!(
                "stopped after {} of {} papers; run the same command again to finish",
                clock.done.load(Ordering::SeqCst),
                clock.total.load(Ordering::SeqCst)
            );
            Ok(ExitCode::from(stopped_by.exit_code()))
        }
    }
}

async fn import_and_index(
    services: &Services,
    paths: &[PathBuf],
    options: &ImportOptions,
    clock: Arc<ImportClock>,
) -> anyhow::Result<ExitCode> {
    let progress = bar(0, options.json, "importing");
    let report = if options.json {
        FileReport::Json
    } else if !progress.is_hidden() && std::io::stdout().is_terminal() {
        FileReport::AboveBar
    } else {
        FileReport::Line
    };
    let shown = progress.clone();
    let items = services
        .library
        .import(paths, options.online, &move |done, total, item| {
            if !item.resumed {
                clock.set_total(total);
                shown.set_length(total as u64);
                shown.set_position(done as u64);
            }
            match report {
                FileReport::Json => {
                    clock.count(item);
                    emit(&file_event(done, total, item).to_string())
                }
                FileReport::Line => emit(&clock.line(item)),
                FileReport::AboveBar => {
                    clock.count(item);
                    shown.println(outcome_line(item))
                }
            }
        })
        .await;
    progress.finish_and_clear();
    let (earlier, items): (Vec<ImportItem>, Vec<ImportItem>) =
        items.into_iter().partition(|item| item.resumed);
    if let Some(collection) = &options.collection {
        services
            .library
            .collect_imported(&items, collection)
            .await?;
    }
    let on_batch = |done: i64, total: i64| {
        emit(&serde_json::json!({"kind": "embedding", "done": done, "total": total}).to_string());
    };
    let index_report = if !options.index {
        None
    } else if options.json {
        index(services, true, Some(&on_batch)).await?
    } else {
        index(services, false, None).await?
    };
    let counts = ImportCounts::of(&items);
    if options.json {
        emit(
            &serde_json::json!({
                "kind": "finished",
                "total": items.len(),
                "resumed": earlier.len(),
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
        eprintln!("{}", describe(&counts, items.len()));
        if !earlier.is_empty() {
            eprintln!(
                "and {} imported earlier, interrupted, now finished",
                ImportCounts::of(&earlier).imported
            );
        }
        if options.index {
            print_index(&index_report);
        }
    }
    Ok(if counts.failed > 0 {
        ExitCode::from(2)
    } else {
        ExitCode::SUCCESS
    })
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
