//! Metadata read from a PDF itself, for papers no service identifies: the document
//! information dictionary, the XMP packet and the text of page 1 (title, authors,
//! affiliations, abstract, keywords, year, DOI, arXiv id, journal). The result is a
//! record good enough for BibTeX; an online record, when one is found, replaces it.

mod authors;
mod front;
mod xmp;

use asterism_protocol::PaperRecord;

use crate::parse::{PdfInfo, PdfText};

pub use authors::{family_and_given, is_group, parse_author_block};
pub use xmp::{Xmp, read_xmp};

/// What `papers.metadata_source` says of a record extracted here.
pub const LOCAL_SOURCE: &str = "local";

/// What the PDF says about itself.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LocalMetadata {
    pub title: Option<String>,
    /// "Family, Given", in the order printed.
    pub authors: Vec<String>,
    /// Per author, the affiliations printed for them ("; " between several), when the
    /// page says which is whose.
    pub affiliations: Vec<String>,
    pub abstract_text: Option<String>,
    pub keywords: Vec<String>,
    pub year: Option<i32>,
    pub doi: Option<String>,
    pub arxiv_id: Option<String>,
    pub journal: Option<String>,
}

impl LocalMetadata {
    /// Reads a PDF's text (as [`crate::parse::extract_pdf`] gave it) and its raw bytes
    /// (for the XMP packet, which pdfium does not expose).
    pub fn of_pdf(text: &PdfText, bytes: &[u8]) -> Self {
        let page1 = text.pages.first().map(String::as_str).unwrap_or_default();
        let title_hint = text.title.as_deref().or(text.title_guess.as_deref());
        Self::of_parts(page1, title_hint, &text.info, &read_xmp(bytes))
    }

    /// Page 1's text, a title hint (Title metadata or the largest text), the
    /// information dictionary and the XMP packet, combined: what is printed on the page
    /// wins over metadata, which is often empty or left from a template.
    pub fn of_parts(page1: &str, title_hint: Option<&str>, info: &PdfInfo, xmp: &Xmp) -> Self {
        let hint = xmp
            .title
            .as_deref()
            .or(title_hint)
            .filter(|title| front::plausible_title(title));
        let front = front::read_front(page1, hint);
        let mut authors = front.authors;
        let mut affiliations = front.affiliations;
        if authors.is_empty() {
            affiliations.clear();
            authors = xmp
                .creators
                .iter()
                .map(|name| family_and_given(name))
                .collect();
            if authors.is_empty() {
                authors = metadata_authors(info.author.as_deref());
            }
        }
        // The page's own date, or the publication date the XMP packet states; never
        // when the file was made (a re-saved PDF would carry the day it was saved).
        let year = front.year.or(xmp.year);
        let keywords = if front.keywords.is_empty() {
            split_keywords(info.keywords.as_deref())
        } else {
            front.keywords
        };
        Self {
            title: front.title,
            authors,
            affiliations,
            abstract_text: front.abstract_text,
            keywords,
            year,
            doi: xmp.doi.clone().or(front.doi),
            arxiv_id: front.arxiv_id,
            journal: front.journal.or_else(|| xmp.journal.clone()),
        }
    }

    /// The record to store: `fallback_title` when no title was found.
    pub fn to_record(&self, fallback_title: &str) -> PaperRecord {
        PaperRecord {
            arxiv_id: self.arxiv_id.clone(),
            doi: self.doi.clone(),
            title: self
                .title
                .clone()
                .unwrap_or_else(|| fallback_title.to_string()),
            authors: self.authors.clone(),
            affiliations: self.affiliations.clone(),
            year: self.year,
            journal: self.journal.clone(),
            abstract_text: self.abstract_text.clone(),
            keywords: self.keywords.clone(),
            sources: vec![LOCAL_SOURCE.into()],
            ..PaperRecord::default()
        }
    }
}

/// The Author entry of the information dictionary, when it names people ("A. Smith
/// and B. Jones", "Smith, A.; Jones, B."): not a publisher or a tool.
fn metadata_authors(author: Option<&str>) -> Vec<String> {
    let Some(author) = author.map(str::trim).filter(|a| !a.is_empty()) else {
        return Vec::new();
    };
    let names: Vec<&str> = if author.contains(';') {
        author.split(';').collect()
    } else {
        author
            .split(" and ")
            .flat_map(|part| part.split(", "))
            .collect()
    };
    let names: Vec<&str> = names
        .into_iter()
        .map(str::trim)
        .filter(|name| !name.is_empty())
        .collect();
    if names.iter().all(|name| authors::looks_like_name(name)) {
        names.into_iter().map(family_and_given).collect()
    } else {
        Vec::new()
    }
}

fn split_keywords(keywords: Option<&str>) -> Vec<String> {
    keywords
        .unwrap_or_default()
        .split([',', ';'])
        .map(str::trim)
        .filter(|word| !word.is_empty())
        .map(str::to_string)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metadata_authors_must_be_people() {
        assert_eq!(
            metadata_authors(Some("Jane Smith and Rui Costa")),
            vec!["Smith, Jane", "Costa, Rui"]
        );
        assert!(metadata_authors(Some("MDPI")).is_empty());
        assert!(metadata_authors(Some("")).is_empty());
    }

    #[test]
    fn metadata_fills_what_the_page_lacks() {
        let info = PdfInfo {
            author: Some("Jane Smith".into()),
            creation_date: Some("D:20190530161425-04'00'".into()),
            keywords: Some("galaxies, dust".into()),
            ..PdfInfo::default()
        };
        let found = LocalMetadata::of_parts("", None, &info, &Xmp::default());
        assert_eq!(found.authors, vec!["Smith, Jane"]);
        assert_eq!(
            found.year, None,
            "the file's creation is not the paper's date"
        );
        assert_eq!(found.keywords, vec!["galaxies", "dust"]);
        assert_eq!(found.to_record("file").title, "file");
    }
}
