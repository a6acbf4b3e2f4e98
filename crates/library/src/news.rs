//! New arXiv submissions ranked for one library (`asterism news`): the submissions of
//! the chosen categories since a day, fetched once per day and kept in
//! `{data dir}/news/`, each scored by how close it is to the library's papers, its
//! authors and the objects it names (see [`rank`]), with the reasons.

pub mod rank;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use asterism_protocol::PaperRecord;
use asterism_store::ProfilePaper;
use chrono::NaiveDate;

use crate::library::Library;
use crate::sources::arxiv::{ArxivClient, ArxivError, ArxivSort};
pub use rank::{LibraryRef, Reason};
use rank::{Profile, embedding_closeness, submission_text, word_closeness};

/// arXiv's astrophysics: `astro-ph` stands for all of these.
pub const ASTRO_PH: [&str; 6] = [
    "astro-ph.CO",
    "astro-ph.EP",
    "astro-ph.GA",
    "astro-ph.HE",
    "astro-ph.IM",
    "astro-ph.SR",
];
/// Submissions asked for per request, and at most in all (astro-ph gets about 100 a day).
const PAGE: u32 = 200;
const MOST: u32 = 1000;
/// Passages looked at per submission when embeddings compare it with the library.
const NEAREST: usize = 40;
/// Object names resolved per call, to look for library objects near them.
const RESOLVE_MOST: usize = 20;

/// What to list.
#[derive(Debug, Clone, PartialEq)]
pub struct NewsRequest {
    /// arXiv categories (`astro-ph.GA`); `astro-ph` means all of astrophysics.
    pub categories: Vec<String>,
    /// Submissions from this day on, to `today`.
    pub since: NaiveDate,
    pub today: NaiveDate,
    /// Authors the user follows ("Foreman-Mackey", "Bouma, L.").
    pub followed: Vec<String>,
    pub limit: usize,
    /// Ask arXiv again even when today's list is cached.
    pub refresh: bool,
}

impl NewsRequest {
    /// Yesterday's and today's submissions (UTC), from the cache when asked before.
    pub fn today(categories: Vec<String>, followed: Vec<String>, limit: usize) -> Self {
        let today = chrono::Utc::now().date_naive();
        Self {
            categories,
            since: today.pred_opt().unwrap_or(today),
            today,
            followed,
            limit,
            refresh: false,
        }
    }
}

/// One submission with its score and reasons.
#[derive(Debug, Clone, PartialEq, serde::Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct NewsItem {
    #[serde(flatten)]
    pub paper: PaperRecord,
    pub score: f64,
    pub reasons: Vec<Reason>,
}

/// The ranked list.
#[derive(Debug, Clone, PartialEq, serde::Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct NewsList {
    pub categories: Vec<String>,
    pub since: String,
    /// When arXiv was asked (RFC 3339).
    pub fetched_at: String,
    /// The list came from the cache (asked earlier today, or arXiv unreachable).
    pub from_cache: bool,
    /// What went wrong, when an older list stands in for today's.
    pub notice: Option<String>,
    /// How many submissions arXiv listed (more than `items` when `limit` cut them).
    #[specta(type = f64)]
    pub submissions: usize,
    /// What measured closeness: `embeddings (MODEL)` or `shared words`.
    pub compared_by: String,
    /// Best first.
    pub items: Vec<NewsItem>,
}

/// A day's submissions as fetched, in `{data dir}/news/`.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct Fetched {
    fetched_at: String,
    categories: Vec<String>,
    since: String,
    papers: Vec<PaperRecord>,
}

