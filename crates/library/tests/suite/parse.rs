//! Parsing real papers and bad files; parsing library papers from arXiv HTML or their
//! stored PDF; selecting pages and sections.

use asterism_library::parse::{
    ParseError, Parser, PdfEngine, PdfError, clean_text, extract_pdf_with, parse_file,
    parse_pdf_bytes, select_content,
};
use asterism_protocol::PaperRecord;
use asterism_store::{PaperFile, Store};
use asterism_testkit::{FixtureServer, Route, RouteResponse, fixture_path};

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(fixture_path(&format!("pdfs/{name}"))).unwrap()
}

/// A one-page PDF drawing `content` (a content stream), optionally encrypted.
fn tiny_pdf(content: &str, encrypted: bool) -> Vec<u8> {
    asterism_testkit::pdf::build_pdf(&[content.to_string()], encrypted)
}

const TEXT_PAGE: &str = "BT /F1 12 Tf 72 700 Td (The tip of the red giant branch is a standard candle for distances.) Tj ET";

#[test]
fn real_papers_parse_with_pages_and_sections() {
    let parsed = parse_pdf_bytes(&fixture("gammapy_v1_ms.pdf")).unwrap();
    assert_eq!(parsed.pages, Some(26));
    assert_eq!(parsed.source, "pdf");
    let titles: Vec<String> = parsed
        .sections
        .iter()
        .map(|s| format!("{} {}", s.number.as_deref().unwrap_or("-"), s.title))
        .collect();
    for wanted in [
        "1 Introduction",
        "2.1 DL3: events and instrument response functions",
        "3.8.2 Fit",
        "7 Summary and outlook",
        "- References",
    ] {
        assert!(
            titles.iter().any(|t| t == wanted),
            "{wanted} not in {titles:?}"
        );
    }
    // Pages are marked, the running footer of A&A pages is gone (pdfium glues it to the
    // last body line on one page, where it stays), accents are composed.
    assert!(parsed.markdown.contains("<!-- page 26 -->"));
    assert!(parsed.markdown.matches("Article number, page").count() <= 1);
    assert!(parsed.markdown.contains("Régis Terrier"));

    let slice = select_content(&parsed.markdown, None, Some("2.1"), 0, usize::MAX).unwrap();
    assert!(
        slice
            .text
            .contains("## 2.1 DL3: events and instrument response functions")
            || slice.text.contains("### 2.1 DL3")
    );
    assert!(!slice.text.contains("## 3 Gammapy package"));
    let page = select_content(&parsed.markdown, Some("3"), None, 0, usize::MAX).unwrap();
    assert!(page.text.starts_with("<!-- page 3 -->"));
    assert!(!page.text.contains("<!-- page 4 -->"));
}

#[test]
fn every_fixture_paper_reads_with_both_engines() {
    for name in ["celerite_ms.pdf", "rudolf_ms.pdf", "paperqa_2407.01603.pdf"] {
        let bytes = fixture(name);
        let parsed = parse_pdf_bytes(&bytes).unwrap();
        assert!(parsed.sections.len() >= 5, "{name}: {:?}", parsed.sections);
        assert!(
            parsed
                .sections
                .iter()
                .any(|s| s.title.eq_ignore_ascii_case("introduction")),
            "{name}"
        );
    }
    // Authors and affiliations keep their raised markers apart, so a name can be found.
    let first = &extract_pdf_with(&fixture("gammapy_v1_ms.pdf"), PdfEngine::Pdfium)
        .unwrap()
        .pages[0];
    for wanted in ["Terrier 2", "Acero 10,", "Füßling 23,"] {
        assert!(first.contains(wanted), "{wanted} not on page 1: {first}");
    }
    let first = &extract_pdf_with(&fixture("rudolf_ms.pdf"), PdfEngine::Pdfium)
        .unwrap()
        .pages[0];
    assert!(first.contains("BOUMA 1 AND J. L. CURTIS 2"), "{first}");
    assert!(first.contains("1 Department"), "{first}");
    // So do citation and footnote markers on every page, and an accent drawn apart from
    // its letter (pdfium puts it at the end of the line) is put back on it.
    let pages = |name: &str| -> Vec<String> {
        extract_pdf_with(&fixture(name), PdfEngine::Pdfium)
            .unwrap()
            .pages
            .iter()
            .map(|page| clean_text(page))
            .collect()
    };
    let review = pages("paperqa_2407.01603.pdf");
    for (page, wanted) in [
        (3, "were developed 5 that would"),
        (13, "SciBERT 220"),
        (75, "Bojana Ranković and Philipp"),
    ] {
        let text = &review[page - 1];
        assert!(text.contains(wanted), "{wanted} not on page {page}: {text}");
        assert!(!text.contains('\u{b4}'), "a loose accent on page {page}");
    }
    let gammapy = pages("gammapy_v1_ms.pdf");
    assert!(gammapy[16].contains("packages 16"), "{}", gammapy[16]);
    // The pure-Rust engine (slow in debug builds: one short paper).
    let pure = extract_pdf_with(&fixture("rudolf_ms.pdf"), PdfEngine::PdfExtract).unwrap();
    assert_eq!(pure.pages.len(), 11);
    assert!(pure.pages[0].contains("Kepler"));
}

