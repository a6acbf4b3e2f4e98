use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::{Query, Request, State};
use axum::http::{StatusCode, header};
use axum::response::Response;
use percent_encoding::percent_decode_str;

use crate::biblib::Biblib;
use crate::server::LoopbackServer;

/// The folder of recorded responses shipped with this crate.
pub fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

/// A recorded file by its path under `fixtures/`, e.g. `sesame/castor_….txt`.
pub fn fixture_path(relative: &str) -> PathBuf {
    fixtures_dir().join(relative)
}

/// Turns a `.chunks.jsonl` recording (one chunk per line, framing stripped by the
/// recorder) back into the SSE body the provider sent: `data: ` framing and `[DONE]`.
pub fn sse_from_chunks_jsonl(jsonl: &str) -> String {
    let mut body = String::new();
    for line in jsonl.lines().map(str::trim).filter(|line| !line.is_empty()) {
        body.push_str("data: ");
        body.push_str(line);
        body.push_str("\n\n");
    }
    body.push_str("data: [DONE]\n\n");
    body
}

/// What a route answers.
#[derive(Debug, Clone)]
pub struct RouteResponse {
    pub status: u16,
    pub content_type: String,
    pub body: Vec<u8>,
    pub headers: Vec<(String, String)>,
    /// Wait this long before answering (to test timeouts and concurrency).
    pub delay: Duration,
}

impl RouteResponse {
    pub fn ok(content_type: &str, body: impl Into<Vec<u8>>) -> Self {
        Self {
            status: 200,
            content_type: content_type.to_string(),
            body: body.into(),
            headers: Vec::new(),
            delay: Duration::ZERO,
        }
    }

    /// A recorded file from `fixtures/`; an unreadable file answers 500 naming it.
    pub fn file(content_type: &str, relative: &str) -> Self {
        match std::fs::read(fixture_path(relative)) {
            Ok(body) => Self::ok(content_type, body),
            Err(error) => Self {
                status: 500,
                ..Self::ok(
                    "text/plain",
                    format!("fixture {relative} unreadable: {error}"),
                )
            },
        }
    }

    pub fn with_status(mut self, status: u16) -> Self {
        self.status = status;
        self
    }

    pub fn with_delay(mut self, delay: Duration) -> Self {
        self.delay = delay;
        self
    }

    pub fn with_header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.to_string(), value.to_string()));
        self
    }
}

/// A request matcher and its answer. Matches when the path ends with `path_suffix` and,
/// if set, the query (percent-decoded, lower-cased, spaces removed) equals `query`.
#[derive(Debug, Clone)]
pub struct Route {
    pub path_suffix: String,
    pub query: Option<String>,
    /// Matches when the normalised query contains this (normalised) text.
    pub query_contains: Option<String>,
    pub response: RouteResponse,
}

impl Route {
    pub fn new(path_suffix: &str, response: RouteResponse) -> Self {
        Self {
            path_suffix: path_suffix.to_string(),
            query: None,
            query_contains: None,
            response,
        }
    }

    pub fn with_query_containing(mut self, text: &str) -> Self {
        self.query_contains = Some(normalise_query(text));
        self
    }

    pub fn with_query(mut self, query: &str) -> Self {
        self.query = Some(normalise_query(query));
        self
    }
}

fn normalise_query(query: &str) -> String {
    percent_decode_str(&query.replace('+', " "))
        .decode_utf8_lossy()
        .to_lowercase()
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect()
}

