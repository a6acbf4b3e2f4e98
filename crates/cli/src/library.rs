//! `asterism library …` and `asterism rag`: the local paper library from the terminal.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context;
use asterism_agent::{Services, Settings, bootstrap};
use asterism_library::library::{ImportItem, ImportOutcome, IndexReport};
use asterism_store::PaperFilter;
use clap::{Args, Subcommand};

use indicatif::{ProgressBar, ProgressStyle};
use std::sync::atomic::{AtomicUsize, Ordering};
use tokio_util::sync::CancellationToken;

use crate::signals;

mod graph;
mod objects;
mod papers;

#[derive(Subcommand)]
pub enum LibraryCommand {
    /// Import PDFs (files and folders, recursively), and the libraries of other tools:
    /// a Zotero data folder (or its zotero.sqlite, read from a copy even while Zotero
    /// runs), `.bib` files (JabRef, BibDesk, Zotero, Mendeley; with their linked PDFs)
    /// and CSL-JSON. The originals are not touched.
    Import {
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// Do not ask ADS/arXiv to identify the papers (they are marked unidentified).
        #[arg(long)]
        offline: bool,
        /// Put the imported papers in this collection.
        #[arg(long)]
        collection: Option<String>,
        /// Only import; embed later with `asterism library index`.
        #[arg(long)]
        no_index: bool,
        #[arg(long)]
        json: bool,
    },
    /// Embed every passage not embedded yet (resumes where an earlier run stopped).
    Index {
        #[arg(long)]
        json: bool,
    },
    /// The papers in the library, newest first.
    List {
        #[command(flatten)]
        filter: FilterArgs,
        #[arg(long)]
        json: bool,
    },
    /// One paper: metadata, files, collections, tags and notes.
    Show {
        /// Library id, bibcode, arXiv id or DOI.
        id: String,
        #[arg(long)]
        json: bool,
    },
    /// Search the passages (keywords and meaning).
    Search {
        query: String,
        #[arg(long, default_value_t = 10)]
        limit: usize,
        #[command(flatten)]
        filter: FilterArgs,
        #[arg(long)]
        json: bool,
    },
    /// Delete a paper, its passages, vectors and stored files (notes are kept).
    Delete {
        id: String,
        /// Delete its notes too.
        #[arg(long)]
        delete_notes: bool,
    },
    /// Give a paper another title (e.g. an unidentified one).
    Rename { id: String, title: String },
    /// Notes: of one paper, matching a query, or all.
    Notes {
        /// Words to look for in the quoted text and comments.
        query: Option<String>,
        #[arg(long)]
        paper: Option<String>,
        #[arg(long)]
        json: bool,
    },
    /// Put a paper in a collection.
    Collect { id: String, collection: String },
    /// Tag a paper.
    Tag { id: String, tag: String },
    /// Look up again, on ADS, arXiv and Crossref, one paper or every paper known only
    /// from its PDF; prints what changed.
    Identify {
        /// Library id, file name, arXiv id or DOI (default: every local-only paper).
        id: Option<String>,
        #[arg(long)]
        json: bool,
    },
    /// The objects your papers are about (from their keywords, titles and abstracts,
    /// resolved through Sesame), with coordinates and paper counts.
    Objects {
        #[arg(long)]
        json: bool,
    },
    /// Papers your collection (or library) lacks: those its papers cite and those
    /// citing them, ranked by how many of its papers link there (from ADS).
    Missing {
        #[arg(long)]
        collection: Option<String>,
        /// references (what they cite), citations (what cites them) or both.
        #[arg(long, default_value = "both")]
        links: String,
        /// Links asked of ADS per paper and direction.
        #[arg(long, default_value_t = 200)]
        per_paper: u32,
        #[arg(long, default_value_t = 30)]
        limit: usize,
        #[arg(long)]
        json: bool,
    },
    /// Papers about objects within a radius of NAME (resolved through Sesame), e.g.
    /// `library near "NGC 4258" --radius 30arcmin`.
    Near {
        name: String,
        /// 30arcmin, 90arcsec, 0.5deg (a bare number is arcminutes).
        #[arg(long, default_value = "30arcmin")]
        radius: String,
        #[arg(long)]
        json: bool,
    },
    /// The whole library or one collection for other tools: BibTeX (as `export-bib`)
    /// or CSL-JSON (Zotero, Better BibTeX, pandoc), which `library import` reads back.
    Export {
        /// bibtex or csl-json.
        #[arg(long, default_value = "bibtex", value_parser = ["bibtex", "csl-json"])]
        format: String,
        #[arg(long)]
        collection: Option<String>,
        /// Write to this file instead of standard output.
        #[arg(long)]
        out: Option<PathBuf>,
        /// BibTeX only: name each paper's stored PDFs (`file = {:/path:PDF}`).
        #[arg(long)]
        with_files: bool,
    },
    /// BibTeX for the whole library or one collection.
    ExportBib {
        #[arg(long)]
        collection: Option<String>,
        /// Write to this file instead of standard output.
        #[arg(long)]
        out: Option<PathBuf>,
        /// Name each paper's stored PDFs (`file = {:/path:PDF}`, as JabRef and Zotero
        /// read it).
        #[arg(long)]
        with_files: bool,
    },
}

