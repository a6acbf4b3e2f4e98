//! A PDF's text layer, page by page: pdfium (Chromium's PDF library, loaded at run time)
//! when it can be found, the pure-Rust `pdf-extract` otherwise. Both read two-column
//! papers column by column; pdfium is faster and agrees better with `pdftotext`.
//!
//! Where libpdfium is looked for, in order: `ASTERISM_PDFIUM` (the library or its
//! folder; `none` forces the pure-Rust engine), then in each of [`crate::parts::roots`]
//! (beside the executable, the installed bundle's resources, the checkout's `.deps/`)
//! directly and in `pdfium/`, then the system's library path.

use std::path::PathBuf;
use std::sync::OnceLock;

use pdfium_render::prelude::{
    PdfDocument, PdfDocumentMetadataTagType, PdfPageText, PdfRenderConfig, Pdfium, PdfiumError,
    PdfiumInternalError,
};

use super::figures::{FigureRegion, Rect, first_of_each_label, regions_of_page};
use super::placed::{Glyph, place_text};

/// Why a PDF gave no text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PdfError {
    #[error("the file is empty (0 bytes)")]
    Empty,
    #[error("the file is not a PDF (it does not start with %PDF)")]
    NotPdf,
    #[error(
        "the PDF is encrypted with a password; open it in a viewer and save an unprotected copy"
    )]
    Encrypted,
    #[error("the PDF is damaged or truncated: {0}")]
    Corrupt(String),
    #[error(
        "the PDF has no text layer ({pages} pages of images, probably a scan); it needs OCR first"
    )]
    NoTextLayer { pages: usize },
}

/// Which engine read a PDF.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PdfEngine {
    Pdfium,
    PdfExtract,
}

impl PdfEngine {
    pub fn name(self) -> &'static str {
        match self {
            Self::Pdfium => "pdfium",
            Self::PdfExtract => "pdf-extract",
        }
    }

    /// pdfium when its library loads, else the pure-Rust engine.
    pub fn best_available() -> Self {
        if pdfium().is_some() {
            Self::Pdfium
        } else {
            Self::PdfExtract
        }
    }
}

/// The text layer of a PDF.
#[derive(Debug, Clone, PartialEq)]
pub struct PdfText {
    /// One string per page, as the engine gave it (lines separated by `\n`).
    pub pages: Vec<String>,
    /// The document's Title metadata, when set.
    pub title: Option<String>,
    /// The largest text on page 1 (usually the title), when the engine knows font sizes.
    pub title_guess: Option<String>,
    /// The rest of the document information dictionary (pdfium only).
    pub info: PdfInfo,
    pub engine: PdfEngine,
    /// Where the figures and tables are (pdfium only: the other engine gives no boxes).
    pub figures: Vec<FigureRegion>,
}

/// The document information dictionary besides its Title (empty values are `None`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PdfInfo {
    pub author: Option<String>,
    pub subject: Option<String>,
    pub keywords: Option<String>,
    /// As written, e.g. `D:20210521113722-04'00'`.
    pub creation_date: Option<String>,
}

static PDFIUM: OnceLock<Option<Pdfium>> = OnceLock::new();
/// The file libpdfium was loaded from (unset: the system's library path, or none).
static PDFIUM_PATH: OnceLock<PathBuf> = OnceLock::new();

/// What reads PDFs in this process, in words for `doctor` and Settings, and whether it
/// is the slow fallback.
pub fn pdf_engine_report() -> (PdfEngine, String) {
    match (pdfium(), PDFIUM_PATH.get()) {
        (Some(_), Some(path)) => {
            let path = path.canonicalize().unwrap_or_else(|_| path.clone());
            (PdfEngine::Pdfium, format!("pdfium ({})", path.display()))
        }
        (Some(_), None) => (PdfEngine::Pdfium, "pdfium (the system's library)".into()),
        (None, _) if std::env::var("ASTERISM_PDFIUM").is_ok_and(|value| value == "none") => (
            PdfEngine::PdfExtract,
            "pdf-extract, the slow fallback: ASTERISM_PDFIUM=none turns pdfium off".into(),
        ),
        (None, _) => {
            let looked: Vec<String> = library_candidates()
                .iter()
                .map(|path| path.display().to_string())
                .collect();
            (
                PdfEngine::PdfExtract,
                format!(
                    "pdf-extract, the slow fallback: libpdfium was not found (looked in {}, and the \
                     system's library path); PDFs are parsed about half as fast and lose some layout. \
                     scripts/install-deps.sh installs it; ASTERISM_PDFIUM names another",
                    looked.join(", ")
                ),
            )
        }
    }
}

