//! MCP servers as tools (through the official SDK, `rmcp`): each server named in
//! `{data dir}/mcp.json` — the format other desktop agents use,
//! `{"mcpServers": {"NAME": {"command": "…", "args": […], "env": {…}}}}` for a program
//! spoken to over stdio, or `{"url": "http://…"}` for streamable HTTP — offers its tools
//! to the agent as `mcp__NAME__TOOL`, with their own JSON Schema. They ask before each
//! call unless a rule allows them (`--allow 'mcp__NAME__*'`), and go through the same
//! executor as every tool (timeouts, size limits, audit, metrics).
//!
//! Servers start on first use. One that cannot start is a notice in the run, not a
//! failed run; one that dies is started again on its next call.

mod config;
mod tool;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{CallToolRequestParams, CallToolResult, Tool};
use rmcp::service::RunningService;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{RoleClient, ServiceExt};
use tokio::sync::Mutex;

pub use config::{McpConfig, McpConfigError, ServerConfig};
pub use tool::McpTool;

/// How long a server may take to start and list its tools.
const START_TIMEOUT: Duration = Duration::from_secs(20);
/// Variables a stdio server inherits from Asterism's environment; everything else
/// (API keys above all) stays out unless the server's own `env` names it.
const INHERITED_ENV: &[&str] = &[
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "LANG",
    "LC_ALL",
    "TMPDIR",
    "TZ",
    "SHELL",
    "XDG_RUNTIME_DIR",
    "XDG_CONFIG_HOME",
    "XDG_DATA_HOME",
    "XDG_CACHE_HOME",
];

type Client = RunningService<RoleClient, ()>;

/// Why a tool of an MCP server could not be called: the name (not configured, turned
/// off), the connection (could not start, stopped, no answer in time) or the server's
/// own error answer.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum McpError {
    /// No server of that name in `mcp.json`.
    #[error("MCP server {0} is not configured")]
    NotConfigured(String),
    /// The server is configured and turned off.
    #[error("MCP server {0} is disabled or not configured")]
    Disabled(String),
    /// The program could not be run or the address reached, or it did not speak MCP.
    #[error("MCP server {server} could not start: {why}")]
    Unavailable { server: String, why: String },
    /// The server stopped (or the connection broke) during the call.
    #[error(
        "MCP server {server} stopped during the call ({why}); it is started again on the next call"
    )]
    Stopped { server: String, why: String },
    /// The server did not answer in time: to start (`starting`) or to the call.
    #[error("MCP server {server} {}: no answer within {} s", doing(.starting), .waited.as_secs())]
    Timeout {
        server: String,
        starting: bool,
        waited: Duration,
    },
    /// The server answered the call with an error of its own (a JSON-RPC error).
    #[error("MCP server {server} answered with an error: {error}")]
    Server {
        server: String,
        error: rmcp::model::ErrorData,
    },
    /// The call failed on the way (the transport, an answer of the wrong kind).
    #[error("MCP server {server}: {why}")]
    Transport { server: String, why: String },
}

fn doing(starting: &bool) -> &'static str {
    if *starting {
        "could not start"
    } else {
        "did not answer"
    }
}

impl McpError {
    /// What to keep as the server's failed state: the reason, without the server's name.
    fn why(&self) -> String {
        match self {
            McpError::Unavailable { why, .. } => why.clone(),
            McpError::Timeout { waited, .. } => format!("no answer within {} s", waited.as_secs()),
            other => other.to_string(),
        }
    }
}

/// Where a server is, in the state the last use left it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase", tag = "state", content = "why")]
pub enum ServerState {
    /// Not started yet (servers start on first use).
    Idle,
    Running,
    Failed(String),
    Disabled,
}

