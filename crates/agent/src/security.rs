//! Where the filesystem tools may go: inside the library, the skills folder and the
//! project root, nowhere else. Paths with `..`, `~`, NUL bytes or look-alikes of them
//! are refused outright; everything else is canonicalised (symlinks followed) before
//! the prefix check, so a link pointing out of a root does not lead out.

use std::path::{Component, Path, PathBuf};

use unicode_normalization::UnicodeNormalization;

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
    #[error("paths starting with ~ are not expanded; give a path inside the library or project")]
    Tilde,
    #[error("`..` is not allowed in paths ({0})")]
    ParentDir(String),
    #[error("{0} is outside the folders the agent may use ({1})")]
    Outside(String, String),
    #[error("{0} does not exist")]
    NotFound(String),
    #[error("{0} has no parent folder inside the sandbox")]
    NoParent(String),
}

/// The folders the filesystem tools may use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sandbox {
    /// Canonical roots; the first resolves relative paths.
    roots: Vec<PathBuf>,
}

impl Sandbox {
    /// A sandbox over the roots that exist (others are skipped), canonicalised.
    pub fn new(roots: impl IntoIterator<Item = PathBuf>) -> Self {
        let mut canonical = Vec::new();
        for root in roots {
            if let Ok(root) = root.canonicalize()
                && !canonical.contains(&root)
            {
                canonical.push(root);
            }
        }
        Self { roots: canonical }
    }

    pub fn roots(&self) -> &[PathBuf] {
        &self.roots
    }

    fn describe_roots(&self) -> String {
        self.roots
            .iter()
            .map(|root| root.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Checks the text of a path before touching the filesystem, and makes it absolute
    /// (relative paths are taken from the first root).
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
        let base = self.roots.first().ok_or_else(|| {
            PathError::Outside(path.to_string(), "no folder is available".to_string())
        })?;
        Ok(base.join(as_path))
    }

    fn inside(&self, canonical: &Path) -> bool {
        self.roots.iter().any(|root| canonical.starts_with(root))
    }

    /// An existing file or folder inside a root, canonical.
    pub fn resolve(&self, path: &str) -> Result<PathBuf, PathError> {
        let absolute = self.lexical(path)?;
        let canonical = absolute
            .canonicalize()
            .map_err(|_| PathError::NotFound(path.to_string()))?;
        if self.inside(&canonical) {
            Ok(canonical)
        } else {
            Err(PathError::Outside(path.to_string(), self.describe_roots()))
        }
    }

    /// A path to write: an existing file inside a root, or a new name in an existing
    /// folder inside a root (the folder canonicalised, the name checked).
    pub fn resolve_for_write(&self, path: &str) -> Result<PathBuf, PathError> {
        let absolute = self.lexical(path)?;
        if absolute.exists() {
            return self.resolve(path);
        }
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
        Ok(parent.join(name))
    }
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
