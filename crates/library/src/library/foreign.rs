//! Libraries kept elsewhere, read as entries: a BibTeX/BibLaTeX file (as JabRef, BibDesk,
//! Zotero/Better BibTeX and Mendeley write it) or a CSL-JSON file (Zotero's and Better
//! BibTeX's export). Each entry becomes a record, its citation key, the files it names
//! (resolved against the `.bib` file's folder, or JabRef's `fileDirectory`), the files
//! it names that do not exist (reported, never silently dropped), its collections and
//! tags, and (for BibTeX) the entry itself, kept to be exported again as it came.

pub(crate) mod groups;

use std::path::{Path, PathBuf};

use asterism_protocol::PaperRecord;
use base64::Engine as _;
use biblatex::{Bibliography, ChunksExt, Entry};

/// One entry of a foreign library.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ForeignEntry {
    /// The citation key (CSL-JSON's `id`).
    pub key: String,
    pub record: PaperRecord,
    /// Attached files that exist, PDFs first.
    pub files: Vec<PathBuf>,
    /// Attached files that were looked for and not found.
    pub missing: Vec<PathBuf>,
    /// Collections (JabRef groups, BibDesk static groups, Mendeley groups; nested as
    /// `Parent/Child`).
    pub collections: Vec<String>,
    pub tags: Vec<String>,
    /// The BibTeX entry as it was read (none for CSL-JSON).
    pub entry: Option<String>,
    /// Where it is in a library without citation keys (`zotero:<library>/<item key>`):
    /// importing that library again finds the same paper by it.
    pub origin: Option<String>,
    /// Its notes and PDF annotations there.
    pub notes: Vec<ForeignNote>,
    /// A file with no record of its own (a PDF dropped into Zotero, a top-level
    /// attachment): the PDF describes itself, as a loose PDF does; `record` holds only
    /// the name it was listed under.
    pub file_only: bool,
}

/// A note or a PDF annotation brought from another library.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ForeignNote {
    /// Stable across imports (`zotero:<library>/<key>`), so it is added once.
    pub id: String,
    /// 1-based page of a PDF annotation.
    pub page: Option<i64>,
    /// The highlighted text.
    pub quote: Option<String>,
    /// The note itself, Markdown.
    pub comment: String,
    pub color: Option<String>,
}

impl ForeignEntry {
    /// Nothing to keep: no title, authors, identifiers, files (found or not) or notes (an
    /// item created in Zotero and never filled in).
    pub fn is_empty(&self) -> bool {
        let record = &self.record;
        record.title.trim().is_empty()
            && record.authors.is_empty()
            && record.bibcode.is_none()
            && record.arxiv_id.is_none()
            && record.doi.is_none()
            && self.files.is_empty()
            && self.missing.is_empty()
            && self.notes.is_empty()
    }

    /// How the entry is named in the import's report: its key, else its origin.
    pub fn label(&self) -> &str {
        if self.key.is_empty() {
            self.origin.as_deref().unwrap_or_default()
        } else {
            &self.key
        }
    }
}

/// Why a library file could not be read.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ForeignError {
    #[error("cannot read it: {0}")]
    Read(String),
    #[error("not valid BibTeX: {0}")]
    Bib(String),
    #[error("not CSL-JSON: {0}")]
    Csl(String),
}

/// What kind of library a file is, by its name and (for `.json`) its content.
pub fn is_foreign_library(path: &Path) -> bool {
    matches!(
        path.extension()
            .and_then(|ext| ext.to_str())
            .map(str::to_ascii_lowercase)
            .as_deref(),
        Some("bib" | "bibtex" | "json")
    )
}

/// Reads a `.bib` or CSL-JSON file into its entries.
pub fn read_library(path: &Path) -> Result<Vec<ForeignEntry>, ForeignError> {
    let text =
        std::fs::read_to_string(path).map_err(|error| ForeignError::Read(error.to_string()))?;
    let base = path.parent().unwrap_or(Path::new("."));
    let is_json = path
        .extension()
        .is_some_and(|ext| ext.eq_ignore_ascii_case("json"));
    if is_json {
        read_csl_json(&text, base)
    } else {
        read_bib(&text, base)
    }
}

