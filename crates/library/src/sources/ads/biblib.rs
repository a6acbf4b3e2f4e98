//! ADS libraries (the biblib service): the user's libraries and those shared with them,
//! a library's bibcodes page by page (with the bibcodes ADS replaced by their canonical
//! ones), a new library, and bibcodes added to or removed from one. Same token, same
//! rate-limit accounting as search.

use serde::{Deserialize, Serialize};
use specta::Type;

use super::{AdsClient, AdsError};

/// Libraries asked for per page of `/biblib/libraries`.
const LIBRARIES_PAGE: usize = 100;
/// Bibcodes asked for per page of `/biblib/libraries/{id}`.
const DOCUMENTS_PAGE: usize = 500;
/// Bibcodes sent per add/remove request.
const CHANGE_BATCH: usize = 500;
/// Bibcodes asked of the search API per request for their metadata.
const RECORDS_BATCH: usize = 50;

/// One ADS library as `/biblib/libraries` describes it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct AdsLibrary {
    pub id: String,
    pub name: String,
    pub description: String,
    pub num_documents: u32,
    /// `owner`, `admin`, `write` or `read`.
    pub permission: String,
    pub public: bool,
    pub date_created: String,
    pub date_last_modified: String,
    pub owner: String,
    pub num_users: u32,
}

impl AdsLibrary {
    /// Whether bibcodes may be added to or removed from it.
    pub fn writable(&self) -> bool {
        matches!(self.permission.as_str(), "owner" | "admin" | "write")
    }
}

/// The wire form (snake_case, every field optional in practice).
#[derive(Deserialize)]
struct WireLibrary {
    id: String,
    #[serde(default)]
    name: String,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    num_documents: u32,
    #[serde(default)]
    permission: Option<String>,
    #[serde(default)]
    public: bool,
    #[serde(default)]
    date_created: Option<String>,
    #[serde(default)]
    date_last_modified: Option<String>,
    #[serde(default)]
    owner: Option<String>,
    #[serde(default)]
    num_users: u32,
}

impl From<WireLibrary> for AdsLibrary {
    fn from(wire: WireLibrary) -> Self {
        Self {
            id: wire.id,
            name: wire.name,
            description: wire.description.unwrap_or_default(),
            num_documents: wire.num_documents,
            permission: wire.permission.unwrap_or_else(|| "read".into()),
            public: wire.public,
            date_created: wire.date_created.unwrap_or_default(),
            date_last_modified: wire.date_last_modified.unwrap_or_default(),
            owner: wire.owner.unwrap_or_default(),
            num_users: wire.num_users,
        }
    }
}

/// A library's metadata and all its bibcodes.
#[derive(Debug, Clone, PartialEq)]
pub struct LibraryContents {
    pub library: AdsLibrary,
    /// As ADS holds them now (canonical bibcodes), in its order.
    pub bibcodes: Vec<String>,
    /// `(old, new)`: bibcodes ADS replaced by their canonical ones while answering.
    pub replaced: Vec<(String, String)>,
}

/// What an add or remove did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DocumentChange {
    pub added: u32,
    pub removed: u32,
    /// Bibcodes ADS does not know (not added).
    pub invalid: Vec<String>,
}

/// An ADS library id: a UUID in URL-safe base64, 22 characters (`hHGU1Ef-TpacAhicI3J8kQ`),
/// so it can go in a path and is not taken for a name.
pub fn is_library_id(text: &str) -> bool {
    text.len() == 22
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

fn bad(what: &str) -> impl Fn(serde_json::Error) -> AdsError + '_ {
    move |error| AdsError::BadResponse(format!("{what}: {error}"))
}

impl AdsClient {
    /// The user's libraries and those shared with them, page after page.
    pub async fn libraries(&self) -> Result<Vec<AdsLibrary>, AdsError> {
        #[derive(Deserialize)]
        struct Page {
            #[serde(default)]
            libraries: Vec<WireLibrary>,
        }
        let mut all: Vec<AdsLibrary> = Vec::new();
        loop {
            let params = [
                ("start", all.len().to_string()),
                ("rows", LIBRARIES_PAGE.to_string()),
                ("sort", "date_created".to_string()),
                ("order", "asc".to_string()),
            ];
            let body = self.get_json("/biblib/libraries", &params).await?;
            let page: Page = serde_json::from_value(body).map_err(bad("libraries"))?;
            let count = page.libraries.len();
            let before = all.len();
            for library in page.libraries {
                if !all.iter().any(|known| known.id == library.id) {
                    all.push(AdsLibrary::from(library));
                }
            }
            // A short page ends the list; so does one with nothing new (a server that
            // ignores `start` must not keep us asking).
            if count < LIBRARIES_PAGE || all.len() == before {
                return Ok(all);
            }
        }
    }

