//! Merging results that describe the same paper: by bibcode, arXiv id (without
//! version), DOI, or normalised title + first author + year. A preprint and its
//! published version become one record carrying both ids.

use asterism_protocol::PaperRecord;

/// Lower-case letters and digits of the title, first author's surname and year.
pub fn title_key(paper: &PaperRecord) -> Option<String> {
    let title: String = paper
        .title
        .chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect();
    if title.len() < 12 {
        return None;
    }
    let surname: String = paper
        .authors
        .first()
        .map(|author| {
            author
                .split(',')
                .next()
                .unwrap_or(author)
                .split_whitespace()
                .last()
                .unwrap_or("")
        })
        .unwrap_or("")
        .chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect();
    Some(format!(
        "{title}|{surname}|{}",
        paper.year.map(|y| y.to_string()).unwrap_or_default()
    ))
}

fn same_paper(a: &PaperRecord, b: &PaperRecord) -> bool {
    let eq = |x: &Option<String>, y: &Option<String>| matches!((x, y), (Some(x), Some(y)) if x.eq_ignore_ascii_case(y));
    eq(&a.bibcode, &b.bibcode)
        || eq(&a.arxiv_id, &b.arxiv_id)
        || eq(&a.doi, &b.doi)
        || matches!((title_key(a), title_key(b)), (Some(x), Some(y)) if x == y)
                // A preprint is often a year earlier than its journal version.
        || (!a.authors.is_empty()
            && normalised(&a.title).len() >= 12
            && normalised(&a.title) == normalised(&b.title)
            && first_surname(a) == first_surname(b)
            && matches!((a.year, b.year), (Some(x), Some(y)) if (x - y).abs() <= 1))
}

fn normalised(title: &str) -> String {
    title
        .chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

fn first_surname(paper: &PaperRecord) -> String {
    paper
        .authors
        .first()
        .map(|author| {
            normalised(
                author
                    .split(',')
                    .next()
                    .unwrap_or(author)
                    .split_whitespace()
                    .last()
                    .unwrap_or(""),
            )
        })
        .unwrap_or_default()
}

/// Fills what `into` lacks from `from`; ADS (the published record) wins where both
/// have a value, except the arXiv version, categories and a fuller abstract.
fn absorb(into: &mut PaperRecord, from: PaperRecord) {
    fn fill<T>(slot: &mut Option<T>, value: Option<T>) {
        if slot.is_none() {
            *slot = value;
        }
    }
    fill(&mut into.bibcode, from.bibcode);
    fill(&mut into.arxiv_id, from.arxiv_id);
    into.arxiv_version = into.arxiv_version.max(from.arxiv_version);
    fill(&mut into.doi, from.doi);
    if into.title.is_empty() {
        into.title = from.title;
    }
    if into.authors.is_empty() {
        into.authors = from.authors;
    }
    if into.affiliations.is_empty() {
        into.affiliations = from.affiliations;
    }
    fill(&mut into.year, from.year);
    if into
        .journal
        .as_deref()
        .is_none_or(|journal| journal == "arXiv e-prints")
        && from.journal.is_some()
        && from.journal.as_deref() != Some("arXiv e-prints")
    {
        into.journal = from.journal;
    } else {
        fill(&mut into.journal, from.journal);
    }
    fill(&mut into.volume, from.volume);
    fill(&mut into.page, from.page);
    if into.abstract_text.as_ref().is_none_or(|text| {
        from.abstract_text
            .as_ref()
            .is_some_and(|other| other.len() > text.len())
    }) {
        into.abstract_text = from.abstract_text.or(into.abstract_text.take());
    }
    if into.keywords.is_empty() {
        into.keywords = from.keywords;
    }
    for category in from.categories {
        if !into.categories.contains(&category) {
            into.categories.push(category);
        }
    }
    into.citation_count = into.citation_count.max(from.citation_count);
    fill(&mut into.published, from.published);
    for source in from.sources {
        if !into.sources.contains(&source) {
            into.sources.push(source);
        }
    }
}

/// Merges lists in order of preference; each paper appears once.
pub fn merge_papers(lists: Vec<Vec<PaperRecord>>) -> Vec<PaperRecord> {
    let mut merged: Vec<PaperRecord> = Vec::new();
    for paper in lists.into_iter().flatten() {
        match merged.iter_mut().find(|known| same_paper(known, &paper)) {
            Some(known) => absorb(known, paper),
            None => merged.push(paper),
        }
    }
    merged
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paper(source: &str, title: &str, author: &str, year: i32) -> PaperRecord {
        PaperRecord {
            title: title.into(),
            authors: vec![author.into()],
            year: Some(year),
            sources: vec![source.into()],
            ..PaperRecord::default()
        }
    }

    #[test]
    fn preprint_and_published_versions_become_one_record_with_both_ids() {
        let published = PaperRecord {
            bibcode: Some("2013PASP..125..306F".into()),
            doi: Some("10.1086/670067".into()),
            journal: Some("Publications of the Astronomical Society of the Pacific".into()),
            citation_count: Some(5299),
            ..paper(
                "ads",
                "emcee: The MCMC Hammer",
                "Foreman-Mackey, Daniel",
                2013,
            )
        };
        let preprint = PaperRecord {
            arxiv_id: Some("1202.3665".into()),
            arxiv_version: Some(4),
            journal: Some("arXiv e-prints".into()),
            categories: vec!["astro-ph.IM".into()],
            ..paper(
                "arxiv",
                "emcee: the MCMC Hammer",
                "Daniel Foreman-Mackey",
                2012,
            )
        };
        let merged = merge_papers(vec![vec![published], vec![preprint]]);
        assert_eq!(merged.len(), 1);
        let one = &merged[0];
        assert_eq!(one.bibcode.as_deref(), Some("2013PASP..125..306F"));
        assert_eq!(one.arxiv_id.as_deref(), Some("1202.3665"));
        assert_eq!(one.arxiv_version, Some(4));
        assert_eq!(
            one.journal.as_deref(),
            Some("Publications of the Astronomical Society of the Pacific")
        );
        assert_eq!(one.sources, ["ads", "arxiv"]);
        assert_eq!(one.categories, ["astro-ph.IM"]);
    }

    #[test]
    fn different_papers_stay_apart_and_ids_match_across_case() {
        let a = PaperRecord {
            doi: Some("10.1/ABC".into()),
            ..paper(
                "ads",
                "A long enough title about masers",
                "Humphreys, E",
                2013,
            )
        };
        let b = PaperRecord {
            doi: Some("10.1/abc".into()),
            ..paper("arxiv", "Another title", "Someone", 2013)
        };
        let c = paper(
            "arxiv",
            "A completely different paper on Cepheids",
            "Riess, A",
            2022,
        );
        assert_eq!(merge_papers(vec![vec![a], vec![b, c]]).len(), 2);
    }
}
