//! Property tests of the ADS JSON readers: [`paper_from_doc`] directly, and
//! [`AdsClient`] search, export and links against a loopback server serving damaged
//! answers. Whatever the bytes, the client returns papers or a typed error, never
//! panics, and never makes a paper without a bibcode.
//!
//! Each property runs proptest's default 256 cases (`PROPTEST_CASES` runs more).

use std::time::Duration;

use asterism_library::sources::ads::{AdsClient, AdsError, AdsQuery, paper_from_doc};
use asterism_protocol::PaperRecord;
use proptest::prelude::*;
use proptest::sample::Index;
use serde_json::{Value, json};

use super::mutate::{as_text, fetch, fixture, mutated, mutations};

const SEARCHES: &[&str] = &[
    "search_bigquery_10docs_citationbot.json",
    "search_query_author_martinez_rows1_jsontool.json",
    "search_query_bibcode_title.json",
    "search_query_black_holes_bibcodes.json",
    "search_query_dark_energy_spergel_citation_count.json",
    "search_query_persson_water_astroquery.json",
    "search_query_references_1998ApJ509_678G_reserialized.json",
    "search_query_transiting_exoplanets_jwst_titles.json",
    "search_query_transiting_exoplanets_page1.json",
];

const EXPORTS: &[&str] = &[
    "export_bibtex_single_2015RaSc.json",
    "export_aastex_3records.json",
    "export_bibtex_27records_reserialized.json",
];

/// A recorded search answer; the last one is the emcee doc (recorded with every field
/// but without its envelope) in a search envelope.
fn search_body(index: usize) -> Vec<u8> {
    match SEARCHES.get(index) {
        Some(name) => fixture(&format!("ads/{name}")),
        None => {
            let doc = as_text(&fixture("ads/doc_emcee_all_fields_adsabs_rs.json"));
            format!("{{\"response\":{{\"numFound\":1,\"start\":0,\"docs\":[{doc}]}}}}").into_bytes()
        }
    }
}

/// Every recorded doc.
fn recorded_docs() -> Vec<Value> {
    (0..=SEARCHES.len())
        .flat_map(|index| {
            let body: Value = serde_json::from_slice(&search_body(index)).unwrap();
            body["response"]["docs"]
                .as_array()
                .cloned()
                .unwrap_or_default()
        })
        .collect()
}

fn client(url: &str) -> AdsClient {
    AdsClient::new(
        format!("{url}/v1"),
        Some("token".into()),
        Duration::from_secs(5),
    )
    .unwrap()
}

fn query() -> AdsQuery {
    AdsQuery {
        q: "water".into(),
        rows: 10,
        ..AdsQuery::default()
    }
}

/// What every paper read from ADS must satisfy.
fn check_paper(paper: &PaperRecord) -> Result<(), TestCaseError> {
    prop_assert!(
        paper
            .bibcode
            .as_deref()
            .is_some_and(|bibcode| !bibcode.trim().is_empty()),
        "a paper without a bibcode: {paper:?}"
    );
    prop_assert!(paper.citation_count.is_none_or(|n| n >= 0), "{paper:?}");
    prop_assert!(paper.arxiv_id.as_deref().is_none_or(|id| !id.is_empty()));
    prop_assert_eq!(paper.sources.as_slice(), ["ads".to_string()]);
    Ok(())
}

/// A client error a bad answer may cause, with the status that causes it.
fn check_error(status: u16, error: &AdsError) -> Result<(), TestCaseError> {
    match error {
        AdsError::BadResponse(message) => prop_assert!(status == 200 && !message.is_empty()),
        AdsError::Unauthorized => prop_assert_eq!(status, 401),
        AdsError::RateLimited(_) => prop_assert_eq!(status, 429),
        AdsError::Http { status: code, .. } => prop_assert_eq!(*code, status),
        other => prop_assert!(false, "{other:?}"),
    }
    Ok(())
}

