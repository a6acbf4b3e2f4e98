//! Real embeddings: every passage of the fixture PDFs and the retrieval questions,
//! embedded by whichever local model `LocalModel::find()` gives. Cached under the
//! bench's target tmp dir (keyed by the model's name and file size) so reruns skip the
//! minute of embedding.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use asterism_library::library::Library;
use asterism_library::library::embed::Embedder;
use asterism_library::library::local::LocalModel;
use asterism_library::papers::PaperSearch;
use asterism_library::sources::ads::AdsClient;
use asterism_library::sources::arxiv::ArxivClient;
use asterism_store::Store;

pub const DIMENSIONS: usize = 384;

/// One embedded text: which paper (file name stem), page, and the unit vector.
#[derive(Clone)]
pub struct Embedded {
    pub paper: String,
    pub page: i64,
    pub vector: Vec<f32>,
}

pub struct RealSet {
    pub model: String,
    pub passages: Vec<Embedded>,
    pub questions: Vec<Embedded>,
    /// Where the questions came from.
    pub question_source: String,
}

/// The fallback questions (as in the `library` bench): (question, paper, pages).
const QUESTIONS: &[(&str, &str, &[i64])] = &[
    (
        "How long is the full Kepler data set of Kepler 1627 and at what cadence was it sampled?",
        "rudolf",
        &[3],
    ),
    (
        "Which bright naked-eye stars appear near the delta Lyr cluster in the Kepler and TESS fields?",
        "rudolf",
        &[2],
    ),
    (
        "What priors were used for the transit and stellar variability model of Kepler 1627b?",
        "rudolf",
        &[5],
    ),
    (
        "How were the flux measurements of the phase-folded transit binned?",
        "rudolf",
        &[4],
    ),
    (
        "For which kernel is the inverse of the covariance matrix tridiagonal?",
        "celerite",
        &[4],
    ),
    (
        "How can a celerite term be interpreted as a quasiperiodic oscillator with a quality factor?",
        "celerite",
        &[5],
    ),
    (
        "How is the likelihood computed in the simple example with three data points?",
        "celerite",
        &[6],
    ),
    (
        "Which LU decomposition algorithms for banded matrices were compared?",
        "celerite",
        &[10],
    ),
    (
        "Which covariance function is known as the Matern-3/2 function?",
        "celerite",
        &[14],
    ),
    (
        "What is the gamma astro data format initiative?",
        "gammapy",
        &[2, 3],
    ),
    (
        "How do instrument response functions depend on the detector coordinates?",
        "gammapy",
        &[5],
    ),
    (
        "How do you create a WCS map and a HEALPix map with an energy axis?",
        "gammapy",
        &[8],
    ),
    (
        "Which SED types are supported, such as dnde and eflux?",
        "gammapy",
        &[12],
    ),
    (
        "Which source catalogs like 4FGL and 3HWC can be loaded?",
        "gammapy",
        &[14],
    ),
];

#[derive(serde::Deserialize)]
struct QuestionRow {
    paper: String,
    #[serde(default)]
    pages: Vec<i64>,
    question: String,
}

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../testkit/fixtures")
}

/// The questions: `retrieval/questions.json` when it is there, else the built-in ones.
fn questions() -> (Vec<(String, String, i64)>, String) {
    let path = fixtures().join("retrieval/questions.json");
    if let Ok(text) = std::fs::read_to_string(&path)
        && let Ok(rows) = serde_json::from_str::<Vec<QuestionRow>>(&text)
        && !rows.is_empty()
    {
        let rows = rows
            .into_iter()
            .map(|row| {
                let page = row.pages.first().copied().unwrap_or(0);
                (row.question, row.paper, page)
            })
            .collect();
        return (rows, "testkit/fixtures/retrieval/questions.json".into());
    }
    let rows = QUESTIONS
        .iter()
        .map(|(q, paper, pages)| (q.to_string(), paper.to_string(), pages[0]))
        .collect();
    (rows, "the library bench's 14 questions".into())
}

fn papers(store: &Store) -> PaperSearch {
    PaperSearch {
        ads: AdsClient::new(
            "http://127.0.0.1:9".to_string(),
            None,
            Duration::from_secs(1),
        )
        .unwrap(),
        arxiv: ArxivClient::new("http://127.0.0.1:9".to_string(), Duration::from_secs(1)).unwrap(),
        store: store.clone(),
    }
}

fn write_set(path: &Path, set: &RealSet) {
    let mut out = Vec::new();
    let put_str = |out: &mut Vec<u8>, s: &str| {
        out.extend((s.len() as u32).to_le_bytes());
        out.extend(s.as_bytes());
    };
    put_str(&mut out, &set.model);
    put_str(&mut out, &set.question_source);
    for list in [&set.passages, &set.questions] {
        out.extend((list.len() as u32).to_le_bytes());
        for e in list {
            put_str(&mut out, &e.paper);
            out.extend(e.page.to_le_bytes());
            for x in &e.vector {
                out.extend(x.to_le_bytes());
            }
        }
    }
    std::fs::write(path, out).unwrap();
}

/// Reads what [`write_set`] wrote; `None` when it is missing or cut short.
struct Reader {
    bytes: Vec<u8>,
    at: usize,
}