#[test]
fn bad_files_are_refused_clearly_with_either_engine() {
    let gammapy = fixture("gammapy_v1_ms.pdf");
    for engine in [PdfEngine::Pdfium, PdfEngine::PdfExtract] {
        assert_eq!(extract_pdf_with(&[], engine), Err(PdfError::Empty));
        assert_eq!(
            extract_pdf_with(b"<html><body>Access denied</body></html>", engine),
            Err(PdfError::NotPdf)
        );
        assert!(
            matches!(
                extract_pdf_with(&gammapy[..gammapy.len() / 3], engine),
                Err(PdfError::Corrupt(_))
            ),
            "{engine:?}"
        );
        assert!(matches!(
            extract_pdf_with(b"%PDF-1.7\n%garbage that is not a PDF body", engine),
            Err(PdfError::Corrupt(_))
        ));
        // A page with a drawing and no text: a scan needs OCR first.
        let scanned = tiny_pdf("0 0 1 rg 100 100 400 600 re f", false);
        assert_eq!(
            extract_pdf_with(&scanned, engine),
            Err(PdfError::NoTextLayer { pages: 1 }),
            "{engine:?}"
        );
    }
    // pdfium knows a password-protected file for what it is (`make test` installs
    // libpdfium; without it both calls below use the fallback).
    let encrypted = tiny_pdf(TEXT_PAGE, true);
    if PdfEngine::best_available() == PdfEngine::Pdfium {
        assert_eq!(
            extract_pdf_with(&encrypted, PdfEngine::Pdfium),
            Err(PdfError::Encrypted)
        );
    }
    assert!(extract_pdf_with(&encrypted, PdfEngine::PdfExtract).is_err());
    // The same page unencrypted reads fine.
    let plain = tiny_pdf(TEXT_PAGE, false);
    let text = extract_pdf_with(&plain, PdfEngine::Pdfium).unwrap();
    assert!(
        text.pages[0].contains("red giant branch"),
        "{:?}",
        text.pages
    );
}

#[test]
fn local_files_parse_by_their_content() {
    let dir = tempfile::tempdir().unwrap();
    let html = dir.path().join("paper.html");
    std::fs::write(&html, latexml_page()).unwrap();
    let parsed = parse_file(&html).unwrap();
    assert_eq!(parsed.engine, "latexml");
    assert!(
        parsed.markdown.contains("$H_{0}=73.0\\pm 1.0$"),
        "{}",
        parsed.markdown
    );
    let missing = parse_file(&dir.path().join("nope.pdf")).unwrap_err();
    assert!(matches!(missing, ParseError::Read { .. }));
    // A login page saved as .pdf is a bad PDF, not an HTML paper.
    let fake = dir.path().join("paper.pdf");
    std::fs::write(&fake, "<html><body>Access denied</body></html>").unwrap();
    assert_eq!(
        parse_file(&fake).unwrap_err(),
        ParseError::Pdf(PdfError::NotPdf)
    );
    let empty = dir.path().join("empty.pdf");
    std::fs::write(&empty, b"").unwrap();
    assert_eq!(
        parse_file(&empty).unwrap_err(),
        ParseError::Pdf(PdfError::Empty)
    );
}

/// A LaTeXML page like arxiv.org/html serves (hand-written: no recorded astro-ph page
/// exists in public repositories, see MANIFEST.md).
fn latexml_page() -> String {
    let filler = "The tip of the red giant branch gives distances to nearby galaxies that calibrate type Ia supernovae. ".repeat(8);
    format!(
        "<html><head><title>TRGB</title></head><body><article class=\"ltx_document\">\
         <h1 class=\"ltx_title ltx_title_document\">A TRGB distance ladder</h1>\
         <section class=\"ltx_section\"><h2 class=\"ltx_title ltx_title_section\">1 Introduction</h2>\
         <p class=\"ltx_p\">{filler}</p></section>\
         <section class=\"ltx_section\"><h2 class=\"ltx_title ltx_title_section\">2 Results</h2>\
         <p class=\"ltx_p\">We find <math alttext=\"H_{{0}}=73.0\\pm 1.0\" display=\"inline\"><semantics><mi>H</mi><annotation encoding=\"application/x-tex\">H_{{0}}=73.0\\pm 1.0</annotation></semantics></math> km/s/Mpc. {filler}</p></section>\
         </article></body></html>"
    )
}

