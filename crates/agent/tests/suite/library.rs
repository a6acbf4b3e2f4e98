//! rag_search and save_note through the agent: a real paper imported into the
//! library, embedded through the scripted endpoint, answered with citations.

use asterism_protocol::RunFinishReason;
use asterism_store::PaperFilter;
use asterism_testkit::{ScriptedToolCall, Turn, fixture_path};
use serde_json::json;

use super::common::{Harness, tool_results};

fn call(id: &str, name: &str, arguments: serde_json::Value) -> Turn {
    Turn {
        tool_calls: vec![ScriptedToolCall {
            id: Some(id.into()),
            name: name.into(),
            arguments,
        }],
        ..Turn::default()
    }
}

fn text(answer: &str) -> Turn {
    Turn {
        text: Some(answer.into()),
        ..Turn::default()
    }
}

#[tokio::test]
async fn rag_search_answers_from_the_library_with_page_citations_and_notes_are_saved() {
    let turns = vec![
        call(
            "r1",
            "rag_search",
            json!({"question": "How old is the Kepler 1627 planet and its cluster?"}),
        ),
        // The tool's own request to the model (no tools): the cited answer.
        text("Kepler 1627Ab is about 38 Myr old, like the δ Lyr cluster it belongs to [1]."),
        call(
            "r2",
            "rag_search",
            json!({"question": "qwertyzz frobnicate blorptastic"}),
        ),
        call(
            "n1",
            "save_note",
            json!({"paper": "PAPER_ID", "comment": "38 Myr"}),
        ),
        call(
            "n2",
            "save_note",
            json!({"paper": "kepler1627.pdf", "page": 1, "quote": "Kepler 1627", "comment": "38 Myr: youngest Kepler planet", "color": "yellow"}),
        ),
        text("Kepler 1627Ab is ~38 Myr old (Bouma et al.)."),
    ];
    let harness = Harness::start(turns).await;
    let library = &harness.runtime.services().library;
    let folder = harness.data_dir().join("incoming");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::copy(
        fixture_path("pdfs/rudolf_ms.pdf"),
        folder.join("kepler1627.pdf"),
    )
    .unwrap();
    library.import(&[folder], false, &|_, _, _| {}).await;
    let report = library.index(&|_, _| {}).await.unwrap().unwrap();
    assert_eq!(report.remaining, 0);
    let paper_id = harness
        .store
        .library_papers(&PaperFilter::default())
        .await
        .unwrap()[0]
        .id
        .clone();

    let (outcome, events) = harness.ask(None, "How old is Kepler 1627?").await;
    assert_eq!(
        outcome.reason,
        RunFinishReason::Completed,
        "{:?}",
        outcome.error
    );
    let results = tool_results(&events);
    let answer = &results[0];
    assert!(!answer.1, "{}", answer.0);
    assert!(
        answer.0.starts_with("Kepler 1627Ab is about 38 Myr old"),
        "{}",
        answer.0
    );
    assert!(answer.0.contains("Sources:\n[1] "), "{}", answer.0);
    assert!(answer.0.contains(", p. "), "{}", answer.0);
    assert!(answer.0.contains("[kepler1627.pdf]"), "{}", answer.0);
    let evidence = answer.2["evidence"].as_array().unwrap();
    assert!(!evidence.is_empty());
    assert_eq!(evidence[0]["cited"], true);
    assert!(evidence[0]["page"].as_i64().is_some());
    assert!(evidence[0]["quote"].as_str().unwrap().len() > 100);
    assert_eq!(answer.2["mode"], "hybrid");
    // The model saw numbered passages and nothing else.
    let side = &harness.mock.requests()[1].body;
    assert!(side.get("tools").is_none());
    let prompt = side["messages"][1]["content"].as_str().unwrap();
    assert!(prompt.starts_with("Passages:\n\n[1] "), "{prompt}");

    let nothing = &results[1];
    assert!(!nothing.1);
    assert!(
        nothing.0.starts_with("The library has nothing relevant"),
        "{}",
        nothing.0
    );
    assert_eq!(nothing.2["answered"], false);

    // The model call inside rag_search counts, under rag_search, in the metrics and the
    // run's usage: 5 calls of the agent and 1 of the tool.
    let metrics = harness
        .store
        .session_metrics(&outcome.session_id)
        .await
        .unwrap();
    let models: Vec<_> = metrics.iter().filter(|m| m.kind == "model").collect();
    assert_eq!(models.len(), 6, "{metrics:?}");
    let inner: Vec<_> = models
        .iter()
        .filter(|m| m.via.as_deref() == Some("rag_search"))
        .collect();
    assert_eq!(inner.len(), 1, "{models:?}");
    assert!(inner[0].prompt_tokens > 0 && inner[0].completion_tokens > 0);
    let prompt: i32 = models.iter().map(|m| m.prompt_tokens).sum();
    let completion: i32 = models.iter().map(|m| m.completion_tokens).sum();
    assert_eq!(
        (outcome.usage.prompt_tokens, outcome.usage.completion_tokens),
        (prompt, completion)
    );

    // save_note: an unknown paper is refused; the imported file's name finds it.
    assert!(
        results[2].1,
        "PAPER_ID is not a library paper: {}",
        results[2].0
    );
    assert!(results[2].0.contains("not in the library"));
    assert!(!results[3].1, "{}", results[3].0);
    let notes = harness.store.notes(Some(&paper_id)).await.unwrap();
    assert_eq!(notes.len(), 1);
    assert_eq!(notes[0].page, Some(1));
    assert_eq!(notes[0].quote.as_deref(), Some("Kepler 1627"));
    assert_eq!(notes[0].color.as_deref(), Some("yellow"));
    assert_eq!(
        harness
            .store
            .search_notes("\"youngest\"", 5)
            .await
            .unwrap()
            .len(),
        1
    );
    harness.mock.assert_no_violations();
}

