//! `citation_graph`: the papers citing a paper, the papers it cites, or the papers ADS
//! finds similar, each saying whether it is in the local library.

use asterism_library::papers::graph::Link;
use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;

use super::search_papers::describe_paper;
use crate::{ToolContext, ToolOutput, TypedTool};

/// Follow citations.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CitationGraphArgs {
    /// The paper: its bibcode, arXiv id, DOI or library id.
    pub paper: String,
    /// "citations" (papers citing it, newest first), "references" (papers it cites) or
    /// "similar" (papers ADS finds similar by their text).
    pub direction: String,
    /// How many (default 20, at most 200).
    #[serde(default)]
    pub limit: Option<u32>,
}

pub struct CitationGraphTool;

#[async_trait]
impl TypedTool for CitationGraphTool {
    type Args = CitationGraphArgs;
    const NAME: &'static str = "citation_graph";
    const DESCRIPTION: &'static str = "Follow the citation graph in NASA ADS: the papers citing a paper \
        (direction \"citations\", newest first), the papers it cites (\"references\") or the papers ADS \
        finds similar (\"similar\"). Each result says whether it is already in the local library. Use it \
        to answer \"what has cited X since 2023, and which of those do I have?\".";
    const CONCURRENCY_SAFE: bool = true;

    async fn run(&self, args: CitationGraphArgs, context: &ToolContext) -> ToolOutput {
        let Some(link) = Link::parse(&args.direction) else {
            return ToolOutput::error(format!(
                "direction {:?} is not one of citations, references, similar",
                args.direction
            ));
        };
        let limit = args.limit.unwrap_or(20).clamp(1, 200);
        let found = match context
            .services
            .papers
            .neighbours(&args.paper, link, limit)
            .await
        {
            Ok(found) => found,
            Err(error) => return ToolOutput::error(error),
        };
        let in_library = found.papers.iter().filter(|p| p.local.in_library).count();
        let mut lines = vec![format!(
            "{} {} of {} in ADS; {} listed, {in_library} of them in the library:",
            found.num_found,
            link.as_str(),
            found.bibcode,
            found.papers.len()
        )];
        lines.extend(
            found
                .papers
                .iter()
                .enumerate()
                .map(|(i, paper)| describe_paper(i + 1, paper)),
        );
        ToolOutput::ok(lines.join("\n")).with_metadata(serde_json::json!({
            "bibcode": found.bibcode, "link": link, "numFound": found.num_found, "papers": found.papers,
        }))
    }
}
