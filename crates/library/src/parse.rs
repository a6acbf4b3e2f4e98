//! Turning papers into Markdown the agent can read and cite: arXiv's HTML (LaTeXML)
//! when it exists, with math kept as TeX; otherwise the PDF's text layer with page
//! markers and recovered section headings; clean-ups every extractor needs.

mod cleanup;
mod figures;
mod html;
mod layout;
mod paper;
mod pdf;
mod placed;

pub use cleanup::clean_text;
pub use figures::{FigureRegion, PageContent, Rect, TextRun, find_regions};
pub use html::{HtmlParseError, latexml_to_markdown};
pub use layout::{
    Section, page_marker, pages_to_markdown, sections_of, select_pages, select_section,
};
pub use paper::{
    ContentSlice, ParseError, ParsedPaper, Parser, parse_file, parse_html, parse_page_range,
    parse_pdf_bytes, select_content,
};
pub use pdf::{
    PdfEngine, PdfError, PdfInfo, PdfText, extract_pdf, extract_pdf_with, figure_regions,
    pdf_engine_report, render_region,
};