fn library_candidates() -> Vec<PathBuf> {
    let name = Pdfium::pdfium_platform_library_name();
    let mut candidates = Vec::new();
    if let Some(configured) = std::env::var_os("ASTERISM_PDFIUM") {
        let path = PathBuf::from(configured);
        if path.is_dir() {
            candidates.push(path.join(&name));
        } else {
            candidates.push(path);
        }
        return candidates;
    }
    for root in crate::parts::roots() {
        candidates.push(root.join(&name));
        candidates.push(root.join("pdfium").join(&name));
    }
    candidates
}

fn pdfium() -> Option<&'static Pdfium> {
    PDFIUM
        .get_or_init(|| {
            if std::env::var("ASTERISM_PDFIUM").is_ok_and(|value| value == "none") {
                return None;
            }
            let bindings = library_candidates()
                .into_iter()
                .filter(|path| path.is_file())
                .find_map(|path| {
                    let bound = Pdfium::bind_to_library(&path).ok()?;
                    let _ = PDFIUM_PATH.set(path);
                    Some(bound)
                })
                .or_else(|| Pdfium::bind_to_system_library().ok());
            if bindings.is_none() {
                tracing::info!("libpdfium not found; PDFs are read by pdf-extract");
            }
            bindings.map(Pdfium::new)
        })
        .as_ref()
}

/// Reads the text layer of the PDF in `bytes` with the best engine available.
pub fn extract_pdf(bytes: &[u8]) -> Result<PdfText, PdfError> {
    extract_pdf_with(bytes, PdfEngine::best_available())
}

/// Reads the text layer with a given engine (pdfium falls back when it is missing).
pub fn extract_pdf_with(bytes: &[u8], engine: PdfEngine) -> Result<PdfText, PdfError> {
    if bytes.is_empty() {
        return Err(PdfError::Empty);
    }
    // The header may follow a little junk; readers accept it within the first 1 KiB.
    let head = &bytes[..bytes.len().min(1024)];
    if !head.windows(5).any(|window| window == b"%PDF-") {
        return Err(PdfError::NotPdf);
    }
    let text = match (engine, pdfium()) {
        (PdfEngine::Pdfium, Some(pdfium)) => with_pdfium(pdfium, bytes)?,
        _ => with_pdf_extract(bytes)?,
    };
    let has_text = text.pages.iter().any(|page| {
        page.chars()
            .filter(|c| c.is_alphanumeric())
            .nth(20)
            .is_some()
    });
    if !has_text {
        return Err(PdfError::NoTextLayer {
            pages: text.pages.len(),
        });
    }
    Ok(text)
}

/// One document at a time in pdfium. pdfium-render takes a lock for each call; two
/// threads reading a page character by character took it in turns and were each half
/// as fast as one alone. Held for a whole document, the lock is taken once.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn exclusive() -> std::sync::MutexGuard<'static, ()> {
    // A panic while parsing poisons nothing the lock guards (it guards no data).
    ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn open<'a>(pdfium: &'a Pdfium, bytes: &'a [u8]) -> Result<PdfDocument<'a>, PdfError> {
    pdfium
        .load_pdf_from_byte_slice(bytes, None)
        .map_err(|error| match error {
            PdfiumError::PdfiumLibraryInternalError(
                PdfiumInternalError::PasswordError | PdfiumInternalError::SecurityError,
            ) => PdfError::Encrypted,
            PdfiumError::PdfiumLibraryInternalError(PdfiumInternalError::FormatError) => {
                PdfError::Corrupt("pdfium cannot read its structure".into())
            }
            other => PdfError::Corrupt(format!("{other:?}")),
        })
}

/// The most pixels a rendered region may have (about 40 MB of RGBA).
const MOST_PIXELS: f32 = 1.0e7;

