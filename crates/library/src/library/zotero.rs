//! A Zotero library (5, 6 or 7), read from its data folder: `zotero.sqlite` and
//! `storage/<item key>/<file>`.
//!
//! Zotero keeps its database open (and locked) while it runs, and recent changes may
//! still be in its write-ahead log. So the database is never opened in place: the file
//! and its `-wal` and `-journal` are copied together into a temporary folder, and the
//! copy is opened (SQLite then applies the log as Zotero would). `immutable=1` is not
//! used: it would silently miss what is still in the log.
//!
//! Each regular item becomes an entry: its fields (title, date, publication, volume,
//! pages, DOI, URL, and the arXiv id and ADS bibcode wherever they appear, `extra` and
//! an ADS URL included), its creators in order, its collections (nested ones as
//! `Parent/Child`; a group library's items under the group's name), tags, child notes
//! (HTML to Markdown), its PDF attachments (imported ones under `storage/`, linked ones
//! at their path) and the annotations on them (highlights with their page and text).
//! Tags on an item's attachments and notes are the item's. A PDF with no parent item (a
//! file dropped into Zotero) is an item of its own, described by the PDF itself. An item in the trash, and
//! the items of a feed (Zotero's RSS subscriptions, read or not, are not the library),
//! are left out.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use sqlx::{Connection, Row, SqliteConnection};

use super::foreign::{ForeignEntry, ForeignError, ForeignNote};

/// Zotero's database file name.
pub const DATABASE: &str = "zotero.sqlite";

/// The first `userdata` schema of Zotero 5 (Zotero 4 ended at 78 or below; the oldest
/// Zotero 5 database seen here is at 96).
const ZOTERO_5_USERDATA: i64 = 80;

/// Item types that are not works of their own.
const NOT_WORKS: [&str; 3] = ["attachment", "note", "annotation"];

/// Whether `path` is a Zotero data folder (it holds `zotero.sqlite`) or the database.
pub fn zotero_database(path: &Path) -> Option<PathBuf> {
    if path.is_dir() {
        let database = path.join(DATABASE);
        return database.is_file().then_some(database);
    }
    (path.file_name().is_some_and(|name| name == DATABASE) && path.is_file())
        .then(|| path.to_path_buf())
}

/// Reads the library of `database` (a `zotero.sqlite`) into entries.
pub async fn read_zotero(database: &Path) -> Result<Vec<ForeignEntry>, ForeignError> {
    let read = |error: &dyn std::fmt::Display| ForeignError::Read(error.to_string());
    let copy = tempfile::tempdir().map_err(|error| read(&error))?;
    let copied = copy.path().join(DATABASE);
    for suffix in ["", "-wal", "-journal"] {
        let from = PathBuf::from(format!("{}{suffix}", database.display()));
        if from.exists() {
            let to = PathBuf::from(format!("{}{suffix}", copied.display()));
            std::fs::copy(&from, &to).map_err(|error| read(&error))?;
        }
    }
    let options = sqlx::sqlite::SqliteConnectOptions::new()
        .filename(&copied)
        .create_if_missing(false);
    let mut connection = SqliteConnection::connect_with(&options)
        .await
        .map_err(|error| read(&format!("not a Zotero database: {error}")))?;
    let data_dir = database.parent().unwrap_or(Path::new("."));
    let entries = Reader {
        connection: &mut connection,
        data_dir,
        base_dir: base_attachment_dir(),
    }
    .entries()
    .await
    .map_err(|error| match error {
        sqlx::Error::Protocol(said) => read(&said),
        error => read(&format!("not a Zotero database: {error}")),
    });
    let _ = connection.close().await;
    entries
}

/// Zotero's "base directory" for linked files (`attachments:` paths), from the profile's
/// `prefs.js` (it is not in the database).
fn base_attachment_dir() -> Option<PathBuf> {
    let home = std::env::var_os("HOME").map(PathBuf::from)?;
    let profiles = [
        home.join(".zotero/zotero"),
        home.join("Library/Application Support/Zotero/Profiles"),
        home.join("snap/zotero-snap/common/.zotero/zotero"),
    ];
    profiles
        .iter()
        .filter_map(|folder| std::fs::read_dir(folder).ok())
        .flat_map(|entries| entries.flatten())
        .filter_map(|profile| std::fs::read_to_string(profile.path().join("prefs.js")).ok())
        .find_map(|prefs| {
            prefs.lines().find_map(|line| {
                let rest = line
                    .split("\"extensions.zotero.baseAttachmentPath\",")
                    .nth(1)?;
                let value = rest.trim().trim_end_matches(");").trim().trim_matches('"');
                Some(PathBuf::from(value.replace("\\\\", "\\")))
            })
        })
}