/// Which papers a command covers.
#[derive(Args, Default)]
pub struct FilterArgs {
    /// Only this paper (library id, bibcode, arXiv id or DOI).
    #[arg(long)]
    paper: Option<String>,
    #[arg(long)]
    collection: Option<String>,
    #[arg(long)]
    year_from: Option<i64>,
    #[arg(long)]
    year_to: Option<i64>,
    /// Only papers with an author whose name contains this.
    #[arg(long)]
    author: Option<String>,
}

impl FilterArgs {
    async fn resolve(self, services: &Services) -> anyhow::Result<PaperFilter> {
        let paper_id = match &self.paper {
            Some(id) => Some(
                services
                    .library
                    .resolve(id)
                    .await
                    .map_err(anyhow::Error::msg)?
                    .with_context(|| format!("{id} is not in the library"))?,
            ),
            None => None,
        };
        Ok(PaperFilter {
            paper_id,
            collection: self.collection,
            year_from: self.year_from,
            year_to: self.year_to,
            author: self.author,
        })
    }
}

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

fn outcome_line(item: &ImportItem) -> String {
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
async fn index(
    services: &Services,
    json: bool,
    on_batch: Option<&(dyn Fn(i64, i64) + Send + Sync)>,
) -> anyhow::Result<Option<IndexReport>> {
    let (total, done) = services.store.chunk_counts().await?;
    let progress = bar(u64::try_from(total).unwrap_or(0), json, "embedding");
    progress.set_position(u64::try_from(done).unwrap_or(0));
    let shown = progress.clone();
    let report = services
        .library
        .index(&move |done, total| {
            shown.set_length(u64::try_from(total).unwrap_or(0));
            shown.set_position(u64::try_from(done).unwrap_or(0));
            if let Some(on_batch) = on_batch {
                on_batch(done, total);
            }
        })
        .await?;
    progress.finish_and_clear();
    Ok(report)
}

/// What `library import` does besides importing.
struct ImportOptions {
    /// Let ADS/arXiv identify the papers.
    online: bool,
    collection: Option<String>,
    /// Embed the new passages afterwards.
    index: bool,
    json: bool,
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
    let (outcome, paper_id, title, message) = match &item.outcome {
        ImportOutcome::Imported {
            paper_id,
            title,
            warning,
            ..
        } => ("imported", Some(paper_id), Some(title), warning.as_ref()),
        ImportOutcome::Linked {
            paper_id, title, ..
        } => ("linked", Some(paper_id), Some(title), None),
        ImportOutcome::Duplicate { paper_id } => ("duplicate", Some(paper_id), None, None),
        ImportOutcome::MetadataOnly {
            paper_id, title, ..
        } => ("metadataOnly", Some(paper_id), Some(title), None),
        ImportOutcome::Skipped { reason } => ("skipped", None, None, Some(reason)),
        ImportOutcome::Failed { reason } => ("failed", None, None, Some(reason)),
    };
    let mut event = serde_json::json!({
        "kind": "file",
        "done": done,
        "total": total,
        "path": item.path,
        "outcome": outcome,
        "paperId": paper_id,
        "title": title,
        "message": message,
        "resumed": item.resumed,
    });
    if let ImportOutcome::Imported {
        identified, chunks, ..
    } = &item.outcome
    {
        event["identified"] = serde_json::json!(identified);
        event["chunks"] = serde_json::json!(chunks);
    }
    if let ImportOutcome::Linked {
        paper_id,
        same_text: true,
        ..
    } = &item.outcome
    {
        event["message"] = serde_json::json!(format!("same paper as {paper_id} (text matches)"));
    }
    if let ImportOutcome::MetadataOnly { missing, .. } = &item.outcome {
        event["missing"] = serde_json::json!(missing);
    }
    event
}

/// How many files came to each outcome.
#[derive(Debug, Default, PartialEq, Eq)]
struct ImportCounts {
    imported: usize,
    linked: usize,
    duplicates: usize,
    metadata_only: usize,
    skipped: usize,
    failed: usize,
}

impl ImportCounts {
    fn of(items: &[ImportItem]) -> Self {
        let mut counts = Self::default();
        for item in items {
            match item.outcome {
                ImportOutcome::Imported { .. } => counts.imported += 1,
                ImportOutcome::Linked { .. } => counts.linked += 1,
                ImportOutcome::Duplicate { .. } => counts.duplicates += 1,
                ImportOutcome::MetadataOnly { .. } => counts.metadata_only += 1,
                ImportOutcome::Skipped { .. } => counts.skipped += 1,
                ImportOutcome::Failed { .. } => counts.failed += 1,
            }
        }
        counts
    }

    /// `2 imported, 1 skipped, 1 failed, 4 files in all` (outcomes no file had are left out,
    /// except imported and failed).
    fn describe(&self, total: usize) -> String {
        let mut parts = vec![format!("{} imported", self.imported)];
        for (count, what) in [
            (self.linked, "linked to papers already in the library"),
            (self.duplicates, "already in the library"),
            (self.metadata_only, "listed without a file"),
            (self.skipped, "skipped"),
        ] {
            if count > 0 {
                parts.push(format!("{count} {what}"));
            }
        }
        parts.push(format!("{} failed", self.failed));
        parts.push(format!("{total} files in all"));
        parts.join(", ")
    }
}

/// Counts and times the files of an import as they finish, for the `i/M` lines, the
/// ETA and what Ctrl-C reports.
struct ImportClock {
    started: std::time::Instant,
    last: std::sync::Mutex<std::time::Instant>,
    /// Files of this run done (not counting the resumed ones).
    done: AtomicUsize,
    total: usize,
}

impl ImportClock {
    fn new(total: usize) -> Self {
        let now = std::time::Instant::now();
        Self {
            started: now,
            last: std::sync::Mutex::new(now),
            done: AtomicUsize::new(0),
            total,
        }
    }

    /// `[3/10] imported … (42 passages, 2.1 s, ETA 0:15)`.
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
        let left = self.total.saturating_sub(done);
        let eta = self.started.elapsed().as_secs_f64() / done as f64 * left as f64;
        format!(
            "[{done}/{}] {} ({seconds:.1} s, ETA {}:{:02})",
            self.total,
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
async fn import(
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
                clock.total
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
    if let Some(collection) = &options.collection {
        for item in items.iter().filter(|item| !item.resumed) {
            if let ImportOutcome::Imported { paper_id, .. }
            | ImportOutcome::Linked { paper_id, .. }
            | ImportOutcome::MetadataOnly { paper_id, .. } = &item.outcome
            {
                services
                    .store
                    .add_to_collection(paper_id, collection)
                    .await?;
            }
        }
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
    let (earlier, items): (Vec<ImportItem>, Vec<ImportItem>) =
        items.into_iter().partition(|item| item.resumed);
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
        eprintln!("{}", counts.describe(items.len()));
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

fn print_index(report: &Option<IndexReport>) {
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

pub async fn run(settings: &Settings, command: LibraryCommand) -> anyhow::Result<ExitCode> {
    match command {
        LibraryCommand::Import {
            paths,
            offline,
            collection,
            no_index,
            json,
        } => {
            let options = ImportOptions {
                online: !offline,
                collection,
                index: !no_index,
                json,
            };
            import(settings, &paths, options).await
        }
        command => {
            let services = bootstrap::open_services(settings).await?;
            run_with(services.as_ref(), command).await
        }
    }
}

/// The subcommands that only need the library open.
async fn run_with(services: &Services, command: LibraryCommand) -> anyhow::Result<ExitCode> {
    match command {
        LibraryCommand::Import { paths, .. } => {
            anyhow::bail!("import {paths:?}: opened by `run`")
        }
        LibraryCommand::Index { json } => index_command(services, json).await,
        LibraryCommand::List { filter, json } => papers::list(services, filter, json).await,
        LibraryCommand::Show { id, json } => papers::show(services, &id, json).await,
        LibraryCommand::Search {
            query,
            limit,
            filter,
            json,
        } => search(services, &query, limit, filter, json).await,
        LibraryCommand::Delete { id, delete_notes } => {
            papers::delete(services, &id, delete_notes).await
        }
        LibraryCommand::Rename { id, title } => papers::rename(services, &id, &title).await,
        LibraryCommand::Notes { query, paper, json } => {
            papers::notes(services, query, paper, json).await
        }
        LibraryCommand::Collect { id, collection } => {
            papers::collect(services, &id, &collection).await
        }
        LibraryCommand::Tag { id, tag } => papers::tag(services, &id, &tag).await,
        LibraryCommand::Identify { id, json } => {
            objects::identify(services, id.as_deref(), json).await
        }
        LibraryCommand::Objects { json } => objects::objects(services, json).await,
        LibraryCommand::Missing {
            collection,
            links,
            per_paper,
            limit,
            json,
        } => {
            let options = graph::MissingOptions {
                links,
                per_paper,
                limit,
                json,
            };
            graph::missing(services, collection.as_deref(), options).await
        }
        LibraryCommand::Near { name, radius, json } => {
            objects::near(services, &name, &radius, json).await
        }
        LibraryCommand::Export {
            format,
            collection,
            out,
            ..
        } if format == "csl-json" => papers::export_csl_json(services, collection, out).await,
        LibraryCommand::Export {
            collection,
            out,
            with_files,
            ..
        }
        | LibraryCommand::ExportBib {
            collection,
            out,
            with_files,
        } => papers::export_bib(services, collection, out, with_files).await,
    }
}

/// `library index`: finishes the imports an earlier run left unfinished, then embeds
/// what is not embedded yet; the report, or its JSON.
async fn index_command(services: &Services, json: bool) -> anyhow::Result<ExitCode> {
    let finished = services
        .library
        .finish_incomplete(&|_, _, item| {
            if !json {
                eprintln!("finished an interrupted import: {}", outcome_line(item));
            }
        })
        .await;
    let unfinished = ImportCounts::of(&finished).failed;
    let report = index(services, json, None).await?;
    if json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print_index(&report);
    }
    Ok(match report {
        Some(report) if report.error.is_some() => ExitCode::FAILURE,
        _ if unfinished > 0 => ExitCode::FAILURE,
        _ => ExitCode::SUCCESS,
    })
}

/// `library search QUERY`: the best passages, or their JSON.
async fn search(
    services: &Services,
    query: &str,
    limit: usize,
    filter: FilterArgs,
    json: bool,
) -> anyhow::Result<ExitCode> {
    let filter = filter.resolve(services).await?;
    let results = services
        .library
        .search(query, &filter, limit.clamp(1, 100))
        .await?;
    match json {
        true => println!("{}", serde_json::to_string_pretty(&results)?),
        false => print_hits(&results),
    }
    Ok(ExitCode::SUCCESS)
}

async fn local_or_fail(services: &Services, id: &str) -> anyhow::Result<String> {
    services
        .library
        .resolve(id)
        .await
        .map_err(anyhow::Error::msg)?
        .with_context(|| format!("{id} is not in the library"))
}

/// `asterism rag QUESTION`: an answer from the library with its sources.
pub async fn rag(
    settings: &Settings,
    question: String,
    filter: FilterArgs,
    json: bool,
) -> anyhow::Result<ExitCode> {
    anyhow::ensure!(!question.trim().is_empty(), "the question is empty");
    let services: Arc<Services> = bootstrap::open_services(settings).await?;
    let model = bootstrap::model_client(settings)?;
    let filter = filter.resolve(&services).await?;
    let answer = asterism_agent::rag::answer(
        model.as_ref(),
        &services.library,
        &question,
        &filter,
        &tokio_util::sync::CancellationToken::new(),
    )
    .await
    .map_err(anyhow::Error::msg)?;
    if json {
        println!("{}", serde_json::to_string_pretty(&answer)?);
    } else {
        println!("{}", answer.to_text());
    }
    Ok(if answer.answered {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(4)
    })
}

/// Search results for a reader: each hit's reference (the snippet's page, or the span
/// of pages), then its best sentences with the query's words in bold on a terminal.
fn print_hits(results: &asterism_library::library::SearchResults) {
    if let Some(note) = &results.note {
        eprintln!("note: {note}");
    }
    if results.hits.is_empty() {
        println!("nothing found");
    }
    let (bold, plain) = match std::io::stdout().is_terminal() {
        true => ("\x1b[1m", "\x1b[0m"),
        false => ("", ""),
    };
    for (rank, hit) in results.hits.iter().enumerate() {
        let chunk = &hit.chunk;
        let page = match (hit.pages, chunk.page) {
            (Some([first, last]), Some(page)) => {
                format!(", p. {page} (passage pp. {first}–{last})")
            }
            (_, Some(page)) => format!(", p. {page}"),
            _ => String::new(),
        };
        let section = chunk
            .section
            .as_deref()
            .map(|s| format!(", §{s}"))
            .unwrap_or_default();
        let file = chunk
            .original_name
            .as_deref()
            .map(|n| format!(" [{n}]"))
            .unwrap_or_default();
        println!(
            "{}. {}{page}{section}{file}  ({})",
            rank + 1,
            chunk.title,
            chunk.paper_id
        );
        println!("   {}\n", hit.snippet.marked(bold, plain));
    }
}
