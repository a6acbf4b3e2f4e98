//! From a PDF's per-page text to Markdown an agent can read and cite: page markers
//! (`<!-- page N -->`), section headings recovered from numbering and well-known names,
//! running headers and footers dropped, lines joined into paragraphs.

use std::collections::HashMap;
use std::sync::LazyLock;

use regex::Regex;
use serde::{Deserialize, Serialize};

use super::clean_text;

/// A section heading found in a paper.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct Section {
    /// 1 for a top-level section, 2 for a subsection, …
    pub level: u8,
    /// "2.1", "IV", or none for "Abstract", "References", …
    pub number: Option<String>,
    pub title: String,
    /// The page it starts on (none for sources without pages, like arXiv HTML).
    pub page: Option<u32>,
}

/// The page marker written before each page's text.
pub fn page_marker(page: u32) -> String {
    format!("<!-- page {page} -->")
}

static PAGE_MARKER: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^<!-- page (\d+) -->$").unwrap_or_else(|_| unreachable!()));
static ARABIC: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(\d{1,2}(?:\.\d{1,2}){0,3})\.?\s+(\p{L}[^\n]{1,90})$")
        .unwrap_or_else(|_| unreachable!())
});
static ROMAN: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^((?:X{0,1})(?:IX|IV|V?I{0,3}))\.\s+(\p{Lu}[^\n]{1,90})$")
        .unwrap_or_else(|_| unreachable!())
});
static NAMED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)^(abstract|introduction|references|bibliography|acknowledge?ments?|data availability|conclusions?|summary|appendix(?:es)?|appendices|appendix [A-H](?:[.:]?\s+\p{Lu}[^\n]{0,80})?)[.:]?$",
    )
    .unwrap_or_else(|_| unreachable!())
});

/// Is the text after a section number plausibly a title (not a sentence, a table row or
/// an axis label)?
fn looks_like_title(title: &str) -> bool {
    let title = title.trim();
    let words = title.split_whitespace().count();
    let letters = title.chars().filter(|c| c.is_alphabetic()).count();
    let total = title.chars().filter(|c| !c.is_whitespace()).count();
    words <= 14
        && letters >= 3
        && letters * 10 >= total * 7
        && !title.ends_with(['.', ',', ';'])
        && !title.contains(['=', '<', '>', '±'])
        // A table of contents line ends with its page number.
        && !title
            .rsplit_once(' ')
            .is_some_and(|(_, last)| last.chars().all(|c| c.is_ascii_digit()))
        && !title.contains(". . .")
        && title.chars().filter(|c| c.is_alphabetic()).take(3).count() == 3
}

fn roman_value(numeral: &str) -> Option<u32> {
    let value = |c| match c {
        'I' => Some(1),
        'V' => Some(5),
        'X' => Some(10),
        _ => None,
    };
    let digits: Vec<u32> = numeral.chars().map(value).collect::<Option<_>>()?;
    let mut total = 0;
    for (i, digit) in digits.iter().enumerate() {
        if digits.get(i + 1).is_some_and(|next| next > digit) {
            total -= *digit as i32;
        } else {
            total += *digit as i32;
        }
    }
    u32::try_from(total).ok().filter(|total| *total > 0)
}

/// Whether `next` can follow `last` in a paper's numbering: 2.1 → 2.2, 2.1.1, 3, 3.1.
fn follows(last: &[u32], next: &[u32]) -> bool {
    if last.is_empty() {
        return next.first() == Some(&1) && next[1..].iter().all(|n| *n == 1);
    }
    (1..=last.len().min(next.len())).any(|k| {
        next[..k - 1] == last[..k - 1]
            && next[k - 1] == last[k - 1] + 1
            && next[k..].iter().all(|n| *n == 1)
    }) || (next.len() == last.len() + 1 && next[..last.len()] == *last && next[last.len()] == 1)
}

/// Recognises section headings line by line, keeping the numbering consistent so that
/// a table row or a sentence starting with a number is not taken for one.
#[derive(Default)]
struct HeadingDetector {
    arabic: Vec<u32>,
    roman: u32,
    /// After the references only named headings (appendices) count: numbered lines
    /// there are affiliations.
    after_references: bool,
    /// Before the abstract (on a first page that has one) numbered lines are the
    /// authors' affiliations and footnotes ("1 Sagan Fellow"), not sections.
    front_matter: bool,
}

/// Whether a line is the abstract's heading.
fn is_abstract(line: &str) -> bool {
    let line = line.trim();
    NAMED.is_match(line) && line.to_lowercase().starts_with("abstract")
}

