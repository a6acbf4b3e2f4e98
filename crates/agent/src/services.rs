//! The application's services, shared by the runtime and every tool.

use std::path::PathBuf;

use asterism_library::TargetService;
use asterism_library::download::Downloader;
use asterism_library::library::ads_sync::MissingPdf;
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
    /// Whether the model takes images, so the runtime offers `view_figure` (`LLM_VISION`).
    pub vision: bool,
    /// Folders outside the workspace `run_bash` may read (`SHELL_READ`); the rest of the
    /// home folder and the data folder are unreadable to it.
    pub shell_read: Vec<PathBuf>,
    /// The MCP servers of `{data_dir}/mcp.json`, whose tools join each run.
    pub mcp: crate::mcp::McpHub,
    /// Whether answers from the library have the model score the passages first.
    pub rerank: crate::rag::RerankSettings,
}

impl Services {
    /// Lets go of the embedding model and the vector index when each has gone unused for
    /// `keep` (`KEEP_ALIVE_S`), and hands back to the system what they and the searches
    /// held: the freed heap, the idle database connections' page caches and, with the
    /// model, the ONNX runtime's pages. True when something was let go. A long-lived
    /// process (the app) calls it now and then.
    pub async fn release_idle(&self, keep: std::time::Duration) -> bool {
        let released = self.library.release_idle(keep);
        if released.any() {
            self.store.shrink_memory().await;
            if released.model {
                crate::heap::page_out_library(asterism_library::library::local::RUNTIME_FILE);
            }
            crate::heap::release_free_memory();
            tracing::info!(?released, ?keep, "let go of what the library left unused");
        }
        released.any()
    }

    /// The user's own skills (`{data_dir}/skills/<name>/SKILL.md`).
    pub fn skills_dir(&self) -> PathBuf {
        self.data_dir.join("skills")
    }

    /// A paper (bibcode, arXiv id or DOI) into the library: its metadata from ADS or
    /// arXiv, its PDF (or the one already stored), and its objects linked. The one way
    /// the agent's `download_paper`, `asterism papers download` and the app's "Add" bring
    /// a paper in.
    pub async fn add_paper(
        &self,
        id: &str,
        progress: &(dyn Fn(u64, Option<u64>) + Send + Sync),
    ) -> Result<
        (
            asterism_protocol::PaperRecord,
            asterism_library::download::Downloaded,
        ),
        String,
    > {
        let paper = self
            .papers
            .metadata(id)
            .await
            .map_err(|error| error.to_string())?;
        let done = self
            .downloader
            .download(&paper, progress)
            .await
            .map_err(|error| error.to_string())?;
        if let Err(error) = self.library.link_objects(&done.paper_id).await {
            tracing::warn!(%error, "could not link the paper's objects");
        }
        Ok((paper, done))
    }

    /// The PDFs of these papers (by bibcode) that the library lacks, one after another
    /// through [`Services::add_paper`]; `each(done, total, bibcode)` before each. A paper
    /// whose PDF cannot be had stays metadata-only, with the reason.
    pub async fn download_missing(
        &self,
        bibcodes: &[String],
        each: &(dyn Fn(usize, usize, &str) + Send + Sync),
    ) -> Vec<MissingPdf> {
        let mut wanted = Vec::new();
        for bibcode in bibcodes {
            let status = self.store.paper_status(Some(bibcode), None, None).await;
            if !matches!(
                status.ok().flatten().as_deref(),
                Some("downloaded" | "parsed")
            ) {
                wanted.push(bibcode);
            }
        }
        let mut results = Vec::new();
        for (done, bibcode) in wanted.iter().enumerate() {
            each(done, wanted.len(), bibcode);
            let outcome = self.add_paper(bibcode, &|_, _| {}).await;
            results.push(MissingPdf {
                bibcode: bibcode.to_string(),
                error: outcome.err(),
            });
        }
        results
    }

    /// Where the filesystem tools of a session may go: the workspace, the library
    /// (`{data_dir}/papers`), the skills folder (`{data_dir}/skills`) and the session's
    /// tool-output folder. Never the process's working directory by accident.
    pub fn sandbox(&self, session_id: &str) -> crate::security::Sandbox {
        crate::security::Sandbox::for_session(self.workspace.as_deref(), &self.data_dir, session_id)
    }
}
