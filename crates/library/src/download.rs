//! Downloading a paper's PDF into the library: channels tried in order (arXiv PDF, the
//! ADS resolver's EPRINT_PDF and PUB_PDF, the DOI's open-access copy), each answer
//! checked for the `%PDF` magic and a size limit, streamed to a temporary file and
//! renamed into place, its sha256 recorded. A paper already downloaded is not fetched
//! again; a failed channel leaves nothing behind.

use std::path::{Path, PathBuf};
use std::time::Duration;

use asterism_protocol::PaperRecord;
use asterism_store::{PaperFile, Store};
use futures::StreamExt;
use sha2::{Digest, Sha256};
use tokio::io::AsyncWriteExt;

use crate::sources::ads::AdsClient;

/// Largest PDF accepted.
pub const MAX_PDF_BYTES: u64 = 300 * 1024 * 1024;

/// Why a download failed (after every channel was tried).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum DownloadError {
    #[error("the paper has no arXiv id, bibcode or DOI to download it by")]
    NoIdentifier,
    /// Each channel tried, in order, and why it gave no PDF.
    #[error("no channel gave a PDF: {}", joined(.0))]
    NoPdf(Vec<FailedChannel>),
    #[error("the library could not store the file: {0}")]
    Storage(String),
}

/// One channel that gave no PDF: its source (`arxiv`, `ads-eprint`, …) and why.
#[derive(Debug, Clone, PartialEq)]
pub struct FailedChannel {
    pub source: String,
    pub failure: ChannelFailure,
}

impl std::fmt::Display for FailedChannel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.source, self.failure)
    }
}

fn joined(failed: &[FailedChannel]) -> String {
    let reasons: Vec<String> = failed.iter().map(ToString::to_string).collect();
    reasons.join("; ")
}

/// Why one channel gave no PDF.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ChannelFailure {
    /// The server could not be reached, or did not answer in time.
    #[error("{0}")]
    Network(String),
    /// The server answered with an error status.
    #[error("HTTP {0}")]
    Status(u16),
    /// Over the size limit: as announced (`bytes`) or while streaming (`None`).
    #[error("{}over the {limit_mb} MB limit", announced(.bytes))]
    TooLarge { bytes: Option<u64>, limit_mb: u64 },
    /// The answer is not a PDF (a paywall page, mostly); how it starts, when it has a start.
    #[error("the answer is not a PDF ({})", start_of(.starts))]
    NotPdf { starts: Option<String> },
    /// The file could not be written or put in place.
    #[error("{0}")]
    Io(String),
    /// The answer stopped before its end.
    #[error("the download broke off: {0}")]
    BrokeOff(String),
}

fn announced(bytes: &Option<u64>) -> String {
    bytes
        .map(|bytes| format!("{bytes} bytes is "))
        .unwrap_or_default()
}

fn start_of(starts: &Option<String>) -> String {
    match starts {
        Some(preview) => format!("it starts {preview:?}"),
        None => "empty or too short".into(),
    }
}

/// A stored PDF.
#[derive(Debug, Clone, PartialEq)]
pub struct Downloaded {
    pub paper_id: String,
    pub path: PathBuf,
    pub sha256: String,
    pub bytes: u64,
    /// `arxiv`, `ads-eprint`, `ads-publisher`, `doi`, or `library` when it was there.
    pub source: String,
    pub already_present: bool,
}

/// Downloads PDFs into `{data_dir}/papers/`.
#[derive(Debug, Clone)]
pub struct Downloader {
    http: reqwest::Client,
    arxiv_url: String,
    /// The DOI resolver (`https://doi.org`), configurable for tests.
    doi_url: String,
    ads: AdsClient,
    store: Store,
    papers_dir: PathBuf,
    max_bytes: u64,
}