impl Reader {
    fn take(&mut self, n: usize) -> Option<&[u8]> {
        let slice = self.bytes.get(self.at..self.at + n)?;
        self.at += n;
        Some(slice)
    }
    fn u32(&mut self) -> Option<usize> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?) as usize)
    }
    fn string(&mut self) -> Option<String> {
        let n = self.u32()?;
        String::from_utf8(self.take(n)?.to_vec()).ok()
    }
    fn embedded(&mut self) -> Option<Embedded> {
        let paper = self.string()?;
        let page = i64::from_le_bytes(self.take(8)?.try_into().ok()?);
        let vector = self
            .take(4 * DIMENSIONS)?
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        Some(Embedded {
            paper,
            page,
            vector,
        })
    }
    fn list(&mut self) -> Option<Vec<Embedded>> {
        let n = self.u32()?;
        (0..n).map(|_| self.embedded()).collect()
    }
}

fn read_set(path: &Path) -> Option<RealSet> {
    let mut reader = Reader {
        bytes: std::fs::read(path).ok()?,
        at: 0,
    };
    let model = reader.string()?;
    let question_source = reader.string()?;
    let passages = reader.list()?;
    let questions = reader.list()?;
    Some(RealSet {
        model,
        passages,
        questions,
        question_source,
    })
}

/// Embeds the fixture PDFs' passages and the questions; `None` when no local model is
/// installed.
pub async fn load() -> Option<RealSet> {
    let model = LocalModel::find()?;
    let embedder = model.load().unwrap();
    let size = std::fs::metadata(model.dir.join("model.onnx"))
        .map(|m| m.len())
        .unwrap_or(0);
    let (question_rows, question_source) = questions();
    let key = format!(
        "{}-{size}-{}",
        embedder
            .name()
            .replace(|c: char| !c.is_ascii_alphanumeric(), "_"),
        question_rows.len()
    );
    let cache = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("vector-bench-{key}.bin"));
    if let Some(set) = read_set(&cache)
        && set.question_source == question_source
    {
        println!(
            "real embeddings: {} passages, {} questions ({}), model {} (cached in {})",
            set.passages.len(),
            set.questions.len(),
            set.question_source,
            set.model,
            cache.display()
        );
        return Some(set);
    }
    let started = std::time::Instant::now();
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open_in_dir(dir.path()).await.unwrap();
    let embedder: Arc<dyn Embedder> = Arc::new(embedder);
    let library = Library::new(
        store.clone(),
        papers(&store),
        model.chunker().unwrap(),
        dir.path(),
        Some(embedder.clone()),
    );
    library
        .import(&[fixtures().join("pdfs")], false, &|_, _, _| {})
        .await;
    library.index(&|_, _| {}).await.unwrap();
    let mut stored = Vec::new();
    store
        .scan_vectors(4096, |batch| stored.extend(batch.iter().cloned()))
        .await
        .unwrap();
    stored.sort_by_key(|(id, _)| *id);
    let ids: Vec<i64> = stored.iter().map(|(id, _)| *id).collect();
    let hits = store.chunk_hits(&ids).await.unwrap();
    let by_id: std::collections::HashMap<i64, _> = hits.iter().map(|h| (h.chunk_id, h)).collect();
    let passages: Vec<Embedded> = stored
        .into_iter()
        .map(|(id, vector)| {
            let hit = by_id.get(&id);
            Embedded {
                paper: hit
                    .and_then(|h| h.original_name.clone())
                    .unwrap_or_default()
                    .trim_end_matches(".pdf")
                    .to_string(),
                page: hit.and_then(|h| h.page).unwrap_or(0),
                vector,
            }
        })
        .collect();
    let texts: Vec<String> = question_rows.iter().map(|(q, _, _)| q.clone()).collect();
    let vectors = embedder.embed(&texts).await.unwrap();
    let questions = question_rows
        .iter()
        .zip(vectors)
        .map(|((_, paper, page), vector)| Embedded {
            paper: paper.clone(),
            page: *page,
            vector,
        })
        .collect();
    let set = RealSet {
        model: embedder.name(),
        passages,
        questions,
        question_source,
    };
    write_set(&cache, &set);
    println!(
        "real embeddings: {} passages, {} questions ({}), model {}, embedded in {:.0} s",
        set.passages.len(),
        set.questions.len(),
        set.question_source,
        set.model,
        started.elapsed().as_secs_f64()
    );
    Some(set)
}

/// Writes the test fixture `vectors/minilm_passages.bin`: u32 LE passage count, u32 LE
/// question count, then every vector as 384 signed bytes (scaled so its largest
/// component is 127): the passages that fit the distribution (7 in 8), then the first
/// 50 questions.
pub fn write_fixture(set: &RealSet) {
    let passages: Vec<&Embedded> = set
        .passages
        .iter()
        .enumerate()
        .filter(|(i, _)| i % 8 != 7)
        .map(|(_, p)| p)
        .collect();
    let questions: Vec<&Embedded> = set.questions.iter().take(50).collect();
    let mut out = Vec::new();
    out.extend((passages.len() as u32).to_le_bytes());
    out.extend((questions.len() as u32).to_le_bytes());
    for e in passages.iter().chain(&questions) {
        let largest = e.vector.iter().fold(0.0f32, |m, x| m.max(x.abs()));
        out.extend(
            e.vector
                .iter()
                .map(|x| (x / largest * 127.0).round() as i8 as u8),
        );
    }
    let path = fixtures().join("vectors/minilm_passages.bin");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, out).unwrap();
    println!(
        "wrote {} ({} passages, {} questions, model {})",
        path.display(),
        passages.len(),
        questions.len(),
        set.model
    );
}
