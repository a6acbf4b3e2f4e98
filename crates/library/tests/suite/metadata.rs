//! Metadata read from the four real papers in fixtures/pdfs: what a BibTeX entry needs
//! (title, authors, year) and the rest page 1 prints.

use asterism_library::library::metadata::LocalMetadata;
use asterism_library::parse::{PdfEngine, extract_pdf_with};
use asterism_testkit::fixture_path;

fn read(name: &str, engine: PdfEngine) -> LocalMetadata {
    let bytes = std::fs::read(fixture_path(&format!("pdfs/{name}"))).unwrap();
    let text = extract_pdf_with(&bytes, engine).unwrap();
    LocalMetadata::of_pdf(&text, &bytes)
}

#[test]
fn an_aastex_twocolumn_draft_gives_title_authors_year_and_affiliations() {
    let found = read("rudolf_ms.pdf", PdfEngine::Pdfium);
    assert_eq!(
        found.title.as_deref(),
        Some("A 30 Million Year Old Mini-Neptune in the Kepler Field")
    );
    assert_eq!(found.authors, vec!["Bouma, L. G.", "Curtis, J. L."]);
    // The draft is dated May 21, 2021 (the AJ version came out in 2022).
    assert_eq!(found.year, Some(2021));
    assert!(found.affiliations[0].starts_with("Department of Astrophysical Sciences, Princeton"));
    assert!(
        found.affiliations[1]
            .contains("NY 10027, USA; Department of Astrophysics, American Museum")
    );
    assert!(
        found
            .abstract_text
            .unwrap()
            .starts_with("The Gaia satellite is revitalizing")
    );
    assert!(found.keywords.contains(&"open star clusters".to_string()));
    assert_eq!(
        (found.doi, found.arxiv_id, found.journal),
        (None, None, None)
    );
    // The pure-Rust engine reads the same page to the same record.
    let pure = read("rudolf_ms.pdf", PdfEngine::PdfExtract);
    assert_eq!(
        pure.title.as_deref(),
        Some("A 30 Million Year Old Mini-Neptune in the Kepler Field")
    );
    assert_eq!(pure.authors, vec!["Bouma, L. G.", "Curtis, J. L."]);
    assert_eq!(pure.year, Some(2021));
}

#[test]
fn an_aastex_preprint_in_capitals_gets_a_title_case_title() {
    let found = read("celerite_ms.pdf", PdfEngine::Pdfium);
    assert_eq!(
        found.title.as_deref(),
        Some(
            "Fast and Scalable Gaussian Process Modeling with Applications to Astronomical Time Series"
        )
    );
    assert_eq!(
        found.authors,
        vec![
            "Foreman-Mackey, Daniel",
            "Agol, Eric",
            "Angus, Ruth",
            "Ambikasaran, Sivaram"
        ]
    );
    assert_eq!(found.year, Some(2017));
    assert_eq!(
        found.affiliations[2],
        "Simons Fellow; Department of Astronomy, Columbia University, New York, NY"
    );
    assert!(
        found.keywords.contains(&"methods: statistical".to_string()),
        "{:?}",
        found.keywords
    );
}

#[test]
fn an_aanda_manuscript_gives_its_journal_and_all_45_authors() {
    let found = read("gammapy_v1_ms.pdf", PdfEngine::Pdfium);
    assert_eq!(
        found.title.as_deref(),
        Some("Gammapy: A Python package for gamma-ray astronomy")
    );
    assert_eq!(found.authors.len(), 45, "{:?}", found.authors);
    assert_eq!(found.authors[0], "Donath, Axel");
    assert_eq!(
        found.authors[6], "Khélifi, Bruno",
        "a name broken over two lines"
    );
    assert!(
        found
            .authors
            .contains(&"van Eldik, Christopher".to_string())
    );
    assert_eq!(
        found.authors.last().map(String::as_str),
        Some("Zanin, Roberta")
    );
    assert_eq!(found.year, Some(2023));
    assert_eq!(found.journal.as_deref(), Some("Astronomy & Astrophysics"));
    // "Affiliations can be found after the references": none on page 1.
    assert!(found.affiliations.is_empty());
    assert!(
        found
            .abstract_text
            .unwrap()
            .starts_with("Context. Traditionally")
    );
}

#[test]
fn an_arxiv_preprint_gives_its_id_and_per_author_affiliations() {
    let found = read("paperqa_2407.01603.pdf", PdfEngine::Pdfium);
    assert_eq!(
        found.title.as_deref(),
        Some("A Review of Large Language Models and Autonomous Agents in Chemistry")
    );
    assert_eq!(
        found.authors,
        vec![
            "Ramos, Mayk Caldas",
            "Collison, Christopher J.",
            "White, Andrew D."
        ]
    );
    assert_eq!(found.arxiv_id.as_deref(), Some("2407.01603"));
    assert_eq!(found.year, Some(2024));
    assert_eq!(
        found.affiliations[1],
        "School of Chemistry and Materials Science; Rochester Institute of Technology, Rochester, NY"
    );
    assert!(found.keywords.contains(&"LLM agent".to_string()));
}
