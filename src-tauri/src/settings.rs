//! The settings page: every setting with where its value comes from, and saving. Plain
//! values go to `{data_dir}/settings.json`; keys go to the system keyring (or an
//! owner-only `secrets.json` when there is none) and never come back unmasked.

use asterism_agent::secrets::{SECRET_NAMES, Secrets};
use asterism_agent::settings::{VARIABLES, write_settings_json};
use serde::{Deserialize, Serialize};
use specta::Type;
use tauri::State;

use crate::error::{AppError, AppErrorKind};
use crate::state::{AppState, Engine};

/// One setting as the page shows it.
#[derive(Debug, Clone, Serialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct SettingField {
    pub name: String,
    /// The value in effect; for a secret only its masked form (`sk-a…3456`) or "".
    pub value: String,
    pub secret: bool,
    /// `environment`, a file, `the system keyring`, `default`…
    pub source: String,
    pub default_value: String,
    pub description: String,
    /// Set outside the app (environment or a `.env` file): saving here changes nothing
    /// until that is removed.
    pub overridden: bool,
}

#[derive(Debug, Clone, Serialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct SettingsView {
    pub fields: Vec<SettingField>,
    pub model_configured: bool,
    pub data_dir: String,
}

/// A value to save; an empty value goes back to the default.
#[derive(Debug, Clone, Deserialize, Type)]
pub struct SettingValue {
    pub name: String,
    pub value: String,
}

fn view(engine: &Engine) -> SettingsView {
    let settings = &engine.settings;
    let fields = settings
        .describe()
        .into_iter()
        .filter(|(name, _, _)| *name != "ASTERISM_DATA_DIR")
        .map(|(name, shown, source)| {
            let secret = SECRET_NAMES.contains(&name);
            let (default_value, description) = VARIABLES
                .iter()
                .find(|(variable, _, _)| *variable == name)
                .map(|(_, default, description)| (default.to_string(), description.to_string()))
                .unwrap_or_default();
            let overridden = source == "environment" || source.ends_with(".env");
            SettingField {
                name: name.to_string(),
                value: if shown == "(not set)" {
                    String::new()
                } else {
                    shown
                },
                secret,
                source,
                default_value,
                description,
                overridden,
            }
        })
        .collect();
    SettingsView {
        fields,
        model_configured: settings.model_configured(),
        data_dir: settings.data_dir.display().to_string(),
    }
}

#[tauri::command]
#[specta::specta]
pub async fn settings_get(state: State<'_, AppState>) -> Result<SettingsView, AppError> {
    Ok(view(&state.engine()))
}

/// Saves values and keys, then rebuilds the engine with them (refused during a run).
#[tauri::command]
#[specta::specta]
pub async fn settings_save(
    state: State<'_, AppState>,
    values: Vec<SettingValue>,
    secrets: Vec<SettingValue>,
) -> Result<SettingsView, AppError> {
    let engine = state.engine();
    let data_dir = engine.settings.data_dir.clone();
    let updates: Vec<(String, String)> = values
        .into_iter()
        .map(|value| (value.name, value.value))
        .collect();
    write_settings_json(&data_dir, &updates)
        .map_err(|error| AppError::new(AppErrorKind::InvalidInput, error.to_string()))?;
    let environment: std::collections::HashMap<String, String> = std::env::vars().collect();
    let store = Secrets::from_env(&data_dir, &environment);
    for secret in secrets {
        store
            .save(&secret.name, &secret.value)
            .map_err(|error| AppError::new(AppErrorKind::InvalidInput, error.to_string()))?;
    }
    let engine = state.reload()?;
    Ok(view(&engine))
}
