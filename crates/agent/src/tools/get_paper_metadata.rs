//! `get_paper_metadata`: one paper by bibcode, arXiv id or DOI.

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;

use crate::{ToolContext, ToolOutput, TypedTool};

/// Look up one paper.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GetPaperMetadataArgs {
    /// A bibcode (2013PASP..125..306F), an arXiv id (1202.3665) or a DOI (10.1086/670067).
    pub id: String,
}

pub struct GetPaperMetadataTool;

#[async_trait]
impl TypedTool for GetPaperMetadataTool {
    type Args = GetPaperMetadataArgs;
    const NAME: &'static str = "get_paper_metadata";
    const DESCRIPTION: &'static str = "Full metadata of one paper by bibcode, arXiv id or DOI: authors and \
        affiliations, journal, year, keywords, abstract, citation count, arXiv categories, and whether it \
        is in the local library (downloaded, parsed).";
    const CONCURRENCY_SAFE: bool = true;

    async fn run(&self, args: GetPaperMetadataArgs, context: &ToolContext) -> ToolOutput {
        match context.services.papers.metadata(&args.id).await {
            Ok(paper) => {
                let mut lines = vec![
                    super::search_papers::describe_paper(1, &paper)
                        .trim_start_matches("1. ")
                        .to_string(),
                ];
                if !paper.authors.is_empty() {
                    lines.push(format!("Authors: {}", paper.authors.join("; ")));
                }
                if !paper.affiliations.is_empty() {
                    lines.push(format!("Affiliations: {}", paper.affiliations.join("; ")));
                }
                if !paper.keywords.is_empty() {
                    lines.push(format!("Keywords: {}", paper.keywords.join(", ")));
                }
                if !paper.categories.is_empty() {
                    lines.push(format!("arXiv categories: {}", paper.categories.join(", ")));
                }
                if let Some(text) = &paper.abstract_text {
                    lines.push(format!("Abstract: {text}"));
                }
                ToolOutput::ok(lines.join("\n"))
                    .with_metadata(serde_json::to_value(&paper).unwrap_or_default())
            }
            Err(error) => ToolOutput::error(error.to_string()),
        }
    }
}
