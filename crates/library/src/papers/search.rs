//! `search_papers`: ADS and arXiv asked at the same time, merged, marked with their
//! local status. Without an ADS token, arXiv alone answers and the outcome says so.

use std::time::Instant;

use asterism_protocol::{LocalStatus, PaperRecord};
use asterism_store::Store;

use super::merge_papers;
use crate::sources::ads::{AdsClient, AdsQuery};
use crate::sources::arxiv::{ArxivClient, ArxivSort};

/// What a search found and what the user should know about how.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchOutcome {
    pub papers: Vec<PaperRecord>,
    /// Per service: found count, or why it did not answer.
    pub notes: Vec<String>,
    pub elapsed_ms: f64,
}

/// Searches both services.
#[derive(Debug, Clone)]
pub struct PaperSearch {
    pub ads: AdsClient,
    pub arxiv: ArxivClient,
    pub store: Store,
}

/// A plain-words query in arXiv syntax: every word must appear (`all:w1 AND all:w2`);
/// a query already using field prefixes is passed as it is.
pub fn arxiv_query(query: &str) -> String {
    let query = query.trim();
    if ["all:", "ti:", "au:", "abs:", "cat:", "id:"]
        .iter()
        .any(|prefix| query.contains(prefix))
    {
        return query.to_string();
    }
    query
        .split_whitespace()
        .map(|word| word.trim_matches(|c: char| !c.is_alphanumeric() && c != '-' && c != '.'))
        .filter(|word| word.len() > 1)
        .map(|word| format!("all:{word}"))
        .collect::<Vec<_>>()
        .join(" AND ")
}

impl PaperSearch {
    pub async fn search(&self, query: &str, limit: u32) -> SearchOutcome {
        let started = Instant::now();
        let limit = limit.clamp(1, 100);
        let ads = async {
            if !self.ads.has_token() {
                return Err("ADS: no ADS_API_TOKEN, so only arXiv was searched".to_string());
            }
            let request = AdsQuery {
                q: query.to_string(),
                rows: limit,
                ..AdsQuery::default()
            };
            self.ads
                .search(&request)
                .await
                .map_err(|error| format!("ADS: {error}"))
        };
        let arxiv = async {
            self.arxiv
                .search(&arxiv_query(query), 0, limit, ArxivSort::Relevance)
                .await
                .map_err(|error| format!("arXiv: {error}"))
        };
        let (ads, arxiv) = tokio::join!(ads, arxiv);
        let mut notes = Vec::new();
        let mut lists = Vec::new();
        match ads {
            Ok(found) => {
                notes.push(format!(
                    "ADS: {} found, {} shown",
                    found.num_found,
                    found.papers.len()
                ));
                lists.push(found.papers);
            }
            Err(note) => notes.push(note),
        }
        match arxiv {
            Ok(feed) => {
                notes.push(format!(
                    "arXiv: {} found, {} shown",
                    feed.total_results.unwrap_or(0),
                    feed.papers.len()
                ));
                lists.push(feed.papers);
            }
            Err(note) => notes.push(note),
        }
        let mut papers = merge_papers(lists);
        papers.truncate(usize::try_from(limit).unwrap_or(usize::MAX));
        for paper in &mut papers {
            paper.local = self.local_status(paper).await;
        }
        SearchOutcome {
            papers,
            notes,
            elapsed_ms: started.elapsed().as_secs_f64() * 1000.0,
        }
    }

