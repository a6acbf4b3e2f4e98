//! `asterism papers search|get`: the literature services from the terminal.

use std::process::ExitCode;

use asterism_agent::{Settings, bootstrap};
use asterism_protocol::PaperRecord;
use clap::Subcommand;

#[derive(Subcommand)]
pub enum PapersCommand {
    /// Search ADS and arXiv at once; results merged, with local status.
    Search {
        /// Plain words or ADS syntax.
        query: String,
        #[arg(long, default_value_t = 10)]
        limit: u32,
        #[arg(long)]
        json: bool,
    },
    /// One paper's metadata by bibcode, arXiv id or DOI.
    Get {
        id: String,
        #[arg(long)]
        json: bool,
    },
}

fn line(index: usize, paper: &PaperRecord) -> String {
    let first = paper
        .authors
        .first()
        .map(String::as_str)
        .unwrap_or("unknown");
    let more = if paper.authors.len() > 1 {
        " et al."
    } else {
        ""
    };
    let ids: Vec<String> = [
        paper.bibcode.clone(),
        paper.arxiv_id.as_ref().map(|id| format!("arXiv:{id}")),
        paper.doi.as_ref().map(|d| format!("doi:{d}")),
    ]
    .into_iter()
    .flatten()
    .collect();
    let local = if paper.local.parsed {
        " [parsed]"
    } else if paper.local.downloaded {
        " [downloaded]"
    } else if paper.local.in_library {
        " [library]"
    } else {
        ""
    };
    format!(
        "{index:>2}. {}\n    {first}{more} ({}) {}{}{local}\n    {}",
        paper.title,
        paper
            .year
            .map(|y| y.to_string())
            .unwrap_or_else(|| "n.d.".into()),
        paper.journal.as_deref().unwrap_or(""),
        paper
            .citation_count
            .map(|c| format!(" · {c} citations"))
            .unwrap_or_default(),
        ids.join("  ")
    )
}

pub async fn run(settings: &Settings, command: PapersCommand) -> anyhow::Result<ExitCode> {
    let services = bootstrap::open_services(settings).await?;
    match command {
        PapersCommand::Search { query, limit, json } => {
            let outcome = services.papers.search(&query, limit).await;
            if json {
                println!(
                    "{}",
                    serde_json::to_string_pretty(
                        &serde_json::json!({"papers": outcome.papers, "notes": outcome.notes})
                    )?
                );
            } else {
                for (index, paper) in outcome.papers.iter().enumerate() {
                    println!("{}", line(index + 1, paper));
                }
                eprintln!("{}", outcome.notes.join("; "));
            }
            let failed = outcome.papers.is_empty()
                && outcome.notes.iter().all(|note| !note.contains(" found"));
            Ok(if failed {
                ExitCode::FAILURE
            } else {
                ExitCode::SUCCESS
            })
        }
        PapersCommand::Get { id, json } => match services.papers.metadata(&id).await {
            Ok(paper) => {
                if json {
                    println!("{}", serde_json::to_string_pretty(&paper)?);
                } else {
                    println!("{}", line(1, &paper));
                    if let Some(text) = &paper.abstract_text {
                        println!("\n{text}");
                    }
                }
                Ok(ExitCode::SUCCESS)
            }
            Err(error) => {
                eprintln!("error: {error}");
                Ok(ExitCode::FAILURE)
            }
        },
    }
}
