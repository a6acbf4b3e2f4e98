//! How a new submission is scored for one library: its topic's closeness to the
//! library's papers (recently added ones weigh more), an author the user follows or
//! often keeps, and an object the library is about. Each part leaves a reason.

use std::collections::{HashMap, HashSet};

use asterism_protocol::PaperRecord;
use asterism_store::ProfilePaper;

use crate::library::objects::{FoundObject, LibraryObject, find_objects, separation_deg};
use crate::targets::target_cache_key;

/// Weights of the parts of a score (a topic match alone reaches 0.6).
const TOPIC_WEIGHT: f64 = 0.6;
const FOLLOWED_AUTHOR: f64 = 0.25;
const FREQUENT_AUTHOR: f64 = 0.15;
const NAMED_OBJECT: f64 = 0.25;
const NEARBY_OBJECT: f64 = 0.15;
/// A topic closeness (0–1) below this is not given as a reason.
const TOPIC_REASON: f64 = 0.2;
/// A library author "appears often" from this many of its papers.
const FREQUENT: usize = 2;
/// How far from a library object a named object still counts, in arcminutes.
pub const NEARBY_ARCMIN: f64 = 30.0;

/// Why an entry ranks where it does.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize, specta::Type)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum Reason {
    /// Its title and abstract are close to these library papers (closest first).
    #[serde(rename_all = "camelCase")]
    Topic {
        closeness: f64,
        papers: Vec<LibraryRef>,
    },
    /// An author the user follows, or one who wrote `library_papers` of the library.
    #[serde(rename_all = "camelCase")]
    Author {
        name: String,
        followed: bool,
        #[specta(type = f64)]
        library_papers: usize,
    },
    /// It names an object of the library, or one within [`NEARBY_ARCMIN`] of one.
    #[serde(rename_all = "camelCase")]
    Object {
        name: String,
        library_object: String,
        separation_arcmin: Option<f64>,
    },
}

/// A library paper named in a reason.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize, specta::Type)]
pub struct LibraryRef {
    pub id: String,
    pub title: String,
}

/// "Foreman-Mackey, Daniel", "Daniel Foreman-Mackey" and "D. Foreman-Mackey" are one
/// author: the surname, lower case, and the first initial when there is one.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct AuthorKey {
    surname: String,
    initial: Option<char>,
}

impl AuthorKey {
    pub fn parse(name: &str) -> Option<Self> {
        let name = name.trim();
        let (surname, given) = match name.split_once(',') {
            Some((surname, given)) => (surname.trim(), given.trim()),
            None => {
                let words: Vec<&str> = name.split_whitespace().collect();
                let (last, first) = words.split_last()?;
                (*last, first.first().copied().unwrap_or(""))
            }
        };
        let surname = surname.to_lowercase();
        if surname.chars().filter(|c| c.is_alphabetic()).count() < 2 {
            return None;
        }
        let initial = given
            .chars()
            .find(|c| c.is_alphabetic())
            .map(|c| c.to_lowercase().next().unwrap_or(c));
        Some(Self { surname, initial })
    }

    /// A followed "Foreman-Mackey" (no initial) matches every initial.
    fn matches(&self, other: &AuthorKey) -> bool {
        self.surname == other.surname
            && match (self.initial, other.initial) {
                (Some(a), Some(b)) => a == b,
                _ => true,
            }
    }
}

/// What the library is about, ready to score submissions against.
pub struct Profile {
    pub papers: Vec<ProfilePaper>,
    /// Per paper (same order): 1 for the newest, falling slowly with age rank.
    recency: Vec<f64>,
    /// Authors of the library, by key: (how many papers, the name as first written).
    authors: HashMap<AuthorKey, (usize, String)>,
    followed: Vec<(AuthorKey, String)>,
    objects: Vec<LibraryObject>,
}

impl Profile {
    /// `papers` newest first, as [`asterism_store::Store::profile_papers`] gives them.
    pub fn new(
        papers: Vec<ProfilePaper>,
        followed: &[String],
        objects: Vec<LibraryObject>,
    ) -> Self {
        // zotero-arxiv-daily's decay: the paper added k-th most recently weighs
        // 1 / (1 + log10(k + 1)).
        let recency = (0..papers.len())
            .map(|rank| 1.0 / (1.0 + ((rank + 1) as f64).log10()))
            .collect();
        let mut authors: HashMap<AuthorKey, (usize, String)> = HashMap::new();
        for paper in &papers {
            let keys: HashSet<AuthorKey> = paper
                .authors
                .iter()
                .filter_map(|a| AuthorKey::parse(a))
                .collect();
            for key in keys {
                let name = paper
                    .authors
                    .iter()
                    .find(|a| AuthorKey::parse(a).as_ref() == Some(&key))
                    .cloned()
                    .unwrap_or_default();
                authors.entry(key).or_insert((0, name)).0 += 1;
            }
        }
        let followed = followed
            .iter()
            .filter_map(|name| Some((AuthorKey::parse(name)?, name.trim().to_string())))
            .collect();
        Self {
            papers,
            recency,
            authors,
            followed,
            objects,
        }
    }