/// A server as `asterism mcp list` and Settings show it.
#[derive(Debug, Clone, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerStatus {
    pub name: String,
    /// The command line, or the URL.
    pub endpoint: String,
    pub enabled: bool,
    #[serde(flatten)]
    pub state: ServerState,
    /// (name as the agent calls it, description).
    pub tools: Vec<(String, String)>,
}

struct Slot {
    config: ServerConfig,
    client: Option<Arc<Client>>,
    tools: Vec<Tool>,
    state: ServerState,
}

/// The configured MCP servers of a data directory and their connections.
#[derive(Clone, Default)]
pub struct McpHub {
    loaded: Arc<std::sync::RwLock<Loaded>>,
}

#[derive(Default)]
struct Loaded {
    data_dir: Option<std::path::PathBuf>,
    slots: BTreeMap<String, Arc<Mutex<Slot>>>,
    /// Why `mcp.json` could not be read, if it could not.
    problem: Option<String>,
}

impl std::fmt::Debug for McpHub {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (slots, problem) = self.snapshot();
        f.debug_struct("McpHub")
            .field("servers", &slots.keys().collect::<Vec<_>>())
            .field("problem", &problem)
            .finish()
    }
}

fn slots_of(config: McpConfig) -> BTreeMap<String, Arc<Mutex<Slot>>> {
    config
        .servers
        .into_iter()
        .map(|(name, config)| {
            let state = if config.disabled {
                ServerState::Disabled
            } else {
                ServerState::Idle
            };
            let slot = Slot {
                config,
                client: None,
                tools: Vec::new(),
                state,
            };
            (name, Arc::new(Mutex::new(slot)))
        })
        .collect()
}

impl McpHub {
    /// The servers of `{data_dir}/mcp.json` (none when it does not exist). A file that
    /// cannot be read leaves no servers and says why in [`Self::problem`].
    pub fn load(data_dir: &std::path::Path) -> Self {
        let hub = Self::default();
        hub.loaded
            .write()
            .map(|mut loaded| loaded.data_dir = Some(data_dir.to_path_buf()))
            .ok();
        hub.reload();
        hub
    }

    pub fn new(config: McpConfig) -> Self {
        let hub = Self::default();
        hub.loaded
            .write()
            .map(|mut loaded| loaded.slots = slots_of(config))
            .ok();
        hub
    }

    /// Reads `mcp.json` again (after Settings or `asterism mcp` changed it); the servers
    /// running stop, and start again on their next use.
    pub fn reload(&self) {
        let Ok(mut loaded) = self.loaded.write() else {
            return;
        };
        let Some(dir) = loaded.data_dir.clone() else {
            return;
        };
        match McpConfig::read(&dir) {
            Ok(config) => {
                loaded.slots = slots_of(config);
                loaded.problem = None;
            }
            Err(error) => {
                loaded.slots = BTreeMap::new();
                loaded.problem = Some(error.to_string());
            }
        }
    }

    fn snapshot(&self) -> (BTreeMap<String, Arc<Mutex<Slot>>>, Option<String>) {
        self.loaded
            .read()
            .map(|loaded| (loaded.slots.clone(), loaded.problem.clone()))
            .unwrap_or_default()
    }

    pub fn problem(&self) -> Option<String> {
        self.snapshot().1
    }

    pub fn is_empty(&self) -> bool {
        let (slots, problem) = self.snapshot();
        slots.is_empty() && problem.is_none()
    }

    /// The tools of every enabled server (starting those not running), and a notice for
    /// each server that could not start.
    pub async fn tools(&self) -> (Vec<Arc<dyn crate::AgentTool>>, Vec<String>) {
        let (slots, problem) = self.snapshot();
        let mut notices: Vec<String> = problem.into_iter().collect();
        let started = futures::future::join_all(slots.into_iter().map(|(name, slot)| async move {
            let result = Self::ensure(&name, &slot).await.map(|(_, tools)| tools);
            (name, result)
        }))
        .await;
        let mut tools: Vec<Arc<dyn crate::AgentTool>> = Vec::new();
        for (server, result) in started {
            match result {
                Ok(listed) => tools.extend(listed.into_iter().map(|tool| {
                    Arc::new(McpTool::new(self.clone(), &server, tool)) as Arc<dyn crate::AgentTool>
                })),
                Err(McpError::Disabled(_)) => {}
                Err(error) => {
                    notices.push(format!("{error}. Its tools are not available in this run."))
                }
            }
        }
        (tools, notices)
    }

