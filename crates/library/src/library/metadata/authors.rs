//! Author lists as journals print them under the title: "L. G. BOUMA 1 AND J. L.
//! CURTIS 2, 3", "Daniel Foreman-Mackey 1,2, Eric Agol 2 , …, and Sivaram Ambikasaran
//! 5", one name per block with its affiliations below (arXiv preprint style). Names
//! become "Family, Given"; the raised numbers after a name are its affiliation markers.

use std::sync::LazyLock;

use regex::Regex;

/// Lower-case words that start a family name ("van Eldik", "de Bony de Lavergne").
const PARTICLES: &[&str] = &[
    "van", "von", "de", "der", "den", "di", "da", "del", "della", "du", "dos", "das", "le", "la",
    "ten", "ter", "bin", "al",
];
/// The same particles written with a capital, as many print them ("Gabriella De
/// Lucia", "Olivier Le Fèvre"): a family name's start only when a word follows.
const CAPITAL_PARTICLES: &[&str] = &[
    "Van", "Von", "De", "Der", "Di", "Da", "Del", "Della", "Du", "Dos", "Das", "Le", "La", "Ten",
    "Ter",
];
const SUFFIXES: &[&str] = &["Jr.", "Jr", "Sr.", "II", "III", "IV"];

/// Words that make a name a group's ("Planck Collaboration", "the DESI Collaboration",
/// "LSST Dark Energy Science Consortium"): kept whole, never turned into "Family, Given".
const GROUP_WORDS: &[&str] = &["Collaboration", "Consortium", "Collaborations", "Team"];

/// Whether `name` is a collaboration's or a team's, not a person's.
pub fn is_group(name: &str) -> bool {
    name.split_whitespace()
        .any(|word| GROUP_WORDS.contains(&word.trim_matches(|c: char| !c.is_alphabetic())))
}

/// A group's name as printed, without a leading "the" ("the DES Collaboration").
fn group_name(name: &str) -> String {
    let name = name.trim();
    name.strip_prefix("the ")
        .or_else(|| name.strip_prefix("The "))
        .unwrap_or(name)
        .trim()
        .to_string()
}

/// Footnote and affiliation marks printed beside names.
const MARKS: &[char] = &[
    '*', '⋆', '∗', '†', '‡', '§', '¶', '♯', '♮', '⊥', '⋄', '⋆', '★', '☆', '✉', '\u{2}',
];

static AND: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)(?:^|\s)(?:and|&)\s").unwrap_or_else(|_| unreachable!()));
static INITIALS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\p{Lu}\p{Ll}?\.(?:-?\p{Lu}\.)*$").unwrap_or_else(|_| unreachable!())
});

/// One printed author: the name as printed (marks removed) and its markers.
#[derive(Debug, Clone, PartialEq)]
pub struct PrintedAuthor {
    pub name: String,
    pub markers: Vec<u32>,
}

/// A word in capitals (small caps in the PDF) written the usual way: `BOUMA` → `Bouma`,
/// `FOREMAN-MACKEY` → `Foreman-Mackey`; initials and mixed-case words stay.
fn usual_case(word: &str) -> String {
    let letters = word.chars().filter(|c| c.is_alphabetic()).count();
    let all_caps = word
        .chars()
        .filter(|c| c.is_alphabetic())
        .all(char::is_uppercase);
    if !all_caps || letters < 2 || word.contains('.') {
        return word.to_string();
    }
    word.split('-')
        .map(|part| {
            let mut chars = part.chars();
            match chars.next() {
                Some(first) => first.to_string() + &chars.as_str().to_lowercase(),
                None => String::new(),
            }
        })
        .collect::<Vec<_>>()
        .join("-")
}

/// Whether a word can be part of a person's name.
fn name_word(word: &str) -> bool {
    if INITIALS.is_match(word) || PARTICLES.contains(&word) || SUFFIXES.contains(&word) {
        return true;
    }
    let mut chars = word.chars();
    chars.next().is_some_and(char::is_uppercase)
        && chars.all(|c| c.is_alphabetic() || matches!(c, '-' | '\'' | '’' | '.'))
}

/// Words that are never part of a name but often of an affiliation or a heading.
const NOT_NAMES: &[&str] = &[
    "University",
    "Department",
    "Institute",
    "Observatory",
    "Laboratory",
    "Center",
    "Centre",
    "School",
    "College",
    "Faculty",
    "Inc.",
    "Abstract",
    "ABSTRACT",
    "Introduction",
    "Draft",
    "Preprint",
    "Version",
    "Received",
    "Accepted",
    "Affiliations",
    "The",
    "Of",
    "For",
];

/// Whether `name` (marks removed) reads like one person's name.
pub fn looks_like_name(name: &str) -> bool {
    let words: Vec<&str> = name.split_whitespace().collect();
    (2..=6).contains(&words.len())
        && words.iter().all(|word| name_word(word))
        && !words.iter().any(|word| NOT_NAMES.contains(word))
        && words
            .iter()
            .any(|word| word.chars().filter(|c| c.is_alphabetic()).count() >= 2)
}

