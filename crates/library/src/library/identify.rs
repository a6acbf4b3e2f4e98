//! Finding the online record of a paper known from its PDF: by the arXiv id or DOI it
//! prints (ADS, arXiv, Crossref), else by title and first author (ADS, arXiv,
//! Crossref). A search result is accepted only when its title is nearly the same
//! (normalised Levenshtein similarity of at least [`TITLE_SIMILARITY`]) and its first
//! author has the same family name; otherwise the local record stays.

use asterism_protocol::PaperRecord;
use unicode_normalization::UnicodeNormalization;

use crate::papers::PaperSearch;
use crate::papers::bibtex::family_name;
use crate::sources::ads::AdsQuery;
use crate::sources::arxiv::ArxivSort;
use crate::sources::crossref::CrossrefClient;

/// The least title similarity (0–1) at which a search result is the same paper.
pub const TITLE_SIMILARITY: f64 = 0.9;

/// Candidates asked of each service in a title search.
const ROWS: u32 = 5;

/// An online record and how it was found.
#[derive(Debug, Clone, PartialEq)]
pub struct Identified {
    pub record: PaperRecord,
    /// "arXiv id 2407.01603", "Crossref title search", …
    pub via: String,
}

/// Lower-case ASCII letters and digits, single-spaced: accents, case, markup and
/// punctuation do not count when titles are compared.
fn normalise(text: &str) -> String {
    text.nfkd()
        .filter(|c| c.is_ascii())
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                ' '
            }
        })
        .collect::<String>()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// How alike two titles are, 0–1, once normalised.
pub fn title_similarity(a: &str, b: &str) -> f64 {
    strsim::normalized_levenshtein(&normalise(a), &normalise(b))
}

fn first_family(paper: &PaperRecord) -> Option<String> {
    paper
        .authors
        .first()
        .map(|author| normalise(family_name(author)))
        .filter(|family| !family.is_empty())
}

/// Whether `candidate` is the paper `local` describes: nearly the same title and the
/// same first author's family name.
pub fn same_paper(local: &PaperRecord, candidate: &PaperRecord) -> bool {
    let same_author = match (first_family(local), first_family(candidate)) {
        (Some(a), Some(b)) => a == b,
        _ => false,
    };
    same_author && title_similarity(&local.title, &candidate.title) >= TITLE_SIMILARITY
}

/// The online record of `local`, if a service has one; `notes` gets why a service
/// could not be asked or did not answer.
pub async fn identify_online(
    papers: &PaperSearch,
    crossref: Option<&CrossrefClient>,
    local: &PaperRecord,
    notes: &mut Vec<String>,
) -> Option<Identified> {
    if let Some(found) = by_ids(papers, crossref, local, notes).await {
        return Some(found);
    }
    // As printed (the services match accents and case themselves).
    let family = local
        .authors
        .first()
        .map(|author| family_name(author).trim().to_string())
        .filter(|family| !family.is_empty())?;
    let title = local.title.trim();
    if title.split_whitespace().count() < 3 {
        return None;
    }
    let best = |candidates: Vec<PaperRecord>| candidates.into_iter().find(|c| same_paper(local, c));
    if papers.ads.has_token() {
        let query = AdsQuery {
            q: format!("title:\"{}\" author:\"^{family}\"", title.replace('"', " ")),
            rows: ROWS,
            ..AdsQuery::default()
        };
        match papers.ads.search(&query).await {
            Ok(found) => {
                if let Some(record) = best(found.papers) {
                    return Some(identified(record, "ADS title and author search"));
                }
            }
            Err(error) => notes.push(format!("ADS: {error}")),
        }
    }
    let words: Vec<String> = normalise(title)
        .split(' ')
        .filter(|word| word.len() > 3)
        .take(8)
        .map(|word| format!("ti:{word}"))
        .collect();
    let query = format!(
        "{} AND au:{}",
        words.join(" AND "),
        family.replace(' ', "_")
    );
    match papers
        .arxiv
        .search(&query, 0, ROWS, ArxivSort::Relevance)
        .await
    {
        Ok(feed) => {
            if let Some(record) = best(feed.papers) {
                return Some(identified(record, "arXiv title and author search"));
            }
        }
        Err(error) => notes.push(format!("arXiv: {error}")),
    }
    let crossref = crossref?;
    match crossref.search(title, Some(&family), ROWS).await {
        Ok(found) => {
            best(found).map(|record| identified(record, "Crossref title and author search"))
        }
        Err(error) => {
            notes.push(format!("Crossref: {error}"));
            None
        }
    }
}

fn identified(record: PaperRecord, via: &str) -> Identified {
    Identified {
        record,
        via: via.to_string(),
    }
}

