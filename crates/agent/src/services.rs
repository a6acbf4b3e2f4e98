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
}

impl Services {
    /// The user's own skills (`{data_dir}/skills/<name>/SKILL.md`).
    pub fn skills_dir(&self) -> PathBuf {
        self.data_dir.join("skills")
    }

    /// Where the filesystem tools may go: the project root (the working directory), the
    /// library (`{data_dir}/papers`) and the skills folder (`{data_dir}/skills`).
    pub fn sandbox(&self) -> crate::security::Sandbox {
        let project = std::env::current_dir().unwrap_or_else(|_| self.data_dir.clone());
        crate::security::Sandbox::new([
            project,
            self.data_dir.join("papers"),
            self.data_dir.join("skills"),
        ])
    }
}
