use std::time::Duration;

use asterism_library::download::{ChannelFailure, DownloadError, Downloader};
use asterism_library::sources::ads::AdsClient;
use asterism_protocol::PaperRecord;
use asterism_store::Store;
use asterism_testkit::{FixtureServer, Route, RouteResponse};

const PDF: &str = "pdfs/gammapy_v1_ms.pdf";

async fn downloader(routes: Vec<Route>) -> (tempfile::TempDir, FixtureServer, Downloader, Store) {
    let dir = tempfile::tempdir().unwrap();
    let server = FixtureServer::start(routes).await.unwrap();
    let store = Store::open_in_dir(dir.path()).await.unwrap();
    let ads = AdsClient::new(
        format!("{}/ads", server.url()),
        None,
        Duration::from_secs(2),
    )
    .unwrap();
    let downloader = Downloader::new(
        &format!("{}/arxiv", server.url()),
        ads,
        store.clone(),
        dir.path(),
    )
    .unwrap()
    .with_doi_url(&format!("{}/doi", server.url()));
    (dir, server, downloader, store)
}

fn paper() -> PaperRecord {
    PaperRecord {
        arxiv_id: Some("2308.13584".into()),
        doi: Some("10.1051/0004-6361/202346488".into()),
        title: "Gammapy".into(),
        ..PaperRecord::default()
    }
}

fn leftovers(dir: &std::path::Path) -> Vec<String> {
    std::fs::read_dir(dir.join("papers"))
        .map(|entries| {
            entries
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default()
}

#[tokio::test]
async fn the_arxiv_pdf_is_stored_once_with_its_hash() {
    let routes = vec![Route::new(
        "/arxiv/pdf/2308.13584",
        RouteResponse::file("application/pdf", PDF),
    )];
    let (dir, server, downloader, store) = downloader(routes).await;
    let reports = std::sync::Mutex::new(Vec::new());
    let done = downloader
        .download(&paper(), &|bytes, total| {
            reports.lock().unwrap().push((bytes, total))
        })
        .await
        .unwrap();
    assert_eq!(done.source, "arxiv");
    assert!(!done.already_present);
    let expected = std::fs::read(asterism_testkit::fixture_path(PDF)).unwrap();
    assert_eq!(std::fs::read(&done.path).unwrap(), expected);
    assert_eq!(done.bytes, expected.len() as u64);
    assert_eq!(done.sha256.len(), 64);
    assert!(!reports.lock().unwrap().is_empty(), "progress was reported");
    assert_eq!(
        store
            .paper_status(None, Some("2308.13584"), None)
            .await
            .unwrap()
            .as_deref(),
        Some("downloaded")
    );
    let again = downloader.download(&paper(), &|_, _| {}).await.unwrap();
    assert!(again.already_present);
    assert_eq!(server.requests().len(), 1, "not fetched again");
    assert_eq!(leftovers(dir.path()), [format!("{}.pdf", done.paper_id)]);
}

#[tokio::test]
async fn html_with_status_200_falls_through_to_the_next_channel() {
    let routes = vec![
        Route::new(
            "/arxiv/pdf/2308.13584",
            RouteResponse::ok(
                "text/html",
                "<html><body>Please complete the captcha</body></html>",
            ),
        ),
        Route::new(
            "/doi/10.1051/0004-6361/202346488",
            RouteResponse::file("application/pdf", PDF),
        ),
    ];
    let (dir, _server, downloader, _store) = downloader(routes).await;
    let done = downloader.download(&paper(), &|_, _| {}).await.unwrap();
    assert_eq!(done.source, "doi");
    assert_eq!(
        leftovers(dir.path()).len(),
        1,
        "no half-written file of the failed channel"
    );
}

#[tokio::test]
async fn when_no_channel_gives_a_pdf_the_error_names_each_and_nothing_is_left() {
    let full = std::fs::read(asterism_testkit::fixture_path(PDF)).unwrap();
    let routes = vec![
        Route::new(
            "/arxiv/pdf/2308.13584",
            RouteResponse::ok("application/pdf", Vec::new()),
        ),
        Route::new(
            "/doi/10.1051/0004-6361/202346488",
            RouteResponse::ok("text/html", "<html>paywall</html>"),
        ),
    ];
    let (dir, _server, downloader, _store) = downloader(routes).await;
    let error = downloader.download(&paper(), &|_, _| {}).await.unwrap_err();
    let DownloadError::NoPdf(failed) = &error else {
        panic!("{error:?}")
    };
    let sources: Vec<&str> = failed.iter().map(|f| f.source.as_str()).collect();
    assert_eq!(sources, ["arxiv", "doi"]);
    assert_eq!(failed[0].failure, ChannelFailure::NotPdf { starts: None });
    assert!(
        matches!(&failed[1].failure, ChannelFailure::NotPdf { starts: Some(s) } if s.contains("paywall")),
        "{failed:?}"
    );
    let message = error.to_string();
    assert!(
        message.contains("arxiv: the answer is not a PDF (empty or too short); doi: the answer is not a PDF (it starts \"<html>paywall</html>\")"),
        "{message}"
    );
    assert!(leftovers(dir.path()).is_empty());

    let small = vec![Route::new(
        "/arxiv/pdf/2308.13584",
        RouteResponse::ok("application/pdf", full),
    )];
    let (dir, _server, downloader, _store) = downloader_limit(small, 1000).await;
    let error = downloader
        .download(
            &PaperRecord {
                doi: None,
                ..paper()
            },
            &|_, _| {},
        )
        .await
        .unwrap_err();
    assert!(
        matches!(&error, DownloadError::NoPdf(failed)
            if matches!(failed[0].failure, ChannelFailure::TooLarge { limit_mb: 0, .. })),
        "{error:?}"
    );
    assert!(error.to_string().contains("limit"), "{error}");
    assert!(leftovers(dir.path()).is_empty());
}

async fn downloader_limit(
    routes: Vec<Route>,
    max: u64,
) -> (tempfile::TempDir, FixtureServer, Downloader, Store) {
    let (dir, server, downloader, store) = downloader(routes).await;
    (dir, server, downloader.with_max_bytes(max), store)
}
