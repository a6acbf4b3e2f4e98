//! The tools, one file each.

mod ask_user;
mod background;
mod bibtex;
mod citation_graph;
mod compress_context;
mod download_paper;
pub mod filesystem;
mod get_paper_content;
mod get_paper_metadata;
mod load_skill;
mod parse_paper;
mod query_target;
mod rag_search;
mod request_permission;
mod save_memory;
mod save_note;
mod search_library_by_object;
mod search_papers;
mod subagent;
mod team;
mod todo_write;
mod view_figure;

pub use ask_user::AskUserTool;
pub use background::{BgTaskCheckTool, BgTaskRunTool};
pub use bibtex::BibtexTool;
pub use citation_graph::CitationGraphTool;
pub use compress_context::CompressContextTool;
pub use download_paper::DownloadPaperTool;
pub use filesystem::{
    FileEditTool, FileWriteTool, GlobFilesTool, GrepFilesTool, ReadFileTool, RunBashTool,
};
pub use get_paper_content::GetPaperContentTool;
pub use get_paper_metadata::GetPaperMetadataTool;
pub use load_skill::LoadSkillTool;
pub use parse_paper::ParsePaperTool;
pub use query_target::QueryTargetTool;
pub use rag_search::RagSearchTool;
pub use request_permission::RequestPermissionTool;
pub use save_memory::SaveMemoryTool;
pub use save_note::SaveNoteTool;
pub use search_library_by_object::SearchLibraryByObjectTool;
pub use search_papers::SearchPapersTool;
pub use subagent::SubagentTool;
pub use team::{CheckTeamInboxTool, SendTeammateMessageTool, SpawnTeammateTool, TeamBroadcastTool};
pub use todo_write::TodoWriteTool;
pub use view_figure::ViewFigureTool;

use std::sync::Arc;

use crate::ToolRegistry;
use crate::background::BackgroundQueue;
use crate::team::TeamManager;

/// Registers the base tools (the seed's `add_base_tools`): filesystem, astronomy and
/// self-management. `save_memory` and `request_permission` are added by the runtime.
pub(crate) fn add_base_tools(registry: &mut ToolRegistry) {
    // Filesystem (6).
    registry.add_tool(Arc::new(ReadFileTool));
    registry.add_tool(Arc::new(GrepFilesTool));
    registry.add_tool(Arc::new(GlobFilesTool));
    registry.add_tool(Arc::new(RunBashTool));
    registry.add_tool(Arc::new(FileWriteTool));
    registry.add_tool(Arc::new(FileEditTool));
    // Astronomy.
    registry.add_tool(Arc::new(SearchPapersTool));
    registry.add_tool(Arc::new(CitationGraphTool));
    registry.add_tool(Arc::new(GetPaperMetadataTool));
    registry.add_tool(Arc::new(DownloadPaperTool));
    registry.add_tool(Arc::new(ParsePaperTool));
    registry.add_tool(Arc::new(GetPaperContentTool));
    registry.add_tool(Arc::new(RagSearchTool));
    registry.add_tool(Arc::new(SearchLibraryByObjectTool));
    registry.add_tool(Arc::new(QueryTargetTool));
    registry.add_tool(Arc::new(SaveNoteTool));
    registry.add_tool(Arc::new(BibtexTool));
    // Self-management and orchestration.
    registry.add_tool(Arc::new(TodoWriteTool));
    registry.add_tool(Arc::new(CompressContextTool));
    registry.add_tool(Arc::new(AskUserTool));
    registry.add_tool(Arc::new(LoadSkillTool));
    registry.add_tool(Arc::new(SubagentTool));
}

/// bg_task_run and bg_task_check over `queue`.
pub(crate) fn add_background_tools(registry: &mut ToolRegistry, queue: BackgroundQueue) {
    registry.add_tool(Arc::new(BgTaskRunTool { queue }));
    registry.add_tool(Arc::new(BgTaskCheckTool));
}

/// The four team tools over `team`.
pub(crate) fn add_team_tools(registry: &mut ToolRegistry, team: TeamManager) {
    registry.add_tool(Arc::new(SpawnTeammateTool { team: team.clone() }));
    registry.add_tool(Arc::new(SendTeammateMessageTool { team: team.clone() }));
    registry.add_tool(Arc::new(TeamBroadcastTool { team: team.clone() }));
    registry.add_tool(Arc::new(CheckTeamInboxTool { team }));
}
