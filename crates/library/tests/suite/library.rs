//! The paper library end to end on a real SQLite file: importing a messy folder,
//! de-duplication, chunking, embedding through a loopback `/v1/embeddings`, hybrid
//! search with filters, deleting, notes.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use asterism_library::library::{
    Chunker, Embedder, ImportOutcome, Library, RemoteEmbedder, SearchMode,
};
use asterism_library::papers::PaperSearch;
use asterism_library::sources::ads::AdsClient;
use asterism_library::sources::arxiv::ArxivClient;
use asterism_store::{Note, PaperFilter, Store};
use asterism_testkit::pdf::{build_pdf, text_page};
use asterism_testkit::{FixtureServer, MockLlm, Script, all_routes, fixture_path};

struct Setup {
    dir: tempfile::TempDir,
    _server: FixtureServer,
    mock: MockLlm,
    library: Library,
}

async fn setup(embeddings_fail_after: Option<usize>) -> Setup {
    let dir = tempfile::tempdir().unwrap();
    let server = FixtureServer::start(all_routes()).await.unwrap();
    let mock = MockLlm::start(Script {
        embeddings_fail_after,
        ..Script::default()
    })
    .await
    .unwrap();
    let store = Store::open_in_dir(&dir.path().join("data")).await.unwrap();
    let papers = PaperSearch {
        ads: AdsClient::new(
            format!("{}/ads", server.url()),
            None,
            Duration::from_secs(5),
        )
        .unwrap(),
        arxiv: ArxivClient::new(
            format!("{}/arxiv-api", server.url()),
            Duration::from_secs(5),
        )
        .unwrap()
        .with_interval(Duration::ZERO),
        store: store.clone(),
    };
    let embedder: Arc<dyn Embedder> =
        Arc::new(RemoteEmbedder::new(&mock.base_url(), None, "mock-embedding").unwrap());
    let library = Library::new(
        store,
        papers,
        Chunker::characters(),
        &dir.path().join("data"),
        Some(embedder),
    );
    Setup {
        dir,
        _server: server,
        mock,
        library,
    }
}

fn copy_fixture(name: &str, to: &Path) -> PathBuf {
    std::fs::copy(fixture_path(&format!("pdfs/{name}")), to).unwrap();
    to.to_path_buf()
}

/// A messy folder: two real papers, the same file twice, a preprint and a re-saved
/// copy of it (different bytes, same arXiv id), a note, a damaged PDF, an encrypted and
/// a scanned one, in a subfolder too.
fn messy_folder(root: &Path) -> PathBuf {
    let folder = root.join("papers");
    std::fs::create_dir_all(folder.join("older")).unwrap();
    copy_fixture("gammapy_v1_ms.pdf", &folder.join("gammapy.pdf"));
    copy_fixture("rudolf_ms.pdf", &folder.join("rudolf.pdf"));
    copy_fixture("rudolf_ms.pdf", &folder.join("older/rudolf copy.pdf"));
    copy_fixture("paperqa_2407.01603.pdf", &folder.join("paperqa.pdf"));
    let mut resaved = std::fs::read(fixture_path("pdfs/paperqa_2407.01603.pdf")).unwrap();
    resaved.extend_from_slice(b"\n% re-saved by a viewer\n");
    std::fs::write(folder.join("older/paperqa-v2.pdf"), resaved).unwrap();
    std::fs::write(folder.join("reading list.txt"), "to read: TRGB papers").unwrap();
    let mut damaged = std::fs::read(fixture_path("pdfs/rudolf_ms.pdf")).unwrap();
    damaged.truncate(4000);
    std::fs::write(folder.join("damaged.pdf"), damaged).unwrap();
    let page = text_page(&["The tip of the red giant branch is a standard candle."]);
    std::fs::write(folder.join("locked.pdf"), build_pdf(&[page], true)).unwrap();
    std::fs::write(
        folder.join("scan.pdf"),
        build_pdf(&["0 0 1 rg 10 10 100 100 re f".to_string()], false),
    )
    .unwrap();
    folder
}

