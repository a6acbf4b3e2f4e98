//! `asterism sessions export|import`: a session moves to another machine as a bundle
//! file and replays there as it did here.

use asterism_testkit::fixture_path;
use serde_json::Value;

use super::common::{offline as asterism, offline_json};

#[test]
fn a_session_exported_on_one_machine_replays_identically_on_another() {
    // "Here": a data folder with three sessions that called tools.
    let here = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(here.path().join("data")).unwrap();
    std::fs::copy(
        fixture_path("upgrade/6f4a5af/asterism.db"),
        here.path().join("data/asterism.db"),
    )
    .unwrap();
    let sessions = offline_json(here.path(), &["sessions", "list", "--json"]);
    let id = sessions[0]["id"].as_str().unwrap().to_string();
    let original = offline_json(here.path(), &["sessions", "show", &id, "--json"]);

    let bundle = here.path().join("trip.asterism.json");
    let exported = asterism(
        here.path(),
        &["sessions", "export", &id, bundle.to_str().unwrap()],
    );
    assert!(exported.status.success(), "{exported:?}");
    assert!(String::from_utf8_lossy(&exported.stderr).contains("trip.asterism.json"));
    let file: Value = serde_json::from_slice(&std::fs::read(&bundle).unwrap()).unwrap();
    assert_eq!(file["format"], "asterism-session");

    // "There": an empty data folder.
    let there = tempfile::tempdir().unwrap();
    let imported = asterism(
        there.path(),
        &["sessions", "import", bundle.to_str().unwrap()],
    );
    assert!(imported.status.success(), "{imported:?}");
    let new_id = String::from_utf8_lossy(&imported.stdout).trim().to_string();
    assert_ne!(new_id, id, "stored under a new id");
    let replayed = offline_json(there.path(), &["sessions", "show", &new_id, "--json"]);
    assert_eq!(
        replayed.to_string().replace(&new_id, &id),
        original.to_string(),
        "the same timeline, item for item"
    );
    let listed = offline_json(there.path(), &["sessions", "list", "--json"]);
    assert_eq!(listed.as_array().unwrap().len(), 1);
    assert_eq!(listed[0]["title"], sessions[0]["title"]);

    // Bad input: a clear error and nothing stored.
    let unknown = asterism(
        here.path(),
        &["sessions", "export", "no-such-session", "x.json"],
    );
    assert!(!unknown.status.success());
    assert!(
        String::from_utf8_lossy(&unknown.stderr).contains("not found"),
        "{unknown:?}"
    );
    assert!(!here.path().join("x.json").exists());
    let not_bundle = there.path().join("notes.json");
    std::fs::write(&not_bundle, r#"{"hello": "world"}"#).unwrap();
    let refused = asterism(
        there.path(),
        &["sessions", "import", not_bundle.to_str().unwrap()],
    );
    assert!(!refused.status.success());
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains("not a session bundle"),
        "{refused:?}"
    );
    let listed = offline_json(there.path(), &["sessions", "list", "--json"]);
    assert_eq!(listed.as_array().unwrap().len(), 1, "nothing was added");
}

#[test]
fn a_bundle_imported_twice_is_two_sessions_and_delete_asks_first() {
    let here = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(here.path().join("data")).unwrap();
    std::fs::copy(
        fixture_path("upgrade/6f4a5af/asterism.db"),
        here.path().join("data/asterism.db"),
    )
    .unwrap();
    let before = offline_json(here.path(), &["sessions", "list", "--json"]);
    let count = before.as_array().unwrap().len();
    let id = before[0]["id"].as_str().unwrap().to_string();
    let bundle = here.path().join("b.json");
    assert!(
        asterism(
            here.path(),
            &["sessions", "export", &id, bundle.to_str().unwrap()]
        )
        .status
        .success()
    );
    let import = || {
        let output = asterism(
            here.path(),
            &["sessions", "import", bundle.to_str().unwrap()],
        );
        assert!(output.status.success(), "{output:?}");
        String::from_utf8_lossy(&output.stdout).trim().to_string()
    };
    let (first, second) = (import(), import());
    assert_ne!(first, second);
    assert!(![first.as_str(), second.as_str()].contains(&id.as_str()));
    let listed = offline_json(here.path(), &["sessions", "list", "--json"]);
    assert_eq!(listed.as_array().unwrap().len(), count + 2);

    // No terminal to ask on and no --yes: refused, nothing deleted.
    let refused = asterism(here.path(), &["sessions", "delete", &first]);
    assert!(!refused.status.success(), "{refused:?}");
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains("--yes"),
        "{refused:?}"
    );
    assert_eq!(
        offline_json(here.path(), &["sessions", "list", "--json"])
            .as_array()
            .unwrap()
            .len(),
        count + 2
    );
    let deleted = asterism(here.path(), &["sessions", "delete", &first, "--yes"]);
    assert!(deleted.status.success(), "{deleted:?}");
    let after = offline_json(here.path(), &["sessions", "list", "--json"]);
    let ids: Vec<&str> = after
        .as_array()
        .unwrap()
        .iter()
        .map(|session| session["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids.len(), count + 1);
    assert!(
        !ids.contains(&first.as_str())
            && ids.contains(&second.as_str())
            && ids.contains(&id.as_str())
    );
    let gone = asterism(here.path(), &["sessions", "show", &first]);
    assert!(!gone.status.success());
    let missing = asterism(here.path(), &["sessions", "delete", "no-such", "--yes"]);
    assert!(
        String::from_utf8_lossy(&missing.stderr).contains("not found"),
        "{missing:?}"
    );
}
