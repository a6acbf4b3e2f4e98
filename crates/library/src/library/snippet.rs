//! What a search hit shows: the passage's best-matching sentence(s), not its start,
//! with the query's words marked, and the page that sentence is on.
//!
//! Sentences come from Unicode's sentence boundaries (UAX #29); fragments shorter than
//! a line ("et al.", "Fig.") are joined to their neighbour. A sentence scores the summed
//! weight of the distinct query words it holds (Snowball-stemmed, as the keyword index
//! stems them), a word weighing more the fewer of the hits hold it.

use std::collections::HashSet;

use asterism_store::{ChunkHit, page_at};
use rust_stemmers::{Algorithm, Stemmer};
use unicode_segmentation::UnicodeSegmentation;

/// English function words and question words left out of keyword queries.
pub(crate) const STOP_WORDS: &[&str] = &[
    "a", "about", "all", "an", "and", "any", "are", "as", "at", "be", "been", "but", "by", "can",
    "could", "did", "do", "does", "for", "from", "had", "has", "have", "how", "i", "if", "in",
    "into", "is", "it", "its", "me", "my", "of", "on", "or", "our", "say", "says", "so", "some",
    "than", "that", "the", "their", "them", "there", "these", "they", "this", "those", "to", "was",
    "we", "were", "what", "when", "where", "which", "who", "why", "will", "with", "would", "you",
    "your",
];

/// Shorter sentences are joined to the next one.
const MIN_SENTENCE: usize = 40;
/// A snippet shorter than this takes the following sentence too.
const SHORT_SNIPPET: usize = 140;
/// Longest snippet, in characters.
const MAX_SNIPPET: usize = 420;

/// The best-matching sentence(s) of a passage.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Snippet {
    pub text: String,
    /// The page the snippet starts on.
    pub page: Option<i64>,
    /// Where the snippet starts in the passage, in characters.
    pub start: usize,
    /// The query's words in `text`: [start, end) in characters (Unicode scalar values).
    pub marks: Vec<[usize; 2]>,
}

impl Snippet {
    /// The text with each marked word between `open` and `close` (e.g. the terminal's
    /// bold on and off), whitespace runs made single spaces.
    pub fn marked(&self, open: &str, close: &str) -> String {
        let mut out = String::with_capacity(self.text.len() + self.marks.len() * 8);
        let mut marks = self.marks.iter().peekable();
        for (index, c) in self.text.chars().enumerate() {
            if marks.peek().is_some_and(|[start, _]| *start == index) {
                out.push_str(open);
            }
            out.push(if c.is_whitespace() { ' ' } else { c });
            if marks.peek().is_some_and(|[_, end]| *end == index + 1) {
                out.push_str(close);
                marks.next();
            }
        }
        let mut single = String::with_capacity(out.len());
        for word in out.split(' ').filter(|word| !word.is_empty()) {
            if !single.is_empty() {
                single.push(' ');
            }
            single.push_str(word);
        }
        single
    }
}

/// The query's content words, stemmed.
#[derive(Clone)]
pub struct QueryTerms {
    stems: Vec<String>,
    stemmer: std::sync::Arc<Stemmer>,
    /// The words already looked up, as written: passages repeat their words, and
    /// stemming each one was most of what a search's snippets cost.
    known: std::sync::Arc<std::sync::Mutex<std::collections::HashMap<String, Option<usize>>>>,
}

impl std::fmt::Debug for QueryTerms {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("QueryTerms")
            .field("stems", &self.stems)
            .finish()
    }
}

impl QueryTerms {
    pub fn new(query: &str) -> Self {
        let stemmer = Stemmer::create(Algorithm::English);
        let mut stems: Vec<String> = Vec::new();
        for word in words(query) {
            let lower = word.to_lowercase();
            if STOP_WORDS.contains(&lower.as_str()) {
                continue;
            }
            let stem = stemmer.stem(&lower).into_owned();
            if !stems.contains(&stem) {
                stems.push(stem);
            }
        }
        Self {
            stems,
            stemmer: std::sync::Arc::new(stemmer),
            known: std::sync::Arc::default(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.stems.is_empty()
    }

    /// Which query terms a word is (by index), if any.
    fn term_of(&self, word: &str) -> Option<usize> {
        if let Some(known) = self
            .known
            .lock()
            .ok()
            .and_then(|known| known.get(word).copied())
        {
            return known;
        }
        let stem = self.stemmer.stem(&word.to_lowercase()).into_owned();
        let term = self.stems.iter().position(|term| *term == stem);
        if let Ok(mut known) = self.known.lock() {
            known.insert(word.to_string(), term);
        }
        term
    }

    /// The set of query terms a text holds.
    fn held(&self, text: &str) -> HashSet<usize> {
        words(text).filter_map(|word| self.term_of(word)).collect()
    }

    /// Each term's weight over a set of passages: ln(1 + n / (1 + passages holding
    /// it)).
    pub fn weights(&self, texts: &[&str]) -> Vec<f64> {
        let held: Vec<HashSet<usize>> = texts.iter().map(|text| self.held(text)).collect();
        (0..self.stems.len())
            .map(|term| {
                let df = held.iter().filter(|set| set.contains(&term)).count();
                (1.0 + texts.len() as f64 / (1.0 + df as f64)).ln()
            })
            .collect()
    }
}

/// The words of a text (letters, digits and `_`), as slices.
fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|word| !word.is_empty())
}

