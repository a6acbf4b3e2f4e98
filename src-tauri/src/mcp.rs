//! MCP servers in Settings: see them with their state and tools, add, remove, turn on
//! and off. The configuration is `{data dir}/mcp.json`, shared with `asterism mcp`. A
//! server added here runs a program (or reaches an address) the webview named, so it is
//! confirmed in a native message box first: a script injected into the page must not be
//! able to start programs.

use asterism_agent::mcp::{McpConfig, McpConfigError, ServerConfig, ServerState, ServerStatus};
use serde::Serialize;
use specta::Type;
use tauri::State;

use crate::dialogs::{Dialogs, Phrase, UiLanguage};
use crate::error::{AppError, AppErrorKind};
use crate::state::AppState;

#[derive(Debug, Clone, Serialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct McpView {
    pub servers: Vec<McpServerView>,
    /// Why `mcp.json` could not be read.
    pub problem: Option<String>,
    pub config_path: String,
}

#[derive(Debug, Clone, Serialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct McpServerView {
    pub name: String,
    /// The command line or the URL.
    pub endpoint: String,
    pub enabled: bool,
    /// `idle`, `running`, `failed` or `disabled`.
    pub state: String,
    /// Why it failed.
    pub why: Option<String>,
    pub tools: Vec<McpToolView>,
}

#[derive(Debug, Clone, Serialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct McpToolView {
    /// As the agent calls it: `mcp__NAME__TOOL`.
    pub name: String,
    pub description: String,
}

fn view_of(status: ServerStatus) -> McpServerView {
    let (state, why) = match status.state {
        ServerState::Idle => ("idle", None),
        ServerState::Running => ("running", None),
        ServerState::Failed(why) => ("failed", Some(why)),
        ServerState::Disabled => ("disabled", None),
    };
    McpServerView {
        name: status.name,
        endpoint: status.endpoint,
        enabled: status.enabled,
        state: state.into(),
        why,
        tools: status
            .tools
            .into_iter()
            .map(|(name, description)| McpToolView { name, description })
            .collect(),
    }
}

async fn view(state: &AppState) -> McpView {
    let engine = state.engine();
    let hub = &engine.services.mcp;
    McpView {
        servers: hub.status().await.into_iter().map(view_of).collect(),
        problem: hub.problem(),
        config_path: McpConfig::path(&engine.settings.data_dir)
            .display()
            .to_string(),
    }
}

fn change(
    state: &AppState,
    edit: impl FnOnce(&mut McpConfig) -> Result<(), McpConfigError>,
) -> Result<(), AppError> {
    let engine = state.engine();
    McpConfig::update(&engine.settings.data_dir, edit).map_err(app_error)?;
    engine.services.mcp.reload();
    Ok(())
}

/// What was asked is the asker's to fix; the file's problems are the configuration's.
fn app_error(error: McpConfigError) -> AppError {
    let kind = match &error {
        McpConfigError::BadName(_) | McpConfigError::BadServer { .. } => AppErrorKind::InvalidInput,
        McpConfigError::UnknownServer(_) => AppErrorKind::NotFound,
        McpConfigError::Malformed { .. } | McpConfigError::Invalid { .. } => AppErrorKind::Config,
        McpConfigError::Io { .. } => AppErrorKind::Storage,
    };
    AppError::new(kind, error.to_string())
}

/// Every configured server, started if enabled, with its state and tools.
#[tauri::command]
#[specta::specta]
pub async fn mcp_servers(state: State<'_, AppState>) -> Result<McpView, AppError> {
    Ok(view(&state).await)
}

/// Adds (or replaces) a server: a program and its arguments, or a URL; asked natively
/// first.
#[tauri::command]
#[specta::specta]
pub async fn mcp_add(
    window: tauri::WebviewWindow,
    state: State<'_, AppState>,
    dialogs: State<'_, Dialogs>,
    name: String,
    command: Option<String>,
    args: Vec<String>,
    url: Option<String>,
) -> Result<McpView, AppError> {
    let blank = |value: Option<String>| value.filter(|v| !v.trim().is_empty());
    let server = ServerConfig {
        command: blank(command),
        args,
        url: blank(url),
        ..ServerConfig::default()
    };
    let mut check = McpConfig::default();
    check.servers.insert(name.clone(), server.clone());
    check.check().map_err(app_error)?;
    let question = match dialogs.language() {
        UiLanguage::En => format!(
            "The MCP server {name} will run {}. Its tools are offered to the agent, which asks before each call. Add it only if you trust it.",
            server.describe()
        ),
        UiLanguage::Zh => format!(
            "MCP 服务器 {name} 将运行 {}。它的工具会提供给助手，每次调用前都会询问。请只添加你信任的服务器。",
            server.describe()
        ),
    };
    let confirmed = dialogs
        .confirm(
            &window,
            Phrase::ConfirmMcpTitle,
            question,
            Phrase::AddServer,
        )
        .await?;
    if !confirmed {
        return Err(AppError::new(
            AppErrorKind::InvalidInput,
            format!("{name} was not added."),
        ));
    }
    change(&state, |config| {
        config.servers.insert(name, server);
        Ok(())
    })?;
    Ok(view(&state).await)
}

#[tauri::command]
#[specta::specta]
pub async fn mcp_remove(state: State<'_, AppState>, name: String) -> Result<McpView, AppError> {
    change(&state, |config| config.remove(&name))?;
    Ok(view(&state).await)
}

#[tauri::command]
#[specta::specta]
pub async fn mcp_set_enabled(
    state: State<'_, AppState>,
    name: String,
    enabled: bool,
) -> Result<McpView, AppError> {
    change(&state, |config| config.set_enabled(&name, enabled))?;
    Ok(view(&state).await)
}
