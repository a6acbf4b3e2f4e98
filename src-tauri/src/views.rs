//! Read-only views: a session's measurements, the audit log in pages, sky objects.

use asterism_protocol::ResolvedTarget;
use asterism_store::{AuditFilter, AuditPage, MetricEntry};
use serde::Serialize;
use specta::Type;
use tauri::State;

use crate::error::{AppError, AppErrorKind};
use crate::state::AppState;

/// Every model and tool measurement of a session, in order.
#[tauri::command]
#[specta::specta]
pub async fn session_metrics(
    state: State<'_, AppState>,
    session_id: String,
) -> Result<Vec<MetricEntry>, AppError> {
    Ok(state
        .engine()
        .services
        .store
        .session_metrics(&session_id)
        .await?)
}

/// A page of the audit log, newest first (arguments were redacted when logged).
#[tauri::command]
#[specta::specta]
pub async fn audit_page(
    state: State<'_, AppState>,
    filter: AuditFilter,
    offset: u32,
    limit: u32,
) -> Result<AuditPage, AppError> {
    Ok(state
        .engine()
        .services
        .store
        .audit_page(&filter, offset, limit)
        .await?)
}

/// A sky object and whether the answer came from the local cache.
#[derive(Debug, Clone, Serialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct TargetAnswer {
    pub target: ResolvedTarget,
    pub from_cache: bool,
    pub fetched_at: String,
}

/// Resolves an object name ("NGC 1068") through CDS Sesame, cached.
#[tauri::command]
#[specta::specta]
pub async fn target_resolve(
    state: State<'_, AppState>,
    name: String,
) -> Result<TargetAnswer, AppError> {
    if name.trim().is_empty() {
        return Err(AppError::new(
            AppErrorKind::InvalidInput,
            "Type an object name, e.g. NGC 1068.",
        ));
    }
    let lookup = state
        .engine()
        .services
        .targets
        .resolve(&name)
        .await
        .map_err(|error| AppError::new(AppErrorKind::Service, error.to_string()))?;
    Ok(TargetAnswer {
        target: lookup.target,
        from_cache: lookup.from_cache,
        fetched_at: lookup.fetched_at,
    })
}
