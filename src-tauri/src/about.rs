//! The About view: the version, the parts this installation runs on, and the notices of
//! everything shipped (the bundled `licenses.json`, see `asterism_library::parts`).

use asterism_library::parts::{Component, Notices, NoticesError};
use serde::Serialize;
use specta::Type;
use tauri::State;

use crate::commands::LocalParts;
use crate::error::{AppError, AppErrorKind};
use crate::state::AppState;

#[derive(Debug, Clone, Serialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct About {
    pub version: String,
    pub parts: LocalParts,
    /// Where the notices were read from; `None` with `notices_problem` saying why.
    pub notices_path: Option<String>,
    pub notices_problem: Option<String>,
    /// Each shipped component and the ids of its licence texts ([`license_text`]).
    pub components: Vec<Component>,
}

#[tauri::command]
#[specta::specta]
pub async fn about(state: State<'_, AppState>) -> Result<About, AppError> {
    let parts = LocalParts::of(&state.engine().settings);
    let version = env!("CARGO_PKG_VERSION").to_string();
    Ok(match Notices::find() {
        Ok((notices, path)) => About {
            version,
            parts,
            notices_path: Some(path.display().to_string()),
            notices_problem: None,
            components: notices.components,
        },
        Err(why) => About {
            version,
            parts,
            notices_path: None,
            notices_problem: Some(why.to_string()),
            components: Vec::new(),
        },
    })
}

/// One licence text of the notices, by id.
#[tauri::command]
#[specta::specta]
pub async fn license_text(id: String) -> Result<String, AppError> {
    let (mut notices, _) = Notices::find().map_err(|why| {
        let kind = match &why {
            NoticesError::NotFound => AppErrorKind::NotFound,
            NoticesError::Unreadable { .. } => AppErrorKind::Storage,
            NoticesError::Malformed { .. } => AppErrorKind::Internal,
        };
        AppError::new(kind, why.to_string())
    })?;
    notices
        .texts
        .remove(&id)
        .ok_or_else(|| AppError::new(AppErrorKind::NotFound, format!("no licence text {id}")))
}
