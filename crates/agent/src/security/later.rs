//! Files that run code later, guarded from the shell: Landlock lets `run_bash` write
//! anywhere in the workspace, so before each command the workspace's code-running files
//! ([`files::runs_code_later`]: git hooks and configs, a `.git` file, `.envrc`,
//! `.vscode/tasks.json`, `.pre-commit-config.yaml`, `.latexmkrc`, shell start-up files)
//! are read, and after it any change is undone and reported.
//!
//! A git config is judged by what it makes git run, not byte for byte: `git commit`,
//! `git remote add` or `git config user.name` change `.git/config` harmlessly and stay;
//! a new or changed `core.fsmonitor`, `core.hooksPath`, `core.pager`, `alias.x = !…`,
//! filter, diff or merge driver, `include.path` … is undone. A hook named `*.sample`
//! never runs and is left alone, so `git init` works.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use super::files;

/// How deep in the workspace code-running files are looked for.
const MAX_DEPTH: usize = 4;
/// Folders not looked into (large, and not where these files live).
const SKIPPED: [&str; 7] = [
    "node_modules",
    ".venv",
    "venv",
    "target",
    "__pycache__",
    ".tox",
    ".cache",
];
/// The largest code-running file kept to restore (a bigger one is not one of these).
const MAX_SAVED_BYTES: u64 = 1 << 20;

/// Git configuration keys (section, or section.key) that make git run a program.
const RISKY_GIT_KEYS: [&str; 23] = [
    "core.fsmonitor",
    "core.hookspath",
    "core.pager",
    "core.editor",
    "core.sshcommand",
    "core.gitproxy",
    "core.askpass",
    "core.worktree",
    "sequence.editor",
    "credential.helper",
    "gpg.program",
    "uploadpack.packobjectshook",
    "include.path",
    "includeif",
    "filter",
    "diff",
    "merge",
    "pager",
    "web.browser",
    "browser",
    "remote.uploadpack",
    "remote.receivepack",
    "protocol",
];

/// A code-running file as it was before a command.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Saved {
    bytes: Vec<u8>,
    #[cfg(unix)]
    mode: u32,
}

/// The workspace's code-running files before a command.
#[derive(Debug, Default)]
pub struct Snapshot {
    root: PathBuf,
    files: BTreeMap<PathBuf, Saved>,
}

/// What was undone after a command: the file (relative to the workspace) and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Undone {
    pub path: String,
    pub change: &'static str,
    pub why: &'static str,
}

impl Snapshot {
    /// Reads the code-running files of `workspace` (canonical).
    pub fn take(workspace: &Path) -> Self {
        let mut files = BTreeMap::new();
        for path in code_running_files(workspace) {
            if let Some(saved) = read(&path) {
                files.insert(path, saved);
            }
        }
        Self {
            root: workspace.to_path_buf(),
            files,
        }
    }

    /// Undoes every change to a code-running file since the snapshot; returns what was
    /// undone (and what could not be, said so).
    pub fn undo_changes(&self) -> Vec<Undone> {
        let now: BTreeSet<PathBuf> = code_running_files(&self.root).into_iter().collect();
        let mut undone = Vec::new();
        for path in now.iter().chain(self.files.keys()).collect::<BTreeSet<_>>() {
            let before = self.files.get(path);
            let after = read(path);
            let Some(change) = change(path, before, after.as_ref()) else {
                continue;
            };
            let why = files::runs_code_later(path, None).unwrap_or("it runs code later");
            let restored = match before {
                Some(saved) => self.put_back(path, saved),
                None => self.remove(path),
            };
            let shown = path
                .strip_prefix(&self.root)
                .unwrap_or(path)
                .display()
                .to_string();
            undone.push(Undone {
                path: shown,
                change: if restored {
                    change
                } else {
                    "changed, and could NOT be undone"
                },
                why,
            });
        }
        undone
    }

