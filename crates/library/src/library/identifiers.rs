//! Identifiers printed in a paper's text: its arXiv id and its DOI. Used by the import
//! (the first pages) and by the metadata read from page 1 and the XMP packet.

use std::sync::LazyLock;

use regex::Regex;

static ARXIV_NEW: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\barXiv:\s*(\d{4}\.\d{4,5})(?:v\d+)?").unwrap_or_else(|_| unreachable!())
});
static ARXIV_OLD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(astro-ph|gr-qc|hep-ph|hep-th|physics)/(\d{7})(?:v\d+)?")
        .unwrap_or_else(|_| unreachable!())
});
static DOI: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"(?i)\b(?:doi\.org/|doi:\s*)?(10\.\d{4,9}/[^\s"<>,;]+)"#)
        .unwrap_or_else(|_| unreachable!())
});

/// The arXiv id printed in a paper's first pages (the arXiv stamp), if any.
pub fn find_arxiv_id(text: &str) -> Option<String> {
    if let Some(caps) = ARXIV_NEW.captures(text) {
        return Some(caps[1].to_string());
    }
    ARXIV_OLD
        .captures(text)
        .map(|caps| format!("{}/{}", caps[1].to_lowercase(), &caps[2]))
}

/// The first DOI in the text, without trailing punctuation.
pub fn find_doi(text: &str) -> Option<String> {
    DOI.captures(text)
        .map(|caps| caps[1].trim_end_matches(['.', ')', ']', '}']).to_string())
}
