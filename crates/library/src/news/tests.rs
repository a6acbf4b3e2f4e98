use std::collections::HashMap;

use asterism_protocol::PaperRecord;
use asterism_store::ProfilePaper;
use chrono::NaiveDate;

use super::rank::{AuthorKey, Profile, Reason, word_closeness};
use super::{expand_categories, news_query};
use crate::library::objects::LibraryObject;

fn library_paper(id: &str, title: &str, authors: &[&str], summary: &str) -> ProfilePaper {
    ProfilePaper {
        id: id.into(),
        title: title.into(),
        authors: authors.iter().map(|a| a.to_string()).collect(),
        keywords: Vec::new(),
        summary: summary.into(),
        bibcode: None,
        arxiv_id: None,
        added_at: format!("2026-01-0{}", id.len()),
    }
}

fn submission(id: &str, title: &str, authors: &[&str], abstract_text: &str) -> PaperRecord {
    PaperRecord {
        arxiv_id: Some(id.into()),
        title: title.into(),
        authors: authors.iter().map(|a| a.to_string()).collect(),
        abstract_text: Some(abstract_text.into()),
        ..PaperRecord::default()
    }
}

fn object(name: &str, position: Option<(f64, f64)>) -> LibraryObject {
    LibraryObject {
        name: name.into(),
        resolved_name: None,
        ra_deg: position.map(|p| p.0),
        dec_deg: position.map(|p| p.1),
        ra_sexagesimal: None,
        dec_sexagesimal: None,
        object_type: None,
        object_type_label: None,
        morphology: None,
        redshift: None,
        velocity_kms: None,
        papers: Vec::new(),
    }
}

#[test]
fn one_author_written_three_ways_is_one_key() {
    let key = AuthorKey::parse("Foreman-Mackey, Daniel");
    assert!(key.is_some());
    assert_eq!(key, AuthorKey::parse("Daniel Foreman-Mackey"));
    assert_eq!(key, AuthorKey::parse("D. Foreman-Mackey"));
    assert_ne!(key, AuthorKey::parse("E. Foreman-Mackey"));
    assert_eq!(AuthorKey::parse("X"), None);
}

#[test]
fn categories_are_checked_and_astro_ph_is_all_of_it() {
    let all = expand_categories(&["astro-ph".into(), "astro-ph.GA".into()]).unwrap();
    assert_eq!(all.len(), 6, "{all:?}");
    assert_eq!(
        expand_categories(&["astro-ph.GA".into(), "gr-qc".into()]).unwrap(),
        ["astro-ph.GA", "gr-qc"]
    );
    assert!(expand_categories(&["astro-ph.GA) OR (all:x".into()]).is_err());
    assert_eq!(expand_categories(&[]).unwrap().len(), 6);
    let day = |d| NaiveDate::from_ymd_opt(2026, 12, d).unwrap();
    assert_eq!(
        news_query(
            &["astro-ph.GA".into(), "astro-ph.CO".into()],
            day(4),
            day(5)
        ),
        "(cat:astro-ph.GA OR cat:astro-ph.CO) AND submittedDate:[202612040000 TO 202612052359]"
    );
}

#[test]
fn a_submission_on_a_library_topic_and_object_ranks_first_with_its_reasons() {
    let library = vec![
        library_paper(
            "newest",
            "A 30 Million Year Old Mini-Neptune in the Kepler Field",
            &["Bouma, L. G.", "Curtis, J. L."],
            "We report the discovery of a young transiting mini-Neptune, Kepler-1627 Ab, \
             in the 38 Myr old delta Lyr cluster, from Kepler photometry and stellar rotation.",
        ),
        library_paper(
            "older",
            "Fast and Scalable Gaussian Process Modeling with Applications to Astronomical Time Series",
            &["Foreman-Mackey, Daniel", "Agol, Eric"],
            "Gaussian processes for stellar variability and time series of astronomical light curves.",
        ),
    ];
    let submissions = vec![
        submission(
            "2612.00001",
            "Solar coronal heating by nanoflares in active regions",
            &["Ana Lopez"],
            "Nanoflares heat the solar corona in active regions observed by the Solar Orbiter.",
        ),
        submission(
            "2612.00002",
            "The young transiting mini-Neptune Kepler-1627 Ab: rotation and spin-orbit alignment",
            &["Jane Doe"],
            "A young mini-Neptune transiting Kepler-1627 in the delta Lyr cluster, from Kepler photometry.",
        ),
        submission(
            "2612.00003",
            "Reionization seen in 21 cm intensity maps",
            &["Daniel Foreman-Mackey"],
            "The epoch of reionization constrained by 21 cm maps of neutral hydrogen.",
        ),
    ];
    let closeness = word_closeness(&submissions, &library);
    let profile = Profile::new(
        library,
        &["Foreman-Mackey".into()],
        vec![object("Kepler-1627", None)],
    );
    let scored: Vec<(f64, Vec<Reason>)> = submissions
        .iter()
        .zip(&closeness)
        .map(|(paper, closeness)| profile.score(paper, closeness, &HashMap::new()))
        .collect();
    let (kepler, solar, followed) = (&scored[1], &scored[0], &scored[2]);
    assert!(kepler.0 > followed.0 && followed.0 > solar.0, "{scored:?}");
    assert!(
        solar.1.is_empty(),
        "an unrelated paper has no reason: {solar:?}"
    );
    assert!(
        kepler.1.iter().any(|reason| matches!(reason,
        Reason::Topic { papers, .. } if papers[0].id == "newest")),
        "{kepler:?}"
    );
    assert!(kepler.1.iter().any(|reason| matches!(reason,
        Reason::Object { library_object, separation_arcmin: None, .. } if library_object == "Kepler-1627")));
    assert!(
        followed.1.iter().any(|reason| matches!(
            reason,
            Reason::Author {
                followed: true,
                library_papers: 1,
                ..
            }
        )),
        "{followed:?}"
    );
}

#[test]
fn an_object_near_a_library_object_counts_with_its_separation() {
    let library = vec![library_paper(
        "a",
        "The maser disk of NGC 4258",
        &["A. Author"],
        "",
    )];
    let paper = submission(
        "2612.00004",
        "A satellite of NGC 4248",
        &["B. Writer"],
        "The dwarf NGC 4248 and its globular clusters.",
    );
    let profile = Profile::new(
        library,
        &[],
        vec![object("NGC 4258", Some((184.74, 47.30)))],
    );
    let mut nearby = HashMap::new();
    nearby.insert("ngc4248".to_string(), (184.43, 47.41));
    let (score, reasons) = profile.score(&paper, &[0.0], &nearby);
    assert!(score > 0.1, "{score}");
    match &reasons[..] {
        [
            Reason::Object {
                name,
                separation_arcmin: Some(arcmin),
                ..
            },
        ] => {
            assert_eq!(name, "NGC 4248");
            assert!((10.0..20.0).contains(arcmin), "{arcmin}");
        }
        other => panic!("{other:?}"),
    }
    // Farther than 30′: nothing.
    nearby.insert("ngc4248".to_string(), (186.0, 47.3));
    assert_eq!(profile.score(&paper, &[0.0], &nearby).1, []);
}
