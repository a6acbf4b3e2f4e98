//! Where the filesystem tools may go, and what they may never touch.
//!
//! The roots are the workspace the user chose, the library, the skills folder and the
//! session's own tool-output folder; never the process's working directory by accident.
//! Paths with `..`, `~`, NUL bytes or look-alikes of them are refused outright; anything
//! else is canonicalised (symlinks followed) before the prefix check, so a link pointing
//! out of a root does not lead out. Inside the roots, files that may hold secrets
//! ([`files::secret_by_name`], hard links to them, private keys by content) and
//! Asterism's own data (database, settings, keys) are refused too.

pub mod commands;
pub mod confine;
pub mod files;
pub mod later;
pub mod scrub;
pub mod shell;

use std::path::{Component, Path, PathBuf};

use unicode_normalization::UnicodeNormalization;

pub use files::ProtectedFiles;
pub use scrub::{Scrubber, ScrubbingSink};

/// The longest path accepted, in bytes.
pub const MAX_PATH_BYTES: usize = 4096;

/// Why a path was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PathError {
    #[error("the path is empty")]
    Empty,
    #[error("the path contains a NUL byte")]
    Nul,
    #[error("the path is longer than {MAX_PATH_BYTES} bytes")]
    TooLong,
    #[error(
        "paths starting with ~ are not expanded; give a path inside the workspace or the library"
    )]
    Tilde,
    #[error("`..` is not allowed in paths ({0})")]
    ParentDir(String),
    #[error("{0} is outside the folders the agent may use ({1})")]
    Outside(String, String),
    #[error(
        "{0} is a relative path and no workspace folder is set (choose one in Settings, or start asterism with --workspace DIR); the agent may use only {1}"
    )]
    NoWorkspace(String, String),
    #[error("{0} is refused: {1}. Files that may hold secrets are never given to the agent")]
    Secret(String, &'static str),
    #[error("{0} does not exist")]
    NotFound(String),
    #[error("{0} has no parent folder inside the sandbox")]
    NoParent(String),
}

/// Folders that hold other people's or the system's files: never a workspace.
const SHARED_FOLDERS: [&str; 6] = ["/home", "/Users", "/root", "/tmp", "/var/tmp", "/mnt"];

/// Whether a folder may be the workspace: an existing folder that is not the root of the
/// filesystem, a shared folder (`/home`, `/Users`, `/root`, `/tmp` itself), the home
/// folder or any folder holding it, the data folder, a folder inside it or holding it.
/// Everything inside the workspace is open to the agent's file tools and its shell.
pub fn workspace_problem(
    folder: &Path,
    home: Option<&Path>,
    data_dir: Option<&Path>,
) -> Option<String> {
    let Ok(canonical) = folder.canonicalize() else {
        return Some(format!("{} does not exist", folder.display()));
    };
    if !canonical.is_dir() {
        return Some(format!("{} is not a folder", folder.display()));
    }
    if canonical.parent().is_none() {
        return Some("the root of the filesystem cannot be the workspace".into());
    }
    if SHARED_FOLDERS
        .iter()
        .any(|shared| canonical == Path::new(shared))
    {
        return Some(format!(
            "{} holds other people's or the system's files and cannot be the workspace (choose a project folder)",
            canonical.display()
        ));
    }
    if let Some(home) = home.and_then(|home| home.canonicalize().ok())
        && home.starts_with(&canonical)
    {
        return Some(if home == canonical {
            "the home folder itself cannot be the workspace (choose a project folder inside it)"
                .into()
        } else {
            format!(
                "{} holds the home folder and cannot be the workspace (choose a project folder)",
                canonical.display()
            )
        });
    }
    if let Some(data) = data_dir.and_then(|data| data.canonicalize().ok())
        && (data.starts_with(&canonical) || canonical.starts_with(&data))
    {
        return Some(format!(
            "{} holds or is inside Asterism's data folder ({}: its database, settings and keys) and cannot be the workspace",
            canonical.display(),
            data.display()
        ));
    }
    None
}

/// The folders the filesystem tools may use, and what they may not touch inside them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sandbox {
    /// Canonical roots; the first resolves relative paths when there is a workspace.
    roots: Vec<PathBuf>,
    has_workspace: bool,
    /// Asterism's data directory (canonical): refused but for the roots inside it.
    data_dir: Option<PathBuf>,
    /// The skills folder (canonical), where writes are always asked.
    skills: Option<PathBuf>,
    protected: ProtectedFiles,
}

