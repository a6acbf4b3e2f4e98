//! Chunking a parsed paper for retrieval: section by section (a chunk never spans two
//! sections), each section split by text-splitter into pieces that fit the embedding
//! model (counted with its own tokenizer when it is installed, else in characters).
//!
//! Passages are page-true: each knows the page it starts on, the last page it reaches
//! and where in its text every later page starts, so any sentence of it can be cited
//! with its own page. Figure and table captions (and a table's rows) are passages of
//! their own, labelled "Figure 3" or "Table 1" and attributed to the page they are on;
//! the axis labels a PDF's text layer puts before a caption are dropped.

use std::sync::{Arc, LazyLock};

use asterism_store::{NewChunk, PageBreak};
use regex::Regex;
use text_splitter::{ChunkConfig, ChunkSizer, MarkdownSplitter};
use tokenizers::Tokenizer;

/// Token range per chunk: the `retrieval` bench ranked the answer's exact page first
/// for 64% of its questions with 100–160, 57% with 160–250 (see
/// docs/architecture/agent/library-and-rag.md).
const TOKENS: std::ops::Range<usize> = 100..160;
/// Character range per chunk when no tokenizer is available (about the same size).
const CHARS: std::ops::Range<usize> = 400..650;

/// How a chunk is measured.
#[derive(Clone)]
pub struct Chunker {
    tokenizer: Option<Arc<Tokenizer>>,
    tokens: std::ops::Range<usize>,
}

impl Default for Chunker {
    fn default() -> Self {
        Self {
            tokenizer: None,
            tokens: TOKENS,
        }
    }
}

impl std::fmt::Debug for Chunker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Chunker")
            .field("tokens", &self.tokenizer.is_some())
            .field("size", &self.tokens)
            .finish()
    }
}

/// A run of text under one label, with the pages it covers: (byte offset in `text`,
/// page) at each page change.
#[derive(Debug)]
struct Block {
    section: Option<String>,
    text: String,
    pages: Vec<(usize, u32)>,
}

impl Block {
    fn new(section: Option<String>, page: Option<u32>) -> Self {
        Self {
            section,
            text: String::new(),
            pages: page.map(|page| vec![(0, page)]).unwrap_or_default(),
        }
    }
}

impl Chunker {
    /// Measures in characters.
    pub fn characters() -> Self {
        Self::default()
    }

    /// Measures in the embedding model's tokens (truncation and padding are turned off,
    /// or every text would "fit").
    pub fn with_tokenizer(mut tokenizer: Tokenizer) -> Self {
        let _ = tokenizer.with_truncation(None);
        tokenizer.with_padding(None);
        Self {
            tokenizer: Some(Arc::new(tokenizer)),
            tokens: TOKENS,
        }
    }

    /// Another passage size in tokens (for measuring; the default is 160–250).
    pub fn with_token_range(mut self, tokens: std::ops::Range<usize>) -> Self {
        self.tokens = tokens;
        self
    }

    pub fn uses_tokens(&self) -> bool {
        self.tokenizer.is_some()
    }

    /// The chunks of a paper's Markdown (with `<!-- page N -->` markers and `##`
    /// headings).
    pub fn chunk(&self, markdown: &str) -> Vec<NewChunk> {
        let mut chunks = Vec::new();
        for block in blocks(markdown) {
            let pieces: Vec<(usize, &str)> = match &self.tokenizer {
                Some(tokenizer) => split(
                    &block.text,
                    ChunkConfig::new(self.tokens.clone()).with_sizer(WordTokens::new(tokenizer)),
                ),
                None => split(&block.text, ChunkConfig::new(CHARS)),
            };
            for (start, text) in pieces {
                chunks.push(page_true(&block, start, text));
            }
        }
        chunks
    }
}

