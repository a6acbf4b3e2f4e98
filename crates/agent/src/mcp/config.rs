//! `{data dir}/mcp.json`: `{"mcpServers": {"NAME": {…}}}`, read and written.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The file name in the data directory.
pub const FILE: &str = "mcp.json";

/// One server: a program spoken to over stdio (`command`, `args`, `env`, `cwd`) or a
/// streamable-HTTP endpoint (`url`); `disabled` keeps it configured but off.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerConfig {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub args: Vec<String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub env: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<PathBuf>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub disabled: bool,
}

impl ServerConfig {
    /// The command line or the URL, for people.
    pub fn describe(&self) -> String {
        match (&self.command, &self.url) {
            (Some(command), _) => std::iter::once(command.as_str())
                .chain(self.args.iter().map(String::as_str))
                .map(|part| shell_words::quote(part).into_owned())
                .collect::<Vec<_>>()
                .join(" "),
            (None, Some(url)) => url.clone(),
            (None, None) => "(nothing to start)".into(),
        }
    }

    /// Why this entry cannot work, if it cannot.
    pub fn problem(&self) -> Option<String> {
        match (&self.command, &self.url) {
            (Some(_), Some(_)) => Some("has both a command and a url: keep one".into()),
            (None, None) => Some("needs a command or a url".into()),
            (Some(command), None) if command.trim().is_empty() => {
                Some("has an empty command".into())
            }
            (None, Some(url)) => match url::Url::parse(url) {
                Ok(parsed) if matches!(parsed.scheme(), "http" | "https") => None,
                Ok(_) => Some(format!("url {url} is not http:// or https://")),
                Err(error) => Some(format!("url {url}: {error}")),
            },
            _ => None,
        }
    }
}

/// The whole file.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct McpConfig {
    #[serde(rename = "mcpServers", default)]
    pub servers: BTreeMap<String, ServerConfig>,
}

/// Why `mcp.json` could not be read or changed: the file (unreadable, not JSON, an
/// unusable entry in it) or what was asked (a bad name or entry, an unknown server).
#[derive(Debug, thiserror::Error)]
pub enum McpConfigError {
    /// The file could not be read or written.
    #[error("{path}: {error}")]
    Io { path: String, error: std::io::Error },
    /// The file is not the JSON it should be.
    #[error("{path} is not valid: {error}")]
    Malformed { path: String, error: String },
    /// The file names a server that cannot work (`problem` says which and why).
    #[error("{path} is not valid: {problem}")]
    Invalid {
        path: String,
        problem: Box<McpConfigError>,
    },
    /// A server name that cannot be part of `mcp__NAME__TOOL`.
    #[error("server name {0:?}: use 1-32 letters, digits, '-' or single '_'")]
    BadName(String),
    /// An entry that cannot work: no command or url, both, an empty command, a url
    /// that is not http(s).
    #[error("server {name} {problem}")]
    BadServer { name: String, problem: String },
    /// No server of that name.
    #[error("no MCP server named {0}")]
    UnknownServer(String),
}

impl McpConfig {
    pub fn path(data_dir: &Path) -> PathBuf {
        data_dir.join(FILE)
    }

