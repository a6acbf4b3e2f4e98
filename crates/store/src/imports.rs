//! Imports in flight. A paper and the file it is imported from are written together,
//! the file marked pending (the paper `incomplete`); its text, its passages and the end
//! of the mark are committed together. Whatever stops an import (Ctrl-C, a crash, a
//! power cut) leaves either nothing or a paper that says it is incomplete and that the
//! next import, `library index` or app start finishes: never a paper listed as parsed
//! with no passages.

use asterism_protocol::PaperRecord;
use sqlx::Row;

use crate::library::{NewChunk, replace_chunks_on};
use crate::papers::{PaperFile, PaperText, save_paper_text_on, set_status_on, upsert_paper_on};
use crate::{Result, Store, StoredFigure};

/// A stored file and whether its paper's passages are still to be committed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingFile {
    pub paper_id: String,
    /// The copy in the library's `papers/` folder.
    pub path: String,
    pub sha256: String,
    /// The name of the file it was imported from.
    pub original_name: Option<String>,
    /// True until the paper's passages are committed.
    pub pending: bool,
}

fn pending_file(row: &sqlx::sqlite::SqliteRow) -> Result<PendingFile> {
    Ok(PendingFile {
        paper_id: row.try_get("paper_id")?,
        path: row.try_get("path")?,
        sha256: row.try_get("sha256")?,
        original_name: row.try_get("original_name")?,
        pending: row.try_get::<i64, _>("pending")? != 0,
    })
}

impl Store {
    /// Writes the paper (found by its ids, else `into` when given, else new) and its file
    /// in one transaction and
    /// returns the paper id. `file_at(paper_id)` names the stored copy. With
    /// `needs_text`, the file is pending and the paper `incomplete` until
    /// [`Store::commit_import`]; without (another file of a paper already parsed), the
    /// file is simply added.
    pub async fn begin_import(
        &self,
        paper: &PaperRecord,
        into: Option<&str>,
        file_at: &(dyn Fn(&str) -> PaperFile + Send + Sync),
        original_name: Option<&str>,
        needs_text: bool,
    ) -> Result<String> {
        let mut tx = self.pool.begin().await?;
        let paper_id = upsert_paper_on(&mut tx, paper, into).await?;
        let file = file_at(&paper_id);
        sqlx::query(
            "INSERT INTO paper_files (paper_id, kind, path, original_name, sha256, size_bytes, source, added_at, pending)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(sha256) DO NOTHING",
        )
        .bind(&paper_id)
        .bind(&file.kind)
        .bind(&file.path)
        .bind(original_name)
        .bind(&file.sha256)
        .bind(file.size_bytes)
        .bind(&file.source)
        .bind(crate::now_rfc3339())
        .bind(needs_text)
        .execute(&mut *tx)
        .await?;
        let status = if needs_text {
            "incomplete"
        } else {
            "downloaded"
        };
        sqlx::query(
            "UPDATE papers SET status = ?, updated_at = ? WHERE id = ? AND (?4 OR status IN ('metadata', 'no-pdf'))",
        )
        .bind(status)
        .bind(crate::now_rfc3339())
        .bind(&paper_id)
        .bind(needs_text)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(paper_id)
    }

    /// Commits a paper's text and passages, ends the pending mark of its files and sets
    /// its status, all at once. `text: None`: nothing can be searched (an encrypted or
    /// scanned PDF); the import is still over. `figures`, when given, replace the
    /// paper's figure and table regions. Returns the passage count.
    pub async fn commit_import(
        &self,
        paper_id: &str,
        text: Option<(&PaperText, &[NewChunk])>,
        figures: Option<&[StoredFigure]>,
        status: &str,
    ) -> Result<usize> {
        let mut tx = self.pool.begin().await?;
        let mut count = 0;
        if let Some((text, chunks)) = text {
            save_paper_text_on(&mut tx, text).await?;
            count = replace_chunks_on(&mut tx, paper_id, chunks).await?;
        }
        if let Some(figures) = figures {
            crate::figures::replace_figures_on(&mut tx, paper_id, figures).await?;
        }
        sqlx::query("UPDATE paper_files SET pending = 0 WHERE paper_id = ? AND pending = 1")
            .bind(paper_id)
            .execute(&mut *tx)
            .await?;
        set_status_on(&mut tx, paper_id, status).await?;
        tx.commit().await?;
        Ok(count)
    }

    /// The stored file with this content hash, if any.
    pub async fn stored_file(&self, sha256: &str) -> Result<Option<PendingFile>> {
        let row = sqlx::query(
            "SELECT paper_id, path, sha256, original_name, pending FROM paper_files WHERE sha256 = ?",
        )
        .bind(sha256)
        .fetch_optional(&self.pool)
        .await?;
        row.as_ref().map(pending_file).transpose()
    }