/// `astro-ph` → its six categories; anything not shaped like a category is refused.
pub fn expand_categories(given: &[String]) -> Result<Vec<String>, String> {
    let mut categories: Vec<String> = Vec::new();
    for category in given.iter().map(|c| c.trim()).filter(|c| !c.is_empty()) {
        let shaped = category
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '.')
            && category.starts_with(|c: char| c.is_ascii_lowercase());
        if !shaped {
            return Err(format!(
                "{category:?} is not an arXiv category (e.g. astro-ph.GA)"
            ));
        }
        let more: Vec<String> = if category == "astro-ph" {
            ASTRO_PH.iter().map(|c| c.to_string()).collect()
        } else {
            vec![category.to_string()]
        };
        for category in more {
            if !categories.contains(&category) {
                categories.push(category);
            }
        }
    }
    if categories.is_empty() {
        categories = ASTRO_PH.iter().map(|c| c.to_string()).collect();
    }
    Ok(categories)
}

/// The arXiv API query for submissions of `categories` from `since` to `today`.
pub fn news_query(categories: &[String], since: NaiveDate, today: NaiveDate) -> String {
    let categories: Vec<String> = categories.iter().map(|c| format!("cat:{c}")).collect();
    format!(
        "({}) AND submittedDate:[{}0000 TO {}2359]",
        categories.join(" OR "),
        since.format("%Y%m%d"),
        today.format("%Y%m%d")
    )
}

/// Every submission of the query, page by page (the client spaces requests 3 s apart).
async fn fetch(arxiv: &ArxivClient, query: &str) -> Result<Vec<PaperRecord>, ArxivError> {
    let mut papers: Vec<PaperRecord> = Vec::new();
    loop {
        let start = papers.len() as u32;
        let feed = arxiv
            .search(query, start, PAGE, ArxivSort::SubmittedDate)
            .await?;
        let total = feed.total_results.unwrap_or(0).min(MOST) as usize;
        let before = papers.len();
        for paper in feed.papers {
            if !papers.iter().any(|seen| seen.arxiv_id == paper.arxiv_id) {
                papers.push(paper);
            }
        }
        if papers.len() == before || papers.len() >= total {
            return Ok(papers);
        }
    }
}

/// `2026-12-05_astro-ph.EP+astro-ph.SR_since-2026-12-04.json`
fn cache_name(day: NaiveDate, categories: &[String], since: NaiveDate) -> String {
    format!("{day}_{}_since-{since}.json", categories.join("+"))
}

fn read_cached(path: &Path) -> Option<Fetched> {
    serde_json::from_slice(&std::fs::read(path).ok()?).ok()
}

/// The newest list cached for these categories, whatever its day.
fn latest_cached(folder: &Path, categories: &[String]) -> Option<Fetched> {
    let tag = format!("_{}_since-", categories.join("+"));
    let mut names: Vec<PathBuf> = std::fs::read_dir(folder)
        .ok()?
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| {
            path.file_name()
                .and_then(|name| name.to_str())
                .is_some_and(|name| name.contains(&tag) && name.ends_with(".json"))
        })
        .collect();
    names.sort();
    names.iter().rev().find_map(|path| read_cached(path))
}

/// Writes `value` as JSON through a file beside `path` (named by this process, so two
/// processes never share one), so a reader never sees half of it.
fn write_json(path: &Path, value: &impl serde::Serialize) -> std::io::Result<()> {
    if let Some(folder) = path.parent() {
        std::fs::create_dir_all(folder)?;
    }
    let partial = path.with_extension(format!("json.{}.partial", std::process::id()));
    std::fs::write(&partial, serde_json::to_vec(value)?)?;
    std::fs::rename(&partial, path)
}