    /// The slot's running client and its tools, starting it when it is not running.
    async fn ensure(
        server: &str,
        slot: &Mutex<Slot>,
    ) -> Result<(Arc<Client>, Vec<Tool>), McpError> {
        let mut slot = slot.lock().await;
        if slot.config.disabled {
            return Err(McpError::Disabled(server.to_string()));
        }
        if let Some(client) = slot.client.as_ref().filter(|client| !client.is_closed()) {
            return Ok((client.clone(), slot.tools.clone()));
        }
        let started = match tokio::time::timeout(START_TIMEOUT, connect(&slot.config)).await {
            Ok(Ok(started)) => Ok(started),
            Ok(Err(why)) => Err(McpError::Unavailable {
                server: server.to_string(),
                why,
            }),
            Err(_) => Err(McpError::Timeout {
                server: server.to_string(),
                starting: true,
                waited: START_TIMEOUT,
            }),
        };
        match started {
            Ok((client, tools)) => {
                let client = Arc::new(client);
                slot.client = Some(client.clone());
                slot.tools = tools.clone();
                slot.state = ServerState::Running;
                Ok((client, tools))
            }
            Err(error) => {
                slot.client = None;
                slot.state = ServerState::Failed(error.why());
                Err(error)
            }
        }
    }

    /// Calls `tool` of `server`; a server that stopped is started again first.
    pub async fn call(
        &self,
        server: &str,
        tool: &str,
        arguments: serde_json::Value,
    ) -> Result<CallToolResult, McpError> {
        let slot = self.snapshot().0.get(server).cloned();
        let Some(slot) = slot else {
            return Err(McpError::NotConfigured(server.to_string()));
        };
        let (client, _) = Self::ensure(server, &slot).await?;
        let mut params = CallToolRequestParams::new(tool.to_string());
        if let serde_json::Value::Object(arguments) = arguments {
            params = params.with_arguments(arguments);
        }
        let error = match client.call_tool(params).await {
            Ok(result) => return Ok(result),
            Err(error) => error,
        };
        if client.is_transport_closed() || client.is_closed() {
            let mut slot = slot.lock().await;
            slot.client = None;
            slot.state = ServerState::Failed(format!("stopped: {error}"));
            return Err(McpError::Stopped {
                server: server.to_string(),
                why: error.to_string(),
            });
        }
        Err(call_failure(server, error))
    }

    /// Every server with its state and tools, starting the enabled ones.
    pub async fn status(&self) -> Vec<ServerStatus> {
        let _ = self.tools().await;
        let mut statuses = Vec::new();
        for (name, slot) in self.snapshot().0 {
            let slot = slot.lock().await;
            statuses.push(ServerStatus {
                name: name.clone(),
                endpoint: slot.config.describe(),
                enabled: !slot.config.disabled,
                state: slot.state.clone(),
                tools: slot
                    .tools
                    .iter()
                    .map(|tool| {
                        (
                            tool::agent_name(&name, &tool.name),
                            tool.description.as_deref().unwrap_or_default().to_string(),
                        )
                    })
                    .collect(),
            });
        }
        statuses
    }

    /// Stops every server (they would stop with the process anyway).
    pub async fn shutdown(&self) {
        for slot in self.snapshot().0.into_values() {
            let mut slot = slot.lock().await;
            if let Some(Ok(mut client)) = slot.client.take().map(Arc::try_unwrap) {
                let _ = client.close().await;
            }
        }
    }
}

