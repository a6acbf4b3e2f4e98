//! Turning papers into Markdown the agent can read and cite: arXiv's HTML (LaTeXML)
//! when it exists, with math kept as TeX; clean-ups every extractor needs.

mod cleanup;
mod html;

pub use cleanup::clean_text;
pub use html::{HtmlParseError, latexml_to_markdown};
