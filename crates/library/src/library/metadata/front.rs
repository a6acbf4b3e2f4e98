//! Page 1 read line by line: the journal header and dates, the title, the author block
//! with its affiliations, the abstract and the keywords.

use std::collections::HashMap;
use std::sync::LazyLock;

use regex::Regex;

use super::authors::{PrintedAuthor, family_and_given, parse_author_block};
use crate::library::identifiers::{find_arxiv_id, find_doi};

/// What page 1 says.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Front {
    pub title: Option<String>,
    pub authors: Vec<String>,
    pub affiliations: Vec<String>,
    pub abstract_text: Option<String>,
    pub keywords: Vec<String>,
    pub year: Option<i32>,
    pub doi: Option<String>,
    pub arxiv_id: Option<String>,
    pub journal: Option<String>,
}

fn regex(pattern: &str) -> Regex {
    Regex::new(pattern).unwrap_or_else(|_| unreachable!())
}

static MONTH_DATE: LazyLock<Regex> = LazyLock::new(|| {
    regex(
        r"(?i)\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+(?:\d{1,2},?\s+)?((?:19|20)\d{2})\b|\b\d{1,2}\s+(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+((?:19|20)\d{2})\b",
    )
});
static COPYRIGHT: LazyLock<Regex> =
    LazyLock::new(|| regex(r"(?i)(?:©|\(c\)|copyright)\s*(?:[A-Za-z .]+\s)?((?:19|20)\d{2})\b"));
/// The year on a journal's line: "(2019)", "2019 August 20", "2 March 2023".
static JOURNAL_LINE_YEAR: LazyLock<Regex> = LazyLock::new(|| {
    regex(
        r"\(((?:19|20)\d{2})\)|\b((?:19|20)\d{2})\s+(?i:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)|(?i:\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+(?:\d{1,2},?\s+)?((?:19|20)\d{2})\b)",
    )
});
/// A class file's placeholders, left until the journal sets them: "MNRAS 000, 1–14
/// (2015)", "ApJ XXX, YYY".
static PLACEHOLDER: LazyLock<Regex> = LazyLock::new(|| regex(r"\b000\b|\bXXX\b|\bYYY\b|\?\?\?"));
/// The paper's own date, printed by its class: "Draft version May 21, 2021",
/// "Preprint 3 March 2023", "Compiled on …".
static OWN_DATE: LazyLock<Regex> =
    LazyLock::new(|| regex(r"(?i)\b(?:draft version|preprint|version of|compiled on)\b"));
/// Dates of a review history, which templates fill with samples ("Received June 1,
/// 2019; Revised January 10, 2019").
static HISTORY: LazyLock<Regex> =
    LazyLock::new(|| regex(r"(?i)^\(?\s*(?:received|revised|accepted|submitted)\b"));
/// Journals named by the abbreviation and volume their papers print ("ApJ 882, 34").
static JOURNAL_ABBREVIATION: LazyLock<Regex> =
    LazyLock::new(|| regex(r"^(ApJS|ApJL|ApJ|AJ|PASP|A&A|MNRAS|PSJ)\s*,?\s*(?:\d+|000|XXX)\b"));
/// Nature's and Science's page heads: "Nature | Vol 615 | …", "Science 379, 1234".
static GENERAL_JOURNAL: LazyLock<Regex> =
    LazyLock::new(|| regex(r"^(Nature Astronomy|Nature)\s*(?:\||\d|Vol|VOL)|^(Science)\s+\d+\s*,"));
static ARXIV_STAMP: LazyLock<Regex> = LazyLock::new(|| {
    regex(
        r"arXiv:(\d{4}\.\d{4,5}|[a-z-]+/\d{7})(?:v\d+)?\s*\[[^\]]+\]\s*\d{1,2}\s+[A-Za-z]{3}\s+(\d{4})",
    )
});
static ABSTRACT: LazyLock<Regex> =
    LazyLock::new(|| regex(r"^(?:ABSTRACT|Abstract|A B S T R A C T)\b[.:]?\s*(.*)$"));