    /// The score of a submission whose closeness to each library paper (0–1, in the
    /// order of `papers`) is `closeness`, with its reasons; `nearby` holds the
    /// positions (RA, Dec) of the objects it names that were resolved.
    pub fn score(
        &self,
        paper: &PaperRecord,
        closeness: &[f64],
        nearby: &HashMap<String, (f64, f64)>,
    ) -> (f64, Vec<Reason>) {
        let mut reasons = Vec::new();
        let mut score = 0.0;
        let (topic, reason) = self.topic(closeness);
        score += TOPIC_WEIGHT * topic;
        reasons.extend(reason);
        if let Some((bonus, reason)) = self.author(paper) {
            score += bonus;
            reasons.push(reason);
        }
        if let Some((bonus, reason)) = self.object(paper, nearby) {
            score += bonus;
            reasons.push(reason);
        }
        ((score * 1000.0).round() / 1000.0, reasons)
    }

    /// The recency-weighted closeness to the closest paper, and the reason when it is
    /// close enough to be one.
    fn topic(&self, closeness: &[f64]) -> (f64, Option<Reason>) {
        let weighted = |i: usize| closeness[i] * (2.0 + self.recency[i]) / 3.0;
        let mut order: Vec<usize> = (0..closeness.len().min(self.papers.len())).collect();
        order.sort_by(|&a, &b| weighted(b).total_cmp(&weighted(a)));
        let best = order.first().map_or(0.0, |&i| weighted(i));
        if best < TOPIC_REASON {
            return (best, None);
        }
        let papers = order
            .iter()
            .take_while(|&&i| weighted(i) >= TOPIC_REASON)
            .take(2)
            .map(|&i| LibraryRef {
                id: self.papers[i].id.clone(),
                title: self.papers[i].title.clone(),
            })
            .collect();
        let reason = Reason::Topic {
            closeness: round(best),
            papers,
        };
        (best, Some(reason))
    }

    /// A followed author first, else the author most often in the library.
    fn author(&self, paper: &PaperRecord) -> Option<(f64, Reason)> {
        let keys: Vec<(AuthorKey, &String)> = paper
            .authors
            .iter()
            .filter_map(|name| Some((AuthorKey::parse(name)?, name)))
            .collect();
        let count = |key: &AuthorKey| self.authors.get(key).map_or(0, |(n, _)| *n);
        for (followed, _) in &self.followed {
            if let Some((key, name)) = keys.iter().find(|(key, _)| followed.matches(key)) {
                let reason = Reason::Author {
                    name: (*name).clone(),
                    followed: true,
                    library_papers: count(key),
                };
                return Some((FOLLOWED_AUTHOR, reason));
            }
        }
        let (key, name) = keys
            .iter()
            .filter(|(key, _)| count(key) >= FREQUENT)
            .max_by_key(|(key, _)| count(key))?;
        let reason = Reason::Author {
            name: (*name).clone(),
            followed: false,
            library_papers: count(key),
        };
        Some((FREQUENT_AUTHOR, reason))
    }

    /// An object of the library it names, else one within [`NEARBY_ARCMIN`] of one.
    fn object(
        &self,
        paper: &PaperRecord,
        nearby: &HashMap<String, (f64, f64)>,
    ) -> Option<(f64, Reason)> {
        let named = find_objects(paper);
        for found in &named {
            if let Some(object) = self.library_object(&found.name) {
                let reason = Reason::Object {
                    name: found.name.clone(),
                    library_object: object.name.clone(),
                    separation_arcmin: None,
                };
                return Some((NAMED_OBJECT, reason));
            }
        }
        let (found, object, separation) = named
            .iter()
            .filter_map(|found| Some((found, *nearby.get(&target_cache_key(&found.name))?)))
            .flat_map(|(found, (ra, dec))| {
                self.objects.iter().filter_map(move |object| {
                    let arcmin = separation_deg(ra, dec, object.ra_deg?, object.dec_deg?) * 60.0;
                    (arcmin <= NEARBY_ARCMIN).then_some((found, object, arcmin))
                })
            })
            .min_by(|a, b| a.2.total_cmp(&b.2))?;
        let reason = Reason::Object {
            name: found.name.clone(),
            library_object: object.name.clone(),
            separation_arcmin: Some(round(separation)),
        };
        Some((NEARBY_OBJECT, reason))
    }

    /// The names a submission gives that match no library object by name: the ones
    /// worth resolving to look for a library object nearby.
    pub fn unmatched_objects(&self, paper: &PaperRecord) -> Vec<FoundObject> {
        find_objects(paper)
            .into_iter()
            .filter(|found| self.library_object(&found.name).is_none())
            .collect()
    }