    /// Where the paper stands in the local library.
    pub async fn local_status(&self, paper: &PaperRecord) -> LocalStatus {
        match self
            .store
            .paper_status(
                paper.bibcode.as_deref(),
                paper.arxiv_id.as_deref(),
                paper.doi.as_deref(),
            )
            .await
        {
            Ok(Some(status)) => LocalStatus {
                in_library: true,
                downloaded: matches!(status.as_str(), "downloaded" | "parsed"),
                parsed: status == "parsed",
            },
            _ => LocalStatus::default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_words_become_an_arxiv_and_query() {
        assert_eq!(
            arxiv_query("Hubble tension TRGB"),
            "all:Hubble AND all:tension AND all:TRGB"
        );
        assert_eq!(
            arxiv_query("au:Freedman AND cat:astro-ph.CO"),
            "au:Freedman AND cat:astro-ph.CO"
        );
    }
}

/// What kind of identifier a string is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PaperId {
    Bibcode(String),
    Arxiv(String),
    Doi(String),
}

impl PaperId {
    /// Recognises `2013PASP..125..306F`, `1202.3665v2`, `arXiv:astro-ph/0601001`,
    /// `10.1086/670067` (also as a doi.org URL).
    pub fn parse(text: &str) -> Option<Self> {
        let text = text.trim();
        let doi = ["https://doi.org/", "http://doi.org/", "doi:"]
            .iter()
            .find_map(|prefix| {
                text.get(..prefix.len())
                    .filter(|head| head.eq_ignore_ascii_case(prefix))
                    .map(|_| &text[prefix.len()..])
            })
            .unwrap_or(text);
        if doi.starts_with("10.") && doi.contains('/') {
            return Some(PaperId::Doi(doi.to_string()));
        }
        let bare = text
            .strip_prefix("arXiv:")
            .or_else(|| text.strip_prefix("arxiv:"))
            .unwrap_or(text);
        let new_style = {
            let (head, tail) = bare.split_once('.').unwrap_or(("", ""));
            let number = tail.split('v').next().unwrap_or("");
            head.len() == 4
                && head.chars().all(|c| c.is_ascii_digit())
                && (4..=5).contains(&number.len())
                && number.chars().all(|c| c.is_ascii_digit())
        };
        let old_style = bare.split_once('/').is_some_and(|(archive, number)| {
            archive
                .chars()
                .all(|c| c.is_ascii_lowercase() || c == '-' || c == '.')
                && number
                    .split('v')
                    .next()
                    .is_some_and(|n| n.len() == 7 && n.chars().all(|c| c.is_ascii_digit()))
        });
        if new_style || old_style {
            return crate::sources::arxiv::split_arxiv_id(bare).map(|(id, _)| PaperId::Arxiv(id));
        }
        if text.len() == 19 && text[..4].chars().all(|c| c.is_ascii_digit()) {
            return Some(PaperId::Bibcode(text.to_string()));
        }
        None
    }
}

/// Why a paper could not be looked up.
#[derive(Debug, thiserror::Error)]
pub enum LookupError {
    /// What was given is not an identifier: the asker's mistake.
    #[error("{0:?} is not a bibcode, an arXiv id or a DOI")]
    NotAnId(String),
    /// A service answered, and none knows the paper (`problems`: what the others said).
    #[error("no paper found for {id}{}", said(problems))]
    NotFound { id: String, problems: Vec<String> },
    /// No service could be asked (unreachable, failing, not configured): try again later.
    #[error("no paper found for {id}{}", said(problems))]
    Unanswered { id: String, problems: Vec<String> },
    #[error("the library: {0}")]
    Store(#[from] asterism_store::StoreError),
}

fn said(problems: &[String]) -> String {
    match problems.is_empty() {
        true => String::new(),
        false => format!(" ({})", problems.join("; ")),
    }
}

impl PaperSearch {
    /// Everything known about one paper, from both services, with its local status.
    pub async fn metadata(&self, id: &str) -> Result<PaperRecord, LookupError> {
        let parsed = PaperId::parse(id).ok_or_else(|| LookupError::NotAnId(id.to_string()))?;
        let ads_query = match &parsed {
            PaperId::Bibcode(bibcode) => format!("bibcode:\"{bibcode}\""),
            PaperId::Arxiv(arxiv) => format!("identifier:\"arXiv:{arxiv}\""),
            PaperId::Doi(doi) => format!("doi:\"{doi}\""),
        };
        let ads = async {
            if !self.ads.has_token() {
                return Err("ADS: no ADS_API_TOKEN".to_string());
            }
            self.ads
                .search(&AdsQuery {
                    q: ads_query,
                    rows: 1,
                    ..AdsQuery::default()
                })
                .await
                .map(|found| found.papers)
                .map_err(|e| format!("ADS: {e}"))
        };
        let arxiv = async {
            match &parsed {
                PaperId::Arxiv(arxiv) => self
                    .arxiv
                    .by_ids(std::slice::from_ref(arxiv))
                    .await
                    .map_err(|e| format!("arXiv: {e}")),
                _ => Ok(Vec::new()),
            }
        };
        let (ads, arxiv) = tokio::join!(ads, arxiv);
        let mut problems = Vec::new();
        let mut lists = Vec::new();
        for result in [ads, arxiv] {
            match result {
                Ok(papers) => lists.push(papers),
                Err(problem) => problems.push(problem),
            }
        }
        // An arXiv paper found on arXiv may name its DOI; ADS then fills in the rest.
        let merged = merge_papers(lists);
        // The record that carries the id asked for (a service may answer loosely).
        let matches = |paper: &PaperRecord| match &parsed {
            PaperId::Bibcode(bibcode) => paper.bibcode.as_deref() == Some(bibcode.as_str()),
            PaperId::Arxiv(arxiv) => paper.arxiv_id.as_deref() == Some(arxiv.as_str()),
            PaperId::Doi(doi) => paper
                .doi
                .as_deref()
                .is_some_and(|known| known.eq_ignore_ascii_case(doi)),
        };
        let Some(mut paper) = merged.into_iter().find(matches) else {
            let id = id.to_string();
            // Every service asked failed: nothing says the paper does not exist.
            let asked = if matches!(parsed, PaperId::Arxiv(_)) {
                2
            } else {
                1
            };
            return Err(match problems.len() >= asked {
                true => LookupError::Unanswered { id, problems },
                false => LookupError::NotFound { id, problems },
            });
        };
        paper.local = self.local_status(&paper).await;
        Ok(paper)
    }
}

#[cfg(test)]
mod id_tests {
    use super::PaperId;

