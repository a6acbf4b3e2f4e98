//! The Asterism agent: a ReAct loop ([`AgentRuntime`]) that streams the model's answer,
//! runs the tools it asks for through the [`executor`], persists every message, and
//! reports everything as [`AgentEvent`](asterism_protocol::AgentEvent)s to an
//! [`EventSink`].

pub mod background;
pub mod bootstrap;
pub mod compaction;
pub mod config;
pub mod events;
pub mod executor;
pub mod heap;
mod history;
pub mod hooks;
pub mod lease;
pub mod mcp;
pub mod memory;
pub mod permissions;
pub mod persist;
pub mod prompt;
pub mod questions;
pub mod rag;
pub mod replay;
pub mod runtime;
pub mod secrets;
pub mod security;
pub mod services;
pub mod settings;
pub mod skills;
pub mod subagent;
pub mod team;
pub mod test_tools;
pub mod todos;
pub mod tool;
pub mod tools;

pub use config::AgentConfig;

/// A fresh session id.
pub fn new_session_id() -> String {
    uuid::Uuid::new_v4().to_string()
}

pub use events::{CollectingSink, EventSink, FnSink};
pub use replay::{TimelineCache, session_events, session_timeline};
pub use runtime::{AgentRuntime, RunOutcome, RunRequest};
pub use services::Services;
pub use settings::Settings;
pub use tool::{
    AgentTool, InterruptBehavior, ModelCall, PermissionRule, ProgressSender, ToolContext,
    ToolOutput, ToolRegistry, TypedTool,
};
