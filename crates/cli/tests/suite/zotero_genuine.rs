//! Databases Zotero itself wrote (5.0.49, 6.0.26, 7.0.30 and 9.0.4; origins and
//! licences in the fixtures' MANIFEST), imported from a copy of their data folder with
//! `library import`. Each test holds what the source holds, counted in the database
//! with SQLite (the counts are in the MANIFEST too), against what the library shows:
//! its items, the stored files that came along or the path where each was looked for,
//! collections, tags, notes and annotations.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use asterism_testkit::fixture_path;
use serde_json::Value;

use super::zotero_import::{asterism, json};

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// What one import of a Zotero data folder gave.
struct Imported {
    home: tempfile::TempDir,
    folder: PathBuf,
    /// The NDJSON line of each item, then the summary.
    files: Vec<Value>,
    summary: Value,
    papers: Vec<Value>,
}

impl Imported {
    fn of(version: &str) -> Self {
        let home = tempfile::tempdir().unwrap();
        let folder = home.path().join("Zotero");
        copy_tree(
            &fixture_path(&format!("zotero/genuine/zotero-{version}")),
            &folder,
        );
        let output = asterism(
            home.path(),
            &[
                "library",
                "import",
                "--offline",
                "--no-index",
                "--json",
                folder.to_str().unwrap(),
            ],
        );
        assert!(output.status.success(), "{output:?}");
        let mut lines: Vec<Value> = String::from_utf8_lossy(&output.stdout)
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect();
        let summary = lines.pop().unwrap();
        assert_eq!(summary["kind"], "finished", "{summary}");
        let papers =
            serde_json::from_value(json(&asterism(home.path(), &["library", "list", "--json"])))
                .unwrap();
        Imported {
            home,
            folder,
            files: lines,
            summary,
            papers,
        }
    }

    /// Papers by collection: how many each holds.
    fn collections(&self) -> BTreeMap<String, usize> {
        let mut counts = BTreeMap::new();
        for paper in &self.papers {
            for name in paper["collections"].as_array().unwrap() {
                *counts
                    .entry(name.as_str().unwrap().to_string())
                    .or_default() += 1;
            }
        }
        counts
    }

    fn tags(&self) -> BTreeSet<String> {
        self.papers
            .iter()
            .flat_map(|paper| paper["tags"].as_array().unwrap().clone())
            .map(|tag| tag.as_str().unwrap().to_string())
            .collect()
    }

    fn notes(&self) -> Vec<Value> {
        serde_json::from_value(json(&asterism(
            self.home.path(),
            &["library", "notes", "--json"],
        )))
        .unwrap()
    }

    fn paper(&self, words: &str) -> &Value {
        self.papers
            .iter()
            .find(|paper| paper["title"].as_str().unwrap_or("").contains(words))
            .unwrap_or_else(|| panic!("no paper titled …{words}…"))
    }

    fn count(&self, outcome: &str) -> usize {
        self.files
            .iter()
            .filter(|file| file["outcome"] == outcome)
            .count()
    }
}

/// Zotero 5.0.49, a thesis author's library: 17 items (4 more in the trash), 21 stored
/// PDFs not shipped with the fixture (2 of them items of their own, with no parent; 3
/// under items in the trash), 2 collections (`Papers` inside `Asyadcml`), 9 tags (3 of
/// them on attachments), 3 child notes and 2 standalone ones.
#[test]
fn zotero_5_a_thesis_library_every_item_with_each_missing_file_named() {
    let import = Imported::of("5.0.49");
    assert_eq!(
        import.files.len(),
        19,
        "one line per item, the trash left out"
    );
    // Two items are one work (entered twice, the same DOI in `extra`): one paper.
    assert_eq!(import.papers.len(), 18);
    assert_eq!(import.summary["metadataOnly"], 19);
    // Each stored PDF Zotero lists is looked for where Zotero keeps it, and named.
    let missing: Vec<String> = import
        .files
        .iter()
        .flat_map(|file| file["missing"].as_array().cloned().unwrap_or_default())
        .map(|path| path.as_str().unwrap().to_string())
        .collect();
    assert_eq!(missing.len(), 18, "{missing:#?}");
    let storage = import.folder.join("storage");
    assert!(
        missing
            .iter()
            .all(|path| path.starts_with(storage.to_str().unwrap())),
        "{missing:#?}"
    );
    assert!(missing.iter().any(|path| path.ends_with(
        "storage/FV58UVJ5/Kingma and Lei - 2015 - Adam A Method for Stochastic Optimization.pdf"
    )));
    // A PDF dropped into Zotero with no parent item is listed under its name.
    assert!(
        missing
            .iter()
            .any(|path| path.ends_with("storage/GUJUZUME/DeepLearning.pdf"))
    );
    import.paper("DeepLearning.pdf");
    assert_eq!(
        import.collections(),
        BTreeMap::from([("Asyadcml/Papers".to_string(), 17)])
    );
    // The attachments' tags are their papers'.
    assert_eq!(import.tags().len(), 9, "{:?}", import.tags());
    assert!(import.tags().contains("debug"));
    let adam = import.paper("Adam: A Method for Stochastic Optimization");
    // Creators in Zotero's order, as Zotero spelled them.
    assert_eq!(
        adam["authors"],
        serde_json::json!(["Kingma, Diederik P", "Lei, Jimmy"])
    );
    assert_eq!(adam["year"], 2015);
    // The child notes, as Markdown; standalone notes belong to no paper.
    let notes = import.notes();
    assert_eq!(notes.len(), 3, "{notes:#?}");
    assert!(
        notes
            .iter()
            .any(|note| note["comment"] == "Just as citation, nothing really related to SGD"),
        "{notes:#?}"
    );
}

