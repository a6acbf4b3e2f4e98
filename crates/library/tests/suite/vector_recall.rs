//! The vector index on real MiniLM embeddings (`fixtures/vectors/minilm_passages.bin`:
//! passages of the fixture PDFs and retrieval questions), through a real SQLite store:
//! recall@10 against exact search, the same answers after a restart (read from the saved
//! cells), and deleted passages never found again; and on a corpus large enough for the
//! cells to be trained, made of mixtures of the real passages.

use std::collections::HashSet;

use asterism_library::library::vectors::{TRAIN_FROM, VectorIndex, nearest};
use asterism_protocol::PaperRecord;
use asterism_store::{NewChunk, Store};
use asterism_testkit::fixture_path;

const DIMENSIONS: usize = 384;

/// (passages, questions), unit vectors.
fn fixture() -> (Vec<Vec<f32>>, Vec<Vec<f32>>) {
    let bytes = std::fs::read(fixture_path("vectors/minilm_passages.bin")).unwrap();
    let count = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
    let (passages, questions) = (count(0), count(4));
    let mut vectors: Vec<Vec<f32>> = bytes[8..]
        .chunks_exact(DIMENSIONS)
        .map(|codes| {
            let v: Vec<f32> = codes.iter().map(|c| f32::from(*c as i8)).collect();
            let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
            v.iter().map(|x| x / norm).collect()
        })
        .collect();
    assert_eq!(vectors.len(), passages + questions);
    let questions = vectors.split_off(passages);
    (vectors, questions)
}

fn exact_top10(ids: &[i64], passages: &[Vec<f32>], query: &[f32]) -> HashSet<i64> {
    let mut scored: Vec<(f32, i64)> = passages
        .iter()
        .zip(ids)
        .map(|(v, id)| (v.iter().zip(query).map(|(a, b)| a * b).sum(), *id))
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0));
    scored.iter().take(10).map(|(_, id)| *id).collect()
}

/// A paper whose passages carry `vectors`; their chunk ids, in order.
async fn stored_paper(store: &Store, title: &str, vectors: &[Vec<f32>]) -> (String, Vec<i64>) {
    let paper_id = store
        .upsert_paper(&PaperRecord {
            title: title.into(),
            ..PaperRecord::default()
        })
        .await
        .unwrap();
    let chunks: Vec<NewChunk> = (0..vectors.len())
        .map(|i| NewChunk {
            page: Some(1),
            page_end: Some(1),
            page_breaks: Vec::new(),
            section: None,
            text: format!("{title} passage {i}"),
            keywords_only: false,
        })
        .collect();
    store.replace_chunks(&paper_id, &chunks).await.unwrap();
    let mut ids: Vec<i64> = store
        .chunks_to_embed(vectors.len() as i64 * 2)
        .await
        .unwrap()
        .into_iter()
        .map(|(id, _)| id)
        .collect();
    ids.sort_unstable();
    let pairs: Vec<(i64, Vec<f32>)> = ids.iter().copied().zip(vectors.iter().cloned()).collect();
    store.store_vectors(&pairs).await.unwrap();
    (paper_id, ids)
}

async fn recall(
    store: &Store,
    index: &VectorIndex,
    ids: &[i64],
    passages: &[Vec<f32>],
    questions: &[Vec<f32>],
) -> f64 {
    let mut found = 0;
    for question in questions {
        let truth = exact_top10(ids, passages, question);
        let hits = nearest(store, index, question, 10, None).await.unwrap();
        found += hits.iter().filter(|(id, _)| truth.contains(id)).count();
    }
    found as f64 / (10 * questions.len()) as f64
}

#[tokio::test]
async fn real_embeddings_are_found_as_exact_search_finds_them_before_and_after_a_restart() {
    let (passages, questions) = fixture();
    assert!(passages.len() >= 500 && questions.len() >= 50);
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open_in_dir(dir.path()).await.unwrap();
    let (_, ids) = stored_paper(&store, "real", &passages).await;
    let path = dir.path().join("vectors.cells");

    let index = VectorIndex::persisted_at(&path);
    let before = recall(&store, &index, &ids, &passages, &questions).await;
    assert!(before >= 0.95, "recall@10 {before}");
    assert!(path.is_file(), "the index is saved beside the database");

    // A restart: the graph comes back from its file and answers the same.
    let reopened = VectorIndex::persisted_at(&path);
    let after = recall(&store, &reopened, &ids, &passages, &questions).await;
    assert_eq!(reopened.len(), passages.len());
    assert!((after - before).abs() < 1e-9, "{before} then {after}");

    // A filter keeps to its passages.
    let allowed: HashSet<i64> = ids.iter().step_by(3).copied().collect();
    let hits = nearest(&store, &reopened, &questions[0], 10, Some(&allowed))
        .await
        .unwrap();
    assert_eq!(hits.len(), 10);
    assert!(hits.iter().all(|(id, _)| allowed.contains(id)));
}