/// By the arXiv id or DOI the PDF prints: ADS and arXiv first, Crossref for a DOI.
async fn by_ids(
    papers: &PaperSearch,
    crossref: Option<&CrossrefClient>,
    local: &PaperRecord,
    notes: &mut Vec<String>,
) -> Option<Identified> {
    if let Some(arxiv) = &local.arxiv_id {
        match papers.metadata(arxiv).await {
            Ok(record) => return Some(identified(record, &format!("arXiv id {arxiv}"))),
            Err(error) => notes.push(format!("arXiv id {arxiv}: {error}")),
        }
    }
    let doi = local.doi.as_ref()?;
    match papers.metadata(doi).await {
        Ok(record) => return Some(identified(record, &format!("DOI {doi}"))),
        Err(error) => notes.push(format!("DOI {doi}: {error}")),
    }
    match crossref?.work(doi).await {
        Ok(Some(record)) => Some(identified(record, &format!("DOI {doi} (Crossref)"))),
        Ok(None) => None,
        Err(error) => {
            notes.push(format!("Crossref: {error}"));
            None
        }
    }
}

/// Whether a note says a service could not be reached at all (no network, refused,
/// timed out), as opposed to an answer.
fn unreachable(note: &str) -> bool {
    let note = note.to_lowercase();
    [
        "error sending request",
        "connect",
        "timed out",
        "timeout",
        "dns",
        "unreachable",
        "no answer within",
    ]
    .iter()
    .any(|sign| note.contains(sign))
}

/// One plain line saying why a paper was not identified, from what the services said.
pub fn why_not(notes: &[String], ads_configured: bool) -> String {
    let offline = !notes.is_empty() && notes.iter().all(|note| unreachable(note));
    let mut reason = if offline {
        let services = if ads_configured {
            "ADS and arXiv"
        } else {
            "arXiv"
        };
        format!("offline ({services} unreachable)")
    } else if notes.iter().any(|note| unreachable(note)) {
        format!(
            "no match where a service answered; unreachable: {}",
            notes
                .iter()
                .filter(|note| unreachable(note))
                .filter_map(|note| note.split(':').next())
                .collect::<Vec<_>>()
                .join(", ")
        )
    } else {
        "no arXiv id, DOI or title match".to_string()
    };
    if !ads_configured {
        reason.push_str("; ADS not configured: set ADS_API_TOKEN");
    }
    reason
}

/// Whether a reason from [`why_not`] says the network is down.
pub fn is_offline(reason: &str) -> bool {
    reason.starts_with("offline")
}

/// The online record with what only the PDF told kept where the service said nothing
/// (the arXiv id or DOI printed on page 1, affiliations, abstract, keywords).
pub fn complete(mut online: PaperRecord, local: &PaperRecord) -> PaperRecord {
    online.arxiv_id = online.arxiv_id.or_else(|| local.arxiv_id.clone());
    online.doi = online.doi.or_else(|| local.doi.clone());
    online.year = online.year.or(local.year);
    online.abstract_text = online.abstract_text.or_else(|| local.abstract_text.clone());
    if online.affiliations.is_empty() && online.authors.len() == local.authors.len() {
        online.affiliations = local.affiliations.clone();
    }
    if online.keywords.is_empty() {
        online.keywords = local.keywords.clone();
    }
    online
}

/// What `identify` did for one paper.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct IdentifyOutcome {
    pub paper_id: String,
    pub title: String,
    /// `identified`, `not-found`, `already-identified` or `duplicate` (the online
    /// record is another paper of the library).
    pub status: &'static str,
    /// How it was found.
    pub via: Option<String>,
    /// What changed, one line per field ("year: 2021 → 2022").
    pub changes: Vec<String>,
    /// Services that could not be asked or did not answer.
    pub notes: Vec<String>,
    /// Why it is not identified, in one plain line (see [`why_not`]).
    pub reason: Option<String>,
}

fn shown<T: std::fmt::Display>(value: Option<T>) -> String {
    value.map_or_else(|| "(none)".to_string(), |value| value.to_string())
}

/// One line per field the new record changes.
pub fn changes(old: &PaperRecord, new: &PaperRecord) -> Vec<String> {
    let mut lines = Vec::new();
    let mut field = |name: &str, before: String, after: String| {
        if before != after {
            lines.push(format!("{name}: {before} → {after}"));
        }
    };
    field("title", old.title.clone(), new.title.clone());
    field("authors", old.authors.join("; "), new.authors.join("; "));
    field("year", shown(old.year), shown(new.year));
    field(
        "journal",
        shown(old.journal.as_ref()),
        shown(new.journal.as_ref()),
    );
    field(
        "bibcode",
        shown(old.bibcode.as_ref()),
        shown(new.bibcode.as_ref()),
    );
    field(
        "arXiv",
        shown(old.arxiv_id.as_ref()),
        shown(new.arxiv_id.as_ref()),
    );
    field("DOI", shown(old.doi.as_ref()), shown(new.doi.as_ref()));
    lines
}

