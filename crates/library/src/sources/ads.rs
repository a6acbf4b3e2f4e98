//! The NASA ADS API: search, BibTeX/AASTeX export and the link resolver. Handles the
//! field quirks (title, doi and page arrays; year as a string; arXiv ids hidden in
//! `identifier`), reads the rate-limit headers and turns 401/429/5xx into clear errors.

mod biblib;
mod doc;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use asterism_protocol::PaperRecord;
use serde::{Deserialize, Serialize};
use specta::Type;

pub use biblib::{AdsLibrary, DocumentChange, LibraryContents, is_library_id};
pub use doc::paper_from_doc;

/// Fields asked for by default: everything a search result or metadata card shows.
pub const DEFAULT_FIELDS: &str = "bibcode,title,author,aff,year,pub,volume,page,doi,identifier,abstract,keyword,citation_count,pubdate,doctype,arxiv_class";

/// Why an ADS request failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum AdsError {
    #[error("no ADS token: set ADS_API_TOKEN (https://ui.adsabs.harvard.edu/user/settings/token)")]
    NoToken,
    #[error("ADS rejected the token (HTTP 401): check ADS_API_TOKEN")]
    Unauthorized,
    #[error("ADS refused (HTTP 403): {0}")]
    Forbidden(String),
    #[error("the ADS daily limit is used up; it resets {0}")]
    RateLimited(String),
    #[error("ADS answered HTTP {status}: {message}")]
    Http { status: u16, message: String },
    #[error("ADS did not answer within {0} s")]
    Timeout(u64),
    #[error("cannot reach ADS: {0}")]
    Network(String),
    #[error("ADS's answer could not be read: {0}")]
    BadResponse(String),
}

/// The rate limit ADS reported with its last answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct AdsRateLimit {
    pub limit: Option<i32>,
    pub remaining: Option<i32>,
    /// When the limit resets, RFC 3339.
    pub resets_at: Option<String>,
}

impl AdsRateLimit {
    /// The limit an ADS answer's `X-RateLimit-*` headers state, if they state one.
    pub fn from_headers(headers: &reqwest::header::HeaderMap) -> Option<Self> {
        let number = |name| header_number(headers, name).and_then(|n| i32::try_from(n).ok());
        let limit = Self {
            limit: number("x-ratelimit-limit"),
            remaining: number("x-ratelimit-remaining"),
            resets_at: header_number(headers, "x-ratelimit-reset").and_then(epoch_to_rfc3339),
        };
        (limit.limit.is_some() || limit.remaining.is_some()).then_some(limit)
    }

    /// Fewer than 10% of the day's requests are left.
    pub fn is_low(&self) -> bool {
        match (self.remaining, self.limit) {
            (Some(remaining), Some(limit)) if limit > 0 => remaining * 10 < limit,
            (Some(remaining), None) => remaining == 0,
            _ => false,
        }
    }

    /// "4998 of 5000 requests left, resets 2026-12-05T00:00:00Z".
    pub fn describe(&self) -> String {
        let left = match (self.remaining, self.limit) {
            (Some(remaining), Some(limit)) => format!("{remaining} of {limit} requests left"),
            (Some(remaining), None) => format!("{remaining} requests left"),
            (None, Some(limit)) => format!("limit {limit} requests"),
            (None, None) => "quota unknown".into(),
        };
        match &self.resets_at {
            Some(at) => format!("{left}, resets {at}"),
            None => left,
        }
    }
}

/// One search's answer.
#[derive(Debug, Clone, PartialEq)]
pub struct AdsSearch {
    pub num_found: u32,
    pub papers: Vec<PaperRecord>,
}

/// A full-text or data link from the resolver.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AdsLink {
    pub link_type: String,
    pub url: String,
}

/// A search request. `q` uses ADS syntax (`author:"Freedman, W" year:2019-2024`).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct AdsQuery {
    pub q: String,
    pub fl: Option<String>,
    pub fq: Vec<String>,
    pub rows: u32,
    pub start: u32,
    pub sort: Option<String>,
}