/// The entries of a BibTeX/BibLaTeX text; relative file paths are resolved against
/// JabRef's `fileDirectory` when the file names one, else `base`.
pub fn read_bib(text: &str, base: &Path) -> Result<Vec<ForeignEntry>, ForeignError> {
    let bibliography =
        Bibliography::parse(text).map_err(|error| ForeignError::Bib(error.to_string()))?;
    let base = jabref_file_directory(text)
        .map(|dir| base.join(dir))
        .unwrap_or_else(|| base.to_path_buf());
    let groups = groups::BibGroups::read(text);
    Ok(bibliography
        .iter()
        .map(|entry| {
            let mut read = bib_entry(entry, &base);
            read.collections = groups.collections_of(&read.key, &read.collections);
            read
        })
        .collect())
}

fn field(entry: &Entry, name: &str) -> Option<String> {
    entry
        .get(name)
        .map(|chunks| chunks.format_verbatim().trim().to_string())
        .filter(|value| !value.is_empty())
}

fn bib_entry(entry: &Entry, base: &Path) -> ForeignEntry {
    let authors = entry
        .author()
        .map(|people| {
            people
                .iter()
                .map(|person| {
                    let family = [person.prefix.as_str(), person.name.as_str()]
                        .iter()
                        .filter(|part| !part.is_empty())
                        .copied()
                        .collect::<Vec<_>>()
                        .join(" ");
                    match person.given_name.trim() {
                        "" => family,
                        given => format!("{family}, {given}"),
                    }
                })
                .collect()
        })
        .unwrap_or_default();
    let year = field(entry, "year")
        .or_else(|| field(entry, "date"))
        .and_then(|date| date.get(..4).and_then(|year| year.parse().ok()));
    let eprint_is_arxiv = field(entry, "archiveprefix")
        .or_else(|| field(entry, "eprinttype"))
        .is_some_and(|kind| kind.eq_ignore_ascii_case("arxiv"));
    let arxiv_id = field(entry, "eprint")
        .filter(|_| eprint_is_arxiv)
        .or_else(|| urls(entry).iter().find_map(|url| arxiv_of_url(url)))
        .or_else(|| field(entry, "extra").and_then(|extra| arxiv_in_text(&extra)));
    let bibcode = field(entry, "adsurl")
        .or_else(|| urls(entry).into_iter().find(|url| url.contains("adsabs")))
        .and_then(|url| bibcode_of_url(&url));
    let record = PaperRecord {
        title: field(entry, "title").unwrap_or_default(),
        authors,
        year,
        journal: field(entry, "journal")
            .or_else(|| field(entry, "journaltitle"))
            .or_else(|| field(entry, "booktitle")),
        volume: field(entry, "volume"),
        page: field(entry, "pages"),
        doi: field(entry, "doi"),
        arxiv_id,
        bibcode,
        abstract_text: field(entry, "abstract"),
        keywords: split_list(field(entry, "keywords").as_deref()),
        sources: vec!["bibtex".into()],
        ..PaperRecord::default()
    };
    let mut files = Vec::new();
    let mut missing = Vec::new();
    for path in attachments(entry, base) {
        if path.is_file() {
            files.push(path);
        } else {
            missing.push(path);
        }
    }
    files.sort_by_key(|path| !is_pdf(path));
    let mut collections = split_list(field(entry, "groups").as_deref());
    collections.extend(split_list(field(entry, "mendeley-groups").as_deref()));
    let mut tags = record.keywords.clone();
    tags.extend(split_list(field(entry, "mendeley-tags").as_deref()));
    ForeignEntry {
        origin: None,
        notes: Vec::new(),
        file_only: false,
        key: entry.key.clone(),
        record,
        files,
        missing,
        collections,
        tags,
        entry: Some(
            entry
                .to_bibtex_string()
                .unwrap_or_else(|_| entry.to_biblatex_string()),
        ),
    }
}

fn is_pdf(path: &Path) -> bool {
    path.extension()
        .is_some_and(|ext| ext.eq_ignore_ascii_case("pdf"))
}

fn split_list(value: Option<&str>) -> Vec<String> {
    value
        .unwrap_or_default()
        .split([',', ';'])
        .map(str::trim)
        .filter(|item| !item.is_empty())
        .map(String::from)
        .collect()
}

fn urls(entry: &Entry) -> Vec<String> {
    ["url", "adsurl", "howpublished"]
        .iter()
        .filter_map(|name| field(entry, name))
        .collect()
}

