//! `asterism library import` as a script sees it: each file reported on stdout the
//! moment it is done (a line, or NDJSON with `--json`), camelCase keys, errors once.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use asterism_testkit::{LoopbackServer, fixture_path};
use axum::Router;
use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::post;
use serde_json::Value;
use tokio::sync::watch;

pub(super) fn asterism(dir: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_asterism"));
    command
        .current_dir(dir)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", dir)
        .env("ASTERISM_DATA_DIR", dir.join("data"))
        .env("ASTERISM_KEYRING", "off")
        .env("EMBEDDINGS", "none");
    command
}

/// A folder with two real papers and a corrupt PDF, in the order they are imported.
fn papers_folder(dir: &Path) -> PathBuf {
    let folder = dir.join("papers");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::copy(
        fixture_path("pdfs/rudolf_ms.pdf"),
        folder.join("a-rudolf.pdf"),
    )
    .unwrap();
    std::fs::copy(
        fixture_path("pdfs/celerite_ms.pdf"),
        folder.join("b-celerite.pdf"),
    )
    .unwrap();
    std::fs::write(folder.join("c-broken.pdf"), b"%PDF-1.4\n1 0 obj\n<<").unwrap();
    folder
}

/// An embedding endpoint that holds every request until the test opens it, then answers
/// 503: the import cannot finish (embedding comes after the files) while it is closed.
async fn closed_embeddings() -> (LoopbackServer, watch::Sender<bool>) {
    let (open, opened) = watch::channel(false);
    let router = Router::new()
        .route(
            "/v1/embeddings",
            post(
                |State(mut opened): State<watch::Receiver<bool>>| async move {
                    let _ = opened.wait_for(|open| *open).await;
                    (StatusCode::SERVICE_UNAVAILABLE, "closed for the test")
                },
            ),
        )
        .with_state(opened);
    (LoopbackServer::start(router, 0).await.unwrap(), open)
}

/// Every key of every object in `value`, nested ones too.
fn keys(value: &Value, found: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (key, inner) in map {
                found.push(key.clone());
                keys(inner, found);
            }
        }
        Value::Array(items) => items.iter().for_each(|item| keys(item, found)),
        _ => {}
    }
}