impl Downloader {
    pub fn new(
        arxiv_url: &str,
        ads: AdsClient,
        store: Store,
        data_dir: &Path,
    ) -> Result<Self, DownloadError> {
        let http = crate::http::client(Duration::from_secs(120))
            .map_err(|error| DownloadError::Storage(error.to_string()))?;
        Ok(Self {
            http,
            arxiv_url: arxiv_url.trim_end_matches('/').to_string(),
            doi_url: "https://doi.org".into(),
            ads,
            store,
            papers_dir: data_dir.join("papers"),
            max_bytes: MAX_PDF_BYTES,
        })
    }

    pub fn with_doi_url(mut self, doi_url: &str) -> Self {
        self.doi_url = doi_url.trim_end_matches('/').to_string();
        self
    }

    pub fn with_max_bytes(mut self, max_bytes: u64) -> Self {
        self.max_bytes = max_bytes;
        self
    }

    /// The channels to try, in order, as (source, URL).
    async fn channels(&self, paper: &PaperRecord) -> Vec<(String, String)> {
        let mut channels = Vec::new();
        if let Some(arxiv) = &paper.arxiv_id {
            let version = paper
                .arxiv_version
                .map(|v| format!("v{v}"))
                .unwrap_or_default();
            channels.push((
                "arxiv".to_string(),
                format!("{}/pdf/{arxiv}{version}", self.arxiv_url),
            ));
        }
        if let Some(bibcode) = &paper.bibcode
            && self.ads.has_token()
            && let Ok(links) = self.ads.links(bibcode).await
        {
            for wanted in ["EPRINT_PDF", "PUB_PDF"] {
                for link in links.iter().filter(|link| link.link_type == wanted) {
                    let source = if wanted == "EPRINT_PDF" {
                        "ads-eprint"
                    } else {
                        "ads-publisher"
                    };
                    channels.push((source.to_string(), link.url.clone()));
                }
            }
        }
        if let Some(doi) = &paper.doi {
            channels.push(("doi".to_string(), format!("{}/{doi}", self.doi_url)));
        }
        channels
    }

    /// Downloads the paper's PDF (or finds it already stored), reporting progress as
    /// (bytes so far, total when known).
    pub async fn download(
        &self,
        paper: &PaperRecord,
        progress: &(dyn Fn(u64, Option<u64>) + Send + Sync),
    ) -> Result<Downloaded, DownloadError> {
        if paper.arxiv_id.is_none() && paper.bibcode.is_none() && paper.doi.is_none() {
            return Err(DownloadError::NoIdentifier);
        }
        let storage = |error: asterism_store::StoreError| DownloadError::Storage(error.to_string());
        let paper_id = self.store.upsert_paper(paper).await.map_err(storage)?;
        if let Some(file) = self.store.paper_pdf(&paper_id).await.map_err(storage)?
            && Path::new(&file.path).is_file()
        {
            return Ok(Downloaded {
                paper_id,
                path: PathBuf::from(&file.path),
                sha256: file.sha256,
                bytes: u64::try_from(file.size_bytes).unwrap_or(0),
                source: "library".into(),
                already_present: true,
            });
        }
        tokio::fs::create_dir_all(&self.papers_dir)
            .await
            .map_err(|error| DownloadError::Storage(error.to_string()))?;
        let mut failures = Vec::new();
        for (source, url) in self.channels(paper).await {
            match self.fetch(&url, &paper_id, progress).await {
                Ok((path, sha256, bytes)) => {
                    let file = PaperFile {
                        paper_id: paper_id.clone(),
                        kind: "pdf".into(),
                        path: path.display().to_string(),
                        sha256: sha256.clone(),
                        size_bytes: i64::try_from(bytes).unwrap_or(i64::MAX),
                        source: source.clone(),
                    };
                    if let Err(error) = self.store.add_paper_file(&file, None).await {
                        let _ = tokio::fs::remove_file(&path).await;
                        return Err(DownloadError::Storage(error.to_string()));
                    }
                    return Ok(Downloaded {
                        paper_id,
                        path,
                        sha256,
                        bytes,
                        source,
                        already_present: false,
                    });
                }
                Err(failure) => failures.push(FailedChannel { source, failure }),
            }
        }
        if failures.is_empty() {
            return Err(DownloadError::NoIdentifier);
        }
        Err(DownloadError::NoPdf(failures))
    }

