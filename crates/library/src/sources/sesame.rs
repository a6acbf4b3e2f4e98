//! CDS Sesame: object name → position, type and aliases, from Simbad, NED and VizieR.
//!
//! The client asks for the text output (`-oI/SNV`); the parser reads both the text and
//! the XML outputs, detected by content, so a cached or proxied XML answer works too.

mod otype;
mod parse;

use std::time::Duration;

use asterism_protocol::ResolvedTarget;

pub use otype::object_type_label;
pub use parse::parse_sesame;

/// Why a name could not be resolved.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SesameError {
    #[error("Sesame found no object named \"{0}\" in Simbad, NED or VizieR")]
    NotFound(String),
    #[error("Sesame did not answer within {0} s")]
    Timeout(u64),
    #[error("cannot reach Sesame: {0}")]
    Network(String),
    #[error("Sesame answered HTTP {0}")]
    Http(u16),
    #[error("Sesame's answer could not be read: {0}")]
    BadResponse(String),
}

/// The Sesame name resolver at a configurable base URL
/// (default `https://cds.unistra.fr/cgi-bin/nph-sesame`).
#[derive(Debug, Clone)]
pub struct SesameClient {
    base_url: String,
    http: reqwest::Client,
    timeout: Duration,
}

impl SesameClient {
    pub const DEFAULT_URL: &'static str = "https://cds.unistra.fr/cgi-bin/nph-sesame";

    pub fn new(base_url: impl Into<String>, timeout: Duration) -> Result<Self, SesameError> {
        let http = crate::http::client(timeout)
            .map_err(|error| SesameError::Network(crate::http::describe(&error)))?;
        Ok(Self {
            base_url: base_url.into().trim_end_matches('/').to_string(),
            http,
            timeout,
        })
    }

    /// The URL asked for `name`: `{base}/-oI/SNV?{name}` (Simbad, then NED, then VizieR,
    /// with all identifiers).
    pub fn url_for(&self, name: &str) -> String {
        let encoded =
            percent_encoding::utf8_percent_encode(name.trim(), percent_encoding::NON_ALPHANUMERIC);
        format!("{}/-oI/SNV?{encoded}", self.base_url)
    }

    /// Resolves a name.
    pub async fn resolve(&self, name: &str) -> Result<ResolvedTarget, SesameError> {
        let name = name.trim();
        if name.is_empty() {
            return Err(SesameError::NotFound(String::new()));
        }
        let response = self
            .http
            .get(self.url_for(name))
            .send()
            .await
            .map_err(|error| self.transport_error(&error))?;
        let status = response.status();
        if !status.is_success() {
            return Err(SesameError::Http(status.as_u16()));
        }
        let body = response
            .text()
            .await
            .map_err(|error| self.transport_error(&error))?;
        parse_sesame(name, &body)
    }

    fn transport_error(&self, error: &reqwest::Error) -> SesameError {
        if error.is_timeout() {
            SesameError::Timeout(self.timeout.as_secs().max(1))
        } else {
            SesameError::Network(crate::http::describe(error))
        }
    }
}
