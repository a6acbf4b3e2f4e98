//! The Crossref REST API (`{CROSSREF_URL}/works`): a bibliographic search by title and
//! author, and one work by DOI. Crossref knows the published version of most journal
//! papers, including those ADS or arXiv miss, and needs no key.

use std::time::Duration;

use asterism_protocol::PaperRecord;
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use serde_json::Value;

/// What is escaped in a DOI put in a path: not its slash, dots, dashes or brackets.
const DOI_PATH: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'/')
    .remove(b'.')
    .remove(b'-')
    .remove(b'_')
    .remove(b'(')
    .remove(b')')
    .remove(b':')
    .remove(b';');

/// Why a Crossref request failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CrossrefError {
    #[error("Crossref did not answer within {0} s")]
    Timeout(u64),
    #[error("cannot reach Crossref: {0}")]
    Network(String),
    #[error("Crossref answered HTTP {0}")]
    Http(u16),
    #[error("Crossref's answer could not be read: {0}")]
    BadResponse(String),
}

/// The Crossref client.
#[derive(Debug, Clone)]
pub struct CrossrefClient {
    base_url: String,
    http: reqwest::Client,
    timeout: Duration,
}

impl CrossrefClient {
    pub const DEFAULT_URL: &'static str = "https://api.crossref.org";

    pub fn new(base_url: impl Into<String>, timeout: Duration) -> Result<Self, CrossrefError> {
        let http = crate::http::client(timeout)
            .map_err(|error| CrossrefError::Network(crate::http::describe(&error)))?;
        Ok(Self {
            base_url: base_url.into().trim_end_matches('/').to_string(),
            http,
            timeout,
        })
    }

    /// The works best matching a title (and first author's family name), best first.
    pub async fn search(
        &self,
        title: &str,
        author: Option<&str>,
        rows: u32,
    ) -> Result<Vec<PaperRecord>, CrossrefError> {
        let mut params = vec![
            ("query.bibliographic", title.to_string()),
            ("rows", rows.clamp(1, 20).to_string()),
        ];
        if let Some(author) = author {
            params.push(("query.author", author.to_string()));
        }
        let url = format!("{}/works", self.base_url);
        match self.get(&url, &params).await? {
            Some(body) => parse_works(&body),
            None => Err(CrossrefError::Http(404)),
        }
    }

    /// The work with this DOI; `None` when Crossref does not know it.
    pub async fn work(&self, doi: &str) -> Result<Option<PaperRecord>, CrossrefError> {
        let url = format!(
            "{}/works/{}",
            self.base_url,
            utf8_percent_encode(doi.trim(), DOI_PATH)
        );
        match self.get(&url, &[]).await? {
            Some(body) => Ok(parse_works(&body)?.into_iter().next()),
            None => Ok(None),
        }
    }

    /// The body of a GET; `None` for a 404.
    async fn get(
        &self,
        url: &str,
        params: &[(&str, String)],
    ) -> Result<Option<String>, CrossrefError> {
        let response = self
            .http
            .get(url)
            .query(params)
            .send()
            .await
            .map_err(|error| self.transport(&error))?;
        let status = response.status();
        if status.as_u16() == 404 {
            return Ok(None);
        }
        if !status.is_success() {
            return Err(CrossrefError::Http(status.as_u16()));
        }
        let body = response
            .text()
            .await
            .map_err(|error| self.transport(&error))?;
        Ok(Some(body))
    }

    fn transport(&self, error: &reqwest::Error) -> CrossrefError {
        if error.is_timeout() {
            CrossrefError::Timeout(self.timeout.as_secs().max(1))
        } else {
            CrossrefError::Network(crate::http::describe(error))
        }
    }
}

