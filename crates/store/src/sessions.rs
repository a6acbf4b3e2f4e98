use asterism_protocol::SessionSummary;
use sqlx::Row;

use crate::{Result, Store, StoreError, now_rfc3339};

/// A session row as stored.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionRow {
    pub id: String,
    pub title: String,
    pub model: String,
    pub summary: Option<String>,
    pub created_at: String,
    pub updated_at: String,
}

impl Store {
    /// Creates a session unless it exists. The title is the first question, shortened.
    pub async fn ensure_session(&self, id: &str, title: &str, model: &str) -> Result<()> {
        let now = now_rfc3339();
        let title: String = title.chars().take(120).collect();
        sqlx::query(
            "INSERT INTO agent_sessions (id, title, model, created_at, updated_at)
             VALUES (?, ?, ?, ?, ?)
             ON CONFLICT(id) DO UPDATE SET model = excluded.model, updated_at = excluded.updated_at",
        )
        .bind(id)
        .bind(title)
        .bind(model)
        .bind(&now)
        .bind(&now)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// Marks a session as changed now.
    pub async fn touch_session(&self, id: &str) -> Result<()> {
        sqlx::query("UPDATE agent_sessions SET updated_at = ? WHERE id = ?")
            .bind(now_rfc3339())
            .bind(id)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Stores the latest compaction summary of a session (shown in the history; the
    /// conversation itself is rebuilt from the compaction event rows).
    pub async fn set_session_summary(&self, id: &str, summary: &str) -> Result<()> {
        sqlx::query("UPDATE agent_sessions SET summary = ? WHERE id = ?")
            .bind(summary)
            .bind(id)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    pub async fn session(&self, id: &str) -> Result<SessionRow> {
        let row = sqlx::query(
            "SELECT id, title, model, summary, created_at, updated_at FROM agent_sessions WHERE id = ?",
        )
        .bind(id)
        .fetch_optional(&self.pool)
        .await?
        .ok_or_else(|| StoreError::NotFound(format!("session {id}")))?;
        Ok(SessionRow {
            id: row.try_get("id")?,
            title: row.try_get("title")?,
            model: row.try_get("model")?,
            summary: row.try_get("summary")?,
            created_at: row.try_get("created_at")?,
            updated_at: row.try_get("updated_at")?,
        })
    }

    /// Sessions, most recently changed first.
    pub async fn list_sessions(&self, limit: u32) -> Result<Vec<SessionSummary>> {
        let rows = sqlx::query(
            "SELECT s.id, s.title, s.model, s.summary, s.created_at, s.updated_at,
                    (SELECT COUNT(*) FROM agent_messages m WHERE m.session_id = s.id AND m.role IN ('user', 'assistant', 'tool')) AS message_count
             FROM agent_sessions s
             ORDER BY s.updated_at DESC, s.rowid DESC
             LIMIT ?",
        )
        .bind(i64::from(limit))
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|row| {
                let count: i64 = row.try_get("message_count")?;
                Ok(SessionSummary {
                    id: row.try_get("id")?,
                    title: row.try_get("title")?,
                    model: row.try_get("model")?,
                    summary: row.try_get("summary")?,
                    created_at: row.try_get("created_at")?,
                    updated_at: row.try_get("updated_at")?,
                    message_count: i32::try_from(count).unwrap_or(i32::MAX),
                })
            })
            .collect()
    }
}
