//! A page's characters, in pdfium's order, put back where the page shows them.
//!
//! pdfium gives a page's characters in content order and breaks a line wherever the
//! baseline jumps. Three things then read differently from the page:
//! - a raised marker touches its word: "SciBERT²²⁰" reads "SciBERT220", "Bouma¹" reads
//!   "Bouma1", and neither word can be found by a search;
//! - a superscript ends the line: "developed⁵ that" reads "developed5", a line break,
//!   "that";
//! - an accent drawn as a glyph of its own (LaTeX's default OT1 fonts) lands beside its
//!   letter or at the end of the line: "Ranković" reads "Rankovic … ´".
//!
//! [`place_text`] asks where a character sits only where one of these can happen (at a
//! letter beside a digit or a mark, at a line break, at an accent), so a page costs one
//! call per character plus a few dozen.

use std::collections::{HashMap, HashSet};

/// Where one character sits on the page, in points.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Glyph {
    /// Font size (0 for the spaces and line ends pdfium adds).
    pub size: f32,
    /// Baseline height from the bottom of the page.
    pub baseline: f32,
    /// Left and right edges of the glyph's box.
    pub left: f32,
    pub right: f32,
}

/// How far an accent may be from its letter in pdfium's order (it is either beside it
/// or at the end of the line).
const ACCENT_REACH: usize = 160;

/// Marks set above the line (footnote and affiliation markers: digits, `*`, `†`, …).
pub(crate) fn is_marker(c: char) -> bool {
    c.is_ascii_digit() || matches!(c, '*' | '∗' | '†' | '‡' | '§' | '¶' | '♯' | '⋆' | '★')
}

/// Whether `high` is a marker raised above `base`: smaller and lifted by more than a
/// sixth of the text's size.
fn raised(high: (char, Glyph), base: (char, Glyph)) -> bool {
    let ((c, high), (_, base)) = (high, base);
    is_marker(c)
        && high.size > 0.0
        && high.size < base.size * 0.85
        && high.baseline - base.baseline > base.size * 0.15
}

/// Whether a raised marker stands between `a` and `b`: after anything but a digit, or
/// before a letter. An exponent stays part of its number ("10⁵¹" stays "1051", as every
/// engine reads it), punctuation stays on the marker before it ("package²⁹."), and
/// raised lettering stays in its word (LaTeX's "A" is not a marker).
fn marker_between(a: (char, Glyph), b: (char, Glyph)) -> bool {
    (raised(b, a) && !a.0.is_ascii_digit()) || (raised(a, b) && b.0.is_alphabetic())
}

/// The combining mark of a spacing accent glyph.
fn combining(accent: char) -> Option<char> {
    Some(match accent {
        '\u{b4}' | '\u{2ca}' => '\u{301}',
        '`' | '\u{2cb}' => '\u{300}',
        '\u{a8}' => '\u{308}',
        '\u{2c6}' => '\u{302}',
        '\u{2dc}' => '\u{303}',
        '\u{2c7}' => '\u{30c}',
        '\u{2d8}' => '\u{306}',
        '\u{2da}' => '\u{30a}',
        '\u{b8}' => '\u{327}',
        '\u{af}' | '\u{2c9}' => '\u{304}',
        '\u{2d9}' => '\u{307}',
        '\u{2dd}' => '\u{30b}',
        '\u{2db}' => '\u{328}',
        _ => return None,
    })
}

fn is_break(c: char) -> bool {
    c == '\r' || c == '\n'
}