#[test]
fn the_recorded_answers_read_to_their_known_values() {
    let search = |index| {
        fetch(
            200,
            "application/json",
            search_body(index),
            client,
            |client| async move { client.search(&query()).await },
        )
        .unwrap()
    };
    let bigquery = search(0);
    assert_eq!((bigquery.num_found, bigquery.papers.len()), (10, 10));
    assert_eq!(
        bigquery.papers[0].bibcode.as_deref(),
        Some("1996GSAB..108..195R")
    );
    let persson = search(5);
    assert_eq!(
        persson.papers[0].bibcode.as_deref(),
        Some("2011IAUS..280P.295P")
    );
    assert!(persson.papers[0].abstract_text.is_some());
    assert_eq!(search(3).num_found, 60233);
    assert_eq!(search(4).papers.len(), 10);
    // Fields without a bibcode (fl=title) give no paper.
    assert!(search(7).papers.is_empty());
    let emcee = search(SEARCHES.len());
    assert_eq!(emcee.papers[0].arxiv_id.as_deref(), Some("1202.3665"));
    for index in 0..=SEARCHES.len() {
        for paper in search(index).papers {
            check_paper(&paper).unwrap();
        }
    }
    let export = fetch(
        200,
        "application/json",
        fixture("ads/export_bibtex_single_2015RaSc.json"),
        client,
        |client| async move { client.export_bibtex(&["2015RaSc...50..916A".into()]).await },
    )
    .unwrap();
    assert!(export.starts_with("@ARTICLE{2015RaSc"), "{export}");
}

/// The fields a doc may hold.
const DOC_FIELDS: &[&str] = &[
    "title",
    "author",
    "aff",
    "year",
    "pub",
    "volume",
    "page",
    "doi",
    "identifier",
    "abstract",
    "keyword",
    "citation_count",
    "pubdate",
    "doctype",
    "arxiv_class",
];

/// ADS's field names, and a few others.
fn field_name() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => prop::sample::select(DOC_FIELDS).prop_map(str::to_string),
        2 => prop::sample::select(vec![
            "bibcode", "response", "docs", "numFound", "export", "links", "records",
            "link_type", "url", "link", "error",
        ])
        .prop_map(str::to_string),
        1 => "\\PC{0,6}",
    ]
}

/// A number or string of the kinds ADS fields hold, and numbers past every integer type.
fn json_leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        1 => Just(Value::Null),
        1 => any::<bool>().prop_map(Value::Bool),
        1 => (-3i64..3).prop_map(|n| json!(n)),
        1 => (0i64..3000).prop_map(|n| json!(n)),
        1 => any::<i64>().prop_map(|n| json!(n)),
        1 => any::<u64>().prop_map(|n| json!(n)),
        1 => any::<f64>().prop_filter_map("JSON has no NaN", |x| serde_json::Number::from_f64(x)
            .map(Value::Number)),
        3 => prop::sample::select(vec![
            "2013PASP..125..306F", "arXiv:1202.3665", "arxiv:", "2012arXiv1202.3665F",
            "2012arXiv", "arXiv:v2", "    ", "", "<SUP>x</SUP>&amp;", "<", "20", "2013-05-00",
            "-999", "abcd", "ESOURCE|EPRINT_PDF", "ð", "1e999",
        ])
        .prop_map(|text| json!(text)),
        1 => "\\PC{0,12}".prop_map(Value::String),
    ]
}

/// Any JSON, leaves most often.
fn json_value() -> impl Strategy<Value = Value> {
    let nested = json_leaf().prop_recursive(4, 64, 8, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((field_name(), inner), 0..8)
                .prop_map(|fields| Value::Object(fields.into_iter().collect())),
        ]
    });
    prop_oneof![2 => json_leaf(), 1 => nested]
}

/// A doc whose every ADS field may hold anything, most with a bibcode of some sort.
fn doc() -> impl Strategy<Value = Value> {
    let bibcode = prop::option::of(prop_oneof![
        prop::sample::select(vec![
            "2013PASP..125..306F",
            "2012arXiv1202.3665F",
            "",
            "   ",
            "x"
        ])
        .prop_map(|text| json!(text)),
        "\\PC{0,20}".prop_map(Value::String),
        json_value(),
    ]);
    let fields = prop::collection::vec(prop::option::of(json_value()), DOC_FIELDS.len());
    let extra = prop::collection::vec((field_name(), json_value()), 0..4);
    (bibcode, fields, extra).prop_map(|(bibcode, fields, extra)| {
        let mut doc: serde_json::Map<String, Value> = extra.into_iter().collect();
        for (name, value) in DOC_FIELDS.iter().zip(fields) {
            if let Some(value) = value {
                doc.insert((*name).into(), value);
            }
        }
        if let Some(bibcode) = bibcode {
            doc.insert("bibcode".into(), bibcode);
        }
        Value::Object(doc)
    })
}

