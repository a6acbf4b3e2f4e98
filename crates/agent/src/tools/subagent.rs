//! `subagent`: hand a self-contained task to a subagent with its own context; only its
//! summary (and a log of what it did) comes back.

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;

use crate::permissions::ToolEffect;
use crate::subagent::{DEFAULT_MAX_STEPS, MAX_STEPS_LIMIT, SubagentSpec};
use crate::{InterruptBehavior, ToolContext, ToolOutput, TypedTool};

/// A task for a subagent.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SubagentArgs {
    /// The whole task, self-contained: the subagent sees nothing of this conversation.
    pub task: String,
    /// A short name for the timeline, e.g. "trgb-scout".
    pub name: Option<String>,
    /// Model calls it may make (default 5, at most 10).
    pub max_steps: Option<usize>,
}

pub struct SubagentTool;

#[async_trait]
impl TypedTool for SubagentTool {
    type Args = SubagentArgs;
    const NAME: &'static str = "subagent";
    const DESCRIPTION: &'static str = "Delegate a self-contained research task (e.g. \"find and read the three \
        most cited JWST TRGB distance papers and report their H0 values\") to a subagent with its own context. \
        It has your tools except asking the user or starting agents, works under your permissions, and returns \
        only its report plus a log of its steps. Use it to keep long reading out of your own context.";
    const INTERRUPT: InterruptBehavior = InterruptBehavior::Block;
    const EFFECT: Option<ToolEffect> = Some(ToolEffect::Read);

    async fn run(&self, args: SubagentArgs, context: &ToolContext) -> ToolOutput {
        let Some(launcher) = &context.subagents else {
            return ToolOutput::error(
                "A subagent cannot start another subagent; do the work yourself or report back.",
            );
        };
        let task = args.task.trim();
        if task.is_empty() {
            return ToolOutput::error("The task is empty; describe what the subagent should do.");
        }
        let wanted = args.max_steps.unwrap_or(DEFAULT_MAX_STEPS);
        let spec = SubagentSpec {
            name: launcher.unique_name(args.name.as_deref()),
            task: task.to_string(),
            instructions: None,
            max_steps: wanted.clamp(1, MAX_STEPS_LIMIT),
            allowed_tools: None,
        };
        let report = launcher.run(spec, context).await;
        let mut output = report.to_tool_output();
        if wanted > MAX_STEPS_LIMIT {
            output.content.push_str(&format!(
                "\n(max_steps {wanted} was lowered to the limit of {MAX_STEPS_LIMIT}.)"
            ));
        }
        output
    }
}
