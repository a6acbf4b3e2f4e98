//! `asterism papers …` as a binary against the recorded ADS/arXiv answers.

use std::process::Output;

use asterism_testkit::{FixtureServer, all_routes, fixture_path};
use serde_json::Value;

use super::common::offline_with;

fn papers(dir: &std::path::Path, server: &FixtureServer, args: &[&str]) -> Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_asterism"))
        .arg("papers")
        .args(args)
        .current_dir(dir)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", dir)
        .env("ASTERISM_DATA_DIR", dir.join("data"))
        .env("ADS_API_URL", format!("{}/ads", server.url()))
        .env("ADS_API_TOKEN", "test-token")
        .env("ARXIV_API_URL", format!("{}/arxiv-api", server.url()))
        .env("ARXIV_URL", format!("{}/arxiv", server.url()))
        .output()
        .unwrap()
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn download_parse_content_and_bibtex_from_the_terminal() {
    let server = FixtureServer::start(all_routes()).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| papers(dir.path(), &server, args);

    let download = run(&["download", "2013PASP..125..306F", "--json"]);
    assert!(download.status.success(), "{download:?}");
    let done: Value = serde_json::from_slice(&download.stdout).unwrap();
    assert_eq!(done["source"], "arxiv");
    assert_eq!(done["alreadyPresent"], false);

    let parse = run(&["parse", "1202.3665"]);
    assert!(parse.status.success(), "{parse:?}");
    assert!(stdout(&parse).contains("2.1 DL3: events and instrument response functions  (p. 3)"));

    let content = run(&["content", "2013PASP..125..306F", "--pages", "2-3"]);
    assert!(content.status.success(), "{content:?}");
    let text = stdout(&content);
    assert!(text.starts_with("<!-- page 2 -->"), "{text}");
    assert!(!text.contains("<!-- page 4 -->"));
    let missing = run(&["content", "1202.3665", "--section", "Discussion"]);
    assert!(!missing.status.success());
    assert!(String::from_utf8_lossy(&missing.stderr).contains("the sections are:"));

    let bibtex = run(&["bibtex", "1202.3665"]);
    assert!(bibtex.status.success(), "{bibtex:?}");
    assert!(stdout(&bibtex).starts_with("@article{foremanmackey2013emcee,"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_local_file_parses_to_stdout_or_a_file_and_bad_files_fail() {
    let server = FixtureServer::start(vec![]).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let pdf = fixture_path("pdfs/rudolf_ms.pdf");
    let output = papers(dir.path(), &server, &["parse", pdf.to_str().unwrap()]);
    assert!(output.status.success(), "{output:?}");
    let markdown = stdout(&output);
    assert!(markdown.starts_with("<!-- page 1 -->"));
    assert!(markdown.contains("## 1 INTRODUCTION"));

    let out = dir.path().join("rudolf.md");
    let output = papers(
        dir.path(),
        &server,
        &[
            "parse",
            pdf.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--json",
        ],
    );
    assert!(output.status.success(), "{output:?}");
    let summary: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(summary["pages"], 11);
    assert_eq!(std::fs::read_to_string(&out).unwrap(), markdown);
    // No database was made for a local parse.
    assert!(!dir.path().join("data").exists());

    let empty = dir.path().join("empty.pdf");
    std::fs::write(&empty, b"").unwrap();
    let output = papers(dir.path(), &server, &["parse", empty.to_str().unwrap()]);
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("error: the file is empty"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn memories_are_listed_and_deleted() {
    let server = FixtureServer::start(vec![]).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let store = asterism_store::Store::open_in_dir(&dir.path().join("data"))
        .await
        .unwrap();
    let id = store
        .add_memory(
            "Prefers distances in Mpc with 1σ errors.",
            "preference",
            None,
        )
        .await
        .unwrap();
    store.close().await;
    let memories = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_asterism"))
            .arg("memories")
            .args(args)
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("HOME", dir.path())
            .env("ASTERISM_DATA_DIR", dir.path().join("data"))
            .env("SESAME_URL", server.url())
            .output()
            .unwrap()
    };
    let listed = memories(&["list", "--json"]);
    assert!(listed.status.success(), "{listed:?}");
    let rows: Value = serde_json::from_slice(&listed.stdout).unwrap();
    assert_eq!(
        rows[0]["content"],
        "Prefers distances in Mpc with 1σ errors."
    );
    assert!(memories(&["delete", &id.to_string()]).status.success());
    assert!(!memories(&["delete", &id.to_string()]).status.success());
    assert!(stdout(&memories(&["list"])).contains("no memories yet"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn citations_and_references_come_from_ads_with_library_marks() {
    let server = FixtureServer::start(all_routes()).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| papers(dir.path(), &server, args);

    // The recorded answer: 27 references, the first page of 10 (bibcodes only).
    let references = run(&["references", "1998ApJ...509..678G", "--json"]);
    assert!(references.status.success(), "{references:?}");
    let references: Value = serde_json::from_slice(&references.stdout).unwrap();
    assert_eq!(references["bibcode"], "1998ApJ...509..678G");
    assert_eq!(references["link"], "references");
    assert_eq!(references["numFound"], 27);
    let bibcodes: Vec<&str> = references["papers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|paper| paper["bibcode"].as_str().unwrap())
        .collect();
    assert_eq!(bibcodes.len(), 10, "a page repeated is not counted twice");
    assert_eq!(bibcodes[0], "1987gady.book.....B");

    // One citing paper is in the library already: it is marked so.
    let citations = run(&["citations", "1998ApJ...509..678G", "--json"]);
    let citations: Value = serde_json::from_slice(&citations.stdout).unwrap();
    let first = citations["papers"][0].clone();
    let bibcode = first["bibcode"].as_str().unwrap().to_string();
    let csl = dir.path().join("mine.json");
    std::fs::write(
        &csl,
        serde_json::json!([{
            "id": "mine", "type": "article-journal", "title": first["title"],
            "URL": format!("https://ui.adsabs.harvard.edu/abs/{bibcode}/abstract")
        }])
        .to_string(),
    )
    .unwrap();
    let imported = std::process::Command::new(env!("CARGO_BIN_EXE_asterism"))
        .args(["library", "import", "--offline", "--no-index"])
        .arg(&csl)
        .env("ASTERISM_DATA_DIR", dir.path().join("data"))
        .env("HOME", dir.path())
        .env("EMBEDDINGS", "none")
        .output()
        .unwrap();
    assert!(imported.status.success(), "{imported:?}");
    let listed = run(&["citations", "1998ApJ...509..678G", "--limit", "3"]);
    assert!(listed.status.success(), "{listed:?}");
    let text = stdout(&listed);
    assert!(text.starts_with(" 1. "), "{text}");
    assert!(!text.contains(" 4. "), "--limit 3: {text}");
    let first_entry = text.split("\n 2. ").next().unwrap();
    assert!(first_entry.contains("[library]"), "{text}");
    let said = String::from_utf8_lossy(&listed.stderr);
    assert!(
        said.contains("3 shown, 1 of them in your library"),
        "{said}"
    );

    // Without a token there is nothing to ask: a clear error.
    let no_token = std::process::Command::new(env!("CARGO_BIN_EXE_asterism"))
        .args(["papers", "citations", "1998ApJ...509..678G"])
        .env_clear()
        .env("ASTERISM_DATA_DIR", dir.path().join("data"))
        .env("HOME", dir.path())
        .env("ADS_API_URL", format!("{}/ads", server.url()))
        .output()
        .unwrap();
    assert_eq!(no_token.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&no_token.stderr).contains("ADS_API_TOKEN"));
}

/// A collection of three papers known by their ADS pages (imported from a `.bib`,
/// offline); ADS on loopback answers the references of 1998ApJ...509..678G as recorded
/// and the 10-document search for the others.
const COLLECTION_BIB: &str = r"
@article{a, title = {A paper ADS answers with the ten-document search},
  author = {Author, A.}, year = {2000},
  adsurl = {https://ui.adsabs.harvard.edu/abs/2000ApJ...530..101A/abstract}}
@article{c, title = {The history and source of mass-transfer variations in AM Herculis},
  author = {Hessman, F. V.}, year = {2000},
  adsurl = {https://ui.adsabs.harvard.edu/abs/2000A%26A...361..952H/abstract}}
@article{b, title = {The paper whose references were recorded},
  author = {Gelb, J.}, year = {1998},
  adsurl = {https://ui.adsabs.harvard.edu/abs/1998ApJ...509..678G/abstract}}
";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_collection_learns_what_it_lacks_most_linked_first() {
    let server = FixtureServer::start(all_routes()).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let bib = dir.path().join("refs.bib");
    std::fs::write(&bib, COLLECTION_BIB).unwrap();
    let ads = format!("{}/ads", server.url());
    let library = |args: &[&str]| {
        let all = [&["library"], args].concat();
        let variables = [
            ("ADS_API_URL", ads.as_str()),
            ("ADS_API_TOKEN", "test-token"),
        ];
        offline_with(dir.path(), &all, &variables)
    };
    let import = library(&[
        "import",
        bib.to_str().unwrap(),
        "--offline",
        "--collection",
        "Disks",
    ]);
    assert!(import.status.success(), "{import:?}");

    let output = library(&[
        "missing",
        "--collection",
        "Disks",
        "--links",
        "references",
        "--json",
    ]);
    assert!(output.status.success(), "{output:?}");
    let found: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(found["asked"], 3);
    let papers = found["papers"].as_array().unwrap();
    let bibcodes: Vec<&str> = papers
        .iter()
        .map(|p| p["bibcode"].as_str().unwrap())
        .collect();
    // Cited by two of its papers: the nine search documents other than a member.
    assert_eq!(papers.len(), 19, "{bibcodes:?}");
    assert!(
        !bibcodes.contains(&"2000A&A...361..952H"),
        "a member is never missing"
    );
    for paper in &papers[..9] {
        assert_eq!(
            paper["linkedFrom"].as_array().unwrap().len(),
            2,
            "{paper:#}"
        );
        assert_eq!(paper["citedByMembers"], 2);
    }
    assert!(
        bibcodes[9..].contains(&"1987gady.book.....B"),
        "{bibcodes:?}"
    );
    assert_eq!(
        papers[9]["linkedFrom"][0],
        "The paper whose references were recorded"
    );

    // Asked again the same day, with ADS gone: its answers were kept.
    drop(server);
    let again = library(&[
        "missing",
        "--collection",
        "Disks",
        "--links",
        "references",
        "--json",
    ]);
    assert!(again.status.success(), "{again:?}");
    let again: Value = serde_json::from_slice(&again.stdout).unwrap();
    assert_eq!(again["papers"], found["papers"]);
    assert_eq!(again["failed"], serde_json::json!([]));
    // Citations were never asked: that fails, and says so, without losing the rest.
    let both = library(&["missing", "--collection", "Disks", "--json"]);
    let both: Value = serde_json::from_slice(&both.stdout).unwrap();
    assert_eq!(both["failed"].as_array().unwrap().len(), 3, "{both:#}");
    assert_eq!(both["papers"].as_array().unwrap().len(), 19);

    let unknown = library(&["missing", "--collection", "Nope"]);
    assert_eq!(unknown.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&unknown.stderr).contains("no collection is named"));
}
