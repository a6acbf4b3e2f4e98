//! Wire types shared by every side of Asterism: the engine, the CLI, the desktop shell
//! and (through generated TypeScript bindings) the UI.
//!
//! No I/O lives here. Numbers on the wire are `i32`/`f64` because the TypeScript
//! exporter refuses 64-bit integers; ids are strings; timestamps are RFC 3339 strings
//! in fields named `*At`.

mod event;
mod json;
mod paper;
mod session;
mod target;
mod timeline;

pub use event::{AgentEvent, GrantKind, PermissionGrant, RunFinishReason, TokenUsage};
pub use json::JsonValue;
pub use paper::{LocalStatus, PaperRecord};
pub use session::SessionSummary;
pub use target::{ResolvedTarget, TargetResolver};
pub use timeline::{Timeline, TimelineItem};

/// Name of the top-level agent in events, messages and audit rows; subagents carry their
/// own names.
pub const MAIN_AGENT: &str = "main";
