//! The paper library: chunks with their FTS5 and vector index, collections, tags,
//! notes, and listing and deleting papers.

use sqlx::Row;
use sqlx::sqlite::SqliteRow;

use crate::{Result, Store};

/// Binds a [`PaperFilter`] as ?1…?5 of [`FILTER_SQL`].
macro_rules! bind_filter {
    ($query:expr, $filter:expr) => {
        $query
            .bind($filter.paper_id.as_deref())
            .bind($filter.collection.as_deref())
            .bind($filter.year_from)
            .bind($filter.year_to)
            .bind($filter.author.as_deref())
    };
}

/// A chunk to store: its text and where it is in the paper.
#[derive(Debug, Clone, PartialEq)]
pub struct NewChunk {
    /// The page the passage starts on.
    pub page: Option<i64>,
    /// The last page it reaches (the same as `page` unless it crosses a page break).
    pub page_end: Option<i64>,
    /// Where in `text` each later page starts.
    pub page_breaks: Vec<PageBreak>,
    pub section: Option<String>,
    pub text: String,
    /// Found by its words but never embedded: reference lists, acknowledgements, author
    /// lists and affiliations (stored with `embedded = 2`).
    pub keywords_only: bool,
}

/// A page break inside a passage: `page` starts at byte `offset` of its text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PageBreak {
    pub offset: usize,
    pub page: i64,
}

/// The page of the text at byte `offset` of a passage that starts on `first`.
pub fn page_at(first: Option<i64>, breaks: &[PageBreak], offset: usize) -> Option<i64> {
    breaks
        .iter()
        .take_while(|brk| brk.offset <= offset)
        .last()
        .map(|brk| brk.page)
        .or(first)
}

/// A stored chunk with what a search hit shows about its paper.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ChunkHit {
    pub chunk_id: i64,
    pub paper_id: String,
    pub title: String,
    pub authors: Vec<String>,
    pub year: Option<i64>,
    pub bibcode: Option<String>,
    pub arxiv_id: Option<String>,
    pub doi: Option<String>,
    /// The name of the file the paper was imported from, if any.
    pub original_name: Option<String>,
    /// The page the passage starts on.
    pub page: Option<i64>,
    /// The last page it reaches.
    pub page_end: Option<i64>,
    /// Where in `text` each later page starts (empty on one page).
    #[serde(skip)]
    pub page_breaks: Vec<PageBreak>,
    pub section: Option<String>,
    pub text: String,
}

/// Which papers a search or listing covers.
#[derive(Debug, Clone, Default, PartialEq, serde::Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct PaperFilter {
    pub paper_id: Option<String>,
    pub collection: Option<String>,
    #[specta(type = Option<f64>)]
    pub year_from: Option<i64>,
    #[specta(type = Option<f64>)]
    pub year_to: Option<i64>,
    /// A substring of any author's name (case-insensitive).
    pub author: Option<String>,
}

impl PaperFilter {
    pub fn is_empty(&self) -> bool {
        *self == Self::default()
    }
}

/// A paper as the library lists it.
#[derive(Debug, Clone, PartialEq, serde::Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct LibraryPaper {
    pub id: String,
    pub title: String,
    pub authors: Vec<String>,
    #[specta(type = Option<f64>)]
    pub year: Option<i64>,
    pub bibcode: Option<String>,
    pub arxiv_id: Option<String>,
    pub doi: Option<String>,
    /// `downloaded`, `parsed`, `unidentified`, `no-pdf` (an entry of another library,
    /// listed without a file) or `incomplete` (its import was interrupted; the next
    /// import, `library index` or app start finishes it).
    pub status: String,
    /// Why it is not identified ("offline (ADS and arXiv unreachable)", …), when not.
    pub identify_note: Option<String>,
    pub files: Vec<LibraryFile>,
    pub collections: Vec<String>,
    pub tags: Vec<String>,
    #[specta(type = f64)]
    pub chunks: i64,
    pub added_at: String,
}

