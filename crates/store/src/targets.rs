use asterism_protocol::ResolvedTarget;
use sqlx::Row;

use crate::{Result, Store, now_rfc3339};

/// A cached Sesame answer and when it was fetched.
#[derive(Debug, Clone, PartialEq)]
pub struct CachedTarget {
    pub target: ResolvedTarget,
    pub fetched_at: String,
}

impl Store {
    /// The cached answer for a normalised query name, if any.
    pub async fn cached_target(&self, query_key: &str) -> Result<Option<CachedTarget>> {
        let row = sqlx::query("SELECT resolved, fetched_at FROM targets WHERE query_key = ?")
            .bind(query_key)
            .fetch_optional(&self.pool)
            .await?;
        let Some(row) = row else { return Ok(None) };
        let resolved: String = row.try_get("resolved")?;
        Ok(Some(CachedTarget {
            target: serde_json::from_str(&resolved)?,
            fetched_at: row.try_get("fetched_at")?,
        }))
    }

    /// Stores (or refreshes) a resolved target under its normalised query name.
    pub async fn cache_target(&self, query_key: &str, target: &ResolvedTarget) -> Result<()> {
        sqlx::query(
            "INSERT INTO targets (query_key, query, resolved, fetched_at) VALUES (?, ?, ?, ?)
             ON CONFLICT(query_key) DO UPDATE SET query = excluded.query,
               resolved = excluded.resolved, fetched_at = excluded.fetched_at",
        )
        .bind(query_key)
        .bind(&target.query)
        .bind(serde_json::to_string(target)?)
        .bind(now_rfc3339())
        .execute(&self.pool)
        .await?;
        Ok(())
    }
}
