//! ADS libraries, both ways: a library pulled into a collection named after it (only
//! what changed on a second pull; papers that left it leave the collection, never the
//! library), and a collection pushed to a library (its papers with a bibcode).

use std::collections::HashSet;

use serde::Serialize;
use specta::Type;

use super::{Library, storage};
use crate::sources::ads::{AdsError, AdsLibrary, is_library_id};

const NO_TOKEN: &str = "ADS libraries need an ADS token, and no ADS_API_TOKEN is set";

/// What a pull did.
#[derive(Debug, Clone, PartialEq, Serialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct AdsPullReport {
    pub library: AdsLibrary,
    pub collection: String,
    /// ADS's library was not modified since the last pull: nothing was asked or changed.
    pub unchanged: bool,
    /// Papers new to the local library (metadata only until downloaded).
    pub created: u32,
    /// Papers put in the collection by this pull.
    pub joined: u32,
    /// Bibcodes that left the ADS library since the last pull (and so the collection).
    pub left: Vec<String>,
    /// `[old, new]`: bibcodes ADS replaced by canonical ones, followed here.
    pub replaced: Vec<(String, String)>,
    /// Bibcodes in the ADS library its search API gave no record for.
    pub not_found: Vec<String>,
    /// The collection's name before this pull, when the ADS library was renamed.
    pub renamed_from: Option<String>,
    /// Every bibcode of the ADS library now.
    pub bibcodes: Vec<String>,
}

/// What a push did.
#[derive(Debug, Clone, PartialEq, Serialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct AdsPushReport {
    pub library_id: String,
    pub library_name: String,
    /// The ADS library was made by this push (`--create`).
    pub created: bool,
    pub added: u32,
    pub removed: u32,
    /// Bibcodes already in the ADS library.
    pub already: u32,
    /// Bibcodes ADS did not know (not added).
    pub invalid: Vec<String>,
    /// `[paper id, title]` of the collection's papers without a bibcode (not sent).
    pub skipped: Vec<(String, String)>,
}

/// A PDF asked for after a pull: its paper's bibcode, and why it could not be had
/// (`None`: it is in the library now).
#[derive(Debug, Clone, PartialEq, Serialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct MissingPdf {
    pub bibcode: String,
    pub error: Option<String>,
}

/// How a push treats the ADS library.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PushOptions {
    /// Make the library when the user has none of that name.
    pub create: bool,
    /// Remove from the ADS library what the collection lacks.
    pub remove_missing: bool,
}

/// An ADS error said of a library.
fn ads_error(error: AdsError, which: &str) -> String {
    match error {
        AdsError::Http { status: 404, .. } => {
            format!("ADS has no library {which} (deleted, or never shared with you)")
        }
        AdsError::Http { status: 409, .. } => {
            format!("ADS already has a library named {which}: choose another name")
        }
        AdsError::Forbidden(message) => format!(
            "ADS refused access to the library {which}: {message} (a private library not shared with you?)"
        ),
        other => other.to_string(),
    }
}

/// The library named or numbered `which`: its id, else its name exactly, else its name
/// in any case when only one has it.
pub fn pick_library<'a>(libraries: &'a [AdsLibrary], which: &str) -> Option<&'a AdsLibrary> {
    let which = which.trim();
    libraries
        .iter()
        .find(|library| library.id == which)
        .or_else(|| libraries.iter().find(|library| library.name == which))
        .or_else(|| {
            let mut same = libraries
                .iter()
                .filter(|library| library.name.eq_ignore_ascii_case(which));
            match (same.next(), same.next()) {
                (Some(only), None) => Some(only),
                _ => None,
            }
        })
}

fn unknown(libraries: &[AdsLibrary], which: &str) -> String {
    let names: Vec<&str> = libraries.iter().map(|l| l.name.as_str()).collect();
    if names.is_empty() {
        format!("no ADS library named {which:?}: your ADS account has none")
    } else {
        format!(
            "no ADS library named {which:?}; yours: {}",
            names.join(", ")
        )
    }
}

impl Library {
    /// The user's ADS libraries and those shared with them.
    pub async fn ads_libraries(&self) -> Result<Vec<AdsLibrary>, String> {
        if !self.papers.ads.has_token() {
            return Err(NO_TOKEN.into());
        }
        self.papers.ads.libraries().await.map_err(|e| e.to_string())
    }

