//! `rag_search`: answer a question from the user's own paper library, with every claim
//! cited to a paper's page and section and the evidence quoted.

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;

use asterism_store::PaperFilter;

use crate::permissions::ToolEffect;
use crate::{ToolContext, ToolOutput, TypedTool};

/// A question for the library.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RagSearchArgs {
    /// The question, in full.
    pub question: String,
    /// Only this paper (bibcode, arXiv id, DOI, library id or imported file name).
    pub paper: Option<String>,
    /// Only papers in this collection.
    pub collection: Option<String>,
    pub year_from: Option<i64>,
    pub year_to: Option<i64>,
    /// Only papers with an author whose name contains this.
    pub author: Option<String>,
}

pub struct RagSearchTool;

#[async_trait]
impl TypedTool for RagSearchTool {
    type Args = RagSearchArgs;
    const NAME: &'static str = "rag_search";
    const DESCRIPTION: &'static str = "Answer a question from the user's own paper library (imported and \
        downloaded papers): hybrid keyword + semantic search, then an answer drawn only from the passages \
        found, each claim cited as [paper, page/section] with the quoted evidence. Says so when the library \
        has nothing relevant. Filters: paper, collection, years, author.";
    const CONCURRENCY_SAFE: bool = true;
    const EFFECT: Option<ToolEffect> = Some(ToolEffect::Read);

    async fn run(&self, args: RagSearchArgs, context: &ToolContext) -> ToolOutput {
        let question = args.question.trim();
        if question.is_empty() {
            return ToolOutput::error("The question is empty.");
        }
        let library = &context.services.library;
        let paper_id = match &args.paper {
            Some(id) => match library.resolve(id).await {
                Ok(Some(paper_id)) => Some(paper_id),
                Ok(None) => {
                    return ToolOutput::error(format!("{id} is not in the library."));
                }
                Err(error) => return ToolOutput::error(error),
            },
            None => None,
        };
        let filter = PaperFilter {
            paper_id,
            collection: args.collection,
            year_from: args.year_from,
            year_to: args.year_to,
            author: args.author,
        };
        match crate::rag::answer(
            context.model.as_ref(),
            library,
            &context.services.rerank,
            question,
            &filter,
            &context.cancel,
        )
        .await
        {
            Ok(answer) => {
                let mut output = ToolOutput::ok(answer.to_text())
                    .with_metadata(serde_json::to_value(&answer).unwrap_or_default());
                // The scoring requests first, then the answer: all count in the metrics.
                for call in answer.rerank_calls {
                    output = output.with_model_call(Some(call));
                }
                output.with_model_call(answer.model_call)
            }
            Err(error) => ToolOutput::error(error.to_string()),
        }
    }
}
