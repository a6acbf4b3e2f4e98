//! A library paper's figures and tables as images: the regions found when its PDF was
//! parsed (found now, and kept, for a paper parsed before regions were), rendered from
//! the library's copy of the PDF.

use std::path::PathBuf;
use std::sync::LazyLock;

use regex::Regex;

use asterism_store::{Store, StoreError, StoredFigure};

use crate::parse::{PdfError, Rect, figure_regions, render_region};

/// The resolution figures are rendered at unless asked otherwise: readable on screen and
/// small enough to hand a model (a full-width figure is about 1,500 pixels across).
pub const DEFAULT_DPI: f32 = 150.0;

/// Why a figure cannot be shown.
#[derive(Debug, thiserror::Error)]
pub enum FigureError {
    #[error("\"{0}\" is not a figure or table label (try 3, \"Figure 3\" or \"Table 2\")")]
    BadLabel(String),
    #[error("the paper has no {label} with a region; {known}")]
    NotFound { label: String, known: String },
    #[error("the paper has no PDF in the library; download it first (download_paper)")]
    NoPdf,
    #[error("the library's copy of the PDF cannot be read: {0}")]
    Read(String),
    #[error("{0}")]
    Pdf(#[from] PdfError),
    #[error("the library could not be read: {0}")]
    Storage(#[from] StoreError),
}

/// A label as the caption passages carry it: "3", "fig 3", "Fig. 3", "figure3" →
/// "Figure 3"; "T2", "tab. 2", "table 2" → "Table 2"; appendix ("A1", "A.1") and Roman
/// ("Table IV") numbers kept.
pub fn label_of(given: &str) -> Option<String> {
    static LABEL: LazyLock<Option<Regex>> = LazyLock::new(|| {
        Regex::new(
            r"^(?i)(fig(?:ure)?\.?|tab(?:le)?\.?|f|t)?\s*([a-z]\.?\d{1,4}|\d{1,4}|[ivx]{1,6})$",
        )
        .ok()
    });
    let found = LABEL.as_ref()?.captures(given.trim())?;
    let kind = match found.get(1).map(|m| m.as_str().to_lowercase()) {
        Some(word) if word.starts_with('t') => "Table",
        _ => "Figure",
    };
    Some(format!("{kind} {}", found.get(2)?.as_str().to_uppercase()))
}

/// The paper's figures and tables; found in its PDF now (and kept) when none are stored.
pub async fn figures(store: &Store, paper_id: &str) -> Result<Vec<StoredFigure>, FigureError> {
    let stored = store.figures(paper_id).await?;
    if !stored.is_empty() {
        return Ok(stored);
    }
    let Some(bytes) = pdf_bytes(store, paper_id).await? else {
        return Ok(Vec::new());
    };
    let regions = tokio::task::spawn_blocking(move || figure_regions(&bytes))
        .await
        .map_err(|error| FigureError::Read(error.to_string()))??;
    let found: Vec<StoredFigure> = regions.iter().map(|r| r.stored(paper_id)).collect();
    store.keep_figures(paper_id, &found).await?;
    Ok(store.figures(paper_id).await?)
}

/// One figure or table rendered as a PNG at `dpi`, with where it is.
pub async fn figure_png(
    store: &Store,
    paper_id: &str,
    label: &str,
    dpi: f32,
) -> Result<(StoredFigure, Vec<u8>), FigureError> {
    let wanted = label_of(label).ok_or_else(|| FigureError::BadLabel(label.to_string()))?;
    let all = figures(store, paper_id).await?;
    let Some(figure) = all.iter().find(|f| f.label == wanted).cloned() else {
        let known: Vec<&str> = all.iter().map(|f| f.label.as_str()).collect();
        return Err(FigureError::NotFound {
            label: wanted,
            known: if known.is_empty() {
                "no figure or table was found in its PDF".into()
            } else {
                format!("it has {}", known.join(", "))
            },
        });
    };
    let bytes = pdf_bytes(store, paper_id)
        .await?
        .ok_or(FigureError::NoPdf)?;
    let [left, bottom, right, top] = figure.region.map(|x| x as f32);
    let rect = Rect {
        left,
        bottom,
        right,
        top,
    };
    let page = u32::try_from(figure.page).unwrap_or(1);
    let png = tokio::task::spawn_blocking(move || render_region(&bytes, page, &rect, dpi))
        .await
        .map_err(|error| FigureError::Read(error.to_string()))??;
    Ok((figure, png))
}

/// The library's copy of the paper's PDF, if it has one.
async fn pdf_bytes(store: &Store, paper_id: &str) -> Result<Option<Vec<u8>>, FigureError> {
    let Some(file) = store.paper_pdf(paper_id).await? else {
        return Ok(None);
    };
    let path = PathBuf::from(&file.path);
    tokio::fs::read(&path)
        .await
        .map(Some)
        .map_err(|error| FigureError::Read(format!("{}: {error}", path.display())))
}

#[cfg(test)]
mod tests {
    use super::label_of;

    #[test]
    fn labels_as_people_type_them() {
        for (given, wanted) in [
            ("3", Some("Figure 3")),
            ("Figure 3", Some("Figure 3")),
            ("fig. 12", Some("Figure 12")),
            ("Fig 3", Some("Figure 3")),
            ("figure3", Some("Figure 3")),
            ("T2", Some("Table 2")),
            ("table 2", Some("Table 2")),
            ("Tab. A1", Some("Table A1")),
            ("A1", Some("Figure A1")),
            ("fig. a.1", Some("Figure A.1")),
            ("Table IV", Some("Table IV")),
            ("plot 3", None),
            ("figure", None),
            ("", None),
            ("3; rm -rf /", None),
        ] {
            assert_eq!(label_of(given).as_deref(), wanted, "{given}");
        }
    }
}
