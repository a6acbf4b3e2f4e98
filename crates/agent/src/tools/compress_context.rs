//! `compress_context`: ask for the conversation to be summarised before the next model
//! call (the runtime does it; calling twice is the same as once).

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;

use crate::{ToolContext, ToolOutput, TypedTool};

/// Compress the context.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CompressContextArgs {
    /// Why (shown in the timeline).
    pub reason: Option<String>,
}

pub struct CompressContextTool;

#[async_trait]
impl TypedTool for CompressContextTool {
    type Args = CompressContextArgs;
    const NAME: &'static str = "compress_context";
    const DESCRIPTION: &'static str = "Summarise the conversation so far before your next step, to free context \
        (e.g. after reading several long papers). Facts, ids and open tasks are kept in the summary.";
    const CONCURRENCY_SAFE: bool = true;

    async fn run(&self, args: CompressContextArgs, context: &ToolContext) -> ToolOutput {
        let already = context.compaction.is_requested();
        context.compaction.request();
        // What read_file returned is about to leave the context: read it again in full.
        context
            .services
            .file_state
            .forget_session(&context.session_id);
        let text = if already {
            "Compaction was already requested; it happens before the next step.".to_string()
        } else {
            "The conversation will be summarised before the next step.".to_string()
        };
        ToolOutput::ok(text).with_metadata(serde_json::json!({
            "requested": true,
            "alreadyRequested": already,
            "reason": args.reason,
        }))
    }
}
