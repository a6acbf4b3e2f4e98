//! ADS libraries in the app: the user's libraries, one pulled into a collection (with
//! its PDFs when asked, each reported on a channel), a collection pushed to one. The
//! library crate does the work, as it does for `asterism library ads`.

use asterism_library::library::ads_sync::{AdsPullReport, AdsPushReport, MissingPdf, PushOptions};
use asterism_library::sources::ads::AdsLibrary;
use serde::Serialize;
use specta::Type;
use tauri::State;
use tauri::ipc::Channel;

use crate::dialogs::{Dialogs, Phrase, UiLanguage};
use crate::error::{AppError, AppErrorKind};
use crate::state::AppState;

fn service(message: String) -> AppError {
    AppError::new(AppErrorKind::Service, message)
}

/// The user's ADS libraries and those shared with them.
#[tauri::command]
#[specta::specta]
pub async fn ads_libraries(state: State<'_, AppState>) -> Result<Vec<AdsLibrary>, AppError> {
    state
        .engine()
        .services
        .library
        .ads_libraries()
        .await
        .map_err(service)
}

/// How a pull goes: PDFs asked for one after another when `download` is set.
#[derive(Debug, Clone, Serialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct AdsPullProgress {
    pub done: u32,
    pub total: u32,
    pub bibcode: String,
}

/// What a pull did, and the PDFs it asked for.
#[derive(Debug, Clone, Serialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct AdsPulled {
    pub report: AdsPullReport,
    pub downloads: Vec<MissingPdf>,
}

/// Pulls the ADS library `library` (name or id) into the collection named after it.
#[tauri::command]
#[specta::specta]
pub async fn ads_pull(
    state: State<'_, AppState>,
    library: String,
    download: bool,
    on_progress: Channel<AdsPullProgress>,
) -> Result<AdsPulled, AppError> {
    let services = &state.engine().services;
    let report = services
        .library
        .pull_ads_library(&library)
        .await
        .map_err(service)?;
    let each = |done: usize, total: usize, bibcode: &str| {
        let _ = on_progress.send(AdsPullProgress {
            done: done as u32,
            total: total as u32,
            bibcode: bibcode.to_string(),
        });
    };
    let downloads = match download {
        true => services.download_missing(&report.bibcodes, &each).await,
        false => Vec::new(),
    };
    Ok(AdsPulled { report, downloads })
}

/// Pushes a collection's papers with a bibcode to the ADS library `to` (name or id).
/// Removing what the collection lacks changes a library others may share: a native box
/// asks first, so a page script alone can never empty one.
#[tauri::command]
#[specta::specta]
pub async fn ads_push(
    window: tauri::WebviewWindow,
    state: State<'_, AppState>,
    dialogs: State<'_, Dialogs>,
    collection: String,
    to: String,
    create: bool,
    remove_missing: bool,
) -> Result<AdsPushReport, AppError> {
    if remove_missing {
        let question = match dialogs.language() {
            UiLanguage::En => format!(
                "Remove from the ADS library {to:?} every paper the collection {collection:?} lacks? Collaborators sharing it lose them too."
            ),
            UiLanguage::Zh => format!(
                "从 ADS 文献库 {to:?} 中移除收藏夹 {collection:?} 没有的所有论文？共享该文献库的合作者也会失去它们。"
            ),
        };
        let confirmed = dialogs
            .confirm(
                &window,
                Phrase::ConfirmRemoveTitle,
                question,
                Phrase::Remove,
            )
            .await?;
        if !confirmed {
            return Err(AppError::new(
                AppErrorKind::InvalidInput,
                "Not pushed: removing papers from the ADS library was not confirmed.",
            ));
        }
    }
    let options = PushOptions {
        create,
        remove_missing,
    };
    state
        .engine()
        .services
        .library
        .push_ads_library(&collection, &to, options)
        .await
        .map_err(service)
}