#[tokio::test]
async fn a_messy_folder_imports_file_by_file_and_searches() {
    let setup = setup(None).await;
    let folder = messy_folder(setup.dir.path());
    let progress_calls = std::sync::atomic::AtomicUsize::new(0);
    let items = setup
        .library
        .import(std::slice::from_ref(&folder), false, &|done, total, _| {
            assert!(done <= total);
            progress_calls.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        })
        .await;
    assert_eq!(items.len(), 9);
    assert_eq!(progress_calls.into_inner(), 9);
    let outcome = |name: &str| {
        items
            .iter()
            .find(|item| item.path.ends_with(name))
            .unwrap_or_else(|| panic!("{name} missing from {items:#?}"))
            .outcome
            .clone()
    };
    let ImportOutcome::Imported {
        chunks,
        identified,
        title,
        ..
    } = outcome("papers/gammapy.pdf")
    else {
        panic!("{:?}", outcome("gammapy.pdf"));
    };
    assert!(chunks > 50, "{chunks}");
    assert!(!identified, "offline: unidentified");
    assert!(title.contains("Gammapy"), "{title}");
    // Files come in path order: older/ before the top-level copies.
    assert!(matches!(
        outcome("older/rudolf copy.pdf"),
        ImportOutcome::Imported { .. }
    ));
    assert!(matches!(
        outcome("papers/rudolf.pdf"),
        ImportOutcome::Duplicate { .. }
    ));
    assert!(matches!(
        outcome("older/paperqa-v2.pdf"),
        ImportOutcome::Imported { .. }
    ));
    assert!(matches!(
        outcome("papers/paperqa.pdf"),
        ImportOutcome::Linked { .. }
    ));
    assert!(matches!(
        outcome("reading list.txt"),
        ImportOutcome::Skipped { .. }
    ));
    let ImportOutcome::Failed { reason } = outcome("damaged.pdf") else {
        panic!("{:?}", outcome("damaged.pdf"))
    };
    assert!(
        reason.contains("damaged") || reason.contains("truncated"),
        "{reason}"
    );
    let ImportOutcome::Imported {
        warning: Some(warning),
        chunks: 0,
        ..
    } = outcome("locked.pdf")
    else {
        panic!("{:?}", outcome("locked.pdf"))
    };
    assert!(warning.contains("encrypted"), "{warning}");
    let ImportOutcome::Imported {
        warning: Some(warning),
        ..
    } = outcome("scan.pdf")
    else {
        panic!("{:?}", outcome("scan.pdf"))
    };
    assert!(warning.contains("no text layer"), "{warning}");

    // The originals are untouched; the library has its own copies.
    assert!(folder.join("gammapy.pdf").is_file());
    let store = &setup.library.store;
    let papers = store.library_papers(&PaperFilter::default()).await.unwrap();
    assert_eq!(papers.len(), 5, "{papers:#?}");
    let paperqa = papers
        .iter()
        .find(|p| p.arxiv_id.as_deref() == Some("2407.01603"))
        .unwrap();
    assert_eq!(
        paperqa.files.len(),
        2,
        "preprint and re-saved copy kept together"
    );
    for paper in &papers {
        for file in &paper.files {
            assert!(
                file.path
                    .starts_with(setup.dir.path().join("data/papers").to_str().unwrap())
            );
            assert!(Path::new(&file.path).is_file());
        }
    }

    // Importing the folder again changes nothing.
    let again = setup.library.import(&[folder], false, &|_, _, _| {}).await;
    assert!(
        again
            .iter()
            .all(|item| !matches!(item.outcome, ImportOutcome::Imported { .. }))
    );
    assert_eq!(
        store
            .library_papers(&PaperFilter::default())
            .await
            .unwrap()
            .len(),
        5
    );

    // Keyword search before anything is embedded says it is keyword-only.
    let results = setup
        .library
        .search(
            "Gammapy DL3 instrument response functions",
            &PaperFilter::default(),
            5,
        )
        .await
        .unwrap();
    assert_eq!(results.mode, SearchMode::Bm25);
    assert!(
        results
            .note
            .as_deref()
            .unwrap()
            .contains("nothing is embedded yet")
    );
    assert!(results.hits[0].chunk.title.contains("Gammapy"));
    assert_eq!(
        results.hits[0].chunk.original_name.as_deref(),
        Some("gammapy.pdf")
    );
    assert!(results.hits[0].chunk.page.is_some());

    // Embed everything, then search by meaning and keywords together.
    let report = setup.library.index(&|_, _| {}).await.unwrap().unwrap();
    assert!(report.error.is_none(), "{report:?}");
    assert_eq!(report.remaining, 0);
    assert!(report.embedded > 100, "{report:?}");
    let results = setup
        .library
        .search(
            "rotation periods and lithium give the age of the δ Lyr cluster",
            &PaperFilter::default(),
            5,
        )
        .await
        .unwrap();
    assert_eq!(results.mode, SearchMode::Hybrid);
    assert!(results.note.is_none());
    let top = &results.hits[0];
    assert!(
        top.chunk.original_name.as_deref() == Some("rudolf copy.pdf"),
        "{top:#?}"
    );
    assert!(top.bm25_rank.is_some() && top.vector_rank.is_some());

    // One hit per page: a page's other passages make way for the next page.
    let results = setup
        .library
        .search("Kepler light curve transit", &PaperFilter::default(), 10)
        .await
        .unwrap();
    let pages: Vec<(&str, Option<i64>)> = results
        .hits
        .iter()
        .map(|hit| (hit.chunk.paper_id.as_str(), hit.chunk.page))
        .collect();
    let distinct: std::collections::HashSet<_> = pages.iter().collect();
    assert_eq!(distinct.len(), pages.len(), "{pages:?}");
    assert_eq!(pages.len(), 10, "enough pages remain to fill the list");
    let every_passage = asterism_library::library::Library {
        tuning: asterism_library::library::Tuning {
            one_per_page: false,
            ..setup.library.tuning
        },
        ..setup.library.clone()
    }
    .search("Kepler light curve transit", &PaperFilter::default(), 10)
    .await
    .unwrap();
    let repeated = every_passage
        .hits
        .iter()
        .map(|hit| (hit.chunk.paper_id.as_str(), hit.chunk.page))
        .collect::<std::collections::HashSet<_>>();
    assert!(
        repeated.len() < every_passage.hits.len(),
        "without the rule the same page comes back: the query does test it"
    );

    // Filters: one paper only.
    let gammapy_id = papers
        .iter()
        .find(|p| p.title.contains("Gammapy"))
        .unwrap()
        .id
        .clone();
    let only = PaperFilter {
        paper_id: Some(gammapy_id.clone()),
        ..PaperFilter::default()
    };
    let results = setup.library.search("planet", &only, 5).await.unwrap();
    assert!(
        results
            .hits
            .iter()
            .all(|hit| hit.chunk.paper_id == gammapy_id)
    );

    // FTS5 syntax in a query is plain text, not an error.
    for query in ["\"unbalanced", "NEAR(gamma*", "((", "AND OR NOT", "*"] {
        setup
            .library
            .search(query, &PaperFilter::default(), 5)
            .await
            .unwrap();
    }
}