    /// Pulls the ADS library `which` (name or id) into the collection named after it.
    /// Everything is asked of ADS first, then applied in one transaction, so a pull cut
    /// short leaves the collection as it was.
    pub async fn pull_ads_library(&self, which: &str) -> Result<AdsPullReport, String> {
        let library = self.library_to_pull(which).await?;
        let previous = self.store.ads_pull(&library.id).await.map_err(storage)?;
        let renamed_from = previous
            .as_ref()
            .map(|p| p.collection.clone())
            .filter(|old| *old != library.name);
        if let Some(previous) = &previous
            && previous.date_last_modified == library.date_last_modified
            && renamed_from.is_none()
            && self
                .store
                .collection_exists(&library.name)
                .await
                .map_err(storage)?
        {
            return Ok(AdsPullReport::unchanged(library, previous.bibcodes.clone()));
        }
        let quoted = format!("{:?}", library.name);
        let contents = self
            .papers
            .ads
            .library_contents(&library.id)
            .await
            .map_err(|error| ads_error(error, &quoted))?;
        let before = previous.map(|p| p.bibcodes).unwrap_or_default();
        let before: Vec<String> = before
            .into_iter()
            .map(|bibcode| canonical(&contents.replaced, bibcode))
            .collect();
        let now: HashSet<&str> = contents.bibcodes.iter().map(String::as_str).collect();
        let left: Vec<String> = before
            .iter()
            .filter(|bibcode| !now.contains(bibcode.as_str()))
            .cloned()
            .collect();
        let unknown_here = self
            .unknown_bibcodes(&contents.bibcodes, &contents.replaced)
            .await?;
        let records = self
            .papers
            .ads
            .records_of(&unknown_here)
            .await
            .map_err(|error| ads_error(error, &quoted))?;
        let found: HashSet<&str> = records
            .iter()
            .filter_map(|r| r.bibcode.as_deref())
            .collect();
        let not_found = unknown_here
            .iter()
            .filter(|bibcode| !found.contains(bibcode.as_str()))
            .cloned()
            .collect();
        let applied = self
            .store
            .apply_ads_pull(&asterism_store::AdsPullPlan {
                library_id: &library.id,
                collection: &contents.library.name,
                renamed_from: renamed_from.as_deref(),
                records: &records,
                replaced: &contents.replaced,
                bibcodes: &contents.bibcodes,
                left: &left,
                date_last_modified: &contents.library.date_last_modified,
            })
            .await
            .map_err(storage)?;
        Ok(AdsPullReport {
            collection: contents.library.name.clone(),
            library: contents.library,
            unchanged: false,
            created: applied.created,
            joined: applied.joined,
            left,
            replaced: contents.replaced,
            not_found,
            renamed_from: renamed_from.filter(|_| applied.renamed),
            bibcodes: contents.bibcodes,
        })
    }

    /// The library `which` names among the user's; else, given an id, that library (a
    /// colleague's public one, or a clear 403/404).
    async fn library_to_pull(&self, which: &str) -> Result<AdsLibrary, String> {
        let libraries = self.ads_libraries().await?;
        if let Some(library) = pick_library(&libraries, which) {
            return Ok(library.clone());
        }
        if !is_library_id(which.trim()) {
            return Err(unknown(&libraries, which));
        }
        let contents = self.papers.ads.library_contents(which.trim()).await;
        contents
            .map(|contents| contents.library)
            .map_err(|error| ads_error(error, which.trim()))
    }

    /// Of these bibcodes, those no paper here has (under them or the bibcode ADS
    /// replaced by them).
    async fn unknown_bibcodes(
        &self,
        bibcodes: &[String],
        replaced: &[(String, String)],
    ) -> Result<Vec<String>, String> {
        let mut unknown = Vec::new();
        for bibcode in bibcodes {
            let old = replaced
                .iter()
                .find(|(_, new)| new == bibcode)
                .map(|(old, _)| old.as_str());
            let mut known = false;
            for candidate in std::iter::once(bibcode.as_str()).chain(old) {
                known |= self
                    .store
                    .find_paper(Some(candidate), None, None)
                    .await
                    .map_err(storage)?
                    .is_some();
            }
            if !known {
                unknown.push(bibcode.clone());
            }
        }
        Ok(unknown)
    }

