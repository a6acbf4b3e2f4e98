//! ADS libraries pulled into collections: what each pull saw, and one transaction that
//! applies a pull (the collection is as it was, or complete; never half-renamed).

use sqlx::{Row, SqliteConnection};

use crate::papers::upsert_paper_on;
use crate::{Result, Store};

/// What the last pull of an ADS library saw.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AdsPull {
    pub library_id: String,
    pub collection: String,
    pub date_last_modified: String,
    pub bibcodes: Vec<String>,
    pub pulled_at: String,
}

/// A pull to apply: the collection named after the library, the records of papers the
/// library lacked, and the library's bibcodes now.
#[derive(Debug, Clone, Copy)]
pub struct AdsPullPlan<'a> {
    pub library_id: &'a str,
    /// The collection's name now (the ADS library's).
    pub collection: &'a str,
    /// The name it had at the last pull, when that differs (the ADS library was renamed).
    pub renamed_from: Option<&'a str>,
    pub records: &'a [asterism_protocol::PaperRecord],
    /// `(old, new)` bibcodes ADS replaced by their canonical ones.
    pub replaced: &'a [(String, String)],
    pub bibcodes: &'a [String],
    /// Bibcodes that left the ADS library since the last pull.
    pub left: &'a [String],
    pub date_last_modified: &'a str,
}

/// What applying a pull changed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AdsPullApplied {
    /// Papers new to the library (listed without a PDF until one is downloaded).
    pub created: u32,
    /// Papers put in the collection.
    pub joined: u32,
    /// Papers taken out of the collection (still in the library).
    pub left: u32,
    /// Papers whose bibcode became ADS's canonical one.
    pub rebibcoded: u32,
    pub renamed: bool,
}

impl Store {
    /// The last pull of this ADS library, if any.
    pub async fn ads_pull(&self, library_id: &str) -> Result<Option<AdsPull>> {
        let row = sqlx::query("SELECT * FROM ads_pulls WHERE library_id = ?")
            .bind(library_id)
            .fetch_optional(&self.pool)
            .await?;
        row.map(|row| {
            let bibcodes: String = row.try_get("bibcodes")?;
            Ok(AdsPull {
                library_id: row.try_get("library_id")?,
                collection: row.try_get("collection")?,
                date_last_modified: row.try_get("date_last_modified")?,
                bibcodes: serde_json::from_str(&bibcodes).unwrap_or_default(),
                pulled_at: row.try_get("pulled_at")?,
            })
        })
        .transpose()
    }

    /// Applies a pull in one transaction.
    pub async fn apply_ads_pull(&self, plan: &AdsPullPlan<'_>) -> Result<AdsPullApplied> {
        let mut tx = self.pool.begin().await?;
        let mut applied = AdsPullApplied {
            renamed: rename_collection(&mut tx, plan).await?,
            ..Default::default()
        };
        let collection = collection_id(&mut tx, plan.collection).await?;
        for (old, new) in plan.replaced {
            applied.rebibcoded += sqlx::query(
                "UPDATE papers SET bibcode = ?2 WHERE bibcode = ?1
                 AND NOT EXISTS (SELECT 1 FROM papers WHERE bibcode = ?2)",
            )
            .bind(old)
            .bind(new)
            .execute(&mut *tx)
            .await?
            .rows_affected() as u32;
        }
        for record in plan.records {
            upsert_paper_on(&mut tx, record, None).await?;
        }
        for bibcode in plan.bibcodes {
            // A record known only from a search joins the library, listed without a PDF.
            applied.created += sqlx::query(
                "UPDATE papers SET status = 'no-pdf' WHERE bibcode = ? AND status = 'metadata'",
            )
            .bind(bibcode)
            .execute(&mut *tx)
            .await?
            .rows_affected() as u32;
            applied.joined += sqlx::query(
                "INSERT OR IGNORE INTO paper_collections (paper_id, collection_id)
                 SELECT id, ? FROM papers WHERE bibcode = ?",
            )
            .bind(collection)
            .bind(bibcode)
            .execute(&mut *tx)
            .await?
            .rows_affected() as u32;
        }
        for bibcode in plan.left {
            applied.left += sqlx::query(
                "DELETE FROM paper_collections WHERE collection_id = ?
                 AND paper_id IN (SELECT id FROM papers WHERE bibcode = ?)",
            )
            .bind(collection)
            .bind(bibcode)
            .execute(&mut *tx)
            .await?
            .rows_affected() as u32;
        }
        sqlx::query(
            "INSERT INTO ads_pulls (library_id, collection, date_last_modified, bibcodes, pulled_at)
             VALUES (?, ?, ?, ?, ?)
             ON CONFLICT(library_id) DO UPDATE SET collection = excluded.collection,
               date_last_modified = excluded.date_last_modified,
               bibcodes = excluded.bibcodes, pulled_at = excluded.pulled_at",
        )
        .bind(plan.library_id)
        .bind(plan.collection)
        .bind(plan.date_last_modified)
        .bind(serde_json::to_string(plan.bibcodes)?)
        .bind(crate::now_rfc3339())
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(applied)
    }

    /// The bibcodes of a collection's papers, and the ids and titles of those without one.
    pub async fn collection_bibcodes(
        &self,
        collection: &str,
    ) -> Result<(Vec<String>, Vec<(String, String)>)> {
        let rows = sqlx::query(
            "SELECT p.id, p.title, p.bibcode FROM papers p
             JOIN paper_collections pc ON pc.paper_id = p.id
             JOIN collections c ON c.id = pc.collection_id
             WHERE c.name = ? ORDER BY p.added_at, p.id",
        )
        .bind(collection)
        .fetch_all(&self.pool)
        .await?;
        let (mut with, mut without) = (Vec::new(), Vec::new());
        for row in rows {
            match row.try_get::<Option<String>, _>("bibcode")? {
                Some(bibcode) if !bibcode.trim().is_empty() => with.push(bibcode),
                _ => without.push((row.try_get("id")?, row.try_get("title")?)),
            }
        }
        Ok((with, without))
    }

    /// Whether a collection of this name exists (names compare without case).
    pub async fn collection_exists(&self, name: &str) -> Result<bool> {
        Ok(
            sqlx::query_scalar::<_, i64>("SELECT COUNT(*) FROM collections WHERE name = ?")
                .bind(name)
                .fetch_one(&self.pool)
                .await?
                > 0,
        )
    }
}

/// Renames the collection of the last pull to the library's new name, when it has one
/// and no other collection has that name. Whether it renamed.
async fn rename_collection(conn: &mut SqliteConnection, plan: &AdsPullPlan<'_>) -> Result<bool> {
    let Some(old) = plan.renamed_from else {
        return Ok(false);
    };
    let done = sqlx::query(
        "UPDATE collections SET name = ?2 WHERE name = ?1
         AND NOT EXISTS (SELECT 1 FROM collections WHERE name = ?2)",
    )
    .bind(old)
    .bind(plan.collection)
    .execute(conn)
    .await?;
    Ok(done.rows_affected() > 0)
}

/// The id of the collection `name`, created if new.
async fn collection_id(conn: &mut SqliteConnection, name: &str) -> Result<i64> {
    sqlx::query(
        "INSERT INTO collections (name, created_at) VALUES (?, ?) ON CONFLICT(name) DO NOTHING",
    )
    .bind(name)
    .bind(crate::now_rfc3339())
    .execute(&mut *conn)
    .await?;
    Ok(
        sqlx::query_scalar("SELECT id FROM collections WHERE name = ?")
            .bind(name)
            .fetch_one(conn)
            .await?,
    )
}
