//! Hybrid retrieval: FTS5 BM25 and vector nearest neighbours, fused by reciprocal rank.
//! Without an embedding model (or before anything is embedded) it is BM25 alone, and
//! says so.

use std::collections::{HashMap, HashSet};

use asterism_store::{ChunkHit, PaperFilter, Store, StoreError};

use crate::library::embed::Embedder;
use crate::library::snippet::{QueryTerms, STOP_WORDS, Snippet, snippet};
use crate::library::vectors::{VectorIndex, nearest};

/// Reciprocal-rank-fusion constant (the usual 60).
const RRF_K: f64 = 60.0;

/// The knobs of retrieval, chosen by the `retrieval` bench (see
/// docs/architecture/agent/library-and-rag.md for the figures behind each default).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tuning {
    /// Results taken from each side before fusion.
    pub per_side: usize,
    /// Weight of the keyword list in the fusion.
    pub bm25_weight: f64,
    /// Weight of the vector list in the fusion.
    pub vector_weight: f64,
    /// Keep only the best hit of each page: a page's other passages say nothing the
    /// reader will not see there, and the next page gets their place.
    pub one_per_page: bool,
    /// About how many passages the keyword half scores at most (see [`keyword_terms`]).
    pub scored_budget: i64,
}

impl Default for Tuning {
    fn default() -> Self {
        Self {
            per_side: 50,
            bm25_weight: 2.0,
            vector_weight: 1.0,
            one_per_page: true,
            scored_budget: SCORED_BUDGET,
        }
    }
}

/// One search result.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SearchHit {
    #[serde(flatten)]
    pub chunk: ChunkHit,
    /// The fused score (higher is better).
    pub score: f64,
    /// 1-based rank in the BM25 list, if it was there.
    pub bm25_rank: Option<usize>,
    /// 1-based rank in the vector list, if it was there.
    pub vector_rank: Option<usize>,
    /// Cosine similarity to the query, when vectors were used.
    pub similarity: Option<f64>,
    /// The passage's best-matching sentence(s); `chunk.page` is the page it is on.
    pub snippet: Snippet,
    /// The first and last page when the passage crosses a page break.
    pub pages: Option<[i64; 2]>,
}

/// Which signals a search used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SearchMode {
    Hybrid,
    Bm25,
    Vector,
}

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SearchResults {
    pub hits: Vec<SearchHit>,
    pub mode: SearchMode,
    /// Why it was not hybrid, in words.
    pub note: Option<String>,
}

/// The query as a safe FTS5 expression: each word quoted (so `"`, `*`, `NEAR`, `AND`
/// and parentheses are plain text), any of them may match. `None` when there are no
/// words.
pub fn fts_query(query: &str) -> Option<String> {
    let all: Vec<&str> = query
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|word| !word.is_empty())
        .collect();
    // Question words and function words match nearly every passage: they would cost
    // time and rank nothing. Kept only when the query has nothing else.
    let content: Vec<&str> = all
        .iter()
        .copied()
        .filter(|word| !STOP_WORDS.contains(&word.to_lowercase().as_str()))
        .collect();
    let words = if content.is_empty() { all } else { content };
    let quoted: Vec<String> = words
        .into_iter()
        .take(32)
        .map(|word| format!("\"{word}\""))
        .collect();
    (!quoted.is_empty()).then(|| quoted.join(" OR "))
}

/// Share of all passages above which a query word is "common".
const COMMON_SHARE: f64 = 0.02;
/// Below this many passages nothing is common (small libraries rank on every word).
const COMMON_FLOOR: i64 = 200;
/// About how many passages a keyword search scores at most: FTS5 ranks every passage a
/// word of the query matches (about 2 µs each on this machine, most of a search's time
/// in a library of 1,000 papers), so the rarest words are taken until their passages
/// add up to this. A library of a hundred papers seldom reaches it.
pub const SCORED_BUDGET: i64 = 10_000;

/// The words a keyword search matches, and how many passages it will score at most.
#[derive(Debug, Default, PartialEq)]
pub struct KeywordTerms {
    /// Each a quoted FTS5 term, rarest first.
    pub terms: Vec<String>,
    /// How many of `terms`, from the first, fit the budget (at least one).
    pub within: usize,
    /// The passages those words match, summed (passages holding several count again).
    pub matches: i64,
}

