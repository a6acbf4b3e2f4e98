//! Configuration shared by the CLI and the desktop app.
//!
//! Each setting is looked up, first hit wins, in: the process environment, `./.env`,
//! `{data_dir}/.env`, `{data_dir}/settings.json` (what the app saves), the keys saved
//! from the app (system keyring, else `{data_dir}/secrets.json`), then the default (the
//! real public services). `.env.example` at the repository root lists every variable.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

mod files;
pub mod key_destinations;
mod variables;

pub use files::write_settings_json;
use files::{Layers, source_of};
pub use variables::VARIABLES;

/// Why settings could not be read.
#[derive(Debug, thiserror::Error)]
pub enum SettingsError {
    #[error("{path} is not valid: {message}")]
    Invalid { path: PathBuf, message: String },
    #[error("{name} (from {origin}) must be {expected}, not {value:?}")]
    BadValue {
        name: &'static str,
        expected: &'static str,
        value: String,
        /// Where the value came from: the environment, a file's path, the keyring.
        origin: String,
    },
    #[error("no data directory: set ASTERISM_DATA_DIR")]
    NoDataDir,
}

/// The resolved configuration.
#[derive(Clone, PartialEq)]
pub struct Settings {
    pub data_dir: PathBuf,
    pub llm_base_url: String,
    pub llm_api_key: Option<String>,
    pub llm_model: String,
    pub fallback_model: Option<String>,
    pub enable_thinking: bool,
    /// Run the memory-extraction subagent after each completed CLI question.
    pub memory_extraction: bool,
    /// Whether the model takes images, so `view_figure` is offered (`LLM_VISION`).
    pub vision: bool,
    pub embeddings: EmbeddingMode,
    pub embedding_base_url: String,
    pub embedding_api_key: Option<String>,
    pub embedding_model: String,
    /// Which installed local model to use (`LOCAL_EMBEDDING_MODEL`: bge-small, minilm).
    pub local_embedding_model: String,
    pub max_steps: u32,
    /// The longest wait for the model's response to start or continue.
    pub llm_idle_timeout: Duration,
    /// The largest tool-call arguments, in bytes.
    pub max_argument_bytes: usize,
    pub ads_api_token: Option<String>,
    pub ads_api_url: String,
    pub arxiv_api_url: String,
    pub arxiv_url: String,
    pub sesame_url: String,
    pub crossref_url: String,
    pub ollama_url: String,
    /// The web pages the app links to: ADS abstracts, DOIs, SIMBAD objects (arXiv's are
    /// under `arxiv_url`).
    pub ads_ui_url: String,
    pub doi_url: String,
    pub simbad_url: String,
    pub sesame_timeout: Duration,
    /// How long a cached Sesame answer is used.
    pub target_cache_max_age: Duration,
    /// The workspace of the agent's file tools and shell (`None`: not set, or refused).
    pub workspace: Option<PathBuf>,
    /// Why the configured workspace was refused (`/`, the home folder, missing).
    pub workspace_problem: Option<String>,
    /// Whether `run_bash` may open network connections.
    pub shell_network: bool,
    /// Folders outside the workspace `run_bash` may read (`SHELL_READ`, `:`-separated;
    /// those that are the home folder, hold it or the data folder are left out).
    pub shell_read: Vec<PathBuf>,
    /// The arXiv categories `news` lists (`NEWS_CATEGORIES`).
    pub news_categories: Vec<String>,
    /// Authors `news` ranks up (`NEWS_AUTHORS`, `;`-separated).
    pub news_authors: Vec<String>,
    /// How many new papers `news` shows.
    pub news_limit: usize,
    /// Whether the model scores the library's passages before it answers from them
    /// (`RAG_RERANK`, `RAG_CANDIDATES`, `SUMMARY_MODEL`).
    pub rerank: crate::rag::RerankSettings,
    /// How long the embedding model and the vector index stay loaded after their last
    /// use (`KEEP_ALIVE_S`); `None`: for good.
    pub keep_alive: Option<Duration>,
    /// Where each value came from, by variable name (`environment`, a file, `default`).
    pub sources: HashMap<&'static str, String>,
}

