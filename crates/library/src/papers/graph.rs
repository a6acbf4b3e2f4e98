//! The citation graph from ADS: the papers citing a paper (`citations(bibcode:…)`), the
//! papers it cites (`references(…)`) and the papers ADS finds similar (`similar(…)`),
//! each with its place in the local library.

use asterism_protocol::PaperRecord;

use super::search::{PaperId, PaperSearch};
use crate::sources::ads::AdsQuery;

/// ADS answers at most this many documents per page.
const PAGE: u32 = 100;

/// Which neighbours of a paper.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Link {
    /// Papers citing it.
    Citations,
    /// Papers it cites.
    References,
    /// Papers ADS finds similar to it (by their text).
    Similar,
}

impl Link {
    pub fn parse(text: &str) -> Option<Self> {
        match text.trim().to_ascii_lowercase().as_str() {
            "citations" | "cited-by" | "cites" => Some(Self::Citations),
            "references" | "refs" => Some(Self::References),
            "similar" => Some(Self::Similar),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Citations => "citations",
            Self::References => "references",
            Self::Similar => "similar",
        }
    }

    fn sort(self) -> &'static str {
        match self {
            Self::Similar => "score desc",
            _ => "date desc",
        }
    }
}

/// What ADS answered.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Neighbours {
    /// The paper asked about.
    pub bibcode: String,
    pub link: Link,
    /// How many ADS knows (more than `papers` when a limit cut the list).
    pub num_found: u32,
    /// In ADS's order (newest first; most similar first), each with its local status.
    pub papers: Vec<PaperRecord>,
}

impl PaperSearch {
    /// The papers linked to the paper `id` (a library id, bibcode, arXiv id or DOI) by
    /// `link`, from ADS, page after page until `limit` or the end.
    pub async fn neighbours(&self, id: &str, link: Link, limit: u32) -> Result<Neighbours, String> {
        if !self.ads.has_token() {
            return Err("the citation graph comes from ADS, and no ADS_API_TOKEN is set".into());
        }
        let bibcode = self.bibcode_of(id).await?;
        let limit = limit.clamp(1, 2000);
        let mut papers: Vec<PaperRecord> = Vec::new();
        let mut num_found = 0;
        while papers.len() < limit as usize {
            let rows = PAGE.min(limit - papers.len() as u32);
            let page = self
                .ads
                .search(&AdsQuery {
                    q: format!("{}(bibcode:{bibcode})", link.as_str()),
                    rows,
                    start: papers.len() as u32,
                    sort: Some(link.sort().into()),
                    ..AdsQuery::default()
                })
                .await
                .map_err(|error| format!("ADS: {error}"))?;
            num_found = page.num_found;
            let before = papers.len();
            for paper in page.papers {
                let known = papers
                    .iter()
                    .any(|seen| seen.bibcode.is_some() && seen.bibcode == paper.bibcode);
                if !known {
                    papers.push(paper);
                }
            }
            // The end, or a page that brought nothing new.
            if papers.len() == before || papers.len() >= num_found as usize {
                break;
            }
        }
        papers.truncate(limit as usize);
        for paper in &mut papers {
            paper.local = self.local_status(paper).await;
        }
        Ok(Neighbours {
            bibcode,
            link,
            num_found,
            papers,
        })
    }

    /// The bibcode of a paper given by any id: the library's record first, then ADS.
    async fn bibcode_of(&self, id: &str) -> Result<String, String> {
        if let Some((_, record)) = self.local(id).await?
            && let Some(bibcode) = record.bibcode
        {
            return Ok(bibcode);
        }
        if let Some(PaperId::Bibcode(bibcode)) = PaperId::parse(id) {
            return Ok(bibcode);
        }
        self.metadata(id)
            .await?
            .bibcode
            .ok_or_else(|| format!("ADS does not know {id}, so it has no citations there"))
    }
}