/// A passage's sentences as byte ranges, short fragments joined to the next.
fn sentences(text: &str) -> Vec<std::ops::Range<usize>> {
    let mut ranges: Vec<std::ops::Range<usize>> = Vec::new();
    let mut pending: Option<usize> = None;
    for (start, sentence) in text.split_sentence_bound_indices() {
        let begin = pending.take().unwrap_or(start);
        let end = start + sentence.len();
        if text[begin..end].trim().chars().count() < MIN_SENTENCE {
            pending = Some(begin);
        } else {
            ranges.push(begin..end);
        }
    }
    if let Some(begin) = pending {
        match ranges.last_mut() {
            Some(last) => last.end = text.len(),
            None => ranges.push(begin..text.len()),
        }
    }
    ranges
}

/// The snippet of a hit for these query terms and weights.
pub fn snippet(hit: &ChunkHit, terms: &QueryTerms, weights: &[f64]) -> Snippet {
    let text = hit.text.as_str();
    let ranges = sentences(text);
    let score = |range: &std::ops::Range<usize>| -> f64 {
        terms
            .held(&text[range.clone()])
            .into_iter()
            .map(|term| weights.get(term).copied().unwrap_or(1.0))
            .sum()
    };
    let best = ranges
        .iter()
        .enumerate()
        .map(|(index, range)| (index, score(range)))
        .fold(None::<(usize, f64)>, |best, (index, value)| match best {
            Some((_, top)) if top >= value => best,
            _ => Some((index, value)),
        })
        .map_or(0, |(index, _)| index);
    let Some(first) = ranges.get(best) else {
        return Snippet {
            text: String::new(),
            page: hit.page,
            start: 0,
            marks: Vec::new(),
        };
    };
    let mut range = first.clone();
    if text[range.clone()].chars().count() < SHORT_SNIPPET
        && let Some(next) = ranges.get(best + 1)
    {
        range.end = next.end;
    }
    let lead = text[range.clone()].len() - text[range.clone()].trim_start().len();
    range.start += lead;
    let mut shown = text[range.clone()].trim_end().to_string();
    if shown.chars().count() > MAX_SNIPPET {
        shown = shown.chars().take(MAX_SNIPPET).collect::<String>() + "…";
    }
    Snippet {
        marks: marks(&shown, terms),
        page: page_at(hit.page, &hit.page_breaks, range.start),
        start: text[..range.start].chars().count(),
        text: shown,
    }
}

/// The sentences of a text as written (UAX #29), trimmed, none empty.
pub fn split_sentences(text: &str) -> Vec<&str> {
    text.split_sentence_bounds()
        .map(str::trim)
        .filter(|sentence| !sentence.is_empty())
        .collect()
}

/// The sentence(s) of a passage that best support a claim, with the claim's words
/// marked and the page they are on; `None` when the passage holds none of its words.
/// A number weighs twice a word: it is what a reader checks first.
pub fn quote_for(hit: &ChunkHit, claim: &str) -> Option<Snippet> {
    let terms = QueryTerms::new(claim);
    if terms.held(&hit.text).is_empty() {
        return None;
    }
    let weights: Vec<f64> = terms
        .stems
        .iter()
        .map(|stem| match stem.chars().any(|c| c.is_ascii_digit()) {
            true => 2.0,
            false => 1.0,
        })
        .collect();
    Some(snippet(hit, &terms, &weights))
}

/// Where the query's words are in `text`, in characters.
fn marks(text: &str, terms: &QueryTerms) -> Vec<[usize; 2]> {
    let mut marks = Vec::new();
    let mut chars_before = 0;
    let mut last_byte = 0;
    for (index, word) in text.split_word_bound_indices() {
        if word.chars().any(char::is_alphanumeric) && terms.term_of(word).is_some() {
            chars_before += text[last_byte..index].chars().count();
            last_byte = index;
            let length = word.chars().count();
            marks.push([chars_before, chars_before + length]);
        }
    }
    marks
}

