//! A small but real MCP server ([`AstroMcp`]) built on the official Rust SDK (`rmcp`),
//! for tests of Asterism's MCP client. It serves over stdio (the
//! `asterism-mcp-server` binary) or streamable HTTP ([`start_http_mcp_server`], or the
//! binary's `--http`).
//!
//! Tools:
//! - `cone_search {ra, dec, radius_arcmin}`: objects of a fixed five-galaxy catalogue
//!   ([`CATALOGUE`]) within the radius, as text (one line per object, see
//!   [`format_match`]) and as structured content ([`ConeSearchResult`]).
//! - `echo {text}`: returns `text`.
//! - `fail {}`: a tool error result (`is_error: true`) saying `the catalogue is offline`.
//! - `exit {}`: ends the process with status 3 (a crash), when enabled with
//!   [`AstroMcp::with_exit_allowed`]; otherwise a tool error.
//! - `slow {seconds}`: sleeps, then answers `done`.
//!
//! Every call is recorded, before the tool runs, in a [`CallLog`]: in memory and,
//! optionally, appended as one line (the tool name) to a file.

use std::fs::OpenOptions;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use axum::Router;
use rmcp::handler::server::common::schema_for_output;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ServerHandler, schemars, tool, tool_handler, tool_router};
use serde::{Deserialize, Serialize};
use tokio_util::sync::CancellationToken;

use crate::server::LoopbackServer;

/// The path the HTTP transport is served at.
pub const MCP_HTTP_PATH: &str = "/mcp";

/// The tool names, in the order `tools/list` gives them (by name).
pub const TOOL_NAMES: [&str; 6] = ["cone_search", "echo", "exit", "fail", "getenv", "slow"];

/// The text of the `fail` tool's error result.
pub const FAIL_MESSAGE: &str = "the catalogue is offline";

/// One catalogue entry: name, right ascension and declination (ICRS, degrees).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CatalogueObject {
    pub name: &'static str,
    pub ra: f64,
    pub dec: f64,
}

/// The fixed catalogue `cone_search` searches: the NGC 4258 field plus two far objects.
pub const CATALOGUE: [CatalogueObject; 5] = [
    CatalogueObject {
        name: "NGC 4258",
        ra: 184.740_083_3,
        dec: 47.303_722_2,
    },
    CatalogueObject {
        name: "NGC 4248",
        ra: 184.4227,
        dec: 47.4097,
    },
    CatalogueObject {
        name: "UGC 7356",
        ra: 184.5796,
        dec: 47.0997,
    },
    CatalogueObject {
        name: "M 87",
        ra: 187.705_930_8,
        dec: 12.391_123_3,
    },
    CatalogueObject {
        name: "NGC 1068",
        ra: 40.669_629_2,
        dec: -0.013_280_6,
    },
];

/// Great-circle distance in degrees between two positions given in degrees
/// (Vincenty's formula, accurate at all separations).
pub fn angular_separation_deg(ra1: f64, dec1: f64, ra2: f64, dec2: f64) -> f64 {
    let (ra1, dec1, ra2, dec2) = (
        ra1.to_radians(),
        dec1.to_radians(),
        ra2.to_radians(),
        dec2.to_radians(),
    );
    let delta_ra = ra2 - ra1;
    let (sin_d1, cos_d1) = dec1.sin_cos();
    let (sin_d2, cos_d2) = dec2.sin_cos();
    let (sin_dra, cos_dra) = delta_ra.sin_cos();
    let x = cos_d2 * sin_dra;
    let y = cos_d1 * sin_d2 - sin_d1 * cos_d2 * cos_dra;
    let numerator = x.hypot(y);
    let denominator = sin_d1 * sin_d2 + cos_d1 * cos_d2 * cos_dra;
    numerator.atan2(denominator).to_degrees()
}

/// One `cone_search` hit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ConeSearchMatch {
    /// Object name, e.g. `NGC 4258`.
    pub name: String,
    /// Right ascension, degrees (ICRS).
    pub ra: f64,
    /// Declination, degrees (ICRS).
    pub dec: f64,
    /// Great-circle distance from the search centre, arcminutes.
    pub separation_arcmin: f64,
}

