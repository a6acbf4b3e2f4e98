//! A stateful fake of ADS's biblib service (`/biblib/…`) and of the search API asked
//! for a list of bibcodes, speaking the wire format the ADS API notebooks record
//! (`fixtures/ads/biblib/`). It starts from `ads/biblib/mock_libraries.json`; pushes
//! change it; tests change it too, as a collaborator would.
//!
//! Tokens: `expired` is answered 401, `exhausted` 429 with the rate-limit headers.
//! Library pages hold at most [`PAGE_CAP`] bibcodes whatever `rows` asks, so clients
//! must page. A `hidden` library is not listed and answers 403 (someone else's private
//! library); an unknown id answers 404.

use std::collections::HashMap;

use axum::body::Body;
use axum::http::StatusCode;
use axum::response::Response;
use serde_json::{Value, json};

use crate::fixtures::fixture_path;

/// The most bibcodes one page of a library holds.
pub const PAGE_CAP: usize = 5;

/// The recorded documents the fake's search answers from.
const POOL: [&str; 3] = [
    "ads/search_bigquery_10docs_citationbot.json",
    "ads/search_query_persson_water_astroquery.json",
    "ads/doc_emcee_all_fields_adsabs_rs.json",
];

/// One ADS library of the fake.
#[derive(Debug, Clone)]
pub struct FakeLibrary {
    pub metadata: Value,
    pub documents: Vec<String>,
    pub hidden: bool,
}

/// The fake's state: libraries, replaced bibcodes, the documents search knows.
#[derive(Debug, Clone, Default)]
pub struct Biblib {
    pub libraries: Vec<FakeLibrary>,
    /// Old bibcode → the canonical one ADS now uses.
    pub replaced: HashMap<String, String>,
    pool: Vec<Value>,
    clock: u32,
    /// Searches answer 503 (ADS's search down mid-pull).
    pub fail_search: bool,
}

impl Biblib {
    /// The state of `ads/biblib/mock_libraries.json` and the recorded documents.
    pub fn recorded() -> Self {
        let read = |relative: &str| -> Value {
            std::fs::read_to_string(fixture_path(relative))
                .ok()
                .and_then(|text| serde_json::from_str(&text).ok())
                .unwrap_or(Value::Null)
        };
        let state = read("ads/biblib/mock_libraries.json");
        let libraries = state["libraries"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|library| FakeLibrary {
                metadata: library["metadata"].clone(),
                documents: strings(&library["documents"]),
                hidden: library["hidden"].as_bool().unwrap_or(false),
            })
            .collect();
        let replaced = state["replaced"]
            .as_object()
            .into_iter()
            .flatten()
            .filter_map(|(old, new)| Some((old.clone(), new.as_str()?.to_string())))
            .collect();
        let mut pool = Vec::new();
        for relative in POOL {
            let answer = read(relative);
            match answer["response"]["docs"].as_array() {
                Some(docs) => pool.extend(docs.iter().cloned()),
                None => pool.push(answer),
            }
        }
        Self {
            libraries,
            replaced,
            pool,
            clock: 0,
            fail_search: false,
        }
    }

    /// The library with this id.
    pub fn library_mut(&mut self, id: &str) -> Option<&mut FakeLibrary> {
        self.libraries
            .iter_mut()
            .find(|library| library.metadata["id"] == id)
    }

    /// Marks a library modified now (as ADS does on every change).
    pub fn touch(&mut self, id: &str) {
        self.clock += 1;
        let stamp = format!("2026-12-01T00:00:{:02}.{:06}", self.clock % 60, self.clock);
        if let Some(library) = self.library_mut(id) {
            library.metadata["date_last_modified"] = json!(stamp);
        }
    }

    fn known(&self, bibcode: &str) -> bool {
        self.pool.iter().any(|doc| doc["bibcode"] == bibcode)
    }

