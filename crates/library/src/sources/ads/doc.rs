//! One ADS document → a [`PaperRecord`], smoothing the field quirks.

use asterism_protocol::PaperRecord;
use serde_json::Value;

use crate::sources::arxiv::split_arxiv_id;

fn strings(value: Option<&Value>) -> Vec<String> {
    match value {
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(Value::as_str)
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .collect(),
        Some(Value::String(text)) if !text.trim().is_empty() => vec![text.trim().to_string()],
        _ => Vec::new(),
    }
}

fn first(value: Option<&Value>) -> Option<String> {
    strings(value).into_iter().next()
}

/// ADS abstracts carry HTML entities and a few tags (`<SUP>`, `<A href>`).
fn clean_abstract(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_tag = false;
    for c in text.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => in_tag = false,
            _ if !in_tag => out.push(c),
            _ => {}
        }
    }
    out.replace("&amp;", "&")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
}

/// The arXiv id in an `identifier` list: `arXiv:1202.3665`, or the e-print bibcode
/// `2012arXiv1202.3665F`.
fn arxiv_from_identifiers(identifiers: &[String]) -> Option<String> {
    identifiers
        .iter()
        .find_map(|identifier| {
            identifier
                .strip_prefix("arXiv:")
                .or_else(|| identifier.strip_prefix("arxiv:"))
                .map(|id| id.to_string())
        })
        .or_else(|| {
            identifiers.iter().find_map(|identifier| {
                // 2012arXiv1202.3665F → 1202.3665
                let rest = identifier.get(4..)?.strip_prefix("arXiv")?;
                let id = rest.trim_end_matches(|c: char| c.is_ascii_alphabetic());
                (id.len() >= 9 && id.contains('.')).then(|| id.to_string())
            })
        })
        .and_then(|id| split_arxiv_id(&id).map(|(id, _)| id))
}

/// Reads one ADS doc; `None` when it has no bibcode.
pub fn paper_from_doc(doc: &Value) -> Option<PaperRecord> {
    let bibcode = doc.get("bibcode")?.as_str()?.trim().to_string();
    if bibcode.is_empty() {
        return None;
    }
    let identifiers = strings(doc.get("identifier"));
    let year = match doc.get("year") {
        Some(Value::String(year)) => year.trim().get(..4).and_then(|year| year.parse().ok()),
        Some(Value::Number(year)) => year.as_i64().and_then(|year| i32::try_from(year).ok()),
        _ => None,
    }
    .or_else(|| bibcode.get(..4).and_then(|year| year.parse().ok()));
    let citation_count = doc
        .get("citation_count")
        .and_then(Value::as_i64)
        .and_then(|n| i32::try_from(n).ok())
        .filter(|n| *n >= 0);
    let journal = doc.get("pub").and_then(Value::as_str).map(str::to_string);
    Some(PaperRecord {
        arxiv_id: arxiv_from_identifiers(&identifiers),
        doi: first(doc.get("doi")),
        title: first(doc.get("title")).unwrap_or_default(),
        authors: strings(doc.get("author")),
        affiliations: strings(doc.get("aff")),
        year,
        journal,
        volume: doc
            .get("volume")
            .and_then(Value::as_str)
            .map(str::to_string),
        page: first(doc.get("page")),
        abstract_text: doc
            .get("abstract")
            .and_then(Value::as_str)
            .map(clean_abstract),
        keywords: strings(doc.get("keyword")),
        categories: strings(doc.get("arxiv_class")),
        citation_count,
        published: doc
            .get("pubdate")
            .and_then(Value::as_str)
            .map(str::to_string),
        sources: vec!["ads".into()],
        bibcode: Some(bibcode),
        ..PaperRecord::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture(name: &str) -> Value {
        serde_json::from_str(
            &std::fs::read_to_string(asterism_testkit::fixture_path(&format!("ads/{name}")))
                .unwrap(),
        )
        .unwrap()
    }

    #[test]
    fn the_emcee_doc_with_every_field() {
        let paper = paper_from_doc(&fixture("doc_emcee_all_fields_adsabs_rs.json")).unwrap();
        assert_eq!(paper.bibcode.as_deref(), Some("2013PASP..125..306F"));
        assert_eq!(paper.arxiv_id.as_deref(), Some("1202.3665"));
        assert_eq!(paper.doi.as_deref(), Some("10.1086/670067"));
        assert_eq!(paper.year, Some(2013));
        assert!(paper.title.starts_with("emcee"));
        assert!(paper.citation_count.unwrap() > 5000);
        let abstract_text = paper.abstract_text.unwrap();
        assert!(abstract_text.contains("Goodman & Weare"));
        assert!(!abstract_text.contains("<SUP>"));
    }

    /// Found by the ADS property tests: a blank bibcode made a paper whose bibcode was
    /// "", which the library and the BibTeX export would key on.
    #[test]
    fn a_blank_bibcode_is_no_bibcode() {
        for bibcode in ["", "   "] {
            let doc = serde_json::json!({"bibcode": bibcode, "title": ["A title"]});
            assert_eq!(paper_from_doc(&doc), None, "{bibcode:?}");
        }
    }

    /// Found by the ADS property tests: a negative citation_count was kept.
    #[test]
    fn a_negative_citation_count_is_no_count() {
        let doc = serde_json::json!({"bibcode": "2013PASP..125..306F", "citation_count": -1});
        assert_eq!(paper_from_doc(&doc).unwrap().citation_count, None);
        let doc = serde_json::json!({"bibcode": "2013PASP..125..306F", "citation_count": 0});
        assert_eq!(paper_from_doc(&doc).unwrap().citation_count, Some(0));
    }

    #[test]
    fn bigquery_docs_with_eprints_and_string_years() {
        let body = fixture("search_bigquery_10docs_citationbot.json");
        let docs = body["response"]["docs"].as_array().unwrap();
        let papers: Vec<PaperRecord> = docs.iter().filter_map(paper_from_doc).collect();
        assert_eq!(papers.len(), 10);
        assert!(
            papers
                .iter()
                .all(|paper| paper.year.is_some() && !paper.title.is_empty())
        );
        assert!(
            papers.iter().any(|paper| paper.arxiv_id.is_some()),
            "identifier lists hold arXiv ids"
        );
        assert_eq!(papers[0].page.as_deref(), Some("195"));
        assert_eq!(
            papers[0].doi.as_deref(),
            Some("10.1130/0016-7606(1996)108<0195:GCGBPT>2.3.CO;2")
        );
    }
}
