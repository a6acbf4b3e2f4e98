//! `save_note`: keep a highlight or a remark on a library paper (page, quoted text,
//! comment, colour), listed with the paper and searchable.

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;

use asterism_store::Note;

use crate::permissions::ToolEffect;
use crate::{InterruptBehavior, ToolContext, ToolOutput, TypedTool};

/// A note on a paper.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SaveNoteArgs {
    /// The paper: bibcode, arXiv id, DOI, library id or the name of its imported file.
    pub paper: String,
    /// The page the note is about.
    pub page: Option<i64>,
    /// The exact text highlighted, if any.
    pub quote: Option<String>,
    /// The remark.
    pub comment: String,
    /// A highlight colour, e.g. "yellow".
    pub color: Option<String>,
}

pub struct SaveNoteTool;

#[async_trait]
impl TypedTool for SaveNoteTool {
    type Args = SaveNoteArgs;
    const NAME: &'static str = "save_note";
    const DESCRIPTION: &'static str = "Save a note on a library paper: a page, the quoted passage and a comment \
        (e.g. a key number and why it matters). The user sees it with the paper; notes are searchable.";
    const INTERRUPT: InterruptBehavior = InterruptBehavior::Block;
    const EFFECT: Option<ToolEffect> = Some(ToolEffect::Record);

    async fn run(&self, args: SaveNoteArgs, context: &ToolContext) -> ToolOutput {
        if args.comment.trim().is_empty()
            && args.quote.as_deref().is_none_or(|q| q.trim().is_empty())
        {
            return ToolOutput::error("A note needs a comment or a quote.");
        }
        let library = &context.services.library;
        let paper_id = match library.resolve(&args.paper).await {
            Ok(Some(paper_id)) => paper_id,
            Ok(None) => {
                return ToolOutput::error(format!(
                    "{} is not in the library; download or import it first.",
                    args.paper
                ));
            }
            Err(error) => return ToolOutput::error(error),
        };
        let note = Note {
            id: String::new(),
            paper_id: Some(paper_id.clone()),
            paper_label: None,
            page: args.page.filter(|page| *page > 0),
            quote: args
                .quote
                .map(|quote| quote.trim().to_string())
                .filter(|q| !q.is_empty()),
            comment: args.comment.trim().to_string(),
            color: args.color,
            rects: serde_json::json!([]),
            created_at: String::new(),
            updated_at: String::new(),
        };
        match library.store.add_note(&note).await {
            Ok(saved) => {
                let page = saved
                    .page
                    .map(|page| format!(" (p. {page})"))
                    .unwrap_or_default();
                ToolOutput::ok(format!("Saved a note on {}{page}.", args.paper))
                    .with_metadata(serde_json::to_value(&saved).unwrap_or_default())
            }
            Err(error) => ToolOutput::error(format!("The note could not be stored: {error}")),
        }
    }
}
