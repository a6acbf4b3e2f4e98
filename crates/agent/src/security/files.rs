//! Which files are never tool material (they may hold secrets) and which writes can run
//! code later (they are asked every time, whatever the mode or the grants).

use std::path::{Component, Path, PathBuf};

/// Folders whose every file is a credential store.
const SECRET_FOLDERS: [&str; 8] = [
    ".ssh",
    ".aws",
    ".gnupg",
    ".password-store",
    ".kube",
    ".azure",
    ".docker",
    "keyrings",
];

/// File names that hold tokens, passwords or keys.
const SECRET_NAMES: [&str; 14] = [
    "secrets.json",
    "hooks.json",
    ".netrc",
    "_netrc",
    ".git-credentials",
    ".pgpass",
    ".pypirc",
    ".npmrc",
    "credentials.json",
    "id_rsa",
    "id_dsa",
    "id_ecdsa",
    "id_ed25519",
    "id_ecdsa_sk",
];

/// The shell start-up files: a line added there runs in every later shell.
const SHELL_RC_NAMES: [&str; 12] = [
    ".bashrc",
    ".bash_profile",
    ".bash_login",
    ".bash_logout",
    ".profile",
    ".zshrc",
    ".zshenv",
    ".zprofile",
    ".zlogin",
    ".cshrc",
    ".tcshrc",
    ".kshrc",
];

/// How much of a file is looked at for a private key.
pub const KEY_SNIFF_BYTES: usize = 64 * 1024;

fn name_of(path: &Path) -> String {
    path.file_name()
        .map(|name| name.to_string_lossy().to_lowercase())
        .unwrap_or_default()
}

fn components(path: &Path) -> Vec<String> {
    path.components()
        .filter_map(|component| match component {
            Component::Normal(part) => Some(part.to_string_lossy().to_lowercase()),
            _ => None,
        })
        .collect()
}

/// Why a file may hold secrets, judged by its path alone (`None`: nothing known).
/// Names are compared case-insensitively: `.ENV` on a case-insensitive disk is `.env`.
pub fn secret_by_name(path: &Path) -> Option<&'static str> {
    let name = name_of(path);
    let parts = components(path);
    if name.starts_with(".env") {
        return Some(".env files hold API keys");
    }
    if SECRET_NAMES.contains(&name.as_str()) || name.ends_with("-credentials") {
        return Some("it holds tokens, passwords or keys");
    }
    if name == "credentials" && parts.iter().any(|part| part == ".aws") {
        return Some("it holds cloud credentials");
    }
    let database = asterism_store::DATABASE_FILE;
    if name == database
        || ["-wal", "-shm", "-journal"]
            .iter()
            .any(|suffix| name == format!("{database}{suffix}"))
    {
        return Some("it is Asterism's database (sessions, settings of services)");
    }
    // The folder itself too: grep or glob over `~/.ssh` is refused, not just its files.
    let folders = &parts[..];
    if let Some(folder) = folders
        .iter()
        .find(|part| SECRET_FOLDERS.contains(&part.as_str()))
    {
        return Some(match folder.as_str() {
            ".ssh" => "it is in ~/.ssh (SSH keys)",
            "keyrings" | ".password-store" | ".gnupg" => "it is in a keyring or key store",
            _ => "it is in a folder of cloud or service credentials",
        });
    }
    if parts
        .windows(2)
        .any(|pair| pair[0] == ".config" && pair[1] == "gcloud")
    {
        return Some("it is in a folder of cloud credentials");
    }
    None
}

/// Whether these bytes (the start of a file) hold a private key.
pub fn holds_private_key(bytes: &[u8]) -> bool {
    let window = &bytes[..bytes.len().min(KEY_SNIFF_BYTES)];
    let text = String::from_utf8_lossy(window);
    text.contains("-----BEGIN") && text.contains("PRIVATE KEY-----")
}

/// Why writing this file can make code run later (`None`: an ordinary file). `skills`
/// is the skills folder of the data directory (skills are instructions the agent loads).
pub fn runs_code_later(path: &Path, skills: Option<&Path>) -> Option<&'static str> {
    let name = name_of(path);
    let parts = components(path);
    if name == "hooks.json" {
        return Some("hooks.json runs commands on every tool call");
    }
    if let Some(index) = parts.iter().position(|part| part == ".git") {
        let rest = &parts[index + 1..];
        if rest.first().is_some_and(|part| part == "hooks") {
            return Some("git runs the scripts of .git/hooks");
        }
        if rest == ["config"] || rest == ["config.worktree"] {
            return Some(".git/config can name programs git runs (hooksPath, fsmonitor, pager)");
        }
        // Submodules' and linked worktrees' own repositories.
        if matches!(
            rest.first().map(String::as_str),
            Some("modules" | "worktrees")
        ) && (rest.iter().any(|part| part == "hooks")
            || matches!(name.as_str(), "config" | "config.worktree"))
        {
            return Some(
                "a submodule's or worktree's git config and hooks run like the repository's",
            );
        }
    }
    if name == ".git" {
        return Some(
            "a .git file points git at another repository, whose config and hooks then run",
        );
    }
    if SHELL_RC_NAMES.contains(&name.as_str()) || name == ".envrc" {
        return Some("a shell start-up file runs in every later shell");
    }
    if name == "tasks.json"
        && parts
            .iter()
            .rev()
            .nth(1)
            .is_some_and(|dir| dir == ".vscode")
    {
        return Some("VS Code runs the tasks of .vscode/tasks.json, some when the folder opens");
    }
    if name == ".pre-commit-config.yaml" {
        return Some("pre-commit runs the hooks it lists at every commit");
    }
    if name == ".latexmkrc" || name == "latexmkrc" {
        return Some("latexmk runs its rc file as Perl code");
    }
    if parts
        .windows(2)
        .any(|pair| pair[0] == ".config" && (pair[1] == "autostart" || pair[1] == "fish"))
    {
        return Some("files here run when the desktop or a shell starts");
    }
    if let Some(skills) = skills
        && path.starts_with(skills)
    {
        return Some("skills are instructions the agent follows in later sessions");
    }
    None
}

