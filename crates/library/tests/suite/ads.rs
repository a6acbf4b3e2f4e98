use std::time::Duration;

use asterism_library::sources::ads::{AdsClient, AdsError, AdsQuery};
use asterism_testkit::{FixtureServer, Route, RouteResponse, ads_routes};

async fn client_for(routes: Vec<Route>, token: Option<&str>) -> (FixtureServer, AdsClient) {
    let server = FixtureServer::start(routes).await.unwrap();
    let client = AdsClient::new(
        format!("{}/v1", server.url()),
        token.map(str::to_string),
        Duration::from_millis(500),
    )
    .unwrap();
    (server, client)
}

fn query(q: &str) -> AdsQuery {
    AdsQuery {
        q: q.into(),
        rows: 10,
        ..AdsQuery::default()
    }
}

#[tokio::test]
async fn search_sends_the_token_and_reads_the_rate_limit() {
    let routes = vec![Route::new(
        "/search/query",
        RouteResponse::file(
            "application/json",
            "ads/search_bigquery_10docs_citationbot.json",
        )
        .with_header("X-RateLimit-Limit", "5000")
        .with_header("X-RateLimit-Remaining", "4987")
        .with_header("X-RateLimit-Reset", "1700000000"),
    )];
    let (server, client) = client_for(routes, Some("secret-token")).await;
    let found = client.search(&query("author:\"Retallack\"")).await.unwrap();
    assert_eq!(found.num_found, 10);
    assert_eq!(found.papers.len(), 10);
    let rate = client.rate_limit().unwrap();
    assert_eq!((rate.limit, rate.remaining), (Some(5000), Some(4987)));
    assert_eq!(rate.resets_at.as_deref(), Some("2023-11-14T22:13:20Z"));
    let request = &server.requests()[0];
    assert!(
        request.contains("q=author%3A%22Retallack%22") || request.contains("q=author"),
        "{request}"
    );
    assert!(request.contains("fl=bibcode"));
}

#[tokio::test]
async fn exports_return_the_export_text() {
    let (_server, client) = client_for(ads_routes(), Some("t")).await;
    let bibtex = client
        .export_bibtex(&["2015RaSc...50..916A".into()])
        .await
        .unwrap();
    assert!(bibtex.starts_with("@ARTICLE{2015RaSc"), "{bibtex}");
    let aastex = client.export_aastex(&["x".into()]).await.unwrap();
    assert!(aastex.contains("\\bibitem"), "{aastex}");
}

