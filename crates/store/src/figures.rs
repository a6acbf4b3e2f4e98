//! Where a paper's figures and tables are on their pages (see migration 0021).

use sqlx::{Row, SqliteConnection};

use crate::{Result, Store};

/// A figure or table: its page and boxes in PDF points from the page's bottom left,
/// `[left, bottom, right, top]`.
#[derive(Debug, Clone, PartialEq, serde::Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct StoredFigure {
    pub paper_id: String,
    /// "Figure 3", "Table 1": the caption passage's section.
    pub label: String,
    /// `figure` or `table`.
    pub kind: String,
    /// 1-based.
    #[specta(type = f64)]
    pub page: i64,
    pub page_width: f64,
    pub page_height: f64,
    /// The figure's graphics or the table's rows.
    pub region: [f64; 4],
    pub caption: [f64; 4],
}

/// The columns, as a literal for `concat!` (queries are static strings).
macro_rules! columns {
    () => {
        "paper_id, label, kind, page, page_width, page_height, left, bottom, right, top, \
         caption_left, caption_bottom, caption_right, caption_top"
    };
}

fn figure(row: &sqlx::sqlite::SqliteRow) -> Result<StoredFigure> {
    Ok(StoredFigure {
        paper_id: row.try_get("paper_id")?,
        label: row.try_get("label")?,
        kind: row.try_get("kind")?,
        page: row.try_get("page")?,
        page_width: row.try_get("page_width")?,
        page_height: row.try_get("page_height")?,
        region: [
            row.try_get("left")?,
            row.try_get("bottom")?,
            row.try_get("right")?,
            row.try_get("top")?,
        ],
        caption: [
            row.try_get("caption_left")?,
            row.try_get("caption_bottom")?,
            row.try_get("caption_right")?,
            row.try_get("caption_top")?,
        ],
    })
}

impl Store {
    /// A paper's figures and tables, in page order.
    pub async fn figures(&self, paper_id: &str) -> Result<Vec<StoredFigure>> {
        let rows = sqlx::query(concat!(
            "SELECT ",
            columns!(),
            " FROM figures WHERE paper_id = ? ORDER BY page, caption_top DESC"
        ))
        .bind(paper_id)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(figure).collect()
    }

    /// One figure or table of a paper by its label ("Figure 3").
    pub async fn figure(&self, paper_id: &str, label: &str) -> Result<Option<StoredFigure>> {
        let row = sqlx::query(concat!(
            "SELECT ",
            columns!(),
            " FROM figures WHERE paper_id = ? AND label = ?"
        ))
        .bind(paper_id)
        .bind(label)
        .fetch_optional(&self.pool)
        .await?;
        row.as_ref().map(figure).transpose()
    }

    /// Replaces a paper's figures (found again in its PDF).
    pub async fn keep_figures(&self, paper_id: &str, figures: &[StoredFigure]) -> Result<()> {
        let mut tx = self.pool.begin().await?;
        replace_figures_on(&mut tx, paper_id, figures).await?;
        tx.commit().await?;
        Ok(())
    }

    /// The figure or table a passage is the caption of, if any (same paper, its section
    /// the label, on that page).
    pub async fn figure_of_chunk(&self, chunk_id: i64) -> Result<Option<StoredFigure>> {
        let row = sqlx::query(concat!(
            "SELECT ",
            columns!(),
            " FROM figures WHERE rowid = (SELECT f.rowid FROM figures f JOIN chunks c
               ON c.paper_id = f.paper_id AND c.section = f.label AND c.page = f.page
             WHERE c.id = ?)"
        ))
        .bind(chunk_id)
        .fetch_optional(&self.pool)
        .await?;
        row.as_ref().map(figure).transpose()
    }
}

/// Replaces a paper's figures, on one connection (inside the caller's transaction).
pub(crate) async fn replace_figures_on(
    conn: &mut SqliteConnection,
    paper_id: &str,
    figures: &[StoredFigure],
) -> Result<()> {
    sqlx::query("DELETE FROM figures WHERE paper_id = ?")
        .bind(paper_id)
        .execute(&mut *conn)
        .await?;
    for f in figures {
        sqlx::query(concat!(
            "INSERT OR IGNORE INTO figures (",
            columns!(),
            ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
        ))
        .bind(paper_id)
        .bind(&f.label)
        .bind(&f.kind)
        .bind(f.page)
        .bind(f.page_width)
        .bind(f.page_height)
        .bind(f.region[0])
        .bind(f.region[1])
        .bind(f.region[2])
        .bind(f.region[3])
        .bind(f.caption[0])
        .bind(f.caption[1])
        .bind(f.caption[2])
        .bind(f.caption[3])
        .execute(&mut *conn)
        .await?;
    }
    Ok(())
}