/// Reads a `work-list` (a search) or a `work` (one DOI) answer.
pub fn parse_works(body: &str) -> Result<Vec<PaperRecord>, CrossrefError> {
    let value: Value = serde_json::from_str(body)
        .map_err(|error| CrossrefError::BadResponse(format!("not JSON: {error}")))?;
    let message = &value["message"];
    match value["message-type"].as_str() {
        Some("work-list") => Ok(message["items"]
            .as_array()
            .map(|items| items.iter().filter_map(to_paper).collect())
            .unwrap_or_default()),
        Some("work") => Ok(to_paper(message).into_iter().collect()),
        other => Err(CrossrefError::BadResponse(format!(
            "a {} answer, not works",
            other.unwrap_or("typeless")
        ))),
    }
}

/// Markup (JATS, `<scp>`, `<i>`) and entities out; whitespace collapsed.
fn plain(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_tag = false;
    for c in text.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => in_tag = false,
            _ if !in_tag => out.push(c),
            _ => {}
        }
    }
    let out = out
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&");
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn first_text(value: &Value) -> Option<String> {
    value
        .as_array()
        .and_then(|items| items.first())
        .and_then(Value::as_str)
        .map(plain)
        .filter(|text| !text.is_empty())
}

fn year(work: &Value) -> Option<i32> {
    ["issued", "published-print", "published-online", "created"]
        .iter()
        .find_map(|field| work[field]["date-parts"][0][0].as_i64())
        .and_then(|year| i32::try_from(year).ok())
}

fn author_name(author: &Value) -> Option<String> {
    let family = author["family"]
        .as_str()
        .map(plain)
        .filter(|f| !f.is_empty());
    let given = author["given"]
        .as_str()
        .map(plain)
        .filter(|g| !g.is_empty());
    match (family, given) {
        (Some(family), Some(given)) => Some(format!("{family}, {given}")),
        (Some(family), None) => Some(family),
        _ => author["name"].as_str().map(plain).filter(|n| !n.is_empty()),
    }
}

/// One Crossref work as a record; one without a DOI or a title is dropped.
fn to_paper(work: &Value) -> Option<PaperRecord> {
    let doi = work["DOI"].as_str()?.trim().to_string();
    let title = first_text(&work["title"])?;
    let authors: Vec<&Value> = work["author"]
        .as_array()
        .map_or(Vec::new(), |a| a.iter().collect());
    let affiliations: Vec<String> = authors
        .iter()
        .map(|author| {
            author["affiliation"]
                .as_array()
                .map(|list| {
                    list.iter()
                        .filter_map(|a| a["name"].as_str().map(plain))
                        .collect::<Vec<_>>()
                        .join("; ")
                })
                .unwrap_or_default()
        })
        .collect();
    Some(PaperRecord {
        doi: Some(doi),
        title,
        authors: authors.iter().filter_map(|a| author_name(a)).collect(),
        affiliations: if affiliations.iter().all(String::is_empty) {
            Vec::new()
        } else {
            affiliations
        },
        year: year(work),
        journal: first_text(&work["container-title"]),
        volume: work["volume"].as_str().map(str::to_string),
        page: work["page"].as_str().map(str::to_string),
        abstract_text: work["abstract"]
            .as_str()
            .map(plain)
            .filter(|a| !a.is_empty()),
        citation_count: work["is-referenced-by-count"]
            .as_i64()
            .and_then(|count| i32::try_from(count).ok()),
        sources: vec!["crossref".into()],
        ..PaperRecord::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_and_entities_are_removed() {
        assert_eq!(
            plain("<scp>T</scp>reebase: an<scp>R</scp>package"),
            "Treebase: anRpackage"
        );
        assert_eq!(plain("Big Data &amp; Society"), "Big Data & Society");
        assert_eq!(
            plain("<jats:title>Abstract</jats:title><jats:p>Noise,\n   as the term</jats:p>"),
            "AbstractNoise, as the term"
        );
    }

    #[test]
    fn other_answers_are_refused() {
        assert!(parse_works("{\"status\":\"ok\",\"message-type\":\"journal-list\"}").is_err());
        assert!(parse_works("<html>").is_err());
        let empty = r#"{"status":"ok","message-type":"work-list","message":{"items":[]}}"#;
        assert_eq!(parse_works(empty), Ok(Vec::new()));
    }
}