fn assert_camel_case(value: &Value) {
    let mut found = Vec::new();
    keys(value, &mut found);
    let snake: Vec<&String> = found.iter().filter(|key| key.contains('_')).collect();
    assert!(snake.is_empty(), "snake_case keys {snake:?} in {value}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn import_json_streams_one_camel_case_object_per_file_then_a_summary() {
    let dir = tempfile::tempdir().unwrap();
    let folder = papers_folder(dir.path());
    let (embeddings, open) = closed_embeddings().await;
    let mut child = asterism(dir.path())
        .args([
            "library",
            "import",
            folder.to_str().unwrap(),
            "--offline",
            "--json",
        ])
        .env("EMBEDDINGS", "remote")
        .env("EMBEDDING_BASE_URL", format!("{}/v1", embeddings.url()))
        .env("EMBEDDING_MODEL", "held-embedding")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let read_line = move |mut stdout: BufReader<std::process::ChildStdout>| {
        tokio::task::spawn_blocking(move || {
            let mut line = String::new();
            stdout.read_line(&mut line).unwrap();
            (stdout, line)
        })
    };

    // Each file's line arrives while the process is still at work (it cannot finish
    // before the embedding endpoint opens).
    let mut files = Vec::new();
    for _ in 0..3 {
        let Ok(read) = tokio::time::timeout(Duration::from_secs(60), read_line(stdout)).await
        else {
            let _ = child.kill();
            panic!("no line within 60 s: files are not reported as they finish");
        };
        let (rest, line) = read.unwrap();
        stdout = rest;
        assert!(line.ends_with('\n'), "a whole line: {line:?}");
        assert!(
            child.try_wait().unwrap().is_none(),
            "the line came before the process exited: {line}"
        );
        files.push(serde_json::from_str::<Value>(&line).unwrap());
    }
    open.send(true).unwrap();
    let rest: Vec<Value> = tokio::task::spawn_blocking(move || {
        stdout
            .lines()
            .map(|line| serde_json::from_str(&line.unwrap()).unwrap())
            .collect()
    })
    .await
    .unwrap();
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(2), "a file failed: {output:?}");

    // One object per file, then where the embedding starts (nothing embedded yet), then
    // the summary, and nothing else (no embedding batch finished: the endpoint answered
    // 503).
    assert_eq!(rest.len(), 2, "{rest:?}");
    assert_eq!(rest[0]["kind"], "embedding");
    assert_eq!(rest[0]["done"], 0);
    assert!(
        rest[0]["total"].as_u64().is_some_and(|total| total > 20),
        "{rest:?}"
    );
    for event in files.iter().chain(&rest) {
        assert_camel_case(event);
    }
    let outcomes: Vec<&str> = files
        .iter()
        .map(|file| file["outcome"].as_str().unwrap())
        .collect();
    assert_eq!(outcomes, ["imported", "imported", "failed"]);
    for (n, file) in files.iter().enumerate() {
        assert_eq!(file["kind"], "file");
        assert_eq!(file["done"], n + 1);
        assert_eq!(file["total"], 3);
    }
    assert!(files[0]["path"].as_str().unwrap().ends_with("a-rudolf.pdf"));
    assert!(
        files[0]["paperId"]
            .as_str()
            .is_some_and(|id| !id.is_empty())
    );
    assert!(files[0]["chunks"].as_u64().unwrap() > 10);
    assert_eq!(files[0]["identified"], false, "offline");
    assert!(files[2]["paperId"].is_null());
    assert!(
        files[2]["message"]
            .as_str()
            .is_some_and(|why| !why.is_empty())
    );
    let summary = &rest[1];
    assert_eq!(summary["kind"], "finished");
    assert_eq!(summary["total"], 3);
    assert_eq!(summary["imported"], 2);
    assert_eq!(summary["failed"], 1);
    assert_eq!(summary["duplicates"], 0);
    assert!(
        summary["index"]["error"]
            .as_str()
            .is_some_and(|error| error.contains("503")),
        "{summary}"
    );
    assert!(summary["index"]["remaining"].as_i64().unwrap() > 20);
    // Nothing went to stderr twice: the failure is in its file's object only.
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("c-broken.pdf"), "{stderr}");

    // The other library commands' JSON speaks camelCase too.
    let paper_id = files[0]["paperId"].as_str().unwrap();
    for args in [
        vec!["library", "list", "--json"],
        vec!["library", "show", paper_id, "--json"],
        vec!["library", "search", "planet", "--json"],
        vec!["library", "notes", "--json"],
        vec!["library", "index", "--json"],
    ] {
        let output = asterism(dir.path()).args(&args).output().unwrap();
        assert!(output.status.success(), "{args:?}: {output:?}");
        let value: Value = serde_json::from_slice(&output.stdout).unwrap();
        assert_camel_case(&value);
    }

    // A reader sees each hit's snippet (its best sentences, not the passage's start)
    // on the snippet's page; JSON gives the marks as character offsets into it.
    let search = |json: bool| {
        let mut command = asterism(dir.path());
        command.args(["library", "search", "transit depth of the planet"]);
        if json {
            command.arg("--json");
        }
        command.output().unwrap()
    };
    let results: Value = serde_json::from_slice(&search(true).stdout).unwrap();
    let hit = &results["hits"][0];
    let snippet = hit["snippet"]["text"].as_str().unwrap();
    let chars: Vec<char> = snippet.chars().collect();
    let marked: Vec<String> = hit["snippet"]["marks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|mark| {
            let at = |i: usize| mark[i].as_u64().unwrap() as usize;
            chars[at(0)..at(1)]
                .iter()
                .collect::<String>()
                .to_lowercase()
        })
        .collect();
    assert!(
        !marked.is_empty()
            && marked.iter().all(|word| {
                ["transit", "depth", "planet"]
                    .iter()
                    .any(|term| word.starts_with(term))
            }),
        "{marked:?} in {snippet}"
    );
    assert_eq!(hit["page"], hit["snippet"]["page"]);
    // An empty query is refused, not answered with whatever lies nearest to nothing.
    for query in ["", "  \t "] {
        let output = asterism(dir.path())
            .args(["library", "search", query])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            !output.status.success() && output.stdout.is_empty(),
            "{output:?}"
        );
        assert!(stderr.contains("the query is empty"), "{stderr}");
    }
    let text = String::from_utf8_lossy(&search(false).stdout).to_string();
    let flat = snippet.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(text.contains(&format!("   {flat}\n")), "{text}");
    assert!(
        !text.contains("\x1b["),
        "no escapes when not on a terminal: {text}"
    );
}

