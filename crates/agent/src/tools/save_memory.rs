//! `save_memory`: remember a lasting fact across sessions, through the quality gate.

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;

use crate::memory::{PROMPT_MEMORIES, check_memory};
use crate::permissions::ToolEffect;
use crate::{InterruptBehavior, ToolContext, ToolOutput, TypedTool};

/// What kind of memory.
#[derive(Debug, Clone, Copy, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum MemoryKind {
    #[default]
    Fact,
    Preference,
    Project,
}

/// Remember something.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SaveMemoryArgs {
    /// One specific, lasting sentence ("Prefers distances in Mpc with 1σ errors.").
    pub content: String,
    #[serde(default)]
    pub kind: MemoryKind,
}

pub struct SaveMemoryTool;

#[async_trait]
impl TypedTool for SaveMemoryTool {
    type Args = SaveMemoryArgs;
    const NAME: &'static str = "save_memory";
    const DESCRIPTION: &'static str = "Remember a lasting fact about the user, their preferences or their \
        projects for later sessions (it appears in your instructions from then on). One specific sentence; \
        not transient state, not code, not something already remembered.";
    const INTERRUPT: InterruptBehavior = InterruptBehavior::Block;
    /// The agent's own notes: no question to the user.
    const EFFECT: Option<ToolEffect> = Some(ToolEffect::Record);

    async fn run(&self, args: SaveMemoryArgs, context: &ToolContext) -> ToolOutput {
        let store = &context.services.store;
        let existing = match store.memories(i64::MAX).await {
            Ok(existing) => existing,
            Err(error) => return ToolOutput::error(format!("the memory store: {error}")),
        };
        if let Err(rejection) =
            check_memory(&args.content, existing.iter().map(|m| m.content.as_str()))
        {
            return ToolOutput::error(format!("Not saved: {rejection}"));
        }
        let kind = match args.kind {
            MemoryKind::Fact => "fact",
            MemoryKind::Preference => "preference",
            MemoryKind::Project => "project",
        };
        match store
            .add_memory(args.content.trim(), kind, Some(&context.session_id))
            .await
        {
            Ok(id) => ToolOutput::ok(format!(
                "Remembered ({kind}). {} memories in all; the {PROMPT_MEMORIES} most recent are in your instructions.",
                existing.len() + 1
            ))
            .with_metadata(serde_json::json!({"id": id, "kind": kind})),
            Err(error) => ToolOutput::error(format!("the memory store: {error}")),
        }
    }
}
