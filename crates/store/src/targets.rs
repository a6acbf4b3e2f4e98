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

/// A cached ADS answer for one paper's links.
#[derive(Debug, Clone, PartialEq)]
pub struct CachedLinks {
    /// How many papers were asked for (a longer list needs asking again).
    pub asked: u32,
    pub num_found: u32,
    /// `PaperRecord[]` as JSON.
    pub papers: String,
    pub fetched_at: String,
}

impl Store {
    /// The cached answer for `bibcode`'s `link` (citations, references, similar).
    pub async fn cached_links(&self, bibcode: &str, link: &str) -> Result<Option<CachedLinks>> {
        let row = sqlx::query(
            "SELECT asked, num_found, papers, fetched_at FROM ads_link_cache WHERE bibcode = ? AND link = ?",
        )
        .bind(bibcode)
        .bind(link)
        .fetch_optional(&self.pool)
        .await?;
        let Some(row) = row else { return Ok(None) };
        Ok(Some(CachedLinks {
            asked: row.try_get::<i64, _>("asked")?.try_into().unwrap_or(0),
            num_found: row.try_get::<i64, _>("num_found")?.try_into().unwrap_or(0),
            papers: row.try_get("papers")?,
            fetched_at: row.try_get("fetched_at")?,
        }))
    }

    /// Keeps (or replaces) ADS's answer for `bibcode`'s `link`.
    pub async fn cache_links(&self, bibcode: &str, link: &str, cached: &CachedLinks) -> Result<()> {
        sqlx::query(
            "INSERT INTO ads_link_cache (bibcode, link, asked, num_found, papers, fetched_at)
             VALUES (?, ?, ?, ?, ?, ?)
             ON CONFLICT(bibcode, link) DO UPDATE SET asked = excluded.asked,
               num_found = excluded.num_found, papers = excluded.papers, fetched_at = excluded.fetched_at",
        )
        .bind(bibcode)
        .bind(link)
        .bind(i64::from(cached.asked))
        .bind(i64::from(cached.num_found))
        .bind(&cached.papers)
        .bind(&cached.fetched_at)
        .execute(&self.pool)
        .await?;
        Ok(())
    }
}
