//! search_papers' wall time when ADS and arXiv each take 300 ms to answer: both are
//! asked at once, so the total should stay near the slower one (target ≤ 350 ms).
//!
//!     cargo bench -p asterism-library --bench search

use std::time::{Duration, Instant};

use asterism_library::papers::PaperSearch;
use asterism_library::sources::ads::AdsClient;
use asterism_library::sources::arxiv::ArxivClient;
use asterism_store::Store;
use asterism_testkit::{FixtureServer, ads_routes, arxiv_routes};

const DELAY: Duration = Duration::from_millis(300);
const ROUNDS: usize = 20;

#[tokio::main]
async fn main() {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let mut routes = ads_routes();
    routes.extend(arxiv_routes());
    for route in &mut routes {
        route.response = route.response.clone().with_delay(DELAY);
    }
    let server = FixtureServer::start(routes)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let store = Store::open_in_dir(dir.path())
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let search = PaperSearch {
        ads: AdsClient::new(
            format!("{}/ads", server.url()),
            Some("token".into()),
            Duration::from_secs(5),
        )
        .unwrap_or_else(|e| panic!("{e}")),
        // One request at a time still; the 3 s spacing is arXiv's rule for the real
        // service, not part of one search's latency.
        arxiv: ArxivClient::new(
            format!("{}/arxiv-api", server.url()),
            Duration::from_secs(5),
        )
        .unwrap_or_else(|e| panic!("{e}"))
        .with_interval(Duration::ZERO),
        store,
    };
    let mut times = Vec::new();
    for round in 0..=ROUNDS {
        let start = Instant::now();
        let outcome = search.search("hubble tension trgb", 10).await;
        let elapsed = start.elapsed();
        assert!(!outcome.papers.is_empty(), "{:?}", outcome.notes);
        if round > 0 {
            // Round 0 warms the connections up.
            times.push(elapsed.as_secs_f64() * 1000.0);
        }
    }
    times.sort_by(f64::total_cmp);
    let p50 = times[times.len() / 2];
    let p95 = times[(times.len() * 95).div_ceil(100) - 1];
    println!(
        "search_papers, ADS and arXiv each answering after {} ms, {ROUNDS} searches: p50 {p50:.1} ms, p95 {p95:.1} ms, max {:.1} ms",
        DELAY.as_millis(),
        times[times.len() - 1]
    );
}