    /// One channel: stream to a temporary file, check, hash, rename. Returns why when
    /// the answer is not an acceptable PDF (the temporary file is removed).
    async fn fetch(
        &self,
        url: &str,
        paper_id: &str,
        progress: &(dyn Fn(u64, Option<u64>) + Send + Sync),
    ) -> Result<(PathBuf, String, u64), ChannelFailure> {
        let response = self
            .http
            .get(url)
            .header(reqwest::header::ACCEPT, "application/pdf")
            .send()
            .await
            .map_err(|error| ChannelFailure::Network(crate::http::describe(&error)))?;
        let status = response.status();
        if !status.is_success() {
            return Err(ChannelFailure::Status(status.as_u16()));
        }
        let total = response.content_length();
        if let Some(bytes) = total.filter(|&total| total > self.max_bytes) {
            return Err(self.too_large(Some(bytes)));
        }
        let temporary = self
            .papers_dir
            .join(format!(".download-{}.part", uuid::Uuid::new_v4().simple()));
        let result = self
            .write_checked(response, &temporary, total, progress)
            .await;
        match result {
            Ok((sha256, bytes)) => {
                let path = self.papers_dir.join(format!("{paper_id}.pdf"));
                tokio::fs::rename(&temporary, &path)
                    .await
                    .map_err(|error| {
                        let _ = std::fs::remove_file(&temporary);
                        ChannelFailure::Io(error.to_string())
                    })?;
                Ok((path, sha256, bytes))
            }
            Err(reason) => {
                let _ = tokio::fs::remove_file(&temporary).await;
                Err(reason)
            }
        }
    }

    fn too_large(&self, bytes: Option<u64>) -> ChannelFailure {
        ChannelFailure::TooLarge {
            bytes,
            limit_mb: self.max_bytes / 1024 / 1024,
        }
    }

    async fn write_checked(
        &self,
        response: reqwest::Response,
        temporary: &Path,
        total: Option<u64>,
        progress: &(dyn Fn(u64, Option<u64>) + Send + Sync),
    ) -> Result<(String, u64), ChannelFailure> {
        let io = |error: std::io::Error| ChannelFailure::Io(error.to_string());
        let mut file = tokio::fs::File::create(temporary).await.map_err(io)?;
        let mut hasher = Sha256::new();
        let mut bytes: u64 = 0;
        let mut head: Vec<u8> = Vec::with_capacity(8);
        let mut stream = response.bytes_stream();
        let mut last_report = 0u64;
        while let Some(chunk) = stream.next().await {
            let chunk =
                chunk.map_err(|error| ChannelFailure::BrokeOff(crate::http::describe(&error)))?;
            if head.len() < 5 {
                head.extend(chunk.iter().take(5 - head.len()));
                if head.len() >= 5 && !head.starts_with(b"%PDF-") {
                    let preview = String::from_utf8_lossy(&chunk[..chunk.len().min(40)])
                        .trim()
                        .to_string();
                    return Err(ChannelFailure::NotPdf {
                        starts: Some(preview),
                    });
                }
            }
            bytes += chunk.len() as u64;
            if bytes > self.max_bytes {
                return Err(self.too_large(None));
            }
            hasher.update(&chunk);
            file.write_all(&chunk).await.map_err(io)?;
            if bytes - last_report >= 256 * 1024 {
                last_report = bytes;
                progress(bytes, total);
            }
        }
        if !head.starts_with(b"%PDF-") {
            return Err(ChannelFailure::NotPdf { starts: None });
        }
        file.flush().await.map_err(io)?;
        file.sync_all().await.map_err(io)?;
        progress(bytes, total.or(Some(bytes)));
        let digest = hasher.finalize();
        Ok((
            digest.iter().map(|byte| format!("{byte:02x}")).collect(),
            bytes,
        ))
    }
}
