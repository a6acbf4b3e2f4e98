//! The filesystem tools: `read_file`, `glob_files`, `grep_files` (reads), `file_write`,
//! `file_edit` (writes: asked in the default mode) and `run_bash` (always asked). Every path
//! goes through the [`Sandbox`](crate::security::Sandbox) first.

mod bash;
mod glob;
mod grep;
mod read;
mod write;

pub use bash::{ENV_ALLOWLIST, RunBashTool, allowlisted_environment};
pub use glob::GlobFilesTool;
pub use grep::GrepFilesTool;
pub use read::{FILE_UNCHANGED_STUB, FileStateCache, ReadFileTool};
pub use write::{FileEditTool, FileWriteTool};

use std::path::Path;

/// Whether the start of a file looks binary (a NUL byte in the first 8 KiB).
pub(crate) fn looks_binary(bytes: &[u8]) -> bool {
    bytes.iter().take(8192).any(|byte| *byte == 0)
}

/// A path as shown to the model: relative to the sandbox root it is in.
pub(crate) fn shown(path: &Path, roots: &[std::path::PathBuf]) -> String {
    roots
        .iter()
        .find_map(|root| path.strip_prefix(root).ok())
        .filter(|relative| !relative.as_os_str().is_empty())
        .map_or_else(|| path.display().to_string(), |p| p.display().to_string())
}
