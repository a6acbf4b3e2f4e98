//! BibTeX for a set of papers: ADS's export when a token is set and ADS answers (its
//! entries are the reference astronomers expect), generated locally from the metadata
//! otherwise. Citation keys are stable and the same either way: first author's family
//! name, year, first significant title word (`donath2023gammapy`), so a manuscript's
//! `\cite`s do not change with the network.

use std::collections::{HashMap, HashSet};

use asterism_protocol::PaperRecord;
use biblatex::{
    Bibliography, Chunk, ChunksExt, Entry, EntryType, Person, RawBibliography, RawEntry, Spanned,
};
use unicode_normalization::UnicodeNormalization;

use crate::sources::ads::AdsClient;

/// One paper's entry.
#[derive(Debug, Clone, PartialEq)]
pub struct BibEntry {
    /// Which of the papers asked for (its index).
    pub paper: usize,
    pub key: String,
    /// `ads` or `local`.
    pub source: &'static str,
    pub text: String,
}

/// ASCII letters and digits of `text`, lower-case, accents dropped (`Ramírez` → `ramirez`).
fn ascii_word(text: &str) -> String {
    text.nfd()
        .filter(char::is_ascii_alphanumeric)
        .flat_map(|c| c.to_lowercase())
        .collect()
}

const STOP_WORDS: &[&str] = &[
    "a", "an", "the", "on", "of", "in", "for", "and", "with", "to", "from", "by", "at", "is",
    "are", "new", "towards", "toward", "using",
];

/// The family name in "Family, Given" or "Given Family".
pub fn family_name(author: &str) -> &str {
    match author.split_once(',') {
        Some((family, _)) => family.trim(),
        None => author.split_whitespace().last().unwrap_or(author),
    }
}

/// The stable key of a paper: `{family}{year}{word}`.
pub fn citation_key(first_author: Option<&str>, year: Option<i32>, title: &str) -> String {
    let family = first_author
        .map(family_name)
        .map(ascii_word)
        .filter(|name| !name.is_empty())
        .unwrap_or_else(|| "anon".into());
    let year = year.map_or_else(|| "nd".to_string(), |year| year.to_string());
    let word = title
        .split(|c: char| c.is_whitespace() || c == '-' || c == ':' || c == '/')
        .map(|word| {
            // LaTeX commands and math are not words.
            if word.starts_with('\\') || word.contains('$') {
                String::new()
            } else {
                ascii_word(word)
            }
        })
        // Numbers are not words either ("A 30 Million Year Old…" → `million`).
        .find(|word| {
            word.len() > 1
                && !STOP_WORDS.contains(&word.as_str())
                && !word.chars().all(|c| c.is_ascii_digit())
        })
        .unwrap_or_default();
    format!("{family}{year}{word}")
}

fn key_of(paper: &PaperRecord) -> String {
    citation_key(
        paper.authors.first().map(String::as_str),
        paper.year,
        &paper.title,
    )
}

fn chunk(text: &str) -> Vec<Spanned<Chunk>> {
    vec![Spanned::detached(Chunk::Normal(text.to_string()))]
}

fn person(author: &str) -> Person {
    match author.split_once(',') {
        Some((family, given)) => Person {
            name: family.trim().into(),
            given_name: given.trim().into(),
            prefix: String::new(),
            suffix: String::new(),
        },
        None => {
            let mut words: Vec<&str> = author.split_whitespace().collect();
            let name = words.pop().unwrap_or_default().to_string();
            Person {
                name,
                given_name: words.join(" "),
                prefix: String::new(),
                suffix: String::new(),
            }
        }
    }
}

/// The author field: people as "Family, Given", and a group's name in braces
/// ("{Planck Collaboration}") so BibTeX neither inverts nor abbreviates it.
fn author_chunks(authors: &[String]) -> Vec<Spanned<Chunk>> {
    let mut chunks = Vec::new();
    for (at, author) in authors.iter().enumerate() {
        if at > 0 {
            chunks.push(Spanned::detached(Chunk::Normal(" and ".into())));
        }
        let chunk = if crate::library::metadata::is_group(author) {
            Chunk::Verbatim(author.trim().to_string())
        } else {
            let person = person(author);
            Chunk::Normal(if person.given_name.is_empty() {
                person.name
            } else {
                format!("{}, {}", person.name, person.given_name)
            })
        };
        chunks.push(Spanned::detached(chunk));
    }
    chunks
}

