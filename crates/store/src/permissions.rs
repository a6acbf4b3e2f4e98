use sqlx::Row;

use crate::{Result, Store, now_rfc3339};

impl Store {
    /// Stores a rule the user granted for good (idempotent).
    pub async fn add_permission_rule(&self, rule: &str, decision: &str) -> Result<()> {
        sqlx::query(
            "INSERT OR IGNORE INTO permission_rules (rule, decision, created_at) VALUES (?, ?, ?)",
        )
        .bind(rule)
        .bind(decision)
        .bind(now_rfc3339())
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// The stored rules as (rule, decision), oldest first.
    pub async fn permission_rules(&self) -> Result<Vec<(String, String)>> {
        let rows = sqlx::query("SELECT rule, decision FROM permission_rules ORDER BY id")
            .fetch_all(&self.pool)
            .await?;
        rows.iter()
            .map(|row| Ok((row.try_get("rule")?, row.try_get("decision")?)))
            .collect()
    }
}

impl Store {
    /// Removes a stored rule; returns whether one was removed.
    pub async fn remove_permission_rule(&self, rule: &str) -> Result<bool> {
        let done = sqlx::query("DELETE FROM permission_rules WHERE rule = ?")
            .bind(rule)
            .execute(&self.pool)
            .await?;
        Ok(done.rows_affected() > 0)
    }
}