type Sql = Result<(), sqlx::Error>;

struct Reader<'a> {
    connection: &'a mut SqliteConnection,
    data_dir: &'a Path,
    base_dir: Option<PathBuf>,
}

/// A work as read, before it becomes an entry.
#[derive(Default)]
struct Work {
    key: String,
    library: i64,
    fields: HashMap<String, String>,
    creators: Vec<String>,
    entry: ForeignEntry,
}

impl Reader<'_> {
    async fn table_exists(&mut self, name: &str) -> Result<bool, sqlx::Error> {
        let found: Option<String> = sqlx::query_scalar(
            "SELECT name FROM sqlite_master WHERE type IN ('table', 'view') AND name = ?",
        )
        .bind(name)
        .fetch_optional(&mut *self.connection)
        .await?;
        Ok(found.is_some())
    }

    /// Zotero 4's database (its `userdata` schema below 80: attachments and notes name
    /// their parent as `sourceItemID`) is refused with what to do, not misread.
    async fn is_zotero_5_or_later(&mut self) -> Result<(), sqlx::Error> {
        let version: Option<i64> = if self.table_exists("version").await? {
            sqlx::query_scalar("SELECT version FROM version WHERE schema = 'userdata'")
                .fetch_optional(&mut *self.connection)
                .await?
        } else {
            None
        };
        match version {
            Some(version) if version < ZOTERO_5_USERDATA => Err(sqlx::Error::Protocol(format!(
                "a Zotero 4 database (schema {version}): Asterism reads Zotero 5 and later; \
                 open it once in a current Zotero, which upgrades it, or export the library \
                 from Zotero as BibTeX or CSL-JSON and import that file"
            ))),
            _ => Ok(()),
        }
    }

    /// `fieldsCombined` (custom fields too, Zotero 5.0.? on) else `fields`; same for types.
    /// (The names are this module's own, so the queries built with them are safe.)
    async fn combined(&mut self, name: &'static str) -> Result<String, sqlx::Error> {
        let combined = format!("{name}Combined");
        Ok(if self.table_exists(&combined).await? {
            combined
        } else {
            name.to_string()
        })
    }

    async fn entries(mut self) -> Result<Vec<ForeignEntry>, sqlx::Error> {
        self.is_zotero_5_or_later().await?;
        let types = self.combined("itemTypes").await?;
        let mut works = self.works(&types).await?;
        self.fields(&mut works).await?;
        self.creators(&mut works).await?;
        self.collections(&mut works).await?;
        self.tags(&mut works).await?;
        self.notes(&mut works).await?;
        self.attachments(&mut works).await?;
        let mut works: Vec<Work> = works.into_values().collect();
        works.sort_by(|a, b| (a.library, &a.key).cmp(&(b.library, &b.key)));
        Ok(works.into_iter().map(Work::into_entry).collect())
    }

    async fn works(&mut self, types: &str) -> Result<HashMap<i64, Work>, sqlx::Error> {
        // Zotero 5.0.? on: `libraries.type` is user, group or feed.
        let not_feeds = if self.table_exists("libraries").await? {
            "AND i.libraryID NOT IN (SELECT libraryID FROM libraries WHERE type = 'feed')"
        } else {
            ""
        };
        // A PDF with no parent item (dropped into Zotero as it is) is an item too.
        let query = format!(
            "SELECT i.itemID, i.key, i.libraryID, t.typeName,
                    a.itemID IS NOT NULL AND a.parentItemID IS NULL
                      AND (a.contentType = 'application/pdf' OR lower(a.path) LIKE '%.pdf')
                      AS lone_pdf
             FROM items i JOIN {types} t ON t.itemTypeID = i.itemTypeID
             LEFT JOIN itemAttachments a ON a.itemID = i.itemID
             WHERE i.itemID NOT IN (SELECT itemID FROM deletedItems) {not_feeds}"
        );
        let rows = sqlx::query(sqlx::AssertSqlSafe(query))
            .fetch_all(&mut *self.connection)
            .await?;
        let mut works = HashMap::new();
        for row in rows {
            let kind: String = row.try_get("typeName")?;
            let lone_pdf: bool = row.try_get("lone_pdf")?;
            if NOT_WORKS.contains(&kind.as_str()) && !lone_pdf {
                continue;
            }
            let id: i64 = row.try_get("itemID")?;
            let key: String = row.try_get("key")?;
            let library: i64 = row.try_get("libraryID")?;
            let mut work = Work {
                entry: ForeignEntry {
                    origin: Some(format!("zotero:{library}/{key}")),
                    file_only: lone_pdf,
                    ..ForeignEntry::default()
                },
                key,
                library,
                ..Work::default()
            };
            work.fields.insert("itemType".into(), kind);
            works.insert(id, work);
        }
        Ok(works)
    }

    async fn fields(&mut self, works: &mut HashMap<i64, Work>) -> Sql {
        let fields = self.combined("fields").await?;
        let query = format!(
            "SELECT d.itemID, f.fieldName, v.value FROM itemData d
             JOIN {fields} f ON f.fieldID = d.fieldID
             JOIN itemDataValues v ON v.valueID = d.valueID"
        );
        for row in sqlx::query(sqlx::AssertSqlSafe(query))
            .fetch_all(&mut *self.connection)
            .await?
        {
            let id: i64 = row.try_get("itemID")?;
            if let Some(work) = works.get_mut(&id) {
                let value: Option<String> = row.try_get("value").ok();
                if let Some(value) = value.filter(|value| !value.trim().is_empty()) {
                    work.fields.insert(row.try_get("fieldName")?, value);
                }
            }
        }
        Ok(())
    }

    async fn creators(&mut self, works: &mut HashMap<i64, Work>) -> Sql {
        let rows = sqlx::query(
            "SELECT ic.itemID, c.firstName, c.lastName, c.fieldMode FROM itemCreators ic
             JOIN creators c ON c.creatorID = ic.creatorID ORDER BY ic.itemID, ic.orderIndex",
        )
        .fetch_all(&mut *self.connection)
        .await?;
        for row in rows {
            let id: i64 = row.try_get("itemID")?;
            let Some(work) = works.get_mut(&id) else {
                continue;
            };
            let first: Option<String> = row.try_get("firstName")?;
            let last: Option<String> = row.try_get("lastName")?;
            let single = row.try_get::<Option<i64>, _>("fieldMode")? == Some(1);
            let first = first.filter(|first| !first.trim().is_empty());
            let name = match (last, first) {
                // A one-field name ("Planck Collaboration") is kept whole.
                (Some(last), _) if single => last,
                (Some(last), Some(first)) => format!("{last}, {first}"),
                (Some(last), None) => last,
                (None, Some(first)) => first,
                (None, None) => continue,
            };
            work.creators.push(name);
        }
        Ok(())
    }

    /// Collections as `Parent/Child`, under the group's name for a group library; an
    /// item of a group library in no collection is in the group's.
    async fn collections(&mut self, works: &mut HashMap<i64, Work>) -> Sql {
        let mut groups: HashMap<i64, String> = HashMap::new();
        if self.table_exists("groups").await? {
            for row in sqlx::query("SELECT libraryID, name FROM groups")
                .fetch_all(&mut *self.connection)
                .await?
            {
                groups.insert(row.try_get("libraryID")?, row.try_get("name")?);
            }
        }
        let mut collections: HashMap<i64, (String, Option<i64>, i64)> = HashMap::new();
        // Collections go to the trash only since Zotero 7.
        let trashed = if self.table_exists("deletedCollections").await? {
            "WHERE collectionID NOT IN (SELECT collectionID FROM deletedCollections)"
        } else {
            ""
        };
        let query = format!(
            "SELECT collectionID, collectionName, parentCollectionID, libraryID FROM collections {trashed}"
        );
        for row in sqlx::query(sqlx::AssertSqlSafe(query))
            .fetch_all(&mut *self.connection)
            .await?
        {
            collections.insert(
                row.try_get("collectionID")?,
                (
                    row.try_get("collectionName")?,
                    row.try_get("parentCollectionID")?,
                    row.try_get("libraryID")?,
                ),
            );
        }
        let path = |mut id: i64| {
            let mut parts = Vec::new();
            let mut library = None;
            while let Some((name, parent, in_library)) = collections.get(&id) {
                parts.push(name.replace('/', "-"));
                library = Some(*in_library);
                match parent {
                    Some(parent) if parts.len() < 32 => id = *parent,
                    _ => break,
                }
            }
            if let Some(group) = library.and_then(|library| groups.get(&library)) {
                parts.push(group.replace('/', "-"));
            }
            parts.reverse();
            parts.join("/")
        };
        for row in sqlx::query("SELECT collectionID, itemID FROM collectionItems")
            .fetch_all(&mut *self.connection)
            .await?
        {
            let id: i64 = row.try_get("itemID")?;
            let collection: i64 = row.try_get("collectionID")?;
            if let Some(work) = works.get_mut(&id)
                && collections.contains_key(&collection)
            {
                work.entry.collections.push(path(collection));
            }
        }
        for work in works.values_mut() {
            if work.entry.collections.is_empty()
                && let Some(group) = groups.get(&work.library)
            {
                work.entry.collections.push(group.replace('/', "-"));
            }
        }
        Ok(())
    }

    async fn tags(&mut self, works: &mut HashMap<i64, Work>) -> Sql {
        // A tag on an attachment or a child note is its parent's.
        for row in sqlx::query(
            "SELECT COALESCE(a.parentItemID, n.parentItemID, it.itemID) AS work, t.name
             FROM itemTags it JOIN tags t ON t.tagID = it.tagID
             LEFT JOIN itemAttachments a ON a.itemID = it.itemID
             LEFT JOIN itemNotes n ON n.itemID = it.itemID
             WHERE it.itemID NOT IN (SELECT itemID FROM deletedItems)
             ORDER BY it.itemID, t.name",
        )
        .fetch_all(&mut *self.connection)
        .await?
        {
            let id: i64 = row.try_get("work")?;
            let name: String = row.try_get("name")?;
            if let Some(work) = works.get_mut(&id)
                && !work.entry.tags.contains(&name)
            {
                work.entry.tags.push(name);
            }
        }
        Ok(())
    }

    /// Child notes, HTML converted to Markdown.
    async fn notes(&mut self, works: &mut HashMap<i64, Work>) -> Sql {
        for row in sqlx::query(
            "SELECT n.parentItemID, n.note, i.key FROM itemNotes n JOIN items i ON i.itemID = n.itemID
             WHERE n.parentItemID IS NOT NULL
               AND n.itemID NOT IN (SELECT itemID FROM deletedItems)",
        )
        .fetch_all(&mut *self.connection)
        .await?
        {
            let parent: i64 = row.try_get("parentItemID")?;
            let Some(work) = works.get_mut(&parent) else {
                continue;
            };
            let html: Option<String> = row.try_get("note")?;
            let markdown = htmd::convert(html.as_deref().unwrap_or_default())
                .unwrap_or_default()
                .trim()
                .to_string();
            if markdown.is_empty() {
                continue;
            }
            let key: String = row.try_get("key")?;
            work.entry.notes.push(ForeignNote {
                id: format!("zotero:{}/{key}", work.library),
                comment: markdown,
                ..ForeignNote::default()
            });
        }
        Ok(())
    }

    /// PDF attachments (imported under `storage/`, or linked) and their annotations; a
    /// top-level PDF is its own work's file.
    async fn attachments(&mut self, works: &mut HashMap<i64, Work>) -> Sql {
        let rows = sqlx::query(
            "SELECT a.itemID, COALESCE(a.parentItemID, a.itemID) AS parentItemID, a.linkMode,
                    a.contentType, a.path, i.key
             FROM itemAttachments a JOIN items i ON i.itemID = a.itemID
             WHERE a.itemID NOT IN (SELECT itemID FROM deletedItems)",
        )
        .fetch_all(&mut *self.connection)
        .await?;
        let mut attachment_parent: HashMap<i64, i64> = HashMap::new();
        for row in rows {
            let parent: i64 = row.try_get("parentItemID")?;
            let Some(work) = works.get_mut(&parent) else {
                continue;
            };
            let path: Option<String> = row.try_get("path")?;
            let kind: Option<String> = row.try_get("contentType")?;
            let key: String = row.try_get("key")?;
            let Some(path) = path else {
                continue;
            };
            let file = self.attachment_path(&key, &path);
            let is_pdf = kind.as_deref() == Some("application/pdf")
                || file
                    .extension()
                    .is_some_and(|ext| ext.eq_ignore_ascii_case("pdf"));
            if !is_pdf {
                continue;
            }
            attachment_parent.insert(row.try_get("itemID")?, parent);
            if file.is_file() {
                work.entry.files.push(file);
            } else {
                work.entry.missing.push(file);
            }
        }
        if self.table_exists("itemAnnotations").await? {
            self.annotations(works, &attachment_parent).await?;
        }
        Ok(())
    }

    fn attachment_path(&self, key: &str, path: &str) -> PathBuf {
        if let Some(name) = path.strip_prefix("storage:") {
            return self.data_dir.join("storage").join(key).join(name);
        }
        if let Some(relative) = path.strip_prefix("attachments:") {
            let base = self
                .base_dir
                .clone()
                .unwrap_or_else(|| self.data_dir.to_path_buf());
            return base.join(relative);
        }
        PathBuf::from(path)
    }

    /// Highlights, underlines and notes on a PDF, as notes on its page (Zotero 6 on).
    async fn annotations(
        &mut self,
        works: &mut HashMap<i64, Work>,
        attachment_parent: &HashMap<i64, i64>,
    ) -> Sql {
        let rows = sqlx::query(
            "SELECT a.parentItemID, a.type, a.text, a.comment, a.color, a.position, i.key
             FROM itemAnnotations a JOIN items i ON i.itemID = a.itemID
             WHERE a.itemID NOT IN (SELECT itemID FROM deletedItems)
             ORDER BY a.parentItemID, a.sortIndex",
        )
        .fetch_all(&mut *self.connection)
        .await?;
        for row in rows {
            let attachment: i64 = row.try_get("parentItemID")?;
            let Some(work) = attachment_parent
                .get(&attachment)
                .and_then(|parent| works.get_mut(parent))
            else {
                continue;
            };
            let text: Option<String> = row.try_get("text")?;
            let comment: Option<String> = row.try_get("comment")?;
            let text = text.filter(|text| !text.trim().is_empty());
            let comment = comment.unwrap_or_default();
            // Images and ink have neither: nothing to keep as text.
            if text.is_none() && comment.trim().is_empty() {
                continue;
            }
            let position: Option<String> = row.try_get("position")?;
            let page = position
                .and_then(|position| serde_json::from_str::<serde_json::Value>(&position).ok())
                .and_then(|position| position.get("pageIndex")?.as_i64())
                .map(|index| index + 1);
            let key: String = row.try_get("key")?;
            work.entry.notes.push(ForeignNote {
                id: format!("zotero:{}/{key}", work.library),
                page,
                quote: text,
                comment,
                color: row.try_get("color")?,
            });
        }
        Ok(())
    }
}