/// The Sesame answers the fixtures hold, by object name, for `…/-oI/SNV?NAME` (and
/// every other Sesame output option: the client detects XML or text).
///
/// Also two names for failure tests: `garbage` answers an HTML error page with status
/// 200, `timeout` answers after 30 s. Any other name gets Sesame's recorded
/// "Nothing found" answer.
pub fn sesame_routes() -> Vec<Route> {
    let xml = "text/xml";
    let text = "text/plain";
    vec![
        Route::new(
            "/SNV",
            RouteResponse::file(xml, "sesame/ngc4258_oxp_VSNA_pyvo2013.xml"),
        )
        .with_query("NGC 4258"),
        Route::new(
            "/SNV",
            RouteResponse::file(xml, "sesame/ngc4258_oxp_VSNA_pyvo2013.xml"),
        )
        .with_query("M 106"),
        Route::new(
            "/SNV",
            RouteResponse::file(text, "sesame/ngc3642_oI_Si_2024_astropy.txt"),
        )
        .with_query("NGC 3642"),
        Route::new(
            "/SNV",
            RouteResponse::file(text, "sesame/ngc4248_oI_Si_written.txt"),
        )
        .with_query("NGC 4248"),
        Route::new(
            "/SNV",
            RouteResponse::file(text, "sesame/ugc7356_oI_Si_written.txt"),
        )
        .with_query("UGC 7356"),
        Route::new(
            "/SNV",
            RouteResponse::file(text, "sesame/m87_oI_Si_written.txt"),
        )
        .with_query("M 87"),
        Route::new(
            "/SNV",
            RouteResponse::file(text, "sesame/kepler-1627_oI_Si_written.txt"),
        )
        .with_query("Kepler-1627"),
        Route::new(
            "/SNV",
            RouteResponse::file(
                text,
                "sesame/castor_oI_SNV_2013_ned_vizier_not_found_astropy.txt",
            ),
        )
        .with_query("castor"),
        Route::new(
            "/SNV",
            RouteResponse::ok(
                "text/html",
                "<html><body><h1>502 Proxy Error</h1></body></html>",
            ),
        )
        .with_query("garbage"),
        Route::new(
            "/SNV",
            RouteResponse::file(
                text,
                "sesame/castor_oI_SNV_2013_ned_vizier_not_found_astropy.txt",
            )
            .with_delay(Duration::from_secs(30)),
        )
        .with_query("timeout"),
        Route::new(
            "/SNV",
            RouteResponse::file(xml, "sesame/hip123456_ox_V_nothing_found_saao2019.xml"),
        ),
    ]
}

/// An ADS search envelope around one recorded document (the emcee doc is recorded
/// without its envelope).
fn ads_envelope(relative: &str) -> RouteResponse {
    match std::fs::read_to_string(fixture_path(relative)).map(|doc| {
        format!("{{\"responseHeader\":{{\"status\":0,\"QTime\":1}},\"response\":{{\"numFound\":1,\"start\":0,\"docs\":[{doc}]}}}}")
    }) {
        Ok(body) => RouteResponse::ok("application/json", body),
        Err(error) => RouteResponse::ok("text/plain", format!("fixture {relative} unreadable: {error}")).with_status(500),
    }
}

/// The recorded ADS answers under any base path: the emcee paper by bibcode or arXiv
/// id, a 10-document search for anything else, and the exports.
pub fn ads_routes() -> Vec<Route> {
    let json = "application/json";
    vec![
        Route::new(
            "/search/query",
            ads_envelope("ads/doc_emcee_all_fields_adsabs_rs.json"),
        )
        .with_query_containing("2013PASP..125..306F"),
        Route::new(
            "/search/query",
            ads_envelope("ads/doc_emcee_all_fields_adsabs_rs.json"),
        )
        .with_query_containing("1202.3665"),
        // The papers 1998ApJ...509..678G cites (bibcodes only, as recorded).
        Route::new(
            "/search/query",
            RouteResponse::file(
                json,
                "ads/search_query_references_1998ApJ509_678G_reserialized.json",
            ),
        )
        .with_query_containing("references(bibcode:1998ApJ...509..678G)"),
        // A search that mentions "quota" is answered near the end of the day's quota.
        Route::new(
            "/search/query",
            RouteResponse::file(json, "ads/search_bigquery_10docs_citationbot.json")
                .with_header("X-RateLimit-Limit", "5000")
                .with_header("X-RateLimit-Remaining", "312")
                .with_header("X-RateLimit-Reset", "1700000000"),
        )
        .with_query_containing("quota"),
        Route::new(
            "/search/query",
            RouteResponse::file(json, "ads/search_bigquery_10docs_citationbot.json"),
        ),
        Route::new(
            "/export/bibtex",
            RouteResponse::file(json, "ads/export_bibtex_single_2015RaSc.json"),
        ),
        Route::new(
            "/export/aastex",
            RouteResponse::file(json, "ads/export_aastex_3records.json"),
        ),
    ]
}

