//! What the agent remembers across sessions: the quality gate for `save_memory` and
//! the part of the system prompt that lists the memories.

use std::collections::HashSet;

/// Memories shown in the system prompt (the most recent).
pub const PROMPT_MEMORIES: i64 = 50;
/// Word-set Jaccard similarity from which a new memory counts as a duplicate.
pub const DUPLICATE_JACCARD: f64 = 0.7;

/// Why a memory was not saved.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MemoryRejection {
    #[error("too short to be useful later; write a full sentence with the specifics")]
    TooShort,
    #[error("too vague; say exactly what (which object, instrument, paper, preference)")]
    Vague,
    #[error("it is about now (today, this session); memories must stay true in later sessions")]
    Transient,
    #[error("code does not belong in memory; save what it is for instead")]
    Code,
    #[error("already remembered: \"{0}\"")]
    Duplicate(String),
}

fn words(text: &str) -> HashSet<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// Jaccard similarity of two texts' word sets.
pub fn jaccard(a: &str, b: &str) -> f64 {
    let (a, b) = (words(a), words(b));
    let union = a.union(&b).count();
    if union == 0 {
        return 0.0;
    }
    a.intersection(&b).count() as f64 / union as f64
}

const VAGUE: &[&str] = &[
    "something",
    "stuff",
    "things",
    "thing",
    "maybe",
    "etc",
    "somehow",
    "whatever",
    "some",
    "various",
    "misc",
];
const TRANSIENT: &[&str] = &[
    "today",
    "tonight",
    "right now",
    "just now",
    "at the moment",
    "this session",
    "this conversation",
    "currently working",
    "for now",
    "yesterday",
];
const STOP: &[&str] = &[
    "the", "a", "an", "is", "are", "was", "of", "to", "and", "or", "in", "on", "for", "with", "it",
    "that", "this", "be", "i", "user", "they",
];

/// The seed's gate: too short, vague, transient, code; then a duplicate of `existing`.
pub fn check_memory<'a>(
    content: &str,
    existing: impl IntoIterator<Item = &'a str>,
) -> Result<(), MemoryRejection> {
    let content = content.trim();
    let all_words: Vec<String> = content
        .split_whitespace()
        .map(|w| {
            w.trim_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase()
        })
        .filter(|w| !w.is_empty())
        .collect();
    if content.chars().count() < 15 || all_words.len() < 3 {
        return Err(MemoryRejection::TooShort);
    }
    let lower = content.to_lowercase();
    if content.contains("```")
        || content
            .lines()
            .filter(|line| {
                let line = line.trim();
                line.ends_with(';')
                    || line.ends_with('{')
                    || line.starts_with("def ")
                    || line.starts_with("fn ")
                    || line.starts_with("import ")
                    || line.contains("=>")
                    || line.contains("();")
            })
            .count()
            >= 1
    {
        return Err(MemoryRejection::Code);
    }
    if TRANSIENT.iter().any(|marker| {
        lower.match_indices(marker).any(|(at, _)| {
            let before = lower[..at].chars().next_back();
            let after = lower[at + marker.len()..].chars().next();
            !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
        })
    }) {
        return Err(MemoryRejection::Transient);
    }
    let content_words: Vec<&String> = all_words
        .iter()
        .filter(|w| !STOP.contains(&w.as_str()) && !VAGUE.contains(&w.as_str()))
        .collect();
    let vague = all_words
        .iter()
        .filter(|w| VAGUE.contains(&w.as_str()))
        .count();
    if vague > 0 && content_words.len() < 4 {
        return Err(MemoryRejection::Vague);
    }
    if let Some(same) = existing
        .into_iter()
        .find(|old| jaccard(old, content) >= DUPLICATE_JACCARD)
    {
        return Err(MemoryRejection::Duplicate(same.to_string()));
    }
    Ok(())
}

/// The system prompt's memory section (empty when there is nothing to remember).
pub fn prompt_section(memories: &[asterism_store::MemoryRow]) -> String {
    if memories.is_empty() {
        return String::new();
    }
    let mut section = String::from(
        "\n\nWhat you remember from earlier sessions (trust it unless the user corrects it):",
    );
    for memory in memories.iter().rev() {
        section.push_str(&format!("\n- [{}] {}", memory.kind, memory.content));
    }
    section
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_gate_keeps_specific_lasting_facts() {
        let good =
            "The user's thesis is on TRGB distances to SN Ia host galaxies with JWST NIRCam.";
        assert_eq!(check_memory(good, []), Ok(()));
        assert_eq!(
            check_memory("likes TRGB", []),
            Err(MemoryRejection::TooShort)
        );
        assert_eq!(
            check_memory("Some stuff about things maybe", []),
            Err(MemoryRejection::Vague)
        );
        assert_eq!(
            check_memory("Today the user is reading the Freedman 2024 paper.", []),
            Err(MemoryRejection::Transient)
        );
        // "today" inside a word is not a time.
        assert_eq!(
            check_memory("Prefers Todayama's catalogue of Cepheids in M31.", []),
            Ok(())
        );
        assert_eq!(
            check_memory("Use this:\nimport numpy as np\nx = np.zeros(3);", []),
            Err(MemoryRejection::Code)
        );
        let again = "The user's thesis is on TRGB distances to SN Ia host galaxies with JWST.";
        assert!(matches!(
            check_memory(again, [good]),
            Err(MemoryRejection::Duplicate(_))
        ));
        assert!(jaccard(good, again) >= 0.7);
        assert!(jaccard(good, "Prefers BibTeX keys in the ADS style with bibcodes.") < 0.2);
    }
}
