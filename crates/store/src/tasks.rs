//! The agent's todo lists (`agent_tasks`) and background tasks (`background_tasks`).

use sqlx::Row;
use sqlx::sqlite::SqliteRow;

use crate::{Result, Store};

/// One entry of a todo list.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskRow {
    pub task_id: String,
    pub content: String,
    /// `pending`, `in_progress` or `completed`.
    pub status: String,
    pub blocked_by: Vec<String>,
}

/// A background tool call and, once finished, its result.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BackgroundTaskRow {
    pub id: String,
    pub session_id: String,
    pub tool: String,
    pub arguments: serde_json::Value,
    /// `running`, `completed`, `failed` or `interrupted`.
    pub status: String,
    pub output: Option<String>,
    pub is_error: bool,
    pub notified: bool,
    pub created_at: String,
    pub finished_at: Option<String>,
}

fn background_row(row: &SqliteRow) -> Result<BackgroundTaskRow> {
    let arguments: String = row.try_get("arguments")?;
    Ok(BackgroundTaskRow {
        id: row.try_get("id")?,
        session_id: row.try_get("session_id")?,
        tool: row.try_get("tool")?,
        arguments: serde_json::from_str(&arguments).unwrap_or(serde_json::Value::Null),
        status: row.try_get("status")?,
        output: row.try_get("output")?,
        is_error: row.try_get::<i64, _>("is_error")? != 0,
        notified: row.try_get::<i64, _>("notified")? != 0,
        created_at: row.try_get("created_at")?,
        finished_at: row.try_get("finished_at")?,
    })
}

impl Store {
    /// Replaces the todo list of a session's agent, in one transaction.
    pub async fn replace_tasks(
        &self,
        session_id: &str,
        agent_name: &str,
        tasks: &[TaskRow],
    ) -> Result<()> {
        let now = crate::now_rfc3339();
        let mut tx = self.pool.begin().await?;
        sqlx::query("DELETE FROM agent_tasks WHERE session_id = ? AND agent_name = ?")
            .bind(session_id)
            .bind(agent_name)
            .execute(&mut *tx)
            .await?;
        for (position, task) in tasks.iter().enumerate() {
            sqlx::query(
                "INSERT INTO agent_tasks (session_id, agent_name, task_id, position, content, status, blocked_by, updated_at) \
                 VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            )
            .bind(session_id)
            .bind(agent_name)
            .bind(&task.task_id)
            .bind(i64::try_from(position).unwrap_or(i64::MAX))
            .bind(&task.content)
            .bind(&task.status)
            .bind(serde_json::to_string(&task.blocked_by).unwrap_or_else(|_| "[]".into()))
            .bind(&now)
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// The todo list of a session's agent, in its order.
    pub async fn tasks(&self, session_id: &str, agent_name: &str) -> Result<Vec<TaskRow>> {
        let rows = sqlx::query(
            "SELECT * FROM agent_tasks WHERE session_id = ? AND agent_name = ? ORDER BY position",
        )
        .bind(session_id)
        .bind(agent_name)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|row| {
                let blocked_by: String = row.try_get("blocked_by")?;
                Ok(TaskRow {
                    task_id: row.try_get("task_id")?,
                    content: row.try_get("content")?,
                    status: row.try_get("status")?,
                    blocked_by: serde_json::from_str(&blocked_by).unwrap_or_default(),
                })
            })
            .collect()
    }

    /// Every agent's todo list in a session, the main agent's first.
    pub async fn task_lists(&self, session_id: &str) -> Result<Vec<(String, Vec<TaskRow>)>> {
        let agents: Vec<String> = sqlx::query_scalar(
            "SELECT DISTINCT agent_name FROM agent_tasks WHERE session_id = ? \
             ORDER BY agent_name != 'main', agent_name",
        )
        .bind(session_id)
        .fetch_all(&self.pool)
        .await?;
        let mut lists = Vec::with_capacity(agents.len());
        for agent in agents {
            let tasks = self.tasks(session_id, &agent).await?;
            lists.push((agent, tasks));
        }
        Ok(lists)
    }

    /// The session whose todo list changed last.
    pub async fn latest_task_session(&self) -> Result<Option<String>> {
        Ok(sqlx::query_scalar(
            "SELECT session_id FROM agent_tasks ORDER BY updated_at DESC LIMIT 1",
        )
        .fetch_optional(&self.pool)
        .await?)
    }

    /// Records a background task as running.
    pub async fn add_background_task(
        &self,
        id: &str,
        session_id: &str,
        tool: &str,
        arguments: &serde_json::Value,
    ) -> Result<()> {
        sqlx::query(
            "INSERT INTO background_tasks (id, session_id, tool, arguments, status, created_at) \
             VALUES (?, ?, ?, ?, 'running', ?)",
        )
        .bind(id)
        .bind(session_id)
        .bind(tool)
        .bind(arguments.to_string())
        .bind(crate::now_rfc3339())
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// Records how a background task ended (`completed`, `failed`, `interrupted`).
    pub async fn finish_background_task(
        &self,
        id: &str,
        status: &str,
        output: &str,
        is_error: bool,
    ) -> Result<()> {
        sqlx::query(
            "UPDATE background_tasks SET status = ?, output = ?, is_error = ?, finished_at = ? WHERE id = ?",
        )
        .bind(status)
        .bind(output)
        .bind(i64::from(is_error))
        .bind(crate::now_rfc3339())
        .bind(id)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// Marks a finished task's result as handed to the agent.
    pub async fn mark_background_task_notified(&self, id: &str) -> Result<()> {
        sqlx::query("UPDATE background_tasks SET notified = 1 WHERE id = ?")
            .bind(id)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Tasks still `running` belong to a process that ended: they become `interrupted`
    /// (their results are then handed to the agent like any other). Returns how many.
    pub async fn interrupt_running_background_tasks(&self) -> Result<u64> {
        let done = sqlx::query(
            "UPDATE background_tasks SET status = 'interrupted', is_error = 1, finished_at = ?, \
             output = 'The app closed before this task finished; run it again.' WHERE status = 'running'",
        )
        .bind(crate::now_rfc3339())
        .execute(&self.pool)
        .await?;
        Ok(done.rows_affected())
    }

    /// One background task.
    pub async fn background_task(&self, id: &str) -> Result<Option<BackgroundTaskRow>> {
        let row = sqlx::query("SELECT * FROM background_tasks WHERE id = ?")
            .bind(id)
            .fetch_optional(&self.pool)
            .await?;
        row.as_ref().map(background_row).transpose()
    }

    /// Background tasks, newest first; of one session when given.
    pub async fn background_tasks(
        &self,
        session_id: Option<&str>,
    ) -> Result<Vec<BackgroundTaskRow>> {
        let rows = sqlx::query(
            "SELECT * FROM background_tasks WHERE ?1 IS NULL OR session_id = ?1 ORDER BY created_at DESC, id DESC",
        )
        .bind(session_id)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(background_row).collect()
    }

    /// Finished tasks of a session whose results the agent has not seen yet, oldest
    /// first.
    pub async fn unnotified_background_tasks(
        &self,
        session_id: &str,
    ) -> Result<Vec<BackgroundTaskRow>> {
        let rows = sqlx::query(
            "SELECT * FROM background_tasks WHERE session_id = ? AND status != 'running' AND notified = 0 \
             ORDER BY finished_at, id",
        )
        .bind(session_id)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(background_row).collect()
    }
}