/// The recorded arXiv feeds: id lookups (astro-ph/0601001, 1111.2011, two ids with one
/// missing), the "abc" error feed (HTTP 400), the empty feed, a 10-entry search for
/// any search query, and (made) five astro-ph submissions for any `submittedDate` query.
pub fn arxiv_routes() -> Vec<Route> {
    let atom = "application/atom+xml";
    vec![
        Route::new(
            "/query",
            RouteResponse::file(atom, "arxiv/idlist_astro-ph_0601001.atom.xml"),
        )
        .with_query_containing("id_list=astro-ph/0601001"),
        Route::new(
            "/query",
            RouteResponse::file(
                atom,
                "arxiv/idlist_two_ids_one_missing_0808.05394_1707.08567.atom.xml",
            ),
        )
        .with_query_containing("id_list=0808.05394"),
        Route::new(
            "/query",
            RouteResponse::file(atom, "arxiv/idlist_abc_error_400.atom.xml").with_status(400),
        )
        .with_query_containing("id_list=abc"),
        Route::new(
            "/query",
            RouteResponse::file(atom, "arxiv/idlist_0000.0000_empty_result.atom.xml"),
        )
        .with_query_containing("id_list=0000.0000"),
        Route::new(
            "/query",
            RouteResponse::file(atom, "arxiv/legacy2016_idlist_1111.2011v2.atom.xml"),
        )
        .with_query_containing("id_list=1111.2011"),
        // `asterism news`: five made astro-ph submissions for any day.
        Route::new(
            "/query",
            RouteResponse::file(atom, "arxiv/made_news_astro-ph_5entries.atom.xml"),
        )
        .with_query_containing("submittedDate"),
        Route::new(
            "/query",
            RouteResponse::file(atom, "arxiv/search_all_testing_start0_max10.atom.xml"),
        )
        .with_query_containing("search_query="),
        // arxiv.org itself: a real paper's PDF (Gammapy, pdfs/) stands in for every
        // PDF asked for; no HTML version (404), as for papers LaTeXML could not convert.
        Route::new(
            "/pdf/1202.3665",
            RouteResponse::file("application/pdf", "pdfs/gammapy_v1_ms.pdf"),
        ),
    ]
}

/// The recorded Crossref answers: one work by DOI (10.1371/journal.pone.0033693) and,
/// for any search, the 20 works of `query=ecology&query.author=carl boettiger`.
pub fn crossref_routes() -> Vec<Route> {
    let json = "application/json";
    vec![
        Route::new(
            "/works/10.1371/journal.pone.0033693",
            RouteResponse::file(json, "crossref/work_10.1371_journal.pone.0033693.json"),
        ),
        Route::new(
            "/works",
            RouteResponse::file(json, "crossref/works_query_ecology_author_boettiger.json"),
        ),
    ]
}

/// Every recorded service: ADS first (its `/search/query` also ends in `/query`), then
/// arXiv, then Sesame.
/// A local Ollama server's model list, under `/ollama/v1` (OLLAMA_URL).
pub fn ollama_routes() -> Vec<Route> {
    vec![Route::new(
        "/ollama/v1/models",
        RouteResponse::file("application/json", "ollama/v1_models.json"),
    )]
}

pub fn all_routes() -> Vec<Route> {
    let mut routes = ads_routes();
    routes.extend(arxiv_routes());
    routes.extend(sesame_routes());
    routes.extend(ollama_routes());
    routes
}

