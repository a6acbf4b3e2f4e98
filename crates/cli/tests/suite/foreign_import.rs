//! Libraries from other tools: a `.bib` in the forms JabRef, Mendeley and Zotero write
//! (linked PDFs, groups, keywords, missing files, no file) and a CSL-JSON file, imported
//! with `library import`, exported with `export-bib --with-files`, and imported again
//! into a new data folder with nothing lost.

use std::path::Path;
use std::process::{Command, Output};

use asterism_testkit::fixture_path;
use serde_json::Value;

fn asterism(home: &Path, data: &str, args: &[&str]) -> Output {
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

fn papers(home: &Path, data: &str) -> Vec<Value> {
    let output = asterism(home, data, &["library", "list", "--json"]);
    assert!(output.status.success(), "{output:?}");
    serde_json::from_slice(&output.stdout).unwrap()
}

fn by_title<'a>(papers: &'a [Value], words: &str) -> &'a Value {
    papers
        .iter()
        .find(|paper| paper["title"].as_str().unwrap_or("").contains(words))
        .unwrap_or_else(|| panic!("no paper titled …{words}…: {papers:#?}"))
}

const BIB: &str = r"@Comment{jabref-meta: databaseType:bibtex;}

@Article{Bouma2021,
  author   = {Bouma, L. G. and Curtis, J. L. and Masuda, K.},
  title    = {A 30 Million Year Old Mini-Neptune in the {Kepler} Field},
  journal  = {The Astronomical Journal},
  year     = {2022},
  volume   = {163},
  pages    = {121},
  doi      = {10.3847/1538-3881/ac4966},
  keywords = {exoplanets, young stars},
  file     = {:papers/kepler 1627.pdf:PDF},
  groups   = {Exoplanets},
  owner    = {me},
}

@article{Riess2022,
  author = {Riess, Adam G. and Yuan, Wenlong},
  title = {A Comprehensive Measurement of the Local Value of the {Hubble} Constant},
  journal = {The Astrophysical Journal Letters},
  year = {2022},
  volume = {934},
  pages = {L7},
  doi = {10.3847/2041-8213/ac5c5b},
  file = {:C$\backslash$:/Users/me/Mendeley/Riess2022.pdf:pdf},
  mendeley-groups = {Hubble tension},
}

@misc{Freedman2019,
  author = {Freedman, Wendy L.},
  title = {The Carnegie-Chicago Hubble Program},
  year = {2019},
  eprint = {1907.05922},
  archivePrefix = {arXiv},
  groups = {Hubble tension},
}
";

const CSL: &str = r#"[
  {
    "id": "foreman-mackey2013",
    "type": "article-journal",
    "title": "emcee: The MCMC Hammer",
    "container-title": "Publications of the Astronomical Society of the Pacific",
    "volume": "125",
    "page": "306",
    "DOI": "10.1086/670067",
    "URL": "https://ui.adsabs.harvard.edu/abs/2013PASP..125..306F/abstract",
    "author": [{"family": "Foreman-Mackey", "given": "Daniel"}, {"family": "Hogg", "given": "David W."}],
    "issued": {"date-parts": [[2013, 3]]}
  }
]"#;

