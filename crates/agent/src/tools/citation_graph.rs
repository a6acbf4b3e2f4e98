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
    /// The paper: its bibcode, arXiv id, DOI or library id (not for "missing").
    #[serde(default)]
    pub paper: Option<String>,
    /// "citations" (papers citing it, newest first), "references" (papers it cites),
    /// "similar" (papers ADS finds similar by their text) or "missing" (papers a
    /// collection's papers cite or are cited by that the collection lacks).
    pub direction: String,
    /// For "missing": the collection (default: the whole library).
    #[serde(default)]
    pub collection: Option<String>,
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
        finds similar (\"similar\"); or, for a collection of the library, the papers its papers cite or \
        are cited by that it lacks (\"missing\", most linked first). Each result says whether it is \
        already in the local library. Use it to answer \"what has cited X since 2023, and which of those \
        do I have?\" or \"what is my TRGB collection missing?\".";
    const CONCURRENCY_SAFE: bool = true;

    async fn run(&self, args: CitationGraphArgs, context: &ToolContext) -> ToolOutput {
        let limit = args.limit.unwrap_or(20).clamp(1, 200);
        if args.direction.trim().eq_ignore_ascii_case("missing") {
            return missing(args.collection.as_deref(), limit, context).await;
        }
        let Some(link) = Link::parse(&args.direction) else {
            return ToolOutput::error(format!(
                "direction {:?} is not one of citations, references, similar, missing",
                args.direction
            ));
        };
        let Some(paper) = args.paper.as_deref() else {
            return ToolOutput::error(format!("direction {:?} needs a paper", args.direction));
        };
        let found = match context.services.papers.neighbours(paper, link, limit).await {
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

/// The papers a collection (or the library) lacks, most linked first.
async fn missing(collection: Option<&str>, limit: u32, context: &ToolContext) -> ToolOutput {
    let links = [Link::References, Link::Citations];
    let found = match context
        .services
        .library
        .missing(collection, &links, 200, limit as usize)
        .await
    {
        Ok(found) => found,
        Err(error) => return ToolOutput::error(error),
    };
    let what = collection.map_or("the library".to_string(), |c| format!("collection {c:?}"));
    let mut lines = vec![format!(
        "{} papers {what} lacks, most linked first ({} of its papers asked of ADS, {} without a bibcode):",
        found.papers.len(),
        found.asked,
        found.without_bibcode
    )];
    for (i, missing) in found.papers.iter().enumerate() {
        lines.push(describe_paper(i + 1, &missing.paper));
        lines.push(format!(
            "   cited by {} and citing {} of its papers",
            missing.cited_by_members, missing.cites_members
        ));
    }
    lines.extend(found.failed.iter().map(|f| format!("(failed: {f})")));
    ToolOutput::ok(lines.join("\n")).with_metadata(serde_json::json!({ "missing": found }))
}