/// Piped, embedding says how far it is: a line at each tenth, with the time left.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn embedding_without_a_terminal_prints_its_progress_with_an_eta() {
    let dir = tempfile::tempdir().unwrap();
    let folder = papers_folder(dir.path());
    let embeddings = asterism_testkit::MockLlm::start(asterism_testkit::Script::default())
        .await
        .unwrap();
    let home = dir.path().to_path_buf();
    let url = embeddings.base_url();
    let output = tokio::task::spawn_blocking(move || {
        asterism(&home)
            .args(["library", "import", "--offline", folder.to_str().unwrap()])
            .env("EMBEDDINGS", "remote")
            .env("EMBEDDING_BASE_URL", url)
            .output()
            .unwrap()
    })
    .await
    .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    let lines: Vec<&str> = stderr
        .lines()
        .filter(|line| line.starts_with("embedding: "))
        .collect();
    assert!(lines.len() >= 2, "{stderr}");
    let last = lines.last().unwrap();
    let total = last.split_whitespace().nth(3).unwrap();
    assert!(
        last.starts_with(&format!("embedding: {total} of {total} passages (")),
        "{stderr}"
    );
    assert!(last.ends_with(" s, ETA 0:00)"), "{stderr}");
    assert!(lines[0].contains(" ETA "), "{stderr}");
}

