use crate::{Result, Store, now_rfc3339};

/// One measurement: a model call (tokens, latency) or a tool call (duration).
#[derive(Debug, Clone, PartialEq)]
pub struct MetricRow {
    pub session_id: String,
    pub run_id: String,
    pub step: i32,
    pub agent_name: String,
    /// `model`, `tool` or `wait` (a call waiting for the user's permission).
    pub kind: String,
    /// Model name or tool name.
    pub name: String,
    /// For a model call a tool made: that tool.
    pub via: Option<String>,
    pub prompt_tokens: i32,
    pub completion_tokens: i32,
    pub duration_ms: f64,
}

impl Store {
    /// Appends metric rows in one transaction.
    pub async fn append_metrics(&self, rows: &[MetricRow]) -> Result<()> {
        self.append_batch(&[], &[], rows).await
    }

    /// Number of metric rows of a session.
    pub async fn metrics_count(&self, session_id: &str) -> Result<i64> {
        let count: (i64,) =
            sqlx::query_as("SELECT COUNT(*) FROM agent_metrics WHERE session_id = ?")
                .bind(session_id)
                .fetch_one(&self.pool)
                .await?;
        Ok(count.0)
    }
}

pub(crate) async fn insert_metrics(
    tx: &mut sqlx::SqliteConnection,
    rows: &[MetricRow],
) -> Result<()> {
    let now = now_rfc3339();
    for row in rows {
        sqlx::query(
            "INSERT INTO agent_metrics
               (session_id, run_id, step, agent_name, kind, name, prompt_tokens,
                completion_tokens, duration_ms, created_at, via)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        )
        .bind(&row.session_id)
        .bind(&row.run_id)
        .bind(row.step)
        .bind(&row.agent_name)
        .bind(&row.kind)
        .bind(&row.name)
        .bind(row.prompt_tokens)
        .bind(row.completion_tokens)
        .bind(row.duration_ms)
        .bind(&now)
        .bind(&row.via)
        .execute(&mut *tx)
        .await?;
    }
    Ok(())
}
