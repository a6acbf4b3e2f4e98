//! The truth table of metadata read from a PDF alone (offline): for each first page, the
//! title, authors, year, journal and BibTeX type it must give. Right or absent, never
//! wrong: a template's placeholder year is no year, a collaboration is not a person, a
//! journal named on the page makes an `@article`.
//!
//! The first rows are the real fixture papers; the others are first pages as the
//! journals' LaTeX classes print them, with the traps astronomers met.

use asterism_library::library::metadata::{LocalMetadata, Xmp};
use asterism_library::papers::bibtex::local_entry;
use asterism_library::parse::{PdfEngine, PdfInfo, extract_pdf_with};
use asterism_testkit::fixture_path;

struct Row {
    name: &'static str,
    title: Option<&'static str>,
    /// The first authors expected, in order ("Family, Given").
    authors: &'static [&'static str],
    year: Option<i32>,
    journal: Option<&'static str>,
    /// The BibTeX entry type, and how its first author is written there.
    entry: &'static str,
    bib_author: Option<&'static str>,
}

fn check(row: &Row, found: &LocalMetadata) {
    let name = row.name;
    assert_eq!(found.title.as_deref(), row.title, "{name}: title");
    assert!(
        found.authors.len() >= row.authors.len()
            && found.authors.iter().zip(row.authors).all(|(a, b)| a == b),
        "{name}: authors {:?}",
        found.authors
    );
    assert_eq!(found.year, row.year, "{name}: year");
    assert_eq!(found.journal.as_deref(), row.journal, "{name}: journal");
    let entry = local_entry(&found.to_record("file"), "key");
    assert!(
        entry.starts_with(&format!("@{}{{key,", row.entry)),
        "{name}: {entry}"
    );
    if let Some(author) = row.bib_author {
        assert!(entry.contains(author), "{name}: {entry}");
    }
}

fn fixture(name: &str) -> LocalMetadata {
    let bytes = std::fs::read(fixture_path(&format!("pdfs/{name}"))).unwrap();
    let text = extract_pdf_with(&bytes, PdfEngine::Pdfium).unwrap();
    LocalMetadata::of_pdf(&text, &bytes)
}

fn page(text: &str) -> LocalMetadata {
    LocalMetadata::of_parts(text, None, &PdfInfo::default(), &Xmp::default())
}

#[test]
fn the_fixture_papers_read_true() {
    let rows = [
        Row {
            name: "rudolf_ms.pdf",
            title: Some("A 30 Million Year Old Mini-Neptune in the Kepler Field"),
            authors: &["Bouma, L. G.", "Curtis, J. L."],
            // "Draft version May 21, 2021"; AASTeX names no journal.
            year: Some(2021),
            journal: None,
            entry: "misc",
            bib_author: Some("Bouma, L. G."),
        },
        Row {
            name: "celerite_ms.pdf",
            title: Some(
                "Fast and Scalable Gaussian Process Modeling with Applications to Astronomical Time Series",
            ),
            authors: &["Foreman-Mackey, Daniel", "Agol, Eric"],
            year: Some(2017),
            journal: None,
            entry: "misc",
            bib_author: None,
        },
        Row {
            name: "gammapy_v1_ms.pdf",
            title: Some("Gammapy: A Python package for gamma-ray astronomy"),
            authors: &["Donath, Axel"],
            year: Some(2023),
            journal: Some("Astronomy & Astrophysics"),
            entry: "article",
            bib_author: None,
        },
        Row {
            name: "paperqa_2407.01603.pdf",
            title: Some("A Review of Large Language Models and Autonomous Agents in Chemistry"),
            authors: &["Ramos, Mayk Caldas", "Collison, Christopher J."],
            year: Some(2024),
            journal: None,
            entry: "misc",
            bib_author: None,
        },
    ];
    for row in &rows {
        check(row, &fixture(row.name));
    }
}

#[test]
fn template_placeholders_give_no_year() {
    // MNRAS's class prints "MNRAS 000, 1–14 (2015)" and "© 2015 The Authors" until the
    // journal sets them; the date after "Preprint" is the paper's own.
    let mnras = "MNRAS 000, 1–14 (2015) Preprint 3 March 2023 Compiled using MNRAS LATEX style file v3.0\n\
        Dust in the circumgalactic medium of nearby galaxies\n\
        Jane Smith,1★ Rui Costa2\n\
        1Department of Astronomy, Somewhere University, Somewhere, UK\n\
        2Observatory of Elsewhere, Elsewhere, Chile\n\
        Accepted XXX. Received YYY; in original form ZZZ\n\
        ABSTRACT\n\
        We measure the dust around nearby galaxies with a new stacking method and find plenty.\n\
        Key words: galaxies: haloes – dust, extinction\n\
        © 2015 The Authors";
    check(
        &Row {
            name: "mnras template",
            title: Some("Dust in the circumgalactic medium of nearby galaxies"),
            authors: &["Smith, Jane", "Costa, Rui"],
            year: Some(2023),
            journal: Some("Monthly Notices of the Royal Astronomical Society"),
            entry: "article",
            bib_author: None,
        },
        &page(mnras),
    );
    // The same page without its compile date: no year rather than the class's.
    let undated = mnras.replace("Preprint 3 March 2023 ", "");
    assert_eq!(page(&undated).year, None, "the placeholder year");
    // AASTeX's sample dates left in a draft are not the paper's.
    let aastex = "Draft version December 5, 2026\nTypeset using LATEX twocolumn style in AASTeX631\n\
        The Tip of the Red Giant Branch in NGC 4258\n\
        Jane Smith1\n\
        1Department of Astronomy, Somewhere University\n\
        (Received June 1, 2019; Revised January 10, 2019; Accepted December 5, 2026)\n\
        ABSTRACT\n\
        We measure the distance to NGC 4258 from the tip of the red giant branch with HST.";
    assert_eq!(
        page(aastex).year,
        Some(2026),
        "the draft's date, not the sample's"
    );
    let sample_only = aastex.replace("Draft version December 5, 2026\n", "");
    assert_eq!(
        page(&sample_only).year,
        None,
        "only the class's sample dates"
    );
}

