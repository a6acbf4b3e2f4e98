//! `asterism doctor`: configuration (secrets masked), database, and what each service
//! says: answers, rejects the key, is failing, or does not offer the configured model.
//! A configuration that cannot be read is named (file and variable) and every other
//! check still runs, with that value at its default.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use asterism_agent::Settings;
use asterism_agent::settings::{SettingsError, VARIABLES, default_data_dir};
use asterism_store::Store;

/// Model names listed in "it offers: …" before the list is cut.
const LISTED_MODELS: usize = 8;

/// What a service said to one request.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Health {
    Answers {
        status: u16,
        millis: u128,
    },
    /// 401: the key (or token) is wrong, expired or missing.
    KeyRejected,
    /// 403: the key is valid but may not do this.
    Forbidden,
    /// 5xx.
    Failing(u16),
    /// Another error status: most likely a wrong address.
    Refuses(u16),
    NoAnswer,
    Unreachable(String),
}

impl Health {
    fn of_status(status: u16, millis: u128) -> Self {
        match status {
            401 => Self::KeyRejected,
            403 => Self::Forbidden,
            500..=599 => Self::Failing(status),
            400..=499 if status != 429 => Self::Refuses(status),
            _ => Self::Answers { status, millis },
        }
    }

    /// Whether this makes doctor exit 1. A service that cannot be reached is not: being
    /// offline is normal for a laptop, and the library works without the network.
    fn is_problem(&self) -> bool {
        matches!(
            self,
            Self::KeyRejected | Self::Forbidden | Self::Failing(_) | Self::Refuses(_)
        )
    }

    fn describe(&self) -> String {
        match self {
            Self::Answers { status, millis } => format!("answers (HTTP {status}, {millis} ms)"),
            Self::KeyRejected => "key rejected (401)".into(),
            Self::Forbidden => "forbidden (403)".into(),
            Self::Failing(status) => format!("failing (HTTP {status})"),
            Self::Refuses(status) => format!("refuses (HTTP {status}): is the address right?"),
            Self::NoAnswer => "no answer within 5 s".into(),
            Self::Unreachable(why) => format!("unreachable: {why}"),
        }
    }
}

/// Sends a GET; the health and, when it answered, the body.
async fn get(
    http: &reqwest::Client,
    url: &str,
    bearer: Option<&str>,
) -> (Health, Vec<u8>, reqwest::header::HeaderMap) {
    let started = Instant::now();
    let mut request = http.get(url);
    if let Some(token) = bearer {
        request = request.bearer_auth(token);
    }
    match request.send().await {
        Ok(response) => {
            let health =
                Health::of_status(response.status().as_u16(), started.elapsed().as_millis());
            let headers = response.headers().clone();
            let body = response
                .bytes()
                .await
                .map(|b| b.to_vec())
                .unwrap_or_default();
            (health, body, headers)
        }
        Err(error) if error.is_timeout() => (Health::NoAnswer, Vec::new(), Default::default()),
        Err(error) => (
            Health::Unreachable(asterism_library::http::describe(&error)),
            Vec::new(),
            Default::default(),
        ),
    }
}

/// The ids of an OpenAI-style model list (`{"data": [{"id": …}]}`), sorted; `None` when
/// the body is not one.
fn model_ids(body: &[u8]) -> Option<Vec<String>> {
    let list: serde_json::Value = serde_json::from_slice(body).ok()?;
    let mut ids: Vec<String> = list
        .get("data")?
        .as_array()?
        .iter()
        .filter_map(|model| model.get("id")?.as_str().map(str::to_string))
        .collect();
    ids.sort();
    Some(ids)
}

/// Whether `model` is in the list, leniently: Ollama lists `qwen3:latest` for `qwen3`,
/// Google lists `models/gemini-…` for `gemini-…`. A wrong "not offered" would be worse
/// than a missed one.
fn offers(ids: &[String], model: &str) -> bool {
    let model = model.trim().to_lowercase();
    ids.iter().any(|id| {
        let id = id.to_lowercase();
        id == model
            || id.strip_suffix(":latest") == Some(model.as_str())
            || id.rsplit('/').next() == Some(model.as_str())
    })
}

/// `a, b, c… (42 in all)`.
fn offered_list(ids: &[String]) -> String {
    if ids.is_empty() {
        return "none".into();
    }
    let shown = ids[..ids.len().min(LISTED_MODELS)].join(", ");
    if ids.len() > LISTED_MODELS {
        format!("{shown}… ({} in all)", ids.len())
    } else {
        shown
    }
}

