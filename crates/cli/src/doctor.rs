//! `asterism doctor`: configuration (secrets masked), database, and what each service
//! says: answers, rejects the key, is failing, or does not offer the configured model.
//! A configuration that cannot be read is named (file and variable) and every other
//! check still runs, with that value at its default.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use asterism_agent::Settings;
use asterism_agent::settings::{SettingsError, VARIABLES, default_data_dir};
use asterism_llm::endpoint;
use asterism_store::Store;

/// The model endpoint's `GET {base}/models`: whether it answers, takes the key, and
/// offers `LLM_MODEL` (and `FALLBACK_MODEL`). Lines to print, and whether any is a problem.
async fn check_model(http: &reqwest::Client, settings: &Settings) -> (Vec<String>, bool) {
    let mut wanted = vec![settings.llm_model.as_str()];
    wanted.extend(settings.fallback_model.as_deref());
    let check = endpoint::check_models(
        http,
        &settings.llm_base_url,
        settings.llm_api_key.as_deref(),
        &wanted,
    )
    .await;
    (
        vec![format!("  model    {}: {}", check.url, check.verdict)],
        check.problem,
    )
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
    match asterism_library::parts::Notices::find() {
        Ok((notices, path)) => println!(
            "  notices     {} components ({})",
            notices.components.len(),
            path.display()
        ),
        Err(why) => println!("  notices     {why}"),
    }
}

/// With no model configured: the local model servers that answer (an Ollama server
/// needs no key), and what to set to use one.
async fn print_local_models(http: &reqwest::Client, settings: &Settings) {
    for server in endpoint::local_servers(http, &[("Ollama", &settings.ollama_url)]).await {
        let Some(first) = server.models.first() else {
            println!(
                "  local    {} at {} answers, but has no models yet (ollama pull …)",
                server.name, server.base_url
            );
            continue;
        };
        println!(
            "  local    {} at {} offers {}: set LLM_BASE_URL={} and LLM_MODEL={first} (no key needed)",
            server.name,
            server.base_url,
            endpoint::offered_list(&server.models),
            server.base_url
        );
    }
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
    print_configuration(settings, load_problem);
    println!("\nSafety");
    print_safety(settings);
    print_local_parts(settings);
    println!("\nDatabase");
    let mut healthy = check_database(settings).await;
    println!("\nServices");
    healthy &= check_services(settings).await?;
    Ok(healthy && load_problem.is_none())
}

/// Each setting, its value and where it came from.
fn print_configuration(settings: &Settings, load_problem: Option<&LoadProblem>) {
    for (name, value, source) in settings.describe() {
        let source = match load_problem {
            Some(problem) if problem.defaulted.contains(&name) => {
                "default: the value set is not valid".to_string()
            }
            _ => source,
        };
        println!("  {name:<20} {value}  [{source}]");
    }
}

/// The workspace the file tools may use, and how `run_bash` is confined.
fn print_safety(settings: &Settings) {
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
}

/// Whether the database opens, with sqlite-vec's version and the sessions it holds.
async fn check_database(settings: &Settings) -> bool {
    let store = match Store::open_in_dir(&settings.data_dir).await {
        Ok(store) => store,
        Err(error) => {
            println!("  cannot open: {error}");
            return false;
        }
    };
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
    true
}

/// The model endpoint and each service; false when one rejects, fails or lacks the model.
async fn check_services(settings: &Settings) -> anyhow::Result<bool> {
    let http = asterism_library::http::client(Duration::from_secs(5))?;
    let mut healthy = true;
    if settings.model_configured() {
        let (lines, problem) = check_model(&http, settings).await;
        for line in lines {
            println!("{line}");
        }
        healthy &= !problem;
    } else {
        println!("  model    not configured: set LLM_MODEL, LLM_BASE_URL and LLM_API_KEY");
        print_local_models(&http, settings).await;
    }
    let sesame =
        asterism_library::SesameClient::new(settings.sesame_url.clone(), Duration::from_secs(5))?;
    healthy &= check_url(
        &http,
        "sesame",
        &settings.sesame_url,
        &sesame.url_for("M 31"),
    )
    .await;
    healthy &= check_ads(&http, settings).await;
    let arxiv = format!(
        "{}/query?id_list=astro-ph/0601001",
        settings.arxiv_api_url.trim_end_matches('/')
    );
    healthy &= check_url(&http, "arxiv", &settings.arxiv_api_url, &arxiv).await;
    let crossref = format!(
        "{}/works/10.1086/670067",
        settings.crossref_url.trim_end_matches('/')
    );
    healthy &= check_url(&http, "crossref", &settings.crossref_url, &crossref).await;
    Ok(healthy)
}

/// One service's line: whether `url` (a request under `base`) answers; false on a problem.
async fn check_url(http: &reqwest::Client, label: &str, base: &str, url: &str) -> bool {
    let (health, _, _) = endpoint::get(http, url, None).await;
    println!("  {label:<8} {base}: {}", health.describe());
    !health.is_problem()
}

/// ADS with the token, and the quota left; without a token, a note (not a problem).
async fn check_ads(http: &reqwest::Client, settings: &Settings) -> bool {
    let Some(token) = &settings.ads_api_token else {
        println!("  ads      no ADS_API_TOKEN: searches use arXiv only");
        return true;
    };
    let ads = format!(
        "{}/search/query?q=bibcode:2013PASP..125..306F&fl=bibcode",
        settings.ads_api_url.trim_end_matches('/')
    );
    let (health, _, headers) = endpoint::get(http, &ads, Some(token)).await;
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
    !health.is_problem()
}

#[cfg(test)]
mod tests {
    use super::*;

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
