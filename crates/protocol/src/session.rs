use serde::{Deserialize, Serialize};
use specta::Type;

/// One stored research session, as listed in the history sidebar and by
/// `asterism sessions list`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct SessionSummary {
    pub id: String,
    /// The first question asked, or a title the user gave.
    pub title: String,
    pub created_at: String,
    pub updated_at: String,
    /// Messages stored (user, assistant and tool), subagents included.
    pub message_count: i32,
    /// The model of the latest run.
    pub model: String,
    /// Summary written by auto-compaction, if any.
    pub summary: Option<String>,
}