/// The ADS client. Clones share the rate-limit state.
#[derive(Clone)]
pub struct AdsClient {
    base_url: String,
    token: Option<String>,
    http: reqwest::Client,
    timeout: Duration,
    rate: Arc<Mutex<Option<AdsRateLimit>>>,
}

/// The token is never printed: `Debug` output ends up in logs and panics.
impl std::fmt::Debug for AdsClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AdsClient")
            .field("base_url", &self.base_url)
            .field("token", &self.token.as_ref().map(|_| "***"))
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

fn header_number(headers: &reqwest::header::HeaderMap, name: &str) -> Option<i64> {
    headers.get(name)?.to_str().ok()?.trim().parse().ok()
}

fn epoch_to_rfc3339(seconds: i64) -> Option<String> {
    chrono::DateTime::from_timestamp(seconds, 0)
        .map(|time| time.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
}

impl AdsClient {
    pub const DEFAULT_URL: &'static str = "https://api.adsabs.harvard.edu/v1";

    pub fn new(
        base_url: impl Into<String>,
        token: Option<String>,
        timeout: Duration,
    ) -> Result<Self, AdsError> {
        let http = crate::http::client(timeout)
            .map_err(|error| AdsError::Network(crate::http::describe(&error)))?;
        Ok(Self {
            base_url: base_url.into().trim_end_matches('/').to_string(),
            token: token.filter(|token| !token.trim().is_empty()),
            http,
            timeout,
            rate: Arc::default(),
        })
    }

    /// Whether a token is configured (without one every call is `NoToken`).
    pub fn has_token(&self) -> bool {
        self.token.is_some()
    }

    /// The rate limit of the last answer, for the agent and the UI.
    pub fn rate_limit(&self) -> Option<AdsRateLimit> {
        self.rate.lock().ok().and_then(|rate| rate.clone())
    }

    pub async fn search(&self, query: &AdsQuery) -> Result<AdsSearch, AdsError> {
        let mut params: Vec<(&str, String)> = vec![
            ("q", query.q.clone()),
            (
                "fl",
                query
                    .fl
                    .clone()
                    .unwrap_or_else(|| DEFAULT_FIELDS.to_string()),
            ),
            ("rows", query.rows.max(1).to_string()),
            ("start", query.start.to_string()),
        ];
        if let Some(sort) = &query.sort {
            params.push(("sort", sort.clone()));
        }
        for filter in &query.fq {
            params.push(("fq", filter.clone()));
        }
        let body = self.get_json("/search/query", &params).await?;
        let response = body
            .get("response")
            .ok_or_else(|| AdsError::BadResponse("no `response` in the answer".into()))?;
        let num_found = response
            .get("numFound")
            .and_then(serde_json::Value::as_u64)
            .unwrap_or(0);
        let docs = response
            .get("docs")
            .and_then(serde_json::Value::as_array)
            .cloned()
            .unwrap_or_default();
        Ok(AdsSearch {
            num_found: u32::try_from(num_found).unwrap_or(u32::MAX),
            papers: docs.iter().filter_map(paper_from_doc).collect(),
        })
    }

    /// BibTeX of the given bibcodes, as ADS exports it.
    pub async fn export_bibtex(&self, bibcodes: &[String]) -> Result<String, AdsError> {
        self.export("bibtex", bibcodes).await
    }

    /// AASTeX references of the given bibcodes.
    pub async fn export_aastex(&self, bibcodes: &[String]) -> Result<String, AdsError> {
        self.export("aastex", bibcodes).await
    }

    async fn export(&self, format: &str, bibcodes: &[String]) -> Result<String, AdsError> {
        let body = self
            .post_json(
                &format!("/export/{format}"),
                &serde_json::json!({"bibcode": bibcodes}),
            )
            .await?;
        body.get("export")
            .and_then(serde_json::Value::as_str)
            .map(str::to_string)
            .ok_or_else(|| AdsError::BadResponse("no `export` in the answer".into()))
    }

    /// Full-text links of a paper (EPRINT_PDF, PUB_PDF, …) from the resolver.
    pub async fn links(&self, bibcode: &str) -> Result<Vec<AdsLink>, AdsError> {
        let encoded =
            percent_encoding::utf8_percent_encode(bibcode, percent_encoding::NON_ALPHANUMERIC);
        let body = self
            .get_json(&format!("/resolver/{encoded}/esource"), &[])
            .await?;
        let mut links = Vec::new();
        if let Some(records) = body
            .pointer("/links/records")
            .and_then(serde_json::Value::as_array)
        {
            for record in records {
                if let (Some(link_type), Some(url)) = (
                    record.get("link_type").and_then(|v| v.as_str()),
                    record.get("url").and_then(|v| v.as_str()),
                ) {
                    links.push(AdsLink {
                        link_type: link_type.trim_start_matches("ESOURCE|").to_string(),
                        url: url.to_string(),
                    });
                }
            }
        } else if let (Some(url), Some(link_type)) = (
            body.get("link").and_then(|v| v.as_str()),
            body.get("link_type").and_then(|v| v.as_str()),
        ) {
            links.push(AdsLink {
                link_type: link_type.trim_start_matches("ESOURCE|").to_string(),
                url: url.to_string(),
            });
        }
        Ok(links)
    }

    fn token(&self) -> Result<&str, AdsError> {
        self.token.as_deref().ok_or(AdsError::NoToken)
    }

    async fn get_json(
        &self,
        path: &str,
        params: &[(&str, String)],
    ) -> Result<serde_json::Value, AdsError> {
        let request = self
            .http
            .get(format!("{}{path}", self.base_url))
            .query(params)
            .bearer_auth(self.token()?);
        self.send(request).await
    }

    async fn post_json(
        &self,
        path: &str,
        body: &serde_json::Value,
    ) -> Result<serde_json::Value, AdsError> {
        let request = self
            .http
            .post(format!("{}{path}", self.base_url))
            .json(body)
            .bearer_auth(self.token()?);
        self.send(request).await
    }

    async fn send(&self, request: reqwest::RequestBuilder) -> Result<serde_json::Value, AdsError> {
        let response = request.send().await.map_err(|error| {
            if error.is_timeout() {
                AdsError::Timeout(self.timeout.as_secs().max(1))
            } else {
                AdsError::Network(crate::http::describe(&error))
            }
        })?;
        let headers = response.headers().clone();
        let limit = AdsRateLimit::from_headers(&headers);
        if let Some(limit) = &limit
            && let Ok(mut rate) = self.rate.lock()
        {
            *rate = Some(limit.clone());
        }
        let status = response.status().as_u16();
        let text = response.text().await.map_err(|error| {
            if error.is_timeout() {
                AdsError::Timeout(self.timeout.as_secs().max(1))
            } else {
                AdsError::Network(crate::http::describe(&error))
            }
        })?;
        match status {
            200..=299 => serde_json::from_str(&text).map_err(|_| {
                let preview: String = text.trim().chars().take(80).collect();
                AdsError::BadResponse(format!("expected JSON, got {preview:?}"))
            }),
            401 => Err(AdsError::Unauthorized),
            403 => Err(AdsError::Forbidden(error_message(&text))),
            429 => Err(AdsError::RateLimited(
                limit
                    .and_then(|limit| limit.resets_at)
                    .map(|at| format!("at {at}"))
                    .unwrap_or_else(|| "within a day".into()),
            )),
            _ => Err(AdsError::Http {
                status,
                message: error_message(&text),
            }),
        }
    }
}

/// The `error` (or `message`) of an ADS error body, else its first 200 characters.
fn error_message(text: &str) -> String {
    serde_json::from_str::<serde_json::Value>(text)
        .ok()
        .and_then(|value| {
            value
                .get("error")
                .or_else(|| value.get("message"))
                .and_then(|m| m.as_str())
                .map(str::to_string)
        })
        .unwrap_or_else(|| text.trim().chars().take(200).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_output_never_shows_the_token() {
        let client = AdsClient::new(
            "http://127.0.0.1:9",
            Some("ads-secret-token-123456".into()),
            Duration::from_secs(1),
        )
        .unwrap();
        let shown = format!("{client:?}");
        assert!(!shown.contains("ads-secret-token-123456"), "{shown}");
        assert!(shown.contains("***"), "{shown}");
    }
}