/// The (device, inode) of files that hold secrets, so a hard link to one is refused
/// under any name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProtectedFiles {
    inodes: Vec<(u64, u64)>,
}

impl ProtectedFiles {
    /// The secret files of the data directory and of the home folder that exist now.
    pub fn find(data_dir: &Path, home: Option<&Path>) -> Self {
        let mut paths: Vec<PathBuf> = [
            "secrets.json",
            "settings.json",
            "hooks.json",
            ".env",
            asterism_store::DATABASE_FILE,
        ]
        .iter()
        .map(|name| data_dir.join(name))
        .collect();
        if let Some(home) = home {
            for name in [
                ".netrc",
                ".git-credentials",
                ".pgpass",
                ".env",
                ".aws/credentials",
            ] {
                paths.push(home.join(name));
            }
            if let Ok(entries) = std::fs::read_dir(home.join(".ssh")) {
                paths.extend(entries.flatten().map(|entry| entry.path()));
            }
        }
        Self {
            inodes: paths.iter().filter_map(|path| inode(path)).collect(),
        }
    }

    /// Whether `path` is one of them (through a hard link or not).
    pub fn contains(&self, path: &Path) -> bool {
        !self.inodes.is_empty() && inode(path).is_some_and(|id| self.inodes.contains(&id))
    }
}

#[cfg(unix)]
fn inode(path: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    let metadata = std::fs::metadata(path).ok()?;
    metadata.is_file().then(|| (metadata.dev(), metadata.ino()))
}

#[cfg(not(unix))]
fn inode(_path: &Path) -> Option<(u64, u64)> {
    None
}

/// Creates a folder and its missing parents readable by the owner only (0700).
pub fn create_private_dir(path: &Path) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(0o700);
    }
    builder.create(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_files_are_known_by_name_anywhere() {
        for path in [
            "/w/.env",
            "/w/.env.local",
            "/w/sub/.ENV.production",
            "/w/.envrc",
            "/home/a/.local/share/asterism/secrets.json",
            "/d/asterism.db",
            "/d/asterism.db-wal",
            "/d/asterism.db-shm",
            "/home/a/.ssh/config",
            "/home/a/.ssh/id_ed25519",
            "/home/a/.aws/credentials",
            "/home/a/.netrc",
            "/home/a/.local/share/keyrings/login.keyring",
            "/home/a/.config/gcloud/application_default_credentials.json",
            "/w/id_rsa",
            "/w/hooks.json",
            "/home/a/.ssh",
            "/home/a/.aws",
        ] {
            assert!(secret_by_name(Path::new(path)).is_some(), "{path}");
        }
        for path in [
            "/w/notes.md",
            "/w/environment.yml",
            "/w/data/env.txt",
            "/w/credentials.md",
            "/w/ssh.txt",
        ] {
            assert_eq!(secret_by_name(Path::new(path)), None, "{path}");
        }
    }

    #[test]
    fn private_keys_are_known_by_content() {
        assert!(holds_private_key(
            b"-----BEGIN OPENSSH PRIVATE KEY-----\nb3Blbn\n-----END OPENSSH PRIVATE KEY-----\n"
        ));
        assert!(holds_private_key(
            b"junk\n-----BEGIN RSA PRIVATE KEY-----\nMIIE"
        ));
        assert!(!holds_private_key(b"-----BEGIN CERTIFICATE-----\nMIIB"));
        assert!(!holds_private_key(b"a private key is not here"));
    }

    #[test]
    fn writes_that_run_code_later_are_known() {
        let skills = Path::new("/d/skills");
        for path in [
            "/w/.git/hooks/pre-commit",
            "/w/.git/config",
            "/home/a/.bashrc",
            "/home/a/.zshrc",
            "/home/a/.profile",
            "/home/a/.config/autostart/evil.desktop",
            "/home/a/.config/fish/config.fish",
            "/d/hooks.json",
            "/d/skills/x/SKILL.md",
            "/w/.envrc",
            "/w/.git/config.worktree",
            "/w/.git/modules/lib/config",
            "/w/.git/modules/lib/hooks/post-checkout",
            "/w/.git/worktrees/b/config.worktree",
            "/w/sub/.git",
            "/w/.vscode/tasks.json",
            "/w/.pre-commit-config.yaml",
            "/w/paper/.latexmkrc",
        ] {
            assert!(
                runs_code_later(Path::new(path), Some(skills)).is_some(),
                "{path}"
            );
        }
        for path in [
            "/w/.git/HEAD",
            "/w/paper.tex",
            "/w/skills.md",
            "/w/bashrc.txt",
        ] {
            assert_eq!(
                runs_code_later(Path::new(path), Some(skills)),
                None,
                "{path}"
            );
        }
    }

    #[test]
    fn a_hard_link_to_a_secret_is_known_by_its_inode() {
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().join("data");
        std::fs::create_dir_all(&data).unwrap();
        std::fs::write(data.join("secrets.json"), "{}").unwrap();
        std::fs::write(dir.path().join("plain.txt"), "x").unwrap();
        std::fs::hard_link(data.join("secrets.json"), dir.path().join("notes.txt")).unwrap();
        let protected = ProtectedFiles::find(&data, None);
        assert!(protected.contains(&dir.path().join("notes.txt")));
        assert!(!protected.contains(&dir.path().join("plain.txt")));
    }
}
