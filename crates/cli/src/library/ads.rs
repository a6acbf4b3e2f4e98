//! `asterism library ads list|pull|push`: ADS libraries, both ways.

use std::process::ExitCode;

use asterism_agent::Services;
use asterism_library::library::ads_sync::{AdsPullReport, AdsPushReport, PushOptions};
use clap::Subcommand;

#[derive(Subcommand)]
pub enum AdsCommand {
    /// Your ADS libraries and those shared with you: name, id, papers, permission,
    /// last modified.
    List {
        #[arg(long)]
        json: bool,
    },
    /// An ADS library (name or id) into the collection named after it, metadata only
    /// unless --download. Pulling again brings only what changed; a paper that left the
    /// ADS library leaves the collection, never the library.
    Pull {
        library: String,
        /// Also fetch the papers' PDFs (arXiv, then the publisher, as `papers download`).
        #[arg(long)]
        download: bool,
        #[arg(long)]
        json: bool,
    },
    /// A collection's papers that have a bibcode into an ADS library (name or id).
    Push {
        collection: String,
        #[arg(long)]
        to: String,
        /// Make the ADS library when you have none of that name.
        #[arg(long)]
        create: bool,
        /// Remove from the ADS library what the collection lacks.
        #[arg(long)]
        remove_missing: bool,
        #[arg(long)]
        json: bool,
    },
}

pub(super) async fn run(services: &Services, command: AdsCommand) -> anyhow::Result<ExitCode> {
    match command {
        AdsCommand::List { json } => list(services, json).await,
        AdsCommand::Pull {
            library,
            download,
            json,
        } => pull(services, &library, download, json).await,
        AdsCommand::Push {
            collection,
            to,
            create,
            remove_missing,
            json,
        } => {
            let options = PushOptions {
                create,
                remove_missing,
            };
            push(services, &collection, &to, options, json).await
        }
    }
}

fn failed(error: String) -> anyhow::Result<ExitCode> {
    eprintln!("error: {error}");
    Ok(ExitCode::FAILURE)
}

async fn list(services: &Services, json: bool) -> anyhow::Result<ExitCode> {
    let libraries = match services.library.ads_libraries().await {
        Ok(libraries) => libraries,
        Err(error) => return failed(error),
    };
    if json {
        println!("{}", serde_json::to_string_pretty(&libraries)?);
        return Ok(ExitCode::SUCCESS);
    }
    for library in &libraries {
        let shared = match library.permission.as_str() {
            "owner" => String::new(),
            _ => format!(", shared by {}", library.owner),
        };
        println!(
            "{}  [{}]  {} papers  {}{shared}  modified {}",
            library.name,
            library.id,
            library.num_documents,
            library.permission,
            library.date_last_modified.get(..10).unwrap_or("?"),
        );
    }
    eprintln!("{} ADS libraries", libraries.len());
    Ok(ExitCode::SUCCESS)
}

async fn pull(
    services: &Services,
    which: &str,
    download: bool,
    json: bool,
) -> anyhow::Result<ExitCode> {
    let report = match services.library.pull_ads_library(which).await {
        Ok(report) => report,
        Err(error) => return failed(error),
    };
    if !json {
        print_pull(&report);
    }
    let downloads = match download {
        true => {
            let each = |done: usize, total: usize, bibcode: &str| {
                if !json {
                    eprintln!("downloading {} of {total}: {bibcode}", done + 1);
                }
            };
            services.download_missing(&report.bibcodes, &each).await
        }
        false => Vec::new(),
    };
    for failure in downloads.iter().filter(|d| d.error.is_some()) {
        if !json {
            let reason = failure.error.as_deref().unwrap_or_default();
            eprintln!(
                "warning: {}: no PDF ({reason}); kept metadata-only",
                failure.bibcode
            );
        }
    }
    if json {
        let mut value = serde_json::to_value(&report)?;
        value["downloads"] = serde_json::to_value(&downloads)?;
        println!("{}", serde_json::to_string_pretty(&value)?);
    }
    Ok(ExitCode::SUCCESS)
}

fn print_pull(report: &AdsPullReport) {
    let library = &report.library;
    if report.unchanged {
        println!(
            "ADS library {:?} is unchanged since the last pull (modified {}): collection {:?} is up to date.",
            library.name, library.date_last_modified, report.collection
        );
        return;
    }
    if let Some(old) = &report.renamed_from {
        println!(
            "The ADS library was renamed: collection {old:?} is now {:?}.",
            report.collection
        );
    }
    println!(
        "Pulled ADS library {:?} ({} papers) into collection {:?}: {} added to the collection, {} new to the library (metadata only), {} left it.",
        library.name,
        report.bibcodes.len(),
        report.collection,
        report.joined,
        report.created,
        report.left.len(),
    );
    for bibcode in &report.left {
        println!("  left the ADS library: {bibcode} (still in your library, notes kept)");
    }
    for (old, new) in &report.replaced {
        println!("  {old} is now {new} (ADS's canonical bibcode)");
    }
    for bibcode in &report.not_found {
        eprintln!("warning: ADS's search has no record of {bibcode}; not added");
    }
}

async fn push(
    services: &Services,
    collection: &str,
    to: &str,
    options: PushOptions,
    json: bool,
) -> anyhow::Result<ExitCode> {
    let report = match services
        .library
        .push_ads_library(collection, to, options)
        .await
    {
        Ok(report) => report,
        Err(error) => return failed(error),
    };
    if json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print_push(collection, &report);
    }
    Ok(ExitCode::SUCCESS)
}

fn print_push(collection: &str, report: &AdsPushReport) {
    let made = if report.created { " (created)" } else { "" };
    println!(
        "Pushed collection {collection:?} to ADS library {:?}{made} [{}]: {} added, {} already there, {} removed.",
        report.library_name, report.library_id, report.added, report.already, report.removed
    );
    for bibcode in &report.invalid {
        eprintln!("warning: ADS does not know {bibcode}; not added");
    }
    if !report.skipped.is_empty() {
        eprintln!(
            "{} papers without a bibcode skipped (run `asterism library identify`):",
            report.skipped.len()
        );
        for (id, title) in &report.skipped {
            eprintln!("  {id}  {title}");
        }
    }
}
