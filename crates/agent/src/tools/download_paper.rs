//! `download_paper`: fetch a paper's PDF into the library.

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;

use crate::tool::parameters_schema;
use crate::{AgentTool, InterruptBehavior, ProgressSender, ToolContext, ToolOutput};

/// Download a paper.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DownloadPaperArgs {
    /// A bibcode, an arXiv id or a DOI.
    pub id: String,
}

/// Tries arXiv, then the ADS resolver's e-print and publisher PDFs, then the DOI.
pub struct DownloadPaperTool;

impl DownloadPaperTool {
    const DESCRIPTION: &'static str = "Download a paper's PDF into the local library (by bibcode, arXiv id or \
        DOI). Tries arXiv, then the ADS links (e-print, publisher), then the DOI; checks that the answer \
        is a PDF; a paper already downloaded is not fetched again. Use parse_paper next to read it.";

    async fn download(
        &self,
        arguments: serde_json::Value,
        context: &ToolContext,
        progress: Option<ProgressSender>,
    ) -> ToolOutput {
        let args: DownloadPaperArgs = match serde_json::from_value(arguments) {
            Ok(args) => args,
            Err(error) => {
                return ToolOutput::error(format!("Invalid arguments for download_paper: {error}"));
            }
        };
        let report = move |bytes: u64, total: Option<u64>| {
            if let Some(progress) = &progress {
                let megabytes = bytes as f64 / 1_048_576.0;
                let fraction = total
                    .filter(|total| *total > 0)
                    .map(|total| bytes as f64 / total as f64);
                progress.report(format!("{megabytes:.1} MB"), fraction);
            }
        };
        match context.services.add_paper(&args.id, &report).await {
            Ok((paper, done)) => {
                let text = if done.already_present {
                    format!(
                        "Already in the library: {} ({} bytes).",
                        done.path.display(),
                        done.bytes
                    )
                } else {
                    format!(
                        "Downloaded {} from {} ({} bytes, sha256 {}).",
                        done.path.display(),
                        done.source,
                        done.bytes,
                        &done.sha256[..12]
                    )
                };
                ToolOutput::ok(format!("{text} Paper: {}", paper.title)).with_metadata(
                    serde_json::json!({
                        "paperId": done.paper_id,
                        "path": done.path.display().to_string(),
                        "sha256": done.sha256,
                        "bytes": done.bytes,
                        "source": done.source,
                        "alreadyPresent": done.already_present,
                        "paper": paper,
                    }),
                )
            }
            Err(error) => ToolOutput::error(format!("Could not download {}: {error}", args.id)),
        }
    }
}

#[async_trait]
impl AgentTool for DownloadPaperTool {
    fn name(&self) -> &str {
        "download_paper"
    }
    fn description(&self) -> &str {
        Self::DESCRIPTION
    }
    fn parameters(&self) -> serde_json::Value {
        parameters_schema::<DownloadPaperArgs>()
    }
    /// A half-written download is removed anyway; the flag matters for the paper row.
    fn interrupt_behavior(&self) -> InterruptBehavior {
        InterruptBehavior::Cancel
    }
    fn causes_sibling_abort(&self) -> bool {
        true
    }
    /// Writes into the library, which the user expects the agent to do: no question.
    fn effect(&self, _arguments: &serde_json::Value) -> crate::permissions::ToolEffect {
        crate::permissions::ToolEffect::Record
    }
    async fn execute(&self, arguments: serde_json::Value, context: &ToolContext) -> ToolOutput {
        self.download(arguments, context, None).await
    }
    async fn execute_with_progress(
        &self,
        arguments: serde_json::Value,
        context: &ToolContext,
        progress: ProgressSender,
    ) -> ToolOutput {
        self.download(arguments, context, Some(progress)).await
    }
}