#[test]
fn a_bib_and_csl_json_import_with_their_files_and_go_back_out_with_nothing_lost() {
    let home = tempfile::tempdir().unwrap();
    let refs = home.path().join("refs");
    std::fs::create_dir_all(refs.join("papers")).unwrap();
    std::fs::copy(
        fixture_path("pdfs/rudolf_ms.pdf"),
        refs.join("papers/kepler 1627.pdf"),
    )
    .unwrap();
    std::fs::write(refs.join("library.bib"), BIB).unwrap();
    std::fs::write(refs.join("zotero.json"), CSL).unwrap();

    let first = asterism(
        home.path(),
        "data",
        &["library", "import", "--offline", "--no-index", "refs"],
    );
    assert!(first.status.success(), "{first:?}");
    let stdout = String::from_utf8_lossy(&first.stdout);
    // One line per entry; the PDF the .bib links is imported once, as the entry's file.
    assert!(stdout.contains("library.bib#Bouma2021"), "{stdout}");
    assert!(
        stdout.contains("metadata only: file not found: C:/Users/me/Mendeley/Riess2022.pdf")
            || stdout.contains("Riess2022.pdf"),
        "the missing file is named: {stdout}"
    );
    assert!(
        stdout.contains("metadata only: it names no file"),
        "{stdout}"
    );

    let listed = papers(home.path(), "data");
    assert_eq!(listed.len(), 4, "{listed:#?}");
    let bouma = by_title(&listed, "Mini-Neptune");
    assert!(bouma["chunks"].as_i64().unwrap() > 0, "{bouma:#}");
    assert_eq!(bouma["status"], "parsed");
    assert_eq!(bouma["doi"], "10.3847/1538-3881/ac4966");
    assert_eq!(bouma["year"], 2022, "the .bib's year, not the PDF's");
    assert_eq!(bouma["collections"], serde_json::json!(["Exoplanets"]));
    assert!(
        bouma["tags"]
            .as_array()
            .unwrap()
            .contains(&"young stars".into())
    );
    let riess = by_title(&listed, "Hubble Constant");
    assert_eq!(riess["status"], "no-pdf");
    assert_eq!(riess["collections"], serde_json::json!(["Hubble tension"]));
    let freedman = by_title(&listed, "Carnegie-Chicago");
    assert_eq!(freedman["arxivId"], "1907.05922");
    let emcee = by_title(&listed, "emcee");
    assert_eq!(emcee["bibcode"], "2013PASP..125..306F");
    assert_eq!(emcee["year"], 2013);

    // Importing again adds nothing.
    let again = asterism(
        home.path(),
        "data",
        &["library", "import", "--offline", "--no-index", "refs"],
    );
    assert!(again.status.success(), "{again:?}");
    assert_eq!(papers(home.path(), "data").len(), 4);

    // Out, with the stored PDFs named, and into a new data folder.
    let out = home.path().join("out.bib");
    let export = asterism(
        home.path(),
        "data",
        &[
            "library",
            "export-bib",
            "--with-files",
            "--out",
            out.to_str().unwrap(),
        ],
    );
    assert!(export.status.success(), "{export:?}");
    let exported = std::fs::read_to_string(&out).unwrap();
    assert!(exported.contains("@article{Bouma2021,"), "{exported}");
    assert!(
        exported.contains("owner = {me}"),
        "every field kept: {exported}"
    );
    assert!(exported.contains(":PDF}"), "the file named: {exported}");
    let moved = asterism(
        home.path(),
        "data2",
        &["library", "import", "--offline", "--no-index", "out.bib"],
    );
    assert!(moved.status.success(), "{moved:?}");
    let copied = papers(home.path(), "data2");
    assert_eq!(copied.len(), 4, "{copied:#?}");
    let bouma2 = by_title(&copied, "Mini-Neptune");
    assert!(
        bouma2["chunks"].as_i64().unwrap() > 0,
        "the file came along: {bouma2:#}"
    );
    assert_eq!(bouma2["collections"], serde_json::json!(["Exoplanets"]));
    assert_eq!(
        by_title(&copied, "Hubble Constant")["collections"],
        serde_json::json!(["Hubble tension"])
    );
    let again_out = home.path().join("again.bib");
    let export2 = asterism(
        home.path(),
        "data2",
        &[
            "library",
            "export-bib",
            "--out",
            again_out.to_str().unwrap(),
        ],
    );
    assert!(export2.status.success(), "{export2:?}");
    let exported2 = std::fs::read_to_string(&again_out).unwrap();
    for key in ["Bouma2021", "Riess2022", "Freedman2019"] {
        assert!(
            exported2.contains(&format!("{{{key},")),
            "{key} kept: {exported2}"
        );
    }
}

