//! `get_paper_content`: read a parsed paper, whole or by pages or section.

use asterism_library::parse::select_content;
use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;

use crate::{ToolContext, ToolOutput, TypedTool};

/// The most characters returned by one call unless asked otherwise.
pub const DEFAULT_MAX_CHARS: usize = 40_000;

/// Read a parsed paper.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GetPaperContentArgs {
    /// A bibcode, an arXiv id, a DOI, or a library paper id.
    pub id: String,
    /// A page or a page range: "3" or "3-5" (PDF-parsed papers).
    pub pages: Option<String>,
    /// A section by number or title: "2.1", "Introduction", "Data reduction".
    pub section: Option<String>,
    /// Start at this character of the selection (to continue a long one).
    #[serde(default)]
    pub offset: usize,
    /// At most this many characters (default 40000).
    pub max_chars: Option<usize>,
}

pub struct GetPaperContentTool;

#[async_trait]
impl TypedTool for GetPaperContentTool {
    type Args = GetPaperContentArgs;
    const NAME: &'static str = "get_paper_content";
    const DESCRIPTION: &'static str = "Read a paper parsed with parse_paper, as Markdown: all of it, a page \
        range (\"3-5\"; the text carries <!-- page N --> markers to cite pages), or one section by number or \
        title. Long selections come in parts: continue with the offset given.";
    const CONCURRENCY_SAFE: bool = true;

    async fn run(&self, args: GetPaperContentArgs, context: &ToolContext) -> ToolOutput {
        let services = &context.services;
        let (paper_id, paper) = match services.papers.local(&args.id).await {
            Ok(Some(found)) => found,
            Ok(None) => {
                return ToolOutput::error(format!(
                    "{} is not in the library; download_paper and parse_paper it first",
                    args.id
                ));
            }
            Err(error) => return ToolOutput::error(error.to_string()),
        };
        let stored = match services.store.paper_text(&paper_id).await {
            Ok(Some(stored)) => stored,
            Ok(None) => {
                return ToolOutput::error(format!(
                    "\"{}\" is not parsed yet; run parse_paper first",
                    paper.title
                ));
            }
            Err(error) => return ToolOutput::error(format!("the library: {error}")),
        };
        let max_chars = args.max_chars.unwrap_or(DEFAULT_MAX_CHARS).max(200);
        match select_content(
            &stored.markdown,
            args.pages.as_deref(),
            args.section.as_deref(),
            args.offset,
            max_chars,
        ) {
            Ok(slice) => {
                let mut text = format!(
                    "\"{}\", {} (parsed from {}; characters {}–{} of {}):\n\n{}",
                    paper.title,
                    slice.selected,
                    stored.source,
                    args.offset,
                    args.offset + slice.text.chars().count(),
                    slice.total_chars,
                    slice.text
                );
                if let Some(next) = slice.next_offset {
                    text.push_str(&format!("\n\n[continues: call again with offset {next}]"));
                }
                ToolOutput::ok(text).with_metadata(serde_json::json!({
                    "paperId": paper_id,
                    "selected": slice.selected,
                    "totalChars": slice.total_chars,
                    "nextOffset": slice.next_offset,
                    "source": stored.source,
                }))
            }
            Err(error) => ToolOutput::error(format!("{}: {error}", paper.title)),
        }
    }
}
