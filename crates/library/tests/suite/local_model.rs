//! The local embedding model (bge-small, int8, through ONNX Runtime): vectors by
//! meaning, chunks by its own tokens, let go when idle, and runs of texts shared between
//! sessions that still give each text its own vector.

use std::time::Duration;

use asterism_library::library::Embedder;
use asterism_testkit::fixture_path;

#[tokio::test]
async fn the_local_model_embeds_by_meaning_and_chunks_by_its_tokens() {
    let model = asterism_library::library::local::LocalModel::find()
        .expect("the local embedding model is not installed: run scripts/install-deps.sh");
    let embedder = model.load().unwrap();
    let texts: Vec<String> = [
        "The distance to NGC 4258 from the tip of the red giant branch.",
        "TRGB distances calibrate type Ia supernovae and the Hubble constant.",
        "Gammapy reads DL3 event lists from Cherenkov telescopes.",
    ]
    .iter()
    .map(|text| text.to_string())
    .collect();
    let vectors = embedder.embed(&texts).await.unwrap();
    assert_eq!(vectors.len(), 3);
    for vector in &vectors {
        assert_eq!(vector.len(), 384);
        let norm: f32 = vector.iter().map(|x| x * x).sum::<f32>().sqrt();
        assert!((norm - 1.0).abs() < 1e-3);
    }
    let cosine = |a: &[f32], b: &[f32]| a.iter().zip(b).map(|(x, y)| x * y).sum::<f32>();
    assert!(cosine(&vectors[0], &vectors[1]) > cosine(&vectors[0], &vectors[2]) + 0.1);

    // Kept while in use, let go when idle, loaded again for the next text.
    assert!(!embedder.release_if_idle(Duration::from_secs(300)));
    assert!(
        embedder.release_if_idle(Duration::ZERO),
        "the session let go"
    );
    assert!(
        !embedder.release_if_idle(Duration::ZERO),
        "nothing left to let go"
    );
    let again = embedder.embed(&texts[..1]).await.unwrap();
    assert!(
        cosine(&again[0], &vectors[0]) > 0.999,
        "the same model came back"
    );

    let chunker = model.chunker().unwrap();
    assert!(chunker.uses_tokens());
    let text = asterism_library::parse::parse_pdf_bytes(
        &std::fs::read(fixture_path("pdfs/rudolf_ms.pdf")).unwrap(),
    )
    .unwrap();
    let chunks = chunker.chunk(&text.markdown);
    assert!(chunks.len() > 20);
    let tokenizer = tokenizers::Tokenizer::from_file(model.dir.join("tokenizer.json")).unwrap();
    for chunk in &chunks {
        let tokens = tokenizer.encode(chunk.text.as_str(), false).unwrap().len();
        assert!(tokens <= 160, "{tokens} tokens: {}", chunk.text);
    }
}

/// Texts grouped by length into runs, the runs shared between two sessions: each text
/// still gets its own vector, in the order given, as when embedded one at a time.
#[tokio::test]
async fn runs_of_texts_on_two_sessions_give_each_text_its_own_vector_in_order() {
    use asterism_library::library::local::{EmbedTuning, LocalModel};
    let model = LocalModel::find()
        .expect("the local embedding model is not installed: run scripts/install-deps.sh");
    let texts: Vec<String> = [
        "TRGB.",
        "The distance to NGC 4258 from the tip of the red giant branch, measured in the halo of the galaxy with HST.",
        "Gammapy reads DL3 event lists.",
        "Gaussian processes for stellar variability scale linearly with celerite, which makes long light curves tractable for the first time.",
        "Cepheids.",
        "Type Ia supernovae calibrated by TRGB distances give H0.",
        "A retrieval-augmented agent answers questions about scientific papers with citations.",
    ]
    .iter()
    .map(|text| text.to_string())
    .collect();
    let one_by_one = model.load().unwrap().embed(&texts).await.unwrap();
    let tuning = EmbedTuning {
        max_batch: 3,
        batch_tokens: 4096,
        threads: 1,
        sessions: 2,
        arena: false,
    };
    let batched = model
        .load_tuned(tuning)
        .unwrap()
        .embed(&texts)
        .await
        .unwrap();
    assert_eq!(batched.len(), texts.len());
    let cosine = |a: &[f32], b: &[f32]| a.iter().zip(b).map(|(x, y)| x * y).sum::<f32>();
    for (index, vector) in batched.iter().enumerate() {
        let nearest = (0..texts.len())
            .max_by(|&a, &b| {
                cosine(vector, &one_by_one[a]).total_cmp(&cosine(vector, &one_by_one[b]))
            })
            .unwrap();
        assert_eq!(nearest, index, "text {index} got another text's vector");
        assert!(cosine(vector, &one_by_one[index]) > 0.97, "text {index}");
    }
}
