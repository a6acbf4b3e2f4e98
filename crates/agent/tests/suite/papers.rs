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