/// The words a keyword search matches, with the common-terms cut of Lucene and
/// Elasticsearch: words found in more than 2% of the passages add little to BM25 but
/// cost the most (every passage holding them is scored), so when the query also has
/// rarer words only those are matched. Then, from the rarest, words are counted
/// `within` while the passages they match stay within `budget` (the rarest always: it
/// carries the most weight). Words no passage holds are dropped. The vector side still
/// reads every word.
pub async fn keyword_terms(
    store: &Store,
    query: &str,
    budget: i64,
) -> Result<KeywordTerms, StoreError> {
    let Some(expression) = fts_query(query) else {
        return Ok(KeywordTerms::default());
    };
    let words: Vec<&str> = expression.split(" OR ").collect();
    let total = store.chunk_id_high_water().await?;
    let cutoff = COMMON_FLOOR.max((total as f64 * COMMON_SHARE) as i64);
    // Counted up to a cap: past it a word is both common and over the budget alone.
    let cap = cutoff.max(budget).saturating_add(1);
    let counts = store.fts_counts(&words, cap).await?;
    let counted: Vec<(i64, &str)> = counts
        .into_iter()
        .zip(words)
        .filter(|(count, _)| *count > 0)
        .collect();
    let rare: Vec<(i64, &str)> = counted
        .iter()
        .copied()
        .filter(|(n, _)| *n <= cutoff)
        .collect();
    let mut pool = if rare.is_empty() { counted } else { rare };
    // Stable: words counted alike keep the query's order.
    pool.sort_by_key(|(count, _)| *count);
    let mut chosen = KeywordTerms::default();
    for (count, word) in pool {
        if chosen.within == chosen.terms.len()
            && (chosen.within == 0 || chosen.matches.saturating_add(count) <= budget)
        {
            chosen.within += 1;
            chosen.matches += count;
        }
        chosen.terms.push(word.to_string());
    }
    Ok(chosen)
}

/// Chunk ids of the keyword (BM25) half, best first, at most `tuning.per_side`.
/// Passages holding every word are tried first: in a large library they are plenty,
/// and intersecting the words' lists costs far less than scoring every passage that
/// holds any of them. When fewer hold them all, any word may match: every word when
/// their passages are within the budget, else the rarest that are, after the passages
/// holding them all (which would come first in the full ranking too).
pub async fn keyword_search(
    store: &Store,
    query: &str,
    filter: &PaperFilter,
    tuning: &Tuning,
) -> Result<Vec<i64>, StoreError> {
    let limit = tuning.per_side as i64;
    let words = keyword_terms(store, query, tuning.scored_budget).await?;
    let ids = |hits: Vec<(i64, f64)>| hits.into_iter().map(|(id, _)| id).collect::<Vec<_>>();
    if words.terms.is_empty() {
        return Ok(Vec::new());
    }
    let mut found = Vec::new();
    if words.terms.len() >= 2 {
        found = ids(store
            .fts_chunks(&words.terms.join(" AND "), filter, limit)
            .await?);
        if found.len() as i64 >= limit {
            return Ok(found);
        }
    }
    let within = &words.terms[..words.within];
    let any = ids(store
        .fts_chunks(&within.join(" OR "), filter, limit)
        .await?);
    if words.within == words.terms.len() {
        return Ok(any);
    }
    for id in any {
        if !found.contains(&id) {
            found.push(id);
        }
    }
    found.truncate(limit as usize);
    Ok(found)
}

/// Fuses weighted ranked lists: score = Σ weight / (60 + rank). Each passage of
/// `listed` (kept for keywords only, so never in the vector list) also scores `weight`
/// at its rank in the first list: being a reference list or the acknowledgements costs
/// it nothing against passages that have a vector.
fn fuse_with_stand_ins(
    lists: &[(&[i64], f64)],
    listed: &HashSet<i64>,
    weight: f64,
) -> Vec<(i64, f64)> {
    let mut scores: HashMap<i64, f64> = HashMap::new();
    for (list, weight) in lists {
        for (rank, id) in list.iter().enumerate() {
            *scores.entry(*id).or_default() += weight / (RRF_K + rank as f64 + 1.0);
        }
    }
    if let Some((first, _)) = lists.first() {
        for (rank, id) in first.iter().enumerate() {
            if listed.contains(id) {
                *scores.entry(*id).or_default() += weight / (RRF_K + rank as f64 + 1.0);
            }
        }
    }
    let mut fused: Vec<(i64, f64)> = scores.into_iter().collect();
    fused.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    fused
}

