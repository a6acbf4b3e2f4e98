use std::time::Duration;

/// Why a model call failed. Variants drive behaviour: a context overflow triggers
/// compaction, a rate limit carries its delay, auth failures are not retried.
#[derive(Debug, Clone, thiserror::Error, PartialEq)]
pub enum LlmError {
    #[error("the conversation is too long for the model's context window: {0}")]
    ContextLengthExceeded(String),
    #[error("rate limited by the model provider{}", retry_after.map(|d| format!(" (retry after {:.0} s)", d.as_secs_f64())).unwrap_or_default())]
    RateLimited { retry_after: Option<Duration> },
    #[error("the model provider rejected the API key (HTTP {status}): {message}")]
    Auth { status: u16, message: String },
    #[error("network error talking to the model: {0}")]
    Network(String),
    #[error("the model provider answered HTTP {status}: {message}")]
    Http { status: u16, message: String },
    #[error("the model's response could not be understood: {0}")]
    BadResponse(String),
    #[error("the model call was cancelled")]
    Cancelled,
    #[error("the model is not configured: {0}")]
    NotConfigured(String),
}

impl LlmError {
    /// Whether trying the same call again may succeed.
    pub fn is_retryable(&self) -> bool {
        match self {
            LlmError::RateLimited { .. } | LlmError::Network(_) => true,
            LlmError::Http { status, .. } => *status >= 500,
            _ => false,
        }
    }

    /// A short machine-readable kind for events and the CLI (`model`, `network`, …).
    pub fn kind(&self) -> &'static str {
        match self {
            LlmError::ContextLengthExceeded(_) => "contextLengthExceeded",
            LlmError::RateLimited { .. } => "rateLimited",
            LlmError::Auth { .. } => "auth",
            LlmError::Network(_) => "network",
            LlmError::Http { .. } => "model",
            LlmError::BadResponse(_) => "badResponse",
            LlmError::Cancelled => "cancelled",
            LlmError::NotConfigured(_) => "config",
        }
    }

    /// Classifies an HTTP error answer.
    pub fn from_status(status: u16, body: &str, retry_after: Option<Duration>) -> Self {
        let message = error_message(body);
        let lower = message.to_lowercase();
        if status == 429 {
            return LlmError::RateLimited { retry_after };
        }
        if status == 401 || status == 403 {
            return LlmError::Auth { status, message };
        }
        // 413: the request is too large for the provider, which compaction fixes as it
        // fixes a full context window.
        if status == 413
            || lower.contains("context length")
            || lower.contains("context_length")
            || lower.contains("maximum context")
            || lower.contains("too many tokens")
            || lower.contains("range of input length")
        {
            return LlmError::ContextLengthExceeded(message);
        }
        LlmError::Http { status, message }
    }
}

/// The `error.message` of a provider's JSON error body, or the body itself, shortened.
fn error_message(body: &str) -> String {
    let parsed: Option<String> = serde_json::from_str::<serde_json::Value>(body)
        .ok()
        .and_then(|value| {
            value
                .pointer("/error/message")
                .or_else(|| value.get("message"))
                .or_else(|| value.get("error"))
                .and_then(|message| message.as_str().map(str::to_string))
        });
    let message = parsed.unwrap_or_else(|| body.trim().to_string());
    if message.chars().count() > 500 {
        message.chars().take(500).collect::<String>() + "…"
    } else if message.is_empty() {
        "(empty body)".into()
    } else {
        message
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_provider_errors() {
        assert!(matches!(
            LlmError::from_status(
                400,
                r#"{"error":{"message":"This model's maximum context length is 8192 tokens"}}"#,
                None
            ),
            LlmError::ContextLengthExceeded(_)
        ));
        assert_eq!(
            LlmError::from_status(429, "", Some(Duration::from_secs(3))),
            LlmError::RateLimited {
                retry_after: Some(Duration::from_secs(3))
            }
        );
        assert!(matches!(
            LlmError::from_status(401, r#"{"error":"Unauthorized"}"#, None),
            LlmError::Auth { .. }
        ));
        let server = LlmError::from_status(503, "<html>busy</html>", None);
        assert!(server.is_retryable());
        assert!(server.to_string().contains("503"));
    }
}
