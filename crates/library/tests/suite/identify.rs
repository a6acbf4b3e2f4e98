//! Papers known only from their PDF: the local record an import stores, its BibTeX,
//! and identifying it later through Crossref's recorded answers (a match accepted, near
//! misses rejected, a DOI looked up), on a real SQLite file and loopback services.

use std::time::Duration;

use asterism_library::library::{Chunker, Library};
use asterism_library::papers::PaperSearch;
use asterism_library::sources::ads::AdsClient;
use asterism_library::sources::arxiv::ArxivClient;
use asterism_library::sources::crossref::{CrossrefClient, parse_works};
use asterism_protocol::PaperRecord;
use asterism_testkit::{FixtureServer, all_routes, crossref_routes, fixture_path};

struct Setup {
    dir: tempfile::TempDir,
    server: FixtureServer,
    library: Library,
}

async fn setup() -> Setup {
    let dir = tempfile::tempdir().unwrap();
    let mut routes = crossref_routes();
    routes.extend(all_routes());
    let server = FixtureServer::start(routes).await.unwrap();
    let store = asterism_store::Store::open_in_dir(&dir.path().join("data"))
        .await
        .unwrap();
    let timeout = Duration::from_secs(5);
    let papers = PaperSearch {
        ads: AdsClient::new(format!("{}/ads", server.url()), None, timeout).unwrap(),
        arxiv: ArxivClient::new(format!("{}/arxiv-api", server.url()), timeout)
            .unwrap()
            .with_interval(Duration::ZERO),
        store: store.clone(),
    };
    let crossref = CrossrefClient::new(format!("{}/crossref", server.url()), timeout).unwrap();
    let library = Library::new(
        store,
        papers,
        Chunker::characters(),
        &dir.path().join("data"),
        None,
    )
    .with_crossref(Some(crossref));
    Setup {
        dir,
        server,
        library,
    }
}

/// A paper stored as an import stores what it read from a PDF.
async fn local_paper(
    library: &Library,
    title: &str,
    authors: &[&str],
    doi: Option<&str>,
) -> String {
    let record = PaperRecord {
        title: title.into(),
        authors: authors.iter().map(|a| a.to_string()).collect(),
        year: Some(2021),
        doi: doi.map(str::to_string),
        sources: vec!["local".into()],
        ..PaperRecord::default()
    };
    library.store.upsert_paper(&record).await.unwrap()
}

#[test]
fn crossref_works_are_read_from_a_genuine_answer() {
    let body = std::fs::read_to_string(fixture_path(
        "crossref/works_query_ecology_author_boettiger.json",
    ))
    .unwrap();
    let works = parse_works(&body).unwrap();
    assert_eq!(works.len(), 20);
    let first = &works[0];
    assert_eq!(first.title, "The forecast trap");
    assert_eq!(first.authors, vec!["Boettiger, Carl"]);
    assert_eq!(first.doi.as_deref(), Some("10.1111/ele.14024"));
    assert_eq!(first.year, Some(2022));
    assert_eq!(first.journal.as_deref(), Some("Ecology Letters"));
    assert_eq!(
        (first.volume.as_deref(), first.page.as_deref()),
        (Some("25"), Some("1655-1664"))
    );
    assert!(
        first
            .abstract_text
            .as_deref()
            .unwrap()
            .starts_with("Abstract Encouraged by")
    );
    // Markup inside titles and entities in journal names are gone.
    assert!(works.iter().any(|w| w.title.starts_with("Treebase: an")));
    assert!(
        works
            .iter()
            .any(|w| w.journal.as_deref() == Some("Big Data & Society"))
    );
}

