//! `asterism library ads list|pull|push` against the biblib fake of the fixture server
//! (ADS's wire format as its API notebooks record it), with the user's libraries and a
//! collaborator changing them between pulls.

use std::path::Path;
use std::process::Output;

use asterism_testkit::{FixtureServer, all_routes};
use serde_json::{Value, json};

use super::common::offline_with;

const LADDER: &str = "hHGU1Ef-TpacAhicI3J8kQ";

fn asterism(home: &Path, server: &FixtureServer, token: &str, args: &[&str]) -> Output {
    let ads = format!("{}/ads", server.url());
    let arxiv_api = format!("{}/arxiv-api", server.url());
    let arxiv = format!("{}/arxiv", server.url());
    let variables = [
        ("ADS_API_URL", ads.as_str()),
        ("ADS_API_TOKEN", token),
        ("ARXIV_API_URL", arxiv_api.as_str()),
        ("ARXIV_URL", arxiv.as_str()),
    ];
    offline_with(home, args, &variables)
}

fn json_of(output: &Output) -> Value {
    assert!(output.status.success(), "{output:?}");
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| panic!("{e}: {output:?}"))
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// The bibcodes of a collection's papers, sorted.
fn members(home: &Path, server: &FixtureServer, collection: &str) -> Vec<String> {
    let list = asterism(
        home,
        server,
        "t",
        &["library", "list", "--collection", collection, "--json"],
    );
    let mut bibcodes: Vec<String> = json_of(&list)
        .as_array()
        .unwrap()
        .iter()
        .map(|paper| paper["bibcode"].as_str().unwrap_or("-").to_string())
        .collect();
    bibcodes.sort();
    bibcodes
}