static KEYWORDS: LazyLock<Regex> =
    LazyLock::new(|| regex(r"^(?i:key\s*words|subject headings|index terms)\b\s*[.:—-]?\s*(.*)$"));
static BODY_START: LazyLock<Regex> = LazyLock::new(|| {
    regex(
        r"^(?:1\.?\s+(?:INTRODUCTION|Introduction)|Introduction$|INTRODUCTION$|Contents$|\d+\s+Introduction\s+\d+$)",
    )
});
static AFFILIATION_MARK: LazyLock<Regex> = LazyLock::new(|| regex(r"^(\d{1,3})\s*(\p{Lu}.*)$"));
/// A Unified Astronomy Thesaurus number after a keyword: "(1582)", "(XXXX)".
static UAT_NUMBER: LazyLock<Regex> = LazyLock::new(|| regex(r"\s*\((?:\d+|X+)\)"));
static EMAIL: LazyLock<Regex> = LazyLock::new(|| regex(r"\S+@\S+\.\S+"));

/// Lines that are neither title nor authors: running heads, dates, notes.
static HEADER: LazyLock<Regex> = LazyLock::new(|| {
    regex(
        r"(?i)^(?:draft version|preprint|typeset using|a preprint|astronomy\s*&\s*astrophysics|a&a\s|mnras|mon\. not|the astrophysical journal|the astronomical journal|publications of the astronomical|accepted|received|submitted|\(received|\(affiliations|corresponding author|journal|arxiv:|©|\(c\))",
    )
});

const AFFILIATION_WORDS: &[&str] = &[
    "University",
    "Universit",
    "Department",
    "Dept",
    "Institute",
    "Institut",
    "Observatory",
    "Observatoire",
    "Laboratory",
    "Laboratoire",
    "Center",
    "Centre",
    "School",
    "College",
    "Faculty",
    "Inc.",
    "Fellow",
    "Max-Planck",
    "Academy",
    "Foundation",
    "Research",
    "Sciences",
    "Avenue",
    "Street",
    "Road",
    "USA",
    "Germany",
    "France",
    "Italy",
    "Spain",
    "Japan",
    "China",
    "Chile",
    "Canada",
    "Australia",
    "Netherlands",
    "United Kingdom",
    "UK",
];

/// Journal names by the running head of their papers and manuscripts.
const JOURNALS: &[(&str, &str)] = &[
    ("Astronomy & Astrophysics", "Astronomy & Astrophysics"),
    ("Astronomy &amp; Astrophysics", "Astronomy & Astrophysics"),
    ("A&A ", "Astronomy & Astrophysics"),
    ("MNRAS", "Monthly Notices of the Royal Astronomical Society"),
    (
        "Mon. Not. R. Astron. Soc.",
        "Monthly Notices of the Royal Astronomical Society",
    ),
    (
        "The Astrophysical Journal Letters",
        "The Astrophysical Journal Letters",
    ),
    (
        "The Astrophysical Journal Supplement",
        "The Astrophysical Journal Supplement Series",
    ),
    ("The Astrophysical Journal", "The Astrophysical Journal"),
    ("The Astronomical Journal", "The Astronomical Journal"),
    (
        "Publications of the Astronomical Society of the Pacific",
        "Publications of the Astronomical Society of the Pacific",
    ),
];

/// Lower-case letters and digits, words single-spaced (for comparing titles).
pub fn normalise(text: &str) -> String {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty())
        .map(str::to_lowercase)
        .collect::<Vec<_>>()
        .join(" ")
}

/// A Title metadata value or largest text worth believing (not "Microsoft Word -
/// draft.docx", not a file name, not a running head).
pub fn plausible_title(title: &str) -> bool {
    let lower = title.to_lowercase();
    title.split_whitespace().count() >= 3
        && title.chars().count() <= 300
        && !lower.starts_with("microsoft word")
        && !lower.ends_with(".pdf")
        && !lower.ends_with(".dvi")
        && !lower.ends_with(".tex")
        && !lower.starts_with("untitled")
        && !HEADER.is_match(title.trim())
}

