//! `asterism mcp list|add|remove|enable|disable`: the MCP servers of `{data dir}/mcp.json`.

use std::process::ExitCode;

use asterism_agent::Settings;
use asterism_agent::mcp::{McpConfig, McpHub, ServerConfig, ServerState};
use clap::Subcommand;

#[derive(Subcommand)]
pub enum McpCommand {
    /// Every configured server: whether it starts, and the tools it offers.
    List {
        #[arg(long)]
        json: bool,
    },
    /// Add a server: `mcp add NAME -- COMMAND ARGS…` (stdio) or `mcp add NAME --url URL`.
    Add {
        name: String,
        /// A streamable-HTTP server's address.
        #[arg(long, conflicts_with = "command")]
        url: Option<String>,
        /// Variables the server gets, `NAME=VALUE` (repeatable).
        #[arg(long = "env", value_name = "NAME=VALUE")]
        env: Vec<String>,
        /// The program and its arguments.
        #[arg(last = true)]
        command: Vec<String>,
    },
    /// Remove a server.
    Remove { name: String },
    /// Turn a server on again.
    Enable { name: String },
    /// Keep a server configured but off.
    Disable { name: String },
}

pub async fn run(settings: &Settings, command: McpCommand) -> anyhow::Result<ExitCode> {
    let dir = &settings.data_dir;
    match command {
        McpCommand::List { json } => return list(settings, json).await,
        McpCommand::Add {
            name,
            url,
            env,
            command,
        } => {
            let server = server_config(url, env, command)?;
            McpConfig::update(dir, |config| {
                config.servers.insert(name.clone(), server);
                Ok(())
            })?;
            println!("added {name} to {}", McpConfig::path(dir).display());
        }
        McpCommand::Remove { name } => {
            McpConfig::update(dir, |config| config.remove(&name))?;
            println!("removed {name}");
        }
        McpCommand::Enable { name } => {
            McpConfig::update(dir, |config| config.set_enabled(&name, true))?;
            println!("enabled {name}");
        }
        McpCommand::Disable { name } => {
            McpConfig::update(dir, |config| config.set_enabled(&name, false))?;
            println!("disabled {name}");
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn server_config(
    url: Option<String>,
    env: Vec<String>,
    command: Vec<String>,
) -> anyhow::Result<ServerConfig> {
    let env = env
        .iter()
        .map(|pair| {
            pair.split_once('=')
                .map(|(name, value)| (name.to_string(), value.to_string()))
                .ok_or_else(|| anyhow::anyhow!("--env {pair}: expected NAME=VALUE"))
        })
        .collect::<anyhow::Result<_>>()?;
    let mut parts = command.into_iter();
    Ok(ServerConfig {
        command: parts.next(),
        args: parts.collect(),
        env,
        url,
        ..ServerConfig::default()
    })
}

/// Starts every enabled server and prints its state and tools; exit 1 when one fails.
async fn list(settings: &Settings, json: bool) -> anyhow::Result<ExitCode> {
    let hub = McpHub::load(&settings.data_dir);
    let statuses = hub.status().await;
    hub.shutdown().await;
    let failed = statuses
        .iter()
        .any(|s| matches!(s.state, ServerState::Failed(_)));
    if json {
        let value = serde_json::json!({"servers": statuses, "problem": hub.problem()});
        println!("{}", serde_json::to_string_pretty(&value)?);
    } else {
        if let Some(problem) = hub.problem() {
            eprintln!("error: {problem}");
        }
        if statuses.is_empty() && hub.problem().is_none() {
            println!(
                "no MCP servers: add one with `asterism mcp add NAME -- COMMAND ARGS…` or in {}",
                McpConfig::path(&settings.data_dir).display()
            );
        }
        for status in &statuses {
            let state = match &status.state {
                ServerState::Running => format!("running, {} tools", status.tools.len()),
                ServerState::Failed(why) => format!("FAILED: {why}"),
                ServerState::Disabled => "disabled".into(),
                ServerState::Idle => "not started".into(),
            };
            println!("{}  {}  ({state})", status.name, status.endpoint);
            for (name, description) in &status.tools {
                println!("    {name:<36} {}", first_line(description));
            }
        }
    }
    Ok(if failed || hub.problem().is_some() {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or_default()
}
