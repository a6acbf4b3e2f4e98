//! The settings page: every setting with where its value comes from, and saving. Plain
//! values go to `{data_dir}/settings.json`; keys go to the system keyring (or an
//! owner-only `secrets.json` when there is none) and never come back unmasked. The
//! agent's workspace folder is chosen only in a native folder dialog. A save that would
//! send a key to a new host is confirmed in a native message box first
//! ([`key_destinations`]).

use std::path::{Path, PathBuf};

use asterism_agent::secrets::{SECRET_NAMES, Secrets};
use asterism_agent::settings::key_destinations;
use asterism_agent::settings::{VARIABLES, write_settings_json};
use serde::{Deserialize, Serialize};
use specta::Type;
use tauri::{Manager, State};

use crate::dialogs::{Dialogs, FileDialog, Phrase, UiLanguage, shown};
use crate::error::{AppError, AppErrorKind};
use crate::state::{AppState, Engine};

/// The setting naming the folder the agent's file tools and shell may use.
const WORKSPACE: &str = "ASTERISM_WORKSPACE";

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
    /// The folder the agent's file tools and shell may use; `None`: they reach only the
    /// library (unset, or set to `/` or the home folder, which are ignored).
    pub workspace: Option<String>,
    /// Why the configured workspace is not used (`/`, the home folder, missing).
    pub workspace_problem: Option<String>,
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
        workspace: settings
            .workspace
            .as_ref()
            .map(|folder| folder.display().to_string()),
        workspace_problem: settings.workspace_problem.clone(),
    }
}

#[tauri::command]
#[specta::specta]
pub async fn settings_get(state: State<'_, AppState>) -> Result<SettingsView, AppError> {
    Ok(view(&state.engine()))
}