/// `rect` of page `page` (1-based) of the PDF in `bytes`, rendered as a PNG at `dpi`
/// (less when the page would be larger than [`MOST_PIXELS`]), with a small margin.
pub fn render_region(bytes: &[u8], page: u32, rect: &Rect, dpi: f32) -> Result<Vec<u8>, PdfError> {
    let pdfium = pdfium().ok_or_else(|| {
        PdfError::Corrupt("rendering a figure needs pdfium, which was not found (doctor says where it was looked for)".into())
    })?;
    let _alone = exclusive();
    let document = open(pdfium, bytes)?;
    let page = i32::try_from(page)
        .ok()
        .and_then(|number| document.pages().get(number - 1).ok())
        .ok_or_else(|| PdfError::Corrupt(format!("the PDF has no page {page}")))?;
    let (width, height) = (page.width().value, page.height().value);
    let scale = (dpi / 72.0).min((MOST_PIXELS / (width * height).max(1.0)).sqrt());
    let bitmap = page
        .render_with_config(&PdfRenderConfig::new().scale_page_by_factor(scale))
        .map_err(|error| PdfError::Corrupt(format!("the page cannot be rendered: {error:?}")))?;
    let (w, h) = (bitmap.width().max(0) as u32, bitmap.height().max(0) as u32);
    let rgba = bitmap.as_rgba_bytes();
    let margin = 4.0;
    let px = |x: f32, most: u32| ((x * scale).round().max(0.0) as u32).min(most);
    let (x0, x1) = (px(rect.left - margin, w), px(rect.right + margin, w));
    let (y0, y1) = (
        px(height - rect.top - margin, h),
        px(height - rect.bottom + margin, h),
    );
    if x1 <= x0 || y1 <= y0 || rgba.len() < (w * h * 4) as usize {
        return Err(PdfError::Corrupt("the region is not on the page".into()));
    }
    let mut cropped = Vec::with_capacity(((x1 - x0) * (y1 - y0) * 4) as usize);
    for y in y0..y1 {
        let start = ((y * w + x0) * 4) as usize;
        cropped.extend_from_slice(&rgba[start..start + ((x1 - x0) * 4) as usize]);
    }
    encode_png(&cropped, x1 - x0, y1 - y0)
}

/// The figures and tables of every page of the PDF in `bytes` (without its text).
pub fn figure_regions(bytes: &[u8]) -> Result<Vec<FigureRegion>, PdfError> {
    let pdfium = pdfium().ok_or_else(|| {
        PdfError::Corrupt("finding figures needs pdfium, which was not found (doctor says where it was looked for)".into())
    })?;
    let _alone = exclusive();
    let document = open(pdfium, bytes)?;
    Ok(first_of_each_label(
        document
            .pages()
            .iter()
            .enumerate()
            .flat_map(|(index, page)| {
                regions_of_page(index as u32 + 1, &page, page.text().ok().as_ref())
            }),
    ))
}

fn encode_png(rgba: &[u8], width: u32, height: u32) -> Result<Vec<u8>, PdfError> {
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, width, height);
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Eight);
    let failed = |error: png::EncodingError| PdfError::Corrupt(format!("PNG: {error}"));
    let mut writer = encoder.write_header().map_err(failed)?;
    writer.write_image_data(rgba).map_err(failed)?;
    writer.finish().map_err(failed)?;
    Ok(out)
}

fn with_pdfium(pdfium: &Pdfium, bytes: &[u8]) -> Result<PdfText, PdfError> {
    let _alone = exclusive();
    let document = open(pdfium, bytes)?;
    let metadata = document.metadata();
    let tag = |kind| {
        metadata
            .get(kind)
            .map(|tag| tag.value().trim().to_string())
            .filter(|value| !value.is_empty())
    };
    let title = tag(PdfDocumentMetadataTagType::Title);
    let info = PdfInfo {
        author: tag(PdfDocumentMetadataTagType::Author),
        subject: tag(PdfDocumentMetadataTagType::Subject),
        keywords: tag(PdfDocumentMetadataTagType::Keywords),
        creation_date: tag(PdfDocumentMetadataTagType::CreationDate),
    };
    let mut pages = Vec::with_capacity(usize::try_from(document.pages().len()).unwrap_or(0));
    let mut title_guess = None;
    let mut figures = Vec::new();
    for (index, page) in document.pages().iter().enumerate() {
        let text = page
            .text()
            .map_err(|error| PdfError::Corrupt(format!("a page cannot be read: {error:?}")))?;
        if index == 0 {
            title_guess = largest_text(&page_chars(&text));
        }
        pages.push(page_text(&text));
        figures.extend(regions_of_page(index as u32 + 1, &page, Some(&text)));
    }
    Ok(PdfText {
        pages,
        title,
        title_guess,
        info,
        engine: PdfEngine::Pdfium,
        figures: first_of_each_label(figures),
    })
}

