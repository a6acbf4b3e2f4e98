//! Reading a PDF for its import: its text, what it says of itself and its text
//! fingerprint, and the next PDF of a folder read ahead of its turn.

use std::path::{Path, PathBuf};

use asterism_protocol::PaperRecord;
use asterism_store::Store;
use tokio_util::task::AbortOnDropHandle;

use super::{plausible_title, sha256_hex};
use crate::library::fingerprint::text_fingerprint;
use crate::library::identifiers::{find_arxiv_id, find_doi};
use crate::library::metadata::LocalMetadata;
use crate::parse::{PdfError, PdfText, extract_pdf};

/// How many PDFs are parsed ahead of the one being committed: with one, the parser
/// waited whenever a paper took longer to commit than the next took to parse.
pub(super) const READ_AHEAD: usize = 1;

/// Whose turn it is to be parsed ahead.
static PARSE_TURN: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// Whether a file is named like a PDF.
pub(super) fn is_pdf_name(path: &Path) -> bool {
    path.extension()
        .and_then(|ext| ext.to_str())
        .is_some_and(|ext| ext.eq_ignore_ascii_case("pdf"))
}

/// The next PDF of an import, parsed while the one before it is cut into passages and
/// committed: pdfium serves one thread at a time, so this is what keeps a second core
/// busy. A file the library already has (by its hash) is not parsed; the task stops
/// when the import does.
pub(super) struct ReadAhead {
    pub(super) path: PathBuf,
    sha256: String,
    task: AbortOnDropHandle<Result<ReadPdf, String>>,
}

impl ReadAhead {
    /// Starts parsing the PDF at `path`, unless it cannot be read or the library has it.
    /// Its hash is looked up here, between two commits: asked from the parsing task,
    /// the lookup waited for the commit before it, and so did the parsing.
    pub(super) async fn start(store: &Store, path: PathBuf) -> Option<Self> {
        let bytes = tokio::fs::read(&path).await.ok()?;
        let sha256 = sha256_hex(&bytes);
        if store.stored_file(&sha256).await.ok()?.is_some() {
            return None;
        }
        let name = path
            .file_name()
            .map(|name| name.to_string_lossy().into_owned())
            .unwrap_or_default();
        let task = AbortOnDropHandle::new(tokio::spawn(async move {
            // In the order they were started (tokio's lock is first come, first served).
            let _turn = PARSE_TURN.lock().await;
            read_pdf(bytes, &name).await
        }));
        Some(Self { path, sha256, task })
    }

    /// What was read, when it is the file with `sha256` (the file may have changed
    /// since).
    pub(super) async fn take(mut self, sha256: &str) -> Option<Result<ReadPdf, String>> {
        if self.sha256 != sha256 {
            return None;
        }
        (&mut self.task).await.ok()
    }
}

/// A PDF read: its bytes, its text (none when encrypted or scanned, with the warning
/// saying so) and the record of what it says of itself.
pub(super) struct ReadPdf {
    pub(super) bytes: Vec<u8>,
    pub(super) text: Option<PdfText>,
    /// See [`text_fingerprint`].
    pub(super) fingerprint: Option<u64>,
    pub(super) warning: Option<String>,
    pub(super) local: PaperRecord,
}

/// Extracts the text and metadata of a PDF off the async threads. A damaged file or
/// one that is not a PDF is an error (nothing is stored); an encrypted or scanned one
/// is kept, unsearchable, with a warning.
pub(super) async fn read_pdf(bytes: Vec<u8>, file_name: &str) -> Result<ReadPdf, String> {
    let (bytes, text, metadata) = tokio::task::spawn_blocking(move || {
        let text = extract_pdf(&bytes);
        let metadata = text
            .as_ref()
            .map(|text| LocalMetadata::of_pdf(text, &bytes))
            .unwrap_or_default();
        (bytes, text, metadata)
    })
    .await
    .map_err(|error| format!("reading the PDF failed: {error}"))?;
    let (text, warning) = match text {
        Ok(text) => (Some(text), None),
        Err(error @ (PdfError::Encrypted | PdfError::NoTextLayer { .. })) => {
            (None, Some(error.to_string()))
        }
        Err(error) => return Err(error.to_string()),
    };
    let local = local_record(text.as_ref(), &metadata, file_name);
    Ok(ReadPdf {
        bytes,
        fingerprint: text.as_ref().and_then(|text| text_fingerprint(&text.pages)),
        text,
        warning,
        local,
    })
}

/// What the PDF says of itself: its metadata, the arXiv id and DOI printed on its
/// first page, and a title (the file name when nothing better is found). Only the
/// first page: the second may already cite other papers' DOIs and arXiv ids, and two
/// papers citing the same one would be taken for one paper.
fn local_record(text: Option<&PdfText>, metadata: &LocalMetadata, file_name: &str) -> PaperRecord {
    let front = text
        .and_then(|text| text.pages.first().cloned())
        .unwrap_or_default();
    let title_guess = text
        .and_then(|text| {
            text.title
                .clone()
                .filter(|title| plausible_title(title))
                .or_else(|| text.title_guess.clone())
        })
        .unwrap_or_else(|| file_name.trim_end_matches(".pdf").to_string());
    let mut local = metadata.to_record(&title_guess);
    local.arxiv_id = local.arxiv_id.or_else(|| find_arxiv_id(&front));
    local.doi = local.doi.or_else(|| find_doi(&front));
    local
}