#[tokio::test]
async fn an_embedding_endpoint_failing_half_way_leaves_a_consistent_index_that_resumes() {
    let setup = setup(Some(33)).await;
    let folder = setup.dir.path().join("in");
    std::fs::create_dir_all(&folder).unwrap();
    copy_fixture("rudolf_ms.pdf", &folder.join("rudolf.pdf"));
    setup.library.import(&[folder], false, &|_, _, _| {}).await;
    let store = &setup.library.store;
    let (total, _) = store.chunk_counts().await.unwrap();
    assert!(total > 33, "{total}");
    let report = setup.library.index(&|_, _| {}).await.unwrap().unwrap();
    assert!(
        report.error.as_deref().unwrap().contains("HTTP 500"),
        "{report:?}"
    );
    assert_eq!(
        report.embedded, 32,
        "one batch of 32 went through before the failure"
    );
    assert_eq!(report.remaining, total - 32);
    // Search still works on what is there, and says it is partial.
    let results = setup
        .library
        .search("Kepler 1627", &PaperFilter::default(), 5)
        .await
        .unwrap();
    assert!(!results.hits.is_empty());
    assert!(
        results.note.as_deref().unwrap().contains("32 of"),
        "{:?}",
        results.note
    );

    // A working endpoint (same model name) picks up where it stopped.
    let working = MockLlm::start(Script::default()).await.unwrap();
    let mut resumed = setup.library.clone();
    resumed.embedder = Some(Arc::new(
        RemoteEmbedder::new(&working.base_url(), None, "mock-embedding").unwrap(),
    ));
    let report = resumed.index(&|_, _| {}).await.unwrap().unwrap();
    assert_eq!(report.embedded as i64, total - 32);
    assert_eq!(report.remaining, 0);
    drop(setup.mock);
}