/// A stored file of a paper.
#[derive(Debug, Clone, PartialEq, serde::Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct LibraryFile {
    pub path: String,
    pub original_name: Option<String>,
    pub sha256: String,
    #[specta(type = f64)]
    pub size_bytes: i64,
    pub source: String,
}

/// A note (a highlight with a comment) on a paper.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct Note {
    pub id: String,
    pub paper_id: Option<String>,
    /// The paper's title when the paper was deleted and the note kept.
    pub paper_label: Option<String>,
    #[specta(type = Option<f64>)]
    pub page: Option<i64>,
    pub quote: Option<String>,
    pub comment: String,
    pub color: Option<String>,
    /// Highlight rectangles for the UI: `[{x, y, width, height}]` in PDF points.
    #[specta(type = asterism_protocol::JsonValue)]
    pub rects: serde_json::Value,
    pub created_at: String,
    pub updated_at: String,
}

pub(crate) fn json_list(row: &SqliteRow, column: &str) -> Result<Vec<String>> {
    let text: Option<String> = row.try_get(column)?;
    Ok(text
        .and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or_default())
}

fn note_row(row: &SqliteRow) -> Result<Note> {
    let rects: String = row.try_get("rects")?;
    Ok(Note {
        id: row.try_get("id")?,
        paper_id: row.try_get("paper_id")?,
        paper_label: row.try_get("paper_label")?,
        page: row.try_get("page")?,
        quote: row.try_get("quote")?,
        comment: row.try_get("comment")?,
        color: row.try_get("color")?,
        rects: serde_json::from_str(&rects).unwrap_or(serde_json::Value::Array(vec![])),
        created_at: row.try_get("created_at")?,
        updated_at: row.try_get("updated_at")?,
    })
}

/// The filter as SQL over `papers p` with its binds in order (?1…?5), as a literal so
/// queries stay `&'static str` (no SQL built at run time).
macro_rules! filter_sql {
    () => {
        "(?1 IS NULL OR p.id = ?1)
    AND (?2 IS NULL OR EXISTS (SELECT 1 FROM paper_collections pc JOIN collections c ON c.id = pc.collection_id
                               WHERE pc.paper_id = p.id AND c.name = ?2))
    AND (?3 IS NULL OR p.year >= ?3) AND (?4 IS NULL OR p.year <= ?4)
    AND (?5 IS NULL OR EXISTS (SELECT 1 FROM json_each(p.authors) a WHERE a.value LIKE '%' || ?5 || '%'))"
    };
}

impl Store {
    /// Replaces a paper's chunks (their FTS rows and vectors go with the old ones).
    pub async fn replace_chunks(&self, paper_id: &str, chunks: &[NewChunk]) -> Result<usize> {
        let mut tx = self.pool.begin().await?;
        let count = replace_chunks_on(&mut tx, paper_id, chunks).await?;
        tx.commit().await?;
        Ok(count)
    }

    /// Chunks not embedded yet, oldest first.
    pub async fn chunks_to_embed(&self, limit: i64) -> Result<Vec<(i64, String)>> {
        let rows =
            sqlx::query("SELECT id, text FROM chunks WHERE embedded = 0 ORDER BY id LIMIT ?")
                .bind(limit)
                .fetch_all(&self.pool)
                .await?;
        rows.iter()
            .map(|row| Ok((row.try_get("id")?, row.try_get("text")?)))
            .collect()
    }

    /// Which of `ids` are kept for keywords only (never embedded).
    pub async fn keywords_only_among(&self, ids: &[i64]) -> Result<std::collections::HashSet<i64>> {
        if ids.is_empty() {
            return Ok(std::collections::HashSet::new());
        }
        // Only placeholders are formatted in; the ids are bound.
        let marks = vec!["?"; ids.len()].join(",");
        let sql = format!("SELECT id FROM chunks WHERE embedded = 2 AND id IN ({marks})");
        let mut query = sqlx::query_scalar::<_, i64>(sqlx::AssertSqlSafe(sql));
        for id in ids {
            query = query.bind(id);
        }
        Ok(query.fetch_all(&self.pool).await?.into_iter().collect())
    }

