use sqlx::{Row, SqliteConnection};

use crate::{Result, Store};

impl Store {
    /// The library status of the paper with any of these ids, if it is in the library.
    pub async fn paper_status(
        &self,
        bibcode: Option<&str>,
        arxiv_id: Option<&str>,
        doi: Option<&str>,
    ) -> Result<Option<String>> {
        if bibcode.is_none() && arxiv_id.is_none() && doi.is_none() {
            return Ok(None);
        }
        let row = sqlx::query(
            "SELECT status FROM papers
             WHERE (?1 IS NOT NULL AND bibcode = ?1) OR (?2 IS NOT NULL AND arxiv_id = ?2)
                OR (?3 IS NOT NULL AND lower(doi) = lower(?3))
             LIMIT 1",
        )
        .bind(bibcode)
        .bind(arxiv_id)
        .bind(doi)
        .fetch_optional(&self.pool)
        .await?;
        Ok(match row {
            Some(row) => Some(row.try_get("status")?),
            None => None,
        })
    }
}

/// The `metadata_source` of a record: the first service in its `sources` (`local` for
/// one read from the PDF); none for a record that came out of the library itself.
fn metadata_source(paper: &asterism_protocol::PaperRecord) -> Option<&str> {
    paper
        .sources
        .iter()
        .map(String::as_str)
        .find(|source| *source != "library")
}

/// A file of a paper, as `paper_files` records it.
#[derive(Debug, Clone, PartialEq)]
pub struct PaperFile {
    pub paper_id: String,
    pub kind: String,
    pub path: String,
    pub sha256: String,
    pub size_bytes: i64,
    pub source: String,
}

impl Store {
    /// Finds the paper with any of these ids, or creates it from the record; fills ids
    /// and metadata it lacked. Returns the paper id.
    pub async fn upsert_paper(&self, paper: &asterism_protocol::PaperRecord) -> Result<String> {
        let mut conn = self.pool.acquire().await?;
        upsert_paper_on(&mut conn, paper, None).await
    }

    /// [`Store::upsert_paper`], or into `into` when no paper has the record's ids.
    pub async fn upsert_paper_into(
        &self,
        paper: &asterism_protocol::PaperRecord,
        into: Option<&str>,
    ) -> Result<String> {
        let mut conn = self.pool.acquire().await?;
        upsert_paper_on(&mut conn, paper, into).await
    }