/// A text's tokens counted word by word, each distinct word tokenized once.
///
/// The splitter sizes many overlapping candidates of each block; tokenizing each whole
/// (text-splitter's own sizer) took four times as long as reading the PDF. The models'
/// WordPiece tokenizers split on whitespace before anything else and normalise
/// character by character, so a text's count is the sum of its words' counts (tested
/// against the whole-text count). A word the tokenizer cannot read counts as its
/// characters, where text-splitter's sizer panics.
struct WordTokens<'a> {
    tokenizer: &'a Tokenizer,
    words: std::cell::RefCell<std::collections::HashMap<String, usize>>,
}

impl<'a> WordTokens<'a> {
    fn new(tokenizer: &'a Tokenizer) -> Self {
        Self {
            tokenizer,
            words: Default::default(),
        }
    }

    fn word(&self, word: &str) -> usize {
        if let Some(count) = self.words.borrow().get(word) {
            return *count;
        }
        let count = self
            .tokenizer
            .encode_fast(word, false)
            .map_or_else(|_| word.chars().count(), |encoding| encoding.len());
        self.words.borrow_mut().insert(word.to_string(), count);
        count
    }
}

impl ChunkSizer for WordTokens<'_> {
    fn size(&self, chunk: &str) -> usize {
        chunk.split_whitespace().map(|word| self.word(word)).sum()
    }
}

/// The chunk for `text`, found at byte `start` of its block, with its page span.
fn page_true(block: &Block, start: usize, text: &str) -> NewChunk {
    let end = start + text.len();
    let page = block
        .pages
        .iter()
        .take_while(|(offset, _)| *offset <= start)
        .last()
        .map(|(_, page)| i64::from(*page));
    let mut page_breaks: Vec<PageBreak> = Vec::new();
    for (offset, next) in &block.pages {
        let last = page_breaks.last().map(|brk| brk.page).or(page);
        if *offset > start && *offset < end && last != Some(i64::from(*next)) {
            page_breaks.push(PageBreak {
                offset: offset - start,
                page: i64::from(*next),
            });
        }
    }
    NewChunk {
        page,
        page_end: page_breaks.last().map(|brk| brk.page).or(page),
        page_breaks,
        section: block.section.clone(),
        text: text.to_string(),
        keywords_only: keywords_only(block.section.as_deref(), text),
    }
}

/// Sections found by their words but not worth a vector: what they hold is names,
/// journals and grant numbers, which a question by meaning never wants, and which
/// crowd the nearest neighbours of every query about a name.
static LISTING_SECTION: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r"(?i)^(?:[\dIVXA-Z]+\.?\s+)?(?:references|reference list|bibliography|literature cited|acknowledge?ments?|author contributions|affiliations|author list|the .* collaboration)\b",
    )
    .ok()
});
/// A reference as lists print it: "Smith, J. 2019, ApJ, 882, 34", "2019, MNRAS, 507".
static REFERENCE: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"\b(?:19|20)\d{2}[a-z]?[,.]\s*(?:ApJ|ApJS|ApJL|AJ|MNRAS|A&A|PASP|Nature|Science|arXiv|PhRvD|ARA&A|Icarus|JCAP|AJ)\b").ok()
});
/// What acknowledgements say.
static THANKS: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:we thank|thank|grateful|acknowledges?|funded|funding|support(?:ed)? by|grant|fellowship)\b").ok()
});
/// Words of affiliations and addresses.
static AFFILIATION: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"\b(?:University|Universit[àäéy]|Department|Institute|Institut|Observatory|Observatoire|Laboratory|Center|Centre|School of|Faculty|Max-Planck|@)").ok()
});

/// Whether a passage is kept for keyword search only: a reference list, the
/// acknowledgements, or an author list with affiliations.
pub fn keywords_only(section: Option<&str>, text: &str) -> bool {
    let count = |pattern: &LazyLock<Option<Regex>>| {
        pattern
            .as_ref()
            .map_or(0, |regex| regex.find_iter(text).count())
    };
    let listing = section.is_some_and(|section| {
        LISTING_SECTION
            .as_ref()
            .is_some_and(|regex| regex.is_match(section.trim()))
    });
    // A draft's text layer may leave the last heading over what follows (an appendix
    // after the references): under a listing heading, only what reads as a list or as
    // thanks counts.
    let thanks = THANKS.as_ref().is_some_and(|regex| regex.is_match(text));
    let words = text.split_whitespace().count().max(1);
    // Four references in one passage, or one affiliation word in every fifteen words
    // of text with little prose: a list, not an argument.
    (listing && (thanks || count(&REFERENCE) >= 2 || !looks_like_prose(text)))
        || count(&REFERENCE) >= 4
        || (count(&AFFILIATION) * 15 >= words && !looks_like_prose(text))
}