/// What the vector half of a search found, and why it found nothing if so.
struct VectorSide {
    ids: Vec<i64>,
    similarity: HashMap<i64, f64>,
    note: Option<String>,
}

async fn vector_side(
    store: &Store,
    index: &VectorIndex,
    embedder: Option<&dyn Embedder>,
    query: &str,
    filter: &PaperFilter,
    per_side: usize,
) -> Result<VectorSide, StoreError> {
    let mut side = VectorSide {
        ids: Vec::new(),
        similarity: HashMap::new(),
        note: None,
    };
    let Some(embedder) = embedder else {
        side.note =
            Some("no embedding model is configured: keyword (BM25) search only".to_string());
        return Ok(side);
    };
    let recorded = store.index_state("embedding_model").await?;
    if let Some(recorded) = recorded.as_ref().filter(|name| **name != embedder.name()) {
        // Vectors of another model cannot be compared with this one's query.
        side.note = Some(format!(
            "the passages were embedded by {recorded}, not {}: keyword (BM25) search only until they are embedded again (`asterism library index`, or the app in the background)",
            embedder.name()
        ));
        return Ok(side);
    }
    // The first search of a process reads the index and loads the model: on two cores
    // the two overlap (a CLI search is mostly these). Only where this model has embedded
    // passages: with none, the model (perhaps a remote endpoint) is not asked at all.
    let query_vector = if recorded.is_some() {
        let (loaded, query_vector) =
            tokio::join!(index.ensure_loaded(store), embedder.embed_query(query));
        loaded?;
        Some(query_vector)
    } else {
        index.ensure_loaded(store).await?;
        None
    };
    if index.is_empty() {
        side.note = Some("nothing is embedded yet: keyword (BM25) search only".to_string());
        return Ok(side);
    }
    let query_vector = match query_vector {
        Some(query_vector) => query_vector,
        None => embedder.embed_query(query).await,
    };
    match query_vector {
        Ok(query_vector) => {
            let allowed: Option<HashSet<i64>> = if filter.is_empty() {
                None
            } else {
                Some(
                    store
                        .chunk_ids_matching(filter)
                        .await?
                        .into_iter()
                        .collect(),
                )
            };
            for (id, sim) in
                nearest(store, index, &query_vector, per_side, allowed.as_ref()).await?
            {
                side.similarity.insert(id, sim);
                side.ids.push(id);
            }
            if store.pending_chunks().await? > 0 {
                let (total, embedded) = store.chunk_counts().await?;
                side.note = Some(format!(
                    "{embedded} of {total} passages are embedded so far; the rest are found by keywords only"
                ));
            }
        }
        Err(error) => side.note = Some(format!("{error}: keyword (BM25) search only")),
    }
    Ok(side)
}

/// Everything a search reads: the store, the vectors and the models that are there.
pub struct Retriever<'a> {
    pub store: &'a Store,
    pub index: &'a VectorIndex,
    pub embedder: Option<&'a dyn Embedder>,
    pub tuning: Tuning,
}

