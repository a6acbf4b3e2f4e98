//! `todo_write`: the agent's plan for a multi-step task, replaced as a whole each call,
//! checked (crate::todos), stored per session and agent, shown to the user (TodoUpdated).

use asterism_protocol::AgentEvent;
use asterism_store::TaskRow;
use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;

use crate::permissions::ToolEffect;
use crate::{ToolContext, ToolOutput, TypedTool};

#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TodoStatus {
    Pending,
    InProgress,
    Completed,
}

impl TodoStatus {
    fn as_str(self) -> &'static str {
        match self {
            TodoStatus::Pending => crate::todos::PENDING,
            TodoStatus::InProgress => crate::todos::IN_PROGRESS,
            TodoStatus::Completed => crate::todos::COMPLETED,
        }
    }
}

/// One task of the plan.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct TodoItem {
    /// Short stable id, e.g. "search" or "1".
    pub id: String,
    /// What to do, as an imperative sentence.
    pub content: String,
    pub status: TodoStatus,
    /// Ids of the tasks that must be completed before this one can start.
    #[serde(default)]
    pub blocked_by: Vec<String>,
}

/// The whole todo list.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TodoWriteArgs {
    /// Every task, in order; this list replaces the previous one.
    pub todos: Vec<TodoItem>,
}

pub struct TodoWriteTool;

#[async_trait]
impl TypedTool for TodoWriteTool {
    type Args = TodoWriteArgs;
    const NAME: &'static str = "todo_write";
    const DESCRIPTION: &'static str = "Plan a task of three or more steps and keep the plan current: send the \
        whole list each time (it replaces the last one). Statuses: pending, in_progress (exactly one task at a \
        time), completed (mark it as soon as it is done). blockedBy lists the ids a task waits for; cycles are \
        refused. The user sees the list.";
    const CONCURRENCY_SAFE: bool = true;
    const EFFECT: Option<ToolEffect> = Some(ToolEffect::Read);

    async fn run(&self, args: TodoWriteArgs, context: &ToolContext) -> ToolOutput {
        let tasks: Vec<TaskRow> = args
            .todos
            .into_iter()
            .map(|item| TaskRow {
                task_id: item.id.trim().to_string(),
                content: item.content.trim().to_string(),
                status: item.status.as_str().to_string(),
                blocked_by: item.blocked_by,
            })
            .collect();
        if let Err(error) = crate::todos::validate(&tasks) {
            return ToolOutput::error(format!(
                "The todo list was not changed: {error}. Send the corrected whole list."
            ));
        }
        let store = &context.services.store;
        if let Err(error) = store
            .replace_tasks(&context.session_id, &context.agent_name, &tasks)
            .await
        {
            return ToolOutput::error(format!("The todo list could not be stored: {error}"));
        }
        let todos = serde_json::to_value(&tasks).unwrap_or_default();
        context.events.emit(AgentEvent::TodoUpdated {
            agent_name: context.agent_name.clone(),
            todos: todos.clone(),
        });
        ToolOutput::ok(crate::todos::render(&tasks))
            .with_metadata(serde_json::json!({ "todos": todos }))
    }
}
