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

/// The most a file tool reads of one file (`read_file`; `grep_files` skips larger files).
pub(crate) const MAX_READ_BYTES: u64 = 32 << 20;

/// What [`read_confined`] read.
pub(crate) struct Read {
    pub bytes: Vec<u8>,
    pub metadata: std::fs::Metadata,
    /// The file is longer than what was read.
    pub cut: bool,
}

/// Reads at most `max` bytes of a resolved file, opened without following a link at its
/// end and without blocking (a FIFO, device or socket is refused, not waited on), then
/// checked where it really is ([`Sandbox::confirm_opened`]), so a path swapped after the
/// check leads nowhere.
pub(crate) fn read_confined(
    sandbox: &crate::security::Sandbox,
    shown: &str,
    path: &Path,
    max: u64,
) -> Result<Read, String> {
    use std::io::Read as _;
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_NOCTTY);
    }
    let file = options
        .open(path)
        .map_err(|error| format!("cannot read {shown}: {error}"))?;
    let metadata = file
        .metadata()
        .map_err(|error| format!("cannot read {shown}: {error}"))?;
    if !metadata.is_file() {
        return Err(format!(
            "{shown} is not a regular file (a FIFO, a device or a socket); it is not read"
        ));
    }
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        let real = std::fs::read_link(format!("/proc/self/fd/{}", file.as_raw_fd()))
            .map_err(|error| format!("cannot read {shown}: {error}"))?;
        sandbox
            .confirm_opened(shown, &real)
            .map_err(|error| error.to_string())?;
    }
    #[cfg(not(target_os = "linux"))]
    let _ = sandbox;
    let mut bytes = Vec::new();
    file.take(max)
        .read_to_end(&mut bytes)
        .map_err(|error| format!("cannot read {shown}: {error}"))?;
    let cut = metadata.len() > max;
    Ok(Read {
        bytes,
        metadata,
        cut,
    })
}

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