#[tokio::test]
async fn a_crossref_match_replaces_the_local_record_and_near_misses_do_not() {
    let setup = setup().await;
    let library = &setup.library;
    let matching = local_paper(library, "The Forecast Trap", &["Boettiger, Carl"], None).await;
    // The same words rearranged and shortened: below the similarity threshold.
    let near_title = local_paper(
        library,
        "Forecast traps in fisheries management",
        &["Boettiger, C."],
        None,
    )
    .await;
    // A real title of the answer, but under another first author.
    let wrong_author = local_paper(
        library,
        "Ecological management of stochastic systems with long transients",
        &["Hastings, Alan"],
        None,
    )
    .await;
    let outcomes = library.identify(None).await.unwrap();
    assert_eq!(outcomes.len(), 3);
    let of = |id: &str| outcomes.iter().find(|o| o.paper_id == id).unwrap();

    let found = of(&matching);
    assert_eq!(found.status, "identified", "{found:?}");
    assert_eq!(
        found.via.as_deref(),
        Some("Crossref title and author search")
    );
    assert!(
        found.changes.contains(&"year: 2021 → 2022".to_string()),
        "{:?}",
        found.changes
    );
    assert!(
        found
            .changes
            .contains(&"DOI: (none) → 10.1111/ele.14024".to_string())
    );
    let record = library
        .store
        .paper_record(&matching)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(record.title, "The forecast trap");
    assert_eq!(record.journal.as_deref(), Some("Ecology Letters"));
    assert_eq!(record.sources, vec!["library", "crossref"]);

    for id in [&near_title, &wrong_author] {
        assert_eq!(of(id).status, "not-found", "{:?}", of(id));
        let kept = library.store.paper_record(id).await.unwrap().unwrap();
        assert_eq!(kept.doi, None);
        assert_eq!(kept.sources, vec!["library", "local"]);
    }
    // Only local-only papers are retried: the identified one is left alone now.
    let again = library.identify(None).await.unwrap();
    assert_eq!(again.len(), 2);
    assert_eq!(
        library.identify(Some(&matching)).await.unwrap()[0].status,
        "already-identified"
    );
    let asked = setup.server.requests();
    assert!(
        asked
            .iter()
            .any(|r| r.starts_with("/crossref/works?") && r.contains("query.author=Boettiger")),
        "{asked:?}"
    );
}

#[tokio::test]
async fn a_doi_printed_on_page_one_is_looked_up_on_crossref() {
    let setup = setup().await;
    let library = &setup.library;
    let id = local_paper(
        library,
        "Methylphenidate and dopamine neurons",
        &["Sadasivan, S."],
        Some("10.1371/journal.pone.0033693"),
    )
    .await;
    let outcome = &library.identify(Some(&id)).await.unwrap()[0];
    assert_eq!(outcome.status, "identified", "{outcome:?}");
    assert_eq!(
        outcome.via.as_deref(),
        Some("DOI 10.1371/journal.pone.0033693 (Crossref)")
    );
    let record = library.store.paper_record(&id).await.unwrap().unwrap();
    assert!(
        record
            .title
            .starts_with("Methylphenidate Exposure Induces Dopamine Neuron Loss")
    );
    assert_eq!(record.year, Some(2012));
    assert_eq!(record.journal.as_deref(), Some("PLoS ONE"));
}

#[tokio::test]
async fn an_offline_import_keeps_authors_and_year_and_its_bibtex_says_so() {
    let setup = setup().await;
    let library = &setup.library;
    let file = setup.dir.path().join("rudolf.pdf");
    std::fs::copy(fixture_path("pdfs/rudolf_ms.pdf"), &file).unwrap();
    let items = library.import(&[file], false, &|_, _, _| {}).await;
    let asterism_library::library::ImportOutcome::Imported {
        paper_id,
        identified,
        ..
    } = &items[0].outcome
    else {
        panic!("{items:?}");
    };
    assert!(!identified);
    let record = library.store.paper_record(paper_id).await.unwrap().unwrap();
    assert_eq!(record.authors, vec!["Bouma, L. G.", "Curtis, J. L."]);
    assert_eq!(record.year, Some(2021));
    assert_eq!(record.affiliations.len(), 2);
    let (text, count, notes) = library.bibtex(None, false).await.unwrap();
    assert_eq!(count, 1);
    assert!(text.starts_with("@misc{bouma2021million,"), "{text}");
    assert!(
        text.contains("author = {Bouma, L. G. and Curtis, J. L.}"),
        "{text}"
    );
    assert!(text.contains("year = {2021}"), "{text}");
    assert!(
        text.contains("title = {{A 30 Million Year Old Mini-Neptune in the Kepler Field}}"),
        "{text}"
    );
    assert!(
        text.contains("note = {Metadata extracted locally from the PDF}"),
        "{text}"
    );
    assert!(
        notes.iter().any(|n| n.contains("library identify")),
        "{notes:?}"
    );
}