async fn library_with_pdf(
    server: &FixtureServer,
) -> (tempfile::TempDir, Store, Parser, String, PaperRecord) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open_in_dir(dir.path()).await.unwrap();
    let paper = PaperRecord {
        arxiv_id: Some("2308.13584".into()),
        title: "Gammapy: A Python package for gamma-ray astronomy".into(),
        ..PaperRecord::default()
    };
    let paper_id = store.upsert_paper(&paper).await.unwrap();
    let path = dir.path().join("gammapy.pdf");
    std::fs::write(&path, fixture("gammapy_v1_ms.pdf")).unwrap();
    store
        .add_paper_file(
            &PaperFile {
                paper_id: paper_id.clone(),
                kind: "pdf".into(),
                path: path.display().to_string(),
                sha256: "0".repeat(64),
                size_bytes: 1,
                source: "arxiv".into(),
            },
            None,
        )
        .await
        .unwrap();
    let parser = Parser::new(&format!("{}/arxiv", server.url()), store.clone()).unwrap();
    (dir, store, parser, paper_id, paper)
}

#[tokio::test]
async fn arxiv_html_is_preferred_and_stored() {
    let server = FixtureServer::start(vec![Route::new(
        "/arxiv/html/2308.13584",
        RouteResponse::ok("text/html", latexml_page()),
    )])
    .await
    .unwrap();
    let (_dir, store, parser, paper_id, paper) = library_with_pdf(&server).await;
    let (parsed, notes) = parser.parse(&paper_id, &paper, false).await.unwrap();
    assert!(notes.is_empty(), "{notes:?}");
    assert_eq!(parsed.source, "arxiv-html");
    assert_eq!(parsed.pages, None);
    let stored = store.paper_text(&paper_id).await.unwrap().unwrap();
    assert_eq!(stored.markdown, parsed.markdown);
    assert!(stored.sections.contains("Results"));
    let status = store
        .paper_status(None, Some("2308.13584"), None)
        .await
        .unwrap();
    assert_eq!(status.as_deref(), Some("parsed"));
    // HTML has no pages: asking for one says what to do instead.
    let error = select_content(&stored.markdown, Some("2"), None, 0, 100).unwrap_err();
    assert!(error.contains("ask for a section"), "{error}");
    let results = select_content(&stored.markdown, None, Some("results"), 0, 10_000).unwrap();
    assert!(results.text.contains("73.0"));

    // --pdf-only reads the stored PDF instead, with pages.
    let (parsed, _) = parser.parse(&paper_id, &paper, true).await.unwrap();
    assert_eq!(parsed.pages, Some(26));
    assert_eq!(
        store.paper_text(&paper_id).await.unwrap().unwrap().source,
        "pdf"
    );
}

#[tokio::test]
async fn a_stub_html_page_falls_back_to_the_pdf() {
    let stub = "<html><body><h1>No HTML is available for this paper</h1></body></html>";
    let server = FixtureServer::start(vec![Route::new(
        "/arxiv/html/2308.13584",
        RouteResponse::ok("text/html", stub),
    )])
    .await
    .unwrap();
    let (_dir, _store, parser, paper_id, paper) = library_with_pdf(&server).await;
    let (parsed, notes) = parser.parse(&paper_id, &paper, false).await.unwrap();
    assert_eq!(parsed.source, "pdf");
    assert!(notes[0].contains("No HTML is available"), "{notes:?}");
}

#[tokio::test]
async fn a_corrupt_stored_pdf_fails_clearly_and_keeps_the_earlier_text() {
    let server = FixtureServer::start(vec![]).await.unwrap();
    let (dir, store, parser, paper_id, paper) = library_with_pdf(&server).await;
    parser.parse(&paper_id, &paper, true).await.unwrap();
    let before = store.paper_text(&paper_id).await.unwrap().unwrap();
    // The file is damaged on disk afterwards.
    std::fs::write(
        dir.path().join("gammapy.pdf"),
        &fixture("gammapy_v1_ms.pdf")[..5000],
    )
    .unwrap();
    let error = parser.parse(&paper_id, &paper, true).await.unwrap_err();
    assert!(
        error.to_string().contains("damaged or truncated"),
        "{error}"
    );
    assert_eq!(store.paper_text(&paper_id).await.unwrap().unwrap(), before);

    // A paper with neither HTML nor a PDF says to download it.
    let other = PaperRecord {
        arxiv_id: Some("1202.3665".into()),
        title: "emcee".into(),
        ..PaperRecord::default()
    };
    let other_id = store.upsert_paper(&other).await.unwrap();
    let error = parser.parse(&other_id, &other, false).await.unwrap_err();
    assert_eq!(error, ParseError::NothingToParse);
}