impl crate::library::Library {
    /// Tries again to identify papers known only from their PDF: `paper_id`, or every
    /// local-only paper. A found record replaces the local one (ids the PDF printed are
    /// kept); one that is another paper of the library changes nothing.
    pub async fn identify(
        &self,
        paper_id: Option<&str>,
    ) -> Result<Vec<IdentifyOutcome>, asterism_store::StoreError> {
        let ids = match paper_id {
            Some(id) => vec![id.to_string()],
            None => self.store.local_only_papers().await?,
        };
        let mut outcomes = Vec::with_capacity(ids.len());
        // Once the network is known to be down, the other papers are not looked up.
        let mut offline = None;
        for id in ids {
            if let Some(outcome) = self.identify_one(&id, offline.as_deref()).await? {
                if let Some(reason) = outcome.reason.as_deref().filter(|r| is_offline(r)) {
                    offline.get_or_insert_with(|| reason.to_string());
                }
                if outcome.status == "identified" {
                    self.link_objects(&id).await?;
                }
                outcomes.push(outcome);
            }
        }
        Ok(outcomes)
    }

    async fn identify_one(
        &self,
        paper_id: &str,
        offline: Option<&str>,
    ) -> Result<Option<IdentifyOutcome>, asterism_store::StoreError> {
        let Some(local) = self.store.paper_record(paper_id).await? else {
            return Ok(None);
        };
        let mut outcome = IdentifyOutcome {
            paper_id: paper_id.to_string(),
            title: local.title.clone(),
            status: "not-found",
            via: None,
            changes: Vec::new(),
            notes: Vec::new(),
            reason: None,
        };
        let source = self.store.paper_metadata_source(paper_id).await?;
        if source
            .as_deref()
            .is_some_and(|source| source != super::metadata::LOCAL_SOURCE)
        {
            outcome.status = "already-identified";
            return Ok(Some(outcome));
        }
        let found = match offline {
            Some(_) => None,
            None => {
                identify_online(
                    &self.papers,
                    self.crossref.as_ref(),
                    &local,
                    &mut outcome.notes,
                )
                .await
            }
        };
        let Some(found) = found else {
            let reason = match offline {
                Some(reason) => reason.to_string(),
                None => why_not(&outcome.notes, self.papers.ads.has_token()),
            };
            self.store
                .set_identify_note(paper_id, Some(&reason))
                .await?;
            outcome.reason = Some(reason);
            return Ok(Some(outcome));
        };
        let record = complete(found.record, &local);
        outcome.via = Some(found.via);
        let other = self
            .store
            .find_paper(
                record.bibcode.as_deref(),
                record.arxiv_id.as_deref(),
                record.doi.as_deref(),
            )
            .await?
            .filter(|other| other != paper_id);
        if let Some(other) = other {
            outcome.status = "duplicate";
            outcome
                .notes
                .push(format!("the library already has it as {other}"));
            return Ok(Some(outcome));
        }
        self.store.replace_paper_metadata(paper_id, &record).await?;
        self.store.set_identify_note(paper_id, None).await?;
        outcome.status = "identified";
        outcome.changes = changes(&local, &record);
        outcome.title = record.title;
        Ok(Some(outcome))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reasons_are_plain() {
        let offline = vec![
            "arXiv id 2401.01234: error sending request for url (http://127.0.0.1:9/): client error (Connect)".to_string(),
            "arXiv: error sending request: tcp connect error: Connection refused".to_string(),
        ];
        assert_eq!(
            why_not(&offline, true),
            "offline (ADS and arXiv unreachable)"
        );
        assert_eq!(
            why_not(&offline, false),
            "offline (arXiv unreachable); ADS not configured: set ADS_API_TOKEN"
        );
        assert_eq!(why_not(&[], true), "no arXiv id, DOI or title match");
        let mixed = vec![
            "ADS: HTTP 500".to_string(),
            "Crossref: operation timed out".to_string(),
        ];
        assert!(why_not(&mixed, true).starts_with("no match where a service answered"));
        assert!(is_offline(&why_not(&offline, true)));
    }

    fn paper(title: &str, first: &str) -> PaperRecord {
        PaperRecord {
            title: title.into(),
            authors: vec![first.into()],
            ..PaperRecord::default()
        }
    }

    #[test]
    fn nearly_the_same_title_and_first_author_is_the_same_paper() {
        let local = paper(
            "FAST AND SCALABLE GAUSSIAN PROCESS MODELING WITH APPLICATIONS TO ASTRONOMICAL TIME SERIES",
            "Foreman-Mackey, Daniel",
        );
        let online = paper(
            "Fast and Scalable Gaussian Process Modeling with Applications to Astronomical Time Series",
            "Foreman-Mackey, D.",
        );
        assert!(same_paper(&local, &online));
        let other_author = paper(&online.title, "Agol, Eric");
        assert!(!same_paper(&local, &other_author));
        let other_title = paper(
            "Scalable Gaussian Process Methods for Stellar Variability",
            "Foreman-Mackey, D.",
        );
        assert!(!same_paper(&local, &other_title));
        assert!(title_similarity("Dust in M 31", "Dust in M 33") < 1.0);
    }
}
