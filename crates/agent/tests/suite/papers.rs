use asterism_protocol::RunFinishReason;
use asterism_testkit::{ScriptedToolCall, Turn};
use serde_json::json;

use super::common::{Harness, tool_results};

#[tokio::test]
async fn the_agent_searches_looks_up_and_reports_papers() {
    let turns = vec![
        Turn {
            tool_calls: vec![
                ScriptedToolCall {
                    id: Some("s".into()),
                    name: "search_papers".into(),
                    arguments: json!({"query": "testing", "limit": 5}),
                },
                ScriptedToolCall {
                    id: Some("m".into()),
                    name: "get_paper_metadata".into(),
                    arguments: json!({"id": "2013PASP..125..306F"}),
                },
            ],
            ..Turn::default()
        },
        Turn {
            text: Some("emcee is cited thousands of times.".into()),
            ..Turn::default()
        },
    ];
    let harness = Harness::start(turns).await;
    let (outcome, events) = harness
        .ask(None, "Find papers on testing and tell me about emcee")
        .await;
    assert_eq!(outcome.reason, RunFinishReason::Completed);
    let results = tool_results(&events);
    let (search, search_error, search_meta) = results
        .iter()
        .find(|(_, _, meta)| meta.get("papers").is_some())
        .unwrap();
    assert!(!search_error, "{search}");
    assert_eq!(search_meta["papers"].as_array().unwrap().len(), 5);
    assert!(search.starts_with("1. "), "{search}");
    assert!(search.contains("ADS: 10 found"), "{search}");
    let (metadata, metadata_error, paper) = results
        .iter()
        .find(|(_, _, meta)| meta.get("bibcode").is_some())
        .unwrap();
    assert!(!metadata_error, "{metadata}");
    assert_eq!(paper["arxivId"], "1202.3665");
    assert!(
        metadata.contains("Abstract: We introduce a stable, well tested Python implementation"),
        "{metadata}"
    );
    harness.mock.assert_no_violations();
}

#[tokio::test]
async fn the_agent_is_told_when_less_than_a_tenth_of_the_ads_quota_is_left() {
    let turns = vec![
        Turn::calls(vec![ScriptedToolCall::new(
            "s",
            "search_papers",
            json!({"query": "quota of the maser distance", "limit": 3}),
        )]),
        Turn::answer("Found them."),
    ];
    let harness = Harness::start(turns).await;
    let (outcome, events) = harness.ask(None, "Find maser distance papers").await;
    assert_eq!(outcome.reason, RunFinishReason::Completed);
    let (search, _, metadata) = &tool_results(&events)[0];
    assert!(
        search.contains(
            "ADS quota low: 312 of 5000 requests left, resets 2023-11-14T22:13:20Z. Prefer the library"
        ),
        "{search}"
    );
    assert_eq!(metadata["adsRateLimit"]["remaining"], 312);
    // The model read it: the tool result went back in the next request.
    let next = &harness.mock.requests()[1].body;
    assert!(next.to_string().contains("ADS quota low"), "{next}");
}