/// One character of a page and its font size (0 for the spaces and line ends pdfium adds).
#[derive(Debug, Clone, Copy)]
struct SizedChar {
    c: char,
    size: f32,
}

/// Where the title is looked for: a page's first characters (figures further down have
/// large labels too).
const TITLE_REACH: usize = 2_000;

/// The first [`TITLE_REACH`] characters of a page with their sizes (used on page 1 only).
fn page_chars(text: &PdfPageText<'_>) -> Vec<SizedChar> {
    text.chars()
        .iter()
        .take(TITLE_REACH)
        .filter_map(|char| {
            Some(SizedChar {
                c: char.unicode_char()?,
                size: char.scaled_font_size().value,
            })
        })
        .collect()
}

/// The page's text, one call per character plus a few where a marker, a broken line or an
/// accent needs to know where its characters sit (see [`place_text`]).
fn page_text(text: &PdfPageText<'_>) -> String {
    let chars = text.chars();
    let letters: Vec<char> = chars
        .iter()
        .map(|char| char.unicode_char().unwrap_or('\0'))
        .collect();
    place_text(&letters, |index| {
        let char = chars.get(index).ok()?;
        let bounds = char.tight_bounds().ok()?;
        Some(Glyph {
            size: char.scaled_font_size().value,
            baseline: char.origin_y().ok()?.value,
            left: bounds.left().value,
            right: bounds.right().value,
        })
    })
}

/// The text set in the largest font among the characters given, when it
/// reads like a title (three words or more): consecutive characters of one size form a
/// run, and the first run of the largest size is the title.
fn largest_text(chars: &[SizedChar]) -> Option<String> {
    let mut runs: Vec<(f32, String)> = Vec::new();
    for char in chars {
        let c = if char.c.is_whitespace() || char.c == '\u{2}' {
            ' '
        } else {
            char.c
        };
        let size = (char.size * 2.0).round() / 2.0;
        match runs.last_mut() {
            Some((last, run)) if (*last - size).abs() < 0.6 || c == ' ' => run.push(c),
            _ => runs.push((size, c.to_string())),
        }
    }
    let words = |text: &str| text.split_whitespace().count();
    let largest = runs
        .iter()
        .filter(|(_, run)| run.chars().filter(|c| c.is_alphabetic()).count() >= 3)
        .map(|(size, _)| *size)
        .fold(0.0f32, f32::max);
    // The first run of that size (a title may share its size with the body text, as in
    // AASTeX drafts, so later runs of the same size are not joined).
    let title: String = runs
        .iter()
        .find(|(size, run)| {
            (*size - largest).abs() < 0.6 && run.chars().filter(|c| c.is_alphabetic()).count() >= 3
        })
        .map(|(_, run)| run.clone())
        .unwrap_or_default();
    let title = title.split_whitespace().collect::<Vec<_>>().join(" ");
    (words(&title) >= 3 && title.chars().count() <= 300).then_some(title)
}

fn with_pdf_extract(bytes: &[u8]) -> Result<PdfText, PdfError> {
    // pdf-extract panics on some malformed files; a bad PDF must not take the app down.
    let result = std::panic::catch_unwind(|| pdf_extract::extract_text_from_mem_by_pages(bytes));
    match result {
        Ok(Ok(pages)) => Ok(PdfText {
            pages,
            title: None,
            title_guess: None,
            info: PdfInfo::default(),
            engine: PdfEngine::PdfExtract,
            figures: Vec::new(),
        }),
        Ok(Err(error)) => {
            let message = error.to_string();
            if message.to_lowercase().contains("encrypt") || message.contains("password") {
                Err(PdfError::Encrypted)
            } else {
                Err(PdfError::Corrupt(message))
            }
        }
        Err(_) => Err(PdfError::Corrupt(
            "pdf-extract could not read its structure".into(),
        )),
    }
}
