//! `bg_task_run` and `bg_task_check`: start a slow paper operation in the background,
//! and look at what is running or done.

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;

use crate::background::{BACKGROUND_TOOLS, BackgroundQueue};
use crate::permissions::{Decision, ToolEffect};
use crate::tools::{DownloadPaperTool, ParsePaperTool};
use crate::{AgentTool, InterruptBehavior, ToolContext, ToolOutput, TypedTool};

#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum BackgroundTool {
    DownloadPaper,
    ParsePaper,
}

/// What to run in the background.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BgTaskRunArgs {
    /// download_paper or parse_paper.
    pub tool: BackgroundTool,
    /// The arguments of that tool, e.g. {"id": "2401.01234"}.
    pub arguments: serde_json::Value,
}

pub struct BgTaskRunTool {
    pub queue: BackgroundQueue,
}

#[async_trait]
impl TypedTool for BgTaskRunTool {
    type Args = BgTaskRunArgs;
    const NAME: &'static str = "bg_task_run";
    const DESCRIPTION: &'static str = "Run download_paper or parse_paper in the background and go on with other \
        work; the result is handed to you automatically before a later step (or check with bg_task_check). \
        Use it for several papers at once or a large PDF.";
    const INTERRUPT: InterruptBehavior = InterruptBehavior::Block;
    const EFFECT: Option<ToolEffect> = Some(ToolEffect::Read);

    async fn run(&self, args: BgTaskRunArgs, context: &ToolContext) -> ToolOutput {
        let tool: std::sync::Arc<dyn AgentTool> = match args.tool {
            BackgroundTool::DownloadPaper => std::sync::Arc::new(DownloadPaperTool),
            BackgroundTool::ParsePaper => std::sync::Arc::new(ParsePaperTool),
        };
        let name = tool.name().to_string();
        debug_assert!(BACKGROUND_TOOLS.contains(&name.as_str()));
        if !args.arguments.is_object() {
            return ToolOutput::error(format!(
                "arguments must be the JSON object {name} takes, e.g. {{\"id\": \"2401.01234\"}}."
            ));
        }
        // The rules that govern the tool govern it in the background too; nobody can be
        // asked from there.
        let always = tool.always_ask(&args.arguments, &context.sandbox());
        match context.rules.check(tool.as_ref(), &args.arguments, always) {
            Decision::Allow => {}
            Decision::Deny { reason } => {
                return ToolOutput::error(format!("Permission denied for {name}: {reason}."));
            }
            Decision::Ask { reason, .. } => {
                return ToolOutput::error(format!(
                    "{name} needs the user's permission ({reason}); call it directly instead of in the background."
                ));
            }
        }
        match self.queue.spawn(tool, args.arguments.clone(), context).await {
            Ok(id) => ToolOutput::ok(format!(
                "Started {name} in the background as {id}. Its result will be handed to you when it finishes."
            ))
            .with_metadata(serde_json::json!({"taskId": id, "tool": name, "arguments": args.arguments})),
            Err(error) => ToolOutput::error(format!("The background task could not be recorded: {error}")),
        }
    }
}

/// Which task.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BgTaskCheckArgs {
    /// A task id from bg_task_run; omit to list this session's tasks.
    pub task_id: Option<String>,
}

pub struct BgTaskCheckTool;

#[async_trait]
impl TypedTool for BgTaskCheckTool {
    type Args = BgTaskCheckArgs;
    const NAME: &'static str = "bg_task_check";
    const DESCRIPTION: &'static str = "Status of background tasks: one by task_id (with its result when \
        finished), or all of this session's.";
    const CONCURRENCY_SAFE: bool = true;

    async fn run(&self, args: BgTaskCheckArgs, context: &ToolContext) -> ToolOutput {
        let store = &context.services.store;
        if let Some(id) = args.task_id.as_deref().map(str::trim) {
            return match store.background_task(id).await {
                Ok(Some(task)) if task.session_id == context.session_id => {
                    let text = if task.status == "running" {
                        format!(
                            "{} ({} {}) is still running.",
                            task.id, task.tool, task.arguments
                        )
                    } else {
                        crate::background::notification_text(&task)
                    };
                    ToolOutput::ok(text)
                        .with_metadata(serde_json::to_value(&task).unwrap_or_default())
                }
                Ok(_) => {
                    ToolOutput::error(format!("There is no background task {id} in this session."))
                }
                Err(error) => {
                    ToolOutput::error(format!("Background tasks could not be read: {error}"))
                }
            };
        }
        match store.background_tasks(Some(&context.session_id)).await {
            Ok(tasks) if tasks.is_empty() => ToolOutput::ok("No background tasks in this session."),
            Ok(tasks) => {
                let lines: Vec<String> = tasks
                    .iter()
                    .map(|task| {
                        format!(
                            "{} {} {} — {}",
                            task.id, task.tool, task.arguments, task.status
                        )
                    })
                    .collect();
                ToolOutput::ok(lines.join("\n")).with_metadata(serde_json::json!({"tasks": tasks}))
            }
            Err(error) => ToolOutput::error(format!("Background tasks could not be read: {error}")),
        }
    }
}
