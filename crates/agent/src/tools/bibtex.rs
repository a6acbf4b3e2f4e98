//! `bibtex`: BibTeX entries for a set of papers.

use asterism_library::papers::PaperId;
use asterism_library::papers::bibtex::bibtex;
use asterism_protocol::PaperRecord;
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
        let mut papers = Vec::new();
        let mut problems = Vec::new();
        for id in &args.ids {
            match services.papers.resolve(id).await {
                Ok((_, paper)) => papers.push(paper),
                // ADS may still export a bibcode its search did not return.
                Err(_) if matches!(PaperId::parse(id), Some(PaperId::Bibcode(_))) => {
                    papers.push(PaperRecord {
                        bibcode: Some(id.trim().to_string()),
                        ..PaperRecord::default()
                    });
                }
                Err(error) => problems.push(format!("{id}: {error}")),
            }
        }
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