#[tokio::test]
async fn failures_are_clear_errors() {
    let (_s, no_token) = client_for(ads_routes(), None).await;
    assert_eq!(
        no_token.search(&query("x")).await.unwrap_err(),
        AdsError::NoToken
    );

    let unauthorized = vec![Route::new(
        "/search/query",
        RouteResponse::file("application/json", "ads/error_401_unauthorized.json").with_status(401),
    )];
    let (_s, client) = client_for(unauthorized, Some("bad")).await;
    assert_eq!(
        client.search(&query("x")).await.unwrap_err(),
        AdsError::Unauthorized
    );

    let limited = vec![Route::new(
        "/search/query",
        RouteResponse::ok("application/json", r#"{"error": "Too many requests"}"#)
            .with_status(429)
            .with_header("X-RateLimit-Remaining", "0")
            .with_header("X-RateLimit-Reset", "1700000000"),
    )];
    let (_s, client) = client_for(limited, Some("t")).await;
    let error = client.search(&query("x")).await.unwrap_err();
    assert_eq!(
        error,
        AdsError::RateLimited("at 2023-11-14T22:13:20Z".into())
    );
    assert_eq!(client.rate_limit().unwrap().remaining, Some(0));

    let broken = vec![Route::new(
        "/search/query",
        RouteResponse::ok("application/json", r#"{"error": "solr is down"}"#).with_status(500),
    )];
    let (_s, client) = client_for(broken, Some("t")).await;
    assert_eq!(
        client.search(&query("x")).await.unwrap_err(),
        AdsError::Http {
            status: 500,
            message: "solr is down".into()
        }
    );

    let html = vec![Route::new(
        "/search/query",
        RouteResponse::ok("text/html", "<html><body>Maintenance</body></html>"),
    )];
    let (_s, client) = client_for(html, Some("t")).await;
    assert!(
        matches!(client.search(&query("x")).await.unwrap_err(), AdsError::BadResponse(message) if message.contains("expected JSON"))
    );

    let slow = vec![Route::new(
        "/search/query",
        RouteResponse::ok("application/json", "{}").with_delay(Duration::from_secs(5)),
    )];
    let (_s, client) = client_for(slow, Some("t")).await;
    assert!(matches!(
        client.search(&query("x")).await.unwrap_err(),
        AdsError::Timeout(_)
    ));
}

/// The biblib answers recorded in ADS's API notebooks, read as they are.
#[tokio::test]
async fn recorded_biblib_answers_are_read() {
    let json = "application/json";
    let routes = vec![
        Route::new(
            "/biblib/libraries/Z7cCXDXQRC2HxB8CA8uu2g",
            RouteResponse::file(json, "ads/biblib/library_get_Z7cC_2docs_python_nb.json"),
        ),
        // A raw answer: 20 of 534 bibcodes, whatever `start` asks.
        Route::new(
            "/biblib/libraries/Os2mtOH-RNiNyBWdSj0m2A",
            RouteResponse::file(
                json,
                "ads/biblib/library_get_Os2m_raw_20of534_shell_nb.json",
            ),
        ),
        Route::new(
            "/biblib/libraries",
            RouteResponse::file(json, "ads/biblib/libraries_create_Z7cC_python_nb.json"),
        ),
        Route::new(
            "/biblib/documents/6TI2c01jSYe1WT0xNmw-vw",
            RouteResponse::file(json, "ads/biblib/documents_add_1invalid_shell_nb.json"),
        ),
        Route::new(
            "/biblib/documents/h1j8YE_hTvSVZT7rWhrDXQ",
            RouteResponse::file(json, "ads/biblib/documents_remove_shell_nb.json"),
        ),
    ];
    let (server, client) = client_for(routes, Some("t")).await;

    let contents = client
        .library_contents("Z7cCXDXQRC2HxB8CA8uu2g")
        .await
        .unwrap();
    assert_eq!(
        contents.bibcodes,
        ["1975CMaPh..43..199H", "1973PhRvD...7.2333B"]
    );
    assert_eq!(contents.library.name, "API Library");
    assert_eq!(contents.library.permission, "owner");
    assert!(contents.library.public && contents.library.writable());
    assert_eq!(
        contents.library.date_last_modified,
        "2023-03-02T22:05:01.292502"
    );
    assert!(contents.replaced.is_empty());

    // A server that does not page must not keep the client asking.
    let raw = client
        .library_contents("Os2mtOH-RNiNyBWdSj0m2A")
        .await
        .unwrap();
    assert_eq!((raw.bibcodes.len(), raw.library.num_documents), (20, 534));
    let asked = server
        .requests()
        .iter()
        .filter(|r| r.contains("Os2mtOH"))
        .count();
    assert_eq!(asked, 2, "the second page brought nothing new");

    let id = client
        .create_library("API Library", "x", &["1975CMaPh..43..199H".into()])
        .await
        .unwrap();
    assert_eq!(id, "Z7cCXDXQRC2HxB8CA8uu2g");
    let added = client
        .change_documents(
            "6TI2c01jSYe1WT0xNmw-vw",
            true,
            &["2018cxo..prop.5543P".into(), "2018cga..prop.5QPWP".into()],
        )
        .await
        .unwrap();
    assert_eq!(
        (added.added, added.invalid.as_slice()),
        (1, ["2018cga..prop.5QPWP".to_string()].as_slice())
    );
    let removed = client
        .change_documents(
            "h1j8YE_hTvSVZT7rWhrDXQ",
            false,
            &["1974Natur.248...30H".into()],
        )
        .await
        .unwrap();
    assert_eq!(removed.removed, 1);
    // An id that could carry a path is refused before any request.
    assert!(
        client
            .library_contents("../../search/query?q=x")
            .await
            .is_err()
    );
}

#[tokio::test]
async fn a_403_is_not_taken_for_a_bad_token() {
    let routes = vec![Route::new(
        "/biblib/libraries/iRZhyhvaSWe0uWwcXKt77w",
        RouteResponse::ok(
            "application/json",
            r#"{"error": "You do not have permission"}"#,
        )
        .with_status(403),
    )];
    let (_server, client) = client_for(routes, Some("t")).await;
    let error = client
        .library_contents("iRZhyhvaSWe0uWwcXKt77w")
        .await
        .unwrap_err();
    assert_eq!(
        error,
        AdsError::Forbidden("You do not have permission".into())
    );
}