impl std::fmt::Debug for Settings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Settings")
            .field("data_dir", &self.data_dir)
            .field("llm_base_url", &self.llm_base_url)
            .field("llm_api_key", &self.llm_api_key.as_deref().map(mask))
            .field("llm_model", &self.llm_model)
            .field("ads_api_token", &self.ads_api_token.as_deref().map(mask))
            .field(
                "embedding_api_key",
                &self.embedding_api_key.as_deref().map(mask),
            )
            .finish_non_exhaustive()
    }
}

/// Where embeddings for library search come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EmbeddingMode {
    Auto,
    Local,
    Remote,
    None,
}

/// `sk-abcdef123456` → `sk-a…3456`; short secrets become `***`.
pub fn mask(secret: &str) -> String {
    let chars: Vec<char> = secret.chars().collect();
    if chars.len() < 12 {
        return "***".into();
    }
    format!(
        "{}…{}",
        chars[..4].iter().collect::<String>(),
        chars[chars.len() - 4..].iter().collect::<String>()
    )
}

/// A workspace folder as given, checked: canonical when it may be used, else the reason.
fn checked_workspace(
    folder: Option<impl Into<PathBuf>>,
    data_dir: &Path,
) -> (Option<PathBuf>, Option<String>) {
    let Some(folder) = folder.map(Into::into) else {
        return (None, None);
    };
    match crate::security::workspace_problem(&folder, dirs::home_dir().as_deref(), Some(data_dir)) {
        Some(problem) => (None, Some(problem)),
        None => (folder.canonicalize().ok(), None),
    }
}

/// The folders of `SHELL_READ` (`~/` expanded) that may be opened to the shell: those
/// the workspace rule refuses (the home folder or a folder holding it, the data folder,
/// `/`, `/tmp` …) are left out, as are missing ones.
fn shell_read_folders(text: &str, data_dir: &Path) -> Vec<PathBuf> {
    let home = dirs::home_dir();
    text.split(':')
        .map(str::trim)
        .filter(|entry| !entry.is_empty())
        .map(|entry| match (entry.strip_prefix("~/"), &home) {
            (Some(rest), Some(home)) => home.join(rest),
            _ => PathBuf::from(entry),
        })
        .filter(|folder| {
            crate::security::workspace_problem(folder, home.as_deref(), Some(data_dir)).is_none()
        })
        .filter_map(|folder| folder.canonicalize().ok())
        .collect()
}

/// The platform's data directory for Asterism (`~/.local/share/asterism` on Linux).
pub fn default_data_dir() -> Option<PathBuf> {
    dirs::data_dir().map(|dir| dir.join("asterism"))
}

impl Settings {
    /// Reads the settings from the process environment and the files above.
    pub fn load() -> Result<Self, SettingsError> {
        let environment: HashMap<String, String> = std::env::vars().collect();
        let cwd_env = std::env::current_dir().ok().map(|dir| dir.join(".env"));
        Self::load_from(environment, cwd_env.as_deref())
    }

