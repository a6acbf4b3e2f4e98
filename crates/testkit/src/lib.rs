//! Loopback fakes that speak the real wire formats, for tests and demos:
//!
//! - [`MockLlm`]: a scripted OpenAI-compatible Chat Completions server (SSE streaming),
//!   serving [`Script`] turns in order, recording every request and flagging a tool call
//!   whose result is missing from the next request.
//! - [`FixtureServer`]: serves recorded ADS, arXiv and Sesame responses from
//!   `fixtures/` (see its MANIFEST.md for where each file comes from).
//! - [`biblib::Biblib`]: a stateful fake of ADS libraries inside [`FixtureServer`].
//! - [`serve_sse_body`]: serves one recorded SSE body, for client tests.
//! - [`bench`]: the benchmarks' deterministic generator and percentiles.
//! - [`mcp_server`]: a real MCP server ([`AstroMcp`], built on `rmcp`) with a tiny
//!   catalogue, over stdio (the `asterism-mcp-server` binary) or streamable HTTP
//!   ([`start_http_mcp_server`]).
//! - [`LlamaServer`]: not a fake: llama.cpp's `llama-server` with a small real model
//!   (`scripts/real-model.sh` installs both), for the real-model tests.

pub mod bench;
pub mod biblib;
mod fixtures;
mod llama;
pub mod mcp_server;
mod mock_llm;
pub mod pdf;
mod script;
mod server;

pub use fixtures::{
    FixtureServer, Route, RouteResponse, ads_routes, all_routes, arxiv_routes, crossref_routes,
    fixture_path, fixtures_dir, sesame_routes, sse_from_chunks_jsonl,
};
pub use llama::{LLAMA_MODEL_NAME, LlamaFiles, LlamaOptions, LlamaServer, llama_files};
pub use mcp_server::{AstroMcp, CallLog, McpHttpServer, start_http_mcp_server};
pub use mock_llm::{MockLlm, RecordedRequest, bag_of_words_embedding};
pub use script::{Fault, Script, ScriptedToolCall, Turn};
pub use server::{LoopbackServer, serve_sse_body};