/// The model endpoint's `GET {base}/models`: whether it answers, takes the key, and
/// offers `LLM_MODEL` (and `FALLBACK_MODEL`). Lines to print, and whether any is a problem.
async fn check_model(http: &reqwest::Client, settings: &Settings) -> (Vec<String>, bool) {
    let url = format!("{}/models", settings.llm_base_url.trim_end_matches('/'));
    let (health, body, _) = get(http, &url, settings.llm_api_key.as_deref()).await;
    let mut problem = health.is_problem();
    let mut models = vec![("model", settings.llm_model.as_str())];
    if let Some(fallback) = &settings.fallback_model {
        models.push(("fallback", fallback.as_str()));
    }
    let verdict = match &health {
        Health::Answers { .. } => match model_ids(&body) {
            Some(ids) => {
                let missing: Vec<&str> = models
                    .iter()
                    .map(|(_, model)| *model)
                    .filter(|model| !offers(&ids, model))
                    .collect();
                if missing.is_empty() {
                    let names: Vec<&str> = models.iter().map(|(_, model)| *model).collect();
                    format!("{}; offers {}", health.describe(), names.join(" and "))
                } else {
                    problem = true;
                    format!(
                        "model {} not offered by this endpoint (it offers: {})",
                        missing.join(" and "),
                        offered_list(&ids)
                    )
                }
            }
            None => format!(
                "{}, but gives no model list: cannot check that {} is offered",
                health.describe(),
                settings.llm_model
            ),
        },
        // No `/models` here (some OpenAI-compatible servers have none): nothing wrong.
        Health::Refuses(status @ (404 | 405)) => {
            problem = false;
            format!(
                "answers, but this endpoint has no model list (HTTP {status}): cannot check that {} is offered",
                settings.llm_model
            )
        }
        Health::KeyRejected if settings.llm_api_key.is_none() => {
            "key rejected (401): no LLM_API_KEY is set".into()
        }
        other => other.describe(),
    };
    (vec![format!("  model    {url}: {verdict}")], problem)
}

/// A configuration that could not be read, and what the checks use instead.
struct LoadProblem {
    /// The error, naming the variable and where it is set.
    message: String,
    /// Variables checked with their default instead of the value set.
    defaulted: Vec<&'static str>,
    /// The settings files were left out: only the environment and the defaults are used.
    without_files: bool,
}