/// Zotero 6.0.26, papis-zotero's test library: 5 articles, 4 with a stored PDF, all four
/// the same bytes. One paper keeps the file; the other three are works of their own
/// (their titles and DOIs differ), listed with the paper that keeps it named.
#[test]
fn zotero_6_items_sharing_one_file_stay_apart() {
    let import = Imported::of("6.0.26");
    assert_eq!(import.papers.len(), 5, "{:#?}", import.papers);
    assert_eq!(import.count("imported"), 1);
    assert_eq!(import.count("metadataOnly"), 4);
    assert_eq!(import.count("duplicate"), 0);
    let kept = import
        .papers
        .iter()
        .find(|paper| !paper["files"].as_array().unwrap().is_empty())
        .unwrap();
    let kept_id = kept["id"].as_str().unwrap();
    let apart: Vec<&Value> = import
        .files
        .iter()
        .filter(|file| {
            file["message"]
                .as_str()
                .is_some_and(|message| message.contains(kept_id))
        })
        .collect();
    assert_eq!(apart.len(), 3, "{:#?}", import.files);
    let dois: BTreeSet<&str> = import
        .papers
        .iter()
        .filter_map(|paper| paper["doi"].as_str())
        .collect();
    assert_eq!(dois.len(), 5, "every item keeps its own DOI: {dois:?}");
    let grubb = import.paper("Fractional Laplacians on domains");
    assert_eq!(grubb["authors"][0], "Grubb, Gerd");
    assert_eq!(grubb["year"], 2015);

    // Again: nothing new, nothing merged.
    let again = asterism(
        import.home.path(),
        &[
            "library",
            "import",
            "--offline",
            "--no-index",
            import.folder.to_str().unwrap(),
        ],
    );
    assert!(again.status.success(), "{again:?}");
    let papers = json(&asterism(
        import.home.path(),
        &["library", "list", "--json"],
    ));
    assert_eq!(papers.as_array().unwrap().len(), 5);
}

/// Zotero 7.0.30, a student's library: 27 items (two of them one work, the same DOI),
/// 10 stored PDFs not shipped, 6 web links, 7 collections (4 inside `MSc 2025 - 2026`,
/// which holds no item itself) and 89 tags.
#[test]
fn zotero_7_nested_collections_and_every_tag() {
    let import = Imported::of("7.0.30");
    assert_eq!(import.files.len(), 27);
    assert_eq!(import.papers.len(), 26);
    assert_eq!(
        import.collections(),
        BTreeMap::from([
            ("DBS_machine".to_string(), 9),
            ("MSc 2025 - 2026/To read".to_string(), 3),
            ("MSc 2025 - 2026/cect and vasculature".to_string(), 3),
            (
                "MSc 2025 - 2026/other forms of imaging for vasculature and reconstruction"
                    .to_string(),
                1
            ),
            ("MSc 2025 - 2026/vasculature reconstruction".to_string(), 2),
            ("Vivli 2025".to_string(), 8),
        ])
    );
    assert_eq!(import.tags().len(), 89);
    let missing = import
        .files
        .iter()
        .filter(|file| file["missing"].as_array().is_some_and(|m| !m.is_empty()))
        .count();
    assert_eq!(
        missing, 10,
        "a line for each item whose stored PDF is absent"
    );
    assert_eq!(
        import
            .papers
            .iter()
            .filter(|paper| paper["doi"].is_string())
            .count(),
        24
    );
}

/// Zotero 9.0.4, Better BibTeX's test profile: 49 items in My Library, 48 child notes,
/// a note annotation on a stored PDF not shipped, and a feed of 5 podcast episodes,
/// which is a subscription, not the library.
#[test]
fn zotero_9_notes_and_an_annotation_come_and_a_feed_does_not() {
    let import = Imported::of("9.0.4");
    assert_eq!(import.files.len(), 49);
    assert_eq!(import.papers.len(), 49);
    assert!(
        !import
            .papers
            .iter()
            .any(|paper| paper["title"].as_str().unwrap().contains("Apology Line")),
        "a feed's items came in"
    );
    let notes = import.notes();
    assert_eq!(notes.len(), 49, "48 notes and the annotation");
    let shelah = import.paper("A combinatorial problem; stability and order");
    let id = shelah["id"].as_str().unwrap();
    let show = json(&asterism(
        import.home.path(),
        &["library", "show", id, "--json"],
    ));
    assert!(
        !show["notes"].as_array().unwrap().is_empty(),
        "the annotation is on its paper: {show:#}"
    );
    assert!(
        import.collections().is_empty(),
        "the group library is empty"
    );
}