/// The note of an entry whose metadata was only read from the paper's PDF.
pub const LOCAL_NOTE: &str = "Metadata extracted locally from the PDF";

/// An entry made from the metadata alone (with [`LOCAL_NOTE`] when that metadata was
/// read from the PDF, not given by a service).
pub fn local_entry(paper: &PaperRecord, key: &str) -> String {
    let published =
        paper.journal.is_some() && paper.arxiv_id.as_deref() != paper.journal.as_deref();
    let mut entry = Entry::new(
        key.to_string(),
        if published {
            EntryType::Article
        } else {
            EntryType::Misc
        },
    );
    if !paper.authors.is_empty() {
        entry.set("author", author_chunks(&paper.authors));
    }
    // Double braces keep the title's capitalisation (as ADS does).
    entry.set(
        "title",
        vec![Spanned::detached(Chunk::Verbatim(paper.title.clone()))],
    );
    if let Some(journal) = paper.journal.as_deref().filter(|_| published) {
        entry.set("journal", chunk(journal));
    }
    if let Some(year) = paper.year {
        entry.set("year", chunk(&year.to_string()));
    }
    if let Some(volume) = &paper.volume {
        entry.set("volume", chunk(volume));
    }
    if let Some(page) = &paper.page {
        entry.set("pages", chunk(page));
    }
    if let Some(doi) = &paper.doi {
        entry.set("doi", chunk(doi));
    }
    if let Some(arxiv) = &paper.arxiv_id {
        entry.set("eprint", chunk(arxiv));
        entry.set("archiveprefix", chunk("arXiv"));
        if let Some(category) = paper.categories.first() {
            entry.set("primaryclass", chunk(category));
        }
    }
    if paper.sources.iter().any(|source| source == "local") {
        entry.set("note", chunk(LOCAL_NOTE));
    }
    if let Some(bibcode) = &paper.bibcode {
        entry.set(
            "adsurl",
            chunk(&format!("https://ui.adsabs.harvard.edu/abs/{bibcode}")),
        );
    }
    entry
        .to_bibtex_string()
        .unwrap_or_else(|_| entry.to_biblatex_string())
}

/// Splits an ADS export into its entries by key (the bibcode), each as ADS wrote it
/// with the key rewritten to `KEY`. The BibTeX parser finds where entries end, so an
/// `@` at the start of a line inside a field (an abstract, a note) stays in its entry.
fn ads_entries(export: &str) -> Result<HashMap<String, String>, biblatex::ParseError> {
    let raw = RawBibliography::parse(export)?;
    Ok(raw
        .entries
        .iter()
        .filter_map(|entry| {
            let body = entry_body(export, entry)?;
            let text = format!("@{}{{KEY,{body}", entry.v.kind.v);
            Some((entry.v.key.v.trim().to_string(), text))
        })
        .collect())
}

/// What follows the key and its comma in `entry`, up to and with its closing brace.
fn entry_body<'s>(export: &'s str, entry: &Spanned<RawEntry<'_>>) -> Option<&'s str> {
    let after_key = entry.v.key.span.end;
    let comma = after_key + export.get(after_key..)?.find(',')?;
    // The parser's span ends after the last field; the closing brace follows.
    let tail = export.get(entry.span.end..)?;
    let close = entry.span.end + tail.find(|c: char| !c.is_whitespace())?;
    export.get(comma + 1..=close)
}

/// The stable key of a BibTeX entry, from its first author, year and title.
fn key_of_bibtex(text: &str) -> Option<String> {
    let bibliography = Bibliography::parse(text).ok()?;
    let entry = bibliography.iter().next()?;
    let family = entry.author().ok()?.first().map(|person| {
        person
            .name
            .chars()
            .filter(|c| !matches!(c, '{' | '}'))
            .collect::<String>()
    });
    let year = entry
        .get("year")
        .map(|chunks| chunks.format_verbatim())
        .and_then(|year| year.trim().parse().ok());
    let title = entry
        .get("title")
        .map(|chunks| chunks.format_verbatim())
        .unwrap_or_default();
    Some(citation_key(family.as_deref(), year, &title))
}