    /// (chunks to embed, embedded chunks); keywords-only chunks count in neither.
    /// Counted from indexes (all chunks, and the partial indexes of those still to embed
    /// and of the keywords-only ones), not by reading every chunk's row.
    pub async fn chunk_counts(&self) -> Result<(i64, i64)> {
        let row = sqlx::query(
            "SELECT (SELECT COUNT(*) FROM chunks) AS chunks,
                    (SELECT COUNT(*) FROM chunks WHERE embedded = 0) AS pending,
                    (SELECT COUNT(*) FROM chunks WHERE embedded = 2) AS keywords_only",
        )
        .fetch_one(&self.pool)
        .await?;
        let chunks: i64 = row.try_get("chunks")?;
        let pending: i64 = row.try_get("pending")?;
        let total = chunks - row.try_get::<i64, _>("keywords_only")?;
        Ok((total, total - pending))
    }

    /// Stores embeddings of chunks, in one transaction. A chunk deleted meanwhile (its
    /// paper re-parsed or deleted) is skipped. Returns how many were stored.
    pub async fn store_vectors(&self, vectors: &[(i64, Vec<f32>)]) -> Result<usize> {
        let mut tx = self.pool.begin().await?;
        let mut stored = 0;
        for (id, vector) in vectors {
            let marked =
                sqlx::query("UPDATE chunks SET embedded = 1 WHERE id = ? AND embedded = 0")
                    .bind(id)
                    .execute(&mut *tx)
                    .await?;
            if marked.rows_affected() == 0 {
                continue;
            }
            sqlx::query("INSERT INTO chunk_vectors (rowid, embedding) VALUES (?, ?)")
                .bind(id)
                .bind(crate::vector_to_blob(vector))
                .execute(&mut *tx)
                .await?;
            stored += 1;
        }
        tx.commit().await?;
        Ok(stored)
    }

    /// Forgets every vector (the embedding model changed); chunks are queued again.
    pub async fn clear_vectors(&self) -> Result<()> {
        let mut tx = self.pool.begin().await?;
        sqlx::query("DELETE FROM chunk_vectors")
            .execute(&mut *tx)
            .await?;
        sqlx::query("UPDATE chunks SET embedded = 0 WHERE embedded = 1")
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(())
    }

    pub async fn index_state(&self, key: &str) -> Result<Option<String>> {
        Ok(
            sqlx::query_scalar("SELECT value FROM index_state WHERE key = ?")
                .bind(key)
                .fetch_optional(&self.pool)
                .await?,
        )
    }

