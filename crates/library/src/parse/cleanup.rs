//! Clean-ups every text extractor needs: soft hyphens, words hyphenated across line
//! ends, decomposed accents (Unicode NFC), stray control characters.

use unicode_normalization::UnicodeNormalization;

/// Cleans extracted text: unifies line ends, expands ligatures (`ﬁ` → `fi`), removes soft hyphens (U+00AD, and pdfium's `\x02`), joins
/// `hyphen-\nated` words, composes accents (`Stro\u{308}mgren` → `Strömgren`), turns a
/// spacing diaeresis before a letter into the composed letter (`Str¨omgren`), drops
/// other control characters and trailing spaces.
pub fn clean_text(text: &str) -> String {
    // pdfium ends lines with "\r\n"; one kind of line end makes the rest simpler.
    let text: std::borrow::Cow<'_, str> = if text.contains('\r') {
        text.replace("\r\n", "\n").replace('\r', "\n").into()
    } else {
        text.into()
    };
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\u{ad}' | '\u{2}' => {}
            // Ligatures some engines keep as single characters.
            '\u{fb00}' => out.push_str("ff"),
            '\u{fb01}' => out.push_str("fi"),
            '\u{fb02}' => out.push_str("fl"),
            '\u{fb03}' => out.push_str("ffi"),
            '\u{fb04}' => out.push_str("ffl"),
            '\u{fb05}' | '\u{fb06}' => out.push_str("st"),
            // Spacing accents that PDF extractors emit before the letter they belong to.
            '\u{a8}' | '\u{b4}' | '`' | '\u{2dc}' | '\u{2c6}'
                if chars.peek().is_some_and(|next| next.is_alphabetic()) =>
            {
                let combining = match c {
                    '\u{a8}' => '\u{308}',
                    '\u{b4}' => '\u{301}',
                    '`' => '\u{300}',
                    '\u{2dc}' => '\u{303}',
                    _ => '\u{302}',
                };
                if let Some(letter) = chars.next() {
                    out.push(letter);
                    out.push(combining);
                }
            }
            '-' if chars.peek() == Some(&'\n')
                && out.chars().last().is_some_and(char::is_alphabetic) =>
            {
                // "hyphen-\nated" → "hyphenated" when a lower-case letter follows.
                let mut lookahead = chars.clone();
                lookahead.next();
                if lookahead.peek().is_some_and(|next| next.is_lowercase()) {
                    chars.next();
                } else {
                    out.push(c);
                }
            }
            '\n' | '\t' => out.push(c),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    // Most text is already composed; checking is much cheaper than recomposing.
    let composed: String = if unicode_normalization::is_nfc_quick(out.chars())
        == unicode_normalization::IsNormalized::Yes
    {
        out
    } else {
        out.nfc().collect()
    };
    composed
        .lines()
        .map(str::trim_end)
        .collect::<Vec<_>>()
        .join("\n")
        .trim()
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn soft_hyphens_line_end_hyphenation_and_accents() {
        assert_eq!(
            clean_text("photo\u{ad}metric cali\u{2}bration"),
            "photometric calibration"
        );
        assert_eq!(
            clean_text("the red giant bran-\nch tip"),
            "the red giant branch tip"
        );
        assert_eq!(
            clean_text("the Large Magellanic-\nCloud"),
            "the Large Magellanic-\nCloud"
        );
        assert_eq!(
            clean_text("Stro\u{308}mgren photometry"),
            "Strömgren photometry"
        );
        assert_eq!(
            clean_text("Str\u{a8}omgren and Sch\u{a8}onberg"),
            "Strömgren and Schönberg"
        );
        assert_eq!(clean_text("a\u{7}b  \n"), "ab");
    }

    #[test]
    fn pdfium_line_ends_and_ligatures() {
        assert_eq!(
            clean_text("the red giant bran-\r\nch tip\r\nis a standard candle"),
            "the red giant branch tip\nis a standard candle"
        );
        assert_eq!(
            clean_text("\u{fb01}rst \u{fb02}ux e\u{fb03}ciency"),
            "first flux efficiency"
        );
    }
}
