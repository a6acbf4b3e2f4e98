//! Drives `asterism-mcp-server` and the in-process HTTP server with rmcp's own client.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::Stdio;
use std::time::Duration;

use asterism_testkit::mcp_server::{ConeSearchResult, FAIL_MESSAGE, TOOL_NAMES};
use asterism_testkit::start_http_mcp_server;
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::{ConfigureCommandExt, StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{ServiceExt, serde_json};
use tokio::io::AsyncBufReadExt;

const SERVER_BIN: &str = env!("CARGO_BIN_EXE_asterism-mcp-server");

type Client = RunningService<RoleClient, ()>;

fn install_crypto() {
    let _ = rustls::crypto::ring::default_provider().install_default();
}

fn args(value: serde_json::Value) -> serde_json::Map<String, serde_json::Value> {
    match value {
        serde_json::Value::Object(map) => map,
        other => panic!("not an object: {other}"),
    }
}

async fn call(client: &Client, name: &str, arguments: serde_json::Value) -> CallToolResult {
    client
        .call_tool(CallToolRequestParams::new(name.to_string()).with_arguments(args(arguments)))
        .await
        .unwrap_or_else(|error| panic!("{name} failed: {error}"))
}

fn text_of(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|block| block.as_text().map(|text| text.text.clone()))
        .collect::<Vec<_>>()
        .join("\n")
}

async fn spawn_stdio(log: Option<&std::path::Path>) -> Client {
    let transport =
        TokioChildProcess::new(tokio::process::Command::new(SERVER_BIN).configure(|cmd| {
            if let Some(log) = log {
                cmd.arg("--log").arg(log);
            }
        }))
        .unwrap();
    ().serve(transport).await.unwrap()
}

/// Lists the tools, runs a cone search around NGC 4258, `echo` and `fail`.
async fn exercise(client: &Client) {
    let tools = client.list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|tool| tool.name.as_ref()).collect();
    assert_eq!(names, TOOL_NAMES);
    for tool in &tools {
        assert!(
            tool.description.as_deref().is_some_and(|d| d.len() > 20),
            "{} has no useful description",
            tool.name
        );
        assert_eq!(
            tool.input_schema.get("type"),
            Some(&serde_json::json!("object"))
        );
    }
    let cone = tools
        .iter()
        .find(|tool| tool.name == "cone_search")
        .unwrap();
    let properties = cone.input_schema.get("properties").unwrap();
    for field in ["ra", "dec", "radius_arcmin"] {
        assert!(
            properties.get(field).is_some(),
            "no {field} in {properties}"
        );
    }

    let result = call(
        client,
        "cone_search",
        serde_json::json!({"ra": 184.7400833, "dec": 47.3037222, "radius_arcmin": 30.0}),
    )
    .await;
    assert_ne!(result.is_error, Some(true));
    let text = text_of(&result);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    assert_eq!(
        lines[0],
        "NGC 4258: ra=184.740083 deg, dec=+47.303722 deg, sep=0.00 arcmin"
    );
    for name in ["NGC 4258", "NGC 4248", "UGC 7356"] {
        assert!(text.contains(name), "{name} missing from {text}");
    }
    assert!(!text.contains("M 87"), "{text}");
    let structured: ConeSearchResult = result.clone().into_typed().unwrap();
    let found: Vec<&str> = structured.objects.iter().map(|o| o.name.as_str()).collect();
    assert_eq!(found, ["NGC 4258", "UGC 7356", "NGC 4248"]);
    assert!(
        structured
            .objects
            .iter()
            .all(|o| o.separation_arcmin < 30.0)
    );

    let far = call(
        client,
        "cone_search",
        serde_json::json!({"ra": 187.7, "dec": 12.4, "radius_arcmin": 5}),
    )
    .await;
    assert!(text_of(&far).starts_with("M 87: "), "{}", text_of(&far));

    let echoed = call(client, "echo", serde_json::json!({"text": "hello, Sgr A*"})).await;
    assert_eq!(text_of(&echoed), "hello, Sgr A*");

    let failed = call(client, "fail", serde_json::json!({})).await;
    assert_eq!(failed.is_error, Some(true));
    assert_eq!(text_of(&failed), FAIL_MESSAGE);

    let bad = call(
        client,
        "cone_search",
        serde_json::json!({"ra": 10.0, "dec": 95.0, "radius_arcmin": 1.0}),
    )
    .await;
    assert_eq!(bad.is_error, Some(true));
}

#[tokio::test]
async fn stdio_server_lists_and_calls_tools() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("calls.log");
    let client = spawn_stdio(Some(&log)).await;
    exercise(&client).await;
    let done = call(&client, "slow", serde_json::json!({"seconds": 0.05})).await;
    assert_eq!(text_of(&done), "done");
    client.cancel().await.unwrap();

    let logged = std::fs::read_to_string(&log).unwrap();
    assert_eq!(
        logged,
        "started\ncone_search\ncone_search\necho\nfail\ncone_search\nslow\n"
    );
}

#[tokio::test]
async fn stdio_exit_tool_crashes_the_server_and_a_new_one_starts() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("calls.log");
    let client = spawn_stdio(Some(&log)).await;
    let crashed = client.call_tool(CallToolRequestParams::new("exit")).await;
    assert!(crashed.is_err(), "exit answered: {crashed:?}");
    let _ = client.cancel().await;

    let client = spawn_stdio(Some(&log)).await;
    let echoed = call(&client, "echo", serde_json::json!({"text": "again"})).await;
    assert_eq!(text_of(&echoed), "again");
    client.cancel().await.unwrap();
    assert_eq!(
        std::fs::read_to_string(&log).unwrap(),
        "started\nexit\nstarted\necho\n"
    );
}

#[tokio::test]
async fn in_process_http_server_lists_and_calls_tools() {
    install_crypto();
    let (url, server) = start_http_mcp_server().await.unwrap();
    assert!(
        url.starts_with("http://127.0.0.1:") && url.ends_with("/mcp"),
        "{url}"
    );
    let client = ().serve(StreamableHttpClientTransport::from_uri(url)).await.unwrap();
    exercise(&client).await;

    // `exit` must not end the test process here.
    let refused = call(&client, "exit", serde_json::json!({})).await;
    assert_eq!(refused.is_error, Some(true));
    client.cancel().await.unwrap();
    assert_eq!(
        server.calls(),
        [
            "cone_search",
            "cone_search",
            "echo",
            "fail",
            "cone_search",
            "exit"
        ]
    );
}

#[tokio::test]
async fn http_binary_prints_its_url_and_serves() {
    install_crypto();
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("calls.log");
    let mut child = tokio::process::Command::new(SERVER_BIN)
        .arg("--http")
        .arg("--log")
        .arg(&log)
        .stdout(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let mut lines = tokio::io::BufReader::new(stdout).lines();
    let url = tokio::time::timeout(Duration::from_secs(30), lines.next_line())
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    assert!(
        url.starts_with("http://127.0.0.1:") && url.ends_with("/mcp"),
        "{url}"
    );

    let client = ().serve(StreamableHttpClientTransport::from_uri(url)).await.unwrap();
    let tools = client.list_all_tools().await.unwrap();
    assert_eq!(tools.len(), 6);
    let echoed = call(&client, "echo", serde_json::json!({"text": "over http"})).await;
    assert_eq!(text_of(&echoed), "over http");
    client.cancel().await.unwrap();
    child.kill().await.unwrap();
    assert_eq!(std::fs::read_to_string(&log).unwrap(), "echo\n");
}
