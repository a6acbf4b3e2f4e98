//! A Zotero data folder imported with `library import`: items with their creators in
//! order, collections (nested, and a group library's), tags, child notes, imported and
//! linked PDFs and the highlights on them; the trash left out, a missing PDF reported,
//! an item still only in Zotero's write-ahead log (Zotero running) included, the
//! database itself never touched, and a second import adding nothing twice.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use asterism_testkit::fixture_path;
use serde_json::Value;
use sha2::Digest;
use sqlx::{Connection, Executor, SqliteConnection};

pub(super) fn asterism(home: &Path, args: &[&str]) -> Output {
    asterism_in(home, "data", args)
}

fn asterism_in(home: &Path, data: &str, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_asterism"))
        .args(args)
        .current_dir(home)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", home)
        .env("ASTERISM_DATA_DIR", home.join(data))
        .env("ASTERISM_KEYRING", "off")
        .env("EMBEDDINGS", "none")
        .env("SESAME_URL", "http://127.0.0.1:9/sesame")
        .output()
        .unwrap()
}

pub(super) fn json(output: &Output) -> Value {
    assert!(output.status.success(), "{output:?}");
    serde_json::from_slice(&output.stdout).unwrap()
}

fn by_title<'a>(papers: &'a [Value], words: &str) -> &'a Value {
    papers
        .iter()
        .find(|paper| paper["title"].as_str().unwrap_or("").contains(words))
        .unwrap_or_else(|| panic!("no paper titled …{words}…: {papers:#?}"))
}