fn library_requests(server: &FixtureServer, id: &str) -> usize {
    let path = format!("/biblib/libraries/{id}");
    server
        .requests()
        .iter()
        .filter(|r| r.contains(&path))
        .count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_library_is_pulled_then_only_its_changes_and_a_collection_is_pushed_back() {
    let server = FixtureServer::start(all_routes()).await.unwrap();
    let home = tempfile::tempdir().unwrap();
    let home = home.path();
    let run = |args: &[&str]| asterism(home, &server, "t", args);

    // The user's libraries and the one shared with them; not someone else's private one.
    let libraries = json_of(&run(&["library", "ads", "list", "--json"]));
    let names: Vec<&str> = libraries
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["Distance ladder", "Group reading"]);
    assert_eq!(libraries[0]["numDocuments"], 8);
    assert_eq!(libraries[1]["permission"], "read");

    // First pull: 8 papers, metadata from ADS's search, the arXiv bibcode followed to
    // the published one, the library read page by page (5 per page here).
    let pulled = json_of(&run(&[
        "library",
        "ads",
        "pull",
        "Distance ladder",
        "--json",
    ]));
    assert_eq!(pulled["created"], 8, "{pulled:#}");
    assert_eq!(pulled["joined"], 8);
    assert_eq!(
        pulled["replaced"],
        json!([["2012arXiv1202.3665F", "2013PASP..125..306F"]])
    );
    assert_eq!(library_requests(&server, LADDER), 2, "two pages of 5");
    let ladder = members(home, &server, "Distance ladder");
    assert_eq!(ladder.len(), 8);
    assert!(ladder.contains(&"2013PASP..125..306F".to_string()));
    assert!(!ladder.contains(&"2012arXiv1202.3665F".to_string()));
    let shown = json_of(&run(&["library", "show", "2013PASP..125..306F", "--json"]));
    assert!(
        shown.to_string().contains("emcee"),
        "metadata from ADS: {shown}"
    );

    // Again, unchanged: ADS is asked for its list of libraries only.
    let again = json_of(&run(&["library", "ads", "pull", LADDER, "--json"]));
    assert_eq!(again["unchanged"], true);
    assert_eq!(library_requests(&server, LADDER), 2);

    // A collaborator removes one paper and adds another.
    server.biblib(|ads| {
        let library = ads.library_mut(LADDER).unwrap();
        library.documents.retain(|b| b != "1995Geo....23..967E");
        library.documents.push("1974JPal...48..524M".into());
        ads.touch(LADDER);
    });
    let changed = json_of(&run(&[
        "library",
        "ads",
        "pull",
        "distance LADDER",
        "--json",
    ]));
    assert_eq!(
        changed["left"],
        json!(["1995Geo....23..967E"]),
        "{changed:#}"
    );
    assert_eq!(
        (changed["created"].clone(), changed["joined"].clone()),
        (json!(1), json!(1))
    );
    let ladder = members(home, &server, "Distance ladder");
    assert!(ladder.contains(&"1974JPal...48..524M".to_string()));
    assert!(!ladder.contains(&"1995Geo....23..967E".to_string()));
    let kept = run(&["library", "show", "1995Geo....23..967E", "--json"]);
    assert!(
        kept.status.success(),
        "it left the collection, not the library: {kept:?}"
    );

    // ADS's search fails mid-pull: the collection stays exactly as it was.
    server.biblib(|ads| {
        ads.library_mut(LADDER)
            .unwrap()
            .documents
            .push("1966Natur.211..116M".into());
        ads.touch(LADDER);
        ads.fail_search = true;
    });
    let cut = run(&["library", "ads", "pull", LADDER]);
    assert!(!cut.status.success());
    assert!(stderr(&cut).contains("503"), "{}", stderr(&cut));
    assert_eq!(members(home, &server, "Distance ladder"), ladder);
    server.biblib(|ads| ads.fail_search = false);

    // Renamed on ADS: the collection follows, in the same pull that completes it.
    server.biblib(|ads| {
        ads.library_mut(LADDER).unwrap().metadata["name"] = json!("TRGB ladder");
        ads.touch(LADDER);
    });
    let renamed = run(&["library", "ads", "pull", LADDER]);
    assert!(renamed.status.success(), "{renamed:?}");
    let said = String::from_utf8_lossy(&renamed.stdout);
    assert!(
        said.contains("collection \"Distance ladder\" is now \"TRGB ladder\""),
        "{said}"
    );
    assert_eq!(members(home, &server, "TRGB ladder").len(), 9);
    assert!(members(home, &server, "Distance ladder").is_empty());

    // Push: refused for a library the user may only read.
    let read_only = run(&[
        "library",
        "ads",
        "push",
        "TRGB ladder",
        "--to",
        "Group reading",
    ]);
    assert!(!read_only.status.success());
    assert!(stderr(&read_only).contains("you may only read the ADS library \"Group reading\""));
    // A new library needs --create; a paper without a bibcode is listed as skipped.
    let bib = home.join("draft.bib");
    std::fs::write(
        &bib,
        "@misc{draft, title = {Our draft}, author = {Me, A.}}\n",
    )
    .unwrap();
    let imported = run(&[
        "library",
        "import",
        bib.to_str().unwrap(),
        "--collection",
        "TRGB ladder",
        "--offline",
    ]);
    assert!(imported.status.success(), "{imported:?}");
    let refused = run(&["library", "ads", "push", "TRGB ladder", "--to", "Mine"]);
    assert!(
        stderr(&refused).contains("add --create"),
        "{}",
        stderr(&refused)
    );
    let pushed = json_of(&run(&[
        "library",
        "ads",
        "push",
        "TRGB ladder",
        "--to",
        "Mine",
        "--create",
        "--json",
    ]));
    assert_eq!(
        (pushed["created"].clone(), pushed["added"].clone()),
        (json!(true), json!(9))
    );
    assert_eq!(pushed["skipped"][0][1], "Our draft");
    let mine = pushed["libraryId"].as_str().unwrap().to_string();
    let mut there = server.biblib(|ads| ads.library_mut(&mine).unwrap().documents.clone());
    there.sort();
    let mut ours = members(home, &server, "TRGB ladder");
    ours.retain(|b| b != "-");
    assert_eq!(there, ours);

    // Pushed again: nothing to add; with --remove-missing what a collaborator added goes.
    server.biblib(|ads| {
        ads.library_mut(&mine)
            .unwrap()
            .documents
            .push("2011IAUS..280P.295P".into())
    });
    let second = json_of(&run(&[
        "library",
        "ads",
        "push",
        "TRGB ladder",
        "--to",
        &mine,
        "--remove-missing",
        "--json",
    ]));
    assert_eq!(
        (
            second["added"].clone(),
            second["already"].clone(),
            second["removed"].clone()
        ),
        (json!(0), json!(9), json!(1))
    );

    // The round trip: the pushed library pulled into a new data folder holds the same.
    let elsewhere = tempfile::tempdir().unwrap();
    let fresh = json_of(&asterism(
        elsewhere.path(),
        &server,
        "t",
        &["library", "ads", "pull", "Mine", "--json"],
    ));
    assert_eq!(fresh["created"], 9);
    assert_eq!(members(elsewhere.path(), &server, "Mine"), ours);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ads_errors_are_clear_and_change_nothing() {
    let server = FixtureServer::start(all_routes()).await.unwrap();
    let home = tempfile::tempdir().unwrap();
    let home = home.path();
    let fails = |token: &str, args: &[&str], says: &str| {
        let output = asterism(home, &server, token, args);
        assert!(!output.status.success(), "{args:?}: {output:?}");
        assert!(
            stderr(&output).contains(says),
            "{args:?}: {}",
            stderr(&output)
        );
    };
    fails("", &["library", "ads", "list"], "ADS_API_TOKEN");
    fails(
        "expired",
        &["library", "ads", "list"],
        "ADS rejected the token (HTTP 401)",
    );
    fails(
        "exhausted",
        &["library", "ads", "pull", LADDER],
        "resets at 2023-11-14T22:13:20Z",
    );
    fails(
        "t",
        &["library", "ads", "pull", "Cepheids"],
        "no ADS library named \"Cepheids\"; yours: Distance ladder, Group reading",
    );
    fails(
        "t",
        &["library", "ads", "pull", "iRZhyhvaSWe0uWwcXKt77w"],
        "ADS refused access to the library iRZhyhvaSWe0uWwcXKt77w",
    );
    fails(
        "t",
        &["library", "ads", "pull", "ZZZZZZZZZZZZZZZZZZZZZZ"],
        "ADS has no library ZZZZZZZZZZZZZZZZZZZZZZ",
    );
    fails(
        "t",
        &["library", "ads", "push", "Nowhere", "--to", "Mine"],
        "no collection named \"Nowhere\"",
    );
    let list = asterism(home, &server, "t", &["library", "list", "--json"]);
    assert_eq!(json_of(&list), json!([]), "nothing was stored");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pull_with_download_fetches_what_can_be_had_and_keeps_the_rest() {
    let server = FixtureServer::start(all_routes()).await.unwrap();
    let home = tempfile::tempdir().unwrap();
    let pulled = json_of(&asterism(
        home.path(),
        &server,
        "t",
        &[
            "library",
            "ads",
            "pull",
            "Distance ladder",
            "--download",
            "--json",
        ],
    ));
    let downloads = pulled["downloads"].as_array().unwrap();
    assert_eq!(downloads.len(), 8, "{pulled:#}");
    let emcee = downloads
        .iter()
        .find(|d| d["bibcode"] == "2013PASP..125..306F")
        .unwrap();
    assert_eq!(
        emcee["error"],
        Value::Null,
        "emcee's PDF is on (the fixture) arXiv"
    );
    assert!(downloads.iter().filter(|d| d["error"].is_string()).count() == 7);
    let list = json_of(&asterism(
        home.path(),
        &server,
        "t",
        &["library", "list", "--json"],
    ));
    let with_pdf: Vec<&Value> = list
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| !p["files"].as_array().unwrap().is_empty())
        .collect();
    assert_eq!(with_pdf.len(), 1);
    assert_eq!(
        list.as_array().unwrap().len(),
        8,
        "the others stay, metadata-only"
    );
}
