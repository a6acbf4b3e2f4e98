//! Which astronomical objects each paper is about (`paper_objects`), with the cached
//! Sesame answer for each (`targets`), for the object-centric library.

use asterism_protocol::ResolvedTarget;
use sqlx::Row;

use crate::{Result, Store};

/// An object name found in a paper.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObjectLink {
    /// The Sesame cache key of the name (`targets.query_key`).
    pub query_key: String,
    pub name: String,
    /// `keyword`, `title` or `abstract`.
    pub source: String,
}

/// One linked object: a paper, the name as found, and its coordinates when resolved.
#[derive(Debug, Clone, PartialEq)]
pub struct LinkedObject {
    pub paper_id: String,
    pub query_key: String,
    pub name: String,
    pub source: String,
    /// The cached Sesame answer; `None` until the name is resolved.
    pub target: Option<ResolvedTarget>,
}

impl Store {
    /// Replaces the objects linked to `paper_id`.
    pub async fn link_objects(&self, paper_id: &str, links: &[ObjectLink]) -> Result<()> {
        let mut tx = self.pool.begin().await?;
        sqlx::query("DELETE FROM paper_objects WHERE paper_id = ?")
            .bind(paper_id)
            .execute(&mut *tx)
            .await?;
        for link in links {
            sqlx::query(
                "INSERT OR IGNORE INTO paper_objects (paper_id, query_key, name, source) VALUES (?, ?, ?, ?)",
            )
            .bind(paper_id)
            .bind(&link.query_key)
            .bind(&link.name)
            .bind(&link.source)
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// Every link of every paper (or of one), with the cached coordinates.
    pub async fn linked_objects(&self, paper_id: Option<&str>) -> Result<Vec<LinkedObject>> {
        let rows = sqlx::query(
            "SELECT o.paper_id, o.query_key, o.name, o.source, t.resolved
             FROM paper_objects o LEFT JOIN targets t ON t.query_key = o.query_key
             WHERE ?1 IS NULL OR o.paper_id = ?1
             ORDER BY o.query_key, o.paper_id",
        )
        .bind(paper_id)
        .fetch_all(&self.pool)
        .await?;
        rows.into_iter()
            .map(|row| {
                let resolved: Option<String> = row.try_get("resolved")?;
                Ok(LinkedObject {
                    paper_id: row.try_get("paper_id")?,
                    query_key: row.try_get("query_key")?,
                    name: row.try_get("name")?,
                    source: row.try_get("source")?,
                    target: resolved.and_then(|json| serde_json::from_str(&json).ok()),
                })
            })
            .collect()
    }
}