/// The page's text from its characters (`chars[i]` is pdfium's character `i`; `'\0'`
/// for one it cannot map) and a way to ask where character `i` sits.
pub(crate) fn place_text(chars: &[char], glyph: impl FnMut(usize) -> Option<Glyph>) -> String {
    let mut glyphs = Glyphs {
        asked: HashMap::new(),
        glyph,
    };
    // Each accent goes onto the letter under it (most pages have none, and then nothing
    // is allocated).
    let mut marks: HashMap<usize, char> = HashMap::new();
    let mut moved: HashSet<usize> = HashSet::new();
    for (index, &c) in chars.iter().enumerate() {
        let Some(mark) = combining(c) else { continue };
        if let Some(letter) = letter_under(chars, &mut glyphs, index, &marks) {
            marks.insert(letter, mark);
            moved.insert(index);
        }
    }

    let mut out = String::with_capacity(chars.len() + 16);
    // The last character written that is not a space or a line end, and whether a space
    // or a line end has been written since.
    let mut previous: Option<usize> = None;
    let mut spaced = false;
    let mut index = 0;
    while index < chars.len() {
        let c = chars[index];
        if c == '\0' || moved.contains(&index) {
            index += 1;
            continue;
        }
        if is_break(c) {
            while index < chars.len() && is_break(chars[index]) {
                index += 1;
            }
            let next = (index..chars.len())
                .find(|&i| chars[i] != '\0' && !chars[i].is_whitespace() && !moved.contains(&i));
            while out.ends_with(' ') {
                out.pop();
            }
            let inside_line = match (previous, next) {
                (Some(a), Some(b)) if !spaced => glyphs.same_line(chars, a, b),
                _ => None,
            };
            match inside_line {
                Some(apart) => {
                    if apart {
                        out.push(' ');
                    }
                    spaced = apart;
                }
                None => {
                    out.push_str("\r\n");
                    spaced = true;
                }
            }
            continue;
        }
        if c.is_whitespace() {
            out.push(c);
            spaced = true;
            index += 1;
            continue;
        }
        if let Some(a) = previous
            && !spaced
            && glyphs.marker_between(chars, a, index)
        {
            out.push(' ');
        }
        match marks.get(&index).copied() {
            // LaTeX's \'{\i}: the dotless i takes the accent.
            Some(mark) if c == 'ı' => {
                out.push('i');
                out.push(mark);
            }
            Some(mark) => {
                out.push(c);
                out.push(mark);
            }
            None => out.push(c),
        }
        previous = Some(index);
        spaced = false;
        index += 1;
    }
    out
}

/// Where characters sit, each asked once.
struct Glyphs<F> {
    asked: HashMap<usize, Option<Glyph>>,
    glyph: F,
}

impl<F: FnMut(usize) -> Option<Glyph>> Glyphs<F> {
    fn get(&mut self, index: usize) -> Option<Glyph> {
        if let Some(known) = self.asked.get(&index) {
            return *known;
        }
        let found = (self.glyph)(index).filter(|glyph| glyph.size > 0.0);
        self.asked.insert(index, found);
        found
    }

    /// Whether a marker stands between the touching characters `a` and `b` (asked only
    /// when one is a letter and the other could be a marker).
    fn marker_between(&mut self, chars: &[char], a: usize, b: usize) -> bool {
        let (ca, cb) = (chars[a], chars[b]);
        let candidate =
            (ca.is_alphabetic() && is_marker(cb)) || (is_marker(ca) && cb.is_alphabetic());
        if !candidate {
            return false;
        }
        match (self.get(a), self.get(b)) {
            (Some(ga), Some(gb)) => marker_between((ca, ga), (cb, gb)),
            _ => false,
        }
    }

    /// Whether the line break pdfium put between `a` and `b` is inside one line of the
    /// page (`b` on `a`'s line, to its right): `Some(true)` when they are apart by a
    /// space or a marker, `Some(false)` when they touch, `None` for a real line end.
    fn same_line(&mut self, chars: &[char], a: usize, b: usize) -> Option<bool> {
        let (ga, gb) = (self.get(a)?, self.get(b)?);
        let size = ga.size.max(gb.size);
        let on_line = (ga.baseline - gb.baseline).abs() < size * 0.5
            && gb.left > ga.left
            && gb.left - ga.right < size * 2.0;
        on_line.then(|| {
            gb.left - ga.right > ga.size.min(gb.size) * 0.2
                || marker_between((chars[a], ga), (chars[b], gb))
        })
    }
}

