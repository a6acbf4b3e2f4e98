//! The arXiv API (`{ARXIV_API_URL}/query`): Atom feeds in the current and the 2016
//! formats, at most one request per 3 seconds over one connection, as arXiv asks.

mod atom;

use std::sync::Arc;
use std::time::{Duration, Instant};

use asterism_protocol::PaperRecord;
use tokio::sync::Mutex;

pub use atom::{ArxivFeed, parse_feed, split_arxiv_id};

/// Why an arXiv request failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ArxivError {
    #[error("arXiv rejected the query: {0}")]
    Rejected(String),
    #[error("arXiv did not answer within {0} s")]
    Timeout(u64),
    #[error("cannot reach arXiv: {0}")]
    Network(String),
    #[error("arXiv answered HTTP {0}")]
    Http(u16),
    #[error("arXiv's answer could not be read: {0}")]
    BadResponse(String),
}

/// How to sort a search.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArxivSort {
    Relevance,
    SubmittedDate,
    LastUpdatedDate,
}

impl ArxivSort {
    fn as_str(self) -> &'static str {
        match self {
            ArxivSort::Relevance => "relevance",
            ArxivSort::SubmittedDate => "submittedDate",
            ArxivSort::LastUpdatedDate => "lastUpdatedDate",
        }
    }
}

/// The arXiv API client. Clones share the rate limit.
#[derive(Debug, Clone)]
pub struct ArxivClient {
    base_url: String,
    http: reqwest::Client,
    timeout: Duration,
    /// When the last request was sent; requests wait their turn here.
    gate: Arc<Mutex<Option<Instant>>>,
    interval: Duration,
}

impl ArxivClient {
    pub const DEFAULT_URL: &'static str = "https://export.arxiv.org/api";

    pub fn new(base_url: impl Into<String>, timeout: Duration) -> Result<Self, ArxivError> {
        let _ = rustls::crypto::ring::default_provider().install_default();
        let http = reqwest::Client::builder()
            .user_agent(concat!(
                "Asterism/",
                env!("CARGO_PKG_VERSION"),
                " (research agent for astronomers)"
            ))
            .timeout(timeout)
            .pool_max_idle_per_host(1)
            .build()
            .map_err(|error| ArxivError::Network(crate::http::describe(&error)))?;
        Ok(Self {
            base_url: base_url.into().trim_end_matches('/').to_string(),
            http,
            timeout,
            gate: Arc::default(),
            interval: Duration::from_secs(3),
        })
    }

    /// Changes the minimum spacing of requests (tests use a short one).
    pub fn with_interval(mut self, interval: Duration) -> Self {
        self.interval = interval;
        self
    }

    /// Searches, e.g. `all:"tip of the red giant branch" AND cat:astro-ph.CO`.
    pub async fn search(
        &self,
        query: &str,
        start: u32,
        max_results: u32,
        sort: ArxivSort,
    ) -> Result<ArxivFeed, ArxivError> {
        let params = [
            ("search_query", query.to_string()),
            ("start", start.to_string()),
            ("max_results", max_results.to_string()),
            ("sortBy", sort.as_str().to_string()),
            ("sortOrder", "descending".to_string()),
        ];
        self.query(&params).await
    }

    /// Looks papers up by arXiv id (with or without version).
    pub async fn by_ids(&self, ids: &[String]) -> Result<Vec<PaperRecord>, ArxivError> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let params = [
            ("id_list", ids.join(",")),
            ("max_results", ids.len().to_string()),
        ];
        Ok(self.query(&params).await?.papers)
    }

    async fn query(&self, params: &[(&str, String)]) -> Result<ArxivFeed, ArxivError> {
        {
            // One request at a time, spaced by `interval`.
            let mut last = self.gate.lock().await;
            if let Some(previous) = *last {
                let wait = self.interval.saturating_sub(previous.elapsed());
                if !wait.is_zero() {
                    tokio::time::sleep(wait).await;
                }
            }
            *last = Some(Instant::now());
        }
        let url = format!("{}/query", self.base_url);
        let response = self
            .http
            .get(&url)
            .query(params)
            .send()
            .await
            .map_err(|error| self.transport(&error))?;
        let status = response.status();
        let body = response
            .text()
            .await
            .map_err(|error| self.transport(&error))?;
        // arXiv reports bad queries as an Atom feed with one "Error" entry (HTTP 400).
        let feed = parse_feed(&body);
        match feed {
            Ok(feed) if feed.error.is_some() => {
                Err(ArxivError::Rejected(feed.error.unwrap_or_default()))
            }
            Ok(feed) if status.is_success() => Ok(feed),
            Ok(_) => Err(ArxivError::Http(status.as_u16())),
            Err(_) if !status.is_success() => Err(ArxivError::Http(status.as_u16())),
            Err(error) => Err(error),
        }
    }

    fn transport(&self, error: &reqwest::Error) -> ArxivError {
        if error.is_timeout() {
            ArxivError::Timeout(self.timeout.as_secs().max(1))
        } else {
            ArxivError::Network(crate::http::describe(error))
        }
    }
}