fn sha256(path: &Path) -> String {
    sha2::Sha256::digest(std::fs::read(path).unwrap())
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

/// Zotero's data folder: the database from the fixture SQL, the imported PDF under
/// `storage/<key>/`, a linked PDF elsewhere. Returns the folder and a connection kept
/// open (as Zotero keeps it) holding one more item in the write-ahead log only.
async fn zotero_folder(home: &Path) -> (PathBuf, SqliteConnection) {
    let folder = home.join("Zotero");
    std::fs::create_dir_all(folder.join("storage/R3TF6N9C")).unwrap();
    std::fs::copy(
        fixture_path("pdfs/celerite_ms.pdf"),
        folder.join("storage/R3TF6N9C/celerite.pdf"),
    )
    .unwrap();
    let linked = home.join("Papers/gammapy.pdf");
    std::fs::create_dir_all(linked.parent().unwrap()).unwrap();
    std::fs::copy(fixture_path("pdfs/gammapy_v1_ms.pdf"), &linked).unwrap();
    let options = sqlx::sqlite::SqliteConnectOptions::new()
        .filename(folder.join("zotero.sqlite"))
        .create_if_missing(true);
    let mut connection = SqliteConnection::connect_with(&options).await.unwrap();
    let schema = std::fs::read_to_string(fixture_path("zotero/library.sql")).unwrap();
    connection
        .execute(sqlx::AssertSqlSafe(schema))
        .await
        .unwrap();
    sqlx::query(
        "INSERT INTO itemAttachments (itemID, parentItemID, linkMode, contentType, path)
         VALUES (6, 5, 2, 'application/pdf', ?)",
    )
    .bind(linked.display().to_string())
    .execute(&mut connection)
    .await
    .unwrap();
    // From here on, changes stay in the write-ahead log while the connection is open.
    connection
        .execute("PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0;")
        .await
        .unwrap();
    connection
        .execute(
            "INSERT INTO items (itemID, itemTypeID, libraryID, key) VALUES (11, 22, 1, 'W2X5Q8RL');
             INSERT INTO itemDataValues VALUES (18, 'A paper saved while Zotero was running');
             INSERT INTO itemData VALUES (11, 1, 18);",
        )
        .await
        .unwrap();
    assert!(folder.join("zotero.sqlite-wal").exists());
    (folder, connection)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_zotero_data_folder_comes_in_whole_and_twice_is_once() {
    let home = tempfile::tempdir().unwrap();
    let home = home.path();
    let (folder, zotero) = zotero_folder(home).await;
    let database = folder.join("zotero.sqlite");
    let before = (sha256(&database), sha256(&folder.join("zotero.sqlite-wal")));
    let folder_arg = folder.display().to_string();
    let import = || {
        asterism(
            home,
            &["library", "import", "--offline", "--no-index", &folder_arg],
        )
    };
    let first = import();
    let said = String::from_utf8_lossy(&first.stdout).to_string()
        + &String::from_utf8_lossy(&first.stderr);
    assert!(first.status.success(), "{said}");
    // The missing stored PDF is named, with where it was looked for.
    assert!(
        said.contains("storage/U3H6Y9ZK/rudolf.pdf"),
        "the missing file is reported: {said}"
    );
    // An item never filled in is not a paper: skipped, and said.
    assert!(
        said.lines()
            .any(|line| line.contains("zotero:1/V8E2M5QA") && line.contains("an empty entry")),
        "{said}"
    );

    let papers: Vec<Value> =
        serde_json::from_value(json(&asterism(home, &["library", "list", "--json"]))).unwrap();
    assert_eq!(papers.len(), 5, "{papers:#?}");
    assert!(
        !papers
            .iter()
            .any(|paper| paper["title"].as_str().unwrap().contains("threw away")),
        "an item in Zotero's trash came in"
    );

    let celerite = by_title(&papers, "Gaussian process modeling");
    assert_eq!(
        celerite["authors"],
        serde_json::json!([
            "Foreman-Mackey, Daniel",
            "Agol, Eric",
            "Ambikasaran, Sivaram"
        ])
    );
    assert_eq!(celerite["year"], 2017);
    assert_eq!(celerite["doi"], "10.3847/1538-3881/aa9332");
    assert_eq!(celerite["bibcode"], "2017AJ....154..220F");
    assert_eq!(celerite["collections"], serde_json::json!(["Methods"]));
    assert_eq!(
        celerite["tags"],
        serde_json::json!(["gaussian processes", "to read"])
    );
    assert_eq!(celerite["files"].as_array().unwrap().len(), 1, "{celerite}");

    let gammapy = by_title(&papers, "Gammapy");
    assert_eq!(
        gammapy["collections"],
        serde_json::json!(["TRGB collaboration"]),
        "a group library's item is in the group's collection"
    );
    assert_eq!(
        gammapy["files"].as_array().unwrap().len(),
        1,
        "the linked PDF"
    );

    let trgb = by_title(&papers, "Tip of the Red Giant Branch");
    assert_eq!(trgb["authors"], serde_json::json!(["Planck Collaboration"]));
    assert_eq!(trgb["arxivId"], "1907.05922");
    assert_eq!(trgb["collections"], serde_json::json!(["Distances/TRGB"]));
    assert_eq!(trgb["status"], "no-pdf");
    assert_eq!(
        by_title(&papers, "young stellar association")["status"],
        "no-pdf"
    );
    by_title(&papers, "saved while Zotero was running");

    // The note (Markdown) and the highlight (its page and text) are on the paper.
    let id = celerite["id"].as_str().unwrap();
    let show = json(&asterism(home, &["library", "show", id, "--json"]));
    let notes = show["notes"].as_array().unwrap();
    assert_eq!(notes.len(), 2, "{notes:#?}");
    assert!(
        notes
            .iter()
            .any(|note| note["comment"] == "Read **section 3** first."),
        "{notes:#?}"
    );
    let highlight = notes
        .iter()
        .find(|note| note["quote"] == "celerite")
        .unwrap_or_else(|| panic!("{notes:#?}"));
    assert_eq!(highlight["page"], 3);
    assert_eq!(highlight["comment"], "the method we use");

    // Zotero's files were only read.
    assert_eq!(
        before,
        (sha256(&database), sha256(&folder.join("zotero.sqlite-wal")))
    );

    // Importing the same folder again adds no paper and no note.
    let second = import();
    assert!(second.status.success(), "{second:?}");
    let again: Vec<Value> =
        serde_json::from_value(json(&asterism(home, &["library", "list", "--json"]))).unwrap();
    assert_eq!(again.len(), 5, "{again:#?}");
    let show = json(&asterism(home, &["library", "show", id, "--json"]));
    assert_eq!(show["notes"].as_array().unwrap().len(), 2);
    zotero.close().await.unwrap();

    // Out as CSL-JSON, into a new data folder: the same papers and what describes them.
    let exported = asterism(
        home,
        &[
            "library",
            "export",
            "--format",
            "csl-json",
            "--out",
            "library.json",
        ],
    );
    assert!(exported.status.success(), "{exported:?}");
    let imported = asterism_in(
        home,
        "copy",
        &[
            "library",
            "import",
            "--offline",
            "--no-index",
            "library.json",
        ],
    );
    assert!(imported.status.success(), "{imported:?}");
    let copied: Vec<Value> = serde_json::from_value(json(&asterism_in(
        home,
        "copy",
        &["library", "list", "--json"],
    )))
    .unwrap();
    assert_eq!(copied.len(), 5, "{copied:#?}");
    for paper in &papers {
        let title = paper["title"].as_str().unwrap();
        let copy = by_title(&copied, title);
        for field in ["authors", "year", "doi", "arxivId", "bibcode", "tags"] {
            assert_eq!(copy[field], paper[field], "{title}: {field}");
        }
    }
}

/// Zotero 5 has no annotations table (PDF annotations came with Zotero 6), and a database
/// may carry only the plain type and field tables: both still read.
#[tokio::test(flavor = "multi_thread")]
async fn a_zotero_5_database_reads_too() {
    let home = tempfile::tempdir().unwrap();
    let home = home.path();
    let (folder, mut zotero) = zotero_folder(home).await;
    zotero
        .execute(
            "PRAGMA wal_checkpoint(TRUNCATE);
             DROP TABLE itemAnnotations;
             ALTER TABLE fieldsCombined RENAME TO fields;
             ALTER TABLE itemTypesCombined RENAME TO itemTypes;",
        )
        .await
        .unwrap();
    zotero.close().await.unwrap();
    let folder_arg = folder.join("zotero.sqlite").display().to_string();
    let output = asterism(
        home,
        &["library", "import", "--offline", "--no-index", &folder_arg],
    );
    assert!(output.status.success(), "{output:?}");
    let papers: Vec<Value> =
        serde_json::from_value(json(&asterism(home, &["library", "list", "--json"]))).unwrap();
    assert_eq!(papers.len(), 5, "{papers:#?}");
    let celerite = by_title(&papers, "Gaussian process modeling");
    assert_eq!(celerite["year"], 2017);
    assert_eq!(celerite["collections"], serde_json::json!(["Methods"]));
    let id = celerite["id"].as_str().unwrap();
    let show = json(&asterism(home, &["library", "show", id, "--json"]));
    assert_eq!(
        show["notes"].as_array().unwrap().len(),
        1,
        "the child note only"
    );
}

/// A Zotero 4 database (its `userdata` schema at 76, as Zotero 4.0 left it) is refused
/// with what to do, not misread as something that is not a Zotero database.
#[tokio::test(flavor = "multi_thread")]
async fn a_zotero_4_database_is_refused_with_what_to_do() {
    let home = tempfile::tempdir().unwrap();
    let home = home.path();
    let (folder, mut zotero) = zotero_folder(home).await;
    zotero
        .execute("UPDATE version SET version = 76 WHERE schema = 'userdata'")
        .await
        .unwrap();
    zotero.close().await.unwrap();
    let folder_arg = folder.display().to_string();
    let output = asterism(
        home,
        &["library", "import", "--offline", "--no-index", &folder_arg],
    );
    let said = String::from_utf8_lossy(&output.stdout).to_string()
        + &String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{said}");
    assert!(
        said.contains("a Zotero 4 database (schema 76)") && said.contains("open it once"),
        "{said}"
    );
    let papers = json(&asterism(home, &["library", "list", "--json"]));
    assert_eq!(papers.as_array().unwrap().len(), 0);
}