/// "Given Family" (or "Family, Given") as "Family, Given", capitals written the usual
/// way: `L. G. BOUMA` → `Bouma, L. G.`; `Christopher van Eldik` → `van Eldik, Christopher`.
pub fn family_and_given(name: &str) -> String {
    if is_group(name) {
        return group_name(name);
    }
    if let Some((family, given)) = name.split_once(',') {
        return format!("{}, {}", family.trim(), given.trim());
    }
    let mut words: Vec<String> = name.split_whitespace().map(usual_case).collect();
    let suffix = match words.last() {
        Some(last) if words.len() > 2 && SUFFIXES.contains(&last.as_str()) => words.pop(),
        _ => None,
    };
    let start = words
        .iter()
        .enumerate()
        .skip(1)
        .find(|(at, word)| {
            (PARTICLES.contains(&word.as_str()) || CAPITAL_PARTICLES.contains(&word.as_str()))
                && at + 1 < words.len()
        })
        .map_or(words.len().saturating_sub(1), |(at, _)| at);
    let family = words[start..].join(" ");
    let given = words[..start].join(" ");
    match (given.is_empty(), suffix) {
        (true, _) => family,
        (false, Some(suffix)) => format!("{family}, {suffix}, {given}"),
        (false, None) => format!("{family}, {given}"),
    }
}

/// Splits a piece of an author list into its name and the numbers printed after it.
fn name_and_markers(piece: &str) -> (String, Vec<u32>) {
    let mut markers = Vec::new();
    let mut words = Vec::new();
    for word in piece.split_whitespace() {
        let bare: String = word.chars().filter(|c| !MARKS.contains(c)).collect();
        let digits: String = bare.chars().filter(char::is_ascii_digit).collect();
        if !digits.is_empty() && bare.chars().all(|c| c.is_ascii_digit() || c == ',') {
            markers.extend(bare.split(',').filter_map(|n| n.parse::<u32>().ok()));
            continue;
        }
        // A marker stuck to the name (pdf-extract): "Foreman-Mackey1,2".
        let name: String = bare
            .trim_end_matches(|c: char| c.is_ascii_digit() || c == ',')
            .to_string();
        let stuck = &bare[name.len()..];
        markers.extend(stuck.split(',').filter_map(|n| n.parse::<u32>().ok()));
        if !name.is_empty() {
            words.push(name);
        }
    }
    (words.join(" "), markers)
}

/// The authors in a block of lines printed under the title (joined with spaces), or
/// `None` when most of it does not read as names.
pub fn parse_author_block(text: &str) -> Option<Vec<PrintedAuthor>> {
    let mut authors: Vec<PrintedAuthor> = Vec::new();
    let mut rejected = 0;
    // "Planck Collaboration: N. Aghanim, …": the group first, then its people.
    let text = match text.split_once(':') {
        Some((group, people)) if is_group(group) => {
            authors.push(PrintedAuthor {
                name: group_name(group),
                markers: Vec::new(),
            });
            people
        }
        _ => text,
    };
    for piece in text.split([',', ';']) {
        for part in AND.split(piece) {
            let (name, markers) = name_and_markers(part);
            if is_group(&name) {
                authors.push(PrintedAuthor {
                    name: group_name(&name),
                    markers,
                });
                continue;
            }
            if name.is_empty() {
                // "1,2": the rest of the previous name's markers.
                if let Some(last) = authors.last_mut() {
                    last.markers.extend(markers);
                }
                continue;
            }
            if looks_like_name(&name) {
                authors.push(PrintedAuthor { name, markers });
            } else {
                rejected += 1;
            }
        }
    }
    (!authors.is_empty() && rejected * 3 <= authors.len()).then_some(authors)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(text: &str) -> Vec<String> {
        parse_author_block(text)
            .unwrap_or_default()
            .into_iter()
            .map(|author| family_and_given(&author.name))
            .collect()
    }

    #[test]
    fn printed_lists_become_family_given() {
        assert_eq!(
            names("L. G. BOUMA 1 AND J. L. CURTIS 2, 3"),
            vec!["Bouma, L. G.", "Curtis, J. L."]
        );
        assert_eq!(
            names("Daniel Foreman-Mackey1,2, Eric Agol2, Ruth Angus3,4, and Sivaram Ambikasaran5"),
            vec![
                "Foreman-Mackey, Daniel",
                "Agol, Eric",
                "Angus, Ruth",
                "Ambikasaran, Sivaram"
            ]
        );
        assert_eq!(
            names("Christopher van Eldik 24, Thomas Vuillaume 17, and Roberta Zanin 23"),
            vec![
                "van Eldik, Christopher",
                "Vuillaume, Thomas",
                "Zanin, Roberta"
            ]
        );
        assert_eq!(family_and_given("John Smith Jr."), "Smith, Jr., John");
    }

    #[test]
    fn markers_follow_their_name() {
        let authors = parse_author_block("Johannes King 25, 3 , Julien Lefaucheur 26, 2").unwrap();
        assert_eq!(authors[0].markers, vec![25, 3]);
        assert_eq!(authors[1].markers, vec![26, 2]);
    }

    #[test]
    fn affiliations_and_headings_are_not_names() {
        assert_eq!(
            parse_author_block("Department of Chemical Engineering"),
            None
        );
        assert_eq!(
            parse_author_block("FutureHouse Inc., San Francisco, CA"),
            None
        );
        assert_eq!(parse_author_block("ABSTRACT"), None);
        assert!(!looks_like_name("MDPI"));
    }
}
