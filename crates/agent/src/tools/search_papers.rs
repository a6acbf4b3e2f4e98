//! `search_papers`: NASA ADS and arXiv at once, merged and deduplicated.

use asterism_protocol::PaperRecord;
use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;

use crate::{ToolContext, ToolOutput, TypedTool};

/// Search the literature.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchPapersArgs {
    /// What to look for: plain words ("Hubble tension TRGB distances") or ADS syntax
    /// (`author:"Freedman, W" year:2019-2024`).
    pub query: String,
    /// How many results (default 10, at most 50).
    #[serde(default)]
    pub limit: Option<u32>,
}

pub struct SearchPapersTool;

/// One line per paper: what an astronomer scans a result list for.
pub fn describe_paper(index: usize, paper: &PaperRecord) -> String {
    let authors = match paper.authors.len() {
        0 => "unknown authors".to_string(),
        1 => paper.authors[0].clone(),
        2 => format!("{} & {}", paper.authors[0], paper.authors[1]),
        _ => format!("{} et al.", paper.authors[0]),
    };
    let mut ids = Vec::new();
    if let Some(bibcode) = &paper.bibcode {
        ids.push(format!("bibcode {bibcode}"));
    }
    if let Some(arxiv) = &paper.arxiv_id {
        ids.push(format!(
            "arXiv:{arxiv}{}",
            paper
                .arxiv_version
                .map(|v| format!("v{v}"))
                .unwrap_or_default()
        ));
    }
    if let Some(doi) = &paper.doi {
        ids.push(format!("doi {doi}"));
    }
    let local = if paper.local.parsed {
        "; in library, parsed"
    } else if paper.local.downloaded {
        "; in library, downloaded"
    } else if paper.local.in_library {
        "; in library"
    } else {
        ""
    };
    format!(
        "{index}. {} — {authors} ({}){}. {}{}{local}",
        paper.title,
        paper
            .year
            .map(|y| y.to_string())
            .unwrap_or_else(|| "n.d.".into()),
        paper
            .journal
            .as_deref()
            .map(|j| format!(", {j}"))
            .unwrap_or_default(),
        ids.join(", "),
        paper
            .citation_count
            .map(|c| format!("; cited {c}×"))
            .unwrap_or_default(),
    )
}

#[async_trait]
impl TypedTool for SearchPapersTool {
    type Args = SearchPapersArgs;
    const NAME: &'static str = "search_papers";
    const DESCRIPTION: &'static str = "Search NASA ADS and arXiv at once for papers. Results are merged: a \
        preprint and its published version appear once with both ids; each result says whether it is \
        already in the local library, and ADS citation counts where known.";
    const CONCURRENCY_SAFE: bool = true;

    async fn run(&self, args: SearchPapersArgs, context: &ToolContext) -> ToolOutput {
        if args.query.trim().is_empty() {
            return ToolOutput::error("search_papers needs a query.");
        }
        let limit = args.limit.unwrap_or(10).clamp(1, 50);
        let outcome = context.services.papers.search(&args.query, limit).await;
        let rate = context.services.papers.ads.rate_limit();
        let metadata = serde_json::json!({"papers": outcome.papers, "notes": outcome.notes, "adsRateLimit": rate});
        let mut outcome = outcome;
        if let Some(rate) = rate.filter(|rate| rate.is_low()) {
            outcome.notes.push(format!(
                "ADS quota low: {}. Prefer the library (rag_search) and arXiv; search ADS only when needed.",
                rate.describe()
            ));
        }
        if outcome.papers.is_empty() {
            let text = format!(
                "No papers found for {:?}. {}",
                args.query,
                outcome.notes.join(" ")
            );
            // Both services failing is an error; finding nothing is an answer.
            let failed = outcome.notes.iter().all(|note| !note.contains(" found"));
            return if failed {
                ToolOutput::error(text)
            } else {
                ToolOutput::ok(text)
            }
            .with_metadata(metadata);
        }
        let mut lines: Vec<String> = outcome
            .papers
            .iter()
            .enumerate()
            .map(|(i, paper)| describe_paper(i + 1, paper))
            .collect();
        lines.push(format!("({})", outcome.notes.join("; ")));
        ToolOutput::ok(lines.join("\n")).with_metadata(metadata)
    }
}