proptest! {
    #![proptest_config(ProptestConfig {
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// Docs of ADS fields with values of any type and size.
    #[test]
    fn any_doc_gives_a_paper_with_a_bibcode_or_none(doc in doc()) {
        if let Some(paper) = paper_from_doc(&doc) {
            check_paper(&paper)?;
        }
    }

    /// Any JSON at all where a doc should be.
    #[test]
    fn any_json_gives_a_paper_with_a_bibcode_or_none(value in json_value()) {
        if let Some(paper) = paper_from_doc(&value) {
            check_paper(&paper)?;
        }
    }

    /// A recorded doc with up to 6 fields replaced by anything or removed.
    #[test]
    fn tampered_recorded_docs_give_a_paper_with_a_bibcode_or_none(
        which in any::<Index>(),
        changes in prop::collection::vec((any::<Index>(), prop::option::of(json_value())), 1..6),
    ) {
        let docs = recorded_docs();
        let mut doc = which.get(&docs).clone();
        for (field, value) in changes {
            let Some(fields) = doc.as_object_mut().filter(|fields| !fields.is_empty()) else {
                break;
            };
            let Some(key) = fields.keys().nth(field.index(fields.len())).cloned() else {
                break;
            };
            match value {
                Some(value) => fields.insert(key, value),
                None => fields.remove(&key),
            };
        }
        if let Some(paper) = paper_from_doc(&doc) {
            check_paper(&paper)?;
        }
    }

    /// A recorded search answer after up to 7 mutations (flipped, inserted, deleted
    /// bytes, truncation, invalid UTF-8, a deleted `<…>` span, a duplicated line, a huge
    /// number), served with a 200 or an error status, through `AdsClient::search`.
    #[test]
    fn the_client_reads_damaged_searches_into_papers_or_a_typed_error(
        which in 0..=SEARCHES.len(),
        damage in mutations(),
        status in prop::sample::select(vec![200u16, 200, 200, 401, 429, 500, 503]),
    ) {
        let body = mutated(&search_body(which), &damage);
        let result = fetch(status, "application/json", body, client, |client| async move {
            client.search(&query()).await
        });
        match &result {
            Ok(search) => {
                prop_assert_eq!(status, 200);
                for paper in &search.papers {
                    check_paper(paper)?;
                }
            }
            Err(error) => check_error(status, error)?,
        }
    }

    /// Any JSON served as a search answer: any envelope, any docs.
    #[test]
    fn the_client_reads_any_json_search_into_papers_or_a_typed_error(
        num_found in json_value(),
        docs in prop::collection::vec(doc(), 0..4),
        bare in json_value(),
        enveloped in any::<bool>(),
    ) {
        let body = if enveloped {
            json!({"responseHeader": {"status": 0}, "response": {"numFound": num_found, "docs": docs}})
        } else {
            bare
        };
        let result = fetch(200, "application/json", body.to_string().into_bytes(), client, |client| async move {
            client.search(&query()).await
        });
        match &result {
            Ok(search) => {
                for paper in &search.papers {
                    check_paper(paper)?;
                }
            }
            Err(error) => check_error(200, error)?,
        }
    }

    /// Recorded exports after up to 7 mutations, through `AdsClient::export_bibtex`.
    #[test]
    fn the_client_reads_damaged_exports_into_text_or_a_typed_error(
        which in 0..EXPORTS.len(),
        damage in mutations(),
        status in prop::sample::select(vec![200u16, 200, 401, 500]),
    ) {
        let body = mutated(&fixture(&format!("ads/{}", EXPORTS[which])), &damage);
        let result = fetch(status, "application/json", body, client, |client| async move {
            client.export_bibtex(&["2015RaSc...50..916A".into()]).await
        });
        match &result {
            Ok(_) => prop_assert_eq!(status, 200),
            Err(error) => check_error(status, error)?,
        }
    }

    /// Any JSON served as a link-resolver answer, through `AdsClient::links`.
    #[test]
    fn the_client_reads_any_json_links_into_links_or_a_typed_error(
        records in prop::collection::vec(json_value(), 0..4),
        bare in json_value(),
        enveloped in any::<bool>(),
    ) {
        let body = if enveloped {
            json!({"links": {"count": records.len(), "records": records}})
        } else {
            bare
        };
        let result = fetch(200, "application/json", body.to_string().into_bytes(), client, |client| async move {
            client.links("2013PASP..125..306F").await
        });
        if let Err(error) = &result {
            check_error(200, error)?;
        }
    }
}
