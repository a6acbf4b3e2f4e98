//! Upgrade safety: a data folder written by an earlier release (the database, with
//! sessions that called tools, an imported paper and a note; made by
//! `scripts/make-upgrade-fixture.sh` with that release's binaries) opens in this build,
//! migrates, and reads back as that release printed it. Every later schema change must
//! keep this passing; a release that changes the schema adds its own folder here.

use asterism_testkit::fixture_path;
use serde_json::Value;

use super::common::offline_json as asterism;

/// The releases whose databases this build must open.
const RELEASES: &[&str] = &["6f4a5af"];

/// Every field the old release printed is there with the same value (a newer build may
/// add fields, never change or drop one).
fn assert_kept(old: &Value, new: &Value, at: &str) {
    match (old, new) {
        (Value::Object(old), Value::Object(new)) => {
            for (key, value) in old {
                let new_value = new.get(key).unwrap_or_else(|| panic!("{at}.{key} is gone"));
                assert_kept(value, new_value, &format!("{at}.{key}"));
            }
        }
        (Value::Array(old), Value::Array(new)) => {
            assert_eq!(old.len(), new.len(), "{at}: length");
            for (index, (old, new)) in old.iter().zip(new).enumerate() {
                assert_kept(old, new, &format!("{at}[{index}]"));
            }
        }
        _ => assert_eq!(old, new, "{at}"),
    }
}

fn expected(release: &str, name: &str) -> Value {
    let path = fixture_path(&format!("upgrade/{release}/expected/{name}"));
    serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap()
}

#[test]
fn a_database_of_an_earlier_release_migrates_and_replays_identically() {
    for release in RELEASES {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("data")).unwrap();
        std::fs::copy(
            fixture_path(&format!("upgrade/{release}/asterism.db")),
            dir.path().join("data/asterism.db"),
        )
        .unwrap();

        let sessions = asterism(dir.path(), &["sessions", "list", "--json"]);
        assert_kept(&expected(release, "sessions.json"), &sessions, "sessions");
        let ids: Vec<&str> = sessions
            .as_array()
            .unwrap()
            .iter()
            .map(|session| session["id"].as_str().unwrap())
            .collect();
        assert_eq!(ids.len(), 3, "{release}: three sessions");
        for id in ids {
            let items = asterism(dir.path(), &["sessions", "show", id, "--json"]);
            let old = expected(release, &format!("session-{id}.json"));
            assert!(old.as_array().unwrap().len() >= 3, "{release} {id}: {old}");
            assert_kept(&old, &items, &format!("{release} session {id}"));
        }
        let library = asterism(dir.path(), &["library", "list", "--json"]);
        assert_kept(&expected(release, "library.json"), &library, "library");
        let notes = asterism(dir.path(), &["library", "notes", "--json"]);
        assert_kept(&expected(release, "notes.json"), &notes, "notes");
        assert_eq!(notes.as_array().unwrap().len(), 1, "{release}: the note");

        // Migrated, and still writable: the imported paper can be searched and
        // re-identified by the new code, and a second open finds nothing to migrate.
        let search = asterism(dir.path(), &["library", "search", "Kepler 1627", "--json"]);
        assert!(!search["hits"].as_array().unwrap().is_empty(), "{search}");
        // Migration 10 (objects): the papers stored before are scanned for the objects
        // they are about on the first listing (offline here: not resolved yet).
        let objects = asterism(dir.path(), &["library", "objects", "--json"]);
        let names: Vec<&str> = objects["objects"]
            .as_array()
            .unwrap()
            .iter()
            .map(|object| object["name"].as_str().unwrap())
            .collect();
        assert!(names.contains(&"Kepler-1627"), "{release}: {objects}");
        assert_kept(
            &sessions,
            &asterism(dir.path(), &["sessions", "list", "--json"]),
            "again",
        );
    }
}
