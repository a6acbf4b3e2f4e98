use std::time::Duration;

use asterism_library::papers::{LookupError, PaperSearch};
use asterism_library::sources::ads::AdsClient;
use asterism_library::sources::arxiv::ArxivClient;
use asterism_store::Store;
use asterism_testkit::{FixtureServer, all_routes};

async fn search_with(token: Option<&str>) -> (tempfile::TempDir, FixtureServer, PaperSearch) {
    let dir = tempfile::tempdir().unwrap();
    let server = FixtureServer::start(all_routes()).await.unwrap();
    let store = Store::open_in_dir(dir.path()).await.unwrap();
    let search = PaperSearch {
        ads: AdsClient::new(
            format!("{}/ads", server.url()),
            token.map(str::to_string),
            Duration::from_secs(2),
        )
        .unwrap(),
        arxiv: ArxivClient::new(
            format!("{}/arxiv-api", server.url()),
            Duration::from_secs(2),
        )
        .unwrap()
        .with_interval(Duration::ZERO),
        store,
    };
    (dir, server, search)
}

#[tokio::test]
async fn both_services_are_merged_and_local_status_is_marked() {
    let (_dir, _server, search) = search_with(Some("t")).await;
    let record = asterism_protocol::PaperRecord {
        bibcode: Some("1995Sci...267...77R".into()),
        title: "x".into(),
        ..Default::default()
    };
    let id = search.store.upsert_paper(&record).await.unwrap();
    search.store.set_paper_status(&id, "parsed").await.unwrap();
    let outcome = search.search("testing", 50).await;
    assert_eq!(
        outcome.papers.len(),
        20,
        "10 from ADS and 10 from arXiv, none the same paper"
    );
    assert!(
        outcome
            .notes
            .iter()
            .any(|note| note.starts_with("ADS: 10 found"))
    );
    assert!(outcome.notes.iter().any(|note| note.starts_with("arXiv: ")));
    let local = outcome
        .papers
        .iter()
        .find(|paper| paper.bibcode.as_deref() == Some("1995Sci...267...77R"))
        .unwrap();
    assert!(local.local.in_library && local.local.parsed);
}

#[tokio::test]
async fn without_an_ads_token_arxiv_answers_alone_and_says_so() {
    let (_dir, server, search) = search_with(None).await;
    let outcome = search.search("testing", 10).await;
    assert_eq!(outcome.papers.len(), 10);
    assert!(
        outcome
            .papers
            .iter()
            .all(|paper| paper.sources == ["arxiv"])
    );
    assert!(
        outcome.notes[0].contains("no ADS_API_TOKEN"),
        "{:?}",
        outcome.notes
    );
    assert!(
        server
            .requests()
            .iter()
            .all(|request| !request.contains("/ads/"))
    );
}

#[tokio::test]
async fn metadata_by_any_id_merges_ads_and_arxiv() {
    let (_dir, _server, search) = search_with(Some("t")).await;
    let by_bibcode = search.metadata("2013PASP..125..306F").await.unwrap();
    assert_eq!(by_bibcode.arxiv_id.as_deref(), Some("1202.3665"));
    assert!(by_bibcode.citation_count.unwrap() > 5000);
    let by_arxiv = search.metadata("astro-ph/0601001").await.unwrap();
    assert!(by_arxiv.title.starts_with("Frequency of Hot Jupiters"));
    let error = search.metadata("not an id").await.unwrap_err();
    assert!(matches!(error, LookupError::NotAnId(_)), "{error:?}");
    assert!(error.to_string().contains("not a bibcode"), "{error}");
}

/// The caller can tell "no such paper" (a service answered) from "no service could be
/// asked" (try again later) without reading the message.
#[tokio::test]
async fn a_paper_no_service_knows_differs_from_services_that_did_not_answer() {
    // arXiv answers with no entry, ADS is not configured: not found.
    let (_dir, _server, search) = search_with(None).await;
    let error = search.metadata("0000.0000").await.unwrap_err();
    match &error {
        LookupError::NotFound { problems, .. } => {
            assert!(
                problems.iter().any(|p| p.contains("no ADS_API_TOKEN")),
                "{problems:?}"
            )
        }
        other => panic!("{other:?}"),
    }
    // Both unreachable: unanswered, each service's failure said.
    let dir = tempfile::tempdir().unwrap();
    let down = PaperSearch {
        ads: AdsClient::new(
            "http://127.0.0.1:9".to_string(),
            Some("t".to_string()),
            Duration::from_secs(2),
        )
        .unwrap(),
        arxiv: ArxivClient::new("http://127.0.0.1:9".to_string(), Duration::from_secs(2))
            .unwrap()
            .with_interval(Duration::ZERO),
        store: Store::open_in_dir(dir.path()).await.unwrap(),
    };
    let error = down.metadata("1202.3665").await.unwrap_err();
    match &error {
        LookupError::Unanswered { problems, .. } => assert_eq!(problems.len(), 2, "{problems:?}"),
        other => panic!("{other:?}"),
    }
    assert!(
        error
            .to_string()
            .starts_with("no paper found for 1202.3665 (ADS: "),
        "{error}"
    );
}