impl Library {
    /// The submissions of `request`, ranked for this library.
    /// No categories asked for: those of the library's papers, else astro-ph.
    pub async fn news(&self, request: &NewsRequest) -> Result<NewsList, String> {
        let papers = self
            .store
            .profile_papers()
            .await
            .map_err(|error| error.to_string())?;
        let categories = if request.categories.is_empty() {
            expand_categories(&self.library_categories(&papers).await)?
        } else {
            expand_categories(&request.categories)?
        };
        let (fetched, from_cache, notice) = self.submissions(request, &categories).await?;
        // Objects as resolved so far: no Sesame lookups of unresolved names here.
        let objects = self
            .known_objects()
            .await
            .map_err(|error| error.to_string())?;
        let (closeness, compared_by) = self.closeness(&fetched.papers, &papers).await;
        let profile = Profile::new(papers, &request.followed, objects);
        let nearby = self.resolve_named(&profile, &fetched.papers).await;
        let mut items = Vec::with_capacity(fetched.papers.len());
        for (paper, closeness) in fetched.papers.iter().zip(&closeness) {
            let (score, reasons) = profile.score(paper, closeness, &nearby);
            items.push(NewsItem {
                paper: paper.clone(),
                score,
                reasons,
            });
        }
        items.sort_by(|a, b| b.score.total_cmp(&a.score));
        items.truncate(request.limit.max(1));
        for item in &mut items {
            item.paper.local = self.papers.local_status(&item.paper).await;
        }
        Ok(NewsList {
            categories,
            since: fetched.since,
            fetched_at: fetched.fetched_at,
            from_cache,
            notice,
            submissions: fetched.papers.len(),
            compared_by,
            items,
        })
    }

    /// The primary arXiv categories of the library's papers that hold a tenth of those
    /// with an arXiv id or more, most papers first. Each paper's is asked of arXiv once
    /// (100 ids a request) and kept in `{data dir}/news/categories.json`; offline, the
    /// ones kept.
    async fn library_categories(&self, papers: &[ProfilePaper]) -> Vec<String> {
        let path = self.data_dir.join("news").join("categories.json");
        let mut known: HashMap<String, String> = std::fs::read(&path)
            .ok()
            .and_then(|bytes| serde_json::from_slice(&bytes).ok())
            .unwrap_or_default();
        let ids: Vec<String> = papers.iter().filter_map(|p| p.arxiv_id.clone()).collect();
        let missing: Vec<String> = ids
            .iter()
            .filter(|id| !known.contains_key(*id))
            .cloned()
            .collect();
        let mut asked = false;
        for chunk in missing.chunks(100) {
            let Ok(records) = self.papers.arxiv.by_ids(chunk).await else {
                break;
            };
            asked = true;
            for id in chunk {
                let primary = records
                    .iter()
                    .find(|record| record.arxiv_id.as_deref() == Some(id.as_str()))
                    .and_then(|record| record.categories.first().cloned())
                    .unwrap_or_default();
                known.insert(id.clone(), primary);
            }
        }
        if asked && let Err(error) = write_json(&path, &known) {
            tracing::warn!(%error, "could not keep the library's categories");
        }
        let mut counts: HashMap<&str, usize> = HashMap::new();
        for id in &ids {
            if let Some(category) = known.get(id).filter(|c| !c.is_empty()) {
                *counts.entry(category.as_str()).or_default() += 1;
            }
        }
        let total: usize = counts.values().sum();
        let mut chosen: Vec<(&str, usize)> = counts
            .into_iter()
            .filter(|(_, n)| n * 10 >= total)
            .collect();
        chosen.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        chosen.into_iter().map(|(c, _)| c.to_string()).collect()
    }

    /// Today's list from the cache, else from arXiv (then cached); when arXiv cannot be
    /// reached, the newest cached list with a notice saying so.
    async fn submissions(
        &self,
        request: &NewsRequest,
        categories: &[String],
    ) -> Result<(Fetched, bool, Option<String>), String> {
        let folder = self.data_dir.join("news");
        let path = folder.join(cache_name(request.today, categories, request.since));
        if !request.refresh
            && let Some(cached) = read_cached(&path)
        {
            return Ok((cached, true, None));
        }
        let query = news_query(categories, request.since, request.today);
        match fetch(&self.papers.arxiv, &query).await {
            Ok(papers) => {
                let fetched = Fetched {
                    fetched_at: chrono::Utc::now().to_rfc3339(),
                    categories: categories.to_vec(),
                    since: request.since.to_string(),
                    papers,
                };
                if let Err(error) = write_json(&path, &fetched) {
                    tracing::warn!(%error, path = %path.display(), "could not cache the news");
                }
                Ok((fetched, false, None))
            }
            Err(error) => match latest_cached(&folder, categories) {
                Some(cached) => {
                    let notice =
                        format!("{error}; showing the list fetched at {}", cached.fetched_at);
                    Ok((cached, true, Some(notice)))
                }
                None => Err(format!("{error}; no earlier list is cached")),
            },
        }
    }

