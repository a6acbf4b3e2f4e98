use super::*;

fn page(lines: &[&str]) -> String {
    lines.join("\r\n")
}

/// Five pages of a two-column A&A-style draft: a running header with the page number,
/// numbered sections, a table row and a sentence starting with a number.
fn draft() -> Vec<String> {
    let header = "A&A proofs: manuscript no. gammapy";
    let body = "The observations were reduced with the standard pipeline and calibrated against the reference stars of the field, which gives the flux scale used throughout.";
    vec![
        page(&[
            "Gammapy: A Python package",
            "Axel Donath 1, Régis Terrier 2",
            "1 Center for Astrophysics",
            "2 Université de Paris",
            "Abstract",
            body,
            "1. Introduction",
            body,
            "Article number, page 1 of 5",
        ]),
        page(&[
            header,
            body,
            "2. Gammapy package",
            "2.1. Overview",
            body,
            "12 Gyr old stars dominate the bulge.",
            "Article number, page 2 of 5",
        ]),
        page(&[
            header,
            "3 1.2 0.5 Table row",
            "2.2. Data reduction",
            body,
            "2",
            "Article number, page 3 of 5",
        ]),
        page(&[
            header,
            "3. Applications",
            body,
            "Acknowledgements.",
            body,
            "Article number, page 4 of 5",
        ]),
        page(&[
            header,
            "References",
            "Donath, A. et al. 2023, A&A, 678, A157",
            "Article number, page 5 of 5",
        ]),
    ]
}

#[test]
fn headings_follow_the_numbering_and_known_names() {
    let (markdown, sections) = pages_to_markdown(&draft(), Some("Gammapy"));
    let titles: Vec<(Option<&str>, &str, Option<u32>, u8)> = sections
        .iter()
        .map(|s| (s.number.as_deref(), s.title.as_str(), s.page, s.level))
        .collect();
    assert_eq!(
        titles,
        vec![
            (None, "Abstract", Some(1), 1),
            (Some("1"), "Introduction", Some(1), 1),
            (Some("2"), "Gammapy package", Some(2), 1),
            (Some("2.1"), "Overview", Some(2), 2),
            (Some("2.2"), "Data reduction", Some(3), 2),
            (Some("3"), "Applications", Some(4), 1),
            (None, "Acknowledgements", Some(4), 1),
            (None, "References", Some(5), 1),
        ]
    );
    assert!(markdown.starts_with("# Gammapy\n\n<!-- page 1 -->"));
    assert!(markdown.contains("\n### 2.1 Overview\n"));
    // Sentences and table rows that start with a number stay text.
    assert!(markdown.contains("12 Gyr old stars dominate the bulge."));
    assert!(markdown.contains("3 1.2 0.5 Table row"));
    assert_eq!(sections_of(&markdown), sections);
}

#[test]
fn running_headers_footers_and_page_numbers_are_dropped() {
    let (markdown, _) = pages_to_markdown(&draft(), None);
    assert!(!markdown.contains("A&A proofs"), "{markdown}");
    assert!(!markdown.contains("Article number"), "{markdown}");
    assert!(!markdown.contains("\n2\n"), "{markdown}");
    // The body text is all there, once per occurrence.
    assert_eq!(markdown.matches("The observations were reduced").count(), 7);
}

#[test]
fn pages_and_sections_can_be_selected() {
    let (markdown, _) = pages_to_markdown(&draft(), None);
    let pages = select_pages(&markdown, 2, 3).unwrap();
    assert!(pages.starts_with("<!-- page 2 -->"));
    assert!(pages.contains("<!-- page 3 -->"));
    assert!(!pages.contains("<!-- page 4 -->"));
    assert!(pages.contains("Data reduction"));
    assert_eq!(select_pages(&markdown, 9, 12), None);

    let (section, text) = select_section(&markdown, "2").unwrap();
    assert_eq!(section.title, "Gammapy package");
    assert_eq!(section.page, Some(2));
    // A section runs over its subsections and across pages, up to the next section.
    assert!(text.contains("### 2.2 Data reduction"));
    assert!(text.contains("<!-- page 3 -->"));
    assert!(!text.contains("Applications"));

    let (section, text) = select_section(&markdown, "data reduction").unwrap();
    assert_eq!(section.number.as_deref(), Some("2.2"));
    assert!(!text.contains("Applications"));
    assert_eq!(
        select_section(&markdown, "introduction").unwrap().0.page,
        Some(1)
    );
    assert!(select_section(&markdown, "Discussion").is_none());
}

#[test]
fn numbering_rules() {
    assert!(follows(&[], &[1]));
    assert!(!follows(&[], &[3]));
    assert!(follows(&[2, 1], &[2, 2]));
    assert!(follows(&[2, 1], &[3]));
    assert!(follows(&[2, 1], &[2, 1, 1]));
    assert!(follows(&[2], &[3, 1]));
    assert!(!follows(&[2, 1], &[2, 3]));
    assert!(!follows(&[2, 1], &[12]));
    assert_eq!(roman_value("IV"), Some(4));
    assert_eq!(roman_value("IX"), Some(9));
    assert_eq!(roman_value("Q"), None);
}

#[test]
fn roman_numbered_sections() {
    let pages = vec![page(&[
        "I. INTRODUCTION",
        "Text of the introduction that runs long enough to be a body line of the page.",
        "II. OBSERVATIONS",
        "IV. NOT NEXT",
        "More text.",
    ])];
    let (_, sections) = pages_to_markdown(&pages, None);
    let numbers: Vec<_> = sections.iter().filter_map(|s| s.number.clone()).collect();
    assert_eq!(numbers, vec!["I", "II"]);
}