    /// Reads settings from the given environment (tests pass their own).
    fn load_layers(
        environment: HashMap<String, String>,
        cwd_env_file: Option<&Path>,
    ) -> Result<Self, SettingsError> {
        let (layers, data_dir) = Layers::stack(environment, cwd_env_file)?;
        let mut sources = HashMap::new();
        let mut value = |name: &'static str| -> String {
            let default = VARIABLES
                .iter()
                .find(|(variable, _, _)| *variable == name)
                .map(|(_, default, _)| *default)
                .unwrap_or("");
            match layers.get(name) {
                Some((value, source)) => {
                    sources.insert(name, source);
                    value.trim().to_string()
                }
                None => {
                    sources.insert(name, "default".into());
                    default.to_string()
                }
            }
        };
        let optional = |text: String| (!text.is_empty()).then_some(text);
        let mut flag = |name: &'static str| {
            let text = value(name);
            match text.to_lowercase().as_str() {
                "1" | "true" | "yes" | "on" => Ok(true),
                "" | "0" | "false" | "no" | "off" => Ok(false),
                _ => Err(SettingsError::BadValue {
                    name,
                    expected: "true or false",
                    value: text,
                    origin: String::new(),
                }),
            }
        };
        let enable_thinking = flag("ENABLE_THINKING")?;
        let memory_extraction = flag("MEMORY_EXTRACTION")?;
        let shell_network = flag("SHELL_NETWORK")?;
        let shell_read = shell_read_folders(&value("SHELL_READ"), &data_dir);
        let (workspace, workspace_problem) =
            checked_workspace(optional(value("ASTERISM_WORKSPACE")), &data_dir);
        let embeddings = embedding_mode(value("EMBEDDINGS"))?;
        let limits = Limits::read(&mut value)?;
        let rerank = rerank_settings(
            value("RAG_RERANK"),
            value("RAG_CANDIDATES"),
            value("SUMMARY_MODEL"),
        )?;
        let split = |text: String, separator: char| -> Vec<String> {
            text.split(separator)
                .map(|part| part.trim().to_string())
                .filter(|part| !part.is_empty())
                .collect()
        };
        let vision = vision_of(&value("LLM_VISION"), &value("LLM_MODEL"))?;
        let mut settings = Settings {
            data_dir,
            llm_base_url: value("LLM_BASE_URL"),
            llm_api_key: optional(value("LLM_API_KEY")),
            llm_model: value("LLM_MODEL"),
            fallback_model: optional(value("FALLBACK_MODEL")),
            enable_thinking,
            memory_extraction,
            vision,
            embeddings,
            embedding_base_url: value("EMBEDDING_BASE_URL"),
            embedding_api_key: optional(value("EMBEDDING_API_KEY")),
            embedding_model: value("EMBEDDING_MODEL"),
            local_embedding_model: local_model_of(value("LOCAL_EMBEDDING_MODEL"))?,
            max_steps: limits.max_steps,
            llm_idle_timeout: limits.llm_idle_timeout,
            max_argument_bytes: limits.max_argument_bytes,
            ads_api_token: optional(value("ADS_API_TOKEN")),
            ads_api_url: value("ADS_API_URL"),
            arxiv_api_url: value("ARXIV_API_URL"),
            arxiv_url: value("ARXIV_URL"),
            sesame_url: value("SESAME_URL"),
            crossref_url: value("CROSSREF_URL"),
            ollama_url: value("OLLAMA_URL"),
            ads_ui_url: value("ADS_UI_URL"),
            doi_url: value("DOI_URL"),
            simbad_url: value("SIMBAD_URL"),
            sesame_timeout: Duration::from_secs(20),
            target_cache_max_age: limits.target_cache_max_age,
            workspace,
            workspace_problem,
            shell_network,
            shell_read,
            news_categories: split(value("NEWS_CATEGORIES"), ','),
            news_authors: split(value("NEWS_AUTHORS"), ';'),
            news_limit: limits.news_limit,
            rerank,
            keep_alive: limits.keep_alive,
            sources: HashMap::new(),
        };
        settings.sources = sources;
        Ok(settings)
    }

    /// Reads settings from the given environment; a bad value names where it was set.
    pub fn load_from(
        environment: HashMap<String, String>,
        cwd_env_file: Option<&Path>,
    ) -> Result<Self, SettingsError> {
        let probe = environment.clone();
        Self::load_layers(environment, cwd_env_file).map_err(|error| match error {
            SettingsError::BadValue {
                name,
                expected,
                value,
                ..
            } => SettingsError::BadValue {
                origin: source_of(name, &value, &probe, cwd_env_file),
                name,
                expected,
                value,
            },
            other => other,
        })
    }

    /// Uses `folder` as the workspace (the CLI's `--workspace`, or its working
    /// directory), unless [`crate::security::workspace_problem`] refuses it (`/`, `/home`,
    /// `/tmp`, the home folder or a folder holding it, the data folder): then there is no
    /// workspace and `workspace_problem` says why.
    pub fn set_workspace(&mut self, folder: Option<PathBuf>) {
        (self.workspace, self.workspace_problem) = checked_workspace(folder, &self.data_dir);
    }

    /// Every configured secret value: what is scrubbed from everything a run emits.
    pub fn secret_values(&self) -> Vec<String> {
        [
            &self.llm_api_key,
            &self.embedding_api_key,
            &self.ads_api_token,
        ]
        .into_iter()
        .flatten()
        .cloned()
        .collect()
    }

    /// The scrubber of these settings: configured secrets, every value an MCP server is
    /// given in its `env` (tokens, mostly), and the values of the process's
    /// secret-looking environment variables.
    pub fn scrubber(&self) -> crate::security::Scrubber {
        let environment: Vec<(String, String)> = std::env::vars().collect();
        let mcp = crate::mcp::McpConfig::read(&self.data_dir)
            .map(|config| {
                config
                    .servers
                    .into_values()
                    .flat_map(|server| server.env.into_values())
                    .collect::<Vec<_>>()
            })
            .unwrap_or_default();
        crate::security::Scrubber::with_environment(
            self.secret_values().into_iter().chain(mcp),
            environment.iter().map(|(name, value)| (name, value)),
        )
    }

    /// Whether a model is configured (the agent can run).
    pub fn model_configured(&self) -> bool {
        !self.llm_model.trim().is_empty() && !self.llm_base_url.trim().is_empty()
    }

    /// Each variable with its value as shown to people: secrets masked.
    pub fn describe(&self) -> Vec<(&'static str, String, String)> {
        let shown = |name: &'static str| -> String {
            match name {
                "ASTERISM_DATA_DIR" => self.data_dir.display().to_string(),
                "LLM_BASE_URL" => self.llm_base_url.clone(),
                "LLM_API_KEY" => self
                    .llm_api_key
                    .as_deref()
                    .map(mask)
                    .unwrap_or_else(|| "(not set)".into()),
                "LLM_MODEL" => {
                    if self.llm_model.is_empty() {
                        "(not set)".into()
                    } else {
                        self.llm_model.clone()
                    }
                }
                "FALLBACK_MODEL" => self
                    .fallback_model
                    .clone()
                    .unwrap_or_else(|| "(not set)".into()),
                "ENABLE_THINKING" => self.enable_thinking.to_string(),
                "MEMORY_EXTRACTION" => self.memory_extraction.to_string(),
                "LLM_VISION" => self.vision.to_string(),
                "EMBEDDINGS" => format!("{:?}", self.embeddings).to_lowercase(),
                "EMBEDDING_BASE_URL" => {
                    if self.embedding_base_url.is_empty() {
                        "(not set)".into()
                    } else {
                        self.embedding_base_url.clone()
                    }
                }
                "EMBEDDING_API_KEY" => self
                    .embedding_api_key
                    .as_deref()
                    .map(mask)
                    .unwrap_or_else(|| "(not set)".into()),
                "EMBEDDING_MODEL" => self.embedding_model.clone(),
                "LOCAL_EMBEDDING_MODEL" => self.local_embedding_model.clone(),
                "ASTERISM_MAX_STEPS" => self.max_steps.to_string(),
                "LLM_IDLE_TIMEOUT_S" => format!("{}", self.llm_idle_timeout.as_secs_f64()),
                "MAX_TOOL_ARGUMENT_KB" => (self.max_argument_bytes / 1024).to_string(),
                "ADS_API_TOKEN" => self
                    .ads_api_token
                    .as_deref()
                    .map(mask)
                    .unwrap_or_else(|| "(not set)".into()),
                "ADS_API_URL" => self.ads_api_url.clone(),
                "ARXIV_API_URL" => self.arxiv_api_url.clone(),
                "ARXIV_URL" => self.arxiv_url.clone(),
                "SESAME_URL" => self.sesame_url.clone(),
                "CROSSREF_URL" => self.crossref_url.clone(),
                "OLLAMA_URL" => self.ollama_url.clone(),
                "ADS_UI_URL" => self.ads_ui_url.clone(),
                "DOI_URL" => self.doi_url.clone(),
                "SIMBAD_URL" => self.simbad_url.clone(),
                "ASTERISM_WORKSPACE" => match (&self.workspace, &self.workspace_problem) {
                    (Some(folder), _) => folder.display().to_string(),
                    (None, Some(problem)) => format!("(none: {problem})"),
                    (None, None) => "(not set)".into(),
                },
                "SHELL_NETWORK" => self.shell_network.to_string(),
                "SHELL_READ" => std::env::join_paths(&self.shell_read)
                    .map(|joined| joined.to_string_lossy().into_owned())
                    .unwrap_or_default(),
                "NEWS_CATEGORIES" => self.news_categories.join(","),
                "NEWS_AUTHORS" => self.news_authors.join("; "),
                "NEWS_LIMIT" => self.news_limit.to_string(),
                "RAG_RERANK" => if self.rerank.enabled { "model" } else { "off" }.to_string(),
                "RAG_CANDIDATES" => self.rerank.candidates.to_string(),
                "SUMMARY_MODEL" => self.rerank.model.clone().unwrap_or_default(),
                "KEEP_ALIVE_S" => self
                    .keep_alive
                    .map_or_else(|| "0".into(), |keep| keep.as_secs_f64().to_string()),
                "TARGET_CACHE_DAYS" => {
                    format!("{}", self.target_cache_max_age.as_secs_f64() / 86_400.0)
                }
                _ => String::new(),
            }
        };
        VARIABLES
            .iter()
            .map(|(name, _, _)| {
                (
                    *name,
                    shown(name),
                    self.sources
                        .get(name)
                        .cloned()
                        .unwrap_or_else(|| "default".into()),
                )
            })
            .collect()
    }
}