impl HeadingDetector {
    fn detect(&mut self, line: &str, page: Option<u32>) -> Option<Section> {
        let line = line.trim();
        // Cheap tests first: most lines are body text that no pattern can match.
        let first = line.chars().next()?;
        if line.len() > 100
            || !(first.is_ascii_digit()
                || matches!(
                    first.to_ascii_lowercase(),
                    'a' | 'b' | 'c' | 'd' | 'i' | 'r' | 's' | 'v' | 'x'
                ))
        {
            return None;
        }
        let numbered = !self.after_references && !self.front_matter;
        if let Some(caps) = ARABIC.captures(line).filter(|_| numbered) {
            let title = caps[2].trim();
            let numbers: Option<Vec<u32>> = caps[1].split('.').map(|n| n.parse().ok()).collect();
            if let Some(numbers) = numbers
                && looks_like_title(title)
                && follows(&self.arabic, &numbers)
            {
                self.arabic = numbers.clone();
                return Some(Section {
                    level: u8::try_from(numbers.len()).unwrap_or(4),
                    number: Some(caps[1].to_string()),
                    title: title.to_string(),
                    page,
                });
            }
        }
        if let Some(caps) = ROMAN.captures(line).filter(|_| numbered) {
            let title = caps[2].trim();
            if let Some(value) = roman_value(&caps[1])
                && value == self.roman + 1
                && looks_like_title(title)
            {
                self.roman = value;
                return Some(Section {
                    level: 1,
                    number: Some(caps[1].to_string()),
                    title: title.to_string(),
                    page,
                });
            }
        }
        if NAMED.is_match(line) {
            let lower = line.to_lowercase();
            if lower.starts_with("references") || lower.starts_with("bibliography") {
                self.after_references = true;
            }
            if lower.starts_with("abstract") {
                self.front_matter = false;
            }
            return Some(Section {
                level: 1,
                number: None,
                title: line.trim_end_matches(['.', ':']).to_string(),
                page,
            });
        }
        None
    }
}