    /// The library object called `name` (as a paper wrote it, or Sesame's main id).
    fn library_object(&self, name: &str) -> Option<&LibraryObject> {
        let key = target_cache_key(name);
        self.objects.iter().find(|object| {
            target_cache_key(&object.name) == key
                || object
                    .resolved_name
                    .as_deref()
                    .map(target_cache_key)
                    .as_ref()
                    == Some(&key)
        })
    }

    /// Whether any library object has a position (else nothing can be "nearby").
    pub fn has_positions(&self) -> bool {
        self.objects.iter().any(|object| object.ra_deg.is_some())
    }
}

fn round(value: f64) -> f64 {
    (value * 1000.0).round() / 1000.0
}

/// Words that say nothing about a topic.
const STOPWORDS: &[&str] = &[
    "the", "and", "for", "with", "from", "that", "this", "which", "are", "was", "were", "our",
    "its", "their", "into", "using", "use", "used", "these", "those", "has", "have", "been",
    "than", "then", "also", "can", "not", "but", "all", "more", "most", "such", "both", "between",
    "over", "under", "within", "show", "shows", "find", "found", "present", "presents", "here",
    "paper", "work", "study", "results", "result", "new", "data", "based", "two", "one", "however",
    "well", "may", "each", "other", "only", "how", "what", "when", "where", "about", "while",
];

/// The topic words of a text: lower case, letters and digits, no stop words, a plural
/// `s` dropped.
fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !(c.is_alphanumeric() || c == '-'))
        .map(|word| word.trim_matches('-').to_lowercase())
        .filter(|word| word.chars().count() >= 3 && !STOPWORDS.contains(&word.as_str()))
        .filter(|word| !word.chars().all(|c| c.is_ascii_digit()))
        .map(|word| match word.strip_suffix('s') {
            Some(stem) if stem.len() >= 4 && !stem.ends_with('s') => stem.to_string(),
            _ => word,
        })
}

/// A bag of words weighted by TF-IDF, unit length.
type Bag = HashMap<String, f64>;

fn bag(text: &str, idf: &HashMap<String, f64>) -> Bag {
    let mut counts: HashMap<String, f64> = HashMap::new();
    for word in words(text) {
        *counts.entry(word).or_default() += 1.0;
    }
    let mut bag: Bag = counts
        .into_iter()
        .map(|(word, n)| {
            let weight = (1.0 + n.ln()) * idf.get(&word).copied().unwrap_or(0.0);
            (word, weight)
        })
        .collect();
    let norm = bag.values().map(|w| w * w).sum::<f64>().sqrt();
    if norm > 0.0 {
        bag.values_mut().for_each(|w| *w /= norm);
    }
    bag
}

fn cosine(a: &Bag, b: &Bag) -> f64 {
    let (small, large) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    small
        .iter()
        .filter_map(|(word, w)| Some(w * large.get(word)?))
        .sum()
}

/// The text of a submission that is compared with the library.
pub fn submission_text(paper: &PaperRecord) -> String {
    format!(
        "{}. {}",
        paper.title,
        paper.abstract_text.as_deref().unwrap_or_default()
    )
}

fn library_text(paper: &ProfilePaper) -> String {
    format!(
        "{}. {}. {}",
        paper.title,
        paper.keywords.join(", "),
        paper.summary
    )
}

/// Word-overlap closeness (TF-IDF cosine over titles and abstracts, scaled to 0–1) of
/// each submission to each library paper: `[submission][paper]`. Used when no
/// embedding model is installed.
pub fn word_closeness(submissions: &[PaperRecord], papers: &[ProfilePaper]) -> Vec<Vec<f64>> {
    let texts: Vec<String> = papers
        .iter()
        .map(library_text)
        .chain(submissions.iter().map(submission_text))
        .collect();
    let mut document_frequency: HashMap<String, f64> = HashMap::new();
    for text in &texts {
        for word in words(text).collect::<HashSet<_>>() {
            *document_frequency.entry(word).or_default() += 1.0;
        }
    }
    let n = texts.len() as f64;
    let idf: HashMap<String, f64> = document_frequency
        .into_iter()
        .map(|(word, df)| (word, (n / df).ln() + 1.0))
        .collect();
    let library: Vec<Bag> = papers.iter().map(|p| bag(&library_text(p), &idf)).collect();
    submissions
        .iter()
        .map(|paper| {
            let own = bag(&submission_text(paper), &idf);
            // A cosine of 0.3 between a title + abstract and a paper is a close match.
            library
                .iter()
                .map(|other| (cosine(&own, other) / 0.3).min(1.0))
                .collect()
        })
        .collect()
}

/// An embedding cosine (a title + abstract against the closest passage of a paper)
/// scaled to 0–1. Measured with MiniLM on the fixture papers: submissions on unrelated
/// astronomy reach 0.38–0.46 (some passage of any paper is generic), one on a library
/// paper's own topic about 0.7.
pub fn embedding_closeness(cosine: f64) -> f64 {
    ((cosine - 0.45) / 0.3).clamp(0.0, 1.0)
}