/// JabRef 5's group tree as JabRef writes it, nested.
const NESTED: &str = r"@Article{Anand2022,
  author = {Anand, Gagandeep S. and Tully, R. Brent},
  title  = {Comparing Tip of the Red Giant Branch Distance Scales},
  year   = {2022},
  groups = {TRGB},
}

@Comment{jabref-meta: databaseType:bibtex;}

@Comment{jabref-meta: grouping:
0 AllEntriesGroup:;
1 StaticGroup:Distances\;0\;1\;0x8a8a8aff\;\;\;;
2 StaticGroup:TRGB\;0\;1\;0x8a8a8aff\;\;\;;
}
";

fn collections_of(papers: &[Value], words: &str) -> Vec<String> {
    let mut names: Vec<String> = by_title(papers, words)["collections"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap().to_string())
        .collect();
    names.sort();
    names
}

#[test]
fn jabref_and_bibdesk_groups_become_collections_and_a_nested_tree_goes_out_and_back() {
    let home = tempfile::tempdir().unwrap();
    let refs = home.path().join("refs");
    std::fs::create_dir_all(&refs).unwrap();
    for name in ["jabref_complex_excerpt.bib", "bibdesk_static_groups.bib"] {
        std::fs::copy(fixture_path(&format!("bib/{name}")), refs.join(name)).unwrap();
    }
    std::fs::write(refs.join("nested.bib"), NESTED).unwrap();
    let import = asterism(
        home.path(),
        "data",
        &["library", "import", "--offline", "--no-index", "refs"],
    );
    assert!(import.status.success(), "{import:?}");
    let listed = papers(home.path(), "data");
    assert_eq!(listed.len(), 8, "{listed:#?}");

    // JabRef's own file: its static group holds three entries; its keyword and
    // automatic groups hold none of their own.
    for title in ["Extending XP", "graphical passwords", "radon transforms"] {
        assert_eq!(collections_of(&listed, title), ["StaticGroup"], "{title}");
    }
    assert!(collections_of(&listed, "Useful Computer Security").is_empty());
    let stdout = String::from_utf8_lossy(&import.stdout);
    assert!(
        stdout.contains("p11-bostrom.pdf"),
        "the missing file is named: {stdout}"
    );
    // Counted by entries, not by the three files holding them.
    let counted: Vec<&str> = stdout.lines().filter(|l| l.starts_with('[')).collect();
    assert_eq!(counted.len(), 8, "{stdout}");
    assert!(counted.iter().all(|l| l.contains("/8] ")), "{stdout}");
    // BibDesk's static groups list their keys.
    assert_eq!(
        collections_of(&listed, "Local Value of the Hubble"),
        ["Hubble tension"]
    );
    assert_eq!(
        collections_of(&listed, "Carnegie-Chicago"),
        ["Cosmology", "Hubble tension"]
    );
    // JabRef 5's tree: the group inside its parent.
    assert_eq!(
        collections_of(&listed, "Red Giant Branch"),
        ["Distances/TRGB"]
    );

    // Out as BibTeX (with JabRef's grouping comment) and into a new data folder.
    let out = home.path().join("out.bib");
    let export = asterism(
        home.path(),
        "data",
        &["library", "export-bib", "--out", out.to_str().unwrap()],
    );
    assert!(export.status.success(), "{export:?}");
    let exported = std::fs::read_to_string(&out).unwrap();
    assert!(
        exported.contains("@Comment{jabref-meta: grouping:"),
        "{exported}"
    );
    let back = asterism(
        home.path(),
        "data2",
        &["library", "import", "--offline", "--no-index", "out.bib"],
    );
    assert!(back.status.success(), "{back:?}");
    let copied = papers(home.path(), "data2");
    assert_eq!(copied.len(), 8);
    assert_eq!(
        collections_of(&copied, "Red Giant Branch"),
        ["Distances/TRGB"]
    );
    assert_eq!(
        collections_of(&copied, "Carnegie-Chicago"),
        ["Cosmology", "Hubble tension"]
    );
    assert_eq!(collections_of(&copied, "radon transforms"), ["StaticGroup"]);
}