/// The pieces of a block as (byte offset, trimmed text), without pieces too short to
/// retrieve on their own.
fn split<S: ChunkSizer>(text: &str, config: ChunkConfig<S>) -> Vec<(usize, &str)> {
    MarkdownSplitter::new(config)
        .chunk_indices(text)
        .map(|(offset, chunk)| {
            let lead = chunk.len() - chunk.trim_start().len();
            (offset + lead, chunk.trim())
        })
        .filter(|(_, chunk)| chunk.chars().filter(|c| c.is_alphanumeric()).count() >= 20)
        .collect()
}

/// The start of a figure or table caption: "Figure 3.", "Fig. 3:", "Table 1.",
/// "TABLE A2 —".
static CAPTION: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"(?:^|\s)((?:Figure|FIGURE|Fig\.|FIG\.|Table|TABLE)\s+(?:[A-Z]\.?\d+|\d+|[IVX]+))(?:\.|:|\s+[—–-])\s").ok()
});

/// What kind of float a caption belongs to.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Float {
    Figure,
    Table,
}

/// A caption found in a paragraph: where it starts, its label ("Figure 3") and kind.
pub(crate) fn find_caption(line: &str) -> Option<(usize, String, Float)> {
    let caption = CAPTION.as_ref()?;
    for found in caption.captures_iter(line) {
        let label = found.get(1)?;
        let before = &line[..label.start()];
        // "… as shown in Figure 3. The fit …" is a reference, not a caption: a caption
        // starts a paragraph or follows what a figure's text layer leaves (tick
        // labels, axis names), not prose.
        if looks_like_prose(before) {
            continue;
        }
        let words: Vec<&str> = label.as_str().split_whitespace().collect();
        let kind = if words[0].to_lowercase().starts_with("tab") {
            Float::Table
        } else {
            Float::Figure
        };
        let name = if kind == Float::Table {
            "Table"
        } else {
            "Figure"
        };
        return Some((label.start(), format!("{name} {}", words[1]), kind));
    }
    None
}

/// Whether the end of `text` reads as running prose (lower-case words, not numbers
/// and labels).
fn looks_like_prose(text: &str) -> bool {
    let words: Vec<&str> = text.split_whitespace().rev().take(30).collect();
    if words.is_empty() {
        return false;
    }
    let prose = words
        .iter()
        .filter(|word| {
            let word = word.trim_matches(|c: char| !c.is_alphanumeric());
            word.len() >= 3 && word.chars().all(|c| c.is_lowercase())
        })
        .count();
    prose * 5 >= words.len() * 2
}

/// Whether `line` is prose cut off mid-sentence (its last word lower-case, no closing
/// punctuation), so the next line continues it.
pub(crate) fn breaks_off(line: &str) -> bool {
    let line = line.trim_end();
    let last = line.split_whitespace().last().unwrap_or("");
    !line.ends_with(['.', ':', ';', '!', '?', ')'])
        && last.chars().all(|c| c.is_lowercase())
        && !last.is_empty()
        && looks_like_prose(line)
}

/// Whether a paragraph reads as table rows (mostly numbers and symbols).
fn looks_tabular(line: &str) -> bool {
    let words: Vec<&str> = line.split_whitespace().collect();
    let numeric = words
        .iter()
        .filter(|word| word.chars().any(|c| c.is_ascii_digit()))
        .count();
    words.len() >= 4 && numeric * 10 >= words.len() * 3 && !looks_like_prose(line)
}