#[tokio::test]
async fn rag_citations_that_name_no_given_passage_are_removed_and_said() {
    let turns = vec![
        call(
            "r1",
            "rag_search",
            json!({"question": "How old is Kepler 1627?"}),
        ),
        text("It is about 30 Myr old [1, 2, 3], older than the Sun [42]."),
        call(
            "r2",
            "rag_search",
            json!({"question": "How old is the Kepler 1627 cluster?"}),
        ),
        text("About 38 Myr [99]."),
        text("Done."),
    ];
    let harness = Harness::start(turns).await;
    let library = &harness.runtime.services().library;
    let folder = harness.data_dir().join("incoming");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::copy(
        fixture_path("pdfs/rudolf_ms.pdf"),
        folder.join("kepler1627.pdf"),
    )
    .unwrap();
    library.import(&[folder], false, &|_, _, _| {}).await;
    library.index(&|_, _| {}).await.unwrap().unwrap();

    let (outcome, events) = harness.ask(None, "How old is Kepler 1627?").await;
    assert_eq!(
        outcome.reason,
        RunFinishReason::Completed,
        "{:?}",
        outcome.error
    );
    let results = tool_results(&events);
    let (mixed, _, metadata) = &results[0];
    assert!(
        mixed.starts_with("It is about 30 Myr old [1, 2, 3], older than the Sun."),
        "{mixed}"
    );
    assert!(mixed.contains("(Removed citation #42:"), "{mixed}");
    assert_eq!(metadata["removedCitations"], json!([42]));
    assert_eq!(metadata["answered"], true);
    // The kept claim is quoted from the passages it cites, each quote with its page;
    // a cited passage without the claim's words is flagged, not quoted.
    let claim = &metadata["claims"][0];
    assert_eq!(claim["text"], "It is about 30 Myr old, older than the Sun.");
    let support = claim["support"].as_array().unwrap();
    assert_eq!(
        support.iter().map(|s| s["n"].clone()).collect::<Vec<_>>(),
        [1, 2, 3]
    );
    let quoted: Vec<&str> = support.iter().filter_map(|s| s["quote"].as_str()).collect();
    assert!(
        quoted.iter().any(|quote| quote.contains("Myr")),
        "{support:?}"
    );
    for item in support {
        assert!(item["page"].as_i64().is_some(), "{item}");
    }
    assert!(
        mixed.contains("- It is about 30 Myr old, older than the Sun.\n    [1] "),
        "{mixed}"
    );
    let flagged = support.iter().filter(|s| s["quote"].is_null()).count();
    assert_eq!(mixed.matches("check it").count(), flagged, "{mixed}");
    let (invalid, _, metadata) = &results[1];
    assert!(invalid.contains("(Removed citation #99:"), "{invalid}");
    assert_eq!(metadata["answered"], false, "no valid citation remains");
}

/// What a model answers when asked to score passages: JSON, as the prompt asks.
fn scores(pairs: &[(usize, u8, &str)]) -> Turn {
    let passages: Vec<serde_json::Value> = pairs
        .iter()
        .map(|(n, score, summary)| json!({"n": n, "score": score, "summary": summary}))
        .collect();
    text(&json!({ "passages": passages }).to_string())
}