    /// The file of `data_dir`; none is an empty configuration. Names are checked: the
    /// agent calls the tools `mcp__NAME__TOOL`, so a name is letters, digits, `-`, `_`.
    pub fn read(data_dir: &Path) -> Result<Self, McpConfigError> {
        let path = Self::path(data_dir);
        let shown = path.display().to_string();
        let bytes = match std::fs::read(&path) {
            Ok(bytes) => bytes,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                return Ok(Self::default());
            }
            Err(error) => return Err(McpConfigError::Io { path: shown, error }),
        };
        let config: Self =
            serde_json::from_slice(&bytes).map_err(|error| McpConfigError::Malformed {
                path: shown.clone(),
                error: error.to_string(),
            })?;
        config.check().map_err(|problem| McpConfigError::Invalid {
            path: shown,
            problem: Box::new(problem),
        })?;
        Ok(config)
    }

    /// Every name and entry is usable ([`McpConfigError::BadName`] or
    /// [`McpConfigError::BadServer`] for the first that is not).
    pub fn check(&self) -> Result<(), McpConfigError> {
        for (name, server) in &self.servers {
            let valid = !name.is_empty()
                && name.len() <= 32
                && name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
                && !name.contains("__");
            if !valid {
                return Err(McpConfigError::BadName(name.clone()));
            }
            if let Some(problem) = server.problem() {
                return Err(McpConfigError::BadServer {
                    name: name.clone(),
                    problem,
                });
            }
        }
        Ok(())
    }

    /// Reads the file of `data_dir`, changes it with `change` and writes it back; what
    /// `change` refuses, and an entry it makes that cannot work, are returned as they are.
    pub fn update(
        data_dir: &Path,
        change: impl FnOnce(&mut Self) -> Result<(), McpConfigError>,
    ) -> Result<Self, McpConfigError> {
        let mut config = Self::read(data_dir)?;
        change(&mut config)?;
        config.write(data_dir)?;
        Ok(config)
    }

    /// Removes the server `name`.
    pub fn remove(&mut self, name: &str) -> Result<(), McpConfigError> {
        self.servers
            .remove(name)
            .map(drop)
            .ok_or_else(|| McpConfigError::UnknownServer(name.to_string()))
    }

    /// Turns the server `name` on or off.
    pub fn set_enabled(&mut self, name: &str, enabled: bool) -> Result<(), McpConfigError> {
        let server = self
            .servers
            .get_mut(name)
            .ok_or_else(|| McpConfigError::UnknownServer(name.to_string()))?;
        server.disabled = !enabled;
        Ok(())
    }

    /// Writes the file (owner-only, like the rest of the data directory), atomically;
    /// an entry that cannot work is refused first.
    pub fn write(&self, data_dir: &Path) -> Result<(), McpConfigError> {
        self.check()?;
        let path = Self::path(data_dir);
        let io = |error| McpConfigError::Io {
            path: path.display().to_string(),
            error,
        };
        crate::security::files::create_private_dir(data_dir).map_err(io)?;
        let text = serde_json::to_string_pretty(self).unwrap_or_default() + "\n";
        let temporary = path.with_extension("json.tmp");
        std::fs::write(&temporary, text).map_err(io)?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&temporary, std::fs::Permissions::from_mode(0o600))
                .map_err(io)?;
        }
        std::fs::rename(&temporary, &path).map_err(io)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_format_of_other_desktop_agents_is_read_and_checked() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join(FILE),
            r#"{"mcpServers": {
                "astroquery": {"command": "uvx", "args": ["astroquery-mcp", "--simbad"], "env": {"TOKEN": "x"}},
                "vizier": {"url": "http://127.0.0.1:8765/mcp", "disabled": true}
            }}"#,
        )
        .unwrap();
        let config = McpConfig::read(dir.path()).unwrap();
        assert_eq!(
            config.servers["astroquery"].describe(),
            "uvx astroquery-mcp --simbad"
        );
        assert!(config.servers["vizier"].disabled);
        config.write(dir.path()).unwrap();
        assert_eq!(
            McpConfig::read(dir.path()).unwrap(),
            config,
            "written as read"
        );

        for bad in [
            r#"{"mcpServers": {"a__b": {"command": "x"}}}"#,
            r#"{"mcpServers": {"a b": {"command": "x"}}}"#,
            r#"{"mcpServers": {"a": {}}}"#,
            r#"{"mcpServers": {"a": {"url": "file:///etc/passwd"}}}"#,
            r#"{"mcpServers": {"a": {"command": "x", "url": "http://h/"}}}"#,
            "{not json",
        ] {
            std::fs::write(dir.path().join(FILE), bad).unwrap();
            let error = McpConfig::read(dir.path()).unwrap_err().to_string();
            assert!(error.contains("mcp.json"), "{bad}: {error}");
        }
        std::fs::remove_file(dir.path().join(FILE)).unwrap();
        assert!(McpConfig::read(dir.path()).unwrap().servers.is_empty());
    }

    #[test]
    fn what_was_asked_is_told_from_a_broken_file() {
        let dir = tempfile::tempdir().unwrap();
        let unknown = McpConfig::update(dir.path(), |config| config.remove("astro")).unwrap_err();
        assert!(matches!(&unknown, McpConfigError::UnknownServer(name) if name == "astro"));
        assert_eq!(unknown.to_string(), "no MCP server named astro");
        let bad_name = McpConfig::update(dir.path(), |config| {
            let server = ServerConfig {
                command: Some("uvx".into()),
                ..ServerConfig::default()
            };
            config.servers.insert("a b".into(), server);
            Ok(())
        })
        .unwrap_err();
        assert!(
            matches!(bad_name, McpConfigError::BadName(_)),
            "{bad_name:?}"
        );
        assert!(!dir.path().join(FILE).exists(), "nothing was written");
        let no_url = McpConfig::update(dir.path(), |config| {
            let server = ServerConfig {
                url: Some("ftp://h/".into()),
                ..ServerConfig::default()
            };
            config.servers.insert("vizier".into(), server);
            Ok(())
        })
        .unwrap_err();
        assert_eq!(
            no_url.to_string(),
            "server vizier url ftp://h/ is not http:// or https://"
        );

        std::fs::write(dir.path().join(FILE), "{not json").unwrap();
        let malformed = McpConfig::read(dir.path()).unwrap_err();
        assert!(
            matches!(malformed, McpConfigError::Malformed { .. }),
            "{malformed:?}"
        );
        std::fs::write(dir.path().join(FILE), r#"{"mcpServers": {"a": {}}}"#).unwrap();
        let invalid = McpConfig::read(dir.path()).unwrap_err();
        let McpConfigError::Invalid { problem, .. } = &invalid else {
            panic!("{invalid:?}")
        };
        assert!(
            matches!(**problem, McpConfigError::BadServer { .. }),
            "{problem:?}"
        );
        assert!(
            invalid
                .to_string()
                .ends_with("is not valid: server a needs a command or a url")
        );
    }
}
