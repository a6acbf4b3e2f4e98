use crate::{Result, Store, now_rfc3339};

/// One tool call as the audit log records it.
#[derive(Debug, Clone, PartialEq)]
pub struct AuditRow {
    pub session_id: String,
    pub agent_name: String,
    pub tool_call_id: String,
    pub tool: String,
    /// Arguments with secrets already redacted.
    pub arguments: serde_json::Value,
    pub decision: String,
    pub outcome: String,
    pub duration_ms: f64,
    pub error: Option<String>,
}

impl Store {
    /// Appends audit rows in one transaction.
    pub async fn append_audit(&self, rows: &[AuditRow]) -> Result<()> {
        self.append_batch(&[], rows, &[]).await
    }

    /// Number of audit rows of a session.
    pub async fn audit_count(&self, session_id: &str) -> Result<i64> {
        let count: (i64,) =
            sqlx::query_as("SELECT COUNT(*) FROM agent_audit_log WHERE session_id = ?")
                .bind(session_id)
                .fetch_one(&self.pool)
                .await?;
        Ok(count.0)
    }
}

impl Store {
    /// (decision, outcome) of every audit row, oldest first.
    pub async fn audit_decisions(&self) -> Result<Vec<(String, String)>> {
        Ok(
            sqlx::query_as("SELECT decision, outcome FROM agent_audit_log ORDER BY id")
                .fetch_all(&self.pool)
                .await?,
        )
    }
}

pub(crate) async fn insert_audit(tx: &mut sqlx::SqliteConnection, rows: &[AuditRow]) -> Result<()> {
    let now = now_rfc3339();
    for row in rows {
        sqlx::query(
            "INSERT INTO agent_audit_log
               (session_id, agent_name, tool_call_id, tool, arguments, decision, outcome,
                duration_ms, error, created_at)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        )
        .bind(&row.session_id)
        .bind(&row.agent_name)
        .bind(&row.tool_call_id)
        .bind(&row.tool)
        .bind(row.arguments.to_string())
        .bind(&row.decision)
        .bind(&row.outcome)
        .bind(row.duration_ms)
        .bind(&row.error)
        .bind(&now)
        .execute(&mut *tx)
        .await?;
    }
    Ok(())
}