#[tokio::test]
async fn rag_search_has_the_model_score_the_passages_and_asking_again_costs_nothing() {
    let question = "How old is the Kepler 1627 planet and its cluster?";
    let mut verdicts = vec![
        (1, 2, "Only names the cluster."),
        (2, 9, "Kepler 1627Ab is 38 Myr old, like δ Lyr."),
    ];
    verdicts.extend((3..=8).map(|n| (n, 1, "Not relevant.")));
    // The endpoint has no structured output (DeepSeek's answer to a JSON Schema): the
    // scoring is asked again without it.
    let no_schema = Turn {
        fault: Some(asterism_testkit::Fault::Http {
            status: 400,
            body: r#"{"error":{"message":"This response_format type is unavailable now","type":"invalid_request_error","param":null,"code":"invalid_request_error"}}"#.into(),
            retry_after: None,
        }),
        ..Turn::default()
    };
    let turns = vec![
        call("r1", "rag_search", json!({ "question": question })),
        no_schema,
        scores(&verdicts),
        text("Kepler 1627Ab is about 38 Myr old [1]."),
        call(
            "r2",
            "rag_search",
            json!({ "question": format!("  {question}  ") }),
        ),
        text("Kepler 1627Ab is about 38 Myr old [1]."),
        call(
            "r3",
            "rag_search",
            json!({"question": "What rotation period does Kepler 1627 have?"}),
        ),
        text("I'm sorry, I can only rate passages on Tuesdays."),
        text("The star rotates in 2.6 days [1]."),
        text("Done."),
    ];
    let setup = super::common::Setup {
        workspace: Some(env!("CARGO_MANIFEST_DIR").into()),
        rerank: Some(asterism_agent::rag::RerankSettings {
            enabled: true,
            candidates: 8,
            model: None,
        }),
        ..Default::default()
    };
    let harness = Harness::start_full(
        turns,
        asterism_agent::AgentConfig::default(),
        std::time::Duration::from_secs(5),
        |_| asterism_agent::ToolRegistry::new(),
        setup,
    )
    .await;
    let library = &harness.runtime.services().library;
    let folder = harness.data_dir().join("incoming");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::copy(
        fixture_path("pdfs/rudolf_ms.pdf"),
        folder.join("kepler1627.pdf"),
    )
    .unwrap();
    library.import(&[folder], false, &|_, _, _| {}).await;
    library.index(&|_, _| {}).await.unwrap().unwrap();

    let (outcome, events) = harness.ask(None, "How old is Kepler 1627?").await;
    assert_eq!(
        outcome.reason,
        RunFinishReason::Completed,
        "{:?}",
        outcome.error
    );
    let results = tool_results(&events);

    // The model's best passage (the search's second) is the only evidence left; its
    // score and summary go with it and into the answer's prompt.
    let first = &results[0].2;
    let evidence = first["evidence"].as_array().unwrap();
    assert_eq!(evidence.len(), 1, "{first:#}");
    assert_eq!(evidence[0]["verdict"]["score"], 9);
    let scored = first["rerank"]["scored"].as_u64().unwrap();
    assert!(scored >= 2, "{first:#}");
    assert_eq!(first["rerank"]["dropped"], scored - 1);
    assert_eq!(first["rerank"]["calls"], 1);
    assert!(first["rerank"]["promptTokens"].as_i64().unwrap() > 0);
    assert!(
        results[0]
            .0
            .contains("9/10: Kepler 1627Ab is 38 Myr old, like δ Lyr."),
        "{}",
        results[0].0
    );
    let requests = harness.mock.requests();
    let schema = &requests[1].body["response_format"];
    assert_eq!(schema["type"], "json_schema", "{:#}", requests[1].body);
    assert_eq!(
        schema["json_schema"]["schema"]["properties"]["passages"]["items"]["required"],
        json!(["n", "score", "summary"])
    );
    assert_eq!(requests[2].body["messages"], requests[1].body["messages"]);
    assert!(requests[2].body.get("response_format").is_none());
    let scoring = requests[2].body["messages"][1]["content"].as_str().unwrap();
    assert!(
        scoring.starts_with(&format!("Question: {question}\n\nPassages:\n\n[1] ")),
        "{scoring}"
    );
    // The evidence is the passage the model was shown as [2].
    let second_shown = scoring
        .split("\n\n[2] ")
        .nth(1)
        .unwrap()
        .split("\n\n[3] ")
        .next()
        .unwrap();
    assert!(
        second_shown.contains(evidence[0]["quote"].as_str().unwrap()),
        "{scoring}"
    );
    let answering = requests[3].body["messages"][1]["content"].as_str().unwrap();
    assert!(
        answering.contains("Summary (relevance 9/10): Kepler 1627Ab is 38 Myr old"),
        "{answering}"
    );

    // The same question (in other case and spacing): every verdict from the cache.
    let second = &results[1].2;
    assert_eq!(second["rerank"]["cached"], scored, "{second:#}");
    assert_eq!(
        (
            second["rerank"]["asked"].clone(),
            second["rerank"]["calls"].clone()
        ),
        (json!(0), json!(0))
    );
    assert_eq!(second["evidence"][0]["chunkId"], evidence[0]["chunkId"]);

    // Nonsense instead of scores: the search's order, and a notice; nothing is lost.
    let third = &results[2].2;
    assert!(
        third["rerank"]["notice"]
            .as_str()
            .unwrap()
            .contains("could not be had"),
        "{third:#}"
    );
    assert!(third["evidence"].as_array().unwrap().len() > 1);
    assert!(third["evidence"][0]["verdict"].is_null());
    assert!(
        results[2].0.contains("passages are in the search's order"),
        "{}",
        results[2].0
    );

    // Every scoring request counts under rag_search: 2 + 1 + 2 calls.
    let metrics = harness
        .store
        .session_metrics(&outcome.session_id)
        .await
        .unwrap();
    let inner = metrics
        .iter()
        .filter(|m| m.kind == "model" && m.via.as_deref() == Some("rag_search"))
        .count();
    assert_eq!(inner, 5, "{metrics:?}");
    harness.mock.assert_no_violations();
}
