//! What the library is about, in one read: each paper's title, authors, keywords and
//! abstract (or, without one, the start of its text), newest first. News ranking and
//! "missing papers" read this instead of every paper's full record.

use sqlx::Row;

use crate::library::json_list;
use crate::{Result, Store};

/// How much of a paper's first passages stands in for a missing abstract.
const FRONT_CHARS: i64 = 3000;

/// One paper of the library as a reader of its topic sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct ProfilePaper {
    pub id: String,
    pub title: String,
    pub authors: Vec<String>,
    pub keywords: Vec<String>,
    /// The abstract, else the start of the paper's text (empty for a paper with neither).
    pub summary: String,
    pub bibcode: Option<String>,
    pub arxiv_id: Option<String>,
    pub added_at: String,
}

impl Store {
    /// Every paper of the library (entries without a file included), newest first.
    pub async fn profile_papers(&self) -> Result<Vec<ProfilePaper>> {
        let rows = sqlx::query(
            "SELECT p.id, p.title, p.authors, p.keywords, p.bibcode, p.arxiv_id, p.added_at,
                    COALESCE(NULLIF(p.abstract, ''),
                             (SELECT substr(group_concat(text, ' '), 1, ?1)
                              FROM (SELECT text FROM chunks c WHERE c.paper_id = p.id
                                    ORDER BY ordinal LIMIT 3)),
                             '') AS summary
             FROM papers p
             WHERE p.status != 'metadata'
             ORDER BY p.added_at DESC, p.id",
        )
        .bind(FRONT_CHARS)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|row| {
                Ok(ProfilePaper {
                    id: row.try_get("id")?,
                    title: row.try_get("title")?,
                    authors: json_list(row, "authors")?,
                    keywords: json_list(row, "keywords")?,
                    summary: row.try_get("summary")?,
                    bibcode: row.try_get("bibcode")?,
                    arxiv_id: row.try_get("arxiv_id")?,
                    added_at: row.try_get("added_at")?,
                })
            })
            .collect()
    }
}