/// The letter an accent glyph sits on (over it, or under it for a cedilla), looked for
/// outwards from the accent in pdfium's order, on the accent's line only: pdfium keeps
/// a line's characters together, so the search stops on each side at the first letter
/// of another line.
fn letter_under<F: FnMut(usize) -> Option<Glyph>>(
    chars: &[char],
    glyphs: &mut Glyphs<F>,
    accent: usize,
    marks: &HashMap<usize, char>,
) -> Option<usize> {
    let mark = glyphs.get(accent)?;
    let centre = (mark.left + mark.right) / 2.0;
    let slack = mark.size * 0.1;
    // Whether the search may still go on before and after the accent.
    let mut open = [true, true];
    for distance in 1..=ACCENT_REACH {
        let around = [accent.checked_sub(distance), accent.checked_add(distance)];
        for (side, index) in around.into_iter().enumerate() {
            let Some(index) = index.filter(|_| open[side]) else {
                continue;
            };
            let Some(&c) = chars.get(index) else {
                open[side] = false;
                continue;
            };
            if !c.is_alphabetic() || marks.contains_key(&index) {
                continue;
            }
            let Some(letter) = glyphs.get(index) else {
                continue;
            };
            // Lines are at least 1.2 sizes apart; an accent's own baseline is its
            // letter's, or raised a little over a capital.
            if (letter.baseline - mark.baseline).abs() > letter.size.max(mark.size) * 0.8 {
                open[side] = false;
            } else if letter.left - slack <= centre && centre <= letter.right + slack {
                return Some(index);
            }
        }
        if open == [false, false] {
            break;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A page built from runs of text: each run's characters side by side from `left`,
    /// half the size wide each.
    #[derive(Default)]
    struct Page {
        chars: Vec<char>,
        glyphs: Vec<Option<Glyph>>,
    }

    impl Page {
        fn run(mut self, text: &str, size: f32, baseline: f32, left: f32) -> Self {
            let width = size * 0.5;
            for (i, c) in text.chars().enumerate() {
                let left = left + i as f32 * width;
                self.chars.push(c);
                self.glyphs.push((!c.is_whitespace()).then_some(Glyph {
                    size,
                    baseline,
                    left,
                    right: left + width * 0.9,
                }));
            }
            self
        }

        /// A spacing accent glyph of size 10 on the baseline 500, from `left` to `right`.
        fn accent(mut self, c: char, left: f32, right: f32) -> Self {
            self.chars.push(c);
            self.glyphs.push(Some(Glyph {
                size: 10.0,
                baseline: 500.0,
                left,
                right,
            }));
            self
        }

        /// A line end pdfium added.
        fn br(mut self) -> Self {
            self.chars.extend(['\r', '\n']);
            self.glyphs.extend([None, None]);
            self
        }

        fn text(&self) -> String {
            let mut asked = 0;
            let text = place_text(&self.chars, |i| {
                asked += 1;
                self.glyphs[i]
            });
            assert!(
                asked <= self.chars.len(),
                "each character is asked at most once"
            );
            text
        }
    }

    #[test]
    fn raised_markers_come_apart_from_words_but_not_from_numbers_or_lettering() {
        let bouma = Page::default()
            .run("Bouma", 10.0, 700.0, 0.0)
            .run("1,2", 7.0, 704.0, 25.0)
            .run(", Eric", 10.0, 700.0, 35.0);
        assert_eq!(bouma.text(), "Bouma 1,2, Eric");
        let department =
            Page::default()
                .run("3", 7.0, 604.0, 0.0)
                .run("Department", 10.0, 600.0, 3.5);
        assert_eq!(department.text(), "3 Department");
        let dagger = Page::default()
            .run("Smith", 10.0, 700.0, 0.0)
            .run("†", 7.0, 704.0, 25.0);
        assert_eq!(dagger.text(), "Smith †");
        // An exponent stays part of its number, LaTeX's raised A part of its word.
        let power = Page::default()
            .run("10", 10.0, 700.0, 0.0)
            .run("51", 7.0, 704.0, 10.0);
        assert_eq!(power.text(), "1051");
        let latex = Page::default()
            .run("L", 10.0, 700.0, 0.0)
            .run("A", 7.0, 702.0, 5.0)
            .run("TEX", 10.0, 700.0, 8.5);
        assert_eq!(latex.text(), "LATEX");
        // Small capitals share the baseline, a subscript is lowered: one word each.
        let caps = Page::default()
            .run("K", 10.0, 700.0, 0.0)
            .run("EPLER", 8.0, 700.0, 5.0);
        assert_eq!(caps.text(), "KEPLER");
        let hubble = Page::default()
            .run("H", 10.0, 700.0, 0.0)
            .run("0", 7.0, 698.0, 5.0);
        assert_eq!(hubble.text(), "H0");
    }

    #[test]
    fn a_citation_number_ending_pdfiums_line_stays_on_the_line_and_apart() {
        // "developed⁵ that": pdfium breaks the line after the raised 5.
        let page = Page::default()
            .run("was developed", 10.0, 500.0, 0.0)
            .run("5", 7.0, 504.0, 65.0)
            .br()
            .run("that would", 10.0, 500.0, 70.0)
            .br()
            .run("next line", 10.0, 488.0, 0.0);
        assert_eq!(page.text(), "was developed 5 that would\r\nnext line");
        // "package²⁹." : the full stop after the marker touches it; "tn.² Further": the
        // marker after a full stop does not.
        let page = Page::default()
            .run("package", 10.0, 500.0, 0.0)
            .run("29", 7.0, 504.0, 35.0)
            .br()
            .run(".", 10.0, 500.0, 42.0)
            .br()
            .run("We", 10.0, 488.0, 0.0);
        assert_eq!(page.text(), "package 29.\r\nWe");
        let page = Page::default()
            .run("tn.", 10.0, 500.0, 0.0)
            .br()
            .run("2", 7.0, 504.0, 15.0)
            .run(" Further", 10.0, 500.0, 18.5);
        assert_eq!(page.text(), "tn. 2 Further");
        // A line that starts further left, or on another baseline, is a new line.
        let page = Page::default()
            .run("end of a column", 10.0, 100.0, 0.0)
            .br()
            .run("top of the next", 10.0, 700.0, 300.0);
        assert_eq!(page.text(), "end of a column\r\ntop of the next");
    }

    #[test]
    fn a_floating_accent_goes_onto_its_letter() {
        // "Ranković and": pdfium puts the acute at the end of the line.
        let page = Page::default()
            .run("Rankovic and", 10.0, 500.0, 0.0)
            .run(" ", 10.0, 500.0, 60.0)
            .accent('\u{b4}', 35.5, 38.5)
            .br()
            .run("Schwaller", 10.0, 488.0, 0.0);
        assert_eq!(page.text(), "Rankovic\u{301} and\r\nSchwaller");
        // OT1's dieresis before its letter, and the dotless i under an acute.
        let page = Page::default()
            .run("Str", 10.0, 500.0, 0.0)
            .accent('\u{a8}', 15.5, 18.5)
            .run("omgren Mar\u{131}n", 10.0, 500.0, 15.0)
            .accent('\u{b4}', 66.0, 69.0);
        assert_eq!(page.text(), "Stro\u{308}mgren Mari\u{301}n");
        // An accent over no letter (a prime after a number) stays where it is.
        let page = Page::default()
            .run("12", 10.0, 500.0, 0.0)
            .accent('\u{b4}', 10.0, 12.0);
        assert_eq!(page.text(), "12\u{b4}");
        // Looking for its letter does not go past its line.
        let page = Page::default()
            .run("a line above", 10.0, 512.0, 0.0)
            .br()
            .run("x 12", 10.0, 500.0, 0.0)
            .accent('\u{b4}', 20.0, 22.0)
            .br()
            .run("a line below", 10.0, 488.0, 0.0);
        let mut asked = Vec::new();
        let text = place_text(&page.chars, |i| {
            asked.push(i);
            page.glyphs[i]
        });
        assert_eq!(text, "a line above\r\nx 12\u{b4}\r\na line below");
        let above = 0..11;
        assert!(
            asked.iter().filter(|i| above.contains(*i)).count() <= 1,
            "asked about the line above: {asked:?}"
        );
    }
}
