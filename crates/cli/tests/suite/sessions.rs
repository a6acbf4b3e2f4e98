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
    let replayed = offline_json(there.path(), &["sessions", "show", &new_id, "--json"]);
    assert_eq!(replayed, original, "the same timeline, item for item");
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