/// The structured content of a `cone_search` result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ConeSearchResult {
    /// Search centre right ascension, degrees.
    pub ra: f64,
    /// Search centre declination, degrees.
    pub dec: f64,
    /// Search radius, arcminutes.
    pub radius_arcmin: f64,
    /// Objects within the radius, nearest first.
    pub objects: Vec<ConeSearchMatch>,
}

/// The catalogue objects within `radius_arcmin` of (`ra`, `dec`), nearest first.
pub fn cone_search(ra: f64, dec: f64, radius_arcmin: f64) -> Vec<ConeSearchMatch> {
    let mut matches: Vec<ConeSearchMatch> = CATALOGUE
        .iter()
        .map(|object| ConeSearchMatch {
            name: object.name.to_string(),
            ra: object.ra,
            dec: object.dec,
            separation_arcmin: angular_separation_deg(ra, dec, object.ra, object.dec) * 60.0,
        })
        .filter(|hit| hit.separation_arcmin <= radius_arcmin)
        .collect();
    matches.sort_by(|a, b| a.separation_arcmin.total_cmp(&b.separation_arcmin));
    matches
}

/// The text line `cone_search` gives for one hit, e.g.
/// `NGC 4258: ra=184.740083 deg, dec=+47.303722 deg, sep=0.00 arcmin`.
pub fn format_match(hit: &ConeSearchMatch) -> String {
    format!(
        "{}: ra={:.6} deg, dec={:+.6} deg, sep={:.2} arcmin",
        hit.name, hit.ra, hit.dec, hit.separation_arcmin
    )
}

/// Where tool calls are recorded: in memory (shared by clones) and, optionally,
/// appended to a file, one line per entry.
#[derive(Debug, Clone, Default)]
pub struct CallLog {
    entries: Arc<Mutex<Vec<String>>>,
    file: Option<PathBuf>,
}

impl CallLog {
    /// A log kept in memory only.
    pub fn new() -> Self {
        Self::default()
    }

    /// A log that also appends each entry as a line to `path` (created if missing).
    pub fn with_file(path: impl Into<PathBuf>) -> Self {
        Self {
            entries: Arc::default(),
            file: Some(path.into()),
        }
    }

    /// The file entries are appended to, if any.
    pub fn file(&self) -> Option<&Path> {
        self.file.as_deref()
    }

    /// Records `entry` (a tool name, or `started`). A file that cannot be written is
    /// reported on stderr and otherwise ignored.
    pub fn record(&self, entry: &str) {
        self.entries
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(entry.to_string());
        if let Some(path) = &self.file {
            let written = OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .and_then(|mut file| file.write_all(format!("{entry}\n").as_bytes()));
            if let Err(error) = written {
                eprintln!(
                    "asterism-mcp-server: cannot append to {}: {error}",
                    path.display()
                );
            }
        }
    }

    /// The entries recorded through this log (or its clones) so far, oldest first.
    pub fn entries(&self) -> Vec<String> {
        self.entries
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

/// Parameters of `cone_search`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct ConeSearchParams {
    /// Right ascension of the search centre, in degrees (ICRS), 0 to 360.
    pub ra: f64,
    /// Declination of the search centre, in degrees (ICRS), -90 to +90.
    pub dec: f64,
    /// Search radius, in arcminutes (greater than 0).
    pub radius_arcmin: f64,
}

/// Parameters of `echo`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct EchoParams {
    /// The text to send back.
    pub text: String,
}

/// Parameters of `getenv`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct GetenvParams {
    /// The environment variable's name.
    pub name: String,
}

/// Parameters of `slow`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct SlowParams {
    /// How long to wait before answering, in seconds (0 or more).
    pub seconds: f64,
}

/// The MCP server: five tools over a fixed catalogue (see the module docs).
#[derive(Debug, Clone)]
pub struct AstroMcp {
    tool_router: ToolRouter<Self>,
    log: CallLog,
    exit_allowed: bool,
}

impl Default for AstroMcp {
    fn default() -> Self {
        Self::new()
    }
}

impl AstroMcp {
    /// A server with an in-memory call log and the `exit` tool disabled (so an
    /// in-process server cannot end the test process).
    pub fn new() -> Self {
        Self {
            tool_router: Self::tool_router(),
            log: CallLog::new(),
            exit_allowed: false,
        }
    }