impl Sandbox {
    /// A sandbox over the roots that exist (others are skipped), canonicalised; the first
    /// is taken as the workspace.
    pub fn new(roots: impl IntoIterator<Item = PathBuf>) -> Self {
        Self {
            roots: canonical_roots(roots),
            has_workspace: true,
            data_dir: None,
            skills: None,
            protected: ProtectedFiles::default(),
        }
    }

    /// The sandbox of one session: the workspace (if any), the library, the skills folder
    /// and the session's tool-output folder.
    pub fn for_session(workspace: Option<&Path>, data_dir: &Path, session_id: &str) -> Self {
        let mut roots = Vec::new();
        roots.extend(workspace.map(Path::to_path_buf));
        roots.push(data_dir.join("papers"));
        roots.push(data_dir.join("skills"));
        roots.push(tool_output_dir(data_dir, session_id));
        let roots = canonical_roots(roots);
        let has_workspace = workspace
            .and_then(|folder| folder.canonicalize().ok())
            .is_some_and(|folder| roots.first() == Some(&folder));
        Self {
            roots,
            has_workspace,
            data_dir: data_dir.canonicalize().ok(),
            skills: data_dir.join("skills").canonicalize().ok(),
            protected: ProtectedFiles::find(data_dir, dirs::home_dir().as_deref()),
        }
    }

    pub fn roots(&self) -> &[PathBuf] {
        &self.roots
    }

    /// The workspace, when one is set.
    pub fn workspace(&self) -> Option<&Path> {
        self.has_workspace
            .then(|| self.roots.first().map(PathBuf::as_path))
            .flatten()
    }

    /// The skills folder (canonical), if it exists.
    pub fn skills(&self) -> Option<&Path> {
        self.skills.as_deref()
    }

