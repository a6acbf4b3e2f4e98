//! Where the parts Asterism ships beside its binaries are found: libpdfium, ONNX Runtime,
//! the embedding model and the notices of all of them.
//!
//! Always relative to the running executable, never to the machine it was built on:
//! - beside the executable (a portable folder),
//! - `../lib/Asterism/` from it: the Tauri bundles' resource folder (`/usr/bin/asterism`
//!   and `/usr/bin/asterism-app` find `/usr/lib/Asterism/` from the .deb; the AppImage
//!   has the same layout under its mount point),
//! - the `.deps/` of a checkout the executable was built in (`target/{profile}/` and
//!   `target/{profile}/deps/` are up to four folders below it), which is where
//!   `scripts/install-deps.sh` puts the parts for development and tests.

use std::path::{Path, PathBuf};

/// The resource folder's name under `lib/`: the product name in `tauri.conf.json`.
pub const BUNDLE_DIR: &str = "Asterism";

/// Folders that may hold the parts, in the order they are tried.
pub fn roots() -> Vec<PathBuf> {
    let Some(exe_dir) = std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(Path::to_path_buf))
    else {
        return Vec::new();
    };
    roots_from(&exe_dir)
}

/// [`roots`] for an executable in `exe_dir`.
pub fn roots_from(exe_dir: &Path) -> Vec<PathBuf> {
    let mut roots = vec![exe_dir.to_path_buf()];
    roots.push(exe_dir.join("../lib").join(BUNDLE_DIR));
    if let Some(checkout) = exe_dir
        .ancestors()
        .skip(1)
        .take(4)
        .find(|dir| dir.join("Cargo.toml").is_file() && dir.join(".deps").is_dir())
    {
        roots.push(checkout.join(".deps"));
    }
    roots
}

/// The first of the [`roots`] that holds `relative`, if any.
pub fn find(relative: &str) -> Option<PathBuf> {
    roots()
        .into_iter()
        .map(|root| root.join(relative))
        .find(|path| path.exists())
}

/// The notices of everything a release ships (`licenses.json`, written by
/// `scripts/licenses.py` and bundled as a resource).
#[derive(Debug, Clone, serde::Deserialize, serde::Serialize)]
pub struct Notices {
    pub components: Vec<Component>,
    /// Licence texts by id, each stored once.
    pub texts: std::collections::HashMap<String, String>,
}

/// One shipped component: a bundled part, a Rust crate or an npm package.
#[derive(Debug, Clone, serde::Deserialize, serde::Serialize, specta::Type)]
pub struct Component {
    /// `part`, `crate` or `npm`.
    pub kind: String,
    pub name: String,
    pub version: String,
    /// The licence as the component declares it (an SPDX expression, mostly).
    pub license: String,
    pub url: String,
    /// Ids of its licence texts in [`Notices::texts`].
    pub texts: Vec<String>,
}

/// Why there are no notices to show.
#[derive(Debug, thiserror::Error)]
pub enum NoticesError {
    /// None of the [`roots`] holds the file: a build from source that did not run
    /// `scripts/licenses.py`.
    #[error(
        "{} not found (scripts/licenses.py writes it for a build from source)",
        NOTICES
    )]
    NotFound,
    /// The file is there and could not be read.
    #[error("{}: {error}", path.display())]
    Unreadable {
        path: PathBuf,
        error: std::io::Error,
    },
    /// The file is not the JSON `scripts/licenses.py` writes.
    #[error("{}: {error}", path.display())]
    Malformed {
        path: PathBuf,
        error: serde_json::Error,
    },
}

impl Notices {
    /// The notices found among the [`roots`] and where, or why there are none.
    pub fn find() -> Result<(Self, PathBuf), NoticesError> {
        let path = find(NOTICES).ok_or(NoticesError::NotFound)?;
        Self::read(path)
    }

    /// The notices in the file at `path`.
    fn read(path: PathBuf) -> Result<(Self, PathBuf), NoticesError> {
        let bytes = match std::fs::read(&path) {
            Ok(bytes) => bytes,
            Err(error) => return Err(NoticesError::Unreadable { path, error }),
        };
        match serde_json::from_slice(&bytes) {
            Ok(notices) => Ok((notices, path)),
            Err(error) => Err(NoticesError::Malformed { path, error }),
        }
    }
}

/// The file name of the notices among the parts.
pub const NOTICES: &str = "licenses.json";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_installed_binary_looks_in_the_bundle_and_never_in_the_build_checkout() {
        let roots = roots_from(Path::new("/usr/bin"));
        assert_eq!(
            roots,
            vec![
                PathBuf::from("/usr/bin"),
                PathBuf::from("/usr/bin/../lib/Asterism")
            ]
        );
    }

    #[test]
    fn notices_that_cannot_be_read_say_why_and_where() -> std::io::Result<()> {
        let dir = tempfile::tempdir()?;
        let path = dir.path().join(NOTICES);
        let missing = Notices::read(path.clone());
        assert!(
            matches!(&missing, Err(NoticesError::Unreadable { path: p, .. }) if *p == path),
            "{missing:?}"
        );
        std::fs::write(&path, "{not json")?;
        let error = Notices::read(path.clone()).map(|_| ()).unwrap_err();
        assert!(matches!(error, NoticesError::Malformed { .. }), "{error:?}");
        assert!(error.to_string().starts_with(&path.display().to_string()));
        std::fs::write(&path, r#"{"components": [], "texts": {"MIT": "…"}}"#)?;
        let (notices, found) = Notices::read(path.clone()).map_err(std::io::Error::other)?;
        assert_eq!((notices.texts.len(), found), (1, path));
        assert!(
            NoticesError::NotFound
                .to_string()
                .starts_with("licenses.json not found")
        );
        Ok(())
    }

    #[test]
    fn a_binary_built_in_a_checkout_finds_its_deps() -> std::io::Result<()> {
        let checkout = tempfile::tempdir()?;
        std::fs::write(checkout.path().join("Cargo.toml"), "[workspace]\n")?;
        std::fs::create_dir_all(checkout.path().join(".deps/pdfium"))?;
        let exe_dir = checkout.path().join("target/release/deps");
        std::fs::create_dir_all(&exe_dir)?;
        let roots = roots_from(&exe_dir);
        assert_eq!(roots.last(), Some(&checkout.path().join(".deps")));
        // A folder five levels up is not taken for the checkout.
        let deep = checkout.path().join("a/b/c/d/e");
        std::fs::create_dir_all(&deep)?;
        assert_eq!(roots_from(&deep).len(), 2);
        Ok(())
    }
}