    /// Records calls in `log` (shared: clones of the log see the same entries).
    pub fn with_log(mut self, log: CallLog) -> Self {
        self.log = log;
        self
    }

    /// Whether `exit` really ends the process (status 3). Only for a server running
    /// in its own process.
    pub fn with_exit_allowed(mut self, allowed: bool) -> Self {
        self.exit_allowed = allowed;
        self
    }

    /// The call log.
    pub fn log(&self) -> &CallLog {
        &self.log
    }
}

fn tool_error(message: impl Into<String>) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(message)])
}

#[tool_router]
impl AstroMcp {
    #[tool(
        description = "Search a small astronomical catalogue for objects within a radius of a sky position. \
                       Give the centre as ICRS right ascension and declination in degrees and the radius in arcminutes. \
                       Returns one line per object, nearest first: `NAME: ra=RA deg, dec=DEC deg, sep=SEP arcmin`.",
        output_schema = schema_for_output::<ConeSearchResult>()
    )]
    fn cone_search(
        &self,
        Parameters(ConeSearchParams {
            ra,
            dec,
            radius_arcmin,
        }): Parameters<ConeSearchParams>,
    ) -> CallToolResult {
        self.log.record("cone_search");
        if !ra.is_finite() || !(0.0..=360.0).contains(&ra) {
            return tool_error(format!("ra must be between 0 and 360 degrees, got {ra}"));
        }
        if !dec.is_finite() || !(-90.0..=90.0).contains(&dec) {
            return tool_error(format!(
                "dec must be between -90 and +90 degrees, got {dec}"
            ));
        }
        if !radius_arcmin.is_finite() || radius_arcmin <= 0.0 {
            return tool_error(format!(
                "radius_arcmin must be a positive number, got {radius_arcmin}"
            ));
        }
        let objects = cone_search(ra, dec, radius_arcmin);
        let text = if objects.is_empty() {
            format!("no objects within {radius_arcmin} arcmin of ra={ra} deg, dec={dec} deg")
        } else {
            objects
                .iter()
                .map(format_match)
                .collect::<Vec<_>>()
                .join("\n")
        };
        let result = ConeSearchResult {
            ra,
            dec,
            radius_arcmin,
            objects,
        };
        match serde_json::to_value(&result) {
            Ok(structured) => {
                let mut call = CallToolResult::success(vec![ContentBlock::text(text)]);
                call.structured_content = Some(structured);
                call
            }
            Err(error) => tool_error(format!("cannot encode the result: {error}")),
        }
    }

    #[tool(
        description = "Return the given text unchanged. Useful to check that the connection works."
    )]
    fn echo(&self, Parameters(EchoParams { text }): Parameters<EchoParams>) -> String {
        self.log.record("echo");
        text
    }

    #[tool(
        description = "The value of one of the server's environment variables (empty when unset), so a test can see what a client passed to it."
    )]
    fn getenv(&self, Parameters(GetenvParams { name }): Parameters<GetenvParams>) -> String {
        self.log.record("getenv");
        std::env::var(&name).unwrap_or_default()
    }

    #[tool(
        description = "Query the catalogue's status. It always fails with a tool error, to test error handling."
    )]
    fn fail(&self) -> CallToolResult {
        self.log.record("fail");
        tool_error(FAIL_MESSAGE)
    }

    #[tool(
        description = "Stop the server process abruptly (exit status 3), to simulate a crash. Do not call it unless asked to."
    )]
    fn exit(&self) -> CallToolResult {
        self.log.record("exit");
        if self.exit_allowed {
            std::process::exit(3);
        }
        tool_error("exit is disabled in this server")
    }

    #[tool(
        description = "Wait for the given number of seconds, then answer `done`. Used to test timeouts."
    )]
    async fn slow(
        &self,
        Parameters(SlowParams { seconds }): Parameters<SlowParams>,
    ) -> CallToolResult {
        self.log.record("slow");
        match Duration::try_from_secs_f64(seconds) {
            Ok(duration) => {
                tokio::time::sleep(duration).await;
                CallToolResult::success(vec![ContentBlock::text("done")])
            }
            Err(_) => tool_error(format!(
                "seconds must be a non-negative number, got {seconds}"
            )),
        }
    }
}