    /// A search for a list of bibcodes (`bibcode:("…" OR "…")`).
    pub fn is_bibcode_search(path: &str, query: &HashMap<String, String>) -> bool {
        path.ends_with("/search/query")
            && query.get("q").is_some_and(|q| q.starts_with("bibcode:("))
    }

    /// Answers a biblib request, or a search for bibcodes; `None` for anything else.
    pub fn answer(
        &mut self,
        method: &str,
        path: &str,
        query: &HashMap<String, String>,
        token: Option<&str>,
        body: &[u8],
    ) -> Option<Response> {
        let biblib = path
            .find("/biblib/")
            .map(|at| &path[at + "/biblib/".len()..]);
        let search = Self::is_bibcode_search(path, query);
        if biblib.is_none() && !search {
            return None;
        }
        match token {
            Some("expired") | None => return Some(reply(401, json!({"error": "Unauthorized"}))),
            Some("exhausted") => return Some(exhausted()),
            _ => {}
        }
        let body: Value = serde_json::from_slice(body).unwrap_or(Value::Null);
        let Some(route) = biblib else {
            return Some(self.search(&query["q"]));
        };
        let parts: Vec<&str> = route.trim_end_matches('/').split('/').collect();
        Some(match (method, parts.as_slice()) {
            ("GET", ["libraries"]) => self.list(query),
            ("POST", ["libraries"]) => self.create(&body),
            ("GET", ["libraries", id]) => self.contents(id, query),
            ("POST", ["documents", id]) => self.change(id, &body),
            _ => reply(
                404,
                json!({"error": format!("no such endpoint: {method} {route}")}),
            ),
        })
    }

    fn search(&self, q: &str) -> Response {
        if self.fail_search {
            return reply(503, json!({"error": "search is unavailable"}));
        }
        let wanted: Vec<&str> = q.split('"').skip(1).step_by(2).collect();
        let docs: Vec<Value> = self
            .pool
            .iter()
            .filter(|doc| doc["bibcode"].as_str().is_some_and(|b| wanted.contains(&b)))
            .cloned()
            .collect();
        reply(
            200,
            json!({"responseHeader": {"status": 0, "QTime": 3},
                   "response": {"numFound": docs.len(), "start": 0, "docs": docs}}),
        )
    }

    fn metadata(library: &FakeLibrary) -> Value {
        let mut metadata = library.metadata.clone();
        metadata["num_documents"] = json!(library.documents.len());
        metadata
    }

    fn list(&self, query: &HashMap<String, String>) -> Response {
        let start = number(query, "start", 0);
        let rows = number(query, "rows", usize::MAX);
        let libraries: Vec<Value> = self
            .libraries
            .iter()
            .filter(|library| !library.hidden)
            .skip(start)
            .take(rows)
            .map(Self::metadata)
            .collect();
        reply(200, json!({"libraries": libraries}))
    }

    fn contents(&mut self, id: &str, query: &HashMap<String, String>) -> Response {
        let replaced = self.replaced.clone();
        let Some(library) = self.library_mut(id) else {
            return reply(404, json!({"error": "Library does not exist"}));
        };
        if library.hidden {
            return reply(
                403,
                json!({"error": "You do not have permission to view this library"}),
            );
        }
        // ADS validates the library against search: a replaced bibcode is stored anew.
        let mut update_list = Vec::new();
        for bibcode in &mut library.documents {
            if let Some(new) = replaced.get(bibcode.as_str()) {
                update_list.push(json!({ bibcode.clone(): new }));
                *bibcode = new.clone();
            }
        }
        let start = number(query, "start", 0);
        let rows = number(query, "rows", 20).min(PAGE_CAP);
        let page: Vec<&String> = library.documents.iter().skip(start).take(rows).collect();
        reply(
            200,
            json!({
                "documents": page,
                "solr": {"responseHeader": {"status": 0}, "response": {"numFound": library.documents.len(), "start": start, "docs": page.iter().map(|b| json!({"bibcode": b})).collect::<Vec<_>>()}},
                "metadata": Self::metadata(library),
                "updates": {"num_updated": update_list.len(), "duplicates_removed": 0, "update_list": update_list},
            }),
        )
    }