    pub async fn set_index_state(&self, key: &str, value: &str) -> Result<()> {
        sqlx::query(
            "INSERT INTO index_state (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        )
        .bind(key)
        .bind(value)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// Every stored vector, streamed in one pass: calls `each` per batch of `batch`.
    pub async fn scan_vectors(
        &self,
        batch: usize,
        mut each: impl FnMut(&[(i64, Vec<f32>)]),
    ) -> Result<()> {
        use futures::TryStreamExt;
        let mut rows = sqlx::query("SELECT rowid, embedding FROM chunk_vectors").fetch(&self.pool);
        let mut vectors = Vec::with_capacity(batch);
        while let Some(row) = rows.try_next().await? {
            let id: i64 = row.try_get("rowid")?;
            let blob: &[u8] = row.try_get("embedding")?;
            vectors.push((id, crate::blob_to_vector(blob)));
            if vectors.len() == batch {
                each(&vectors);
                vectors.clear();
            }
        }
        if !vectors.is_empty() {
            each(&vectors);
        }
        Ok(())
    }

    /// For each FTS5 expression, how many chunks it matches, counting up to `cap`: one
    /// statement for all (a query's words are counted at each search).
    pub async fn fts_counts(&self, queries: &[&str], cap: i64) -> Result<Vec<i64>> {
        if queries.is_empty() {
            return Ok(Vec::new());
        }
        // Only placeholders are formatted in; the expressions and the cap are bound.
        let counts: Vec<String> = (1..=queries.len())
            .map(|i| {
                format!(
                    "(SELECT COUNT(*) FROM (SELECT 1 FROM chunks_fts WHERE chunks_fts MATCH ?{i} LIMIT ?{}))",
                    queries.len() + 1
                )
            })
            .collect();
        let sql = format!("SELECT json_array({})", counts.join(", "));
        let mut query = sqlx::query_scalar::<_, String>(sqlx::AssertSqlSafe(sql));
        for expression in queries {
            query = query.bind(*expression);
        }
        let counts = query.bind(cap).fetch_one(&self.pool).await?;
        Ok(serde_json::from_str(&counts)?)
    }

    /// About how many passages there are (the highest id; exact unless some were
    /// deleted), without counting them.
    pub async fn chunk_id_high_water(&self) -> Result<i64> {
        Ok(
            sqlx::query_scalar("SELECT COALESCE(MAX(id), 0) FROM chunks")
                .fetch_one(&self.pool)
                .await?,
        )
    }

    /// How many chunks wait for a vector (fast: a partial index).
    pub async fn pending_chunks(&self) -> Result<i64> {
        Ok(
            sqlx::query_scalar("SELECT COUNT(*) FROM chunks WHERE embedded = 0")
                .fetch_one(&self.pool)
                .await?,
        )
    }

    /// BM25 search over chunk texts and section titles: (chunk id, score), best first
    /// (FTS5's bm25 is lower-is-better; returned negated, higher-is-better). `query` is
    /// an FTS5 MATCH expression the caller built safely.
    pub async fn fts_chunks(
        &self,
        query: &str,
        filter: &PaperFilter,
        limit: i64,
    ) -> Result<Vec<(i64, f64)>> {
        // FTS5 orders by `rank` (bm25 with the section at half weight) without sorting
        // every match; the filtered form joins the papers.
        let rows = if filter.is_empty() {
            sqlx::query(
                "SELECT rowid AS id, rank AS score FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY rank LIMIT ?",
            )
            .bind(query)
            .bind(limit)
            .fetch_all(&self.pool)
            .await?
        } else {
            let sql = concat!(
                "SELECT c.id AS id, chunks_fts.rank AS score
                 FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid JOIN papers p ON p.id = c.paper_id
                 WHERE chunks_fts MATCH ?6 AND ",
                filter_sql!(),
                " ORDER BY chunks_fts.rank LIMIT ?7"
            );
            bind_filter!(sqlx::query(sql), filter)
                .bind(query)
                .bind(limit)
                .fetch_all(&self.pool)
                .await?
        };
        rows.iter()
            .map(|row| Ok((row.try_get("id")?, -row.try_get::<f64, _>("score")?)))
            .collect()
    }

    /// Ids of the chunks of the papers the filter selects (to restrict a vector search).
    ///
    /// One row holding them all as a JSON array: a library of 1,000 papers has 200,000
    /// passages and more, and sqlx takes about a microsecond a row (263 ms for 213,074
    /// ids, against 20-40 ms this way); with no filter, from an index alone.
    pub async fn chunk_ids_matching(&self, filter: &PaperFilter) -> Result<Vec<i64>> {
        let ids: String = if filter.is_empty() {
            sqlx::query_scalar("SELECT json_group_array(id) FROM chunks")
                .fetch_one(&self.pool)
                .await?
        } else {
            let sql = concat!(
                "SELECT json_group_array(c.id) FROM chunks c JOIN papers p ON p.id = c.paper_id WHERE ",
                filter_sql!()
            );
            bind_filter!(sqlx::query_scalar(sql), filter)
                .fetch_one(&self.pool)
                .await?
        };
        Ok(serde_json::from_str(&ids)?)
    }

    /// The chunks with these ids and their papers, in the order given.
    pub async fn chunk_hits(&self, ids: &[i64]) -> Result<Vec<ChunkHit>> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let rows = sqlx::query(
            "SELECT c.id, c.paper_id, c.page, c.page_end, c.page_breaks, c.section, c.text, p.title, p.authors, p.year, p.bibcode, p.arxiv_id, p.doi,
                    (SELECT f.original_name FROM paper_files f WHERE f.paper_id = p.id AND f.original_name IS NOT NULL
                     ORDER BY f.id LIMIT 1) AS original_name
             FROM chunks c JOIN papers p ON p.id = c.paper_id
             WHERE c.id IN (SELECT value FROM json_each(?))",
        )
        .bind(serde_json::to_string(ids)?)
        .fetch_all(&self.pool)
        .await?;
        let mut hits: Vec<ChunkHit> = rows
            .iter()
            .map(|row| {
                Ok(ChunkHit {
                    chunk_id: row.try_get("id")?,
                    paper_id: row.try_get("paper_id")?,
                    title: row.try_get("title")?,
                    authors: json_list(row, "authors")?,
                    year: row.try_get("year")?,
                    bibcode: row.try_get("bibcode")?,
                    arxiv_id: row.try_get("arxiv_id")?,
                    doi: row.try_get("doi")?,
                    original_name: row.try_get("original_name")?,
                    page: row.try_get("page")?,
                    page_end: row.try_get("page_end")?,
                    page_breaks: row
                        .try_get::<Option<String>, _>("page_breaks")?
                        .map(|json| serde_json::from_str(&json))
                        .transpose()?
                        .unwrap_or_default(),
                    section: row.try_get("section")?,
                    text: row.try_get("text")?,
                })
            })
            .collect::<Result<_>>()?;
        hits.sort_by_key(|hit| ids.iter().position(|id| *id == hit.chunk_id));
        Ok(hits)
    }

    /// The paper a file was imported from, by its original file name.
    pub async fn paper_by_file_name(&self, name: &str) -> Result<Option<String>> {
        Ok(sqlx::query_scalar(
            "SELECT paper_id FROM paper_files WHERE original_name = ? ORDER BY id LIMIT 1",
        )
        .bind(name)
        .fetch_optional(&self.pool)
        .await?)
    }

    /// The paper a stored file (by content hash) belongs to.
    pub async fn paper_of_file(&self, sha256: &str) -> Result<Option<String>> {
        Ok(
            sqlx::query_scalar("SELECT paper_id FROM paper_files WHERE sha256 = ?")
                .bind(sha256)
                .fetch_optional(&self.pool)
                .await?,
        )
    }

    /// Library papers the filter selects, newest first.
    pub async fn library_papers(&self, filter: &PaperFilter) -> Result<Vec<LibraryPaper>> {
        let sql = concat!(
            "SELECT p.*, (SELECT COUNT(*) FROM chunks c WHERE c.paper_id = p.id) AS chunk_count,
                    (SELECT json_group_array(c.name) FROM paper_collections pc JOIN collections c ON c.id = pc.collection_id
                     WHERE pc.paper_id = p.id) AS collection_names,
                    (SELECT json_group_array(t.tag) FROM paper_tags t WHERE t.paper_id = p.id) AS tag_names
             FROM papers p
             WHERE p.status != 'metadata' AND ",
            filter_sql!(),
            " ORDER BY p.added_at DESC, p.id"
        );
        let rows = bind_filter!(sqlx::query(sql), filter)
            .fetch_all(&self.pool)
            .await?;
        let mut papers = Vec::with_capacity(rows.len());
        for row in &rows {
            let id: String = row.try_get("id")?;
            papers.push(LibraryPaper {
                files: self.library_files(&id).await?,
                id,
                title: row.try_get("title")?,
                authors: json_list(row, "authors")?,
                year: row.try_get("year")?,
                bibcode: row.try_get("bibcode")?,
                arxiv_id: row.try_get("arxiv_id")?,
                doi: row.try_get("doi")?,
                status: row.try_get("status")?,
                identify_note: row.try_get("identify_note")?,
                collections: json_list(row, "collection_names")?,
                tags: json_list(row, "tag_names")?,
                chunks: row.try_get("chunk_count")?,
                added_at: row.try_get("added_at")?,
            });
        }
        Ok(papers)
    }

    /// The files of a paper, oldest first.
    pub async fn library_files(&self, paper_id: &str) -> Result<Vec<LibraryFile>> {
        let rows = sqlx::query(
            "SELECT path, original_name, sha256, size_bytes, source FROM paper_files WHERE paper_id = ? ORDER BY id",
        )
        .bind(paper_id)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|row| {
                Ok(LibraryFile {
                    path: row.try_get("path")?,
                    original_name: row.try_get("original_name")?,
                    sha256: row.try_get("sha256")?,
                    size_bytes: row.try_get("size_bytes")?,
                    source: row.try_get("source")?,
                })
            })
            .collect()
    }