#[test]
fn a_title_on_two_lines_is_read_whole() {
    let two_lines = "Draft version May 3, 2024\n\
        Young Stellar Populations Across the Disk of\n\
        Nearby Spiral Galaxies Observed With JWST\n\
        Maria Garcia1 and Wei Zhang2\n\
        1Department of Astronomy, Somewhere University\n\
        2Institute of Elsewhere\n\
        ABSTRACT\n\
        We map young stellar populations across nearby disks with JWST imaging.";
    let found = page(two_lines);
    assert_eq!(
        found.title.as_deref(),
        Some(
            "Young Stellar Populations Across the Disk of Nearby Spiral Galaxies Observed With JWST"
        )
    );
    assert_eq!(found.authors, vec!["Garcia, Maria", "Zhang, Wei"]);
}

#[test]
fn collaborations_stay_whole_and_particles_stay_with_the_family_name() {
    let found = page(
        "Astronomy & Astrophysics manuscript no. main ©ESO 2020\n\
         Planck 2018 results. VI. Cosmological parameters\n\
         Planck Collaboration: N. Aghanim1, Y. Akrami2, J.-P. Bernard3, G. De Lucia4, P. de Bernardis5 and J. R. A. van der Berg6\n\
         1Department of Physics, Somewhere University\n\
         ABSTRACT\n\
         We present cosmological parameter results from the final full-mission Planck measurements.",
    );
    assert_eq!(
        found.authors,
        vec![
            "Planck Collaboration",
            "Aghanim, N.",
            "Akrami, Y.",
            "Bernard, J.-P.",
            "De Lucia, G.",
            "de Bernardis, P.",
            "van der Berg, J. R. A.",
        ]
    );
    assert_eq!(found.year, Some(2020));
    let entry = local_entry(&found.to_record("file"), "key");
    assert!(entry.starts_with("@article{key,"), "{entry}");
    assert!(entry.contains("{Planck Collaboration} and"), "{entry}");
    assert!(entry.contains("De Lucia, G."), "{entry}");
}

#[test]
fn a_journal_named_on_page_one_makes_an_article() {
    let heads = [
        (
            "The Astrophysical Journal, 882:34 (24pp), 2019 August 20",
            "The Astrophysical Journal",
            2019,
        ),
        ("ApJ 882, 34 (2019)", "The Astrophysical Journal", 2019),
        (
            "The Astrophysical Journal Supplement Series, 259:35 (28pp), 2022 April",
            "The Astrophysical Journal Supplement Series",
            2022,
        ),
        (
            "ApJS 259, 35 (2022)",
            "The Astrophysical Journal Supplement Series",
            2022,
        ),
        (
            "The Astronomical Journal, 163:121 (17pp), 2022 March",
            "The Astronomical Journal",
            2022,
        ),
        ("AJ 163, 121 (2022)", "The Astronomical Journal", 2022),
        (
            "MNRAS 507, 2182–2201 (2021)",
            "Monthly Notices of the Royal Astronomical Society",
            2021,
        ),
        (
            "Mon. Not. R. Astron. Soc. 426, 1–16 (2012)",
            "Monthly Notices of the Royal Astronomical Society",
            2012,
        ),
        ("A&A 641, A6 (2020)", "Astronomy & Astrophysics", 2020),
        (
            "Publications of the Astronomical Society of the Pacific, 135:014401 (12pp), 2023 January",
            "Publications of the Astronomical Society of the Pacific",
            2023,
        ),
        (
            "PASP 135, 014401 (2023)",
            "Publications of the Astronomical Society of the Pacific",
            2023,
        ),
        ("Nature | Vol 615 | 2 March 2023 | 41", "Nature", 2023),
        (
            "Nature Astronomy | VOL 7 | January 2023 | 41–52",
            "Nature Astronomy",
            2023,
        ),
        ("Science 379, 1234–1238 (2023)", "Science", 2023),
    ];
    for (head, journal, year) in heads {
        let found = page(&format!(
            "{head}\nA Study of Something Astronomical in Detail\nJane Smith1 and Rui Costa2\n\
             1Department of Astronomy, Somewhere University\nABSTRACT\n\
             We study something astronomical in detail and find it interesting indeed."
        ));
        assert_eq!(found.journal.as_deref(), Some(journal), "{head}");
        assert_eq!(found.year, Some(year), "{head}");
        assert_eq!(
            found.title.as_deref(),
            Some("A Study of Something Astronomical in Detail"),
            "{head}"
        );
        let entry = local_entry(&found.to_record("file"), "key");
        assert!(entry.starts_with("@article{key,"), "{head}: {entry}");
    }
}