/// What to do about one load error.
enum Recovery {
    /// Check with this variable at its default.
    Default(&'static str),
    /// Leave the files out: the environment and the defaults remain.
    WithoutFiles,
    /// Nothing to check with.
    GiveUp,
}

fn recovery(error: &SettingsError) -> Recovery {
    match error {
        SettingsError::BadValue { name, .. } => Recovery::Default(name),
        SettingsError::Invalid { .. } => Recovery::WithoutFiles,
        SettingsError::NoDataDir => Recovery::GiveUp,
    }
}

/// The data directory the environment names, else the platform's.
fn data_dir_of(environment: &HashMap<String, String>) -> Option<PathBuf> {
    environment
        .get("ASTERISM_DATA_DIR")
        .filter(|dir| !dir.trim().is_empty())
        .map(|dir| PathBuf::from(dir.trim()))
        .or_else(default_data_dir)
}

/// Settings to run the checks with after `error`: each bad value is replaced by its
/// default (and the settings read again, until none is bad); a file that cannot be read
/// at all is left out with every other file, so the environment and the defaults remain
/// (and the database of the data directory the environment names). `None` when nothing
/// can be checked.
fn fallback_settings(
    error: &SettingsError,
    environment: &HashMap<String, String>,
    cwd_env: Option<&Path>,
) -> (LoadProblem, Option<Settings>) {
    // A bad value's error names where it was set (SettingsError::BadValue's origin).
    let describe = |error: &SettingsError| error.to_string();
    let mut messages = vec![describe(error)];
    let mut defaulted: Vec<&'static str> = Vec::new();
    let mut adjusted = environment.clone();
    let mut next = recovery(error);
    let mut without_files = false;
    let settings = loop {
        match next {
            Recovery::Default(name) if !defaulted.contains(&name) => {
                let default = VARIABLES
                    .iter()
                    .find(|(variable, _, _)| *variable == name)
                    .map(|(_, default, _)| *default)
                    .unwrap_or("");
                defaulted.push(name);
                adjusted.insert(name.to_string(), default.to_string());
                match Settings::load_from(adjusted.clone(), cwd_env) {
                    Ok(settings) => break Some(settings),
                    Err(error) => {
                        messages.push(describe(&error));
                        next = recovery(&error);
                    }
                }
            }
            Recovery::Default(_) | Recovery::GiveUp => break None,
            Recovery::WithoutFiles => {
                let Some(data_dir) = data_dir_of(environment) else {
                    break None;
                };
                // A data directory that does not exist has no files to read.
                without_files = true;
                let mut alone = adjusted.clone();
                alone.insert(
                    "ASTERISM_DATA_DIR".into(),
                    std::env::temp_dir()
                        .join(format!("asterism-doctor-{}", std::process::id()))
                        .join("no-such-folder")
                        .display()
                        .to_string(),
                );
                break Settings::load_from(alone, None).ok().map(|mut settings| {
                    settings.data_dir = data_dir;
                    settings
                });
            }
        }
    };
    let problem = LoadProblem {
        message: messages.join("; "),
        defaulted,
        without_files,
    };
    (problem, settings)
}

/// `asterism doctor` when the settings could not be read (`Settings::load` failed with
/// `error`): names the file and the variable, then runs every other check with that
/// value at its default. Exits 1.
pub async fn run_after_load_error(
    error: &SettingsError,
    workspace: Option<PathBuf>,
) -> anyhow::Result<ExitCode> {
    let environment: HashMap<String, String> = std::env::vars().collect();
    let cwd_env = std::env::current_dir().ok().map(|dir| dir.join(".env"));
    let (problem, settings) = fallback_settings(error, &environment, cwd_env.as_deref());
    println!("Configuration");
    println!("  error: {}", problem.message);
    let Some(mut settings) = settings else {
        println!("  nothing else can be checked without a data directory");
        return Ok(ExitCode::FAILURE);
    };
    if problem.without_files {
        println!("  the checks below use the environment and the defaults only");
    } else {
        println!(
            "  the checks below use the default of {}",
            problem.defaulted.join(", ")
        );
    }
    settings.set_workspace(workspace.or_else(|| std::env::current_dir().ok()));
    check(&settings, Some(&problem)).await?;
    Ok(ExitCode::FAILURE)
}

/// Which PDF engine and embedding model this installation uses; a fallback is a loud
/// WARNING (it works, slower or with keywords only), not a failure.
fn print_local_parts(settings: &Settings) {
    println!("\nLocal parts");
    let (engine, pdf) = asterism_library::parse::pdf_engine_report();
    let warn = |fallback: bool| if fallback { "WARNING: " } else { "" };
    println!(
        "  PDF engine  {}{pdf}",
        warn(engine != asterism_library::parse::PdfEngine::Pdfium)
    );
    let (embeddings, fallback) = asterism_agent::bootstrap::embeddings_report(settings);
    println!("  embeddings  {}{embeddings}", warn(fallback));
}

/// `asterism doctor`: exit 1 when the database cannot be opened or a service rejects the
/// key, is failing or does not offer the model; 0 otherwise.
pub async fn run(settings: &Settings) -> anyhow::Result<ExitCode> {
    println!("Configuration");
    Ok(if check(settings, None).await? {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// Prints every check (after the "Configuration" heading); true when all are healthy.
async fn check(settings: &Settings, load_problem: Option<&LoadProblem>) -> anyhow::Result<bool> {
    for (name, value, source) in settings.describe() {
        let source = match load_problem {
            Some(problem) if problem.defaulted.contains(&name) => {
                "default: the value set is not valid".to_string()
            }
            _ => source,
        };
        println!("  {name:<20} {value}  [{source}]");
    }
    println!("\nSafety");
    match (&settings.workspace, &settings.workspace_problem) {
        (Some(folder), _) => println!("  workspace  {}", folder.display()),
        (None, Some(problem)) => println!(
            "  workspace  none ({problem}): file tools reach only the library; run_bash is off"
        ),
        (None, None) => {
            println!("  workspace  none: file tools reach only the library; run_bash is off")
        }
    }
    let confinement = asterism_agent::security::confine::confinement();
    println!(
        "  run_bash   {}{}",
        if confinement.is_enforced() {
            ""
        } else {
            "WARNING: "
        },
        confinement.describe()
    );
    print_local_parts(settings);
    println!("\nDatabase");
    let mut healthy = true;
    match Store::open_in_dir(&settings.data_dir).await {
        Ok(store) => {
            let version = store.vec_version().await;
            let sessions = store
                .list_sessions(u32::MAX)
                .await
                .map(|s| s.len())
                .unwrap_or(0);
            println!(
                "  {}  ok; sqlite-vec {}; {sessions} sessions",
                settings
                    .data_dir
                    .join(asterism_store::DATABASE_FILE)
                    .display(),
                version.unwrap_or_else(|e| format!("missing ({e})"))
            );
        }
        Err(error) => {
            healthy = false;
            println!("  cannot open: {error}");
        }
    }
    println!("\nServices");
    let http = asterism_library::http::client(Duration::from_secs(5))?;
    if settings.model_configured() {
        let (lines, problem) = check_model(&http, settings).await;
        for line in lines {
            println!("{line}");
        }
        healthy &= !problem;
    } else {
        println!("  model    not configured: set LLM_MODEL, LLM_BASE_URL and LLM_API_KEY");
    }
    let sesame =
        asterism_library::SesameClient::new(settings.sesame_url.clone(), Duration::from_secs(5))?;
    let (health, _, _) = get(&http, &sesame.url_for("M 31"), None).await;
    println!("  sesame   {}: {}", settings.sesame_url, health.describe());
    healthy &= !health.is_problem();
    match &settings.ads_api_token {
        Some(token) => {
            let ads = format!(
                "{}/search/query?q=bibcode:2013PASP..125..306F&fl=bibcode",
                settings.ads_api_url.trim_end_matches('/')
            );
            let (health, _, headers) = get(&http, &ads, Some(token)).await;
            let quota = match asterism_library::sources::ads::AdsRateLimit::from_headers(&headers) {
                Some(limit) if limit.is_low() => {
                    format!("; WARNING: quota low: {}", limit.describe())
                }
                Some(limit) => format!("; quota: {}", limit.describe()),
                None => String::new(),
            };
            println!(
                "  ads      {}: {}{quota}",
                settings.ads_api_url,
                health.describe()
            );
            healthy &= !health.is_problem();
        }
        None => println!("  ads      no ADS_API_TOKEN: searches use arXiv only"),
    }
    let arxiv = format!(
        "{}/query?id_list=astro-ph/0601001",
        settings.arxiv_api_url.trim_end_matches('/')
    );
    let (health, _, _) = get(&http, &arxiv, None).await;
    println!(
        "  arxiv    {}: {}",
        settings.arxiv_api_url,
        health.describe()
    );
    healthy &= !health.is_problem();
    let crossref = format!(
        "{}/works/10.1086/670067",
        settings.crossref_url.trim_end_matches('/')
    );
    let (health, _, _) = get(&http, &crossref, None).await;
    println!(
        "  crossref {}: {}",
        settings.crossref_url,
        health.describe()
    );
    healthy &= !health.is_problem();
    Ok(healthy && load_problem.is_none())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(names: &[&str]) -> Vec<String> {
        names.iter().map(|name| name.to_string()).collect()
    }

    #[test]
    fn statuses_become_verdicts() {
        assert_eq!(Health::of_status(401, 3).describe(), "key rejected (401)");
        assert_eq!(Health::of_status(403, 3).describe(), "forbidden (403)");
        assert_eq!(Health::of_status(500, 3).describe(), "failing (HTTP 500)");
        assert_eq!(Health::of_status(503, 3).describe(), "failing (HTTP 503)");
        assert_eq!(
            Health::of_status(200, 3).describe(),
            "answers (HTTP 200, 3 ms)"
        );
        assert!(!Health::of_status(429, 3).is_problem(), "busy, not broken");
        assert!(Health::of_status(404, 3).is_problem());
        assert!(!Health::NoAnswer.is_problem() && !Health::Unreachable("x".into()).is_problem());
    }

    #[test]
    fn model_lists_are_read_and_matched_leniently() {
        let body = br#"{"object":"list","data":[{"id":"qwen3-max"},{"id":"models/gemini-2.5-flash"},{"id":"llama3:latest"},{"object":"model"}]}"#;
        let list = model_ids(body).unwrap();
        assert_eq!(
            list,
            ["llama3:latest", "models/gemini-2.5-flash", "qwen3-max"]
        );
        for model in [
            "qwen3-max",
            "Qwen3-Max",
            "gemini-2.5-flash",
            "llama3",
            "llama3:latest",
        ] {
            assert!(offers(&list, model), "{model}");
        }
        assert!(!offers(&list, "qwen3"));
        assert_eq!(model_ids(b"<html>502</html>"), None);
        assert_eq!(model_ids(br#"{"models":[]}"#), None);
        assert_eq!(offered_list(&[]), "none");
        assert_eq!(offered_list(&ids(&["a", "b"])), "a, b");
        let many: Vec<String> = (0..10).map(|n| format!("m{n}")).collect();
        assert_eq!(
            offered_list(&many),
            "m0, m1, m2, m3, m4, m5, m6, m7… (10 in all)"
        );
    }

    /// A data directory whose `.env` holds `lines`, and an environment that names it.
    fn data_dir_with_env(root: &Path, lines: &str) -> (HashMap<String, String>, PathBuf) {
        let data = root.join("data");
        std::fs::create_dir_all(&data).unwrap();
        std::fs::write(data.join(".env"), lines).unwrap();
        let environment = HashMap::from([
            ("ASTERISM_DATA_DIR".to_string(), data.display().to_string()),
            ("ASTERISM_KEYRING".to_string(), "off".to_string()),
            ("LLM_MODEL".to_string(), "qwen3-max".to_string()),
        ]);
        (environment, data)
    }

    #[test]
    fn bad_values_are_named_with_their_file_and_checked_at_their_default() {
        let root = tempfile_dir("bad-values");
        let (environment, data) =
            data_dir_with_env(&root, "ENABLE_THINKING=maybe\nASTERISM_MAX_STEPS=-3\n");
        let error = Settings::load_from(environment.clone(), None).unwrap_err();
        let (problem, settings) = fallback_settings(&error, &environment, None);
        let env_file = data.join(".env").display().to_string();
        assert!(
            problem.message.contains("ENABLE_THINKING"),
            "{}",
            problem.message
        );
        assert!(
            problem.message.contains("ASTERISM_MAX_STEPS"),
            "{}",
            problem.message
        );
        assert_eq!(
            problem.message.matches(&env_file).count(),
            2,
            "{}",
            problem.message
        );
        assert_eq!(problem.defaulted, ["ENABLE_THINKING", "ASTERISM_MAX_STEPS"]);
        assert!(!problem.without_files);
        let settings = settings.unwrap();
        assert!(!settings.enable_thinking);
        assert_eq!(settings.max_steps, 25);
        // The rest of the configuration is the real one.
        assert_eq!(settings.llm_model, "qwen3-max");
        assert_eq!(settings.data_dir, data);
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn a_bad_value_in_the_environment_or_settings_json_is_found_there() {
        let root = tempfile_dir("bad-sources");
        let (mut environment, data) = data_dir_with_env(&root, "");
        environment.insert("EMBEDDINGS".into(), "Sometimes".into());
        let error = Settings::load_from(environment.clone(), None).unwrap_err();
        let (problem, settings) = fallback_settings(&error, &environment, None);
        assert!(
            problem.message.contains("(from the environment)"),
            "{}",
            problem.message
        );
        assert!(settings.is_some());

        environment.remove("EMBEDDINGS");
        std::fs::write(data.join("settings.json"), r#"{"TARGET_CACHE_DAYS": "-1"}"#).unwrap();
        let error = Settings::load_from(environment.clone(), None).unwrap_err();
        let (problem, _) = fallback_settings(&error, &environment, None);
        let json = data.join("settings.json").display().to_string();
        assert!(problem.message.contains(&json), "{}", problem.message);
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn an_unreadable_file_leaves_the_environment_and_the_real_data_directory() {
        let root = tempfile_dir("unreadable");
        let (environment, data) = data_dir_with_env(&root, "");
        std::fs::write(data.join("settings.json"), "{ not json").unwrap();
        let error = Settings::load_from(environment.clone(), None).unwrap_err();
        let (problem, settings) = fallback_settings(&error, &environment, None);
        assert!(
            problem.message.contains("settings.json"),
            "{}",
            problem.message
        );
        assert!(problem.without_files);
        let settings = settings.unwrap();
        assert_eq!(settings.data_dir, data);
        assert_eq!(settings.llm_model, "qwen3-max");
        std::fs::remove_dir_all(&root).unwrap();
    }

    fn tempfile_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "asterism-doctor-test-{name}-{}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }
}
