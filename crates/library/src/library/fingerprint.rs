//! A fingerprint of a paper's text that survives re-saving the PDF: a 64-bit SimHash of
//! its word 4-grams (lower-case letters and digits). Two extractions of the same text
//! differ in a few bits at most; two different papers, even with the same title and
//! authors, differ in about half of them.

/// Bits two fingerprints may differ in and still be the same text.
pub const SAME_TEXT_BITS: u32 = 3;

/// Words a text needs before its fingerprint is trusted (a near-empty page says little).
const MIN_WORDS: usize = 200;

/// FNV-1a, 64-bit: stable across builds and platforms, unlike the std hasher.
fn fnv1a(words: &[&str]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for word in words {
        for byte in word.bytes().chain(std::iter::once(b' ')) {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
    }
    hash
}

/// The fingerprint of the pages' text; `None` when there is too little text.
pub fn text_fingerprint(pages: &[String]) -> Option<u64> {
    let text = pages.join(" ").to_lowercase();
    let words: Vec<&str> = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty())
        .collect();
    if words.len() < MIN_WORDS {
        return None;
    }
    let mut weights = [0i64; 64];
    for shingle in words.windows(4) {
        let hash = fnv1a(shingle);
        for (bit, weight) in weights.iter_mut().enumerate() {
            *weight += if hash >> bit & 1 == 1 { 1 } else { -1 };
        }
    }
    Some(
        weights
            .iter()
            .enumerate()
            .filter(|(_, weight)| **weight > 0)
            .fold(0u64, |fingerprint, (bit, _)| fingerprint | 1 << bit),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(seed: u64, count: usize) -> String {
        let mut state = seed;
        (0..count)
            .map(|_| {
                state = state
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                format!("w{}", state >> 54)
            })
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn the_same_text_matches_and_another_does_not() {
        let text = words(1, 3000);
        let a = text_fingerprint(std::slice::from_ref(&text)).unwrap();
        // The same text with a changed header line and other spacing.
        let b = text_fingerprint(&[format!("Preprint  {}", text.replace(' ', "  "))]).unwrap();
        assert!(
            (a ^ b).count_ones() <= SAME_TEXT_BITS,
            "{}",
            (a ^ b).count_ones()
        );
        let other = text_fingerprint(&[words(2, 3000)]).unwrap();
        assert!(
            (a ^ other).count_ones() > 16,
            "{}",
            (a ^ other).count_ones()
        );
        assert_eq!(text_fingerprint(&["too short".into()]), None);
    }
}
