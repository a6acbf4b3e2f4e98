//! Session commands: the history, offline replay, rename, delete, and bundles (one JSON
//! file per session, to keep or to move to another machine).

use asterism_protocol::{SessionSummary, TimelineItem};
use tauri::State;

use crate::dialogs::{Dialogs, FileDialog, Phrase};
use crate::error::{AppError, AppErrorKind};
use crate::state::AppState;

/// Stored sessions, most recent first; `query` keeps those whose title or summary
/// contains it (case-insensitive).
#[tauri::command]
#[specta::specta]
pub async fn sessions_list(
    state: State<'_, AppState>,
    query: Option<String>,
) -> Result<Vec<SessionSummary>, AppError> {
    let sessions = state.engine().services.store.list_sessions(500).await?;
    let Some(query) = query
        .map(|q| q.trim().to_lowercase())
        .filter(|q| !q.is_empty())
    else {
        return Ok(sessions);
    };
    Ok(sessions
        .into_iter()
        .filter(|session| {
            session.title.to_lowercase().contains(&query)
                || session
                    .summary
                    .as_deref()
                    .is_some_and(|summary| summary.to_lowercase().contains(&query))
        })
        .collect())
}

/// A stored session's timeline, rebuilt from the database (offline replay).
#[tauri::command]
#[specta::specta]
pub async fn session_timeline(
    state: State<'_, AppState>,
    session_id: String,
) -> Result<Vec<TimelineItem>, AppError> {
    let items = state
        .timelines
        .timeline(&state.engine().services.store, &session_id)
        .await?;
    Ok(items.as_ref().clone())
}

/// The end of a session's timeline and the length of the whole.
#[derive(Debug, Clone, serde::Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct TimelineTail {
    /// How many items the whole timeline has (the tail is its last `items.len()`).
    pub total: u32,
    pub items: Vec<TimelineItem>,
}

/// The last `count` items of a stored session's timeline, so a long session shows its
/// end at once; `session_timeline` then brings the whole.
#[tauri::command]
#[specta::specta]
pub async fn session_timeline_tail(
    state: State<'_, AppState>,
    session_id: String,
    count: u32,
) -> Result<TimelineTail, AppError> {
    let (total, items) = state
        .timelines
        .tail(&state.engine().services.store, &session_id, count as usize)
        .await?;
    Ok(TimelineTail {
        total: u32::try_from(total).unwrap_or(u32::MAX),
        items,
    })
}

/// Gives a session a new title.
#[tauri::command]
#[specta::specta]
pub async fn session_rename(
    state: State<'_, AppState>,
    session_id: String,
    title: String,
) -> Result<(), AppError> {
    if title.trim().is_empty() {
        return Err(AppError::new(
            AppErrorKind::InvalidInput,
            "A session needs a title.",
        ));
    }
    Ok(state
        .engine()
        .services
        .store
        .rename_session(&session_id, &title)
        .await?)
}

/// Deletes a session and everything stored about it (not the papers it downloaded).
#[tauri::command]
#[specta::specta]
pub async fn session_delete(
    state: State<'_, AppState>,
    session_id: String,
) -> Result<(), AppError> {
    if state.is_running(&session_id) {
        return Err(AppError::new(
            AppErrorKind::Busy,
            "This session is answering a question; cancel it first.",
        ));
    }
    let deleted = state
        .engine()
        .services
        .store
        .delete_session(&session_id)
        .await;
    // After the change, so a fold read meanwhile is not kept.
    state.timelines.forget();
    Ok(deleted?)
}

/// A file the app wrote where the user chose.
#[derive(Debug, Clone, serde::Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct SavedFile {
    pub path: String,
    pub bytes: u32,
}

/// The name the save dialog proposes for a session's bundle: its title with every run
/// of other characters than letters and digits made one dash.
fn bundle_file_name(title: &str) -> String {
    let mut name = String::new();
    for c in title.chars() {
        if c.is_alphanumeric() {
            name.push(c);
        } else if !name.ends_with('-') {
            name.push('-');
        }
    }
    let name: String = name.chars().take(60).collect();
    let name = if name.trim_matches('-').is_empty() {
        "session"
    } else {
        &name
    };
    format!("{name}.asterism.json")
}

/// Asks where to save a session's bundle (a native save dialog) and writes it there.
/// `None` when the user cancelled.
#[tauri::command]
#[specta::specta]
pub async fn session_export(
    window: tauri::WebviewWindow,
    state: State<'_, AppState>,
    dialogs: State<'_, Dialogs>,
    session_id: String,
) -> Result<Option<SavedFile>, AppError> {
    let session = state.engine().services.store.session(&session_id).await?;
    let dialog = FileDialog {
        title: Phrase::ExportSession,
        file_name: Some(bundle_file_name(&session.title)),
        filter: Some((Phrase::SessionBundle, &["json"])),
    };
    let Some(path) = dialogs.save_file(&window, dialog).await? else {
        return Ok(None);
    };
    let bytes = state
        .engine()
        .services
        .store
        .export_session_file(&session_id, &path)
        .await?;
    Ok(Some(SavedFile {
        path: path.display().to_string(),
        bytes: u32::try_from(bytes).unwrap_or(u32::MAX),
    }))
}

/// Asks for a session bundle (a native open dialog) and stores it; returns the session
/// id, or `None` when the user cancelled.
#[tauri::command]
#[specta::specta]
pub async fn session_import(
    window: tauri::WebviewWindow,
    state: State<'_, AppState>,
    dialogs: State<'_, Dialogs>,
) -> Result<Option<String>, AppError> {
    let dialog = FileDialog {
        title: Phrase::ImportSession,
        file_name: None,
        filter: Some((Phrase::SessionBundle, &["json"])),
    };
    let Some(path) = dialogs.pick_file(&window, dialog).await? else {
        return Ok(None);
    };
    let imported = state
        .engine()
        .services
        .store
        .import_session_file(&path)
        .await;
    state.timelines.forget();
    Ok(Some(imported?))
}

#[cfg(test)]
mod tests {
    use super::bundle_file_name;

    #[test]
    fn bundle_names_keep_letters_and_digits() {
        assert_eq!(
            bundle_file_name("Where is NGC 4258?"),
            "Where-is-NGC-4258-.asterism.json"
        );
        assert_eq!(
            bundle_file_name("哈勃常数 / TRGB"),
            "哈勃常数-TRGB.asterism.json"
        );
        assert_eq!(bundle_file_name("../../"), "session.asterism.json");
        assert_eq!(bundle_file_name(""), "session.asterism.json");
    }
}