/// Normalises a line for comparison across pages: digits become `#`, case and spacing
/// are ignored.
fn running_key(line: &str) -> String {
    line.split_whitespace()
        .map(|word| {
            word.chars()
                .map(|c| if c.is_ascii_digit() { '#' } else { c })
                .flat_map(char::to_lowercase)
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// How many lines at the top and bottom of a page can be a running header or footer.
const ZONE: usize = 3;

/// Drops lines that repeat at the top or bottom of many pages (journal names, author
/// lists, "Article number, page 3 of 26") and bare page numbers there.
fn drop_running_lines(pages: &mut [Vec<String>]) {
    let zone = |lines: &Vec<String>| -> Vec<usize> {
        let filled: Vec<usize> = (0..lines.len())
            .filter(|i| !lines[*i].trim().is_empty())
            .collect();
        let mut indices: Vec<usize> = filled.iter().take(ZONE).copied().collect();
        indices.extend(filled.iter().rev().take(ZONE).copied());
        indices.sort_unstable();
        indices.dedup();
        indices
    };
    let mut counts: HashMap<String, usize> = HashMap::new();
    for lines in pages.iter() {
        let mut keys: Vec<String> = zone(lines)
            .into_iter()
            .map(|i| running_key(&lines[i]))
            .collect();
        keys.sort();
        keys.dedup();
        for key in keys {
            *counts.entry(key).or_default() += 1;
        }
    }
    let threshold = (pages.len() * 3 / 10).max(3);
    for lines in pages.iter_mut() {
        for i in zone(lines) {
            let line = lines[i].trim();
            let bare_number =
                !line.is_empty() && line.len() <= 4 && line.chars().all(|c| c.is_ascii_digit());
            // Running lines are short; a long line repeated is body text (a boilerplate
            // sentence), which stays.
            let repeated = line.chars().count() <= 100
                && counts
                    .get(&running_key(line))
                    .is_some_and(|n| *n >= threshold);
            if bare_number || repeated {
                lines[i].clear();
            }
        }
    }
}

/// A line that ends a paragraph: short, or ending a sentence before a short line.
fn ends_paragraph(line: &str, typical: usize) -> bool {
    let length = line.chars().count();
    length * 4 < typical * 3 && line.ends_with(['.', '?', '!', ':'])
}

/// Converts per-page text (from [`super::extract_pdf`]) into Markdown with page markers
/// and headings, and lists the sections found.
pub fn pages_to_markdown(pages: &[String], title: Option<&str>) -> (String, Vec<Section>) {
    let mut lines_per_page: Vec<Vec<String>> = pages
        .iter()
        .map(|page| {
            clean_text(page)
                .lines()
                .map(|line| line.split_whitespace().collect::<Vec<_>>().join(" "))
                .collect()
        })
        .collect();
    drop_running_lines(&mut lines_per_page);

    let mut markdown = String::new();
    let mut sections = Vec::new();
    let mut detector = HeadingDetector {
        front_matter: lines_per_page
            .first()
            .is_some_and(|lines| lines.iter().any(|line| is_abstract(line))),
        ..HeadingDetector::default()
    };
    if let Some(title) = title {
        markdown.push_str("# ");
        markdown.push_str(title);
        markdown.push_str("\n\n");
    }
    for (index, lines) in lines_per_page.iter().enumerate() {
        let page = u32::try_from(index + 1).unwrap_or(u32::MAX);
        if index > 0 {
            detector.front_matter = false;
        }
        markdown.push_str(&page_marker(page));
        markdown.push_str("\n\n");
        let mut lengths: Vec<usize> = lines
            .iter()
            .map(|line| line.chars().count())
            .filter(|n| *n > 0)
            .collect();
        lengths.sort_unstable();
        let typical = lengths.get(lengths.len() * 3 / 4).copied().unwrap_or(80);
        let mut paragraph = String::new();
        let flush = |paragraph: &mut String, markdown: &mut String| {
            if !paragraph.is_empty() {
                if paragraph.starts_with('#') {
                    markdown.push('\\');
                }
                markdown.push_str(paragraph);
                markdown.push_str("\n\n");
                paragraph.clear();
            }
        };
        for line in lines {
            if line.is_empty() {
                flush(&mut paragraph, &mut markdown);
                continue;
            }
            if let Some(section) = detector.detect(line, Some(page)) {
                flush(&mut paragraph, &mut markdown);
                markdown.push_str(&heading_line(&section));
                markdown.push_str("\n\n");
                sections.push(section);
                continue;
            }
            if !paragraph.is_empty() {
                paragraph.push(' ');
            }
            paragraph.push_str(line);
            if ends_paragraph(line, typical) {
                flush(&mut paragraph, &mut markdown);
            }
        }
        flush(&mut paragraph, &mut markdown);
    }
    (markdown.trim_end().to_string() + "\n", sections)
}

/// The Markdown heading for a section: `## 2 Methods`, `### 2.1 Data`.
fn heading_line(section: &Section) -> String {
    let hashes = "#".repeat(usize::from(section.level.clamp(1, 4)) + 1);
    match &section.number {
        Some(number) => format!("{hashes} {number} {}", section.title),
        None => format!("{hashes} {}", section.title),
    }
}

/// The sections of Markdown that has headings (`## …`) and possibly page markers.
pub fn sections_of(markdown: &str) -> Vec<Section> {
    let mut page = None;
    let mut sections = Vec::new();
    for line in markdown.lines() {
        if let Some(caps) = PAGE_MARKER.captures(line) {
            page = caps[1].parse().ok();
            continue;
        }
        let hashes = line.chars().take_while(|c| *c == '#').count();
        if !(2..=5).contains(&hashes) || !line[hashes..].starts_with(' ') {
            continue;
        }
        let text = line[hashes..].trim();
        let (number, title) =
            match text.split_once(' ') {
                Some((first, rest))
                    if first.trim_end_matches('.').split('.').all(|part| {
                        !part.is_empty() && part.chars().all(|c| c.is_ascii_digit())
                    }) || roman_value(first.trim_end_matches('.')).is_some() =>
                {
                    (Some(first.trim_end_matches('.').to_string()), rest.trim())
                }
                _ => (None, text),
            };
        sections.push(Section {
            level: u8::try_from(hashes - 1).unwrap_or(4),
            number,
            title: title.to_string(),
            page,
        });
    }
    sections
}

/// The pages `from..=to` of Markdown with page markers, markers included; none when
/// the Markdown has no such pages.
pub fn select_pages(markdown: &str, from: u32, to: u32) -> Option<String> {
    let mut out = String::new();
    let mut current: Option<u32> = None;
    for line in markdown.lines() {
        if let Some(caps) = PAGE_MARKER.captures(line) {
            current = caps[1].parse().ok();
        }
        if current.is_some_and(|page| (from..=to).contains(&page)) {
            out.push_str(line);
            out.push('\n');
        }
    }
    (!out.is_empty()).then_some(out)
}

/// The section whose number or title matches `wanted` (case-insensitive; "2.1",
/// "Introduction", "2 Methods"), up to the next heading of the same or a higher level.
pub fn select_section(markdown: &str, wanted: &str) -> Option<(Section, String)> {
    let wanted = wanted.trim().trim_start_matches('#').trim().to_lowercase();
    let wanted = wanted.trim_end_matches('.');
    let mut page = None;
    let mut found: Option<(Section, usize)> = None;
    let mut out = String::new();
    for line in markdown.lines() {
        if let Some(caps) = PAGE_MARKER.captures(line) {
            page = caps[1].parse().ok();
        }
        let hashes = line.chars().take_while(|c| *c == '#').count();
        let is_heading = (2..=5).contains(&hashes) && line[hashes..].starts_with(' ');
        if let Some((_, level)) = &found {
            if is_heading && hashes <= *level {
                break;
            }
            out.push_str(line);
            out.push('\n');
            continue;
        }
        if !is_heading {
            continue;
        }
        let Some(section) = sections_of(line).into_iter().next() else {
            continue;
        };
        let full = match &section.number {
            Some(number) => format!("{number} {}", section.title).to_lowercase(),
            None => section.title.to_lowercase(),
        };
        let matches = section
            .number
            .as_deref()
            .is_some_and(|number| number.to_lowercase() == wanted)
            || full == wanted
            || section.title.to_lowercase() == wanted
            || section.title.to_lowercase().starts_with(wanted) && wanted.len() >= 4;
        if matches {
            if let Some(page) = page {
                out.push_str(&page_marker(page));
                out.push('\n');
            }
            out.push_str(line);
            out.push('\n');
            found = Some((Section { page, ..section }, hashes));
        }
    }
    found.map(|(section, _)| (section, out))
}

#[cfg(test)]
mod tests;