/// The app lets go of the vector index after `KEEP_ALIVE_S` unused; the next search
/// reads it back from `vectors.cells` and finds the same passages by meaning.
#[tokio::test]
async fn an_index_let_go_when_idle_comes_back_for_the_next_search() {
    let setup = setup(None).await;
    let folder = setup.dir.path().join("in");
    std::fs::create_dir_all(&folder).unwrap();
    copy_fixture("rudolf_ms.pdf", &folder.join("rudolf.pdf"));
    setup.library.import(&[folder], false, &|_, _, _| {}).await;
    setup.library.index(&|_, _| {}).await.unwrap();
    let search = || async {
        let results = setup
            .library
            .search("Kepler 1627 age", &PaperFilter::default(), 5)
            .await
            .unwrap();
        assert_eq!(results.mode, SearchMode::Hybrid, "{:?}", results.note);
        results
            .hits
            .iter()
            .map(|hit| (hit.chunk.chunk_id, hit.vector_rank))
            .collect::<Vec<_>>()
    };
    let before = search().await;
    let held = setup.library.index.len();
    assert!(
        held > 30 && before.iter().any(|(_, rank)| rank.is_some()),
        "{before:?}"
    );

    let keep = Duration::from_secs(300);
    let released = setup.library.release_idle(keep);
    assert!(!released.any(), "just used: kept ({released:?})");
    let released = setup.library.release_idle(Duration::ZERO);
    assert!(released.vectors && !released.model, "{released:?}");
    assert_eq!(setup.library.index.len(), 0, "the cells left memory");
    assert!(
        !setup.library.release_idle(Duration::ZERO).any(),
        "nothing left to let go"
    );
    assert!(setup.dir.path().join("data/vectors.cells").is_file());

    assert_eq!(search().await, before, "the same passages, ranked the same");
    assert_eq!(setup.library.index.len(), held, "read back whole");
}

