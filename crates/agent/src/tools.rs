//! The tools, one file each.

mod bibtex;
mod compress_context;
mod download_paper;
pub mod filesystem;
mod get_paper_content;
mod get_paper_metadata;
mod parse_paper;
mod query_target;
mod request_permission;
mod save_memory;
mod search_papers;

pub use bibtex::BibtexTool;
pub use compress_context::CompressContextTool;
pub use download_paper::DownloadPaperTool;
pub use filesystem::{
    FileEditTool, FileWriteTool, GlobFilesTool, GrepFilesTool, ReadFileTool, RunBashTool,
};
pub use get_paper_content::GetPaperContentTool;
pub use get_paper_metadata::GetPaperMetadataTool;
pub use parse_paper::ParsePaperTool;
pub use query_target::QueryTargetTool;
pub use request_permission::RequestPermissionTool;
pub use save_memory::SaveMemoryTool;
pub use search_papers::SearchPapersTool;

use std::sync::Arc;

use crate::ToolRegistry;

/// Registers the base tools of this release.
pub(crate) fn add_base_tools(registry: &mut ToolRegistry) {
    registry.add_tool(Arc::new(QueryTargetTool));
    registry.add_tool(Arc::new(SearchPapersTool));
    registry.add_tool(Arc::new(GetPaperMetadataTool));
    registry.add_tool(Arc::new(DownloadPaperTool));
    registry.add_tool(Arc::new(ParsePaperTool));
    registry.add_tool(Arc::new(GetPaperContentTool));
    registry.add_tool(Arc::new(BibtexTool));
    registry.add_tool(Arc::new(ReadFileTool));
    registry.add_tool(Arc::new(GlobFilesTool));
    registry.add_tool(Arc::new(GrepFilesTool));
    registry.add_tool(Arc::new(FileWriteTool));
    registry.add_tool(Arc::new(FileEditTool));
    registry.add_tool(Arc::new(RunBashTool));
    registry.add_tool(Arc::new(CompressContextTool));
    registry.add_tool(Arc::new(SaveMemoryTool));
}
