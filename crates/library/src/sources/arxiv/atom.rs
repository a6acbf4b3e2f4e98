//! The arXiv Atom feed, current and 2016 formats (namespaces are ignored: the 2016
//! feed declares them per element).

use asterism_protocol::PaperRecord;
use quick_xml::Reader;
use quick_xml::events::Event;

use super::ArxivError;

/// A parsed feed.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ArxivFeed {
    pub total_results: Option<u32>,
    pub papers: Vec<PaperRecord>,
    /// The message of an error feed ("incorrect id format for abc").
    pub error: Option<String>,
}

/// `http://arxiv.org/abs/1202.3665v3` → (`1202.3665`, Some(3)); old-style ids keep
/// their archive (`astro-ph/0601001`).
pub fn split_arxiv_id(text: &str) -> Option<(String, Option<i32>)> {
    let text = text.trim();
    let id = text
        .rsplit_once("/abs/")
        .map(|(_, id)| id)
        .or_else(|| text.strip_prefix("arXiv:"))
        .or_else(|| text.strip_prefix("arxiv:"))
        .unwrap_or(text)
        .trim_end_matches(".pdf");
    if id.is_empty() {
        return None;
    }
    match id.rfind('v') {
        Some(at)
            if at > 0 && id[at + 1..].chars().all(|c| c.is_ascii_digit()) && at + 1 < id.len() =>
        {
            let version = id[at + 1..].parse().ok();
            Some((id[..at].to_string(), version))
        }
        _ => Some((id.to_string(), None)),
    }
}

fn collapse(text: &str) -> String {
    repair_mojibake(&text.split_whitespace().collect::<Vec<_>>().join(" "))
}

/// Undoes UTF-8 that was decoded as Latin-1 somewhere upstream (`RamÃ­rez` →
/// `Ramírez`), which some arXiv metadata carries. Text is left alone unless every
/// character fits in Latin-1 and the bytes form valid UTF-8.
pub(crate) fn repair_mojibake(text: &str) -> String {
    if !text.contains(['Ã', 'Â', 'Å', 'Ä']) {
        return text.to_string();
    }
    let bytes: Option<Vec<u8>> = text
        .chars()
        .map(|c| u8::try_from(u32::from(c)).ok())
        .collect();
    match bytes.map(String::from_utf8) {
        Some(Ok(repaired)) => repaired,
        _ => text.to_string(),
    }
}

fn local(name: &[u8]) -> String {
    let name = String::from_utf8_lossy(name);
    name.rsplit(':').next().unwrap_or(&name).to_string()
}

#[derive(Default)]
struct Entry {
    id: String,
    title: String,
    summary: String,
    published: String,
    authors: Vec<String>,
    affiliations: Vec<String>,
    doi: Option<String>,
    journal_ref: Option<String>,
    categories: Vec<String>,
    primary: Option<String>,
}

/// Reads a feed. A truncated or non-Atom body is an error.
pub fn parse_feed(body: &str) -> Result<ArxivFeed, ArxivError> {
    let mut reader = Reader::from_str(body);
    let mut feed = ArxivFeed::default();
    let mut path: Vec<String> = Vec::new();
    let mut entry: Option<Entry> = None;
    let mut text = String::new();
    let mut saw_feed = false;
    let mut closed_feed = false;
    loop {
        let event = reader
            .read_event()
            .map_err(|error| ArxivError::BadResponse(format!("invalid XML: {error}")))?;
        match event {
            Event::Eof => break,
            Event::Start(start) => {
                let name = local(start.name().as_ref());
                if name == "feed" {
                    saw_feed = true;
                }
                if name == "entry" {
                    entry = Some(Entry::default());
                }
                if let Some(entry) = entry.as_mut() {
                    attributes_into(&start, &name, entry);
                }
                text.clear();
                path.push(name);
            }
            Event::Empty(start) => {
                let name = local(start.name().as_ref());
                if let Some(entry) = entry.as_mut() {
                    attributes_into(&start, &name, entry);
                }
            }
            Event::Text(chunk) => {
                if let Ok(value) = chunk.xml_content() {
                    text.push_str(&value);
                }
            }
            Event::GeneralRef(reference) => {
                // Entities split text events: put the character back.
                text.push_str(entity(&String::from_utf8_lossy(reference.as_ref())));
            }
            Event::CData(data) => text.push_str(&String::from_utf8_lossy(&data)),
            Event::End(_) => {
                let name = path.pop().unwrap_or_default();
                let parent = path.last().map(String::as_str).unwrap_or("");
                let value = std::mem::take(&mut text);
                closed(&mut feed, &mut entry, parent, &name, value);
                if name == "feed" {
                    closed_feed = true;
                }
            }
            _ => {}
        }
    }
    if !saw_feed {
        return Err(ArxivError::BadResponse(
            "the answer is not an Atom feed".into(),
        ));
    }
    if !closed_feed {
        return Err(ArxivError::BadResponse("the feed is truncated".into()));
    }
    Ok(feed)
}