#[tokio::test]
async fn deleting_a_paper_removes_its_passages_vectors_and_files_but_keeps_notes() {
    let setup = setup(None).await;
    let folder = setup.dir.path().join("in");
    std::fs::create_dir_all(&folder).unwrap();
    copy_fixture("rudolf_ms.pdf", &folder.join("rudolf.pdf"));
    copy_fixture("celerite_ms.pdf", &folder.join("celerite.pdf"));
    setup.library.import(&[folder], false, &|_, _, _| {}).await;
    setup.library.index(&|_, _| {}).await.unwrap();
    let store = &setup.library.store;
    let papers = store.library_papers(&PaperFilter::default()).await.unwrap();
    let rudolf = papers
        .iter()
        .find(|p| p.files[0].original_name.as_deref() == Some("rudolf.pdf"))
        .unwrap();
    let note = store
        .add_note(&Note {
            id: String::new(),
            paper_id: Some(rudolf.id.clone()),
            paper_label: None,
            page: Some(3),
            quote: Some("Kepler 1627Ab".into()),
            comment: "age of the δ Lyr cluster".into(),
            color: Some("yellow".into()),
            rects: serde_json::json!([{"x": 72, "y": 500, "width": 200, "height": 12}]),
            created_at: String::new(),
            updated_at: String::new(),
        })
        .await
        .unwrap();
    assert_eq!(store.notes(Some(&rudolf.id)).await.unwrap().len(), 1);
    assert_eq!(
        store.search_notes("\"cluster\"", 5).await.unwrap()[0].id,
        note.id
    );
    let (before, embedded_before) = store.chunk_counts().await.unwrap();
    assert_eq!(before, embedded_before);
    let of_rudolf = PaperFilter {
        paper_id: Some(rudolf.id.clone()),
        ..PaperFilter::default()
    };
    let passages = store.chunk_ids_matching(&of_rudolf).await.unwrap();
    assert_eq!(passages.len() as i64, rudolf.chunks);
    let listed = store.keywords_only_among(&passages).await.unwrap().len() as i64;
    assert!(listed > 0, "its references are kept for keywords only");

    assert!(setup.library.delete(&rudolf.id, false).await.unwrap());
    assert!(!Path::new(&rudolf.files[0].path).exists());
    assert!(
        store
            .chunk_ids_matching(&of_rudolf)
            .await
            .unwrap()
            .is_empty()
    );
    let (after, embedded_after) = store.chunk_counts().await.unwrap();
    assert_eq!(
        before - after,
        rudolf.chunks - listed,
        "its vectors went too"
    );
    assert_eq!(after, embedded_after);
    let results = setup
        .library
        .search("Kepler 1627", &PaperFilter::default(), 10)
        .await
        .unwrap();
    assert!(
        results
            .hits
            .iter()
            .all(|hit| hit.chunk.paper_id != rudolf.id)
    );
    let kept = store.notes(None).await.unwrap();
    assert_eq!(kept.len(), 1);
    assert_eq!(kept[0].paper_id, None);
    assert_eq!(kept[0].paper_label.as_deref(), Some(rudolf.title.as_str()));
    assert!(!setup.library.delete(&rudolf.id, false).await.unwrap());
}

#[tokio::test]
async fn a_file_that_disappears_mid_import_and_a_2000_page_pdf() {
    let setup = setup(None).await;
    let folder = setup.dir.path().join("in");
    std::fs::create_dir_all(&folder).unwrap();
    // Realistic pages: a running header and a page number (dropped as such) around
    // body lines that differ from page to page.
    let words = [
        "spiral",
        "elliptical",
        "dwarf",
        "irregular",
        "lenticular",
        "peculiar",
        "barred",
    ];
    let pages: Vec<String> = (1..=2000usize)
        .map(|n| {
            let body: Vec<String> = (0..8)
                .map(|line| {
                    format!(
                        "Object J{n:04}+{line:04} is a {} galaxy with a tip magnitude of {}.{} mag.",
                        words[(n + line) % words.len()],
                        20 + (n * 7 + line) % 9,
                        (n * 13 + line * 3) % 100
                    )
                })
                .collect();
            let mut lines = vec!["A very long survey catalogue".to_string()];
            lines.extend(body);
            lines.push(n.to_string());
            let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
            text_page(&lines)
        })
        .collect();
    std::fs::write(folder.join("a-long.pdf"), build_pdf(&pages, false)).unwrap();
    copy_fixture("rudolf_ms.pdf", &folder.join("b-vanishing.pdf"));
    let vanishing = folder.join("b-vanishing.pdf");
    let items = setup
        .library
        .import(&[folder], false, &|done, _, _| {
            if done == 1 {
                std::fs::remove_file(&vanishing).unwrap();
            }
        })
        .await;
    let ImportOutcome::Imported { chunks, .. } = &items[0].outcome else {
        panic!("{:?}", items[0]);
    };
    assert!(*chunks >= 200, "{chunks}");
    let ImportOutcome::Failed { reason } = &items[1].outcome else {
        panic!("{:?}", items[1]);
    };
    assert!(reason.contains("disappeared"), "{reason}");
    let results = setup
        .library
        .search("J1999+0004", &PaperFilter::default(), 3)
        .await
        .unwrap();
    let page = results.hits[0].chunk.page.unwrap();
    assert!((1985..=1999).contains(&page), "{page}");
    assert!(results.hits[0].chunk.text.contains("J1999+0004"));
}

