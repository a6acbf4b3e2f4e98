//! What an import came to, counted the same way by the CLI and the app, and the papers
//! it brought put into the collection asked for.

use asterism_store::StoreError;

use crate::library::{ImportItem, ImportOutcome, Library};

/// How many files came to each outcome.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ImportCounts {
    pub imported: usize,
    pub linked: usize,
    pub duplicates: usize,
    pub metadata_only: usize,
    pub skipped: usize,
    pub failed: usize,
}

impl ImportCounts {
    pub fn of(items: &[ImportItem]) -> Self {
        let mut counts = Self::default();
        for item in items {
            match item.outcome {
                ImportOutcome::Imported { .. } => counts.imported += 1,
                ImportOutcome::Linked { .. } => counts.linked += 1,
                ImportOutcome::Duplicate { .. } => counts.duplicates += 1,
                ImportOutcome::MetadataOnly { .. } => counts.metadata_only += 1,
                ImportOutcome::Skipped { .. } => counts.skipped += 1,
                ImportOutcome::Failed { .. } => counts.failed += 1,
            }
        }
        counts
    }
}

/// A finished file as the CLI's NDJSON and the app's import events report it: its
/// outcome's name, its paper and title, and what to say about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileOutcome<'a> {
    pub outcome: &'static str,
    pub paper_id: Option<&'a str>,
    pub title: Option<&'a str>,
    /// Why it failed or was skipped, a warning, the paper it matched by its text, or
    /// the file a listed entry lacks.
    pub message: Option<String>,
}

impl ImportItem {
    pub fn reported(&self) -> FileOutcome<'_> {
        let (outcome, paper_id, title, message) = match &self.outcome {
            ImportOutcome::Imported {
                paper_id,
                title,
                warning,
                ..
            } => ("imported", Some(paper_id), Some(title), warning.clone()),
            ImportOutcome::Linked {
                paper_id,
                title,
                same_text,
            } => (
                "linked",
                Some(paper_id),
                Some(title),
                same_text.then(|| format!("same paper as {paper_id} (text matches)")),
            ),
            ImportOutcome::Duplicate { paper_id } => ("duplicate", Some(paper_id), None, None),
            ImportOutcome::MetadataOnly {
                paper_id, title, ..
            } => (
                "metadataOnly",
                Some(paper_id),
                Some(title),
                self.outcome.why_without_file(),
            ),
            ImportOutcome::Skipped { reason } => ("skipped", None, None, Some(reason.clone())),
            ImportOutcome::Failed { reason } => ("failed", None, None, Some(reason.clone())),
        };
        FileOutcome {
            outcome,
            paper_id: paper_id.map(String::as_str),
            title: title.map(String::as_str),
            message,
        }
    }
}

impl ImportOutcome {
    /// Why a listed entry came without a file: the files looked for and not found, the
    /// paper that keeps the file it names; `None` when it names no file.
    pub fn why_without_file(&self) -> Option<String> {
        let ImportOutcome::MetadataOnly {
            missing,
            file_kept_by,
            ..
        } = self
        else {
            return None;
        };
        let mut why = Vec::new();
        if !missing.is_empty() {
            why.push(format!("file not found: {}", missing.join(", ")));
        }
        if let Some(paper) = file_kept_by {
            why.push(format!(
                "its file is the same as that of another work, {paper}, which keeps it"
            ));
        }
        (!why.is_empty()).then(|| why.join("; "))
    }
}

/// The paper a file became or was attached to (not a duplicate, skip or failure).
pub fn imported_paper(item: &ImportItem) -> Option<&str> {
    match &item.outcome {
        ImportOutcome::Imported { paper_id, .. }
        | ImportOutcome::Linked { paper_id, .. }
        | ImportOutcome::MetadataOnly { paper_id, .. } => Some(paper_id),
        _ => None,
    }
}

impl Library {
    /// Puts the papers `items` brought into `collection` (blank: none).
    pub async fn collect_imported(
        &self,
        items: &[ImportItem],
        collection: &str,
    ) -> Result<(), StoreError> {
        let collection = collection.trim();
        if collection.is_empty() {
            return Ok(());
        }
        for paper_id in items.iter().filter_map(imported_paper) {
            self.store.add_to_collection(paper_id, collection).await?;
        }
        Ok(())
    }
}
