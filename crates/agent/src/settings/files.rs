//! The layers settings are read from (`.env` files, `settings.json`) and the app's
//! writes to `settings.json`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::{SettingsError, VARIABLES, default_data_dir};

/// Where a (bad) value was set: the first layer holding exactly it.
pub(super) fn source_of(
    name: &str,
    value: &str,
    environment: &HashMap<String, String>,
    cwd_env_file: Option<&Path>,
) -> String {
    let holds = |values: &HashMap<String, String>| {
        values
            .get(name)
            .is_some_and(|set| set.trim().eq_ignore_ascii_case(value.trim()))
    };
    if holds(environment) {
        return "the environment".into();
    }
    let data_dir = environment
        .get("ASTERISM_DATA_DIR")
        .filter(|dir| !dir.trim().is_empty())
        .map(|dir| PathBuf::from(dir.trim()))
        .or_else(default_data_dir);
    let files = cwd_env_file
        .map(Path::to_path_buf)
        .into_iter()
        .chain(data_dir.iter().map(|dir| dir.join(".env")));
    for file in files {
        if read_env_file(&file).is_ok_and(|values| holds(&values)) {
            return file.display().to_string();
        }
    }
    if let Some(dir) = data_dir {
        let json = dir.join("settings.json");
        if read_settings_json(&json).is_ok_and(|values| holds(&values)) {
            return json.display().to_string();
        }
    }
    "the settings".into()
}

pub(super) struct Layers {
    pub(super) layers: Vec<(String, HashMap<String, String>)>,
}

impl Layers {
    /// Where values come from, first wins: the environment, the `.env` of the working
    /// folder, the data folder's `.env` and `settings.json`, then the keys saved from the
    /// app (the keyring or `secrets.json`). With the data folder they name.
    pub(super) fn stack(
        environment: HashMap<String, String>,
        cwd_env_file: Option<&Path>,
    ) -> Result<(Self, PathBuf), SettingsError> {
        let mut layers = Layers {
            layers: vec![("environment".into(), environment)],
        };
        if let Some(path) = cwd_env_file {
            layers
                .layers
                .push((path.display().to_string(), read_env_file(path)?));
        }
        let data_dir = match layers
            .get("ASTERISM_DATA_DIR")
            .filter(|(value, _)| !value.trim().is_empty())
        {
            Some((value, _)) => PathBuf::from(value.trim()),
            None => default_data_dir().ok_or(SettingsError::NoDataDir)?,
        };
        let data_env = data_dir.join(".env");
        layers
            .layers
            .push((data_env.display().to_string(), read_env_file(&data_env)?));
        let settings_json = data_dir.join("settings.json");
        layers.layers.push((
            settings_json.display().to_string(),
            read_settings_json(&settings_json)?,
        ));
        // Keys saved from the app: the last layer, so the environment still wins.
        let secrets = crate::secrets::Secrets::from_env(&data_dir, &layers.layers[0].1)
            .load()
            .map_err(|error| SettingsError::Invalid {
                path: data_dir.join("secrets.json"),
                message: error.to_string(),
            })?;
        for (name, (value, backend)) in secrets {
            layers.layers.push((
                backend.describe().to_string(),
                HashMap::from([(name, value)]),
            ));
        }
        Ok((layers, data_dir))
    }

    /// The first non-empty value: an empty `LLM_MODEL=` copied from `.env.example` must
    /// not hide a model set in a lower layer.
    pub(super) fn get(&self, name: &str) -> Option<(String, String)> {
        self.layers.iter().find_map(|(source, values)| {
            values
                .get(name)
                .filter(|value| !value.trim().is_empty())
                .map(|value| (value.clone(), source.clone()))
        })
    }
}

pub(super) fn read_env_file(path: &Path) -> Result<HashMap<String, String>, SettingsError> {
    if !path.is_file() {
        return Ok(HashMap::new());
    }
    let iter = dotenvy::from_path_iter(path).map_err(|error| SettingsError::Invalid {
        path: path.to_path_buf(),
        message: error.to_string(),
    })?;
    iter.map(|item| {
        item.map_err(|error| SettingsError::Invalid {
            path: path.to_path_buf(),
            message: error.to_string(),
        })
    })
    .collect()
}

pub(super) fn read_settings_json(path: &Path) -> Result<HashMap<String, String>, SettingsError> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(HashMap::new()),
        Err(error) => {
            return Err(SettingsError::Invalid {
                path: path.to_path_buf(),
                message: error.to_string(),
            });
        }
    };
    let values: HashMap<String, serde_json::Value> =
        serde_json::from_str(&text).map_err(|error| SettingsError::Invalid {
            path: path.to_path_buf(),
            message: error.to_string(),
        })?;
    Ok(values
        .into_iter()
        .filter_map(|(key, value)| match value {
            serde_json::Value::String(text) => Some((key, text)),
            serde_json::Value::Null => None,
            other => Some((key, other.to_string())),
        })
        .collect())
}

/// Writes values into `{data_dir}/settings.json` (what the app's settings page saves):
/// an empty value removes the name, so its default applies again. Secrets and the data
/// directory itself are refused: secrets go to [`crate::secrets::Secrets`].
pub fn write_settings_json(
    data_dir: &Path,
    updates: &[(String, String)],
) -> Result<(), SettingsError> {
    let path = data_dir.join("settings.json");
    let invalid = |message: String| SettingsError::Invalid {
        path: path.clone(),
        message,
    };
    let mut values: serde_json::Map<String, serde_json::Value> =
        match std::fs::read_to_string(&path) {
            Ok(text) => serde_json::from_str(&text).map_err(|error| invalid(error.to_string()))?,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => Default::default(),
            Err(error) => return Err(invalid(error.to_string())),
        };
    for (name, value) in updates {
        let known = VARIABLES.iter().any(|(variable, _, _)| variable == name);
        if !known
            || name == "ASTERISM_DATA_DIR"
            || crate::secrets::SECRET_NAMES.contains(&name.as_str())
        {
            return Err(invalid(format!("{name} cannot be saved in settings.json")));
        }
        if value.trim().is_empty() {
            values.remove(name);
        } else {
            values.insert(name.clone(), serde_json::Value::String(value.trim().into()));
        }
    }
    std::fs::create_dir_all(data_dir).map_err(|error| invalid(error.to_string()))?;
    let text = serde_json::to_string_pretty(&values).map_err(|error| invalid(error.to_string()))?;
    let temp = data_dir.join(".settings.json.tmp");
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    options
        .open(&temp)
        .and_then(|mut file| std::io::Write::write_all(&mut file, text.as_bytes()))
        .map_err(|error| invalid(error.to_string()))?;
    std::fs::rename(&temp, &path).map_err(|error| invalid(error.to_string()))
}