    /// Pushes the papers of `collection` that have a bibcode to the ADS library `to`
    /// (name or id).
    pub async fn push_ads_library(
        &self,
        collection: &str,
        to: &str,
        options: PushOptions,
    ) -> Result<AdsPushReport, String> {
        if !self
            .store
            .collection_exists(collection)
            .await
            .map_err(storage)?
        {
            return Err(format!("no collection named {collection:?}"));
        }
        let (bibcodes, skipped) = self
            .store
            .collection_bibcodes(collection)
            .await
            .map_err(storage)?;
        let libraries = self.ads_libraries().await?;
        let Some(library) = pick_library(&libraries, to) else {
            if !options.create {
                return Err(format!(
                    "{} (add --create to make it)",
                    unknown(&libraries, to)
                ));
            }
            return self
                .create_ads_library(collection, to, bibcodes, skipped)
                .await;
        };
        if !library.writable() {
            return Err(format!(
                "you may only read the ADS library {:?} (permission: {}); ask its owner for write access",
                library.name, library.permission
            ));
        }
        let quoted = format!("{:?}", library.name);
        let error = |error| ads_error(error, &quoted);
        let there = self
            .papers
            .ads
            .library_contents(&library.id)
            .await
            .map_err(error)?;
        let there_set: HashSet<&str> = there.bibcodes.iter().map(String::as_str).collect();
        let ours: HashSet<&str> = bibcodes.iter().map(String::as_str).collect();
        let to_add: Vec<String> = bibcodes
            .iter()
            .filter(|b| !there_set.contains(b.as_str()))
            .cloned()
            .collect();
        let mut report = AdsPushReport {
            library_id: library.id.clone(),
            library_name: library.name.clone(),
            created: false,
            added: 0,
            removed: 0,
            already: (bibcodes.len() - to_add.len()) as u32,
            invalid: Vec::new(),
            skipped,
        };
        if !to_add.is_empty() {
            let done = self
                .papers
                .ads
                .change_documents(&library.id, true, &to_add)
                .await
                .map_err(error)?;
            report.added = done.added;
            report.invalid = done.invalid;
        }
        let to_remove: Vec<String> = there
            .bibcodes
            .iter()
            .filter(|b| options.remove_missing && !ours.contains(b.as_str()))
            .cloned()
            .collect();
        if !to_remove.is_empty() {
            let done = self
                .papers
                .ads
                .change_documents(&library.id, false, &to_remove)
                .await
                .map_err(error)?;
            report.removed = done.removed;
        }
        Ok(report)
    }

    async fn create_ads_library(
        &self,
        collection: &str,
        name: &str,
        bibcodes: Vec<String>,
        skipped: Vec<(String, String)>,
    ) -> Result<AdsPushReport, String> {
        let description = format!("From the collection {collection:?} of Asterism");
        let id = self
            .papers
            .ads
            .create_library(name.trim(), &description, &bibcodes)
            .await
            .map_err(|error| ads_error(error, &format!("{name:?}")))?;
        Ok(AdsPushReport {
            library_id: id,
            library_name: name.trim().to_string(),
            created: true,
            added: bibcodes.len() as u32,
            removed: 0,
            already: 0,
            invalid: Vec::new(),
            skipped,
        })
    }
}

/// The bibcode ADS now uses for `bibcode`.
fn canonical(replaced: &[(String, String)], bibcode: String) -> String {
    replaced
        .iter()
        .find(|(old, _)| *old == bibcode)
        .map_or(bibcode, |(_, new)| new.clone())
}

impl AdsPullReport {
    fn unchanged(library: AdsLibrary, bibcodes: Vec<String>) -> Self {
        Self {
            collection: library.name.clone(),
            library,
            unchanged: true,
            created: 0,
            joined: 0,
            left: Vec::new(),
            replaced: Vec::new(),
            not_found: Vec::new(),
            renamed_from: None,
            bibcodes,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn library(id: &str, name: &str) -> AdsLibrary {
        AdsLibrary {
            id: id.into(),
            name: name.into(),
            description: String::new(),
            num_documents: 0,
            permission: "owner".into(),
            public: false,
            date_created: String::new(),
            date_last_modified: String::new(),
            owner: String::new(),
            num_users: 1,
        }
    }

    #[test]
    fn a_library_is_picked_by_id_then_name_then_name_in_any_case_when_unique() {
        let all = [
            library("aaaaaaaaaaaa", "TRGB"),
            library("bbbbbbbbbbbb", "Group reading"),
            library("cccccccccccc", "group READING"),
        ];
        assert_eq!(
            pick_library(&all, "bbbbbbbbbbbb").unwrap().name,
            "Group reading"
        );
        assert_eq!(pick_library(&all, "TRGB").unwrap().id, "aaaaaaaaaaaa");
        assert_eq!(pick_library(&all, "trgb").unwrap().id, "aaaaaaaaaaaa");
        assert_eq!(
            pick_library(&all, "group READING").unwrap().id,
            "cccccccccccc"
        );
        assert!(
            pick_library(&all, "GROUP reading").is_none(),
            "two match: ambiguous"
        );
        assert!(pick_library(&all, "Cepheids").is_none());
    }
}