fn arxiv_of_url(url: &str) -> Option<String> {
    let rest = url.split_once("arxiv.org/abs/")?.1;
    Some(
        rest.split(['v', '?', '#'])
            .next()?
            .trim_end_matches('/')
            .to_string(),
    )
    .filter(|id| !id.is_empty())
}

/// An arXiv id in a URL or a text (`arXiv: 1907.05922`, `10.48550/arXiv.1907.05922`).
pub(crate) fn arxiv_in(text: &str) -> Option<String> {
    arxiv_of_url(text).or_else(|| arxiv_in_text(text))
}

/// The ADS bibcode of an ADS abstract URL.
pub(crate) fn bibcode_in_url(url: &str) -> Option<String> {
    bibcode_of_url(url)
}

fn arxiv_in_text(text: &str) -> Option<String> {
    crate::library::identifiers::find_arxiv_id(text)
}

fn bibcode_of_url(url: &str) -> Option<String> {
    let rest = url.split_once("/abs/")?.1;
    let bibcode = percent_encoding::percent_decode_str(rest.split(['/', '?', '#']).next()?)
        .decode_utf8_lossy()
        .into_owned();
    (bibcode.len() == 19).then_some(bibcode)
}

/// `@Comment{jabref-meta: fileDirectory:/some/folder;}` (also `fileDirectory-user-host`).
fn jabref_file_directory(text: &str) -> Option<String> {
    text.lines().find_map(|line| {
        let rest = line.split_once("jabref-meta: fileDirectory")?.1;
        let value = rest.split_once(':')?.1;
        let value = value
            .split(";}")
            .next()?
            .trim_end_matches([';', '}'])
            .trim();
        Some(unescape_jabref(value)).filter(|dir| !dir.is_empty())
    })
}

/// Every file an entry names, in the forms tools write: JabRef/Zotero/Mendeley `file`
/// (`desc:path:type;…`, or a bare path), BibDesk `bdsk-file-N` (a binary plist with
/// `relativePath`) and `local-url`.
fn attachments(entry: &Entry, base: &Path) -> Vec<PathBuf> {
    let mut paths = Vec::new();
    if let Some(value) = field(entry, "file") {
        paths.extend(file_field(&value));
    }
    for index in 1.. {
        let Some(value) = field(entry, &format!("bdsk-file-{index}")) else {
            break;
        };
        paths.extend(bibdesk_file(&value));
    }
    if let Some(url) = field(entry, "local-url") {
        paths.push(url.strip_prefix("file://").unwrap_or(&url).to_string());
    }
    paths
        .into_iter()
        .map(|path| {
            let path = PathBuf::from(path);
            if path.is_absolute() {
                path
            } else {
                base.join(path)
            }
        })
        .collect()
}

/// The paths of a `file` field: `desc:path:type` items separated by `;` (`\:` and `\;`
/// escaped, `\\` a backslash: JabRef's Windows paths), `:path:type` (Mendeley),
/// `name:path:mime` (Zotero), or one bare path.
pub fn file_field(value: &str) -> Vec<String> {
    // Mendeley writes a backslash as LaTeX: `C$\backslash$:`.
    let value = value.replace("$\\backslash$", "\\");
    split_escaped(&value, ';')
        .into_iter()
        .filter(|item| !item.trim().is_empty())
        .map(|item| {
            let parts = split_escaped(&item, ':');
            let path = match parts.len() {
                0 | 1 => item.clone(),
                2 => parts[0].clone(),
                _ => {
                    // A Windows drive letter split off by an unescaped colon: `C:\…`.
                    let drive = parts[1].len() == 1 && parts[2].starts_with('\\');
                    if drive {
                        format!("{}:{}", parts[1], parts[2])
                    } else {
                        parts[1].clone()
                    }
                }
            };
            unescape_jabref(path.trim())
        })
        .collect()
}

/// Splits on `separator` where it is not escaped with a backslash.
fn split_escaped(value: &str, separator: char) -> Vec<String> {
    let mut parts = vec![String::new()];
    let mut chars = value.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                if let (Some(next), Some(last)) = (chars.next(), parts.last_mut()) {
                    last.push('\\');
                    last.push(next);
                }
            }
            c if c == separator => parts.push(String::new()),
            c => {
                if let Some(last) = parts.last_mut() {
                    last.push(c);
                }
            }
        }
    }
    parts
}