    /// A library's metadata and every bibcode in it: pages of `start`/`rows` until
    /// `num_documents` (or a page brings nothing).
    pub async fn library_contents(&self, id: &str) -> Result<LibraryContents, AdsError> {
        if !is_library_id(id) {
            return Err(AdsError::BadResponse(format!(
                "{id:?} is not an ADS library id"
            )));
        }
        let mut bibcodes: Vec<String> = Vec::new();
        let mut replaced = Vec::new();
        loop {
            let params = [
                ("start", bibcodes.len().to_string()),
                ("rows", DOCUMENTS_PAGE.to_string()),
                ("fl", "bibcode".to_string()),
            ];
            let body = self
                .get_json(&format!("/biblib/libraries/{id}"), &params)
                .await?;
            let page: LibraryPage = serde_json::from_value(body).map_err(bad("library"))?;
            replaced.extend(page.replaced());
            let before = bibcodes.len();
            for bibcode in page.documents {
                if !bibcodes.contains(&bibcode) {
                    bibcodes.push(bibcode);
                }
            }
            let library = AdsLibrary::from(page.metadata);
            if bibcodes.len() == before || bibcodes.len() >= library.num_documents as usize {
                return Ok(LibraryContents {
                    library,
                    bibcodes,
                    replaced,
                });
            }
        }
    }

    /// A new private library holding `bibcodes`; its id.
    pub async fn create_library(
        &self,
        name: &str,
        description: &str,
        bibcodes: &[String],
    ) -> Result<String, AdsError> {
        let body = serde_json::json!({
            "name": name, "description": description, "public": false, "bibcode": bibcodes,
        });
        let answer = self.post_json("/biblib/libraries", &body).await?;
        answer
            .get("id")
            .and_then(serde_json::Value::as_str)
            .map(str::to_string)
            .ok_or_else(|| AdsError::BadResponse("no `id` for the new library".into()))
    }

    /// The search API's records of these bibcodes, in batches; a bibcode ADS does not
    /// know (or replaced) is simply absent.
    pub async fn records_of(
        &self,
        bibcodes: &[String],
    ) -> Result<Vec<asterism_protocol::PaperRecord>, AdsError> {
        let mut records = Vec::new();
        for batch in bibcodes.chunks(RECORDS_BATCH) {
            let quoted: Vec<String> = batch
                .iter()
                .map(|bibcode| format!("\"{}\"", bibcode.replace('"', "")))
                .collect();
            let query = super::AdsQuery {
                q: format!("bibcode:({})", quoted.join(" OR ")),
                rows: batch.len() as u32,
                ..Default::default()
            };
            records.extend(self.search(&query).await?.papers);
        }
        Ok(records)
    }

    /// Adds (`add = true`) or removes bibcodes, in batches.
    pub async fn change_documents(
        &self,
        id: &str,
        add: bool,
        bibcodes: &[String],
    ) -> Result<DocumentChange, AdsError> {
        if !is_library_id(id) {
            return Err(AdsError::BadResponse(format!(
                "{id:?} is not an ADS library id"
            )));
        }
        let mut change = DocumentChange::default();
        for batch in bibcodes.chunks(CHANGE_BATCH) {
            let body = serde_json::json!({
                "bibcode": batch, "action": if add { "add" } else { "remove" },
            });
            let answer = self
                .post_json(&format!("/biblib/documents/{id}"), &body)
                .await?;
            let done: ChangeAnswer = serde_json::from_value(answer).map_err(bad("documents"))?;
            change.added += done.number_added;
            change.removed += done.number_removed;
            change.invalid.extend(done.invalid_identifiers);
            change.invalid.extend(done.invalid_bibcodes);
        }
        Ok(change)
    }
}

#[derive(Deserialize)]
struct LibraryPage {
    #[serde(default)]
    documents: Vec<String>,
    metadata: WireLibrary,
    /// `{}` for a raw answer; else `{num_updated, duplicates_removed, update_list}`.
    #[serde(default)]
    updates: serde_json::Value,
}

impl LibraryPage {
    /// `update_list`: one `{old: new}` object per replaced bibcode.
    fn replaced(&self) -> Vec<(String, String)> {
        let list = self
            .updates
            .get("update_list")
            .and_then(serde_json::Value::as_array);
        list.into_iter()
            .flatten()
            .filter_map(serde_json::Value::as_object)
            .flat_map(|pairs| pairs.iter())
            .filter_map(|(old, new)| Some((old.clone(), new.as_str()?.to_string())))
            .filter(|(old, new)| old != new)
            .collect()
    }
}

#[derive(Deserialize)]
struct ChangeAnswer {
    #[serde(default)]
    number_added: u32,
    #[serde(default)]
    number_removed: u32,
    /// The name in the API notebook's recorded answer.
    #[serde(default)]
    invalid_identifiers: Vec<String>,
    /// The name in the OpenAPI description.
    #[serde(default)]
    invalid_bibcodes: Vec<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn library_ids_cannot_carry_a_path() {
        assert!(is_library_id("hHGU1Ef-TpacAhicI3J8kQ"));
        assert!(is_library_id("Os2mtOH-RNiNyBWdSj0m2A"));
        for bad in [
            "",
            "../../x",
            "abc/def12345",
            "a b c d e f",
            "short",
            "x%2Fy12345",
        ] {
            assert!(!is_library_id(bad), "{bad}");
        }
    }
}
