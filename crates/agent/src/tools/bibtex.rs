//! `bibtex`: BibTeX entries for a set of papers.

use asterism_library::papers::bibtex::bibtex;
use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;

use crate::{ToolContext, ToolOutput, TypedTool};

/// BibTeX for papers.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BibtexArgs {
    /// Bibcodes, arXiv ids, DOIs or library paper ids.
    pub ids: Vec<String>,
}

pub struct BibtexTool;

#[async_trait]
impl TypedTool for BibtexTool {
    type Args = BibtexArgs;
    const NAME: &'static str = "bibtex";
    const DESCRIPTION: &'static str = "BibTeX entries for papers (by bibcode, arXiv id or DOI): ADS's export \
        when an ADS token is set, otherwise made from the metadata. Citation keys are stable \
        (familyYEARword, e.g. donath2023gammapy) either way.";
    const CONCURRENCY_SAFE: bool = true;

    async fn run(&self, args: BibtexArgs, context: &ToolContext) -> ToolOutput {
        if args.ids.is_empty() {
            return ToolOutput::error("give at least one paper id");
        }
        let services = &context.services;
        let (papers, problems) = services.papers.resolve_for_citation(&args.ids).await;
        if papers.is_empty() {
            return ToolOutput::error(format!("no paper found: {}", problems.join("; ")));
        }
        let (entries, notes) = bibtex(&papers, Some(&services.papers.ads)).await;
        let mut text = entries
            .iter()
            .map(|entry| entry.text.trim_end().to_string())
            .collect::<Vec<_>>()
            .join("\n\n");
        for note in notes.iter().chain(&problems) {
            text.push_str(&format!("\n% {note}"));
        }
        ToolOutput::ok(text).with_metadata(serde_json::json!({
            "entries": entries
                .iter()
                .map(|entry| serde_json::json!({"key": entry.key, "source": entry.source}))
                .collect::<Vec<_>>(),
            "notes": notes,
            "notFound": problems,
        }))
    }
}