const SMALL_WORDS: &[&str] = &[
    "a", "an", "the", "and", "or", "of", "in", "on", "at", "to", "for", "with", "from", "by", "as",
    "via", "vs",
];

/// A title set in capitals written in title case ("FAST AND SCALABLE GAUSSIAN PROCESS
/// MODELING" → "Fast and Scalable Gaussian Process Modeling"); others stay.
pub fn title_case(title: &str) -> String {
    let title = title.split_whitespace().collect::<Vec<_>>().join(" ");
    let letters: Vec<char> = title.chars().filter(|c| c.is_alphabetic()).collect();
    if letters.is_empty() || letters.iter().any(|c| c.is_lowercase()) {
        return title;
    }
    title
        .split(' ')
        .enumerate()
        .map(|(at, word)| {
            let lower = word.to_lowercase();
            if at > 0 && SMALL_WORDS.contains(&lower.as_str()) {
                return lower;
            }
            lower
                .split('-')
                .map(|part| {
                    let mut chars = part.chars();
                    match chars.next() {
                        Some(first) => first.to_uppercase().collect::<String>() + chars.as_str(),
                        None => String::new(),
                    }
                })
                .collect::<Vec<_>>()
                .join("-")
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The year an arXiv id was submitted (`2407.01603` → 2024, `astro-ph/0601001` → 2006).
fn arxiv_year(id: &str) -> Option<i32> {
    let digits = id.rsplit('/').next()?;
    let yy: i32 = digits.get(..2)?.parse().ok()?;
    Some(if yy >= 91 { 1900 + yy } else { 2000 + yy })
}

/// Where the title's lines are: the lines from `start` to `end` read as `title`.
fn title_span(lines: &[&str], title: &str) -> Option<(usize, usize)> {
    let wanted = normalise(title);
    for start in 0..lines.len() {
        let mut read = String::new();
        for (end, line) in lines.iter().enumerate().skip(start) {
            let line = normalise(line);
            if line.is_empty() {
                break;
            }
            read = if read.is_empty() {
                line
            } else {
                format!("{read} {line}")
            };
            if read == wanted {
                return Some((start, end + 1));
            }
            if !wanted.starts_with(&read) {
                break;
            }
        }
    }
    None
}

fn is_affiliation(line: &str) -> bool {
    AFFILIATION_MARK.is_match(line)
        || EMAIL.is_match(line)
        || AFFILIATION_WORDS.iter().any(|word| line.contains(word))
}

fn is_note(line: &str) -> bool {
    HEADER.is_match(line)
        || journal_of(line).is_some()
        || line.starts_with('(')
        || line.starts_with("http")
        || (MONTH_DATE.is_match(line) && line.split_whitespace().count() <= 5)
}

/// The title when no hint names it: the first lines after the running heads, up to the
/// first line that reads as authors or as something else.
fn title_without_hint(lines: &[&str]) -> Option<(String, usize)> {
    let start = lines.iter().position(|line| !is_note(line))?;
    let capitals = |line: &str| !line.chars().any(char::is_lowercase);
    // A line ending in "of", "and", "the", "-" or ":" goes on, whatever the next looks like.
    let unfinished = |line: &str| {
        let last = line.split_whitespace().last().unwrap_or_default();
        SMALL_WORDS.contains(&last.to_lowercase().as_str()) || line.ends_with(['-', ':', '—', '–'])
    };
    let mut end = start + 1;
    // A title in capitals goes on while the lines are in capitals; another one until
    // a line reads as authors or as something else.
    while end < lines.len()
        && end - start < 3
        && !is_note(lines[end])
        && !is_affiliation(lines[end])
        && if capitals(lines[start]) {
            capitals(lines[end])
        } else {
            unfinished(lines[end - 1]) || parse_author_block(lines[end]).is_none()
        }
    {
        end += 1;
    }
    let title = title_case(&lines[start..end].join(" "));
    plausible_title(&title).then_some((title, end))
}

/// Authors and their affiliations from the lines between the title and the abstract.
fn authors_and_affiliations(lines: &[&str]) -> (Vec<String>, Vec<String>) {
    let mut printed: Vec<PrintedAuthor> = Vec::new();
    // Unnumbered affiliations printed under a group of authors belong to that group.
    let mut groups: Vec<(usize, usize, Vec<String>)> = Vec::new();
    let mut numbered: HashMap<u32, String> = HashMap::new();
    let mut pending: Vec<&str> = Vec::new();
    let mut last_number: Option<u32> = None;
    let flush = |pending: &mut Vec<&str>, printed: &mut Vec<PrintedAuthor>, groups: &mut Vec<_>| {
        if let Some(found) = parse_author_block(&pending.join(" ")) {
            let from = printed.len();
            printed.extend(found);
            groups.push((from, printed.len(), Vec::new()));
        }
        pending.clear();
    };
    for line in lines {
        if let Some(caps) = AFFILIATION_MARK.captures(line) {
            flush(&mut pending, &mut printed, &mut groups);
            let number = caps[1].parse().ok();
            if let Some(number) = number {
                numbered.insert(number, caps[2].trim().to_string());
            }
            last_number = number;
        } else if last_number.is_some() {
            // Numbered affiliations end the author block; a line without a number
            // continues the one above.
            if let Some(text) = last_number.and_then(|n| numbered.get_mut(&n))
                && !EMAIL.is_match(line)
                && !is_note(line)
            {
                text.push(' ');
                text.push_str(line);
            }
        } else if EMAIL.is_match(line) || is_note(line) {
            flush(&mut pending, &mut printed, &mut groups);
        } else if is_affiliation(line) {
            flush(&mut pending, &mut printed, &mut groups);
            if let Some((_, _, affiliations)) = groups.last_mut() {
                affiliations.push(line.trim().to_string());
            }
        } else {
            pending.push(line);
        }
    }
    flush(&mut pending, &mut printed, &mut groups);
    let mut affiliations = vec![String::new(); printed.len()];
    for (from, to, group) in &groups {
        for slot in &mut affiliations[*from..*to] {
            *slot = group.join("; ");
        }
    }
    for (author, slot) in printed.iter().zip(affiliations.iter_mut()) {
        let marked: Vec<&str> = author
            .markers
            .iter()
            .filter_map(|n| numbered.get(n).map(String::as_str))
            .collect();
        if !marked.is_empty() {
            *slot = marked.join("; ");
        }
    }
    if affiliations.iter().all(String::is_empty) {
        affiliations.clear();
    }
    let authors = printed
        .iter()
        .map(|author| family_and_given(&author.name))
        .collect();
    (authors, affiliations)
}

/// Lines joined into one paragraph: a word hyphenated at a line end is joined again
/// (`expo-` + `nentials`), pdfium's soft-hyphen marks are dropped.
fn join_lines(lines: &[&str]) -> String {
    let mut text = String::new();
    for line in lines {
        let line = line.replace('\u{2}', "");
        let line = line.trim();
        let broken = text.ends_with('-')
            && text[..text.len() - 1].ends_with(char::is_lowercase)
            && line.starts_with(char::is_lowercase);
        if broken {
            text.pop();
        } else if !text.is_empty() {
            text.push(' ');
        }
        text.push_str(line);
    }
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The abstract (from its heading to the keywords or the first section) and keywords.
fn abstract_and_keywords(lines: &[&str]) -> (Option<String>, Vec<String>) {
    let mut text = Vec::new();
    let mut keywords: Vec<&str> = Vec::new();
    let mut in_keywords = false;
    for (at, line) in lines.iter().enumerate() {
        if BODY_START.is_match(line) {
            break;
        }
        if let Some(caps) = KEYWORDS.captures(line) {
            in_keywords = true;
            keywords.push(caps.get(1).map_or("", |m| m.as_str()));
            continue;
        }
        if in_keywords {
            if keywords.len() > 2 || line.ends_with('.') && at > 0 {
                break;
            }
            keywords.push(line);
        } else {
            text.push(*line);
        }
    }
    let abstract_text = join_lines(&text);
    let keywords = join_lines(&keywords)
        .replace(" - ", ",")
        .split([',', ';', '—', '–', '·'])
        .map(|word| {
            UAT_NUMBER
                .replace_all(word, "")
                .trim()
                .trim_end_matches('.')
                .to_string()
        })
        .filter(|word| word.chars().filter(|c| c.is_alphabetic()).count() >= 3)
        .fold(Vec::<String>::new(), |mut kept, word| {
            if !kept.contains(&word) {
                kept.push(word);
            }
            kept
        });
    let abstract_text: String = abstract_text.chars().take(5_000).collect();
    (
        (abstract_text.len() >= 40).then_some(abstract_text),
        keywords,
    )
}

/// The journal a running head names: its full name, or its abbreviation with a volume.
pub fn journal_of(line: &str) -> Option<String> {
    let full = |abbreviation: &str| -> String {
        match abbreviation {
            "ApJS" => "The Astrophysical Journal Supplement Series",
            "ApJL" => "The Astrophysical Journal Letters",
            "ApJ" => "The Astrophysical Journal",
            "AJ" => "The Astronomical Journal",
            "PASP" => "Publications of the Astronomical Society of the Pacific",
            "A&A" => "Astronomy & Astrophysics",
            "MNRAS" => "Monthly Notices of the Royal Astronomical Society",
            "PSJ" => "The Planetary Science Journal",
            other => other,
        }
        .to_string()
    };
    JOURNALS
        .iter()
        .find(|(head, _)| line.starts_with(head))
        .map(|(_, name)| (*name).to_string())
        .or_else(|| {
            JOURNAL_ABBREVIATION
                .captures(line)
                .map(|caps| full(&caps[1]))
        })
        .or_else(|| {
            GENERAL_JOURNAL.captures(line).and_then(|caps| {
                caps.iter()
                    .skip(1)
                    .flatten()
                    .next()
                    .map(|name| name.as_str().to_string())
            })
        })
}

/// The first year `pattern` finds on one of `lines`.
fn printed_year<'a>(pattern: &Regex, mut lines: impl Iterator<Item = &'a &'a str>) -> Option<i32> {
    lines.find_map(|line| {
        pattern.captures(line).and_then(|caps| {
            caps.iter()
                .skip(1)
                .flatten()
                .find_map(|year| year.as_str().parse::<i32>().ok())
        })
    })
}

/// The journal named in the running head, and the paper's year: from the journal's
/// line or its copyright (unless they hold a class's placeholders), the arXiv id or
/// stamp, or the date the paper prints as its own. Dates of a review history are
/// samples in many templates and give no year; no year is better than a wrong one.
fn journal_and_year(
    head: &[&str],
    arxiv_id: Option<&str>,
    stamp_year: Option<i32>,
) -> (Option<String>, Option<i32>) {
    let journal_line = head.iter().find(|line| journal_of(line).is_some());
    let journal = journal_line.and_then(|line| journal_of(line));
    let placeholder = journal_line.is_some_and(|line| PLACEHOLDER.is_match(line));
    let published = || {
        (!placeholder)
            .then(|| {
                printed_year(&JOURNAL_LINE_YEAR, journal_line.into_iter())
                    .or_else(|| printed_year(&COPYRIGHT, head.iter()))
            })
            .flatten()
    };
    let dated = |line: &&&str| !HISTORY.is_match(line);
    let year = published()
        .or_else(|| arxiv_id.and_then(arxiv_year))
        .or(stamp_year)
        .or_else(|| {
            let own = head.iter().filter(|line| OWN_DATE.is_match(line));
            printed_year(&MONTH_DATE, own)
        })
        .or_else(|| printed_year(&MONTH_DATE, head.iter().filter(dated)));
    (journal, year)
}

/// Reads page 1; `hint` is the title when metadata or font sizes named it.
pub fn read_front(page: &str, hint: Option<&str>) -> Front {
    let lines: Vec<&str> = page
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    let abstract_at = lines.iter().position(|line| ABSTRACT.is_match(line));
    let body_at = lines.iter().position(|line| BODY_START.is_match(line));
    let front_end = abstract_at.or(body_at).unwrap_or(lines.len().min(40));
    let front = &lines[..front_end];
    let (title, title_end) = match hint.map(|hint| (hint, title_span(front, hint))) {
        Some((hint, Some((_, end)))) => (Some(title_case(hint)), end),
        Some((hint, None)) => (Some(title_case(hint)), 0),
        None => match title_without_hint(front) {
            Some((title, end)) => (Some(title), end),
            None => (None, 0),
        },
    };
    let (authors, affiliations) = authors_and_affiliations(&front[title_end..]);
    let stamp = ARXIV_STAMP.captures(page);
    let arxiv_id = stamp
        .as_ref()
        .map(|caps| caps[1].to_string())
        .or_else(|| find_arxiv_id(&front.join("\n")));
    let stamp_year = stamp.and_then(|caps| caps[2].parse().ok());
    let (journal, year) = journal_and_year(front, arxiv_id.as_deref(), stamp_year);
    let (abstract_text, keywords) = match abstract_at {
        Some(at) => {
            let mut rest: Vec<&str> = lines[at + 1..].to_vec();
            if let Some(caps) = ABSTRACT.captures(lines[at])
                && let Some(inline) = caps.get(1).filter(|m| !m.as_str().is_empty())
            {
                rest.insert(0, inline.as_str());
            }
            abstract_and_keywords(&rest)
        }
        None => (None, Vec::new()),
    };
    // A DOI on page 1 is the paper's own, unless it names software or data (Zenodo).
    let doi = find_doi(&lines.join("\n")).filter(|doi| !doi.starts_with("10.5281/"));
    Front {
        title,
        authors,
        affiliations,
        abstract_text,
        keywords,
        year,
        doi,
        arxiv_id,
        journal,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capital_titles_get_title_case() {
        assert_eq!(
            title_case(
                "FAST AND SCALABLE GAUSSIAN PROCESS MODELING WITH\nAPPLICATIONS TO ASTRONOMICAL TIME SERIES"
            ),
            "Fast and Scalable Gaussian Process Modeling with Applications to Astronomical Time Series"
        );
        assert_eq!(
            title_case("Gammapy: A Python package"),
            "Gammapy: A Python package"
        );
    }

    #[test]
    fn years_from_dates_and_ids() {
        assert_eq!(arxiv_year("2407.01603"), Some(2024));
        assert_eq!(arxiv_year("astro-ph/9601001"), Some(1996));
    }

    #[test]
    fn a_page_without_hint_still_gives_title_authors_and_abstract() {
        let page = "Draft version June 3, 2019\nThe Dust of M 31\nJane Smith 1 and Rui Costa 2\n1 Department of Astronomy, Somewhere University\n2 Observatory of Elsewhere\nABSTRACT\nWe measure the dust of M 31 with a new method and find that it is dusty indeed.\nKeywords: galaxies: dust — galaxies: individual (M 31)\n1. INTRODUCTION\nText.";
        let front = read_front(page, None);
        assert_eq!(front.title.as_deref(), Some("The Dust of M 31"));
        assert_eq!(front.authors, vec!["Smith, Jane", "Costa, Rui"]);
        assert_eq!(
            front.affiliations,
            vec![
                "Department of Astronomy, Somewhere University",
                "Observatory of Elsewhere"
            ]
        );
        assert_eq!(front.year, Some(2019));
        assert!(front.abstract_text.unwrap().starts_with("We measure"));
        assert_eq!(
            front.keywords,
            vec!["galaxies: dust", "galaxies: individual (M 31)"]
        );
    }
}