    /// Deletes a paper with its files' records, chunks and vectors; its notes are kept
    /// (labelled with its title) unless `delete_notes`. Returns the stored file paths
    /// for the caller to remove, or `None` when there was no such paper.
    pub async fn delete_paper(
        &self,
        paper_id: &str,
        delete_notes: bool,
    ) -> Result<Option<Vec<String>>> {
        let files = self.library_files(paper_id).await?;
        let mut tx = self.pool.begin().await?;
        if delete_notes {
            sqlx::query("DELETE FROM notes WHERE paper_id = ?")
                .bind(paper_id)
                .execute(&mut *tx)
                .await?;
        } else {
            sqlx::query(
                "UPDATE notes SET paper_label = (SELECT title FROM papers WHERE id = ?1) WHERE paper_id = ?1",
            )
            .bind(paper_id)
            .execute(&mut *tx)
            .await?;
        }
        // Chunks first, so their trigger removes the vectors.
        sqlx::query("DELETE FROM chunks WHERE paper_id = ?")
            .bind(paper_id)
            .execute(&mut *tx)
            .await?;
        let deleted = sqlx::query("DELETE FROM papers WHERE id = ?")
            .bind(paper_id)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(
            (deleted.rows_affected() > 0)
                .then(|| files.into_iter().map(|file| file.path).collect()),
        )
    }

