use super::*;

fn fixture(name: &str) -> String {
    std::fs::read_to_string(asterism_testkit::fixture_path(&format!("arxiv/{name}"))).unwrap()
}

#[test]
fn current_format_id_lookup() {
    let feed = parse_feed(&fixture("idlist_astro-ph_0601001.atom.xml")).unwrap();
    assert_eq!(feed.total_results, Some(1));
    let paper = &feed.papers[0];
    assert_eq!(paper.arxiv_id.as_deref(), Some("astro-ph/0601001"));
    assert_eq!(paper.arxiv_version, Some(1));
    assert!(
        paper
            .title
            .starts_with("Frequency of Hot Jupiters and Very Hot Jupiters")
    );
    assert!(
        paper
            .abstract_text
            .as_deref()
            .unwrap()
            .contains("Gould & Morgan (2003)"),
        "entities decoded"
    );
    assert_eq!(paper.year, Some(2006));
    assert!(
        paper
            .categories
            .first()
            .is_some_and(|c| c.starts_with("astro-ph"))
    );
    assert!(!paper.authors.is_empty());
}

#[test]
fn legacy_2016_format_with_per_element_namespaces() {
    let feed = parse_feed(&fixture("legacy2016_idlist_1111.2011v2.atom.xml")).unwrap();
    let paper = &feed.papers[0];
    assert_eq!(paper.arxiv_id.as_deref(), Some("1111.2011"));
    assert_eq!(paper.arxiv_version, Some(2));
    assert_eq!(
        paper.title,
        "Quantum Criticality for Extended Nodes on a Bethe Lattice in the Large Connectivity Limit"
    );
    let search = parse_feed(&fixture("legacy2016_search_au_del_maestro.atom.xml")).unwrap();
    assert_eq!(search.papers.len(), 10);
    assert!(search.papers.iter().all(|paper| {
        paper
            .authors
            .iter()
            .any(|author| author.contains("Del Maestro"))
    }));
}

#[test]
fn search_results_keep_versions_and_the_missing_id_is_absent() {
    let search = parse_feed(&fixture("search_all_testing_start0_max10.atom.xml")).unwrap();
    assert_eq!(search.papers.len(), 10);
    assert!(
        search
            .papers
            .iter()
            .all(|paper| paper.arxiv_version.is_some())
    );
    let two = parse_feed(&fixture(
        "idlist_two_ids_one_missing_0808.05394_1707.08567.atom.xml",
    ))
    .unwrap();
    assert_eq!(two.papers.len(), 1);
    assert_eq!(two.papers[0].arxiv_id.as_deref(), Some("1707.08567"));
}

#[test]
fn error_empty_and_truncated_feeds() {
    let error = parse_feed(&fixture("idlist_abc_error_400.atom.xml")).unwrap();
    assert_eq!(error.error.as_deref(), Some("incorrect id format for abc"));
    assert!(error.papers.is_empty());
    let empty = parse_feed(&fixture("idlist_0000.0000_empty_result.atom.xml")).unwrap();
    assert_eq!(empty.total_results, Some(0));
    assert!(empty.papers.is_empty());
    let full = fixture("idlist_astro-ph_0601001.atom.xml");
    let truncated = &full[..full.len() / 2];
    assert!(matches!(
        parse_feed(truncated),
        Err(ArxivError::BadResponse(_))
    ));
    assert!(matches!(
        parse_feed("<html>Service unavailable</html>"),
        Err(ArxivError::BadResponse(_))
    ));
}

#[test]
fn ids_split_into_id_and_version() {
    assert_eq!(
        split_arxiv_id("http://arxiv.org/abs/1202.3665v3"),
        Some(("1202.3665".into(), Some(3)))
    );
    assert_eq!(
        split_arxiv_id("arXiv:1202.3665"),
        Some(("1202.3665".into(), None))
    );
    assert_eq!(
        split_arxiv_id("astro-ph/0601001v1"),
        Some(("astro-ph/0601001".into(), Some(1)))
    );
    assert_eq!(
        split_arxiv_id("https://arxiv.org/abs/astro-ph/0601001"),
        Some(("astro-ph/0601001".into(), None))
    );
}

#[test]
fn double_encoded_names_are_repaired() {
    let search = parse_feed(&fixture("search_all_testing_start0_max10.atom.xml")).unwrap();
    let authors: Vec<&String> = search
        .papers
        .iter()
        .flat_map(|paper| paper.authors.iter())
        .collect();
    assert!(
        authors
            .iter()
            .any(|author| author.as_str() == "Aurora Ramírez"),
        "{authors:?}"
    );
    assert!(
        authors
            .iter()
            .any(|author| author.as_str() == "José Raúl Romero")
    );
    assert_eq!(
        super::repair_mojibake("Strömgren"),
        "Strömgren",
        "correct text is left alone"
    );
}
