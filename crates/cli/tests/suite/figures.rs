//! `asterism papers figure` end to end: a real paper imported, its figures listed and one
//! written as a PNG, labels it lacks and hostile ones refused.

use asterism_testkit::fixture_path;
use serde_json::Value;

use super::library_cli::asterism;

/// `papers figure`: an imported paper's figures listed where they are, one cut from the
/// library's copy of its PDF into a PNG by the label as people type it, and a label it
/// does not have refused with the ones it has.
#[test]
fn papers_figure_lists_and_writes_a_figure_of_an_imported_paper() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("in");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::copy(
        fixture_path("pdfs/celerite_ms.pdf"),
        folder.join("celerite.pdf"),
    )
    .unwrap();
    let run = |args: &[&str]| asterism(dir.path()).args(args).output().unwrap();
    let import = run(&[
        "library",
        "import",
        "--offline",
        "--no-index",
        folder.to_str().unwrap(),
    ]);
    assert!(import.status.success(), "{import:?}");
    let listed: Value =
        serde_json::from_slice(&run(&["library", "list", "--json"]).stdout).unwrap();
    let id = listed[0]["id"].as_str().unwrap().to_string();

    let figures = run(&["papers", "figure", &id, "--json"]);
    assert!(figures.status.success(), "{figures:?}");
    let figures: Value = serde_json::from_slice(&figures.stdout).unwrap();
    let labels: Vec<&str> = figures
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["label"].as_str().unwrap())
        .collect();
    assert_eq!(labels.len(), 13, "celerite has 13 figures: {labels:?}");
    assert_eq!(labels[0], "Figure 1");
    assert_eq!(figures[0]["page"], 9);

    let written = run(&[
        "papers", "figure", &id, "fig. 1", "--out", "fig1.png", "--dpi", "72",
    ]);
    assert!(written.status.success(), "{written:?}");
    let png = std::fs::read(dir.path().join("fig1.png")).unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    // The IHDR's width and height: the figure (about 300 x 300 pt) at 72 dpi.
    let width = u32::from_be_bytes(png[16..20].try_into().unwrap());
    let height = u32::from_be_bytes(png[20..24].try_into().unwrap());
    assert!(
        (250..400).contains(&width) && (250..400).contains(&height),
        "{width} x {height}"
    );
    let said = String::from_utf8_lossy(&written.stdout);
    assert!(
        said.contains("Figure 1 (p. 9) written to fig1.png"),
        "{said}"
    );

    for (label, why) in [
        ("99", "it has Figure 1, Figure 2"),
        ("rm -rf /", "not a figure or table label"),
    ] {
        let refused = run(&["papers", "figure", &id, label]);
        assert_eq!(refused.status.code(), Some(1), "{label}: {refused:?}");
        let stderr = String::from_utf8_lossy(&refused.stderr);
        assert!(stderr.contains(why), "{label}: {stderr}");
    }
    assert!(!dir.path().join("figure-99.png").exists());
}
