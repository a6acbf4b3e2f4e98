use sqlx::Row;

use crate::{Result, Store};

/// A remembered fact.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MemoryRow {
    pub id: i64,
    pub content: String,
    pub kind: String,
    pub session_id: Option<String>,
    pub created_at: String,
}

impl Store {
    /// Stores a memory; returns its id.
    pub async fn add_memory(
        &self,
        content: &str,
        kind: &str,
        session_id: Option<&str>,
    ) -> Result<i64> {
        let row = sqlx::query(
            "INSERT INTO memories (content, kind, session_id, created_at) VALUES (?, ?, ?, ?) RETURNING id",
        )
        .bind(content)
        .bind(kind)
        .bind(session_id)
        .bind(crate::now_rfc3339())
        .fetch_one(&self.pool)
        .await?;
        Ok(row.try_get("id")?)
    }

    /// The most recent memories first.
    pub async fn memories(&self, limit: i64) -> Result<Vec<MemoryRow>> {
        let rows = sqlx::query("SELECT * FROM memories ORDER BY id DESC LIMIT ?")
            .bind(limit)
            .fetch_all(&self.pool)
            .await?;
        rows.iter()
            .map(|row| {
                Ok(MemoryRow {
                    id: row.try_get("id")?,
                    content: row.try_get("content")?,
                    kind: row.try_get("kind")?,
                    session_id: row.try_get("session_id")?,
                    created_at: row.try_get("created_at")?,
                })
            })
            .collect()
    }

    /// Deletes a memory; false when there was none with that id.
    pub async fn delete_memory(&self, id: i64) -> Result<bool> {
        let done = sqlx::query("DELETE FROM memories WHERE id = ?")
            .bind(id)
            .execute(&self.pool)
            .await?;
        Ok(done.rows_affected() > 0)
    }
}