/// `text` read as a `T` that `valid` accepts, else an error naming the variable and
/// what it takes.
fn number<T: std::str::FromStr>(
    name: &'static str,
    text: String,
    expected: &'static str,
    valid: impl Fn(&T) -> bool,
) -> Result<T, SettingsError> {
    text.parse::<T>()
        .ok()
        .filter(|parsed| valid(parsed))
        .ok_or(SettingsError::BadValue {
            name,
            expected,
            value: text,
            origin: String::new(),
        })
}

/// `EMBEDDINGS`: auto (also empty), local, remote or none (off).
fn embedding_mode(text: String) -> Result<EmbeddingMode, SettingsError> {
    match text.to_lowercase().as_str() {
        "" | "auto" => Ok(EmbeddingMode::Auto),
        "local" => Ok(EmbeddingMode::Local),
        "remote" => Ok(EmbeddingMode::Remote),
        "none" | "off" => Ok(EmbeddingMode::None),
        _ => Err(SettingsError::BadValue {
            name: "EMBEDDINGS",
            expected: "auto, local, remote or none",
            value: text.to_lowercase(),
            origin: String::new(),
        }),
    }
}

/// The numbers among the settings, each checked against its range.
struct Limits {
    max_steps: u32,
    llm_idle_timeout: Duration,
    max_argument_bytes: usize,
    target_cache_max_age: Duration,
    news_limit: usize,
    keep_alive: Option<Duration>,
}