    /// Replaces a paper's metadata with a better record (an online one for a paper
    /// known only from its PDF): ids it lacked are added, every other field is the new
    /// record's. Fails when another paper already has one of the record's ids.
    pub async fn replace_paper_metadata(
        &self,
        paper_id: &str,
        paper: &asterism_protocol::PaperRecord,
    ) -> Result<()> {
        sqlx::query(
            "UPDATE papers SET bibcode = COALESCE(?, bibcode), arxiv_id = COALESCE(?, arxiv_id),
               doi = COALESCE(?, doi), title = ?, authors = ?, affiliations = ?,
               year = COALESCE(?, year), journal = ?, volume = ?, page = ?,
               abstract = COALESCE(?, abstract), keywords = ?,
               citation_count = COALESCE(?, citation_count), metadata_source = ?,
               status = CASE WHEN status = 'unidentified' THEN 'downloaded' ELSE status END,
               updated_at = ?
             WHERE id = ?",
        )
        .bind(&paper.bibcode)
        .bind(&paper.arxiv_id)
        .bind(&paper.doi)
        .bind(&paper.title)
        .bind(serde_json::to_string(&paper.authors)?)
        .bind(serde_json::to_string(&paper.affiliations)?)
        .bind(paper.year)
        .bind(&paper.journal)
        .bind(&paper.volume)
        .bind(&paper.page)
        .bind(&paper.abstract_text)
        .bind(serde_json::to_string(&paper.keywords)?)
        .bind(paper.citation_count)
        .bind(metadata_source(paper))
        .bind(crate::now_rfc3339())
        .bind(paper_id)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// Where a paper's metadata came from (`local`, `ads`, `arxiv`, `crossref`), if known.
    pub async fn paper_metadata_source(&self, paper_id: &str) -> Result<Option<String>> {
        Ok(
            sqlx::query_scalar("SELECT metadata_source FROM papers WHERE id = ?")
                .bind(paper_id)
                .fetch_optional(&self.pool)
                .await?
                .flatten(),
        )
    }

    /// The papers whose metadata was only read from their PDF, oldest first.
    pub async fn local_only_papers(&self) -> Result<Vec<String>> {
        Ok(sqlx::query_scalar(
            "SELECT id FROM papers WHERE metadata_source = 'local' ORDER BY added_at, id",
        )
        .fetch_all(&self.pool)
        .await?)
    }

    /// Records a stored file of a paper and marks the paper downloaded (unless parsed).
    pub async fn add_paper_file(
        &self,
        file: &PaperFile,
        original_name: Option<&str>,
    ) -> Result<()> {
        let mut tx = self.pool.begin().await?;
        sqlx::query(
            "INSERT INTO paper_files (paper_id, kind, path, original_name, sha256, size_bytes, source, added_at)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(sha256) DO NOTHING",
        )
        .bind(&file.paper_id)
        .bind(&file.kind)
        .bind(&file.path)
        .bind(original_name)
        .bind(&file.sha256)
        .bind(file.size_bytes)
        .bind(&file.source)
        .bind(crate::now_rfc3339())
        .execute(&mut *tx)
        .await?;
        sqlx::query("UPDATE papers SET status = 'downloaded', updated_at = ? WHERE id = ? AND status IN ('metadata', 'no-pdf')")
            .bind(crate::now_rfc3339())
            .bind(&file.paper_id)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(())
    }

    /// The PDF of a paper, if one is stored.
    pub async fn paper_pdf(&self, paper_id: &str) -> Result<Option<PaperFile>> {
        let row = sqlx::query("SELECT paper_id, kind, path, sha256, size_bytes, source FROM paper_files WHERE paper_id = ? AND kind = 'pdf' ORDER BY id LIMIT 1")
            .bind(paper_id)
            .fetch_optional(&self.pool)
            .await?;
        let Some(row) = row else { return Ok(None) };
        Ok(Some(PaperFile {
            paper_id: row.try_get("paper_id")?,
            kind: row.try_get("kind")?,
            path: row.try_get("path")?,
            sha256: row.try_get("sha256")?,
            size_bytes: row.try_get("size_bytes")?,
            source: row.try_get("source")?,
        }))
    }
}

impl Store {
    /// Sets a paper's library status (`metadata`, `downloaded`, `parsed`, `unidentified`).
    pub async fn set_paper_status(&self, paper_id: &str, status: &str) -> Result<()> {
        let mut conn = self.pool.acquire().await?;
        set_status_on(&mut conn, paper_id, status).await
    }
}

/// A paper's parsed text, as `paper_texts` stores it.
#[derive(Debug, Clone, PartialEq)]
pub struct PaperText {
    pub paper_id: String,
    /// `arxiv-html`, `pdf` or `html`.
    pub source: String,
    /// `latexml`, `pdfium` or `pdf-extract`.
    pub engine: String,
    pub markdown: String,
    pub pages: Option<i64>,
    /// JSON list of sections.
    pub sections: String,
    pub parsed_at: String,
}

impl Store {
    /// The id of the library paper with any of these ids.
    pub async fn find_paper(
        &self,
        bibcode: Option<&str>,
        arxiv_id: Option<&str>,
        doi: Option<&str>,
    ) -> Result<Option<String>> {
        let mut conn = self.pool.acquire().await?;
        find_paper_on(&mut conn, bibcode, arxiv_id, doi).await
    }

    /// A library paper as a record (its ids, metadata and local status).
    pub async fn paper_record(
        &self,
        paper_id: &str,
    ) -> Result<Option<asterism_protocol::PaperRecord>> {
        let row = sqlx::query(
            "SELECT p.*, EXISTS(SELECT 1 FROM paper_files f WHERE f.paper_id = p.id AND f.kind = 'pdf') AS has_pdf,
                    EXISTS(SELECT 1 FROM paper_texts t WHERE t.paper_id = p.id) AS has_text
             FROM papers p WHERE p.id = ?",
        )
        .bind(paper_id)
        .fetch_optional(&self.pool)
        .await?;
        let Some(row) = row else { return Ok(None) };
        let authors: String = row.try_get("authors")?;
        let keywords: String = row.try_get("keywords")?;
        let affiliations: String = row.try_get("affiliations")?;
        let mut sources = vec!["library".to_string()];
        sources.extend(row.try_get::<Option<String>, _>("metadata_source")?);
        Ok(Some(asterism_protocol::PaperRecord {
            bibcode: row.try_get("bibcode")?,
            arxiv_id: row.try_get("arxiv_id")?,
            doi: row.try_get("doi")?,
            title: row.try_get("title")?,
            authors: serde_json::from_str(&authors)?,
            year: row.try_get("year")?,
            journal: row.try_get("journal")?,
            volume: row.try_get("volume")?,
            page: row.try_get("page")?,
            abstract_text: row.try_get("abstract")?,
            keywords: serde_json::from_str(&keywords)?,
            citation_count: row.try_get("citation_count")?,
            affiliations: serde_json::from_str(&affiliations)?,
            sources,
            local: asterism_protocol::LocalStatus {
                in_library: true,
                downloaded: row.try_get("has_pdf")?,
                parsed: row.try_get("has_text")?,
            },
            ..Default::default()
        }))
    }