#[derive(Debug, Default)]
struct FixtureState {
    routes: Vec<Route>,
    requests: Vec<String>,
    biblib: Biblib,
}

/// Serves recorded responses on loopback: the first matching route answers; anything
/// unmatched gets 404. Records each request's path and query.
#[derive(Debug)]
pub struct FixtureServer {
    server: LoopbackServer,
    state: Arc<Mutex<FixtureState>>,
}

impl FixtureServer {
    pub async fn start(routes: Vec<Route>) -> anyhow::Result<Self> {
        Self::start_on(routes, 0).await
    }

    pub async fn start_on(routes: Vec<Route>, port: u16) -> anyhow::Result<Self> {
        let state = Arc::new(Mutex::new(FixtureState {
            routes,
            requests: Vec::new(),
            biblib: Biblib::recorded(),
        }));
        let router = Router::new().fallback(answer).with_state(state.clone());
        let server = LoopbackServer::start(router, port).await?;
        Ok(Self { server, state })
    }

    /// `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        self.server.url()
    }

    /// Paths with queries of the requests received so far.
    pub fn requests(&self) -> Vec<String> {
        self.state
            .lock()
            .map(|state| state.requests.clone())
            .unwrap_or_default()
    }

    /// Reads or changes the ADS libraries the server holds (as a collaborator would).
    pub fn biblib<R>(&self, change: impl FnOnce(&mut Biblib) -> R) -> R {
        let mut state = self
            .state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        change(&mut state.biblib)
    }

    pub async fn serve_forever(mut self) {
        self.server.wait().await;
    }
}

async fn answer(State(state): State<Arc<Mutex<FixtureState>>>, request: Request) -> Response {
    let path = request.uri().path().to_string();
    let query = request.uri().query().unwrap_or("").to_string();
    let method = request.method().to_string();
    let params = Query::<HashMap<String, String>>::try_from_uri(request.uri())
        .map(|Query(params)| params)
        .unwrap_or_default();
    let token = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.strip_prefix("Bearer "))
        .map(str::to_string);
    let body = axum::body::to_bytes(request.into_body(), 1 << 22)
        .await
        .unwrap_or_default();
    let route = {
        let Ok(mut state) = state.lock() else {
            return Response::new(Body::from("fixture server state poisoned"));
        };
        state.requests.push(if query.is_empty() {
            path.clone()
        } else {
            format!("{path}?{query}")
        });
        let normalised = normalise_query(&query);
        let route = state
            .routes
            .iter()
            .find(|route| {
                path.ends_with(&route.path_suffix)
                    && route
                        .query
                        .as_ref()
                        .is_none_or(|expected| *expected == normalised)
                    && route
                        .query_contains
                        .as_ref()
                        .is_none_or(|part| normalised.contains(part.as_str()))
            })
            .cloned();
        // The biblib fake answers what no recorded route does, and every search for a
        // list of bibcodes (a recorded single-paper answer would drop the others).
        if (route.is_none() || Biblib::is_bibcode_search(&path, &params))
            && let Some(response) =
                state
                    .biblib
                    .answer(&method, &path, &params, token.as_deref(), &body)
        {
            return response;
        }
        route
    };
    let Some(route) = route else {
        return Response::builder()
            .status(StatusCode::NOT_FOUND)
            .body(Body::from(format!("no fixture for {path}?{query}")))
            .unwrap_or_default();
    };
    if !route.response.delay.is_zero() {
        tokio::time::sleep(route.response.delay).await;
    }
    let mut builder = Response::builder()
        .status(StatusCode::from_u16(route.response.status).unwrap_or(StatusCode::OK))
        .header(header::CONTENT_TYPE, route.response.content_type.as_str());
    for (name, value) in &route.response.headers {
        builder = builder.header(name.as_str(), value.as_str());
    }
    builder
        .body(Body::from(route.response.body))
        .unwrap_or_default()
}