/// Splits the Markdown at headings and captions; page markers become page changes.
fn blocks(markdown: &str) -> Vec<Block> {
    let mut blocks = Vec::new();
    let mut heading: Option<String> = None;
    let mut page: Option<u32> = None;
    let mut current = Block::new(None, None);
    let mut float: Option<Float> = None;
    // The last line of text (not a page marker, heading or blank line).
    let mut previous = "";
    let finish = |blocks: &mut Vec<Block>, block: Block| {
        if !block.text.trim().is_empty() {
            blocks.push(block);
        }
    };
    for line in markdown.lines() {
        let trimmed = line.trim();
        if let Some(number) = trimmed
            .strip_prefix("<!-- page ")
            .and_then(|rest| rest.strip_suffix(" -->"))
            .and_then(|number| number.trim().parse::<u32>().ok())
        {
            page = Some(number);
            if float.take().is_some() {
                // A caption ends with its page.
                let done = std::mem::replace(&mut current, Block::new(heading.clone(), page));
                finish(&mut blocks, done);
            } else {
                current.pages.push((current.text.len(), number));
            }
            continue;
        }
        let hashes = trimmed.chars().take_while(|c| *c == '#').count();
        if (1..=6).contains(&hashes) && trimmed[hashes..].starts_with(' ') {
            heading = Some(trimmed[hashes..].trim().to_string());
            float = None;
            let done = std::mem::replace(&mut current, Block::new(heading.clone(), page));
            finish(&mut blocks, done);
            continue;
        }
        if trimmed.is_empty() {
            current.text.push('\n');
            continue;
        }
        let caption = find_caption(line).filter(|(start, ..)| {
            // "… shown in" then "Figure 3. …" on the next line: the prose goes on.
            *start > 0 || !breaks_off(previous)
        });
        previous = line;
        if let Some((start, label, kind)) = caption {
            let before = &line[..start];
            if looks_like_prose(before) || before.split_whitespace().count() > 60 {
                current.text.push_str(before);
                current.text.push('\n');
            }
            float = Some(kind);
            let done = std::mem::replace(&mut current, Block::new(Some(label), page));
            finish(&mut blocks, done);
            current.text.push_str(line[start..].trim());
            current.text.push('\n');
            continue;
        }
        if float.is_some() && !(float == Some(Float::Table) && looks_tabular(line)) {
            float = None;
            let done = std::mem::replace(&mut current, Block::new(heading.clone(), page));
            finish(&mut blocks, done);
        }
        current.text.push_str(line);
        current.text.push('\n');
    }
    finish(&mut blocks, current);
    blocks
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Counted word by word, a text has as many tokens as the whole text tokenized: on
    /// a fixture paper's passages, and on words a hostile or foreign PDF may hold.
    #[test]
    fn a_text_counted_by_its_words_has_the_tokens_of_the_whole() {
        let model = crate::library::local::LocalModel::find()
            .expect("the local embedding model is not installed: run scripts/install-deps.sh");
        let tokenizer = Tokenizer::from_file(model.dir.join("tokenizer.json")).unwrap();
        let sizer = WordTokens::new(&tokenizer);
        let bytes =
            std::fs::read(asterism_testkit::fixture_path("pdfs/gammapy_v1_ms.pdf")).unwrap();
        let paper = crate::parse::parse_pdf_bytes(&bytes).unwrap();
        let mut texts: Vec<String> = Chunker::characters()
            .chunk(&paper.markdown)
            .into_iter()
            .map(|chunk| chunk.text)
            .collect();
        texts.push(
            "Ångström-scale naïve über 銀河系 (M31)… x\u{0}y e^{-t/τ} \u{200b}zero-width\tTAB \
             ﬁnally https://arxiv.org/abs/2308.13584v2 "
                .into(),
        );
        texts.push("a".repeat(150));
        for text in &texts {
            let whole = tokenizer.encode(text.as_str(), false).unwrap().len();
            assert_eq!(sizer.size(text), whole, "{text}");
        }
    }

    #[test]
    fn chunks_keep_their_section_and_starting_page() {
        let paragraph =
            "The tip of the red giant branch is a standard candle in the I band. ".repeat(8);
        let markdown = format!(
            "<!-- page 1 -->\n# Title\n\n## Abstract\n\n{paragraph}\n\n## 1 Introduction\n\n{paragraph}\n<!-- page 2 -->\n{paragraph}\n\n## 2 Data\n\nShort.\n"
        );
        let chunks = Chunker::characters().chunk(&markdown);
        assert_eq!(chunks.len(), 3, "{chunks:#?}");
        assert_eq!(chunks[0].section.as_deref(), Some("Abstract"));
        assert_eq!(chunks[0].page, Some(1));
        let intro: Vec<&NewChunk> = chunks
            .iter()
            .filter(|c| c.section.as_deref() == Some("1 Introduction"))
            .collect();
        assert!(intro.len() >= 2);
        assert_eq!(intro.first().unwrap().page, Some(1));
        assert_eq!(intro.last().unwrap().page, Some(2));
        assert!(chunks.iter().all(|c| c.text.chars().count() <= 1_000));
        // "Short." is too little to retrieve on its own.
        assert!(
            !chunks
                .iter()
                .any(|c| c.section.as_deref() == Some("2 Data"))
        );
    }

    #[test]
    fn a_passage_across_a_page_break_knows_where_the_next_page_starts() {
        let markdown = "<!-- page 3 -->\n## 2 Data\n\nThe light curve was detrended with a spline before fitting the transit.\n<!-- page 4 -->\nThe phase-folded transit shows a depth of 1.7 parts per thousand.\n";
        let chunks = Chunker::characters().chunk(markdown);
        assert_eq!(chunks.len(), 1, "{chunks:#?}");
        let chunk = &chunks[0];
        assert_eq!((chunk.page, chunk.page_end), (Some(3), Some(4)));
        let at = chunk.text.find("The phase-folded").unwrap();
        assert_eq!(
            chunk.page_breaks,
            vec![PageBreak {
                offset: at,
                page: 4
            }]
        );
        assert_eq!(
            asterism_store::page_at(chunk.page, &chunk.page_breaks, at + 10),
            Some(4)
        );
        assert_eq!(
            asterism_store::page_at(chunk.page, &chunk.page_breaks, 5),
            Some(3)
        );
    }

    #[test]
    fn captions_are_passages_of_their_own_page_with_their_own_label() {
        // As a PDF text layer gives a figure page of a draft: tick labels, then the
        // caption; the paper's last heading was the acknowledgments.
        let markdown = "<!-- page 1 -->\n## ACKNOWLEDGMENTS\n\nWe thank the TESS team for their efforts to make the mission a continued success over many years.\n\n<!-- page 4 -->\n\n2 Relative flux [ppt] 5 0 5 Hours from mid-transit 2 0 2 Residual Figure 3. Phase-folded transit of Kepler 1627b, with stellar variability removed. Gray points are individual flux measurements.\n\n<!-- page 5 -->\n\nTable 1. Priors and posteriors for the transit model.\n\nParam. Unit Prior Median P d N(7.20281; 0.01000) 7.202804 0.0000072\n\nAs the table shows, the period is well constrained by the long baseline of the data.\n";
        let chunks = Chunker::characters().chunk(markdown);
        let figure = chunks
            .iter()
            .find(|c| c.text.contains("Phase-folded"))
            .unwrap();
        assert_eq!(figure.section.as_deref(), Some("Figure 3"));
        assert_eq!(figure.page, Some(4));
        assert!(figure.text.starts_with("Figure 3."), "{:?}", figure.text);
        let table = chunks.iter().find(|c| c.text.contains("Priors")).unwrap();
        assert_eq!(table.section.as_deref(), Some("Table 1"));
        assert_eq!(table.page, Some(5));
        assert!(
            table.text.contains("7.202804"),
            "the rows stay with the caption"
        );
        let prose = chunks
            .iter()
            .find(|c| c.text.contains("well constrained"))
            .unwrap();
        assert_eq!(prose.section.as_deref(), Some("ACKNOWLEDGMENTS"));
        assert!(!prose.text.contains("Priors"));
        assert!(chunks.iter().all(|c| !c.text.contains("Residual Figure")));
    }

    #[test]
    fn a_reference_to_a_figure_in_prose_is_not_a_caption() {
        let markdown = "<!-- page 2 -->\n## 3 Results\n\nThe residuals are consistent with white noise, as can be seen in Figure 4. The fit is good over the whole range of periods we tried here.\n";
        let chunks = Chunker::characters().chunk(markdown);
        assert_eq!(chunks.len(), 1);
        assert_eq!(chunks[0].section.as_deref(), Some("3 Results"));
    }

    /// A sentence broken at "shown in" goes on with "Figure 3." on the next line: that is
    /// still the sentence, not a caption; an appendix caption ("Fig. A.1.") is one.
    #[test]
    fn a_reference_at_the_start_of_a_line_continues_the_sentence() {
        let markdown = "<!-- page 23 -->\n## Appendix A\n\nFig. A.1. Output from the code example shown in\nFigure 3. The table lists the fitted parameters of every source.\n\n2 4 6 8\nFigure 4. The spectrum of the source and the fitted model on top of it.\n";
        let chunks = Chunker::characters().chunk(markdown);
        let sections: Vec<&str> = chunks.iter().filter_map(|c| c.section.as_deref()).collect();
        assert!(sections.contains(&"Figure A.1"), "{sections:?}");
        assert!(!sections.contains(&"Figure 3"), "{sections:?}");
        assert!(
            sections.contains(&"Figure 4"),
            "after tick labels: {sections:?}"
        );
    }
}