    #[test]
    fn identifiers_are_recognised() {
        assert_eq!(
            PaperId::parse("2013PASP..125..306F"),
            Some(PaperId::Bibcode("2013PASP..125..306F".into()))
        );
        assert_eq!(
            PaperId::parse("1202.3665v2"),
            Some(PaperId::Arxiv("1202.3665".into()))
        );
        assert_eq!(
            PaperId::parse("arXiv:astro-ph/0601001"),
            Some(PaperId::Arxiv("astro-ph/0601001".into()))
        );
        assert_eq!(
            PaperId::parse("10.1086/670067"),
            Some(PaperId::Doi("10.1086/670067".into()))
        );
        assert_eq!(
            PaperId::parse("https://doi.org/10.1086/670067"),
            Some(PaperId::Doi("10.1086/670067".into()))
        );
        assert_eq!(PaperId::parse("the emcee paper"), None);
    }
}

impl PaperSearch {
    /// The library paper with this id (a bibcode, arXiv id, DOI, or the library's own
    /// paper id), without asking any service.
    pub async fn local(&self, id: &str) -> Result<Option<(String, PaperRecord)>, LookupError> {
        let paper_id = match PaperId::parse(id) {
            Some(PaperId::Bibcode(bibcode)) => {
                self.store.find_paper(Some(&bibcode), None, None).await
            }
            Some(PaperId::Arxiv(arxiv)) => self.store.find_paper(None, Some(&arxiv), None).await,
            Some(PaperId::Doi(doi)) => self.store.find_paper(None, None, Some(&doi)).await,
            None => Ok(Some(id.trim().to_string())),
        }?;
        let Some(paper_id) = paper_id else {
            return Ok(None);
        };
        Ok(self
            .store
            .paper_record(&paper_id)
            .await?
            .map(|paper| (paper_id, paper)))
    }

    /// The paper with this id, from the library when it is there, else from ADS/arXiv
    /// (and then added to the library). Returns its library id and record.
    pub async fn resolve(&self, id: &str) -> Result<(String, PaperRecord), LookupError> {
        if let Some(found) = self.local(id).await? {
            return Ok(found);
        }
        let paper = self.metadata(id).await?;
        let paper_id = self.store.upsert_paper(&paper).await?;
        Ok((paper_id, paper))
    }
}

impl PaperSearch {
    /// The papers to cite for `ids`, in order: resolved like [`Self::resolve`]; a bibcode
    /// no search found is kept bare (ADS's export may still know it). Returns the
    /// papers and, for the other ids that were not found, why.
    pub async fn resolve_for_citation(&self, ids: &[String]) -> (Vec<PaperRecord>, Vec<String>) {
        let mut papers = Vec::new();
        let mut missing = Vec::new();
        for id in ids {
            match self.resolve(id).await {
                Ok((_, paper)) => papers.push(paper),
                Err(_) if matches!(PaperId::parse(id), Some(PaperId::Bibcode(_))) => {
                    papers.push(PaperRecord {
                        bibcode: Some(id.trim().to_string()),
                        ..PaperRecord::default()
                    });
                }
                Err(error) => missing.push(format!("{id}: {error}")),
            }
        }
        (papers, missing)
    }
}
