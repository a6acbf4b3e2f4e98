//! `parse_paper`: a library paper into Markdown the agent can read.

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;

use crate::permissions::ToolEffect;
use crate::{ToolContext, ToolOutput, TypedTool};

/// Parse a paper.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ParsePaperArgs {
    /// A bibcode, an arXiv id, a DOI, or a library paper id.
    pub id: String,
    /// Skip arXiv's HTML and read the downloaded PDF (for page numbers).
    #[serde(default)]
    pub pdf_only: bool,
}

pub struct ParsePaperTool;

#[async_trait]
impl TypedTool for ParsePaperTool {
    type Args = ParsePaperArgs;
    const NAME: &'static str = "parse_paper";
    const DESCRIPTION: &'static str = "Turn a paper into Markdown stored in the library: arXiv's HTML \
        version when it exists (equations kept as TeX), otherwise the downloaded PDF (with page markers; \
        run download_paper first). Lists the sections found. Then read it with get_paper_content.";
    const SIBLING_ABORT: bool = true;
    /// Writes only into the library, which the user expects the agent to do.
    const EFFECT: Option<ToolEffect> = Some(ToolEffect::Record);

    async fn run(&self, args: ParsePaperArgs, context: &ToolContext) -> ToolOutput {
        let services = &context.services;
        let (paper_id, paper) = match services.papers.resolve(&args.id).await {
            Ok(found) => found,
            Err(error) => return ToolOutput::error(format!("Cannot parse {}: {error}", args.id)),
        };
        match services
            .parser
            .parse(&paper_id, &paper, args.pdf_only)
            .await
        {
            Ok((parsed, notes)) => {
                let words = parsed.markdown.split_whitespace().count();
                let pages = parsed
                    .pages
                    .map(|pages| format!("{pages} pages, "))
                    .unwrap_or_default();
                let outline: Vec<String> = parsed
                    .sections
                    .iter()
                    .map(|section| {
                        let indent = "  ".repeat(usize::from(section.level.saturating_sub(1)));
                        let number = section
                            .number
                            .as_deref()
                            .map(|n| format!("{n} "))
                            .unwrap_or_default();
                        let page = section
                            .page
                            .map(|p| format!(" (p. {p})"))
                            .unwrap_or_default();
                        format!("{indent}- {number}{}{page}", section.title)
                    })
                    .collect();
                let mut text = format!(
                    "Parsed \"{}\" from {} ({}): {pages}{words} words, {} sections.",
                    paper.title,
                    parsed.source,
                    parsed.engine,
                    parsed.sections.len()
                );
                if !notes.is_empty() {
                    text.push_str(&format!(" ({})", notes.join("; ")));
                }
                if !outline.is_empty() {
                    text.push_str("\nSections:\n");
                    text.push_str(&outline.join("\n"));
                }
                text.push_str("\nRead it with get_paper_content (all, pages, or a section).");
                ToolOutput::ok(text).with_metadata(serde_json::json!({
                    "paperId": paper_id,
                    "source": parsed.source,
                    "engine": parsed.engine,
                    "pages": parsed.pages,
                    "words": words,
                    "sections": parsed.sections,
                }))
            }
            Err(error) => ToolOutput::error(format!("Could not parse {}: {error}", args.id)),
        }
    }
}
