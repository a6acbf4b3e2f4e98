//! `asterism news` against arXiv on loopback: ranked for the library, cached per day,
//! and offline.

use std::path::Path;
use std::process::Output;

use asterism_testkit::{FixtureServer, all_routes, fixture_path};
use serde_json::Value;

use super::common::offline_with;

fn asterism(home: &Path, arxiv: &str, args: &[&str]) -> Output {
    offline_with(home, args, &[("ARXIV_API_URL", arxiv)])
}

fn json(output: &Output) -> Value {
    assert!(output.status.success(), "{output:?}");
    serde_json::from_slice(&output.stdout).unwrap()
}

fn ids(news: &Value) -> Vec<&str> {
    news["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|item| item["arxivId"].as_str().unwrap())
        .collect()
}

fn reasons<'a>(news: &'a Value, id: &str) -> &'a Vec<Value> {
    let item = news["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|item| item["arxivId"] == id)
        .unwrap();
    item["reasons"].as_array().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_days_submissions_rank_by_the_library_and_come_from_the_cache_offline() {
    let server = FixtureServer::start(all_routes()).await.unwrap();
    let arxiv = format!("{}/arxiv-api", server.url());
    let home = tempfile::tempdir().unwrap();
    let home = home.path();
    let run = |args: &[&str]| asterism(home, &arxiv, args);
    // The library: the Kepler-1627 mini-Neptune paper and the celerite paper.
    for pdf in ["pdfs/rudolf_ms.pdf", "pdfs/celerite_ms.pdf"] {
        let path = fixture_path(pdf);
        let import = run(&["library", "import", path.to_str().unwrap(), "--offline"]);
        assert!(import.status.success(), "{import:?}");
    }
    let library = json(&run(&["library", "list", "--json"]));
    let rudolf = library
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["title"].as_str().unwrap().contains("Mini-Neptune"))
        .unwrap()["id"]
        .clone();

    let news = json(&run(&["news", "--author", "Foreman-Mackey", "--json"]));
    assert_eq!(news["fromCache"], false);
    assert_eq!(news["submissions"], 5);
    assert_eq!(news["comparedBy"], "shared words");
    let order = ids(&news);
    assert_eq!(
        order[0], "2612.01234",
        "the Kepler-1627 paper first: {news:#}"
    );
    assert_eq!(
        order[1], "2612.01377",
        "then the followed author's: {news:#}"
    );
    let first = reasons(&news, "2612.01234");
    assert!(
        first
            .iter()
            .any(|r| r["kind"] == "topic" && r["papers"][0]["id"] == rudolf),
        "{first:?}"
    );
    assert!(
        first
            .iter()
            .any(|r| r["kind"] == "object" && r["libraryObject"] == "Kepler-1627"),
        "{first:?}"
    );
    let followed = reasons(&news, "2612.01377");
    assert!(
        followed
            .iter()
            .any(|r| r["kind"] == "author" && r["followed"] == true)
    );
    for unrelated in ["2612.01301", "2612.01402", "2612.01455"] {
        assert_eq!(
            reasons(&news, unrelated),
            &Vec::<Value>::new(),
            "{unrelated}"
        );
    }
    let text = run(&["news", "--author", "Foreman-Mackey"]);
    let shown = String::from_utf8_lossy(&text.stdout);
    assert!(
        shown.contains("names Kepler-1627 (in your library)"),
        "{shown}"
    );
    assert!(
        shown.contains("by Daniel Foreman-Mackey (you follow)"),
        "{shown}"
    );

    // The same day again, arXiv gone: the cached list, asked of nobody.
    drop(server);
    let again = json(&run(&["news", "--author", "Foreman-Mackey", "--json"]));
    assert_eq!(again["fromCache"], true);
    assert_eq!(again["notice"], Value::Null);
    assert_eq!(ids(&again), order);

    // Asked to refresh while offline: the cached list, saying why.
    let refreshed = json(&run(&["news", "--refresh", "--json"]));
    assert_eq!(refreshed["fromCache"], true);
    let notice = refreshed["notice"].as_str().unwrap();
    assert!(notice.contains("cannot reach arXiv"), "{notice}");

    // Another selection of categories was never fetched: a clear failure.
    let never = run(&["news", "--categories", "gr-qc"]);
    assert_eq!(never.status.code(), Some(1));
    let error = String::from_utf8_lossy(&never.stderr);
    assert!(
        error.contains("cannot reach arXiv") && error.contains("no earlier list"),
        "{error}"
    );
    let bad = run(&["news", "--categories", "astro-ph) OR (all:x"]);
    assert!(String::from_utf8_lossy(&bad.stderr).contains("not an arXiv category"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_categories_set_the_librarys_own_are_listed() {
    let server = FixtureServer::start(all_routes()).await.unwrap();
    let arxiv = format!("{}/arxiv-api", server.url());
    let home = tempfile::tempdir().unwrap();
    let home = home.path();
    let bib = home.join("refs.bib");
    // arXiv answers 1111.2011 (recorded) with primary category cond-mat.str-el.
    std::fs::write(
        &bib,
        "@article{k, title = {Spin liquids}, author = {Doe, J.}, year = {2011},\n  eprint = {1111.2011}, archivePrefix = {arXiv}}\n",
    )
    .unwrap();
    let import = asterism(
        home,
        &arxiv,
        &["library", "import", bib.to_str().unwrap(), "--offline"],
    );
    assert!(import.status.success(), "{import:?}");
    let news = json(&asterism(home, &arxiv, &["news", "--json"]));
    assert_eq!(news["categories"], serde_json::json!(["cond-mat.str-el"]));
    // Kept: offline, the same categories (and today's list from the cache).
    drop(server);
    let again = json(&asterism(home, &arxiv, &["news", "--json"]));
    assert_eq!(again["categories"], news["categories"]);
    assert_eq!(again["fromCache"], true);
}