/// A hostile database: an item of its own (a PDF with no parent) whose path is a private
/// key. It fails as "not a PDF"; the key's text is nowhere in the data folder, and the
/// library's other items still come in. Pointed then at a copy of a paper's PDF, it is
/// that paper.
#[tokio::test(flavor = "multi_thread")]
async fn a_top_level_pdf_that_is_a_secret_fails_and_is_not_copied() {
    use sqlx::{Connection, Executor};
    let home = tempfile::tempdir().unwrap();
    let folder = home.path().join("Zotero");
    copy_tree(&fixture_path("zotero/genuine/zotero-6.0.26"), &folder);
    let key = home.path().join(".ssh/id_ed25519");
    std::fs::create_dir_all(key.parent().unwrap()).unwrap();
    std::fs::write(
        &key,
        "-----BEGIN OPENSSH PRIVATE KEY-----\nsecret-by-value-7731\n",
    )
    .unwrap();
    let options = sqlx::sqlite::SqliteConnectOptions::new().filename(folder.join("zotero.sqlite"));
    let mut zotero = sqlx::SqliteConnection::connect_with(&options)
        .await
        .unwrap();
    zotero
        .execute(sqlx::AssertSqlSafe(format!(
            "INSERT INTO items (itemID, itemTypeID, libraryID, key, version, synced)
             SELECT 9001, itemTypeID, 1, 'EVIL0001', 0, 0 FROM itemTypesCombined
             WHERE typeName = 'attachment';
             INSERT INTO itemAttachments (itemID, parentItemID, linkMode, contentType, path)
             VALUES (9001, NULL, 2, 'application/pdf', '{}');",
            key.display()
        )))
        .await
        .unwrap();
    zotero.close().await.unwrap();
    let output = asterism(
        home.path(),
        &[
            "library",
            "import",
            "--offline",
            "--no-index",
            "--json",
            folder.to_str().unwrap(),
        ],
    );
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    let lines: Vec<Value> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let evil = lines
        .iter()
        .find(|line| {
            line["path"]
                .as_str()
                .is_some_and(|path| path.ends_with("EVIL0001"))
        })
        .unwrap();
    assert_eq!(evil["outcome"], "failed", "{evil}");
    assert!(!String::from_utf8_lossy(&output.stdout).contains("secret-by-value"));
    let papers = json(&asterism(home.path(), &["library", "list", "--json"]));
    assert_eq!(papers.as_array().unwrap().len(), 5);
    // A PDF with no parent, the same bytes as a paper's file (named only by its file
    // name, as Zotero names such items), is that paper: no second one.
    let dropped = home.path().join("dropped.pdf");
    std::fs::copy(
        folder.join("storage/J8FIHBUY/Grubb - 2015 - Fractional Laplacians on domains, a development of.pdf"),
        &dropped,
    )
    .unwrap();
    let mut zotero = sqlx::SqliteConnection::connect_with(&options)
        .await
        .unwrap();
    zotero
        .execute(sqlx::AssertSqlSafe(format!(
            "DELETE FROM itemAttachments WHERE itemID = 9001;
             INSERT INTO itemDataValues (valueID, value) VALUES (90001, 'dropped.pdf');
             INSERT INTO itemData (itemID, fieldID, valueID)
             SELECT 9001, fieldID, 90001 FROM fieldsCombined WHERE fieldName = 'title';
             INSERT INTO itemAttachments (itemID, parentItemID, linkMode, contentType, path)
             VALUES (9001, NULL, 2, 'application/pdf', '{}');",
            dropped.display()
        )))
        .await
        .unwrap();
    zotero.close().await.unwrap();
    let again = asterism(
        home.path(),
        &[
            "library",
            "import",
            "--offline",
            "--no-index",
            folder.to_str().unwrap(),
        ],
    );
    assert!(again.status.success(), "{again:?}");
    let papers = json(&asterism(home.path(), &["library", "list", "--json"]));
    assert_eq!(papers.as_array().unwrap().len(), 5, "{papers:#}");
    let mut found = Vec::new();
    for entry in walkdir(&home.path().join("data")) {
        if std::fs::read(&entry)
            .unwrap_or_default()
            .windows(20)
            .any(|window| window == b"secret-by-value-7731")
        {
            found.push(entry);
        }
    }
    assert!(found.is_empty(), "the key's text was copied into {found:?}");
}

fn walkdir(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            files.extend(walkdir(&path));
        } else {
            files.push(path);
        }
    }
    files
}