/// ADS's entries for the papers with a bibcode, by bibcode (none without a token, or
/// when ADS fails: `notes` says so).
async fn from_ads(
    papers: &[PaperRecord],
    ads: Option<&AdsClient>,
    notes: &mut Vec<String>,
) -> HashMap<String, String> {
    let bibcodes: Vec<String> = papers.iter().filter_map(|p| p.bibcode.clone()).collect();
    let export = match ads {
        Some(ads) if ads.has_token() && !bibcodes.is_empty() => ads.export_bibtex(&bibcodes).await,
        Some(ads) if !ads.has_token() => {
            notes.push("no ADS_API_TOKEN: entries made locally from the metadata".into());
            return HashMap::new();
        }
        _ => return HashMap::new(),
    };
    let mut entries = match export.map(|export| ads_entries(&export)) {
        Ok(Ok(entries)) => entries,
        Ok(Err(error)) => {
            notes.push(format!(
                "ADS's export is not BibTeX ({error}); entries made locally"
            ));
            return HashMap::new();
        }
        Err(error) => {
            notes.push(format!("ADS export failed ({error}); entries made locally"));
            return HashMap::new();
        }
    };
    // Parsing each entry checks it is BibTeX at all.
    entries.retain(|_, text| Bibliography::parse(text).is_ok_and(|b| b.len() == 1));
    entries
}