/// A failed call to a server that is still running, by what went wrong.
fn call_failure(server: &str, error: rmcp::ServiceError) -> McpError {
    let server = server.to_string();
    match error {
        rmcp::ServiceError::McpError(error) => McpError::Server { server, error },
        rmcp::ServiceError::Timeout { timeout } => McpError::Timeout {
            server,
            starting: false,
            waited: timeout,
        },
        other => McpError::Transport {
            server,
            why: other.to_string(),
        },
    }
}

/// Starts the server of `config` and lists its tools.
async fn connect(config: &ServerConfig) -> Result<(Client, Vec<Tool>), String> {
    let client = match (&config.command, &config.url) {
        (Some(command), _) => {
            let mut process = tokio::process::Command::new(command);
            process.args(&config.args).env_clear();
            for name in INHERITED_ENV {
                if let Some(value) = std::env::var_os(name) {
                    process.env(name, value);
                }
            }
            process.envs(&config.env);
            if let Some(cwd) = &config.cwd {
                process.current_dir(cwd);
            }
            let (transport, _stderr) = TokioChildProcess::builder(process)
                .stderr(std::process::Stdio::null())
                .spawn()
                .map_err(|error| format!("{command}: {error}"))?;
            ().serve(transport)
                .await
                .map_err(|error| error.to_string())?
        }
        (None, Some(url)) => {
            let _ = rustls::crypto::ring::default_provider().install_default();
            let transport = StreamableHttpClientTransport::from_uri(url.as_str());
            ().serve(transport)
                .await
                .map_err(|error| error.to_string())?
        }
        (None, None) => return Err("neither a command nor a url is set".into()),
    };
    let tools = client
        .list_all_tools()
        .await
        .map_err(|error| format!("listing its tools: {error}"))?;
    Ok((client, tools))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hub(servers: &[(&str, ServerConfig)]) -> McpHub {
        let servers = servers
            .iter()
            .map(|(name, config)| (name.to_string(), config.clone()))
            .collect();
        McpHub::new(McpConfig { servers })
    }

    fn at(url: &str) -> ServerConfig {
        ServerConfig {
            url: Some(url.into()),
            ..ServerConfig::default()
        }
    }

    /// A loopback address nothing listens on.
    fn closed_port() -> String {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        format!("http://127.0.0.1:{port}/mcp")
    }

    #[tokio::test]
    async fn a_wrong_name_an_unreachable_server_and_its_own_error_are_told_apart() {
        let (url, _server) = asterism_testkit::start_http_mcp_server().await.unwrap();
        let off = ServerConfig {
            disabled: true,
            ..at(&url)
        };
        let hub = hub(&[
            ("astro", at(&url)),
            ("gone", at(&closed_port())),
            ("off", off),
        ]);
        let call = |server: &'static str, tool: &'static str| {
            let hub = hub.clone();
            async move { hub.call(server, tool, serde_json::json!({})).await }
        };

        let unknown = call("nosuch", "echo").await.unwrap_err();
        assert_eq!(unknown, McpError::NotConfigured("nosuch".into()));
        let off = call("off", "echo").await.unwrap_err();
        assert_eq!(off, McpError::Disabled("off".into()));
        let gone = call("gone", "echo").await.unwrap_err();
        assert!(
            matches!(&gone, McpError::Unavailable { server, .. } if server == "gone"),
            "{gone:?}"
        );
        assert!(
            gone.to_string()
                .starts_with("MCP server gone could not start: ")
        );

        let refused = call("astro", "no_such_tool").await.unwrap_err();
        assert!(
            matches!(&refused, McpError::Server { server, .. } if server == "astro"),
            "{refused:?}"
        );
        let echoed = hub
            .call("astro", "echo", serde_json::json!({"text": "back"}))
            .await
            .unwrap();
        assert_ne!(echoed.is_error, Some(true), "{echoed:?}");
    }
}