fn unescape_jabref(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    let mut chars = value.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            // Only `\\`, `\:` and `\;` are escapes; any other backslash is a path's.
            match chars.clone().next() {
                Some(next @ ('\\' | ':' | ';')) => {
                    out.push(next);
                    chars.next();
                }
                _ => out.push('\\'),
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// BibDesk's `bdsk-file-N`: base64 of a keyed-archive binary plist whose objects hold
/// the `relativePath` (relative to the `.bib` file).
fn bibdesk_file(value: &str) -> Option<String> {
    let compact: String = value.chars().filter(|c| !c.is_whitespace()).collect();
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(compact)
        .ok()?;
    let plist = plist::Value::from_reader(std::io::Cursor::new(bytes)).ok()?;
    let objects = plist.as_dictionary()?.get("$objects")?.as_array()?;
    // The archive lists its strings among `$objects`; `relativePath` names the index of
    // its value (a UID) in the dictionary object that holds it.
    objects.iter().find_map(|object| {
        let dict = object.as_dictionary()?;
        match dict.get("relativePath")? {
            plist::Value::String(path) => Some(path.clone()),
            plist::Value::Uid(uid) => objects
                .get(usize::try_from(uid.get()).ok()?)?
                .as_string()
                .map(String::from),
            _ => None,
        }
    })
}

/// The entries of a CSL-JSON array (Zotero's and Better BibTeX's export).
pub fn read_csl_json(text: &str, base: &Path) -> Result<Vec<ForeignEntry>, ForeignError> {
    let items: Vec<serde_json::Value> =
        serde_json::from_str(text).map_err(|error| ForeignError::Csl(error.to_string()))?;
    if items
        .iter()
        .any(|item| !item.is_object() || item.get("type").is_none())
    {
        return Err(ForeignError::Csl(
            "an item is not an object with a `type`".into(),
        ));
    }
    Ok(items.iter().map(|item| csl_entry(item, base)).collect())
}

/// A paper as a CSL-JSON item (the reverse of [`read_csl_json`]).
pub fn csl_item(record: &PaperRecord, key: &str, tags: &[String]) -> serde_json::Value {
    let mut item = serde_json::Map::new();
    let mut put = |name: &str, value: serde_json::Value| {
        item.insert(name.to_string(), value);
    };
    put("id", key.into());
    let preprint = record.journal.is_none()
        || record
            .journal
            .as_deref()
            .is_some_and(|journal| journal.to_lowercase().contains("arxiv"));
    put(
        "type",
        if preprint {
            "article"
        } else {
            "article-journal"
        }
        .into(),
    );
    put("title", record.title.clone().into());
    let authors: Vec<serde_json::Value> = record
        .authors
        .iter()
        .map(|author| match author.split_once(',') {
            Some((family, given)) => {
                serde_json::json!({"family": family.trim(), "given": given.trim()})
            }
            None => serde_json::json!({"literal": author}),
        })
        .collect();
    put("author", authors.into());
    let date: Vec<i64> = record
        .published
        .as_deref()
        .map(|date| {
            date.split('-')
                .filter_map(|part| part.parse::<i64>().ok())
                .filter(|part| *part > 0)
                .take(3)
                .collect()
        })
        .filter(|parts: &Vec<i64>| !parts.is_empty())
        .or_else(|| record.year.map(|year| vec![i64::from(year)]))
        .unwrap_or_default();
    if !date.is_empty() {
        put("issued", serde_json::json!({"date-parts": [date]}));
    }
    for (name, value) in [
        ("container-title", &record.journal),
        ("volume", &record.volume),
        ("page", &record.page),
        ("DOI", &record.doi),
        ("abstract", &record.abstract_text),
    ] {
        if let Some(value) = value {
            put(name, value.clone().into());
        }
    }
    let url = match (&record.bibcode, &record.arxiv_id) {
        (Some(bibcode), _) => Some(format!(
            "https://ui.adsabs.harvard.edu/abs/{bibcode}/abstract"
        )),
        (None, Some(arxiv)) => Some(format!("https://arxiv.org/abs/{arxiv}")),
        _ => None,
    };
    if let Some(url) = url {
        put("URL", url.into());
    }
    if let Some(arxiv) = &record.arxiv_id {
        put("note", format!("arXiv: {arxiv}").into());
    }
    if !tags.is_empty() {
        put("keyword", tags.join(", ").into());
    }
    serde_json::Value::Object(item)
}

fn csl_entry(item: &serde_json::Value, base: &Path) -> ForeignEntry {
    let text = |name: &str| {
        item.get(name)
            .and_then(|value| match value {
                serde_json::Value::String(text) => Some(text.trim().to_string()),
                serde_json::Value::Number(number) => Some(number.to_string()),
                _ => None,
            })
            .filter(|value| !value.is_empty())
    };
    let authors = item
        .get("author")
        .and_then(|authors| authors.as_array())
        .map(|authors| {
            authors
                .iter()
                .filter_map(|author| {
                    let part = |name: &str| author.get(name).and_then(|v| v.as_str());
                    match (part("family"), part("given"), part("literal")) {
                        (Some(family), Some(given), _) => Some(format!("{family}, {given}")),
                        (Some(family), None, _) => Some(family.to_string()),
                        (None, _, Some(literal)) => Some(literal.to_string()),
                        _ => None,
                    }
                })
                .collect()
        })
        .unwrap_or_default();
    let year = item
        .pointer("/issued/date-parts/0/0")
        .and_then(|year| year.as_i64().or_else(|| year.as_str()?.parse().ok()))
        .and_then(|year| i32::try_from(year).ok());
    let url = text("URL");
    let note = text("note").unwrap_or_default();
    let record = PaperRecord {
        title: text("title").unwrap_or_default(),
        authors,
        year,
        journal: text("container-title"),
        volume: text("volume"),
        page: text("page"),
        doi: text("DOI"),
        arxiv_id: url
            .as_deref()
            .and_then(arxiv_of_url)
            .or_else(|| arxiv_in_text(&note)),
        bibcode: url.as_deref().and_then(bibcode_of_url),
        abstract_text: text("abstract"),
        keywords: split_list(text("keyword").as_deref()),
        sources: vec!["csl-json".into()],
        ..PaperRecord::default()
    };
    let mut files = Vec::new();
    let mut missing = Vec::new();
    if let Some(file) = text("file") {
        for path in file_field(&file) {
            let path = base.join(path);
            if path.is_file() {
                files.push(path);
            } else {
                missing.push(path);
            }
        }
    }
    ForeignEntry {
        origin: None,
        notes: Vec::new(),
        file_only: false,
        key: text("id")
            .or_else(|| text("citation-key"))
            .unwrap_or_default(),
        tags: record.keywords.clone(),
        record,
        files,
        missing,
        collections: Vec::new(),
        entry: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_fields_in_every_tool_form() {
        assert_eq!(file_field("paper.pdf"), ["paper.pdf"]);
        assert_eq!(file_field(":papers/a.pdf:PDF"), ["papers/a.pdf"]);
        assert_eq!(
            file_field("Full Text:files/12/a.pdf:application/pdf"),
            ["files/12/a.pdf"]
        );
        assert_eq!(
            file_field("desc:a.pdf:PDF;:b\\;c.pdf:PDF"),
            ["a.pdf", "b;c.pdf"]
        );
        assert_eq!(
            file_field(":C\\:\\\\Users\\\\me\\\\a.pdf:PDF"),
            ["C:\\Users\\me\\a.pdf"]
        );
        assert_eq!(file_field(":C:\\Users\\a.pdf:PDF"), ["C:\\Users\\a.pdf"]);
        assert_eq!(
            file_field(":C$\\backslash$:/Users/me/a.pdf:pdf"),
            ["C:/Users/me/a.pdf"]
        );
    }

    #[test]
    fn jabref_file_directory_is_read() {
        let text = "@Comment{jabref-meta: fileDirectory:/home/me/papers;}\n";
        assert_eq!(
            jabref_file_directory(text).as_deref(),
            Some("/home/me/papers")
        );
    }

    #[test]
    fn identifiers_from_urls() {
        assert_eq!(
            arxiv_of_url("https://arxiv.org/abs/2401.01234v2").as_deref(),
            Some("2401.01234")
        );
        assert_eq!(
            bibcode_of_url("https://ui.adsabs.harvard.edu/abs/2013PASP..125..306F/abstract")
                .as_deref(),
            Some("2013PASP..125..306F")
        );
        assert_eq!(
            bibcode_of_url("https://ui.adsabs.harvard.edu/abs/2013PASP..125..306F").as_deref(),
            Some("2013PASP..125..306F")
        );
    }
}