impl Retriever<'_> {
    /// Searches the library: keywords and vectors fused, one hit per page, each hit with
    /// its snippet and the snippet's page.
    pub async fn search(
        &self,
        query: &str,
        filter: &PaperFilter,
        k: usize,
    ) -> Result<SearchResults, StoreError> {
        // An empty query has no keywords, and its vector is anyone's nearest neighbour:
        // whatever came back would look like an answer.
        if query.trim().is_empty() {
            return Err(StoreError::Invalid(
                "the query is empty: say what to look for".into(),
            ));
        }
        let tuning = self.tuning;
        // The keyword half runs as its own task (SQLite on a pooled connection) while
        // this one embeds the query and scans the vectors: on two cores they overlap.
        let keywords = {
            let (store, filter, query) = (self.store.clone(), filter.clone(), query.to_string());
            tokio::spawn(async move { keyword_search(&store, &query, &filter, &tuning).await })
        };
        let semantic = vector_side(
            self.store,
            self.index,
            self.embedder,
            query,
            filter,
            tuning.per_side,
        )
        .await;
        let bm25 = keywords.await.map_err(|error| {
            StoreError::Invalid(format!("the keyword search stopped: {error}"))
        })??;
        let VectorSide {
            ids: vector,
            similarity,
            note,
        } = semantic?;
        let mode = match (bm25.is_empty(), vector.is_empty()) {
            (_, true) => SearchMode::Bm25,
            (true, false) => SearchMode::Vector,
            (false, false) => SearchMode::Hybrid,
        };
        let listed = match mode {
            SearchMode::Hybrid => self.store.keywords_only_among(&bm25).await?,
            _ => HashSet::new(),
        };
        let fused = fuse_with_stand_ins(
            &[(&bm25, tuning.bm25_weight), (&vector, tuning.vector_weight)],
            &listed,
            tuning.vector_weight,
        );
        let depth = match tuning.one_per_page {
            true => k * 3,
            false => k,
        };
        let top: Vec<(i64, f64)> = fused.into_iter().take(depth).collect();
        let mut hits = self.hits(query, &top).await?;
        if tuning.one_per_page {
            let mut seen = HashSet::new();
            hits.retain(|hit| {
                hit.chunk.page.is_none()
                    || seen.insert((hit.chunk.paper_id.clone(), hit.chunk.page))
            });
        }
        for hit in &mut hits {
            let id = hit.chunk.chunk_id;
            hit.bm25_rank = bm25.iter().position(|x| *x == id).map(|rank| rank + 1);
            hit.vector_rank = vector.iter().position(|x| *x == id).map(|rank| rank + 1);
            hit.similarity = similarity.get(&id).copied();
        }
        hits.truncate(k);
        Ok(SearchResults { hits, mode, note })
    }

    /// The hits of the fused ids, in that order, each with its snippet.
    async fn hits(&self, query: &str, top: &[(i64, f64)]) -> Result<Vec<SearchHit>, StoreError> {
        let ids: Vec<i64> = top.iter().map(|(id, _)| *id).collect();
        let chunks = self.store.chunk_hits(&ids).await?;
        let terms = QueryTerms::new(query);
        let texts: Vec<&str> = chunks.iter().map(|chunk| chunk.text.as_str()).collect();
        let weights = terms.weights(&texts);
        Ok(chunks
            .into_iter()
            .zip(top)
            .map(|(mut chunk, (_, score))| {
                let snippet = snippet(&chunk, &terms, &weights);
                let pages = match (chunk.page, chunk.page_end) {
                    (Some(first), Some(last)) if last != first => Some([first, last]),
                    _ => None,
                };
                chunk.page = snippet.page.or(chunk.page);
                SearchHit {
                    bm25_rank: None,
                    vector_rank: None,
                    similarity: None,
                    score: *score,
                    snippet,
                    pages,
                    chunk,
                }
            })
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fts_syntax_in_a_query_is_plain_text() {
        assert_eq!(
            fts_query("\"TRGB\" NEAR(H0* (unbalanced").as_deref(),
            Some("\"TRGB\" OR \"NEAR\" OR \"H0\" OR \"unbalanced\"")
        );
        assert_eq!(fts_query("*** ()"), None);
        assert_eq!(
            fts_query("Strömgren β"),
            Some("\"Strömgren\" OR \"β\"".into())
        );
        assert_eq!(
            fts_query("What do the papers say about the TRGB?").as_deref(),
            Some("\"papers\" OR \"TRGB\"")
        );
        assert_eq!(fts_query("the"), Some("\"the\"".into()));
    }

    #[test]
    fn reciprocal_rank_fusion_rewards_agreement() {
        let fused = fuse_with_stand_ins(
            &[(&[1, 2, 3], 1.0), (&[3, 4, 1], 1.0)],
            &HashSet::new(),
            0.0,
        );
        assert_eq!(fused[0].0, 1);
        assert_eq!(fused[1].0, 3);
        assert!(fused.iter().any(|(id, _)| *id == 4));
    }

    #[test]
    fn a_passage_without_a_vector_by_design_is_not_outranked_for_lacking_one() {
        // 7 is the acknowledgements (keywords only), first by its words; 8 and 9 have
        // vectors and are further down both lists.
        let lists: [(&[i64], f64); 2] = [(&[7, 8, 9], 2.0), (&[9, 8], 1.0)];
        let plain = fuse_with_stand_ins(&lists, &HashSet::new(), 1.0);
        assert_ne!(plain[0].0, 7, "without its stand-in it sinks: {plain:?}");
        let fair = fuse_with_stand_ins(&lists, &HashSet::from([7]), 1.0);
        assert_eq!(fair[0].0, 7, "{fair:?}");
    }
}
