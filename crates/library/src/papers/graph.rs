//! The citation graph from ADS: the papers citing a paper (`citations(bibcode:…)`), the
//! papers it cites (`references(…)`) and the papers ADS finds similar (`similar(…)`),
//! each with its place in the local library.

use asterism_protocol::PaperRecord;

use super::search::{PaperId, PaperSearch};
use crate::sources::ads::AdsQuery;

const NO_TOKEN: &str = "the citation graph comes from ADS, and no ADS_API_TOKEN is set";

/// ADS answers at most this many documents per page.
const PAGE: u32 = 100;

/// Which neighbours of a paper.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize, specta::Type)]
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
#[derive(Debug, Clone, PartialEq, serde::Serialize, specta::Type)]
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
            return Err(NO_TOKEN.into());
        }
        let bibcode = self.bibcode_of(id).await?;
        let (num_found, mut papers) = self.links(&bibcode, link, limit).await?;
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

    /// The papers linked to `bibcode`, page after page until `limit` or the end, and
    /// how many ADS knows: from ADS's answer of the last day when it was asked for as
    /// many (or all), else from ADS (then kept).
    async fn links(
        &self,
        bibcode: &str,
        link: Link,
        limit: u32,
    ) -> Result<(u32, Vec<PaperRecord>), String> {
        let limit = limit.clamp(1, 2000);
        if let Some(cached) = self.cached_links(bibcode, link, limit).await {
            return Ok(cached);
        }
        let (num_found, papers) = self.fetch_links(bibcode, link, limit).await?;
        let cached = asterism_store::CachedLinks {
            asked: limit,
            num_found,
            papers: serde_json::to_string(&papers).unwrap_or_else(|_| "[]".into()),
            fetched_at: asterism_store::now_rfc3339(),
        };
        if let Err(error) = self
            .store
            .cache_links(bibcode, link.as_str(), &cached)
            .await
        {
            tracing::warn!(%error, "could not keep ADS's answer");
        }
        Ok((num_found, papers))
    }

    /// ADS's answer of the last day for `limit` links, when there is one.
    async fn cached_links(
        &self,
        bibcode: &str,
        link: Link,
        limit: u32,
    ) -> Option<(u32, Vec<PaperRecord>)> {
        let cached = self
            .store
            .cached_links(bibcode, link.as_str())
            .await
            .ok()??;
        let fetched = chrono::DateTime::parse_from_rfc3339(&cached.fetched_at).ok()?;
        let age = chrono::Utc::now().signed_duration_since(fetched);
        let enough = cached.asked >= limit || cached.asked >= cached.num_found;
        if age > chrono::Duration::days(1) || age < chrono::Duration::zero() || !enough {
            return None;
        }
        let mut papers: Vec<PaperRecord> = serde_json::from_str(&cached.papers).ok()?;
        papers.truncate(limit as usize);
        Some((cached.num_found, papers))
    }

    async fn fetch_links(
        &self,
        bibcode: &str,
        link: Link,
        limit: u32,
    ) -> Result<(u32, Vec<PaperRecord>), String> {
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
        Ok((num_found, papers))
    }

    /// What a set of papers (a collection) lacks: the papers they cite and the papers
    /// citing them (as `links` says) that are not among them, ranked by how many of
    /// them link there, then by citations. Each member with a bibcode costs one ADS
    /// request per direction (up to `per_paper` papers each).
    pub async fn missing(
        &self,
        members: &[Member],
        links: &[Link],
        per_paper: u32,
        limit: usize,
    ) -> Result<Missing, String> {
        if !self.ads.has_token() {
            return Err(NO_TOKEN.into());
        }
        let own: std::collections::HashSet<&str> = members
            .iter()
            .filter_map(|m| m.bibcode.as_deref())
            .collect();
        let mut found: Vec<MissingPaper> = Vec::new();
        let mut position: std::collections::HashMap<String, usize> = Default::default();
        let mut report = Missing::default();
        for member in members {
            let Some(bibcode) = member.bibcode.as_deref() else {
                report.without_bibcode += 1;
                continue;
            };
            report.asked += 1;
            for &link in links {
                let papers = match self.links(bibcode, link, per_paper).await {
                    Ok((_, papers)) => papers,
                    Err(error) => {
                        report
                            .failed
                            .push(format!("{bibcode} {}: {error}", link.as_str()));
                        continue;
                    }
                };
                for paper in papers {
                    let Some(key) = paper.bibcode.clone().filter(|b| !own.contains(b.as_str()))
                    else {
                        continue;
                    };
                    let at = *position.entry(key).or_insert_with(|| {
                        found.push(MissingPaper::new(paper));
                        found.len() - 1
                    });
                    found[at].count(member, link);
                }
            }
        }
        found.sort_by(|a, b| {
            b.linked_from
                .len()
                .cmp(&a.linked_from.len())
                .then(b.paper.citation_count.cmp(&a.paper.citation_count))
        });
        found.truncate(limit);
        for missing in &mut found {
            missing.paper.local = self.local_status(&missing.paper).await;
        }
        report.papers = found;
        Ok(report)
    }

    /// The bibcode of a paper given by any id: the library's record first, then ADS.
    async fn bibcode_of(&self, id: &str) -> Result<String, String> {
        if let Some((_, record)) = self.local(id).await.map_err(|error| error.to_string())?
            && let Some(bibcode) = record.bibcode
        {
            return Ok(bibcode);
        }
        if let Some(PaperId::Bibcode(bibcode)) = PaperId::parse(id) {
            return Ok(bibcode);
        }
        self.metadata(id)
            .await
            .map_err(|error| error.to_string())?
            .bibcode
            .ok_or_else(|| format!("ADS does not know {id}, so it has no citations there"))
    }
}

