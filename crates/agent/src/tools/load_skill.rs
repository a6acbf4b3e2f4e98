//! `load_skill`: bring in a skill's instructions. An inline skill's text is returned for
//! the agent to follow; a fork skill runs in a subagent that follows it with the skill's
//! allowed tools, and its report is returned.

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;

use crate::permissions::ToolEffect;
use crate::skills::{SkillMode, SkillRegistry};
use crate::subagent::{DEFAULT_MAX_STEPS, MAX_STEPS_LIMIT, SubagentSpec};
use crate::{ToolContext, ToolOutput, TypedTool};

/// Which skill, and for fork skills the task.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LoadSkillArgs {
    /// The skill's name, as listed in your instructions.
    pub name: String,
    /// What to apply it to (required for fork skills, e.g. "the Hubble tension from TRGB
    /// distances").
    pub task: Option<String>,
    /// Model calls a fork skill's subagent may make (default 5, at most 10).
    pub max_steps: Option<usize>,
}

pub struct LoadSkillTool;

#[async_trait]
impl TypedTool for LoadSkillTool {
    type Args = LoadSkillArgs;
    const NAME: &'static str = "load_skill";
    const DESCRIPTION: &'static str = "Load a skill (instructions for a whole kind of task, listed in your \
        instructions). Inline skills return their text for you to follow; fork skills run in a subagent on the \
        task you give and return its report.";
    const CONCURRENCY_SAFE: bool = true;
    const EFFECT: Option<ToolEffect> = Some(ToolEffect::Read);

    async fn run(&self, args: LoadSkillArgs, context: &ToolContext) -> ToolOutput {
        let registry = SkillRegistry::load(&context.services.skills_dir());
        let Some(skill) = registry.get(&args.name) else {
            let known: Vec<&str> = registry.skills().iter().map(|s| s.name.as_str()).collect();
            return ToolOutput::error(format!(
                "There is no skill named \"{}\". Skills: {}.",
                args.name,
                if known.is_empty() {
                    "none".to_string()
                } else {
                    known.join(", ")
                }
            ));
        };
        let metadata = serde_json::json!({
            "skill": skill.name,
            "mode": skill.mode,
            "source": skill.source,
            "allowedTools": skill.allowed_tools,
        });
        match skill.mode {
            SkillMode::Inline => {
                let mut text = format!("# Skill: {}\n\n{}", skill.name, skill.body);
                if let Some(tools) = &skill.allowed_tools {
                    text.push_str(&format!(
                        "\n\n(Tools this skill uses: {}.)",
                        tools.join(", ")
                    ));
                }
                ToolOutput::ok(text).with_metadata(metadata)
            }
            SkillMode::Fork => {
                let Some(task) = args
                    .task
                    .as_deref()
                    .map(str::trim)
                    .filter(|t| !t.is_empty())
                else {
                    return ToolOutput::error(format!(
                        "{} runs as a subagent: call load_skill again with the task to apply it to.",
                        skill.name
                    ));
                };
                let Some(launcher) = &context.subagents else {
                    return ToolOutput::error(format!(
                        "{} runs as a subagent, and a subagent cannot start another; do the task yourself.",
                        skill.name
                    ));
                };
                let spec = SubagentSpec {
                    name: launcher.unique_name(Some(&skill.name)),
                    task: task.to_string(),
                    instructions: Some(skill.body.clone()),
                    max_steps: args
                        .max_steps
                        .unwrap_or(DEFAULT_MAX_STEPS)
                        .clamp(1, MAX_STEPS_LIMIT),
                    allowed_tools: skill.allowed_tools.clone(),
                };
                let mut output = launcher.run(spec, context).await.to_tool_output();
                if let Some(object) = output.metadata.as_object_mut()
                    && let Some(extra) = metadata.as_object()
                {
                    object.extend(extra.clone());
                }
                output
            }
        }
    }
}
