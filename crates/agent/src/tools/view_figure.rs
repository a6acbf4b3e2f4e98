//! `view_figure`: a model that accepts images looks at a figure or table of a library
//! paper. The region found when the PDF was parsed is cut from the stored copy and sent,
//! with its label and the question, in a request of its own; what the model reads from
//! it comes back as the tool's text (so the session keeps text, and replays offline).
//! Registered only when `LLM_VISION` says the model takes images; each call asks the
//! user first, since it sends part of their library to the endpoint.

use async_trait::async_trait;
use base64::Engine;
use schemars::JsonSchema;
use serde::Deserialize;

use asterism_library::library::figures;
use asterism_llm::{ChatMessage, ChatRequest};

use crate::permissions::ToolEffect;
use crate::{ToolContext, ToolOutput, TypedTool};

/// Figures are sent at this resolution: enough to read tick labels, about 1,000 pixels
/// across for a full-width figure.
const VIEW_DPI: f32 = 100.0;

/// A figure or table to look at.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ViewFigureArgs {
    /// A bibcode, an arXiv id, a DOI, a library paper id or an imported file's name.
    pub id: String,
    /// The figure or table: 3, "Figure 3", "Table 2", "Fig. A.1".
    pub figure: String,
    /// What to look for (read off a value, compare two curves …).
    pub question: Option<String>,
}

pub struct ViewFigureTool;

#[async_trait]
impl TypedTool for ViewFigureTool {
    type Args = ViewFigureArgs;
    const NAME: &'static str = "view_figure";
    const DESCRIPTION: &'static str = "Look at a figure or table of a paper in the library as an image: \
        the region is cut from the stored PDF and you are shown it with the question, and what you read \
        from it (axes, curves, values) comes back. For what a caption does not say. The user is asked \
        first. Cite it as the figure and its page.";
    const CONCURRENCY_SAFE: bool = true;
    const EFFECT: Option<ToolEffect> = Some(ToolEffect::Share);

    async fn run(&self, args: ViewFigureArgs, context: &ToolContext) -> ToolOutput {
        let services = &context.services;
        let paper_id = match services.library.resolve(&args.id).await {
            Ok(Some(paper_id)) => paper_id,
            Ok(None) => return ToolOutput::error(format!("{} is not in the library", args.id)),
            Err(error) => return ToolOutput::error(error),
        };
        let title = match services.store.paper_record(&paper_id).await {
            Ok(paper) => paper.map(|paper| paper.title).unwrap_or_default(),
            Err(error) => return ToolOutput::error(format!("the library: {error}")),
        };
        let (figure, png) =
            match figures::figure_png(&services.store, &paper_id, &args.figure, VIEW_DPI).await {
                Ok(found) => found,
                Err(error) => return ToolOutput::error(error.to_string()),
            };
        let question = args
            .question
            .as_deref()
            .map(str::trim)
            .filter(|q| !q.is_empty())
            .unwrap_or("Describe what it shows.");
        let image = format!(
            "data:image/png;base64,{}",
            base64::engine::general_purpose::STANDARD.encode(&png)
        );
        let request = ChatRequest {
            response_schema: None,
            tool_choice: None,
            messages: vec![
                ChatMessage::System {
                    content: "You look at a figure or table from an astronomy paper and say what it \
                              shows for the question: axes and units, what each curve, point set or \
                              column is, values you can read (with how precisely), trends. Say what \
                              cannot be read from the image. Do not guess beyond it."
                        .into(),
                },
                ChatMessage::User {
                    content: format!(
                        "{} of \"{}\" (page {}). {question}",
                        figure.label, title, figure.page
                    ),
                },
            ]
            .into(),
            images: vec![image],
            tools: Vec::new(),
            enable_thinking: false,
            model: None,
        };
        match crate::rag::complete(context.model.as_ref(), request, &context.cancel).await {
            Ok((text, call)) => ToolOutput::ok(format!(
                "{} of \"{}\" (p. {}), as seen in the image:\n\n{text}",
                figure.label, title, figure.page
            ))
            .with_metadata(serde_json::json!({
                "paperId": paper_id,
                "label": figure.label,
                "kind": figure.kind,
                "page": figure.page,
                "pngBytes": png.len(),
            }))
            .with_model_call(Some(call)),
            Err(error) => ToolOutput::error(format!(
                "{error} (does the model accept images? LLM_VISION=off hides this tool)"
            )),
        }
    }
}