    fn create(&mut self, body: &Value) -> Response {
        let name = body["name"]
            .as_str()
            .unwrap_or("Untitled Library 1")
            .to_string();
        if self
            .libraries
            .iter()
            .any(|l| l.metadata["name"] == name.as_str() && l.metadata["permission"] == "owner")
        {
            return reply(
                409,
                json!({"error": format!("Library name given [{name}] already exists and must be unique.")}),
            );
        }
        let id = format!("AsterismFake{:010}", self.libraries.len());
        let documents: Vec<String> = strings(&body["bibcode"])
            .into_iter()
            .filter(|bibcode| self.known(bibcode))
            .collect();
        let description = body["description"].as_str().unwrap_or("My ADS library");
        self.libraries.push(FakeLibrary {
            metadata: json!({
                "name": name, "id": id, "description": description,
                "date_created": "2026-12-01T00:00:00.000000",
                "date_last_modified": "2026-12-01T00:00:00.000000",
                "permission": "owner", "public": false, "num_users": 1, "owner": "astronomer",
            }),
            documents: documents.clone(),
            hidden: false,
        });
        reply(
            200,
            json!({"name": name, "id": id, "description": description, "bibcode": documents}),
        )
    }

    fn change(&mut self, id: &str, body: &Value) -> Response {
        let bibcodes = strings(&body["bibcode"]);
        let action = body["action"].as_str().unwrap_or("");
        let known: Vec<bool> = bibcodes.iter().map(|b| self.known(b)).collect();
        let Some(library) = self.library_mut(id) else {
            return reply(404, json!({"error": "Library does not exist"}));
        };
        if library.hidden
            || !matches!(
                library.metadata["permission"].as_str(),
                Some("owner" | "admin" | "write")
            )
        {
            return reply(
                403,
                json!({"error": "You do not have permission to do this"}),
            );
        }
        let answer = match action {
            "add" => {
                let mut added = 0;
                let mut invalid = Vec::new();
                for (bibcode, known) in bibcodes.iter().zip(known) {
                    if !known {
                        invalid.push(bibcode.clone());
                    } else if !library.documents.contains(bibcode) {
                        library.documents.push(bibcode.clone());
                        added += 1;
                    }
                }
                if invalid.is_empty() {
                    json!({"number_added": added})
                } else {
                    json!({"number_added": added, "invalid_identifiers": invalid})
                }
            }
            "remove" => {
                let before = library.documents.len();
                library
                    .documents
                    .retain(|bibcode| !bibcodes.contains(bibcode));
                json!({"number_removed": before - library.documents.len()})
            }
            _ => return reply(400, json!({"error": "Wrong action"})),
        };
        self.touch(id);
        reply(200, answer)
    }
}

fn strings(value: &Value) -> Vec<String> {
    value
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|item| item.as_str().map(str::to_string))
        .collect()
}

fn number(query: &HashMap<String, String>, name: &str, default: usize) -> usize {
    query
        .get(name)
        .and_then(|value| value.parse().ok())
        .unwrap_or(default)
}

fn reply(status: u16, body: Value) -> Response {
    Response::builder()
        .status(StatusCode::from_u16(status).unwrap_or(StatusCode::OK))
        .header("content-type", "application/json")
        .body(Body::from(body.to_string()))
        .unwrap_or_default()
}

fn exhausted() -> Response {
    Response::builder()
        .status(StatusCode::TOO_MANY_REQUESTS)
        .header("content-type", "application/json")
        .header("X-RateLimit-Limit", "5000")
        .header("X-RateLimit-Remaining", "0")
        .header("X-RateLimit-Reset", "1700000000")
        .body(Body::from(r#"{"error": "Too many requests"}"#))
        .unwrap_or_default()
}