#[test]
fn titles_come_from_the_metadata_or_the_largest_text_on_page_one() {
    for (name, expected) in [
        ("gammapy_v1_ms.pdf", "Gammapy"),
        ("rudolf_ms.pdf", "Mini-Neptune in the Kepler Field"),
        ("celerite_ms.pdf", "Gaussian process"),
        ("paperqa_2407.01603.pdf", "Language"),
    ] {
        let bytes = std::fs::read(fixture_path(&format!("pdfs/{name}"))).unwrap();
        let text = asterism_library::parse::extract_pdf(&bytes).unwrap();
        // As the importer does: believable Title metadata, else the largest text.
        let guess = text
            .title
            .clone()
            .filter(|title| title.split_whitespace().count() >= 3)
            .or(text.title_guess.clone())
            .unwrap_or_default();
        assert!(
            guess.to_lowercase().contains(&expected.to_lowercase()),
            "{name}: {guess:?} (metadata {:?})",
            text.title
        );
    }
}

/// What an import run told its watcher.
#[derive(Default)]
struct Heard {
    files: std::sync::Mutex<Vec<(usize, usize, String)>>,
    embedding: std::sync::Mutex<Vec<(i64, i64)>>,
}

impl asterism_library::library::ImportWatcher for Heard {
    fn file(&self, done: usize, total: usize, item: &asterism_library::library::ImportItem) {
        self.files
            .lock()
            .unwrap()
            .push((done, total, item.path.clone()));
    }
    fn embedding(&self, done: i64, total: i64) {
        self.embedding.lock().unwrap().push((done, total));
    }
}