/// Writes values to `settings.json` and keys to the keyring, then rebuilds the engine.
fn save(
    state: &AppState,
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

/// The question of the message box before a key goes to a new address, in the UI's
/// language: each key and where it would go (escaped, so a crafted address cannot add
/// lines or reverse text).
fn key_question(destinations: &[key_destinations::KeyDestination], language: UiLanguage) -> String {
    let lines: Vec<String> = destinations
        .iter()
        .map(|destination| {
            let url = shown(Path::new(&destination.url));
            match language {
                UiLanguage::En => format!("Send your API key ({}) to {url}?", destination.key),
                UiLanguage::Zh => format!("将您的 API 密钥（{}）发送到 {url}？", destination.key),
            }
        })
        .collect();
    let warning = match language {
        UiLanguage::En => {
            "Every request to this address will carry the key. Confirm only if you typed the address yourself."
        }
        UiLanguage::Zh => "发往该地址的每个请求都会携带此密钥。仅当地址是您亲自输入的时才确认。",
    };
    format!("{}\n\n{warning}", lines.join("\n"))
}

/// The error of a declined save, in the UI's language.
fn declined(destinations: &[key_destinations::KeyDestination], language: UiLanguage) -> AppError {
    let where_to: Vec<String> = destinations
        .iter()
        .map(|destination| shown(Path::new(&destination.url)))
        .collect();
    let message = match language {
        UiLanguage::En => format!(
            "Not saved: you did not confirm sending your API key to {}.",
            where_to.join(", ")
        ),
        UiLanguage::Zh => format!(
            "未保存：您没有确认将 API 密钥发送到 {}。",
            where_to.join("、")
        ),
    };
    AppError::new(AppErrorKind::InvalidInput, message)
}

/// Saves values and keys, then rebuilds the engine with them (refused during a run).
/// The workspace folder may only be cleared here: `settings_choose_workspace` sets it.
/// When the save would send a key to a new host (not this machine, not a provider
/// preset), a native message box asks first; declined, nothing is saved.
#[tauri::command]
#[specta::specta]
pub async fn settings_save(
    window: tauri::WebviewWindow,
    state: State<'_, AppState>,
    dialogs: State<'_, Dialogs>,
    values: Vec<SettingValue>,
    secrets: Vec<SettingValue>,
) -> Result<SettingsView, AppError> {
    if values
        .iter()
        .any(|value| value.name == WORKSPACE && !value.value.trim().is_empty())
    {
        return Err(AppError::new(
            AppErrorKind::InvalidInput,
            "The workspace folder is chosen in a folder dialog (its Choose… button), not typed.",
        ));
    }
    state.ensure_idle()?;
    let pairs = |list: &[SettingValue]| -> Vec<(String, String)> {
        list.iter()
            .map(|item| (item.name.clone(), item.value.clone()))
            .collect()
    };
    let destinations = key_destinations::needing_confirmation(
        &state.engine().settings,
        &pairs(&values),
        &pairs(&secrets),
    );
    if !destinations.is_empty() {
        let language = dialogs.language();
        let question = key_question(&destinations, language);
        let confirmed = dialogs
            .confirm(
                &window,
                Phrase::ConfirmKeyTitle,
                question,
                Phrase::SaveAndSend,
            )
            .await?;
        if !confirmed {
            return Err(declined(&destinations, language));
        }
        // A run may have started while the box was open.
        state.ensure_idle()?;
    }
    if let Some(question) = crate::grants::loosening_question(
        &state.engine().settings,
        &pairs(&values),
        dialogs.language(),
    ) {
        let confirmed = dialogs
            .confirm(
                &window,
                Phrase::ConfirmSettingsTitle,
                question,
                Phrase::Save,
            )
            .await?;
        if !confirmed {
            return Err(AppError::new(
                AppErrorKind::InvalidInput,
                match dialogs.language() {
                    UiLanguage::En => "Not saved: you did not confirm loosening the sandbox.",
                    UiLanguage::Zh => "未保存：您没有确认放宽沙箱。",
                },
            ));
        }
        state.ensure_idle()?;
    }
    let view = save(&state, values, secrets)?;
    crate::links::allow_configured(window.app_handle(), &state.engine().settings)?;
    Ok(view)
}

/// The folder to save as the workspace (links resolved), or why it cannot be one (the
/// engine's rule: not the root of the filesystem, `/home` or `/tmp`, the home folder or a
/// folder holding it, nor the data folder, which would open everything to the agent's
/// file tools and shell).
fn checked_workspace(
    folder: &Path,
    home: Option<&Path>,
    data_dir: &Path,
) -> Result<String, AppError> {
    let refuse = |message: String| AppError::new(AppErrorKind::InvalidInput, message);
    if let Some(problem) = asterism_agent::security::workspace_problem(folder, home, Some(data_dir))
    {
        return Err(refuse(format!("Not saved: {problem}.")));
    }
    let folder: PathBuf = std::fs::canonicalize(folder)
        .map_err(|error| refuse(format!("cannot open {}: {error}", folder.display())))?;
    folder.to_str().map(str::to_string).ok_or_else(|| {
        refuse("Not saved: the folder's path is not valid Unicode; choose another folder.".into())
    })
}

/// Asks for the agent's workspace folder (a native folder dialog), saves it as
/// `ASTERISM_WORKSPACE` and rebuilds the engine. `None` when the user cancelled.
#[tauri::command]
#[specta::specta]
pub async fn settings_choose_workspace(
    window: tauri::WebviewWindow,
    state: State<'_, AppState>,
    dialogs: State<'_, Dialogs>,
) -> Result<Option<SettingsView>, AppError> {
    state.ensure_idle()?;
    let dialog = FileDialog {
        title: Phrase::ChooseWorkspace,
        file_name: None,
        filter: None,
    };
    let Some(folder) = dialogs.pick_folder(&window, dialog).await? else {
        return Ok(None);
    };
    let home = window.path().home_dir().ok();
    let data_dir = state.engine().settings.data_dir.clone();
    let folder =
        tokio::task::spawn_blocking(move || checked_workspace(&folder, home.as_deref(), &data_dir))
            .await
            .map_err(|error| AppError::new(AppErrorKind::Internal, error.to_string()))??;
    let value = SettingValue {
        name: WORKSPACE.into(),
        value: folder,
    };
    save(&state, vec![value], Vec::new()).map(Some)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_disk_and_the_home_folder_are_refused_as_workspace() {
        let root = std::env::temp_dir().join(format!("asterism-workspace-{}", std::process::id()));
        let home = root.join("home");
        let project = home.join("thesis");
        let data = home.join(".local/share/asterism");
        std::fs::create_dir_all(&project).unwrap();
        std::fs::create_dir_all(data.join("papers")).unwrap();
        let checked_workspace =
            |folder: &Path, home: Option<&Path>| super::checked_workspace(folder, home, &data);
        let canonical = std::fs::canonicalize(&project).unwrap();
        assert_eq!(
            checked_workspace(&project, Some(&home)).unwrap(),
            canonical.display().to_string()
        );
        let error = checked_workspace(&home, Some(&home)).unwrap_err();
        assert!(error.message.contains("home folder itself"), "{error}");
        // The same folder by another name is still the home folder.
        let error = checked_workspace(&project.join(".."), Some(&home)).unwrap_err();
        assert!(error.message.contains("home folder itself"), "{error}");
        let error = checked_workspace(Path::new("/"), Some(&home)).unwrap_err();
        assert!(error.message.contains("root of the filesystem"), "{error}");
        assert!(checked_workspace(&root.join("missing"), None).is_err());
        // Nor any folder holding the home folder, a shared folder, or the data folder.
        for folder in [root.clone(), PathBuf::from("/tmp"), PathBuf::from("/home")] {
            if folder.exists() {
                let error = checked_workspace(&folder, Some(&home)).unwrap_err();
                assert!(error.message.contains("cannot be the workspace"), "{error}");
            }
        }
        for folder in [data.clone(), data.join("papers"), home.join(".local")] {
            let error = checked_workspace(&folder, Some(&home)).unwrap_err();
            assert!(error.message.contains("data folder"), "{folder:?}: {error}");
        }
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn the_key_question_names_each_key_and_escapes_the_address() {
        let destinations = [key_destinations::KeyDestination {
            key: "LLM_API_KEY",
            endpoint: "LLM_BASE_URL",
            url: "https://evil.example/v1\n\nAll safe: click Save".into(),
        }];
        let question = key_question(&destinations, UiLanguage::En);
        assert!(
            question.starts_with(
                "Send your API key (LLM_API_KEY) to https://evil.example/v1\\u{a}\\u{a}All safe: click Save?\n\n"
            ),
            "{question}"
        );
        assert!(
            key_question(&destinations, UiLanguage::Zh).contains("发送到 https://evil.example/v1")
        );
        let error = declined(&destinations, UiLanguage::En);
        assert_eq!(error.kind, AppErrorKind::InvalidInput);
        assert!(
            error.message.starts_with("Not saved: you did not confirm"),
            "{error}"
        );
    }
}