    /// Whether `path`'s folder is still inside the workspace (a folder on the way may
    /// have been swapped for a link leading out: then nothing is written there).
    fn inside(&self, path: &Path) -> bool {
        path.parent()
            .and_then(|parent| parent.canonicalize().ok())
            .is_some_and(|parent| parent.starts_with(&self.root))
    }

    fn remove(&self, path: &Path) -> bool {
        self.inside(path) && std::fs::remove_file(path).is_ok()
    }

    fn put_back(&self, path: &Path, saved: &Saved) -> bool {
        // A folder deleted on the way is made again, but only below a folder that is
        // still inside the workspace (never through a link leading out).
        if let Some(parent) = path.parent()
            && !parent.exists()
        {
            let existing = parent.ancestors().find(|folder| folder.exists());
            let inside = existing
                .and_then(|folder| folder.canonicalize().ok())
                .is_some_and(|folder| folder.starts_with(&self.root));
            if !inside {
                return false;
            }
            let _ = std::fs::create_dir_all(parent);
        }
        if !self.inside(path) {
            return false;
        }
        // The name itself may now be a link: replace it, never write through it.
        if path.symlink_metadata().is_ok() && std::fs::remove_file(path).is_err() {
            return false;
        }
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            options.mode(saved.mode & 0o777);
        }
        options
            .open(path)
            .and_then(|mut file| std::io::Write::write_all(&mut file, &saved.bytes))
            .is_ok()
    }
}

/// How a code-running file changed in a way that matters (`None`: it did not).
fn change(path: &Path, before: Option<&Saved>, after: Option<&Saved>) -> Option<&'static str> {
    let name = path.file_name()?.to_string_lossy().to_lowercase();
    let is_git_config = matches!(name.as_str(), "config" | "config.worktree")
        && path.components().any(|part| part.as_os_str() == ".git");
    match (before, after) {
        (None, None) => None,
        (Some(_), None) => Some("deleted"),
        (None, Some(saved)) if is_git_config => {
            (!risky_git_entries(&saved.bytes).is_empty()).then_some("created")
        }
        (None, Some(_)) => Some("created"),
        (Some(old), Some(new)) if is_git_config => {
            let (old, new) = (risky_git_entries(&old.bytes), risky_git_entries(&new.bytes));
            (!new.is_subset(&old)).then_some("changed")
        }
        (Some(old), Some(new)) => (old != new).then_some("changed"),
    }
}

/// The entries of a git config that make git run something, as `section.key=value`.
fn risky_git_entries(bytes: &[u8]) -> BTreeSet<String> {
    let text = String::from_utf8_lossy(bytes);
    let mut section = String::new();
    let mut risky = BTreeSet::new();
    for line in text.lines().map(str::trim) {
        if line.starts_with('#') || line.starts_with(';') || line.is_empty() {
            continue;
        }
        if let Some(header) = line.strip_prefix('[') {
            let header = header.split(']').next().unwrap_or_default();
            // `[remote "origin"]` is section `remote`; the subsection is not a key.
            section = header
                .split_whitespace()
                .next()
                .unwrap_or_default()
                .to_lowercase();
            continue;
        }
        let (key, value) = line.split_once('=').unwrap_or((line, "true"));
        let key = key.trim().to_lowercase();
        let full = format!("{section}.{key}");
        let matches = RISKY_GIT_KEYS
            .iter()
            .any(|risky| *risky == full || *risky == section);
        let runs_alias = section == "alias" && value.trim_start().starts_with('!');
        if matches || runs_alias {
            risky.insert(format!("{full}={}", value.trim()));
        }
    }
    risky
}

