//! The keyword half of a search in a large library: the rarest words first, and no more
//! passages scored than the budget allows.

use asterism_library::library::Tuning;
use asterism_library::library::search::{KeywordTerms, keyword_search, keyword_terms};
use asterism_protocol::PaperRecord;
use asterism_store::{NewChunk, PaperFilter, Store};

fn passage(text: String) -> NewChunk {
    NewChunk {
        page: Some(1),
        page_end: Some(1),
        page_breaks: Vec::new(),
        section: None,
        text,
        keywords_only: false,
    }
}

/// 100 passages: "cepheid" in 60 of them, "parallax" in 30, "megamaser" in 4 (one of
/// which also holds "parallax", one "cepheid"), and every one says "distance".
async fn library() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open_in_dir(dir.path()).await.unwrap();
    let paper = store
        .upsert_paper(&PaperRecord {
            title: "Distances".into(),
            ..PaperRecord::default()
        })
        .await
        .unwrap();
    let chunks: Vec<NewChunk> = (0..100)
        .map(|i| {
            let mut words = vec![format!("distance number {i}")];
            if i < 60 {
                words.push("cepheid".into());
            }
            if (60..90).contains(&i) {
                words.push("parallax".into());
            }
            if (89..92).contains(&i) || i == 10 {
                words.push("megamaser".into());
            }
            passage(words.join(" "))
        })
        .collect();
    store.replace_chunks(&paper, &chunks).await.unwrap();
    (dir, store)
}

#[tokio::test]
async fn the_rarest_words_are_taken_until_their_passages_reach_the_budget() {
    let (_dir, store) = library().await;
    let query = "cepheid parallax megamaser quasar";
    // Within budget: the words no passage holds are dropped, the others rarest first.
    let every = keyword_terms(&store, query, i64::MAX).await.unwrap();
    assert_eq!(
        every,
        KeywordTerms {
            terms: vec![
                "\"megamaser\"".into(),
                "\"parallax\"".into(),
                "\"cepheid\"".into()
            ],
            within: 3,
            matches: 94,
        }
    );
    // A budget of 40: megamaser (4) and parallax (30) fit, cepheid (60) would not.
    let budgeted = keyword_terms(&store, query, 40).await.unwrap();
    assert_eq!((budgeted.within, budgeted.matches), (2, 34));
    assert_eq!(budgeted.terms, every.terms);
    // The rarest word is always searched, even when it alone is over the budget.
    let over = keyword_terms(&store, "distance cepheid", 10).await.unwrap();
    assert_eq!(over.terms[..over.within], ["\"cepheid\""]);
}

#[tokio::test]
async fn a_search_within_a_small_budget_still_finds_the_passages_of_the_rare_words() {
    let (_dir, store) = library().await;
    let tuning = Tuning {
        scored_budget: 40,
        per_side: 5,
        ..Tuning::default()
    };
    let found = keyword_search(
        &store,
        "cepheid parallax megamaser",
        &PaperFilter::default(),
        &tuning,
    )
    .await
    .unwrap();
    let texts = store.chunk_hits(&found).await.unwrap();
    // The passage holding both kept words comes first; then the other megamaser ones.
    assert!(texts[0].text.contains("parallax megamaser"), "{texts:?}");
    assert!(texts[1..4].iter().all(|hit| hit.text.contains("megamaser")));
    assert!(
        texts.iter().all(|hit| !hit.text.ends_with("cepheid")),
        "a passage holding only the word left out is not scored: {texts:?}"
    );
}

#[tokio::test]
async fn passages_holding_every_word_come_first_when_the_budget_leaves_one_out() {
    let (_dir, store) = library().await;
    let tuning = Tuning {
        scored_budget: 10,
        per_side: 3,
        ..Tuning::default()
    };
    // Only "megamaser" fits the budget; passage 10 also holds "cepheid".
    let found = keyword_search(
        &store,
        "megamaser cepheid",
        &PaperFilter::default(),
        &tuning,
    )
    .await
    .unwrap();
    let texts = store.chunk_hits(&found).await.unwrap();
    assert_eq!(texts[0].text, "distance number 10 cepheid megamaser");
    assert_eq!(texts.len(), 3);
    assert!(
        texts.iter().all(|hit| hit.text.contains("megamaser")),
        "{texts:?}"
    );
}
