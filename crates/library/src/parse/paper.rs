//! Parsing a library paper: arXiv's HTML first (math as TeX), the stored PDF otherwise;
//! the Markdown and its sections stored so `get_paper_content` can serve ranges.

use std::path::Path;
use std::time::Duration;

use asterism_protocol::PaperRecord;
use asterism_store::{PaperText, Store};

use super::{HtmlParseError, PdfError, Section, latexml_to_markdown, pages_to_markdown};

/// A paper turned into Markdown.
#[derive(Debug, Clone, PartialEq)]
pub struct ParsedPaper {
    pub markdown: String,
    pub sections: Vec<Section>,
    /// Page count (none for HTML, which has no pages).
    pub pages: Option<u32>,
    /// `arxiv-html`, `pdf` or `html`.
    pub source: String,
    /// `latexml`, `pdfium` or `pdf-extract`.
    pub engine: String,
    /// Where the figures and tables are (a PDF read by pdfium only).
    pub figures: Vec<super::FigureRegion>,
}

/// Why a paper could not be parsed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ParseError {
    #[error("{0}")]
    Pdf(#[from] PdfError),
    #[error("{0}")]
    Html(#[from] HtmlParseError),
    #[error("cannot read {path}: {message}")]
    Read { path: String, message: String },
    #[error(
        "the paper has no PDF in the library and no arXiv HTML version; download it first (download_paper)"
    )]
    NothingToParse,
    #[error("the library could not store the text: {0}")]
    Storage(String),
}

/// Parses PDF bytes (on the calling thread; it is CPU-bound, so callers in async code
/// use `spawn_blocking`).
pub fn parse_pdf_bytes(bytes: &[u8]) -> Result<ParsedPaper, ParseError> {
    let text = super::extract_pdf(bytes)?;
    let (markdown, sections) = pages_to_markdown(&text.pages, text.title.as_deref());
    Ok(ParsedPaper {
        markdown,
        sections,
        pages: u32::try_from(text.pages.len()).ok(),
        source: "pdf".into(),
        engine: text.engine.name().into(),
        figures: text.figures,
    })
}

/// Parses an arXiv (LaTeXML) HTML page.
pub fn parse_html(html: &str, source: &str) -> Result<ParsedPaper, ParseError> {
    let markdown = latexml_to_markdown(html)?;
    let sections = super::sections_of(&markdown);
    Ok(ParsedPaper {
        markdown,
        sections,
        pages: None,
        source: source.into(),
        engine: "latexml".into(),
        figures: Vec::new(),
    })
}

/// Parses a local file: a PDF (by its `%PDF` magic) or an HTML page.
pub fn parse_file(path: &Path) -> Result<ParsedPaper, ParseError> {
    let bytes = std::fs::read(path).map_err(|error| ParseError::Read {
        path: path.display().to_string(),
        message: error.to_string(),
    })?;
    let extension = path
        .extension()
        .map(|ext| ext.to_string_lossy().to_lowercase())
        .unwrap_or_default();
    // The name decides; without a known extension, the content does.
    let is_html = match extension.as_str() {
        "html" | "htm" => true,
        "pdf" => false,
        _ => {
            bytes
                .iter()
                .take(512)
                .find(|byte| !byte.is_ascii_whitespace())
                == Some(&b'<')
        }
    };
    if is_html {
        return parse_html(&String::from_utf8_lossy(&bytes), "html");
    }
    parse_pdf_bytes(&bytes)
}

/// Parses papers of the library and stores their text.
#[derive(Debug, Clone)]
pub struct Parser {
    http: reqwest::Client,
    /// arxiv.org (for `/html/{id}`), configurable for tests.
    arxiv_url: String,
    store: Store,
    /// Splits the stored text into chunks for retrieval.
    chunker: crate::library::Chunker,
}

impl Parser {
    /// Chunks with `chunker` (the embedding model's tokenizer) instead of characters.
    pub fn with_chunker(mut self, chunker: crate::library::Chunker) -> Self {
        self.chunker = chunker;
        self
    }

    pub fn chunker(&self) -> &crate::library::Chunker {
        &self.chunker
    }

    pub fn new(arxiv_url: &str, store: Store) -> Result<Self, ParseError> {
        let http = crate::http::client(Duration::from_secs(60))
            .map_err(|error| ParseError::Storage(error.to_string()))?;
        Ok(Self {
            http,
            arxiv_url: arxiv_url.trim_end_matches('/').to_string(),
            store,
            chunker: crate::library::Chunker::characters(),
        })
    }

    /// The arXiv HTML rendering of a paper, when arXiv has a real one.
    async fn arxiv_html(&self, arxiv_id: &str) -> Result<ParsedPaper, String> {
        let url = format!("{}/html/{arxiv_id}", self.arxiv_url);
        let response = self
            .http
            .get(&url)
            .send()
            .await
            .map_err(|error| format!("arXiv HTML: {error}"))?;
        if !response.status().is_success() {
            return Err(format!("arXiv HTML: HTTP {}", response.status().as_u16()));
        }
        let html = response
            .text()
            .await
            .map_err(|error| format!("arXiv HTML: {error}"))?;
        parse_html(&html, "arxiv-html").map_err(|error| format!("arXiv HTML: {error}"))
    }