/// The one import sequence the CLI and the app both run: files, then the collection,
/// then the embedding, each told to the watcher; a cancel keeps what was done.
#[tokio::test]
async fn an_import_run_imports_collects_and_embeds_and_a_cancel_keeps_what_was_done() {
    use asterism_library::library::ImportPlan;
    let setup = setup(None).await;
    let folder = setup.dir.path().join("two");
    std::fs::create_dir_all(&folder).unwrap();
    copy_fixture("rudolf_ms.pdf", &folder.join("rudolf.pdf"));
    copy_fixture("celerite_ms.pdf", &folder.join("celerite.pdf"));
    let plan = ImportPlan {
        online: false,
        collection: Some("TRGB".into()),
        embed: true,
    };
    let heard = Heard::default();
    let cancel = tokio_util::sync::CancellationToken::new();
    let run = setup
        .library
        .import_run(std::slice::from_ref(&folder), &plan, &heard, &cancel)
        .await
        .unwrap();
    assert!(!run.stopped);
    assert_eq!((run.counts.imported, run.items.len(), run.total), (2, 2, 2));
    let files = heard.files.lock().unwrap().clone();
    assert_eq!(
        files.iter().map(|f| (f.0, f.1)).collect::<Vec<_>>(),
        [(1, 2), (2, 2)]
    );
    let collections = setup.library.collections().await.unwrap();
    assert_eq!(collections.len(), 1, "{collections:?}");
    assert_eq!(
        (collections[0].name.as_str(), collections[0].papers),
        ("TRGB", 2)
    );
    // Told where the embedding starts (nothing embedded), then each batch to the end.
    let embedding = heard.embedding.lock().unwrap().clone();
    let (first, last) = (embedding[0], embedding[embedding.len() - 1]);
    assert_eq!(first.0, 0, "{embedding:?}");
    assert!(last.1 > 50 && last.0 == last.1, "{embedding:?}");
    let report = run.index.unwrap();
    assert_eq!((report.remaining, report.embedded as i64), (0, last.1));

    // Cancelled before it starts: nothing imported, nothing lost, told it stopped.
    copy_fixture("gammapy_v1_ms.pdf", &folder.join("gammapy.pdf"));
    cancel.cancel();
    let heard = Heard::default();
    let stopped = setup
        .library
        .import_run(std::slice::from_ref(&folder), &plan, &heard, &cancel)
        .await
        .unwrap();
    assert!(stopped.stopped && stopped.index.is_none());
    assert!(heard.embedding.lock().unwrap().is_empty());
    let papers = setup
        .library
        .store
        .library_papers(&PaperFilter::default())
        .await
        .unwrap();
    assert_eq!(papers.len(), 2, "the two papers before are still there");
}

/// Two different papers whose second pages cite the same DOI and arXiv id: offline,
/// each is its own paper. (When the second page counted as front matter, the second
/// paper was taken for the first: "linked … another file of" it.)
#[tokio::test]
async fn papers_citing_the_same_doi_on_page_two_stay_two_papers() {
    let setup = setup(None).await;
    let folder = setup.dir.path().join("citing");
    std::fs::create_dir_all(&folder).unwrap();
    let words = [
        "galaxy",
        "halo",
        "stellar",
        "distance",
        "ladder",
        "cepheid",
        "giant",
        "branch",
        "tip",
        "calibration",
        "photometry",
        "metallicity",
        "extinction",
        "zero",
        "point",
        "supernova",
        "host",
        "parallax",
        "cluster",
        "maser",
        "disk",
        "rotation",
        "curve",
    ];
    for (n, name) in ["first.pdf", "second.pdf"].iter().enumerate() {
        let mut state = 7 + n as u64 * 1_000_003;
        let mut lines: Vec<String> = vec![format!("A study of the distance scale, part {}", n + 1)];
        for _ in 0..40 {
            let line: Vec<&str> = (0..9)
                .map(|_| {
                    state = state
                        .wrapping_mul(6_364_136_223_846_793_005)
                        .wrapping_add(1);
                    words[(state >> 33) as usize % words.len()]
                })
                .collect();
            lines.push(line.join(" "));
        }
        let body: Vec<&str> = lines.iter().map(String::as_str).collect();
        let references = text_page(&[
            "References",
            "Freedman W. L., et al. 2019, ApJ, 882, 34, doi:10.3847/1538-4357/ab2f73",
            "Riess A. G., et al. 2022, arXiv:2112.04510",
        ]);
        std::fs::write(
            folder.join(name),
            build_pdf(&[text_page(&body), references], false),
        )
        .unwrap();
    }
    let items = setup.library.import(&[folder], false, &|_, _, _| {}).await;
    let outcomes: Vec<&str> = items.iter().map(|item| item.reported().outcome).collect();
    assert_eq!(outcomes, ["imported", "imported"], "{items:#?}");
    for paper in setup
        .library
        .store
        .library_papers(&PaperFilter::default())
        .await
        .unwrap()
    {
        let record = setup
            .library
            .store
            .paper_record(&paper.id)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(record.doi, None, "a cited DOI is not the paper's own");
        assert_eq!(
            record.arxiv_id, None,
            "a cited arXiv id is not the paper's own"
        );
    }
}
