//! The application's services, shared by the runtime and every tool.

use std::path::PathBuf;

use asterism_library::TargetService;
use asterism_library::download::Downloader;
use asterism_library::papers::PaperSearch;
use asterism_library::parse::Parser;
use asterism_store::Store;

/// What tools reach through [`ToolContext`](crate::ToolContext): the database, the
/// domain services and where files live.
#[derive(Debug, Clone)]
pub struct Services {
    pub store: Store,
    pub targets: TargetService,
    /// ADS and arXiv search and metadata.
    pub papers: PaperSearch,
    /// PDFs into the library.
    pub downloader: Downloader,
    /// Papers into Markdown (arXiv HTML or the stored PDF).
    pub parser: Parser,
    /// The local library: import, chunks, embeddings, hybrid search.
    pub library: asterism_library::library::Library,
    /// The data directory (database, library files, tool results).
    pub data_dir: PathBuf,
    /// What `read_file` returned per session, to answer "unchanged" instead of again.
    pub file_state: crate::tools::filesystem::FileStateCache,
    /// Background tasks of this process (bg_task_run).
    pub background: crate::background::BackgroundQueue,
    /// Team inboxes and running teammates.
    pub team: crate::team::TeamManager,
    /// The folder the user chose for the agent's file tools and shell (`None`: only the
    /// library, the skills folder and the session's tool output).
    pub workspace: Option<PathBuf>,
    /// Every configured secret value, replaced by `***` before anything leaves a run.
    pub scrubber: crate::security::Scrubber,
    /// Whether `run_bash` may open network connections (`SHELL_NETWORK`).
    pub shell_network: bool,
    /// Folders outside the workspace `run_bash` may read (`SHELL_READ`); the rest of the
    /// home folder and the data folder are unreadable to it.
    pub shell_read: Vec<PathBuf>,
    /// The MCP servers of `{data_dir}/mcp.json`, whose tools join each run.
    pub mcp: crate::mcp::McpHub,
}

impl Services {
    /// The user's own skills (`{data_dir}/skills/<name>/SKILL.md`).
    pub fn skills_dir(&self) -> PathBuf {
        self.data_dir.join("skills")
    }

    /// Where the filesystem tools of a session may go: the workspace, the library
    /// (`{data_dir}/papers`), the skills folder (`{data_dir}/skills`) and the session's
    /// tool-output folder. Never the process's working directory by accident.
    pub fn sandbox(&self, session_id: &str) -> crate::security::Sandbox {
        crate::security::Sandbox::for_session(self.workspace.as_deref(), &self.data_dir, session_id)
    }
}