#[tool_handler(
    router = self.tool_router,
    name = "asterism-mcp-server",
    instructions = "A test MCP server with a tiny fixed galaxy catalogue (cone_search) and helper tools."
)]
impl ServerHandler for AstroMcp {}

/// An axum router serving `server` (one clone per session, sharing its call log)
/// over streamable HTTP at [`MCP_HTTP_PATH`]. Cancelling `cancel` ends the sessions.
pub fn mcp_http_router(server: AstroMcp, cancel: CancellationToken) -> Router {
    let service: StreamableHttpService<AstroMcp, LocalSessionManager> = StreamableHttpService::new(
        move || Ok(server.clone()),
        Arc::default(),
        StreamableHttpServerConfig::default().with_cancellation_token(cancel),
    );
    Router::new().nest_service(MCP_HTTP_PATH, service)
}

/// An [`AstroMcp`] served over streamable HTTP on 127.0.0.1; stops when dropped.
#[derive(Debug)]
pub struct McpHttpServer {
    server: LoopbackServer,
    log: CallLog,
    cancel: CancellationToken,
}

impl McpHttpServer {
    /// Serves `server` on `127.0.0.1:port` (0 picks a free port).
    pub async fn start(server: AstroMcp, port: u16) -> anyhow::Result<Self> {
        let cancel = CancellationToken::new();
        let log = server.log().clone();
        let router = mcp_http_router(server, cancel.child_token());
        let server = LoopbackServer::start(router, port).await?;
        Ok(Self {
            server,
            log,
            cancel,
        })
    }

    /// `http://127.0.0.1:PORT/mcp`.
    pub fn url(&self) -> String {
        format!("{}{MCP_HTTP_PATH}", self.server.url())
    }

    /// The tool calls received so far (tool names, oldest first).
    pub fn calls(&self) -> Vec<String> {
        self.log.entries()
    }

    /// The call log shared by all sessions.
    pub fn log(&self) -> &CallLog {
        &self.log
    }

    /// Serves until the process is killed.
    pub async fn serve_forever(mut self) {
        self.server.wait().await;
    }
}

impl Drop for McpHttpServer {
    fn drop(&mut self) {
        self.cancel.cancel();
    }
}

/// Starts an in-process [`AstroMcp`] (with `exit` disabled) over streamable HTTP on
/// loopback. Returns its URL (`http://127.0.0.1:PORT/mcp`) and the server, which
/// stops when dropped.
pub async fn start_http_mcp_server() -> anyhow::Result<(String, McpHttpServer)> {
    let server = McpHttpServer::start(AstroMcp::new(), 0).await?;
    Ok((server.url(), server))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn separations_are_great_circle() {
        assert!(angular_separation_deg(10.0, 20.0, 10.0, 20.0).abs() < 1e-12);
        assert!((angular_separation_deg(0.0, 0.0, 180.0, 0.0) - 180.0).abs() < 1e-9);
        assert!((angular_separation_deg(0.0, 89.0, 180.0, 89.0) - 2.0).abs() < 1e-9);
        assert!((angular_separation_deg(359.5, 0.0, 0.5, 0.0) - 1.0).abs() < 1e-9);
    }

    #[test]
    fn cone_around_ngc_4258_finds_its_neighbours() {
        let hits = cone_search(184.740_083_3, 47.303_722_2, 30.0);
        let names: Vec<&str> = hits.iter().map(|hit| hit.name.as_str()).collect();
        assert_eq!(names, ["NGC 4258", "UGC 7356", "NGC 4248"]);
        assert_eq!(
            format_match(&hits[0]),
            "NGC 4258: ra=184.740083 deg, dec=+47.303722 deg, sep=0.00 arcmin"
        );
        assert!(hits[1].separation_arcmin > 10.0 && hits[2].separation_arcmin < 20.0);
    }

    #[test]
    fn tools_have_schemas() {
        let tools = AstroMcp::new().tool_router.list_all();
        let names: Vec<&str> = tools.iter().map(|tool| tool.name.as_ref()).collect();
        assert_eq!(names, TOOL_NAMES);
        let cone = tools
            .iter()
            .find(|tool| tool.name == "cone_search")
            .unwrap();
        let required = cone.input_schema.get("required").unwrap();
        assert_eq!(required, &serde_json::json!(["ra", "dec", "radius_arcmin"]));
        assert!(cone.output_schema.is_some());
    }
}
