//! The shared HTTP client set-up for the external services.

use std::time::Duration;

/// A reqwest client with the ring TLS provider installed and a user agent that names
/// Asterism (ADS and CDS ask clients to identify themselves).
pub fn client(timeout: Duration) -> reqwest::Result<reqwest::Client> {
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder()
        .user_agent(concat!(
            "Asterism/",
            env!("CARGO_PKG_VERSION"),
            " (research agent for astronomers)"
        ))
        // A service that cannot be reached is given up on in seconds (offline, or a
        // firewall dropping packets); one that answers has the whole `timeout`.
        .connect_timeout(Duration::from_secs(3).min(timeout))
        .timeout(timeout)
        .build()
}

/// The error chain of a reqwest error in one line (reqwest hides the cause in sources).
pub fn describe(error: &reqwest::Error) -> String {
    let mut text = error.to_string();
    let mut source = std::error::Error::source(error);
    while let Some(inner) = source {
        text.push_str(": ");
        text.push_str(&inner.to_string());
        source = inner.source();
    }
    text
}
