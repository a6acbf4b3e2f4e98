//! `asterism doctor` against loopback services that answer, reject the key, fail, or do
//! not offer the configured model.

use std::path::Path;
use std::process::Output;

use asterism_testkit::{FixtureServer, Route, RouteResponse};

const KEY: &str = "sk-test-0123456789abcdef";

async fn services() -> FixtureServer {
    let json = "application/json";
    let models = |ids: &[&str]| {
        let data: Vec<serde_json::Value> = ids
            .iter()
            .map(|id| serde_json::json!({"id": id, "object": "model"}))
            .collect();
        RouteResponse::ok(
            json,
            serde_json::json!({"object": "list", "data": data}).to_string(),
        )
    };
    let many: Vec<String> = (1..=12).map(|n| format!("model-{n:02}")).collect();
    let many: Vec<&str> = many.iter().map(String::as_str).collect();
    FixtureServer::start(vec![
        Route::new("/ok/v1/models", models(&["qwen3-max", "scripted-qwen"])),
        Route::new("/ollama/v1/models", models(&["scripted-qwen:latest"])),
        Route::new(
            "/local-ollama/v1/models",
            RouteResponse::file(json, "ollama/v1_models.json"),
        ),
        Route::new("/missing/v1/models", models(&many)),
        Route::new("/rejected/v1/models", models(&[]).with_status(401)),
        Route::new("/forbidden/v1/models", models(&[]).with_status(403)),
        Route::new(
            "/failing/v1/models",
            RouteResponse::ok("text/plain", "oops").with_status(500),
        ),
        Route::new(
            "/sesame/-oI/SNV",
            RouteResponse::ok("text/plain", "# M 31\n%J 10.68 +41.27\n"),
        ),
        Route::new(
            "/arxiv-api/query",
            RouteResponse::ok("application/atom+xml", "<feed/>"),
        ),
        Route::new(
            "/crossref/works/10.1086/670067",
            RouteResponse::file(json, "crossref/work_10.1371_journal.pone.0033693.json"),
        ),
        Route::new(
            "/ads/search/query",
            RouteResponse::ok(json, "{\"response\":{\"docs\":[]}}")
                .with_header("X-RateLimit-Limit", "5000")
                .with_header("X-RateLimit-Remaining", "4987")
                .with_header("X-RateLimit-Reset", "1700000000"),
        ),
        Route::new(
            "/ads-low/search/query",
            RouteResponse::ok(json, "{\"response\":{\"docs\":[]}}")
                .with_header("X-RateLimit-Limit", "5000")
                .with_header("X-RateLimit-Remaining", "312")
                .with_header("X-RateLimit-Reset", "1700000000"),
        ),
        Route::new(
            "/ads-rejected/search/query",
            RouteResponse::ok(json, "{}").with_status(401),
        ),
    ])
    .await
    .unwrap()
}

fn doctor(dir: &Path, server: &FixtureServer, extra: &[(&str, &str)]) -> Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_asterism"))
        .arg("doctor")
        .current_dir(dir)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", dir)
        .env("ASTERISM_DATA_DIR", dir.join("data"))
        .env("ASTERISM_KEYRING", "off")
        .env("LLM_MODEL", "scripted-qwen")
        .env("LLM_API_KEY", KEY)
        .env("SESAME_URL", format!("{}/sesame", server.url()))
        .env("ARXIV_API_URL", format!("{}/arxiv-api", server.url()))
        .env("ADS_API_URL", format!("{}/ads", server.url()))
        .env("CROSSREF_URL", format!("{}/crossref", server.url()))
        .env("ADS_API_TOKEN", "ads-token-0123456789")
        .envs(extra.iter().copied())
        .output()
        .unwrap()
}

/// The model's line of the report.
fn model_line(output: &Output) -> String {
    let stdout = String::from_utf8_lossy(&output.stdout);
    stdout
        .lines()
        .find(|line| line.starts_with("  model "))
        .unwrap_or_else(|| panic!("no model line in {stdout}"))
        .to_string()
}