    /// Renames a paper (its title).
    pub async fn set_paper_title(&self, paper_id: &str, title: &str) -> Result<bool> {
        let done = sqlx::query("UPDATE papers SET title = ?, updated_at = ? WHERE id = ?")
            .bind(title)
            .bind(crate::now_rfc3339())
            .bind(paper_id)
            .execute(&self.pool)
            .await?;
        Ok(done.rows_affected() > 0)
    }

    /// Puts a paper in a collection (created if new).
    pub async fn add_to_collection(&self, paper_id: &str, collection: &str) -> Result<()> {
        let mut tx = self.pool.begin().await?;
        sqlx::query(
            "INSERT INTO collections (name, created_at) VALUES (?, ?) ON CONFLICT(name) DO NOTHING",
        )
        .bind(collection)
        .bind(crate::now_rfc3339())
        .execute(&mut *tx)
        .await?;
        sqlx::query(
            "INSERT OR IGNORE INTO paper_collections (paper_id, collection_id)
             SELECT ?, id FROM collections WHERE name = ?",
        )
        .bind(paper_id)
        .bind(collection)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(())
    }

    /// Collections with how many papers each has.
    pub async fn collections(&self) -> Result<Vec<(String, i64)>> {
        let rows = sqlx::query(
            "SELECT c.name, COUNT(pc.paper_id) AS papers FROM collections c
             LEFT JOIN paper_collections pc ON pc.collection_id = c.id GROUP BY c.id ORDER BY c.name",
        )
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|row| Ok((row.try_get("name")?, row.try_get("papers")?)))
            .collect()
    }

    pub async fn tag_paper(&self, paper_id: &str, tag: &str) -> Result<()> {
        sqlx::query("INSERT OR IGNORE INTO paper_tags (paper_id, tag) VALUES (?, ?)")
            .bind(paper_id)
            .bind(tag)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Stores a note with a given id unless one with that id is there already (a note
    /// brought from another library, imported again); true when it was added.
    pub async fn add_note_once(&self, note: &Note) -> Result<bool> {
        let now = crate::now_rfc3339();
        Ok(self
            .insert_note("INSERT OR IGNORE", &note.id, note, &now)
            .await?
            > 0)
    }

    /// Stores a note; returns it.
    pub async fn add_note(&self, note: &Note) -> Result<Note> {
        let now = crate::now_rfc3339();
        let id = if note.id.is_empty() {
            uuid::Uuid::new_v4().to_string()
        } else {
            note.id.clone()
        };
        self.insert_note("INSERT", &id, note, &now).await?;
        Ok(Note {
            id,
            created_at: now.clone(),
            updated_at: now,
            ..note.clone()
        })
    }

    /// One note row under `id`, created and updated `now`; the rows written.
    async fn insert_note(
        &self,
        verb: &'static str,
        id: &str,
        note: &Note,
        now: &str,
    ) -> Result<u64> {
        let sql = format!(
            "{verb} INTO notes (id, paper_id, page, quote, comment, color, rects, created_at, updated_at)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
        );
        let done = sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(id)
            .bind(&note.paper_id)
            .bind(note.page)
            .bind(&note.quote)
            .bind(&note.comment)
            .bind(&note.color)
            .bind(note.rects.to_string())
            .bind(now)
            .bind(now)
            .execute(&self.pool)
            .await?;
        Ok(done.rows_affected())
    }

    /// Notes of a paper by page, or every note (newest first) with `None`.
    pub async fn notes(&self, paper_id: Option<&str>) -> Result<Vec<Note>> {
        let rows = sqlx::query(
            "SELECT * FROM notes WHERE ?1 IS NULL OR paper_id = ?1
             ORDER BY CASE WHEN ?1 IS NULL THEN 0 ELSE page END, created_at DESC",
        )
        .bind(paper_id)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(note_row).collect()
    }

    /// Notes whose quote or comment matches an FTS5 expression, best first.
    pub async fn search_notes(&self, query: &str, limit: i64) -> Result<Vec<Note>> {
        let rows = sqlx::query(
            "SELECT n.* FROM notes_fts JOIN notes n ON n.rowid = notes_fts.rowid
             WHERE notes_fts MATCH ? ORDER BY bm25(notes_fts) LIMIT ?",
        )
        .bind(query)
        .bind(limit)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(note_row).collect()
    }
}

/// Replaces a paper's chunks, on one connection (inside the caller's transaction).
pub(crate) async fn replace_chunks_on(
    conn: &mut sqlx::SqliteConnection,
    paper_id: &str,
    chunks: &[NewChunk],
) -> Result<usize> {
    sqlx::query("DELETE FROM chunks WHERE paper_id = ?")
        .bind(paper_id)
        .execute(&mut *conn)
        .await?;
    for (ordinal, chunk) in chunks.iter().enumerate() {
        sqlx::query(
            "INSERT INTO chunks (paper_id, ordinal, page, page_end, page_breaks, section, text, embedded)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        )
        .bind(paper_id)
        .bind(i64::try_from(ordinal).unwrap_or(i64::MAX))
        .bind(chunk.page)
        .bind(chunk.page_end)
        .bind(
            (!chunk.page_breaks.is_empty())
                .then(|| serde_json::to_string(&chunk.page_breaks))
                .transpose()?,
        )
        .bind(&chunk.section)
        .bind(&chunk.text)
        .bind(if chunk.keywords_only { 2 } else { 0 })
        .execute(&mut *conn)
        .await?;
    }
    Ok(chunks.len())
}
