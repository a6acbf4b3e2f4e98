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
    /// The data directory (database, library files, tool results).
    pub data_dir: PathBuf,
}
