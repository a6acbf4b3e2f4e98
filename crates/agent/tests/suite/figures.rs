//! `view_figure`: a model that takes images is shown a figure of a library paper, cut
//! from the stored PDF, only when the user allows it; a model that does not is never
//! offered the tool.

use std::time::Duration;

use asterism_agent::AgentConfig;
use asterism_agent::permissions::PermissionAnswer;
use asterism_testkit::{ScriptedToolCall, Turn, fixture_path};
use base64::Engine;
use serde_json::json;

use super::common::{Harness, Setup, tool_results};
use super::permissions::{requests, run_answering};

fn view(id: &str) -> Turn {
    Turn {
        tool_calls: vec![ScriptedToolCall {
            id: Some(id.into()),
            name: "view_figure".into(),
            arguments: json!({"id": "celerite.pdf", "figure": "fig. 1", "question": "What structure does the matrix have?"}),
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

async fn harness(turns: Vec<Turn>, vision: bool) -> Harness {
    let setup = Setup {
        vision,
        ..Setup::default()
    };
    Harness::start_full(
        turns,
        AgentConfig::default(),
        Duration::from_secs(5),
        |_| asterism_agent::ToolRegistry::new(),
        setup,
    )
    .await
}

/// The images of every request the scripted model received.
fn images_sent(harness: &Harness) -> Vec<String> {
    harness
        .mock
        .requests()
        .iter()
        .flat_map(|request| {
            request.body["messages"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|m| m["content"].as_array())
                .flatten()
                .filter_map(|part| part["image_url"]["url"].as_str().map(str::to_string))
                .collect::<Vec<_>>()
        })
        .collect()
}

#[tokio::test]
async fn view_figure_shows_the_model_the_figure_only_when_the_user_allows_it() {
    let turns = vec![
        view("v1"),
        text("I was not allowed to look at the figure."),
        view("v2"),
        // The tool's own request, with the image: what the model reads from it.
        text("A sparse banded matrix: coloured blocks along the diagonal for N = 5, J = 2."),
        text("Figure 1 shows a banded sparse matrix (p. 9)."),
    ];
    let harness = harness(turns, true).await;
    let folder = harness.data_dir().join("incoming");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::copy(
        fixture_path("pdfs/celerite_ms.pdf"),
        folder.join("celerite.pdf"),
    )
    .unwrap();
    harness
        .runtime
        .services()
        .library
        .import(&[folder], false, &|_, _, _| {})
        .await;

    // Declined: nothing of the figure leaves.
    let (_, events) = run_answering(&harness, None, PermissionAnswer::Deny { reason: None }).await;
    assert_eq!(requests(&events), 1, "the user is asked");
    let results = tool_results(&events);
    assert!(results[0].1, "declined: {:?}", results[0]);
    assert!(
        images_sent(&harness).is_empty(),
        "no image without the user's yes"
    );

    // Allowed once: the figure goes to the model as a PNG with its label and page, and
    // what the model read comes back as the tool's text.
    let before = harness.mock.requests().len();
    let (_, events) = run_answering(&harness, None, PermissionAnswer::AllowOnce).await;
    assert_eq!(requests(&events), 1);
    let results = tool_results(&events);
    assert!(!results[0].1, "{:?}", results[0]);
    assert!(results[0].0.contains("Figure 1 of"), "{}", results[0].0);
    assert!(
        results[0].0.contains("coloured blocks along the diagonal"),
        "{}",
        results[0].0
    );
    assert_eq!(results[0].2["label"], "Figure 1");
    assert_eq!(results[0].2["page"], 9);
    let images = images_sent(&harness);
    assert_eq!(images.len(), 1, "one image, in one request");
    let png = base64::engine::general_purpose::STANDARD
        .decode(images[0].strip_prefix("data:image/png;base64,").unwrap())
        .unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    let width = u32::from_be_bytes(png[16..20].try_into().unwrap());
    assert!(width > 350, "readable: {width} px across");
    let asked = &harness.mock.requests()[before + 1].body;
    assert!(
        asked.get("tools").is_none(),
        "the look is a request of its own"
    );
    let prompt = asked["messages"][1]["content"][0]["text"].as_str().unwrap();
    assert!(
        prompt.contains("Figure 1 of") && prompt.contains("(page 9)"),
        "{prompt}"
    );
    assert!(
        prompt.contains("What structure does the matrix have?"),
        "{prompt}"
    );
}

#[tokio::test]
async fn view_figure_is_offered_only_to_a_model_that_takes_images() {
    for vision in [false, true] {
        let harness = harness(vec![text("Hello.")], vision).await;
        harness.ask(None, "Hi").await;
        let tools = harness.mock.requests()[0].body["tools"].to_string();
        assert_eq!(
            tools.contains("\"view_figure\""),
            vision,
            "{vision}: {tools}"
        );
    }
}
