//! First run without a model: test an endpoint and a key the way `asterism doctor`
//! does (`GET {base}/models`), list the models it offers, and find a model server on
//! this computer (Ollama at `OLLAMA_URL`) so the app works offline with no key. Saving
//! goes through `settings_save`, with its confirmation before a key goes to a new host.

use std::time::Duration;

use asterism_llm::endpoint;
use serde::Serialize;
use specta::Type;
use tauri::State;

use crate::error::{AppError, AppErrorKind};
use crate::state::AppState;

/// What an endpoint said to `GET {base}/models`.
#[derive(Debug, Clone, Serialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct EndpointCheck {
    pub url: String,
    /// It answered, took the key and offers the model asked about (if any).
    pub ok: bool,
    /// In the doctor's words: "answers (HTTP 200, 41 ms); offers qwen3-max",
    /// "key rejected (401)"…
    pub verdict: String,
    /// The models it lists (empty when it gave no list).
    pub models: Vec<String>,
}

/// A model server found on this computer.
#[derive(Debug, Clone, Serialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct LocalServer {
    pub name: String,
    pub base_url: String,
    pub models: Vec<String>,
}

fn http() -> Result<reqwest::Client, AppError> {
    asterism_library::http::client(Duration::from_secs(5))
        .map_err(|error| AppError::new(AppErrorKind::Internal, error.to_string()))
}

/// Tests `base_url` with `key`, and that it offers `model` when one is named. Without a
/// key, the saved one is sent only to the endpoint it was saved for.
#[tauri::command]
#[specta::specta]
pub async fn setup_check(
    state: State<'_, AppState>,
    base_url: String,
    key: Option<String>,
    model: Option<String>,
) -> Result<EndpointCheck, AppError> {
    let url = url::Url::parse(base_url.trim()).map_err(|error| {
        AppError::new(AppErrorKind::InvalidInput, format!("{base_url}: {error}"))
    })?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(AppError::new(
            AppErrorKind::InvalidInput,
            format!("{base_url}: an endpoint is an http:// or https:// address"),
        ));
    }
    let engine = state.engine();
    let settings = &engine.settings;
    let same_endpoint =
        settings.llm_base_url.trim_end_matches('/') == base_url.trim().trim_end_matches('/');
    let key = key.filter(|key| !key.trim().is_empty()).or_else(|| {
        same_endpoint
            .then(|| settings.llm_api_key.clone())
            .flatten()
    });
    let wanted: Vec<&str> = model.iter().map(String::as_str).collect();
    let check = endpoint::check_models(&http()?, base_url.trim(), key.as_deref(), &wanted).await;
    Ok(EndpointCheck {
        ok: matches!(check.health, endpoint::Health::Answers { .. }) && !check.problem,
        url: check.url,
        verdict: check.verdict,
        models: check.models.unwrap_or_default(),
    })
}

/// The model servers on this computer that answer with their models (Ollama at
/// `OLLAMA_URL`); none is an empty list, not an error.
#[tauri::command]
#[specta::specta]
pub async fn setup_local_servers(state: State<'_, AppState>) -> Result<Vec<LocalServer>, AppError> {
    let ollama = state.engine().settings.ollama_url.clone();
    let found = endpoint::local_servers(&http()?, &[("Ollama", &ollama)]).await;
    Ok(found
        .into_iter()
        .map(|server| LocalServer {
            name: server.name,
            base_url: server.base_url,
            models: server.models,
        })
        .collect())
}