/// BibTeX for `papers`, in their order: ADS's entries where it has them (when `ads`
/// has a token and answers), local ones otherwise. Keys are unique within the set
/// (`…b`, `…c` for clashes). Returns the entries and notes on what was not from ADS.
pub async fn bibtex(
    papers: &[PaperRecord],
    ads: Option<&AdsClient>,
) -> (Vec<BibEntry>, Vec<String>) {
    let mut notes = Vec::new();
    let from_ads = from_ads(papers, ads, &mut notes).await;
    let mut used = HashSet::new();
    let mut entries = Vec::new();
    for (index, paper) in papers.iter().enumerate() {
        let ads_text = paper
            .bibcode
            .as_ref()
            .and_then(|bibcode| from_ads.get(bibcode));
        // A bare bibcode (no metadata found) is only as good as ADS's entry for it.
        let bare = paper.title.is_empty() && paper.authors.is_empty();
        let base = match ads_text {
            Some(text) if bare => key_of_bibtex(text).unwrap_or_else(|| key_of(paper)),
            None if bare => {
                notes.push(format!(
                    "{}: neither the library nor ADS knows it",
                    paper.bibcode.as_deref().unwrap_or("a paper")
                ));
                continue;
            }
            _ => key_of(paper),
        };
        let mut key = base.clone();
        let mut suffix = b'b';
        while !used.insert(key.clone()) {
            key = format!("{base}{}", char::from(suffix));
            suffix = suffix.saturating_add(1);
        }
        let entry = match ads_text {
            Some(text) => BibEntry {
                paper: index,
                text: text.replacen("{KEY,", &format!("{{{key},"), 1),
                key,
                source: "ads",
            },
            None => BibEntry {
                paper: index,
                text: local_entry(paper, &key),
                key,
                source: "local",
            },
        };
        entries.push(entry);
    }
    let local = papers
        .iter()
        .filter(|paper| paper.sources.iter().any(|source| source == "local"))
        .count();
    if local > 0 {
        notes.push(format!(
            "{local} entries are made from what the PDF itself says (note = {{{LOCAL_NOTE}}}); `asterism library identify` looks those papers up again"
        ));
    }
    (entries, notes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn emcee() -> PaperRecord {
        PaperRecord {
            bibcode: Some("2013PASP..125..306F".into()),
            arxiv_id: Some("1202.3665".into()),
            doi: Some("10.1086/670067".into()),
            title: "emcee: The MCMC Hammer".into(),
            authors: vec!["Foreman-Mackey, Daniel".into(), "Hogg, David W.".into()],
            year: Some(2013),
            journal: Some("Publications of the Astronomical Society of the Pacific".into()),
            volume: Some("125".into()),
            page: Some("306".into()),
            ..PaperRecord::default()
        }
    }

    #[test]
    fn keys_are_stable_and_plain_ascii() {
        assert_eq!(key_of(&emcee()), "foremanmackey2013emcee");
        assert_eq!(
            citation_key(
                Some("Jesús Ramírez"),
                Some(2024),
                "The Tip of the Red Giant Branch"
            ),
            "ramirez2024tip"
        );
        assert_eq!(
            citation_key(None, None, "$H_0$ from \\textit{JWST} and the Tip"),
            "anonndtip"
        );
        assert_eq!(
            citation_key(
                Some("Bouma, L. G."),
                Some(2021),
                "A 30 Million Year Old Mini-Neptune"
            ),
            "bouma2021million"
        );
    }

    #[test]
    fn local_entries_parse_back_with_their_fields() {
        let text = local_entry(&emcee(), "foremanmackey2013emcee");
        let parsed = Bibliography::parse(&text).unwrap();
        let entry = parsed.get("foremanmackey2013emcee").unwrap();
        assert_eq!(entry.entry_type, EntryType::Article);
        let authors = entry.author().unwrap();
        assert_eq!(authors[0].name, "Foreman-Mackey");
        assert_eq!(authors[1].given_name, "David W.");
        assert!(
            text.contains("title = {{emcee: The MCMC Hammer}}"),
            "{text}"
        );
        assert!(text.contains("doi = {10.1086/670067}"), "{text}");
        assert!(text.contains("eprint = {1202.3665}"), "{text}");
    }

    /// The hand-made split `ads_entries` used before the parser, to compare with.
    fn split_by_hand(export: &str) -> HashMap<String, String> {
        let mut entries = HashMap::new();
        for raw in export.split("\n@").map(str::trim) {
            let raw = raw.strip_prefix('@').unwrap_or(raw);
            let Some((head, rest)) = raw.split_once(',') else {
                continue;
            };
            let Some((kind, key)) = head.split_once('{') else {
                continue;
            };
            entries.insert(key.trim().to_string(), format!("@{kind}{{KEY,{rest}"));
        }
        entries
    }

    #[test]
    fn a_recorded_ads_export_splits_as_it_always_did() {
        let path = asterism_testkit::fixture_path("ads/export_bibtex_27records_reserialized.json");
        let recorded: serde_json::Value =
            serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
        let export = recorded["export"].as_str().unwrap();
        let entries = ads_entries(export).unwrap();
        assert_eq!(entries.len(), 27);
        assert_eq!(entries, split_by_hand(export));
        let maoz = &entries["1998ApJ...494L.181M"];
        assert!(maoz.starts_with("@ARTICLE{KEY,\n       author = {{Maoz}, Eyal},"));
        assert!(maoz.ends_with("Data System}\n}"), "{maoz}");
    }

    #[test]
    fn an_at_sign_starting_a_line_inside_a_field_stays_in_its_entry() {
        let export = "@ARTICLE{2013PASP..125..306F,\n       author = {{Foreman-Mackey}, Daniel},\n        title = \"{emcee: The MCMC Hammer}\",\n         note = {Questions to\n@dfm on GitHub},\n         year = 2013,\n}\n\n@ARTICLE{2020A&A...641A...6P,\n       author = {{Planck Collaboration}},\n        title = \"{Planck 2018 results. VI.}\",\n         year = 2020,\n}\n";
        let by_hand = split_by_hand(export);
        let emcee = by_hand.get("2013PASP..125..306F").unwrap();
        assert!(
            Bibliography::parse(emcee).is_err(),
            "the old split cut the entry at the @: {emcee}"
        );

        let entries = ads_entries(export).unwrap();
        assert_eq!(entries.len(), 2, "{entries:?}");
        let emcee = &entries["2013PASP..125..306F"];
        assert!(emcee.ends_with("year = 2013,\n}"), "{emcee}");
        let parsed = Bibliography::parse(emcee).unwrap();
        let note = parsed
            .get("KEY")
            .unwrap()
            .get("note")
            .unwrap()
            .format_verbatim();
        assert!(note.contains("@dfm on GitHub"), "{note}");
        assert_eq!(
            entries["2020A&A...641A...6P"],
            by_hand["2020A&A...641A...6P"]
        );
        assert!(ads_entries("@ARTICLE{broken,\n  title = {never closed\n").is_err());
    }

    #[tokio::test]
    async fn clashing_keys_get_suffixes_and_preprints_are_misc() {
        let preprint = PaperRecord {
            bibcode: None,
            doi: None,
            journal: None,
            ..emcee()
        };
        let (entries, notes) = bibtex(&[emcee(), preprint], None).await;
        assert!(notes.is_empty());
        let keys: Vec<&str> = entries.iter().map(|e| e.key.as_str()).collect();
        assert_eq!(
            keys,
            vec!["foremanmackey2013emcee", "foremanmackey2013emceeb"]
        );
        assert!(
            entries[1]
                .text
                .starts_with("@misc{foremanmackey2013emceeb,"),
            "{}",
            entries[1].text
        );
    }
}