    fn describe_roots(&self) -> String {
        if self.roots.is_empty() {
            return "no folder".into();
        }
        self.roots
            .iter()
            .map(|root| root.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Checks the text of a path before touching the filesystem, and makes it absolute
    /// (relative paths are taken from the workspace).
    fn lexical(&self, path: &str) -> Result<PathBuf, PathError> {
        if path.trim().is_empty() {
            return Err(PathError::Empty);
        }
        if path.contains('\0') {
            return Err(PathError::Nul);
        }
        if path.len() > MAX_PATH_BYTES {
            return Err(PathError::TooLong);
        }
        // Full-width tildes and dots (～, ．．) and one-dot leaders (‥) normalise to the
        // characters they imitate.
        let normalised: String = path.nfkc().collect();
        if normalised.trim_start().starts_with('~') {
            return Err(PathError::Tilde);
        }
        let as_path = Path::new(path);
        for component in Path::new(&normalised).components() {
            if component == Component::ParentDir {
                return Err(PathError::ParentDir(path.to_string()));
            }
        }
        if as_path.is_absolute() {
            return Ok(as_path.to_path_buf());
        }
        match self.workspace() {
            Some(base) => Ok(base.join(as_path)),
            None => Err(PathError::NoWorkspace(
                path.to_string(),
                self.describe_roots(),
            )),
        }
    }

    fn inside(&self, canonical: &Path) -> bool {
        self.roots.iter().any(|root| canonical.starts_with(root))
    }

    /// Refuses a canonical path inside the roots that must not be touched: Asterism's
    /// own data, secret files by name, and hard links to secret files.
    pub fn check_untouchable(&self, shown: &str, canonical: &Path) -> Result<(), PathError> {
        if let Some(data_dir) = &self.data_dir
            && canonical.starts_with(data_dir)
            && !self
                .roots
                .iter()
                .any(|root| root.starts_with(data_dir) && canonical.starts_with(root))
        {
            return Err(PathError::Secret(
                shown.to_string(),
                "it is Asterism's own data (database, settings, keys)",
            ));
        }
        if let Some(reason) = files::secret_by_name(canonical) {
            return Err(PathError::Secret(shown.to_string(), reason));
        }
        if self.protected.contains(canonical) {
            return Err(PathError::Secret(
                shown.to_string(),
                "it is a link to a file that holds secrets",
            ));
        }
        Ok(())
    }

    /// Checks where an opened file really is (its path as the kernel reports it): inside
    /// a root and not a file that must not be touched. Catches a folder on the way
    /// swapped for a link between [`Sandbox::resolve`] and the open.
    pub fn confirm_opened(&self, shown: &str, real: &Path) -> Result<(), PathError> {
        if !self.inside(real) {
            return Err(PathError::Outside(shown.to_string(), self.describe_roots()));
        }
        self.check_untouchable(shown, real)
    }

    /// Whether a file found while walking a folder (glob, grep) may be shown.
    pub fn may_touch(&self, canonical: &Path) -> bool {
        self.check_untouchable("", canonical).is_ok()
    }

    /// An existing file or folder inside a root, canonical, that may be read.
    pub fn resolve(&self, path: &str) -> Result<PathBuf, PathError> {
        let absolute = self.lexical(path)?;
        let canonical = absolute
            .canonicalize()
            .map_err(|_| PathError::NotFound(path.to_string()))?;
        if !self.inside(&canonical) {
            return Err(PathError::Outside(path.to_string(), self.describe_roots()));
        }
        self.check_untouchable(path, &canonical)?;
        Ok(canonical)
    }

    /// A path to write: an existing file inside a root, or a new name in an existing
    /// folder inside a root (the folder canonicalised, the name checked). `hooks.json`
    /// passes here: writing it is asked every time instead (see [`files::runs_code_later`]).
    pub fn resolve_for_write(&self, path: &str) -> Result<PathBuf, PathError> {
        let absolute = self.lexical(path)?;
        let target = if absolute.exists() {
            let canonical = absolute
                .canonicalize()
                .map_err(|_| PathError::NotFound(path.to_string()))?;
            if !self.inside(&canonical) {
                return Err(PathError::Outside(path.to_string(), self.describe_roots()));
            }
            canonical
        } else {
            // A dangling symlink is a way out too.
            if absolute.symlink_metadata().is_ok() {
                return Err(PathError::Outside(path.to_string(), self.describe_roots()));
            }
            let (Some(parent), Some(name)) = (absolute.parent(), absolute.file_name()) else {
                return Err(PathError::NoParent(path.to_string()));
            };
            let parent = parent
                .canonicalize()
                .map_err(|_| PathError::NoParent(path.to_string()))?;
            if !self.inside(&parent) {
                return Err(PathError::Outside(path.to_string(), self.describe_roots()));
            }
            parent.join(name)
        };
        let is_hooks_file = target
            .file_name()
            .is_some_and(|name| name.eq_ignore_ascii_case("hooks.json"));
        match self.check_untouchable(path, &target) {
            Err(PathError::Secret(_, reason))
                if is_hooks_file && !reason.contains("Asterism's own data") =>
            {
                Ok(target)
            }
            Err(error) => Err(error),
            Ok(()) => Ok(target),
        }
    }
}

fn canonical_roots(roots: impl IntoIterator<Item = PathBuf>) -> Vec<PathBuf> {
    let mut canonical = Vec::new();
    for root in roots {
        if let Ok(root) = root.canonicalize()
            && !canonical.contains(&root)
        {
            canonical.push(root);
        }
    }
    canonical
}

/// A session's own folder (`{data_dir}/sessions/{session id}`).
pub fn session_dir(data_dir: &Path, session_id: &str) -> PathBuf {
    let safe: String = session_id
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
        .collect();
    let safe = if safe.is_empty() {
        "unnamed".into()
    } else {
        safe
    };
    data_dir.join("sessions").join(safe)
}

/// A session's own folder for tool output cut from the conversation
/// (`{data_dir}/sessions/{session id}/tool-output`).
pub fn tool_output_dir(data_dir: &Path, session_id: &str) -> PathBuf {
    session_dir(data_dir, session_id).join("tool-output")
}

/// A session's own temporary folder, the only one its shell may write besides the
/// workspace (`TMPDIR` points there).
pub fn shell_temp_dir(data_dir: &Path, session_id: &str) -> PathBuf {
    session_dir(data_dir, session_id).join("tmp")
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Fixture {
        _dir: tempfile::TempDir,
        outside: PathBuf,
        project: PathBuf,
        library: PathBuf,
        sandbox: Sandbox,
    }

    fn fixture() -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path().join("project");
        let library = dir.path().join("library");
        let outside = dir.path().join("outside");
        for folder in [&project, &library, &outside] {
            std::fs::create_dir_all(folder).unwrap();
        }
        std::fs::write(project.join("notes.md"), "ok").unwrap();
        std::fs::write(library.join("paper.md"), "ok").unwrap();
        std::fs::write(outside.join("secret.txt"), "no").unwrap();
        let sandbox = Sandbox::new([project.clone(), library.clone(), dir.path().join("missing")]);
        Fixture {
            _dir: dir,
            outside,
            project,
            library,
            sandbox,
        }
    }

    #[test]
    fn paths_inside_the_roots_resolve() {
        let f = fixture();
        assert_eq!(f.sandbox.roots().len(), 2, "the missing root is skipped");
        let project = f.project.canonicalize().unwrap();
        assert_eq!(
            f.sandbox.resolve("notes.md").unwrap(),
            project.join("notes.md")
        );
        assert_eq!(
            f.sandbox.resolve("./notes.md").unwrap(),
            project.join("notes.md")
        );
        let library = f.library.join("paper.md");
        assert_eq!(
            f.sandbox.resolve(library.to_str().unwrap()).unwrap(),
            library.canonicalize().unwrap()
        );
        assert_eq!(
            f.sandbox.resolve_for_write("new/../x").unwrap_err(),
            PathError::ParentDir("new/../x".into())
        );
        assert_eq!(
            f.sandbox.resolve_for_write("draft.tex").unwrap(),
            project.join("draft.tex")
        );
    }

    #[test]
    fn a_workspace_never_holds_the_home_folder_the_data_folder_or_shared_folders() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home/me");
        let data = home.join(".local/share/asterism");
        let project = home.join("thesis");
        for folder in [&data, &project] {
            std::fs::create_dir_all(folder).unwrap();
        }
        #[cfg(unix)]
        std::os::unix::fs::symlink(&home, dir.path().join("link-to-home")).unwrap();
        let problem = |folder: &Path| workspace_problem(folder, Some(&home), Some(&data));
        assert_eq!(problem(&project), None);
        let refused = [
            PathBuf::from("/"),
            PathBuf::from("/tmp"),
            PathBuf::from("/home"),
            PathBuf::from("/root"),
            dir.path().to_path_buf(),
            dir.path().join("home"),
            home.clone(),
            dir.path().join("link-to-home"),
            project.join(".."),
            home.join(".local"),
            data.clone(),
            dir.path().join("missing"),
        ];
        for folder in refused.iter().filter(|folder| {
            // Shared folders a machine may not have are refused as missing.
            folder.exists() || folder.ends_with("missing")
        }) {
            assert!(problem(folder).is_some(), "{folder:?} was accepted");
        }
        std::fs::create_dir_all(data.join("papers")).unwrap();
        assert!(problem(&data.join("papers")).is_some());
    }