fn read(path: &Path) -> Option<Saved> {
    let metadata = path.symlink_metadata().ok()?;
    if metadata.file_type().is_symlink() {
        // A link is recorded as its target's name, so a new or changed link is a change.
        let target = std::fs::read_link(path).ok()?;
        return Some(Saved {
            bytes: format!("-> {}", target.display()).into_bytes(),
            #[cfg(unix)]
            mode: 0o120_000,
        });
    }
    if !metadata.is_file() || metadata.len() > MAX_SAVED_BYTES {
        return None;
    }
    Some(Saved {
        bytes: std::fs::read(path).ok()?,
        #[cfg(unix)]
        mode: std::os::unix::fs::PermissionsExt::mode(&metadata.permissions()),
    })
}

/// The code-running files of the workspace now: walked to [`MAX_DEPTH`] without
/// following links, `.git` folders looked into for hooks and configs.
fn code_running_files(root: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let walker = ignore::WalkBuilder::new(root)
        .standard_filters(false)
        .follow_links(false)
        .max_depth(Some(MAX_DEPTH))
        .filter_entry(|entry| {
            let name = entry.file_name().to_string_lossy();
            let git_folder = entry.file_type().is_some_and(|kind| kind.is_dir()) && name == ".git";
            !(SKIPPED.contains(&name.as_ref()) || git_folder)
        })
        .build();
    for entry in walker.flatten() {
        let path = entry.path();
        if entry.depth() == 0 {
            continue;
        }
        let name = entry.file_name().to_string_lossy();
        if entry.file_type().is_some_and(|kind| kind.is_dir()) {
            if path.join(".git").is_dir() {
                git_folder(&path.join(".git"), &mut found);
            }
            continue;
        }
        if name.ends_with(".sample") {
            continue;
        }
        if files::runs_code_later(path, None).is_some() {
            found.push(path.to_path_buf());
        }
    }
    git_folder(&root.join(".git"), &mut found);
    found.sort();
    found.dedup();
    found
}

/// Hooks and configs of a `.git` folder, its submodules' and its worktrees'.
fn git_folder(git: &Path, found: &mut Vec<PathBuf>) {
    if !git
        .symlink_metadata()
        .is_ok_and(|metadata| metadata.is_dir())
    {
        return;
    }
    let walker = ignore::WalkBuilder::new(git)
        .standard_filters(false)
        .follow_links(false)
        .max_depth(Some(MAX_DEPTH + 2))
        .filter_entry(|entry| {
            let name = entry.file_name().to_string_lossy();
            entry.depth() == 0
                || !entry.file_type().is_some_and(|kind| kind.is_dir())
                || matches!(name.as_ref(), "hooks" | "modules" | "worktrees")
                || entry
                    .path()
                    .parent()
                    .and_then(Path::file_name)
                    .is_some_and(|parent| parent == "modules" || parent == "worktrees")
        })
        .build();
    for entry in walker.flatten() {
        let path = entry.path();
        let is_file = !entry.file_type().is_some_and(|kind| kind.is_dir());
        if is_file
            && !entry.file_name().to_string_lossy().ends_with(".sample")
            && files::runs_code_later(path, None).is_some()
        {
            found.push(path.to_path_buf());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn harmless_git_config_changes_stay_and_code_running_ones_are_found() {
        let before = b"[core]\n\tbare = false\n[remote \"origin\"]\n\turl = x\n";
        assert!(risky_git_entries(before).is_empty());
        let user = b"[core]\n\tbare = false\n[user]\n\tname = Ada\n";
        assert!(risky_git_entries(user).is_empty());
        for risky in [
            &b"[core]\n\tfsmonitor = touch pwned\n"[..],
            b"[core]\n  hooksPath = /tmp/h\n",
            b"[alias]\n\tx = !sh -c id\n",
            b"[filter \"lfs\"]\n\tclean = sh -c id\n",
            b"[include]\n\tpath = ../evil\n",
            b"[diff \"pdf\"]\n\ttextconv = id\n",
        ] {
            assert!(
                !risky_git_entries(risky).is_empty(),
                "{}",
                String::from_utf8_lossy(risky)
            );
        }
        assert!(risky_git_entries(b"[alias]\n\tst = status\n").is_empty());
    }
}