#[cfg(test)]
mod tests {
    use super::*;
    use asterism_store::PageBreak;

    fn hit(text: &str, page: i64, breaks: Vec<PageBreak>) -> ChunkHit {
        ChunkHit {
            chunk_id: 1,
            paper_id: "p".into(),
            title: "T".into(),
            authors: Vec::new(),
            year: None,
            bibcode: None,
            arxiv_id: None,
            doi: None,
            original_name: None,
            page: Some(page),
            page_end: breaks.last().map(|brk| brk.page).or(Some(page)),
            page_breaks: breaks,
            section: None,
            text: text.into(),
        }
    }

    #[test]
    fn the_snippet_is_the_matching_sentence_on_its_own_page() {
        let text = "The light curve was detrended with a spline before the fit was made. \
                    We used the long-cadence data of all seventeen quarters for this. \
                    Figure 3 shows the phase-folded transit of Kepler 1627b with variability removed, binned to 20 minutes.";
        let at = text.find("Figure 3").unwrap();
        let hit = hit(
            text,
            3,
            vec![PageBreak {
                offset: at,
                page: 4,
            }],
        );
        let terms = QueryTerms::new("How was the folded transit of Kepler 1627b binned?");
        let weights = terms.weights(&[text]);
        let snippet = snippet(&hit, &terms, &weights);
        assert!(snippet.text.starts_with("Figure 3 shows"), "{snippet:?}");
        assert_eq!(snippet.page, Some(4));
        let marked: Vec<String> = snippet
            .marks
            .iter()
            .map(|[s, e]| snippet.text.chars().skip(*s).take(e - s).collect())
            .collect();
        assert!(marked.contains(&"transit".to_string()), "{marked:?}");
        assert!(marked.contains(&"binned".to_string()), "{marked:?}");
        assert!(marked.contains(&"1627b".to_string()), "{marked:?}");
    }

    #[test]
    fn marks_count_characters_not_bytes() {
        let terms = QueryTerms::new("Strömgren photometry");
        let text = "Ωμέγα: Strömgren photometry of the cluster.";
        let marks = marks(text, &terms);
        let shown: Vec<String> = marks
            .iter()
            .map(|[s, e]| text.chars().skip(*s).take(e - s).collect())
            .collect();
        assert_eq!(shown, vec!["Strömgren", "photometry"]);
    }

    #[test]
    fn without_matching_words_the_snippet_is_the_start() {
        let text = "First sentence of the passage is long enough to stand alone here. Second sentence follows it and is also long enough.";
        let hit = hit(text, 2, Vec::new());
        let terms = QueryTerms::new("开普勒的自转周期");
        let snippet = snippet(&hit, &terms, &terms.weights(&[text]));
        assert!(snippet.text.starts_with("First sentence"));
        assert_eq!(snippet.page, Some(2));
        assert_eq!(snippet.start, 0);
    }

    #[test]
    fn a_claim_is_quoted_from_the_sentence_that_holds_its_number_on_its_page() {
        let text = "Kepler 1627 is a member of the delta Lyr cluster. \
                    The planet's radius is 3.8 Earth radii from the transit depth. \
                    Its orbital period is 7.2028 days, measured over four years of data.";
        let at = text.find("Its orbital").unwrap();
        let hit = hit(
            text,
            3,
            vec![PageBreak {
                offset: at,
                page: 4,
            }],
        );
        let quote = quote_for(&hit, "The planet orbits every 7.2028 days").unwrap();
        assert!(
            quote.text.starts_with("Its orbital period"),
            "{}",
            quote.text
        );
        assert_eq!(quote.page, Some(4));
        assert!(quote_for(&hit, "Galaxies merge often").is_none());
        assert_eq!(
            split_sentences("H0 is 70 [1]. It is debated [2]!  "),
            ["H0 is 70 [1].", "It is debated [2]!"]
        );
    }

    #[test]
    fn marked_words_are_wrapped_where_the_offsets_say() {
        let snippet = Snippet {
            text: "Télescope  spatial: the TRGB\ndistance".into(),
            page: Some(1),
            start: 0,
            marks: vec![[0, 9], [24, 28]],
        };
        assert_eq!(
            snippet.marked("<b>", "</b>"),
            "<b>Télescope</b> spatial: the <b>TRGB</b> distance"
        );
    }
}