#[cfg(test)]
mod listing_tests {
    use super::*;

    /// On the fixture papers: their reference lists are kept for keywords only, their
    /// abstracts and introductions are embedded.
    #[test]
    fn reference_lists_and_author_lists_are_not_embedded_but_the_argument_is() {
        let mut totals = (0, 0);
        for name in ["rudolf_ms.pdf", "celerite_ms.pdf", "gammapy_v1_ms.pdf"] {
            let bytes = std::fs::read(asterism_testkit::fixture_path(&format!("pdfs/{name}")))
                .unwrap_or_default();
            let text = crate::parse::parse_pdf_bytes(&bytes).unwrap();
            let chunks = Chunker::characters().chunk(&text.markdown);
            let skipped: Vec<&NewChunk> = chunks.iter().filter(|c| c.keywords_only).collect();
            totals.0 += skipped.len();
            totals.1 += chunks.len();
            assert!(
                skipped
                    .iter()
                    .filter(|c| c.text.contains("ApJ") || c.text.contains("A&A"))
                    .count()
                    >= 3,
                "{name}: references kept out of the vectors"
            );
            let argued = chunks.iter().filter(|c| {
                c.section.as_deref().is_some_and(|s| {
                    let s = s.to_lowercase();
                    s.contains("abstract") || s.contains("introduction")
                })
            });
            for chunk in argued {
                assert!(!chunk.keywords_only, "{name}: {:?}", chunk.text);
            }
        }
        let (skipped, all) = totals;
        assert!(skipped * 10 > all, "{skipped} of {all}");
        assert!(skipped * 2 < all, "{skipped} of {all}");
    }

    #[test]
    fn a_draft_s_appendix_under_the_references_heading_is_still_embedded() {
        let appendix = "We derive the likelihood of the transit model in detail here, and show how the stellar variability term enters the covariance of the residuals at every step of the fit.";
        assert!(!keywords_only(Some("REFERENCES"), appendix));
        assert!(keywords_only(
            Some("REFERENCES"),
            "Bouma, L. G., Curtis, J. L., Hartman, J. D. 2022, AJ, 163, 121 Foreman-Mackey, D. 2017, AJ, 154, 220"
        ));
        assert!(keywords_only(
            Some("ACKNOWLEDGMENTS"),
            "We thank the TESS team. This work was supported by NASA grant 80NSSC."
        ));
        assert!(keywords_only(
            None,
            "1 Department of Astronomy, University of Somewhere 2 Max-Planck-Institut für Astronomie 3 Observatoire de Paris 4 Institute of Elsewhere"
        ));
    }
}