#[tokio::test]
async fn the_agent_downloads_parses_reads_a_section_and_cites_it() {
    let call = |id: &str, name: &str, arguments: serde_json::Value| Turn {
        tool_calls: vec![ScriptedToolCall {
            id: Some(id.into()),
            name: name.into(),
            arguments,
        }],
        ..Turn::default()
    };
    let turns = vec![
        call("d", "download_paper", json!({"id": "2013PASP..125..306F"})),
        call("p", "parse_paper", json!({"id": "arXiv:1202.3665"})),
        call(
            "c",
            "get_paper_content",
            json!({"id": "2013PASP..125..306F", "section": "2.1"}),
        ),
        call(
            "c2",
            "get_paper_content",
            json!({"id": "1202.3665", "pages": "40"}),
        ),
        call(
            "b",
            "bibtex",
            json!({"ids": ["2013PASP..125..306F", "2015RaSc...50..916A"]}),
        ),
        Turn {
            text: Some("Section 2.1 describes DL3 [p. 3].".into()),
            ..Turn::default()
        },
    ];
    let harness = Harness::start(turns).await;
    let (outcome, events) = harness.ask(None, "Read the emcee paper").await;
    assert_eq!(outcome.reason, RunFinishReason::Completed);
    let results = tool_results(&events);
    assert_eq!(results.len(), 5, "{results:#?}");
    let (download, error, _) = &results[0];
    assert!(!error, "{download}");
    let (parse, error, meta) = &results[1];
    assert!(!error, "{parse}");
    // No arXiv HTML (404): the downloaded PDF was read, with pages and sections.
    assert_eq!(meta["source"], "pdf");
    assert_eq!(meta["pages"], 26);
    assert!(parse.contains("arXiv HTML: HTTP 404"), "{parse}");
    assert!(
        parse.contains("- 2.1 DL3: events and instrument response functions (p. 3)"),
        "{parse}"
    );
    let (content, error, meta) = &results[2];
    assert!(!error, "{content}");
    assert_eq!(
        meta["selected"],
        "section 2.1 DL3: events and instrument response functions"
    );
    assert!(content.contains("<!-- page 3 -->"), "{content}");
    assert!(!content.contains("## 3 Gammapy package"), "{content}");
    let (missing_page, error, _) = &results[3];
    assert!(error, "{missing_page}");
    assert!(missing_page.contains("no page 40"), "{missing_page}");
    let (bibtex, error, meta) = &results[4];
    assert!(!error, "{bibtex}");
    let entries = meta["entries"].as_array().unwrap();
    // ADS exported the RaSc paper; its (recorded) export has no emcee entry, which is
    // made locally; keys are the stable ones either way.
    assert_eq!(entries[0]["key"], "foremanmackey2013emcee");
    assert_eq!(entries[0]["source"], "local");
    assert_eq!(entries[1]["source"], "ads");
    assert_eq!(entries[1]["key"], "ads2015vertical");
    assert!(bibtex.contains("@ARTICLE{ads2015vertical,"), "{bibtex}");
    assert!(bibtex.contains("doi = {10.1002/2015RS005773}"), "{bibtex}");
    assert!(
        bibtex.contains("@article{foremanmackey2013emcee,"),
        "{bibtex}"
    );
    let status = harness
        .store
        .paper_status(Some("2013PASP..125..306F"), None, None)
        .await
        .unwrap();
    assert_eq!(status.as_deref(), Some("parsed"));
    harness.mock.assert_no_violations();
}

#[tokio::test]
async fn memories_pass_the_gate_and_reach_the_next_sessions_prompt() {
    let save = |id: &str, content: &str| ScriptedToolCall {
        id: Some(id.into()),
        name: "save_memory".into(),
        arguments: json!({"content": content, "kind": "project"}),
    };
    let thesis = "The user's thesis measures TRGB distances to SN Ia hosts with JWST NIRCam.";
    let turns = vec![
        Turn {
            tool_calls: vec![save("m1", thesis)],
            ..Turn::default()
        },
        Turn {
            tool_calls: vec![
                save("m2", "likes TRGB"),
                save(
                    "m3",
                    "Today the user reads Freedman et al. 2024 on the tension.",
                ),
                save(
                    "m4",
                    "The user's thesis measures TRGB distances to SN Ia hosts with JWST.",
                ),
            ],
            ..Turn::default()
        },
        Turn {
            text: Some("Noted.".into()),
            ..Turn::default()
        },
        Turn {
            text: Some("Hello again.".into()),
            ..Turn::default()
        },
    ];
    let harness = Harness::start(turns).await;
    let (_, events) = harness.ask(None, "Remember my thesis topic").await;
    let results = tool_results(&events);
    assert_eq!(results.len(), 4);
    assert!(!results[0].1, "{}", results[0].0);
    let refused: Vec<&str> = results[1..]
        .iter()
        .map(|(text, _, _)| text.as_str())
        .collect();
    assert!(refused[0].contains("too short"), "{refused:?}");
    assert!(refused[1].contains("about now"), "{refused:?}");
    assert!(refused[2].contains("already remembered"), "{refused:?}");
    assert_eq!(harness.store.memories(10).await.unwrap().len(), 1);

    // A new session's instructions carry the memory.
    harness.ask(None, "Hi").await;
    let requests = harness.mock.requests();
    let system = requests.last().unwrap().body["messages"][0]["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        system.contains(&format!("- [project] {thesis}")),
        "{system}"
    );
    harness.mock.assert_no_violations();
}