impl crate::library::Library {
    /// What a collection (or, with `None`, the whole library) lacks: see
    /// [`PaperSearch::missing`].
    pub async fn missing(
        &self,
        collection: Option<&str>,
        links: &[Link],
        per_paper: u32,
        limit: usize,
    ) -> Result<Missing, String> {
        let storage = |error: asterism_store::StoreError| format!("the library: {error}");
        if let Some(name) = collection {
            let known = self.store.collections().await.map_err(storage)?;
            if !known.iter().any(|(known, _)| known == name) {
                return Err(format!("no collection is named {name:?}"));
            }
        }
        let filter = asterism_store::PaperFilter {
            collection: collection.map(str::to_string),
            ..Default::default()
        };
        let members: Vec<Member> = self
            .store
            .library_papers(&filter)
            .await
            .map_err(storage)?
            .into_iter()
            .map(|paper| Member {
                title: paper.title,
                bibcode: paper.bibcode,
            })
            .collect();
        self.papers.missing(&members, links, per_paper, limit).await
    }
}

/// A paper of the set `missing` looks around.
#[derive(Debug, Clone, PartialEq)]
pub struct Member {
    pub title: String,
    pub bibcode: Option<String>,
}

/// A paper the set lacks.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MissingPaper {
    #[serde(flatten)]
    pub paper: PaperRecord,
    /// The titles of the members citing it or cited by it.
    pub linked_from: Vec<String>,
    /// How many members cite it.
    pub cited_by_members: usize,
    /// How many members it cites.
    pub cites_members: usize,
}

impl MissingPaper {
    fn new(paper: PaperRecord) -> Self {
        Self {
            paper,
            linked_from: Vec::new(),
            cited_by_members: 0,
            cites_members: 0,
        }
    }

    fn count(&mut self, member: &Member, link: Link) {
        match link {
            Link::References => self.cited_by_members += 1,
            Link::Citations => self.cites_members += 1,
            Link::Similar => {}
        }
        if !self.linked_from.contains(&member.title) {
            self.linked_from.push(member.title.clone());
        }
    }
}

/// What `missing` found.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Missing {
    /// Members asked about (those with a bibcode).
    pub asked: usize,
    /// Members ADS could not be asked about: no bibcode (identify them first).
    pub without_bibcode: usize,
    /// Requests that failed, one line each.
    pub failed: Vec<String>,
    /// Most linked first.
    pub papers: Vec<MissingPaper>,
}
