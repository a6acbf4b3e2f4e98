//! `asterism doctor`: configuration (secrets masked), database, and which services answer.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use asterism_agent::Settings;
use asterism_store::Store;

async fn probe(http: &reqwest::Client, url: &str, bearer: Option<&str>) -> String {
    let started = Instant::now();
    let mut request = http.get(url);
    if let Some(token) = bearer {
        request = request.bearer_auth(token);
    }
    match request.send().await {
        Ok(response) => format!(
            "answers (HTTP {}, {} ms)",
            response.status().as_u16(),
            started.elapsed().as_millis()
        ),
        Err(error) if error.is_timeout() => "no answer within 5 s".into(),
        Err(error) => format!("unreachable: {}", asterism_library::http::describe(&error)),
    }
}

pub async fn run(settings: &Settings) -> anyhow::Result<ExitCode> {
    println!("Configuration");
    for (name, value, source) in settings.describe() {
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
        let models = format!("{}/models", settings.llm_base_url.trim_end_matches('/'));
        println!(
            "  model    {models}: {}",
            probe(&http, &models, settings.llm_api_key.as_deref()).await
        );
    } else {
        println!("  model    not configured: set LLM_MODEL, LLM_BASE_URL and LLM_API_KEY");
    }
    let sesame =
        asterism_library::SesameClient::new(settings.sesame_url.clone(), Duration::from_secs(5))?;
    println!(
        "  sesame   {}: {}",
        settings.sesame_url,
        probe(&http, &sesame.url_for("M 31"), None).await
    );
    let ads = format!(
        "{}/search/query?q=bibcode:2013PASP..125..306F&fl=bibcode",
        settings.ads_api_url.trim_end_matches('/')
    );
    match &settings.ads_api_token {
        Some(token) => println!(
            "  ads      {}: {}",
            settings.ads_api_url,
            probe(&http, &ads, Some(token)).await
        ),
        None => println!("  ads      no ADS_API_TOKEN: searches use arXiv only"),
    }
    let arxiv = format!(
        "{}/query?id_list=astro-ph/0601001",
        settings.arxiv_api_url.trim_end_matches('/')
    );
    println!(
        "  arxiv    {}: {}",
        settings.arxiv_api_url,
        probe(&http, &arxiv, None).await
    );
    Ok(if healthy {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
