use std::time::{Duration, Instant};

use asterism_library::sources::arxiv::{ArxivClient, ArxivError, ArxivSort};
use asterism_testkit::{FixtureServer, Route, RouteResponse, arxiv_routes};

async fn client() -> (FixtureServer, ArxivClient) {
    let server = FixtureServer::start(arxiv_routes()).await.unwrap();
    let client = ArxivClient::new(format!("{}/api", server.url()), Duration::from_secs(2))
        .unwrap()
        .with_interval(Duration::from_millis(300));
    (server, client)
}

#[tokio::test]
async fn id_lookups_and_searches() {
    let (server, client) = client().await;
    let papers = client.by_ids(&["astro-ph/0601001".into()]).await.unwrap();
    assert_eq!(papers[0].arxiv_id.as_deref(), Some("astro-ph/0601001"));
    let two = client
        .by_ids(&["0808.05394".into(), "1707.08567".into()])
        .await
        .unwrap();
    assert_eq!(two.len(), 1, "the missing id is simply absent");
    let feed = client
        .search("all:testing", 0, 10, ArxivSort::Relevance)
        .await
        .unwrap();
    assert_eq!(feed.papers.len(), 10);
    assert!(
        server
            .requests()
            .iter()
            .any(|r| r.contains("sortBy=relevance"))
    );
}

#[tokio::test]
async fn requests_are_spaced() {
    let (_server, client) = client().await;
    let started = Instant::now();
    for _ in 0..3 {
        client.by_ids(&["astro-ph/0601001".into()]).await.unwrap();
    }
    // Three requests with a 300 ms spacing take at least 600 ms: this checks the
    // spacing happened at all, not how fast anything is.
    assert!(started.elapsed() >= Duration::from_millis(600));
}

#[tokio::test]
async fn error_empty_and_truncated_feeds_are_clear() {
    let (_server, client) = client().await;
    assert_eq!(
        client.by_ids(&["abc".into()]).await.unwrap_err(),
        ArxivError::Rejected("incorrect id format for abc".into())
    );
    assert!(
        client
            .by_ids(&["0000.0000".into()])
            .await
            .unwrap()
            .is_empty()
    );
    let full = std::fs::read_to_string(asterism_testkit::fixture_path(
        "arxiv/idlist_astro-ph_0601001.atom.xml",
    ))
    .unwrap();
    let truncated = vec![Route::new(
        "/query",
        RouteResponse::ok("application/atom+xml", full[..full.len() / 2].to_string()),
    )];
    let server = FixtureServer::start(truncated).await.unwrap();
    let client = ArxivClient::new(format!("{}/api", server.url()), Duration::from_secs(2)).unwrap();
    assert!(
        matches!(client.by_ids(&["x".into()]).await.unwrap_err(), ArxivError::BadResponse(message) if message.contains("truncated") || message.contains("XML"))
    );
}
