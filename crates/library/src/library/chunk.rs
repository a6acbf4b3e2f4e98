//! Chunking a parsed paper for retrieval: section by section (a chunk never spans two
//! sections), each section split by text-splitter into pieces that fit the embedding
//! model (256 tokens for MiniLM, counted with its own tokenizer when it is installed,
//! else ~1,000 characters), each piece keeping the page it starts on and its section.

use std::sync::Arc;

use asterism_store::NewChunk;
use text_splitter::{ChunkConfig, ChunkSizer, MarkdownSplitter};
use tokenizers::Tokenizer;

/// Token range per chunk (MiniLM reads 256 tokens, including [CLS] and [SEP]).
const TOKENS: std::ops::Range<usize> = 160..250;
/// Character range per chunk when no tokenizer is available.
const CHARS: std::ops::Range<usize> = 600..1_000;

/// How a chunk is measured.
#[derive(Clone, Default)]
pub struct Chunker {
    tokenizer: Option<Arc<Tokenizer>>,
}

impl std::fmt::Debug for Chunker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Chunker")
            .field("tokens", &self.tokenizer.is_some())
            .finish()
    }
}

/// A run of text under one heading, with the pages it covers: (byte offset in `text`,
/// page) at each page change.
struct Block {
    section: Option<String>,
    text: String,
    pages: Vec<(usize, u32)>,
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
        }
    }

    pub fn uses_tokens(&self) -> bool {
        self.tokenizer.is_some()
    }

    /// The chunks of a paper's Markdown (with `<!-- page N -->` markers and `##`
    /// headings).
    pub fn chunk(&self, markdown: &str) -> Vec<NewChunk> {
        let mut chunks = Vec::new();
        for block in blocks(markdown) {
            let pieces: Vec<(usize, String)> = match &self.tokenizer {
                Some(tokenizer) => split(
                    &block.text,
                    ChunkConfig::new(TOKENS).with_sizer(tokenizer.as_ref()),
                ),
                None => split(&block.text, ChunkConfig::new(CHARS)),
            };
            for (offset, text) in pieces {
                let page = block
                    .pages
                    .iter()
                    .take_while(|(start, _)| *start <= offset)
                    .last()
                    .map(|(_, page)| i64::from(*page));
                chunks.push(NewChunk {
                    page,
                    section: block.section.clone(),
                    text,
                });
            }
        }
        chunks
    }
}

fn split<S: ChunkSizer>(text: &str, config: ChunkConfig<S>) -> Vec<(usize, String)> {
    MarkdownSplitter::new(config)
        .chunk_indices(text)
        .map(|(offset, chunk)| (offset, chunk.trim().to_string()))
        .filter(|(_, chunk)| chunk.chars().filter(|c| c.is_alphanumeric()).count() >= 20)
        .collect()
}

/// Splits the Markdown at headings; page markers become page changes.
fn blocks(markdown: &str) -> Vec<Block> {
    let mut blocks = Vec::new();
    let mut current = Block {
        section: None,
        text: String::new(),
        pages: Vec::new(),
    };
    let mut page: Option<u32> = None;
    for line in markdown.lines() {
        let trimmed = line.trim();
        if let Some(number) = trimmed
            .strip_prefix("<!-- page ")
            .and_then(|rest| rest.strip_suffix(" -->"))
            .and_then(|number| number.trim().parse::<u32>().ok())
        {
            page = Some(number);
            current.pages.push((current.text.len(), number));
            continue;
        }
        let hashes = trimmed.chars().take_while(|c| *c == '#').count();
        if (1..=6).contains(&hashes) && trimmed[hashes..].starts_with(' ') {
            if !current.text.trim().is_empty() {
                blocks.push(current);
            }
            current = Block {
                section: Some(trimmed[hashes..].trim().to_string()),
                text: String::new(),
                pages: page.map(|page| vec![(0, page)]).unwrap_or_default(),
            };
            continue;
        }
        current.text.push_str(line);
        current.text.push('\n');
    }
    if !current.text.trim().is_empty() {
        blocks.push(current);
    }
    blocks
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_keep_their_section_and_starting_page() {
        let paragraph =
            "The tip of the red giant branch is a standard candle in the I band. ".repeat(12);
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
}
