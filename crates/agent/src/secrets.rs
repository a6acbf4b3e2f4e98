//! API keys and tokens saved from the app: in the OS keyring (Secret Service on Linux,
//! Keychain on macOS, Credential Manager on Windows) when one answers, else in
//! `{data_dir}/secrets.json` readable by the owner only (0600). Settings read them as
//! the last layer, below the environment and the files people edit by hand.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The settings that are secrets: never shown unmasked, never sent to the webview.
pub const SECRET_NAMES: [&str; 3] = ["LLM_API_KEY", "EMBEDDING_API_KEY", "ADS_API_TOKEN"];

/// The keyring service name entries are stored under.
const SERVICE: &str = "asterism";

/// Where a saved secret ended up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SecretBackend {
    Keyring,
    File,
}

impl SecretBackend {
    pub fn describe(self) -> &'static str {
        match self {
            Self::Keyring => "the system keyring",
            Self::File => "secrets.json (owner-only)",
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum SecretError {
    #[error("{name} is not a secret setting")]
    UnknownName { name: String },
    #[error("cannot write {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path} is not valid JSON: {source}")]
    Json {
        path: PathBuf,
        source: serde_json::Error,
    },
}

/// The secret store of one data directory.
#[derive(Debug, Clone)]
pub struct Secrets {
    file: PathBuf,
    /// Off when `ASTERISM_KEYRING=off` (tests, machines whose keyring prompts).
    use_keyring: bool,
}

impl Secrets {
    pub fn new(data_dir: &Path, use_keyring: bool) -> Self {
        Self {
            file: data_dir.join("secrets.json"),
            use_keyring,
        }
    }

    /// From the environment: the keyring unless `ASTERISM_KEYRING` is `off`/`0`/`false`,
    /// and on Linux only with a session bus (without one, libdbus would try to start a
    /// bus of its own, and a keyring that is not there can take seconds to say so).
    pub fn from_env(data_dir: &Path, environment: &HashMap<String, String>) -> Self {
        let off = environment
            .get("ASTERISM_KEYRING")
            .map(|value| {
                matches!(
                    value.trim().to_lowercase().as_str(),
                    "off" | "0" | "false" | "no"
                )
            })
            .unwrap_or(false);
        let bus = !cfg!(target_os = "linux")
            || environment
                .get("DBUS_SESSION_BUS_ADDRESS")
                .is_some_and(|address| !address.trim().is_empty());
        Self::new(data_dir, !off && bus)
    }

    pub fn file(&self) -> &Path {
        &self.file
    }

    fn entry(&self, name: &str) -> Option<keyring::Entry> {
        if !self.use_keyring {
            return None;
        }
        keyring::Entry::new(SERVICE, name).ok()
    }

    /// Every saved secret with where it is (keyring first, then the file).
    pub fn load(&self) -> Result<HashMap<String, (String, SecretBackend)>, SecretError> {
        let mut found = HashMap::new();
        let file = self.read_file()?;
        for name in SECRET_NAMES {
            let from_keyring = self
                .entry(name)
                .and_then(|entry| entry.get_password().ok())
                .filter(|value| !value.is_empty());
            if let Some(value) = from_keyring {
                found.insert(name.to_string(), (value, SecretBackend::Keyring));
            } else if let Some(value) = file.get(name).filter(|value| !value.is_empty()) {
                found.insert(name.to_string(), (value.clone(), SecretBackend::File));
            }
        }
        Ok(found)
    }

    /// Saves (or with an empty value, removes) a secret. The keyring is tried first; the
    /// file holds it only when no keyring answers, so a secret lives in one place.
    pub fn save(&self, name: &str, value: &str) -> Result<Option<SecretBackend>, SecretError> {
        if !SECRET_NAMES.contains(&name) {
            return Err(SecretError::UnknownName { name: name.into() });
        }
        let value = value.trim();
        let mut file = self.read_file()?;
        if value.is_empty() {
            if let Some(entry) = self.entry(name) {
                let _ = entry.delete_credential();
            }
            if file.remove(name).is_some() {
                self.write_file(&file)?;
            }
            return Ok(None);
        }
        let in_keyring = self
            .entry(name)
            .map(|entry| entry.set_password(value).is_ok())
            .unwrap_or(false);
        if in_keyring {
            if file.remove(name).is_some() {
                self.write_file(&file)?;
            }
            return Ok(Some(SecretBackend::Keyring));
        }
        file.insert(name.to_string(), value.to_string());
        self.write_file(&file)?;
        Ok(Some(SecretBackend::File))
    }

    fn read_file(&self) -> Result<HashMap<String, String>, SecretError> {
        match std::fs::read_to_string(&self.file) {
            Ok(text) => serde_json::from_str(&text).map_err(|source| SecretError::Json {
                path: self.file.clone(),
                source,
            }),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(HashMap::new()),
            Err(source) => Err(SecretError::Io {
                path: self.file.clone(),
                source,
            }),
        }
    }

    /// Writes through a temporary file created 0600, then renames it over the old one.
    fn write_file(&self, values: &HashMap<String, String>) -> Result<(), SecretError> {
        let io = |source| SecretError::Io {
            path: self.file.clone(),
            source,
        };
        let dir = self.file.parent().unwrap_or(Path::new("."));
        std::fs::create_dir_all(dir).map_err(io)?;
        let text = serde_json::to_string_pretty(values).map_err(|source| SecretError::Json {
            path: self.file.clone(),
            source,
        })?;
        let temp = dir.join(".secrets.json.tmp");
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create(true).truncate(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            options.mode(0o600);
        }
        {
            use std::io::Write;
            let mut out = options.open(&temp).map_err(io)?;
            out.write_all(text.as_bytes()).map_err(io)?;
            out.sync_all().map_err(io)?;
        }
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&temp, std::fs::Permissions::from_mode(0o600)).map_err(io)?;
        }
        std::fs::rename(&temp, &self.file).map_err(io)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_a_keyring_secrets_go_to_an_owner_only_file_and_come_back() {
        let dir = tempfile::tempdir().unwrap();
        let secrets = Secrets::new(dir.path(), false);
        assert_eq!(
            secrets.save("LLM_API_KEY", " sk-test-0123456789 ").unwrap(),
            Some(SecretBackend::File)
        );
        secrets.save("ADS_API_TOKEN", "ads-token-abcdef").unwrap();
        let loaded = secrets.load().unwrap();
        assert_eq!(
            loaded["LLM_API_KEY"],
            ("sk-test-0123456789".to_string(), SecretBackend::File)
        );
        assert_eq!(loaded.len(), 2);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(secrets.file())
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600, "secrets.json must be owner-only");
        }
        // An empty value removes the secret.
        assert_eq!(secrets.save("LLM_API_KEY", "").unwrap(), None);
        assert!(!secrets.load().unwrap().contains_key("LLM_API_KEY"));
        assert!(matches!(
            secrets.save("LLM_MODEL", "x"),
            Err(SecretError::UnknownName { .. })
        ));
    }

    #[test]
    fn a_corrupt_secrets_file_is_a_clear_error_not_an_empty_store() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("secrets.json"), "{not json").unwrap();
        let secrets = Secrets::new(dir.path(), false);
        let error = secrets.load().unwrap_err().to_string();
        assert!(error.contains("secrets.json"), "{error}");
        assert!(
            secrets.save("LLM_API_KEY", "sk-x").is_err(),
            "must not overwrite it"
        );
    }
}