    #[test]
    fn no_path_escapes() {
        let f = fixture();
        let secret = f.outside.join("secret.txt");
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(&secret, f.project.join("link.txt")).unwrap();
            std::os::unix::fs::symlink(&f.outside, f.project.join("out")).unwrap();
            std::os::unix::fs::symlink(f.outside.join("new.txt"), f.project.join("dangling"))
                .unwrap();
        }
        let long = "a/".repeat(MAX_PATH_BYTES);
        let attempts: Vec<String> = vec![
            "../outside/secret.txt".into(),
            "notes/../../outside/secret.txt".into(),
            "..".into(),
            "~/secret.txt".into(),
            "～/secret.txt".into(),
            "．．/outside/secret.txt".into(),
            "\u{2025}/outside/secret.txt".into(),
            secret.display().to_string(),
            "/etc/passwd".into(),
            "notes.md\0.png".into(),
            long,
            String::new(),
            "link.txt".into(),
            "out/secret.txt".into(),
            "out/new.txt".into(),
            "dangling".into(),
        ];
        for attempt in &attempts {
            let read = f.sandbox.resolve(attempt);
            let write = f.sandbox.resolve_for_write(attempt);
            for result in [read, write] {
                match result {
                    Err(_) => {}
                    Ok(path) => panic!("{attempt:?} escaped to {}", path.display()),
                }
            }
        }
        assert_eq!(f.sandbox.resolve("~/x"), Err(PathError::Tilde));
        assert_eq!(f.sandbox.resolve("a\0b"), Err(PathError::Nul));
        assert!(matches!(
            f.sandbox.resolve("/etc/passwd"),
            Err(PathError::Outside(_, _))
        ));
        assert!(matches!(
            f.sandbox.resolve("link.txt"),
            Err(PathError::Outside(_, _))
        ));
    }
}