#[tokio::test]
async fn a_deleted_paper_leaves_the_index_and_a_saved_graph_catches_up_with_the_store() {
    let (passages, questions) = fixture();
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open_in_dir(dir.path()).await.unwrap();
    let (_, kept) = stored_paper(&store, "kept", &passages[..300]).await;
    let (gone_paper, gone) = stored_paper(&store, "gone", &passages[300..400]).await;
    let path = dir.path().join("vectors.cells");
    let index = VectorIndex::persisted_at(&path);
    index.ensure_loaded(&store).await.unwrap();
    assert_eq!(index.len(), 400);

    store.delete_paper(&gone_paper, true).await.unwrap();
    index.invalidate();
    let gone: HashSet<i64> = gone.into_iter().collect();
    for question in &questions {
        let hits = nearest(&store, &index, question, 10, None).await.unwrap();
        assert!(hits.iter().all(|(id, _)| !gone.contains(id)));
    }
    assert_eq!(index.len(), 300);

    // Vectors stored while the saved graph was not looking are added on the next start.
    let (_, late) = stored_paper(&store, "late", &passages[400..450]).await;
    let reopened = VectorIndex::persisted_at(&path);
    reopened.ensure_loaded(&store).await.unwrap();
    assert_eq!(reopened.len(), kept.len() + late.len());
    let mut found_itself = 0;
    for (id, vector) in late.iter().zip(&passages[400..450]) {
        let hits = nearest(&store, &reopened, vector, 1, None).await.unwrap();
        found_itself += usize::from(hits[0].0 == *id);
    }
    assert!(found_itself >= 45, "{found_itself} of 50");
}

/// `n` vectors in the real passages' distribution: each a mixture of two passages
/// (weights 0.3-0.7) with a little noise, normalised (xorshift: the same every run).
fn mixtures(passages: &[Vec<f32>], n: usize) -> Vec<Vec<f32>> {
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    (0..n)
        .map(|_| {
            let a = &passages[(next() % passages.len() as u64) as usize];
            let b = &passages[(next() % passages.len() as u64) as usize];
            let w = 0.3 + 0.4 * (next() % 1000) as f32 / 1000.0;
            let mut v: Vec<f32> = a
                .iter()
                .zip(b)
                .map(|(x, y)| {
                    w * x + (1.0 - w) * y + 0.01 * ((next() % 2001) as f32 / 1000.0 - 1.0)
                })
                .collect();
            let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
            v.iter_mut().for_each(|x| *x /= norm);
            v
        })
        .collect()
}

#[test]
fn trained_cells_keep_recall_against_exact_search_and_after_a_restart() {
    let (passages, questions) = fixture();
    let corpus = mixtures(&passages, TRAIN_FROM * 3 / 2);
    let ids: Vec<i64> = (1..=corpus.len() as i64).collect();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("vectors.cells");
    let index = VectorIndex::persisted_at(&path);
    index.load_saved();
    let pairs: Vec<(i64, Vec<f32>)> = ids.iter().copied().zip(corpus.iter().cloned()).collect();
    for batch in pairs.chunks(4096) {
        index.add(batch);
    }
    assert!(index.cell_count() > 100, "{} cells", index.cell_count());
    let recall = |index: &VectorIndex| {
        let mut found = 0;
        for question in &questions {
            let truth = exact_top10(&ids, &corpus, question);
            let hits = index.search(question, 10, None);
            found += hits.iter().filter(|(id, _)| truth.contains(id)).count();
        }
        found as f64 / (10 * questions.len()) as f64
    };
    let before = recall(&index);
    assert!(
        before >= 0.95,
        "recall@10 {before} over {} cells",
        index.cell_count()
    );
    index.save();
    let reopened = VectorIndex::persisted_at(&path);
    assert!(reopened.load_saved());
    assert_eq!(reopened.len(), corpus.len());
    assert_eq!(recall(&reopened), before);
}