    /// Parses a paper (already in the library under `paper_id`): arXiv HTML unless
    /// `pdf_only`, else its stored PDF. Stores the result; returns it with notes on what
    /// was tried.
    pub async fn parse(
        &self,
        paper_id: &str,
        paper: &PaperRecord,
        pdf_only: bool,
    ) -> Result<(ParsedPaper, Vec<String>), ParseError> {
        let storage = |error: asterism_store::StoreError| ParseError::Storage(error.to_string());
        let mut notes = Vec::new();
        let mut parsed = None;
        if !pdf_only && let Some(arxiv_id) = &paper.arxiv_id {
            match self.arxiv_html(arxiv_id).await {
                Ok(html) => parsed = Some(html),
                Err(error) => notes.push(error),
            }
        }
        let parsed = match parsed {
            Some(parsed) => parsed,
            None => {
                let file = self
                    .store
                    .paper_pdf(paper_id)
                    .await
                    .map_err(storage)?
                    .ok_or(ParseError::NothingToParse)?;
                let path = std::path::PathBuf::from(&file.path);
                tokio::task::spawn_blocking(move || {
                    let bytes = std::fs::read(&path).map_err(|error| ParseError::Read {
                        path: path.display().to_string(),
                        message: error.to_string(),
                    })?;
                    parse_pdf_bytes(&bytes)
                })
                .await
                .map_err(|error| ParseError::Storage(error.to_string()))??
            }
        };
        let text = PaperText {
            paper_id: paper_id.to_string(),
            source: parsed.source.clone(),
            engine: parsed.engine.clone(),
            markdown: parsed.markdown.clone(),
            pages: parsed.pages.map(i64::from),
            sections: serde_json::to_string(&parsed.sections)
                .map_err(|error| ParseError::Storage(error.to_string()))?,
            parsed_at: chrono::Utc::now().to_rfc3339(),
        };
        // The text and the chunks for retrieval are committed together (embedding them
        // is the indexer's job): a paper is never parsed without its passages.
        let chunks = self.chunker.chunk(&parsed.markdown);
        // Only a PDF has pages to find figures on; HTML leaves those found before.
        let figures: Option<Vec<_>> = (parsed.source == "pdf").then(|| {
            parsed
                .figures
                .iter()
                .map(|figure| figure.stored(paper_id))
                .collect()
        });
        self.store
            .commit_import(
                paper_id,
                Some((&text, &chunks)),
                figures.as_deref(),
                "parsed",
            )
            .await
            .map_err(storage)?;
        Ok((parsed, notes))
    }
}

/// A part of a paper's text.
#[derive(Debug, Clone, PartialEq)]
pub struct ContentSlice {
    pub text: String,
    /// Characters in the selected range (before `offset`/`max_chars` cut it).
    pub total_chars: usize,
    /// Where to continue when the range did not fit.
    pub next_offset: Option<usize>,
    /// What was selected, in words ("pages 3–5", "section 2.1 Data").
    pub selected: String,
}

/// Parses "3" or "3-5" (also "3–5").
pub fn parse_page_range(text: &str) -> Option<(u32, u32)> {
    let text = text.trim();
    let (from, to) = text
        .split_once(['-', '–'])
        .map_or((text, text), |(from, to)| (from.trim(), to.trim()));
    let (from, to) = (from.parse::<u32>().ok()?, to.parse::<u32>().ok()?);
    (from >= 1 && from <= to).then_some((from, to))
}

/// Selects pages or a section of a stored Markdown text and cuts it to `max_chars`
/// from `offset` (in characters).
pub fn select_content(
    markdown: &str,
    pages: Option<&str>,
    section: Option<&str>,
    offset: usize,
    max_chars: usize,
) -> Result<ContentSlice, String> {
    let (range, selected) = match (pages, section) {
        (Some(_), Some(_)) => return Err("give pages or a section, not both".into()),
        (Some(pages), None) => {
            let (from, to) = parse_page_range(pages)
                .ok_or_else(|| format!("{pages:?} is not a page or a range like 3-5"))?;
            if !markdown.contains(&super::page_marker(1)) {
                return Err(
                    "this text has no pages (it was parsed from HTML); ask for a section instead"
                        .into(),
                );
            }
            let text = super::select_pages(markdown, from, to)
                .ok_or_else(|| format!("the paper has no page {from}"))?;
            let label = if from == to {
                format!("page {from}")
            } else {
                format!("pages {from}–{to}")
            };
            (text, label)
        }
        (None, Some(wanted)) => {
            let (found, text) = super::select_section(markdown, wanted).ok_or_else(|| {
                let known: Vec<String> = super::sections_of(markdown)
                    .iter()
                    .map(|s| match &s.number {
                        Some(number) => format!("{number} {}", s.title),
                        None => s.title.clone(),
                    })
                    .collect();
                format!(
                    "no section {wanted:?}; the sections are: {}",
                    known.join("; ")
                )
            })?;
            let label = match &found.number {
                Some(number) => format!("section {number} {}", found.title),
                None => format!("section {}", found.title),
            };
            (text, label)
        }
        (None, None) => (markdown.to_string(), "the whole text".to_string()),
    };
    let total_chars = range.chars().count();
    let text: String = range.chars().skip(offset).take(max_chars).collect();
    let end = offset + text.chars().count();
    Ok(ContentSlice {
        text,
        total_chars,
        next_offset: (end < total_chars).then_some(end),
        selected,
    })
}