    /// Each submission's closeness to each library paper: through the embedding model
    /// and the passages' vectors when both exist, else by shared words.
    async fn closeness(
        &self,
        submissions: &[PaperRecord],
        papers: &[ProfilePaper],
    ) -> (Vec<Vec<f64>>, String) {
        if let Some(embedder) = &self.embedder
            && !papers.is_empty()
        {
            match self
                .embedded_closeness(embedder.as_ref(), submissions, papers)
                .await
            {
                Ok(closeness) => return (closeness, format!("embeddings ({})", embedder.name())),
                Err(error) => tracing::info!(%error, "news compared by shared words"),
            }
        }
        (word_closeness(submissions, papers), "shared words".into())
    }

    async fn embedded_closeness(
        &self,
        embedder: &dyn crate::library::Embedder,
        submissions: &[PaperRecord],
        papers: &[ProfilePaper],
    ) -> Result<Vec<Vec<f64>>, String> {
        self.index
            .ensure_loaded(&self.store)
            .await
            .map_err(|error| error.to_string())?;
        if self.index.is_empty() {
            return Err("no passage is embedded yet".into());
        }
        let position: HashMap<&str, usize> = papers
            .iter()
            .enumerate()
            .map(|(i, paper)| (paper.id.as_str(), i))
            .collect();
        let texts: Vec<String> = submissions.iter().map(submission_text).collect();
        let mut closeness = Vec::with_capacity(texts.len());
        for batch in texts.chunks(16) {
            let vectors = embedder
                .embed(batch)
                .await
                .map_err(|error| error.to_string())?;
            for mut vector in vectors {
                crate::library::embed::normalize(&mut vector);
                let near = self.index.search(&vector, NEAREST, None);
                let ids: Vec<i64> = near.iter().map(|(id, _)| *id).collect();
                let owners: HashMap<i64, String> = self
                    .store
                    .chunk_hits(&ids)
                    .await
                    .map_err(|error| error.to_string())?
                    .into_iter()
                    .map(|hit| (hit.chunk_id, hit.paper_id))
                    .collect();
                let mut row = vec![0.0; papers.len()];
                for (id, cosine) in near {
                    if let Some(&i) = owners.get(&id).and_then(|p| position.get(p.as_str())) {
                        row[i] = f64::max(row[i], embedding_closeness(cosine));
                    }
                }
                closeness.push(row);
            }
        }
        Ok(closeness)
    }

    /// The positions of objects the submissions name that no library object is called,
    /// resolved through Sesame (cached), to find library objects near them. Stops at
    /// the first failure (offline: no more waiting).
    async fn resolve_named(
        &self,
        profile: &Profile,
        submissions: &[PaperRecord],
    ) -> HashMap<String, (f64, f64)> {
        let mut positions = HashMap::new();
        let Some(targets) = self.targets.as_ref().filter(|_| profile.has_positions()) else {
            return positions;
        };
        let mut names: Vec<String> = Vec::new();
        for paper in submissions {
            for found in profile.unmatched_objects(paper) {
                if !names.contains(&found.name) {
                    names.push(found.name);
                }
            }
        }
        for name in names.into_iter().take(RESOLVE_MOST) {
            match targets.resolve(&name).await {
                Ok(lookup) => {
                    let key = crate::targets::target_cache_key(&name);
                    positions.insert(key, (lookup.target.ra_deg, lookup.target.dec_deg));
                }
                Err(crate::SesameError::NotFound(_)) => {}
                Err(_) => break,
            }
        }
        positions
    }
}

#[cfg(test)]
mod tests;