    /// Stores (or replaces) a paper's parsed text and marks the paper parsed.
    pub async fn save_paper_text(&self, text: &PaperText) -> Result<()> {
        let mut tx = self.pool.begin().await?;
        save_paper_text_on(&mut tx, text).await?;
        set_status_on(&mut tx, &text.paper_id, "parsed").await?;
        tx.commit().await?;
        Ok(())
    }

    /// A paper's parsed text, if it was parsed.
    pub async fn paper_text(&self, paper_id: &str) -> Result<Option<PaperText>> {
        let row = sqlx::query("SELECT * FROM paper_texts WHERE paper_id = ?")
            .bind(paper_id)
            .fetch_optional(&self.pool)
            .await?;
        let Some(row) = row else { return Ok(None) };
        Ok(Some(PaperText {
            paper_id: row.try_get("paper_id")?,
            source: row.try_get("source")?,
            engine: row.try_get("engine")?,
            markdown: row.try_get("markdown")?,
            pages: row.try_get("pages")?,
            sections: row.try_get("sections")?,
            parsed_at: row.try_get("parsed_at")?,
        }))
    }
}

/// Whether a record is a paper's published version: a journal bibcode from ADS, or a
/// DOI with a journal that is not arXiv (arXiv's own record carries the journal
/// reference and DOI once the paper is published).
pub fn is_published(paper: &asterism_protocol::PaperRecord) -> bool {
    let journal_bibcode = paper
        .bibcode
        .as_deref()
        .is_some_and(|bibcode| !bibcode.contains("arXiv"));
    let journal = paper
        .journal
        .as_deref()
        .is_some_and(|journal| !journal.trim().is_empty() && !journal.starts_with("arXiv"));
    journal_bibcode || (paper.doi.is_some() && journal)
}

/// [`Store::upsert_paper`] on one connection (or inside a transaction).
pub(crate) async fn upsert_paper_on(
    conn: &mut SqliteConnection,
    paper: &asterism_protocol::PaperRecord,
    into: Option<&str>,
) -> Result<String> {
    let now = crate::now_rfc3339();
    let existing = find_paper_on(
        &mut *conn,
        paper.bibcode.as_deref(),
        paper.arxiv_id.as_deref(),
        paper.doi.as_deref(),
    )
    .await?;
    // `into`: the paper the caller already knows this record is (e.g. by citation key).
    let existing = existing.or_else(|| into.map(String::from));
    // The published version of a stored preprint brings its reference: bibcode, DOI,
    // journal, volume, page and year replace the preprint's (one entry, two versions).
    let promote = match &existing {
        Some(id) => is_published(paper) && !stored_is_published(&mut *conn, id).await?,
        None => false,
    };
    let id = existing.unwrap_or_else(|| uuid::Uuid::new_v4().to_string());
    sqlx::query(
        "INSERT INTO papers (id, bibcode, arxiv_id, doi, title, authors, year, journal, abstract, keywords, citation_count, status, added_at, updated_at, volume, page, affiliations, metadata_source)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'metadata', ?, ?, ?, ?, ?, ?)
         ON CONFLICT(id) DO UPDATE SET
           bibcode = CASE WHEN ?18 THEN COALESCE(excluded.bibcode, papers.bibcode) ELSE COALESCE(papers.bibcode, excluded.bibcode) END,
           arxiv_id = COALESCE(papers.arxiv_id, excluded.arxiv_id),
           doi = CASE WHEN ?18 THEN COALESCE(excluded.doi, papers.doi) ELSE COALESCE(papers.doi, excluded.doi) END,
           title = CASE WHEN papers.title = '' THEN excluded.title ELSE papers.title END,
           authors = CASE WHEN papers.authors = '[]' THEN excluded.authors ELSE papers.authors END,
           year = CASE WHEN ?18 THEN COALESCE(excluded.year, papers.year) ELSE COALESCE(papers.year, excluded.year) END,
           journal = CASE WHEN ?18 THEN COALESCE(excluded.journal, papers.journal) ELSE COALESCE(papers.journal, excluded.journal) END,
           abstract = COALESCE(papers.abstract, excluded.abstract),
           citation_count = COALESCE(excluded.citation_count, papers.citation_count),
           volume = CASE WHEN ?18 THEN COALESCE(excluded.volume, papers.volume) ELSE COALESCE(papers.volume, excluded.volume) END,
           page = CASE WHEN ?18 THEN COALESCE(excluded.page, papers.page) ELSE COALESCE(papers.page, excluded.page) END,
           affiliations = CASE WHEN papers.affiliations = '[]' THEN excluded.affiliations ELSE papers.affiliations END,
           metadata_source = COALESCE(papers.metadata_source, excluded.metadata_source),
           updated_at = excluded.updated_at",
    )
    .bind(&id)
    .bind(&paper.bibcode)
    .bind(&paper.arxiv_id)
    .bind(&paper.doi)
    .bind(&paper.title)
    .bind(serde_json::to_string(&paper.authors)?)
    .bind(paper.year)
    .bind(&paper.journal)
    .bind(&paper.abstract_text)
    .bind(serde_json::to_string(&paper.keywords)?)
    .bind(paper.citation_count)
    .bind(&now)
    .bind(&now)
    .bind(&paper.volume)
    .bind(&paper.page)
    .bind(serde_json::to_string(&paper.affiliations)?)
    .bind(metadata_source(paper))
    .bind(promote)
    .execute(&mut *conn)
    .await?;
    Ok(id)
}

/// The id of the paper with any of these ids, on one connection.
async fn find_paper_on(
    conn: &mut SqliteConnection,
    bibcode: Option<&str>,
    arxiv_id: Option<&str>,
    doi: Option<&str>,
) -> Result<Option<String>> {
    if bibcode.is_none() && arxiv_id.is_none() && doi.is_none() {
        return Ok(None);
    }
    Ok(sqlx::query_scalar(
        "SELECT id FROM papers
         WHERE (?1 IS NOT NULL AND bibcode = ?1) OR (?2 IS NOT NULL AND arxiv_id = ?2)
            OR (?3 IS NOT NULL AND lower(doi) = lower(?3))
         LIMIT 1",
    )
    .bind(bibcode)
    .bind(arxiv_id)
    .bind(doi)
    .fetch_optional(conn)
    .await?)
}

/// Whether the stored paper is the published version (see [`is_published`]).
async fn stored_is_published(conn: &mut SqliteConnection, paper_id: &str) -> Result<bool> {
    let row = sqlx::query("SELECT bibcode, doi, journal FROM papers WHERE id = ?")
        .bind(paper_id)
        .fetch_optional(conn)
        .await?;
    let Some(row) = row else { return Ok(false) };
    Ok(is_published(&asterism_protocol::PaperRecord {
        bibcode: row.try_get("bibcode")?,
        doi: row.try_get("doi")?,
        journal: row.try_get("journal")?,
        ..Default::default()
    }))
}

/// Stores (or replaces) a paper's parsed text, on one connection.
pub(crate) async fn save_paper_text_on(
    conn: &mut SqliteConnection,
    text: &PaperText,
) -> Result<()> {
    sqlx::query(
        "INSERT INTO paper_texts (paper_id, source, engine, markdown, pages, sections, parsed_at)
         VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT(paper_id) DO UPDATE SET source = excluded.source, engine = excluded.engine,
           markdown = excluded.markdown, pages = excluded.pages, sections = excluded.sections,
           parsed_at = excluded.parsed_at",
    )
    .bind(&text.paper_id)
    .bind(&text.source)
    .bind(&text.engine)
    .bind(&text.markdown)
    .bind(text.pages)
    .bind(&text.sections)
    .bind(&text.parsed_at)
    .execute(conn)
    .await?;
    Ok(())
}

/// Sets a paper's library status, on one connection.
pub(crate) async fn set_status_on(
    conn: &mut SqliteConnection,
    paper_id: &str,
    status: &str,
) -> Result<()> {
    sqlx::query("UPDATE papers SET status = ?, updated_at = ? WHERE id = ?")
        .bind(status)
        .bind(crate::now_rfc3339())
        .bind(paper_id)
        .execute(conn)
        .await?;
    Ok(())
}
