//! `asterism library …` and `asterism rag`: the local paper library from the terminal.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context;
use asterism_agent::{Services, Settings, bootstrap};
use asterism_store::PaperFilter;
use clap::{Args, Subcommand};

mod ads;
mod graph;
mod import;
mod objects;
mod papers;

use asterism_library::library::ImportCounts;
use import::{ImportOptions, import, index, outcome_line, print_index};

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
        /// Have the configured model (or SUMMARY_MODEL) score the passages for the query
        /// (0–10, with a summary) and order them by it.
        #[arg(long)]
        rerank: bool,
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
    /// NASA ADS libraries, both ways: list them, pull one into a collection, push a
    /// collection to one (ADS_API_TOKEN).
    Ads {
        #[command(subcommand)]
        command: ads::AdsCommand,
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
        LibraryCommand::Search {
            query,
            limit,
            filter,
            rerank: true,
            json,
        } => scored_search(settings, &query, limit, filter, json).await,
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
            ..
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
        LibraryCommand::Ads { command } => ads::run(services, command).await,
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
    let report = index(services, json).await?;
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

/// `library search QUERY --rerank`: the passages the model scored best for the query,
/// each with its score and summary, then what the scoring cost.
async fn scored_search(
    settings: &Settings,
    query: &str,
    limit: usize,
    filter: FilterArgs,
    json: bool,
) -> anyhow::Result<ExitCode> {
    let services: Arc<Services> = bootstrap::open_services(settings).await?;
    let model = bootstrap::model_client(settings)?;
    let filter = filter.resolve(&services).await?;
    let mut rerank = services.rerank.clone();
    rerank.enabled = true;
    let (hits, report) = asterism_agent::rag::scored_search(
        model.as_ref(),
        &services.library,
        &rerank,
        query,
        &filter,
        limit.clamp(1, 100),
    )
    .await?;
    if json {
        let hits: Vec<serde_json::Value> = hits
            .iter()
            .map(|(hit, verdict)| {
                let mut value = serde_json::to_value(hit).unwrap_or_default();
                value["verdict"] = serde_json::to_value(verdict).unwrap_or_default();
                value
            })
            .collect();
        let value = serde_json::json!({"hits": hits, "rerank": report});
        println!("{}", serde_json::to_string_pretty(&value)?);
        return Ok(ExitCode::SUCCESS);
    }
    for (rank, (hit, verdict)) in hits.iter().enumerate() {
        let page = hit
            .chunk
            .page
            .map(|p| format!(", p. {p}"))
            .unwrap_or_default();
        println!("{}. {}{page}", rank + 1, hit.chunk.title);
        match verdict {
            Some(verdict) => println!("   {}/10: {}", verdict.score, verdict.summary),
            None => println!("   (no score) {}", hit.snippet.text),
        }
    }
    eprintln!(
        "scored by {}: {} passages ({} from the cache), {} dropped; {} tokens{}",
        report.model,
        report.scored,
        report.cached,
        report.dropped,
        report.prompt_tokens + report.completion_tokens,
        report.notice.map(|n| format!("; {n}")).unwrap_or_default()
    );
    Ok(ExitCode::SUCCESS)
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
        &services.rerank,
        &question,
        &filter,
        &tokio_util::sync::CancellationToken::new(),
    )
    .await?;
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
