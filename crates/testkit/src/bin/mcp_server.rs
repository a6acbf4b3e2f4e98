//! `asterism-mcp-server [--http [--port N]] [--log FILE]`: a real MCP server (see
//! `asterism_testkit::mcp_server`) for tests of Asterism's MCP client.
//!
//! With no arguments it serves on stdio. With `--http` it serves streamable HTTP at
//! `http://127.0.0.1:PORT/mcp` and prints that URL as the first line of stdout.
//! With `--log FILE` it appends one line per tool call (the tool name) to FILE, and on
//! stdio startup a line `started`. The `exit` tool ends the process with status 3.

use std::io::Write;
use std::path::PathBuf;

use asterism_testkit::{AstroMcp, CallLog, McpHttpServer};
use clap::Parser;
use rmcp::ServiceExt;

#[derive(Parser)]
#[command(about = "A test MCP server (cone_search, echo, fail, exit, slow) over stdio or HTTP")]
struct Args {
    /// Serve streamable HTTP on 127.0.0.1 (at /mcp) instead of stdio; prints the URL.
    #[arg(long)]
    http: bool,
    /// Port for --http; 0 picks a free one.
    #[arg(long, default_value_t = 0, requires = "http")]
    port: u16,
    /// Append one line per tool call (the tool name) to this file; on stdio startup
    /// also a line `started`.
    #[arg(long)]
    log: Option<PathBuf>,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let log = match args.log {
        Some(path) => CallLog::with_file(path),
        None => CallLog::new(),
    };
    let server = AstroMcp::new()
        .with_log(log.clone())
        .with_exit_allowed(true);
    if args.http {
        let server = McpHttpServer::start(server, args.port).await?;
        let mut stdout = std::io::stdout().lock();
        writeln!(stdout, "{}", server.url())?;
        stdout.flush()?;
        drop(stdout);
        server.serve_forever().await;
    } else {
        log.record("started");
        let running = server.serve(rmcp::transport::stdio()).await?;
        running.waiting().await?;
    }
    Ok(())
}