impl Work {
    fn into_entry(self) -> ForeignEntry {
        let field = |name: &str| self.fields.get(name).cloned();
        let extra = field("extra").unwrap_or_default();
        let url = field("url").unwrap_or_default();
        let mut record = asterism_protocol::PaperRecord {
            title: field("title").unwrap_or_default(),
            authors: self.creators.clone(),
            year: field("date").and_then(|date| year_of(&date)),
            published: field("date").and_then(|date| iso_date(&date)),
            journal: field("publicationTitle")
                .or_else(|| field("proceedingsTitle"))
                .or_else(|| field("repository")),
            volume: field("volume"),
            page: field("pages"),
            doi: field("DOI").or_else(|| extra_value(&extra, "DOI")),
            abstract_text: field("abstractNote"),
            ..Default::default()
        };
        record.arxiv_id = field("archiveID")
            .and_then(|id| super::foreign::arxiv_in(&id))
            .or_else(|| super::foreign::arxiv_in(&extra))
            .or_else(|| super::foreign::arxiv_in(&url))
            .or_else(|| field("DOI").and_then(|doi| super::foreign::arxiv_in(&doi)));
        record.bibcode = extra_value(&extra, "ADS Bibcode")
            .or_else(|| extra_value(&extra, "Bibcode"))
            .or_else(|| super::foreign::bibcode_in_url(&url));
        let mut entry = self.entry;
        // Better BibTeX keeps its citation key in `extra`.
        entry.key = extra_value(&extra, "Citation Key").unwrap_or_default();
        entry.record = record;
        entry.files.sort_by_key(|file| file.display().to_string());
        entry
    }
}

