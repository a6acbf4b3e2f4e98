//! The local cross-encoder: it reads the query and a passage together and scores how
//! well the passage answers it, which orders the few best fused hits better than either
//! BM25 or vectors can. `scripts/install-deps.sh` puts it in `.deps/reranker/`
//! (`model.onnx` and the tokenizer files); `ASTERISM_RERANKER_DIR` points elsewhere,
//! `none` turns it off.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;

use crate::library::embed::EmbedError;
use crate::library::local::{init_runtime, roots, tokenizer_files};

/// Scores (query, passage) pairs: higher is more relevant.
#[async_trait]
pub trait Reranker: Send + Sync {
    fn name(&self) -> String;
    async fn scores(&self, query: &str, passages: &[String]) -> Result<Vec<f32>, EmbedError>;
}

/// The files of the installed cross-encoder.
#[derive(Debug, Clone)]
pub struct RerankerModel {
    pub dir: PathBuf,
    pub runtime: PathBuf,
}

/// Tokens of query and passage read together.
const MAX_LENGTH: usize = 256;

impl RerankerModel {
    /// The installed cross-encoder, if its files are all there.
    pub fn find() -> Option<Self> {
        let configured = std::env::var_os("ASTERISM_RERANKER_DIR");
        if configured.as_ref().is_some_and(|value| value == "none") {
            return None;
        }
        let runtimes: Vec<PathBuf> = roots()
            .iter()
            .map(|root| root.join("onnxruntime/libonnxruntime.so"))
            .collect();
        let dirs: Vec<PathBuf> = match configured {
            Some(dir) => vec![PathBuf::from(dir)],
            None => roots().iter().map(|root| root.join("reranker")).collect(),
        };
        let dir = dirs.into_iter().find(|dir| {
            ["model.onnx", "tokenizer.json", "config.json"]
                .iter()
                .all(|name| dir.join(name).is_file())
        })?;
        let runtime = std::iter::once(dir.join("libonnxruntime.so"))
            .chain(runtimes)
            .find(|path| path.is_file())?;
        Some(Self { dir, runtime })
    }

    /// The reranker over these files; the model loads on first use.
    pub fn load(&self) -> LocalReranker {
        let cores = std::thread::available_parallelism()
            .map_or(1, usize::from)
            .clamp(1, 4);
        LocalReranker {
            files: self.clone(),
            sessions: Arc::new((0..cores).map(|_| Mutex::new(None)).collect()),
        }
    }

    fn session(&self) -> Result<fastembed::TextRerank, EmbedError> {
        init_runtime(&self.runtime)?;
        let onnx = std::fs::read(self.dir.join("model.onnx"))
            .map_err(|error| EmbedError::Local(format!("model.onnx: {error}")))?;
        let model = fastembed::UserDefinedRerankingModel::new(onnx, tokenizer_files(&self.dir)?);
        let options = fastembed::RerankInitOptionsUserDefined::new()
            .with_max_length(MAX_LENGTH)
            .with_intra_threads(1);
        fastembed::TextRerank::try_new_from_user_defined(model, options)
            .map_err(|error| EmbedError::Local(error.to_string()))
    }
}

/// The local cross-encoder: one single-threaded session per core, each scoring part of
/// the passages.
pub struct LocalReranker {
    files: RerankerModel,
    sessions: Arc<Vec<Mutex<Option<fastembed::TextRerank>>>>,
}

fn score_with(
    slot: &Mutex<Option<fastembed::TextRerank>>,
    files: &RerankerModel,
    query: &str,
    passages: &[String],
) -> Result<Vec<f32>, EmbedError> {
    let mut slot = slot
        .lock()
        .map_err(|_| EmbedError::Local("the reranker is unusable after a crash".into()))?;
    if slot.is_none() {
        *slot = Some(files.session()?);
    }
    let Some(model) = slot.as_mut() else {
        return Err(EmbedError::Local("the reranker did not load".into()));
    };
    let documents: Vec<&str> = passages.iter().map(String::as_str).collect();
    let ranked = model
        .rerank(
            query,
            documents.as_slice(),
            false,
            Some(passages.len().max(1)),
        )
        .map_err(|error| EmbedError::Local(error.to_string()))?;
    let mut scores = vec![f32::NEG_INFINITY; passages.len()];
    for result in ranked {
        if let Some(score) = scores.get_mut(result.index) {
            *score = result.score;
        }
    }
    Ok(scores)
}

#[async_trait]
impl Reranker for LocalReranker {
    fn name(&self) -> String {
        let name = self.files.dir.file_name().unwrap_or_default();
        format!("local:{}", name.to_string_lossy())
    }

    async fn scores(&self, query: &str, passages: &[String]) -> Result<Vec<f32>, EmbedError> {
        if passages.is_empty() {
            return Ok(Vec::new());
        }
        let (sessions, files) = (self.sessions.clone(), self.files.clone());
        let (query, passages) = (query.to_string(), passages.to_vec());
        tokio::task::spawn_blocking(move || {
            let part = passages.len().div_ceil(sessions.len());
            std::thread::scope(|scope| {
                let handles: Vec<_> = passages
                    .chunks(part)
                    .zip(sessions.iter())
                    .map(|(chunk, slot)| scope.spawn(|| score_with(slot, &files, &query, chunk)))
                    .collect();
                let mut scores = Vec::with_capacity(passages.len());
                for handle in handles {
                    let part = handle.join().unwrap_or_else(|_| {
                        Err(EmbedError::Local("the reranker crashed".into()))
                    })?;
                    scores.extend(part);
                }
                Ok(scores)
            })
        })
        .await
        .map_err(|error| EmbedError::Local(error.to_string()))?
    }
}