#[test]
fn import_without_a_terminal_prints_a_line_per_file_and_the_summary_on_stderr() {
    let dir = tempfile::tempdir().unwrap();
    let folder = papers_folder(dir.path());
    let import = |extra: &[&str]| {
        asterism(dir.path())
            .args(["library", "import", "--offline"])
            .args(extra)
            .arg(&folder)
            .output()
            .unwrap()
    };
    let first = import(&["--no-index"]);
    assert_eq!(first.status.code(), Some(2), "{first:?}");
    let again = import(&[]);
    assert_eq!(again.status.code(), Some(2), "{again:?}");
    for (output, outcome) in [(&first, "imported"), (&again, "duplicate")] {
        let stdout = String::from_utf8_lossy(&output.stdout);
        let lines: Vec<&str> = stdout.lines().collect();
        assert_eq!(lines.len(), 3, "{stdout}");
        assert!(
            lines[0].starts_with(&format!("[1/3] {outcome}")),
            "{stdout}"
        );
        assert!(
            lines[1].starts_with(&format!("[2/3] {outcome}")),
            "{stdout}"
        );
        assert!(lines[2].starts_with("[3/3] failed    "), "{stdout}");
        assert!(lines[2].contains("c-broken.pdf"), "{stdout}");
        assert!(lines[2].ends_with(" s, ETA 0:00)"), "{stdout}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!stderr.contains("c-broken.pdf"), "reported once: {stderr}");
    }
    let stderr = String::from_utf8_lossy(&first.stderr);
    assert!(
        stderr.contains("2 imported, 1 failed, 3 files in all"),
        "{stderr}"
    );
    let stderr = String::from_utf8_lossy(&again.stderr);
    assert!(
        stderr.contains("0 imported, 2 already in the library, 1 failed, 3 files in all"),
        "{stderr}"
    );
    assert!(
        stderr.contains("keywords only"),
        "EMBEDDINGS=none: {stderr}"
    );
}

#[test]
fn an_import_that_cannot_start_says_why_once_on_stderr() {
    let dir = tempfile::tempdir().unwrap();
    let folder = papers_folder(dir.path());
    // The data directory is a file: the library cannot be opened.
    std::fs::write(dir.path().join("data"), "not a folder").unwrap();
    for json in [false, true] {
        let mut command = asterism(dir.path());
        command
            .args(["library", "import", "--offline"])
            .arg(&folder);
        if json {
            command.arg("--json");
        }
        let output = command.output().unwrap();
        assert_eq!(output.status.code(), Some(1), "{output:?}");
        assert!(output.stdout.is_empty(), "{output:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(stderr.matches("error:").count(), 1, "{stderr}");
    }
}

/// A one-page paper as a journal sets it: a large title, the author with a marker,
/// the affiliation, the abstract.
fn forecast_trap_pdf() -> Vec<u8> {
    let body = asterism_testkit::pdf::text_page(&[
        "Carl Boettiger 1",
        "1 Department of Environmental Science, University of California, Berkeley",
        "Draft version May 3, 2021",
        "Abstract",
        "Encouraged by decision makers' appetite for future information, model-based forecasts",
        "have garnered increasing influence on a breadth of decisions in modern society.",
        "1. Introduction",
    ])
    .replace("72 720 Td", "72 680 Td");
    let title = "BT /F1 20 Tf 72 730 Td (The forecast trap) Tj ET ";
    asterism_testkit::pdf::build_pdf(&[format!("{title}{body}")], false)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn identify_finds_a_local_only_paper_on_crossref_and_prints_what_changed() {
    let dir = tempfile::tempdir().unwrap();
    let mut routes = asterism_testkit::crossref_routes();
    routes.extend(asterism_testkit::arxiv_routes());
    let server = asterism_testkit::FixtureServer::start(routes)
        .await
        .unwrap();
    let pdf = dir.path().join("trap.pdf");
    std::fs::write(&pdf, forecast_trap_pdf()).unwrap();
    let run = |args: &[&str]| {
        asterism(dir.path())
            .args(args)
            .env("ARXIV_API_URL", format!("{}/arxiv-api", server.url()))
            .env("CROSSREF_URL", format!("{}/crossref", server.url()))
            .env("ADS_API_URL", "http://127.0.0.1:9/ads")
            .output()
            .unwrap()
    };
    let import = run(&["library", "import", "--offline", pdf.to_str().unwrap()]);
    assert!(import.status.success(), "{import:?}");
    let listed = String::from_utf8_lossy(&run(&["library", "list"]).stdout).into_owned();
    assert!(
        listed.contains("Boettiger, Carl 2021: The forecast trap"),
        "{listed}"
    );

    let output = run(&["library", "identify"]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{output:?}");
    assert!(
        stdout.contains("identified") && stdout.contains("(by Crossref title and author search)"),
        "{stdout}"
    );
    assert!(stdout.contains("    year: 2021 → 2022"), "{stdout}");
    assert!(
        stdout.contains("    DOI: (none) → 10.1111/ele.14024"),
        "{stdout}"
    );
    assert!(String::from_utf8_lossy(&output.stderr).contains("1 of 1 identified"));
    // Nothing is local-only any more; the BibTeX is the published paper's.
    let again = run(&["library", "identify"]);
    assert!(String::from_utf8_lossy(&again.stdout).contains("none is known only from its PDF"));
    let bib = String::from_utf8_lossy(&run(&["library", "export-bib"]).stdout).into_owned();
    assert!(bib.starts_with("@article{boettiger2022forecast,"), "{bib}");
    assert!(
        bib.contains("journal = {Ecology Letters}") && !bib.contains("note ="),
        "{bib}"
    );
}

/// A one-page paper with this title and abstract.
fn paper_pdf(title: &str, abstract_lines: &[&str]) -> Vec<u8> {
    let mut lines = vec!["A. Astronomer 1", "1 Observatory, Somewhere", "Abstract"];
    lines.extend_from_slice(abstract_lines);
    lines.push("1. Introduction");
    let body = asterism_testkit::pdf::text_page(&lines).replace("72 720 Td", "72 680 Td");
    let title = format!("BT /F1 20 Tf 72 730 Td ({title}) Tj ET ");
    asterism_testkit::pdf::build_pdf(&[format!("{title}{body}")], false)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn objects_are_found_in_imported_papers_and_a_cone_search_finds_their_papers() {
    let dir = tempfile::tempdir().unwrap();
    let server = asterism_testkit::FixtureServer::start(asterism_testkit::sesame_routes())
        .await
        .unwrap();
    let folder = dir.path().join("pdfs");
    std::fs::create_dir_all(&folder).unwrap();
    let papers = [
        (
            "masers.pdf",
            "Water masers in NGC 4258",
            &["The maser disk of NGC 4258 gives a geometric distance."][..],
        ),
        (
            "companion.pdf",
            "The dwarf companion NGC 4248",
            &["NGC 4248 is 14 arcmin from its large neighbour."][..],
        ),
        (
            "jet.pdf",
            "The jet of M87 at high resolution",
            &["We image the jet of M 87 with the EHT."][..],
        ),
        (
            "field.pdf",
            "Galaxies around UGC 7356",
            &["UGC 7356 and its faint satellites."][..],
        ),
    ];
    for (file, title, abstract_lines) in papers {
        std::fs::write(folder.join(file), paper_pdf(title, abstract_lines)).unwrap();
    }
    // The agent's question: "what do my papers say about objects near NGC 4258?"
    let model = asterism_testkit::MockLlm::start(asterism_testkit::Script {
        turns: vec![
            asterism_testkit::Turn::calls(vec![asterism_testkit::ScriptedToolCall::new(
                "call_near",
                "search_library_by_object",
                serde_json::json!({"name": "NGC 4258", "radius_arcmin": 20}),
            )]),
            asterism_testkit::Turn::answer("Three of your papers are about that field."),
        ],
        ..asterism_testkit::Script::default()
    })
    .await
    .unwrap();
    let sesame = format!("{}/cgi-bin/nph-sesame", server.url());
    let home = dir.path().to_path_buf();
    let model_url = model.base_url();
    let run = move |args: &[&str]| {
        asterism(&home)
            .args(args)
            .env("SESAME_URL", &sesame)
            .env("LLM_BASE_URL", &model_url)
            .env("LLM_MODEL", "scripted-qwen")
            .output()
            .unwrap()
    };
    let (imported, objects, near, near_json, far, asked) = tokio::task::spawn_blocking(move || {
        let imported = run(&["library", "import", "--offline", folder.to_str().unwrap()]);
        let objects = run(&["library", "objects", "--json"]);
        let near = run(&["library", "near", "NGC 4258", "--radius", "30arcmin"]);
        let near_json = run(&[
            "library", "near", "NGC 4258", "--radius", "0.25deg", "--json",
        ]);
        let far = run(&[
            "library", "near", "NGC 4258", "--radius", "5arcmin", "--json",
        ]);
        let asked = run(&[
            "ask",
            "--json",
            "What do my papers say about objects near NGC 4258?",
        ]);
        (imported, objects, near, near_json, far, asked)
    })
    .await
    .unwrap();
    assert!(imported.status.success(), "{imported:?}");

    let objects: serde_json::Value = serde_json::from_slice(&objects.stdout).unwrap();
    let objects = objects["objects"].as_array().unwrap();
    let names: Vec<&str> = objects
        .iter()
        .map(|o| o["name"].as_str().unwrap())
        .collect();
    for name in ["NGC 4258", "NGC 4248", "M 87", "UGC 7356"] {
        assert!(names.contains(&name), "{name} in {names:?}");
    }
    let m87 = objects.iter().find(|o| o["name"] == "M 87").unwrap();
    assert!(
        (m87["raDeg"].as_f64().unwrap() - 187.7059).abs() < 1e-3,
        "{m87}"
    );
    assert_eq!(
        m87["papers"][0]["title"],
        "The jet of M87 at high resolution"
    );
    assert_eq!(m87["papers"][0]["foundIn"], "title");

    let text = String::from_utf8_lossy(&near.stdout);
    assert!(near.status.success(), "{near:?}");
    assert!(text.starts_with("within 30 arcmin of M 106"), "{text}");
    assert!(text.contains("Water masers in NGC 4258"), "{text}");
    assert!(text.contains("The dwarf companion NGC 4248"), "{text}");
    assert!(text.contains("Galaxies around UGC 7356"), "{text}");
    assert!(!text.contains("M87"), "M 87 is 35 degrees away: {text}");

    let near: serde_json::Value = serde_json::from_slice(&near_json.stdout).unwrap();
    let found: Vec<(&str, f64)> = near["objects"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| {
            (
                o["name"].as_str().unwrap(),
                o["separationArcmin"].as_f64().unwrap(),
            )
        })
        .collect();
    assert_eq!(found.len(), 3, "{found:?}");
    assert_eq!(found[0].0, "NGC 4258");
    assert!(
        found[0].1 < 0.1 && (found[2].1 - 14.4).abs() < 0.3,
        "{found:?}"
    );
    let far: serde_json::Value = serde_json::from_slice(&far.stdout).unwrap();
    assert_eq!(
        far["objects"].as_array().unwrap().len(),
        1,
        "only NGC 4258 within 5′"
    );

    let result = String::from_utf8_lossy(&asked.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .find(|event| event["type"] == "ToolResult")
        .unwrap_or_else(|| panic!("no tool result: {asked:?}"));
    assert_eq!(result["isError"], false, "{result}");
    let output = result["output"].as_str().unwrap();
    assert!(
        output.starts_with("NGC 4258 (M 106) resolves to RA 184.74"),
        "{output}"
    );
    assert!(output.contains("\"Water masers in NGC 4258\""), "{output}");
    assert!(
        output.contains("\"The dwarf companion NGC 4248\""),
        "{output}"
    );
    assert!(!output.contains("M87"), "{output}");
}

#[test]
fn offline_identify_says_why_in_one_line_stores_it_and_stops_asking_after_the_first_paper() {
    let dir = tempfile::tempdir().unwrap();
    let folder = papers_folder(dir.path());
    std::fs::remove_file(folder.join("c-broken.pdf")).unwrap();
    // Nothing listens on port 9: every service is unreachable, at once.
    let run = |args: &[&str]| {
        asterism(dir.path())
            .args(args)
            .env("ARXIV_API_URL", "http://127.0.0.1:9/arxiv")
            .env("CROSSREF_URL", "http://127.0.0.1:9/crossref")
            .env("ADS_API_URL", "http://127.0.0.1:9/ads")
            .env("ADS_API_TOKEN", "test-token-0123456789")
            .output()
            .unwrap()
    };
    let import = run(&[
        "library",
        "import",
        "--offline",
        "--no-index",
        folder.to_str().unwrap(),
    ]);
    assert!(import.status.success(), "{import:?}");
    let shown = run(&["library", "show", "a-rudolf.pdf"]);
    assert!(
        String::from_utf8_lossy(&shown.stdout)
            .contains("not identified: not looked up (imported with --offline)"),
        "{shown:?}"
    );

    let identify = run(&["library", "identify"]);
    assert!(identify.status.success(), "{identify:?}");
    let stdout = String::from_utf8_lossy(&identify.stdout);
    let reasons: Vec<&str> = stdout
        .lines()
        .filter(|line| line.trim_start().starts_with("not identified: "))
        .collect();
    assert_eq!(reasons.len(), 2, "one line per paper: {stdout}");
    for reason in &reasons {
        assert_eq!(
            reason.trim(),
            "not identified: offline (ADS and arXiv unreachable)",
            "{stdout}"
        );
    }
    assert!(
        !stdout.contains("error sending request"),
        "no raw error chains: {stdout}"
    );

    let json = run(&["library", "identify", "--json"]);
    let outcomes: Value = serde_json::from_slice(&json.stdout).unwrap();
    let outcomes = outcomes.as_array().unwrap();
    assert!(
        !outcomes[0]["notes"].as_array().unwrap().is_empty(),
        "{outcomes:#?}"
    );
    assert!(
        outcomes[1]["notes"].as_array().unwrap().is_empty(),
        "the network was known down: the second paper was not looked up: {outcomes:#?}"
    );
    let shown = run(&["library", "show", "a-rudolf.pdf"]);
    assert!(
        String::from_utf8_lossy(&shown.stdout)
            .contains("not identified: offline (ADS and arXiv unreachable)"),
        "stored: {shown:?}"
    );
}

/// A page of `lines` lines of made-up words (seeded), under `title`.
fn long_paper(title: &str, seed: u64) -> Vec<u8> {
    let mut state = seed;
    let lines: Vec<String> = (0..60)
        .map(|_| {
            (0..7)
                .map(|_| {
                    state = state
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    format!("word{}", state >> 56)
                })
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
    let body = asterism_testkit::pdf::text_page(&lines).replace("72 720 Td", "72 680 Td");
    let title = format!("BT /F1 20 Tf 72 730 Td ({title}) Tj ET ");
    asterism_testkit::pdf::build_pdf(&[format!("{title}{body}")], false)
}

#[test]
fn a_resaved_copy_is_the_same_paper_by_its_text_and_a_namesake_is_not() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("in");
    std::fs::create_dir_all(&folder).unwrap();
    let original = std::fs::read(fixture_path("pdfs/rudolf_ms.pdf")).unwrap();
    std::fs::write(folder.join("a-rudolf.pdf"), &original).unwrap();
    // Re-saved: other bytes (an appended update section), the same text.
    let mut resaved = original.clone();
    resaved.extend_from_slice(b"\n% saved again by a viewer\n");
    std::fs::write(folder.join("b-rudolf-resaved.pdf"), &resaved).unwrap();
    // Two different papers with the same title.
    std::fs::write(
        folder.join("c-dust.pdf"),
        long_paper("Dust in the Kepler Field", 1),
    )
    .unwrap();
    std::fs::write(
        folder.join("d-dust.pdf"),
        long_paper("Dust in the Kepler Field", 2),
    )
    .unwrap();
    let output = asterism(dir.path())
        .args(["library", "import", "--offline", "--no-index"])
        .arg(&folder)
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let resaved_line = stdout
        .lines()
        .find(|line| line.contains("b-rudolf-resaved.pdf"))
        .unwrap();
    assert!(resaved_line.contains("same paper as"), "{stdout}");
    assert!(resaved_line.contains("(text matches)"), "{stdout}");
    let list = asterism(dir.path())
        .args(["library", "list", "--json"])
        .output()
        .unwrap();
    let papers: Vec<Value> = serde_json::from_slice(&list.stdout).unwrap();
    assert_eq!(papers.len(), 3, "{papers:#?}");
    let rudolf = papers
        .iter()
        .find(|paper| paper["title"].as_str().unwrap().contains("Mini-Neptune"))
        .unwrap();
    assert_eq!(rudolf["files"].as_array().unwrap().len(), 2, "{rudolf:#}");
    let dust = papers
        .iter()
        .filter(|paper| paper["title"] == "Dust in the Kepler Field")
        .count();
    assert_eq!(dust, 2, "a namesake is never merged: {papers:#?}");
}