/// Every section and every service is reported, whatever one of them said.
fn assert_every_check(output: &Output) {
    let stdout = String::from_utf8_lossy(&output.stdout);
    for part in [
        "Configuration",
        "Safety",
        "Database",
        "ok; sqlite-vec",
        "Services",
        "  sesame   ",
        "  ads      ",
        "  arxiv    ",
        "  crossref ",
    ] {
        assert!(stdout.contains(part), "{part} missing from {stdout}");
    }
    assert!(!stdout.contains(KEY), "the key is masked: {stdout}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn doctor_says_what_the_model_endpoint_answers_and_exits_1_on_a_problem() {
    let server = services().await;
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        ("ok", "answers (HTTP 200", "offers scripted-qwen", 0),
        ("ollama", "answers (HTTP 200", "offers scripted-qwen", 0),
        ("rejected", "key rejected (401)", "", 1),
        ("forbidden", "forbidden (403)", "", 1),
        ("failing", "failing (HTTP 500)", "", 1),
        (
            "missing",
            "model scripted-qwen not offered by this endpoint (it offers: model-01, model-02, model-03, model-04, model-05, model-06, model-07, model-08… (12 in all))",
            "",
            1,
        ),
        (
            "no-list",
            "this endpoint has no model list (HTTP 404)",
            "cannot check",
            0,
        ),
    ];
    for (case, said, also, status) in cases {
        let base = format!("{}/{case}/v1", server.url());
        let output = doctor(dir.path(), &server, &[("LLM_BASE_URL", &base)]);
        let line = model_line(&output);
        assert!(line.contains(&base), "{case}: {line}");
        assert!(line.contains(said), "{case}: {line}");
        assert!(line.contains(also), "{case}: {line}");
        assert_eq!(output.status.code(), Some(status), "{case}: {output:?}");
        assert_every_check(&output);
    }
    // The key went to the model endpoint as a Bearer token (and nowhere else needed it).
    assert!(
        server
            .requests()
            .iter()
            .any(|request| request.starts_with("/ok/v1/models"))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn doctor_reports_a_fallback_model_a_rejected_ads_token_and_an_unreachable_endpoint() {
    let server = services().await;
    let dir = tempfile::tempdir().unwrap();
    let ok = format!("{}/ok/v1", server.url());
    let output = doctor(
        dir.path(),
        &server,
        &[("LLM_BASE_URL", &ok), ("FALLBACK_MODEL", "gpt-9")],
    );
    assert!(
        model_line(&output).contains(
            "model gpt-9 not offered by this endpoint (it offers: qwen3-max, scripted-qwen)"
        ),
        "{output:?}"
    );
    assert_eq!(output.status.code(), Some(1));

    let ads = format!("{}/ads-rejected", server.url());
    let output = doctor(
        dir.path(),
        &server,
        &[("LLM_BASE_URL", &ok), ("ADS_API_URL", &ads)],
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains(&format!("  ads      {ads}: key rejected (401)")),
        "{stdout}"
    );
    assert_eq!(output.status.code(), Some(1));
    assert_every_check(&output);

    // Nothing listens on port 9: reported, but being offline is not a failure.
    let output = doctor(
        dir.path(),
        &server,
        &[("LLM_BASE_URL", "http://127.0.0.1:9/v1")],
    );
    assert!(model_line(&output).contains("unreachable"), "{output:?}");
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    assert_every_check(&output);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_value_in_a_settings_file_is_named_and_the_other_checks_still_run() {
    let server = services().await;
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    std::fs::create_dir_all(&data).unwrap();
    std::fs::write(data.join(".env"), "ENABLE_THINKING=maybe\n").unwrap();
    let ok = format!("{}/ok/v1", server.url());
    let output = doctor(dir.path(), &server, &[("LLM_BASE_URL", &ok)]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("ENABLE_THINKING"), "{stdout}");
    assert!(
        stdout.contains(&data.join(".env").display().to_string()),
        "the file is named: {stdout}"
    );
    assert!(
        model_line(&output).contains("offers scripted-qwen"),
        "{stdout}"
    );
    assert_every_check(&output);
    assert_eq!(output.status.code(), Some(1), "{output:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn doctor_names_the_pdf_engine_and_embedding_model_and_warns_on_a_fallback() {
    let server = services().await;
    let dir = tempfile::tempdir().unwrap();
    let line = |output: &Output, start: &str| {
        let stdout = String::from_utf8_lossy(&output.stdout).to_string();
        stdout
            .lines()
            .find(|line| line.starts_with(start))
            .unwrap_or_else(|| panic!("no {start:?} line in {stdout}"))
            .to_string()
    };
    let base = format!("{}/ok/v1", server.url());
    let installed = doctor(dir.path(), &server, &[("LLM_BASE_URL", &base)]);
    let pdf = line(&installed, "  PDF engine  ");
    assert!(
        pdf.contains("pdfium (/") && pdf.contains("libpdfium"),
        "{pdf}"
    );
    let embeddings = line(&installed, "  embeddings  ");
    assert!(
        embeddings.contains("local:bge-small-en-v1.5-int8 (/") && !embeddings.contains("WARNING"),
        "{embeddings}"
    );
    // MiniLM stays one setting away.
    let minilm = doctor(
        dir.path(),
        &server,
        &[("LLM_BASE_URL", &base), ("LOCAL_EMBEDDING_MODEL", "minilm")],
    );
    let embeddings = line(&minilm, "  embeddings  ");
    assert!(
        embeddings.contains("local:all-MiniLM-L6-v2-int8 (/") && embeddings.contains("/minilm)"),
        "{embeddings}"
    );
    let notices = line(&installed, "  notices     ");
    assert!(
        notices.contains(" components (/") && notices.ends_with("licenses.json)"),
        "{notices}"
    );
    assert_eq!(installed.status.code(), Some(0), "{installed:?}");

    // Without them: it still works (exit 0), and says loudly what is missing.
    let bare = doctor(
        dir.path(),
        &server,
        &[
            ("LLM_BASE_URL", &base),
            ("ASTERISM_PDFIUM", "none"),
            ("ASTERISM_EMBEDDING_DIR", "none"),
        ],
    );
    let pdf = line(&bare, "  PDF engine  ");
    assert!(
        pdf.starts_with("  PDF engine  WARNING: pdf-extract, the slow fallback"),
        "{pdf}"
    );
    let embeddings = line(&bare, "  embeddings  ");
    assert!(
        embeddings.starts_with("  embeddings  WARNING: none: no local model"),
        "{embeddings}"
    );
    assert_eq!(bare.status.code(), Some(0), "{bare:?}");
    assert_every_check(&bare);
}

#[test]
fn version_prints_the_release() {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_asterism"))
        .arg("--version")
        .env_clear()
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    assert_eq!(
        String::from_utf8_lossy(&output.stdout).trim(),
        format!("asterism {}", env!("CARGO_PKG_VERSION"))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn doctor_shows_the_ads_quota_and_warns_below_a_tenth() {
    let server = services().await;
    let dir = tempfile::tempdir().unwrap();
    let base = format!("{}/ok/v1", server.url());
    let ads_line = |output: &Output| {
        let stdout = String::from_utf8_lossy(&output.stdout).to_string();
        stdout
            .lines()
            .find(|line| line.starts_with("  ads      "))
            .unwrap_or_else(|| panic!("no ads line in {stdout}"))
            .to_string()
    };
    let plenty = doctor(dir.path(), &server, &[("LLM_BASE_URL", &base)]);
    assert!(
        ads_line(&plenty)
            .ends_with("; quota: 4987 of 5000 requests left, resets 2023-11-14T22:13:20Z"),
        "{}",
        ads_line(&plenty)
    );
    let low_url = format!("{}/ads-low", server.url());
    let low = doctor(
        dir.path(),
        &server,
        &[("LLM_BASE_URL", &base), ("ADS_API_URL", &low_url)],
    );
    assert!(
        ads_line(&low).ends_with(
            "; WARNING: quota low: 312 of 5000 requests left, resets 2023-11-14T22:13:20Z"
        ),
        "{}",
        ads_line(&low)
    );
    assert_eq!(low.status.code(), Some(0), "a low quota is not a failure");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_no_model_doctor_offers_the_models_of_a_local_ollama() {
    let server = services().await;
    let dir = tempfile::tempdir().unwrap();
    let ollama = format!("{}/local-ollama/v1", server.url());
    let output = doctor(
        dir.path(),
        &server,
        &[("LLM_MODEL", ""), ("OLLAMA_URL", &ollama)],
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("  model    not configured"), "{stdout}");
    assert!(
        stdout.contains(&format!(
            "  local    Ollama at {ollama} offers llama3.1:latest, llama3.2:latest, qwen2.5:latest: \
             set LLM_BASE_URL={ollama} and LLM_MODEL=llama3.1:latest (no key needed)"
        )),
        "{stdout}"
    );
    // It was asked (without a key: local_servers sends none).
    assert!(
        server
            .requests()
            .iter()
            .any(|r| r.starts_with("/local-ollama/v1/models"))
    );

    // Nothing listening there: no line, no failure.
    let output = doctor(
        dir.path(),
        &server,
        &[("LLM_MODEL", ""), ("OLLAMA_URL", "http://127.0.0.1:9/v1")],
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(!stdout.contains("  local    "), "{stdout}");
    assert_eq!(output.status.code(), Some(0), "{stdout}");
}