    /// Every file whose import was interrupted, oldest first.
    pub async fn pending_files(&self) -> Result<Vec<PendingFile>> {
        let rows = sqlx::query(
            "SELECT paper_id, path, sha256, original_name, pending FROM paper_files
             WHERE pending = 1 ORDER BY id",
        )
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(pending_file).collect()
    }
}

impl Store {
    /// `PRAGMA integrity_check`: `ok`, or what SQLite found damaged.
    pub async fn integrity_check(&self) -> Result<String> {
        let rows: Vec<String> = sqlx::query_scalar("PRAGMA integrity_check")
            .fetch_all(&self.pool)
            .await?;
        Ok(rows.join("; "))
    }
}

impl Store {
    /// Records a paper's entry in the library it came from: its citation key and, for
    /// BibTeX, the entry itself. A paper listed without a file becomes `no-pdf` (listed,
    /// unlike a paper only seen in a search).
    pub async fn set_foreign_entry(
        &self,
        paper_id: &str,
        citekey: &str,
        entry: Option<&str>,
    ) -> Result<()> {
        sqlx::query(
            "UPDATE papers SET citekey = COALESCE(NULLIF(?, ''), citekey),
               source_entry = COALESCE(?, source_entry),
               status = CASE WHEN status = 'metadata' THEN 'no-pdf' ELSE status END
             WHERE id = ?",
        )
        .bind(citekey)
        .bind(entry)
        .bind(paper_id)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// The paper imported under this citation key, if any.
    pub async fn paper_by_citekey(&self, citekey: &str) -> Result<Option<String>> {
        Ok(
            sqlx::query_scalar("SELECT id FROM papers WHERE citekey = ? ORDER BY added_at LIMIT 1")
                .bind(citekey)
                .fetch_optional(&self.pool)
                .await?,
        )
    }

    /// The paper that came from `origin` (a Zotero item, `zotero:<library>/<key>`).
    pub async fn paper_by_origin(&self, origin: &str) -> Result<Option<String>> {
        Ok(sqlx::query_scalar(
            "SELECT o.paper_id FROM paper_origins o JOIN papers p ON p.id = o.paper_id
             WHERE o.origin = ?",
        )
        .bind(origin)
        .fetch_optional(&self.pool)
        .await?)
    }

    /// Records that `paper_id` came from `origin`.
    pub async fn set_origin(&self, origin: &str, paper_id: &str) -> Result<()> {
        sqlx::query("INSERT OR REPLACE INTO paper_origins (origin, paper_id) VALUES (?, ?)")
            .bind(origin)
            .bind(paper_id)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// A paper's citation key and BibTeX entry from the library it came from.
    pub async fn foreign_entry(&self, paper_id: &str) -> Result<(Option<String>, Option<String>)> {
        let row = sqlx::query("SELECT citekey, source_entry FROM papers WHERE id = ?")
            .bind(paper_id)
            .fetch_optional(&self.pool)
            .await?;
        match row {
            Some(row) => Ok((row.try_get("citekey")?, row.try_get("source_entry")?)),
            None => Ok((None, None)),
        }
    }
}

impl Store {
    /// Records why a paper is not identified (`None`: it is, or the question is moot).
    pub async fn set_identify_note(&self, paper_id: &str, note: Option<&str>) -> Result<()> {
        sqlx::query("UPDATE papers SET identify_note = ? WHERE id = ?")
            .bind(note)
            .bind(paper_id)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Why the paper is not identified, as the last attempt found.
    pub async fn identify_note(&self, paper_id: &str) -> Result<Option<String>> {
        Ok(
            sqlx::query_scalar("SELECT identify_note FROM papers WHERE id = ?")
                .bind(paper_id)
                .fetch_optional(&self.pool)
                .await?
                .flatten(),
        )
    }
}

impl Store {
    /// Records the fingerprint of a paper's text (see `library::fingerprint`).
    pub async fn set_text_fingerprint(&self, paper_id: &str, fingerprint: u64) -> Result<()> {
        sqlx::query("UPDATE papers SET text_fingerprint = ? WHERE id = ?")
            .bind(i64::from_ne_bytes(fingerprint.to_ne_bytes()))
            .bind(paper_id)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// The paper whose text fingerprint differs from `fingerprint` in at most
    /// `max_bits` bits (the closest), if any.
    pub async fn paper_with_fingerprint(
        &self,
        fingerprint: u64,
        max_bits: u32,
    ) -> Result<Option<String>> {
        let rows: Vec<(String, i64)> = sqlx::query_as(
            "SELECT id, text_fingerprint FROM papers WHERE text_fingerprint IS NOT NULL",
        )
        .fetch_all(&self.pool)
        .await?;
        Ok(rows
            .into_iter()
            .map(|(id, stored)| {
                let stored = u64::from_ne_bytes(stored.to_ne_bytes());
                ((stored ^ fingerprint).count_ones(), id)
            })
            .filter(|(bits, _)| *bits <= max_bits)
            .min()
            .map(|(_, id)| id))
    }
}
