//! The typed error every command returns: `{kind, message}`.

use serde::Serialize;
use specta::Type;

/// What kind of failure a command had, for the UI to react to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Type)]
#[serde(rename_all = "camelCase")]
pub enum AppErrorKind {
    NotFound,
    InvalidInput,
    /// Configuration is missing or wrong (e.g. no model configured).
    Config,
    Storage,
    Model,
    /// An outside service (Sesame, ADS, arXiv) failed or refused.
    Service,
    /// The session already has a run in progress.
    Busy,
    Internal,
}

/// A command's error, shown to people as `message`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Type, thiserror::Error)]
#[error("{message}")]
pub struct AppError {
    pub kind: AppErrorKind,
    pub message: String,
}

impl AppError {
    pub fn new(kind: AppErrorKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
        }
    }
}

impl From<asterism_store::StoreError> for AppError {
    fn from(error: asterism_store::StoreError) -> Self {
        let kind = match error {
            asterism_store::StoreError::NotFound(_) => AppErrorKind::NotFound,
            asterism_store::StoreError::Invalid(_) => AppErrorKind::InvalidInput,
            _ => AppErrorKind::Storage,
        };
        Self::new(kind, error.to_string())
    }
}
