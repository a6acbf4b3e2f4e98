//! Background tasks: a slow call (download_paper, parse_paper) runs on its own task
//! while the agent goes on. Each is a `background_tasks` row; when it ends its result is
//! stored there, and the runtime hands every finished, not yet delivered result to the
//! agent before its next model call (the notification queue is the table, so results
//! that finish between runs, or before a restart, are delivered too). Tasks still
//! running when the app closes are marked interrupted at the next start.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use asterism_store::{BackgroundTaskRow, Store, StoreError};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::{AgentTool, ToolContext};

/// The tools that may run in the background.
pub const BACKGROUND_TOOLS: &[&str] = &["download_paper", "parse_paper"];

/// Starts background tasks and keeps their handles.
#[derive(Clone, Default)]
pub struct BackgroundQueue {
    running: Arc<Mutex<HashMap<String, JoinHandle<()>>>>,
    /// Cancels every task (the app is closing).
    shutdown: CancellationToken,
}

impl std::fmt::Debug for BackgroundQueue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BackgroundQueue")
            .field("running", &self.running_ids())
            .finish()
    }
}

impl BackgroundQueue {
    pub fn new() -> Self {
        Self::default()
    }

    /// Marks what a previous process left running as interrupted. Call once at start.
    pub async fn recover(store: &Store) -> Result<u64, StoreError> {
        store.interrupt_running_background_tasks().await
    }

    /// Records the task and starts it; returns its id. The call runs with the
    /// context of the call that started it, but is cancelled only by [`Self::shutdown`],
    /// not by the end of the run.
    pub async fn spawn(
        &self,
        tool: Arc<dyn AgentTool>,
        arguments: serde_json::Value,
        context: &ToolContext,
    ) -> Result<String, StoreError> {
        let id = format!("bg-{}", &uuid::Uuid::new_v4().simple().to_string()[..8]);
        let store = context.services.store.clone();
        store
            .add_background_task(&id, &context.session_id, tool.name(), &arguments)
            .await?;
        let mut task_context = context.clone();
        task_context.cancel = self.shutdown.child_token();
        task_context.tool_call_id = id.clone();
        let task_id = id.clone();
        let running = self.running.clone();
        let handle = tokio::spawn(async move {
            let output = tool.execute(arguments, &task_context).await;
            let status = if task_context.cancel.is_cancelled() {
                "interrupted"
            } else if output.is_error {
                "failed"
            } else {
                "completed"
            };
            if let Err(error) = store
                .finish_background_task(&task_id, status, &output.content, output.is_error)
                .await
            {
                tracing::warn!(%error, task = %task_id, "could not store a background result");
            }
            if let Ok(mut running) = running.lock() {
                running.remove(&task_id);
            }
        });
        if let Ok(mut running) = self.running.lock() {
            // A task that already finished has removed itself; do not keep its handle.
            if !handle.is_finished() {
                running.insert(id.clone(), handle);
            }
        }
        Ok(id)
    }

    /// Ids of the tasks of this process still running.
    pub fn running_ids(&self) -> Vec<String> {
        self.running
            .lock()
            .map(|running| running.keys().cloned().collect())
            .unwrap_or_default()
    }

    /// Waits until every task of this process has ended.
    pub async fn wait_idle(&self) {
        loop {
            let handles: Vec<JoinHandle<()>> = match self.running.lock() {
                Ok(mut running) => running.drain().map(|(_, handle)| handle).collect(),
                Err(_) => return,
            };
            if handles.is_empty() {
                return;
            }
            for handle in handles {
                let _ = handle.await;
            }
        }
    }

    /// Cancels every running task (they are stored as interrupted).
    pub fn shutdown(&self) {
        self.shutdown.cancel();
    }
}

/// How a finished task is shown to the agent.
pub fn notification_text(task: &BackgroundTaskRow) -> String {
    format!(
        "[Background task {} ({} {}) {}]\n{}",
        task.id,
        task.tool,
        task.arguments,
        task.status,
        task.output.as_deref().unwrap_or("")
    )
}