impl Limits {
    fn read(value: &mut impl FnMut(&'static str) -> String) -> Result<Self, SettingsError> {
        let max_steps: u32 = number(
            "ASTERISM_MAX_STEPS",
            value("ASTERISM_MAX_STEPS"),
            "a positive whole number",
            |steps| *steps > 0,
        )?;
        let llm_idle_timeout = Duration::from_secs_f64(number(
            "LLM_IDLE_TIMEOUT_S",
            value("LLM_IDLE_TIMEOUT_S"),
            "a number of seconds, 1 or more",
            |seconds: &f64| seconds.is_finite() && *seconds >= 1.0,
        )?);
        let max_argument_bytes = number(
            "MAX_TOOL_ARGUMENT_KB",
            value("MAX_TOOL_ARGUMENT_KB"),
            "a positive whole number of KiB",
            |kib: &usize| *kib > 0,
        )?
        .saturating_mul(1024);
        let cache_days = number(
            "TARGET_CACHE_DAYS",
            value("TARGET_CACHE_DAYS"),
            "a number of days, 0 or more",
            |days: &f64| days.is_finite() && *days >= 0.0,
        )?;
        let news_limit = number(
            "NEWS_LIMIT",
            value("NEWS_LIMIT"),
            "a positive whole number",
            |limit: &usize| *limit > 0,
        )?;
        let keep_alive_seconds = number(
            "KEEP_ALIVE_S",
            value("KEEP_ALIVE_S"),
            "a number of seconds, 10 or more, or 0 to keep them loaded",
            |seconds: &f64| *seconds == 0.0 || (seconds.is_finite() && *seconds >= 10.0),
        )?;
        let keep_alive =
            (keep_alive_seconds > 0.0).then(|| Duration::from_secs_f64(keep_alive_seconds));
        Ok(Self {
            max_steps,
            llm_idle_timeout,
            max_argument_bytes,
            target_cache_max_age: Duration::from_secs_f64(cache_days * 86_400.0),
            news_limit,
            keep_alive,
        })
    }
}

/// `LOCAL_EMBEDDING_MODEL`: bge-small (also empty) or minilm.
fn local_model_of(text: String) -> Result<String, SettingsError> {
    match text.trim().to_lowercase().as_str() {
        "" | "bge-small" | "bge" => Ok("bge-small".into()),
        "minilm" => Ok("minilm".into()),
        other => Err(SettingsError::BadValue {
            name: "LOCAL_EMBEDDING_MODEL",
            expected: "bge-small or minilm",
            value: other.to_string(),
            origin: String::new(),
        }),
    }
}

/// `LLM_VISION`: `on`/`off`, or `auto` (the default): by the model's name, the families
/// that take images through Chat Completions (Qwen-VL and QVQ, GPT-4o/4.1/5, Gemini,
/// LLaVA, Pixtral, Llama 3.2 Vision, Gemma 3 from 4B up, MiniCPM-V, InternVL …).
fn vision_of(text: &str, model: &str) -> Result<bool, SettingsError> {
    match text.trim().to_lowercase().as_str() {
        "1" | "true" | "yes" | "on" => Ok(true),
        "0" | "false" | "no" | "off" => Ok(false),
        "" | "auto" => {
            let model = model.to_lowercase();
            let families = [
                "-vl",
                "vl-",
                "qvq",
                "vision",
                "gpt-4o",
                "gpt-4.1",
                "gpt-5",
                "gemini",
                "llava",
                "pixtral",
                "minicpm-v",
                "internvl",
                "gemma3:4b",
                "gemma3:12b",
                "gemma3:27b",
                "gemma-3-4b",
                "gemma-3-12b",
                "gemma-3-27b",
                "omni",
            ];
            Ok(families.iter().any(|family| model.contains(family)))
        }
        _ => Err(SettingsError::BadValue {
            name: "LLM_VISION",
            expected: "on, off or auto",
            value: text.to_string(),
            origin: String::new(),
        }),
    }
}

/// `RAG_RERANK` (`model` or `off`), `RAG_CANDIDATES` (passages the model reads, 8–100)
/// and `SUMMARY_MODEL` (empty: the configured model).
fn rerank_settings(
    rerank: String,
    candidates: String,
    model: String,
) -> Result<crate::rag::RerankSettings, SettingsError> {
    let enabled = match rerank.to_ascii_lowercase().as_str() {
        "model" | "" => true,
        "off" => false,
        _ => {
            return Err(SettingsError::BadValue {
                name: "RAG_RERANK",
                expected: "model or off",
                value: rerank,
                origin: String::new(),
            });
        }
    };
    let candidates = number(
        "RAG_CANDIDATES",
        candidates,
        "a whole number from 8 to 100",
        |n: &usize| (8..=100).contains(n),
    )?;
    Ok(crate::rag::RerankSettings {
        enabled,
        candidates,
        model: (!model.is_empty()).then_some(model),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `LLM_VISION=auto` goes by the model's name; on and off override it.
    #[test]
    fn vision_is_told_or_known_by_the_model_name() {
        for (model, sees) in [
            ("qwen-vl-max", true),
            ("qwen2.5-vl-7b-instruct", true),
            ("gpt-4o-mini", true),
            ("gemma3:12b", true),
            ("qwen3-max", false),
            ("deepseek-chat", false),
            ("gemma3:270m", false),
        ] {
            assert_eq!(vision_of("auto", model).unwrap(), sees, "{model}");
            assert_eq!(vision_of("", model).unwrap(), sees, "{model}");
        }
        assert!(vision_of("on", "deepseek-chat").unwrap());
        assert!(!vision_of("off", "gpt-4o").unwrap());
        assert!(vision_of("sometimes", "gpt-4o").is_err());
    }

    fn env(pairs: &[(&str, &str)]) -> HashMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn environment_beats_files_and_files_beat_defaults() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join(".env"),
            "LLM_MODEL=from-data-env\nSESAME_URL=http://127.0.0.1:9/sesame\n",
        )
        .unwrap();
        std::fs::write(dir.path().join("settings.json"), r#"{"LLM_MODEL": "from-settings", "ARXIV_URL": "http://127.0.0.1:9/arxiv", "ASTERISM_MAX_STEPS": 40}"#).unwrap();
        let settings = Settings::load_from(
            env(&[
                ("ASTERISM_DATA_DIR", dir.path().to_str().unwrap()),
                ("LLM_API_KEY", "sk-1234567890abcdef"),
            ]),
            None,
        )
        .unwrap();
        assert_eq!(settings.llm_model, "from-data-env");
        assert_eq!(settings.sesame_url, "http://127.0.0.1:9/sesame");
        assert_eq!(settings.arxiv_url, "http://127.0.0.1:9/arxiv");
        assert_eq!(settings.max_steps, 40);
        assert_eq!(settings.ads_api_url, "https://api.adsabs.harvard.edu/v1");
        assert_eq!(settings.ads_ui_url, "https://ui.adsabs.harvard.edu");
        assert_eq!(settings.doi_url, "https://doi.org");
        assert_eq!(settings.simbad_url, "https://simbad.cds.unistra.fr/simbad");
        assert_eq!(settings.sources["LLM_API_KEY"], "environment");
        let described = settings.describe();
        let key = described
            .iter()
            .find(|(name, _, _)| *name == "LLM_API_KEY")
            .unwrap();
        assert_eq!(key.1, "sk-1…cdef");
        assert!(!format!("{settings:?}").contains("567890"));
    }

    #[test]
    fn bad_values_are_clear_errors() {
        let dir = tempfile::tempdir().unwrap();
        let data_dir = dir.path().to_str().unwrap();
        let error = Settings::load_from(
            env(&[
                ("ASTERISM_DATA_DIR", data_dir),
                ("ASTERISM_MAX_STEPS", "lots"),
            ]),
            None,
        )
        .unwrap_err();
        assert_eq!(
            error.to_string(),
            "ASTERISM_MAX_STEPS (from the environment) must be a positive whole number, not \"lots\""
        );
        std::fs::write(dir.path().join("settings.json"), "{not json").unwrap();
        let error = Settings::load_from(env(&[("ASTERISM_DATA_DIR", data_dir)]), None).unwrap_err();
        assert!(error.to_string().contains("settings.json is not valid"));
    }

    #[test]
    fn the_keep_alive_is_seconds_or_zero_for_good() {
        let dir = tempfile::tempdir().unwrap();
        let data_dir = dir.path().to_str().unwrap();
        let load = |value: &str| {
            Settings::load_from(
                env(&[("ASTERISM_DATA_DIR", data_dir), ("KEEP_ALIVE_S", value)]),
                None,
            )
        };
        let default = Settings::load_from(env(&[("ASTERISM_DATA_DIR", data_dir)]), None);
        assert_eq!(default.unwrap().keep_alive, Some(Duration::from_secs(300)));
        assert_eq!(load("0").unwrap().keep_alive, None);
        assert_eq!(
            load("90").unwrap().keep_alive,
            Some(Duration::from_secs(90))
        );
        for bad in ["5", "-1", "5m", "inf"] {
            let error = load(bad).unwrap_err().to_string();
            assert!(error.contains("KEEP_ALIVE_S"), "{bad}: {error}");
        }
    }

    #[test]
    fn the_model_scores_passages_unless_told_not_to() {
        let dir = tempfile::tempdir().unwrap();
        let data_dir = dir.path().to_str().unwrap();
        let load = |pairs: &[(&str, &str)]| {
            let mut all = vec![("ASTERISM_DATA_DIR", data_dir)];
            all.extend_from_slice(pairs);
            Settings::load_from(env(&all), None)
        };
        let default = load(&[]).unwrap().rerank;
        assert!(default.enabled && default.candidates == 20 && default.model.is_none());
        let set = load(&[
            ("RAG_RERANK", "off"),
            ("RAG_CANDIDATES", "40"),
            ("SUMMARY_MODEL", "qwen-turbo"),
        ])
        .unwrap()
        .rerank;
        assert!(!set.enabled);
        assert_eq!(
            (set.candidates, set.model.as_deref()),
            (40, Some("qwen-turbo"))
        );
        for (name, bad) in [
            ("RAG_RERANK", "maybe"),
            ("RAG_CANDIDATES", "5"),
            ("RAG_CANDIDATES", "500"),
        ] {
            let error = load(&[(name, bad)]).unwrap_err().to_string();
            assert!(error.contains(name) && error.contains(bad), "{error}");
        }
    }

    #[test]
    fn every_variable_is_in_env_example() {
        let example = std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.env.example"),
        )
        .unwrap();
        for (name, _, _) in VARIABLES {
            assert!(
                example.lines().any(|line| line
                    .trim_start_matches("# ")
                    .starts_with(&format!("{name}="))),
                "{name} missing from .env.example"
            );
        }
    }
}