/// The value of a `Name: value` line of Zotero's `extra` field.
fn extra_value(extra: &str, name: &str) -> Option<String> {
    extra.lines().find_map(|line| {
        let (key, value) = line.split_once(':')?;
        (key.trim().eq_ignore_ascii_case(name) && !value.trim().is_empty())
            .then(|| value.trim().to_string())
    })
}

/// The ISO part of a date as Zotero stores it (`2019-07-15 July 15, 2019`,
/// `2017-12-00 December 2017`: the parsed date, zeros where unknown, then the text as
/// entered); `None` when there is no year.
fn iso_date(date: &str) -> Option<String> {
    let first = date.split_whitespace().next()?;
    let parts: Vec<&str> = first.split('-').collect();
    let valid = parts.len() == 3
        && parts[0].len() == 4
        && parts
            .iter()
            .all(|part| part.chars().all(|c| c.is_ascii_digit()))
        && parts[0] != "0000";
    valid.then(|| first.to_string())
}

/// The year of a Zotero date (`2019-07-15 2019-07-15`, `July 2019`, `2019`).
fn year_of(date: &str) -> Option<i32> {
    regex::Regex::new(r"\b(1[6-9]\d\d|2[01]\d\d)\b")
        .ok()?
        .captures(date)?
        .get(1)?
        .as_str()
        .parse()
        .ok()
}