/// What the element `name` (inside `parent`) closing with `value` as its text gives.
fn closed(
    feed: &mut ArxivFeed,
    entry: &mut Option<Entry>,
    parent: &str,
    name: &str,
    value: String,
) {
    match (parent, name) {
        ("feed", "totalResults") => feed.total_results = value.trim().parse().ok(),
        (_, "entry") => {
            if let Some(done) = entry.take() {
                if done.id.contains("/api/errors") || done.title.trim() == "Error" {
                    feed.error = Some(collapse(&done.summary));
                } else if let Some(paper) = to_paper(done) {
                    feed.papers.push(paper);
                }
            }
        }
        ("entry", field) => {
            if let Some(entry) = entry.as_mut() {
                match field {
                    "id" => entry.id = value.trim().to_string(),
                    "title" => entry.title = collapse(&value),
                    "summary" => entry.summary = value.trim().to_string(),
                    "published" => entry.published = value.trim().to_string(),
                    "doi" => entry.doi = Some(value.trim().to_string()),
                    "journal_ref" => entry.journal_ref = Some(collapse(&value)),
                    _ => {}
                }
            }
        }
        ("author", "name") => {
            if let Some(entry) = entry.as_mut() {
                entry.authors.push(collapse(&value));
            }
        }
        ("author", "affiliation") => {
            if let Some(entry) = entry.as_mut() {
                entry.affiliations.push(collapse(&value));
            }
        }
        _ => {}
    }
}

/// The character an XML entity stands for ("" for one not predefined).
fn entity(name: &str) -> &'static str {
    match name {
        "amp" => "&",
        "lt" => "<",
        "gt" => ">",
        "quot" => "\"",
        "apos" => "'",
        _ => "",
    }
}

fn attributes_into(start: &quick_xml::events::BytesStart<'_>, name: &str, entry: &mut Entry) {
    let attribute = |key: &str| {
        start
            .try_get_attribute(key)
            .ok()
            .flatten()
            .and_then(|attribute| {
                attribute
                    .unescape_value()
                    .ok()
                    .map(|value| value.into_owned())
            })
    };
    match name {
        "category" => {
            if let Some(term) = attribute("term")
                && !entry.categories.contains(&term)
            {
                entry.categories.push(term);
            }
        }
        "primary_category" => entry.primary = attribute("term"),
        _ => {}
    }
}

fn to_paper(entry: Entry) -> Option<PaperRecord> {
    let (arxiv_id, version) = split_arxiv_id(&entry.id)?;
    let mut categories = entry.categories;
    if let Some(primary) = entry.primary {
        categories.retain(|category| *category != primary);
        categories.insert(0, primary);
    }
    let year = entry.published.get(..4).and_then(|year| year.parse().ok());
    Some(PaperRecord {
        arxiv_id: Some(arxiv_id),
        arxiv_version: version,
        doi: entry.doi,
        title: entry.title,
        authors: entry.authors,
        affiliations: entry.affiliations,
        year,
        journal: entry.journal_ref.or_else(|| Some("arXiv e-prints".into())),
        abstract_text: Some(collapse(&entry.summary)).filter(|text| !text.is_empty()),
        categories,
        published: Some(entry.published).filter(|date| !date.is_empty()),
        sources: vec!["arxiv".into()],
        ..PaperRecord::default()
    })
}

#[cfg(test)]
mod tests;
