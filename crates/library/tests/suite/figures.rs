//! Figures and tables found on the fixture papers' pages, stored with their caption
//! passages, and rendered from the library's copy of the PDF.

use std::collections::BTreeSet;
use std::time::Duration;

use asterism_library::library::figures::{figure_png, figures};
use asterism_library::library::{Chunker, ImportOutcome, Importer};
use asterism_library::papers::PaperSearch;
use asterism_library::parse::{FigureRegion, Rect, parse_pdf_bytes, render_region};
use asterism_library::sources::{ads::AdsClient, arxiv::ArxivClient};
use asterism_store::Store;
use asterism_testkit::fixture_path;

const PAPERS: [&str; 4] = [
    "gammapy_v1_ms.pdf",
    "celerite_ms.pdf",
    "rudolf_ms.pdf",
    "paperqa_2407.01603.pdf",
];

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(fixture_path(&format!("pdfs/{name}"))).unwrap()
}

/// The labels of a paper's caption passages, as the chunker makes them.
fn caption_labels(markdown: &str) -> BTreeSet<(String, u32)> {
    Chunker::characters()
        .chunk(markdown)
        .into_iter()
        .filter_map(|chunk| {
            let label = chunk.section?;
            let caption = label.starts_with("Figure ") || label.starts_with("Table ");
            caption.then(|| (label, chunk.page.unwrap_or(0) as u32))
        })
        .collect()
}

/// A decoded PNG: (width, height, RGBA).
fn decode(png: &[u8]) -> (u32, u32, Vec<u8>) {
    let decoder = png::Decoder::new(std::io::Cursor::new(png));
    let mut reader = decoder.read_info().unwrap();
    let mut buffer = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buffer).unwrap();
    buffer.truncate(info.buffer_size());
    (info.width, info.height, buffer)
}

/// The share of pixels that are not white.
fn ink(rgba: &[u8]) -> f64 {
    let pixels = rgba.len() / 4;
    let inked = rgba
        .chunks_exact(4)
        .filter(|p| p[0] < 200 || p[1] < 200 || p[2] < 200)
        .count();
    inked as f64 / pixels.max(1) as f64
}

/// Every "Figure N" and "Table N" caption passage of every fixture paper has a region on
/// its page, inside the page: a figure above its caption (or beside a side caption), a
/// table below its caption (or above one under it).
#[test]
fn every_caption_passage_has_a_region() {
    for name in PAPERS {
        let parsed = parse_pdf_bytes(&fixture(name)).unwrap();
        let captions = caption_labels(&parsed.markdown);
        let regions: Vec<&FigureRegion> = parsed.figures.iter().collect();
        eprintln!(
            "{name}: {} caption passages, {} regions: {:?}",
            captions.len(),
            regions.len(),
            regions
                .iter()
                .map(|r| (&r.label, r.page))
                .collect::<Vec<_>>()
        );
        assert!(!captions.is_empty(), "{name} has captions");
        // A label's passages ("Table 2" and "Table 2 – continued" on the next page): its
        // region is on the page of one of them.
        for (label, page) in &captions {
            let found = regions.iter().find(|r| &r.label == label);
            let Some(region) = found else {
                panic!("{name}: {label} (p. {page}) has no region");
            };
            let pages: Vec<u32> = captions
                .iter()
                .filter(|(l, _)| l == label)
                .map(|c| c.1)
                .collect();
            assert!(
                pages.contains(&region.page),
                "{name}: {label} on p. {} not {pages:?}",
                region.page
            );
        }
        for r in &regions {
            let (area, caption) = (&r.region, &r.caption);
            assert!(
                area.left >= -1.0 && area.right <= r.page_width + 1.0,
                "{name} {}",
                r.label
            );
            assert!(
                area.bottom >= -1.0 && area.top <= r.page_height + 1.0,
                "{name} {}",
                r.label
            );
            assert!(
                area.width() > 20.0 && area.height() > 10.0,
                "{name} {}: {area:?}",
                r.label
            );
            if r.kind == "figure" {
                // Above it, or beside it (A&A's side captions).
                let above = area.bottom >= caption.top - 8.0;
                let beside = area.right <= caption.left + 2.0 || area.left >= caption.right - 2.0;
                assert!(
                    above || beside,
                    "{name} {}: above or beside its caption",
                    r.label
                );
            } else {
                let beside = area.top <= caption.bottom + 8.0 || area.bottom >= caption.top - 8.0;
                assert!(beside, "{name} {}: below or above its caption", r.label);
            }
        }
    }
}

/// A figure's rendered region holds the figure: inked (a plot, not a blank margin), and
/// the same pixels as the whole page rendered and cut at the region's place; the
/// caption's text is not in it.
#[test]
fn a_rendered_figure_is_the_figure_on_its_page() {
    let bytes = fixture("gammapy_v1_ms.pdf");
    let parsed = parse_pdf_bytes(&bytes).unwrap();
    let figure = parsed
        .figures
        .iter()
        .find(|f| f.kind == "figure")
        .expect("gammapy has figures");
    let dpi = 72.0;
    let (w, h, crop) = decode(&render_region(&bytes, figure.page, &figure.region, dpi).unwrap());
    assert!(ink(&crop) > 0.03, "{}: ink {:.3}", figure.label, ink(&crop));
    let whole = Rect {
        left: 0.0,
        bottom: 0.0,
        right: figure.page_width,
        top: figure.page_height,
    };
    let (pw, _, page) = decode(&render_region(&bytes, figure.page, &whole, dpi).unwrap());
    // At 72 dpi a point is a pixel; the crop starts 4 pt before the region.
    let x0 = (figure.region.left - 4.0).round().max(0.0) as u32;
    let y0 = (figure.page_height - figure.region.top - 4.0)
        .round()
        .max(0.0) as u32;
    let mut same = 0usize;
    for y in 0..h {
        for x in 0..w {
            let a = ((y * w + x) * 4) as usize;
            let b = (((y0 + y) * pw + x0 + x) * 4) as usize;
            if page.get(b..b + 4) == Some(&crop[a..a + 4]) {
                same += 1;
            }
        }
    }
    let share = same as f64 / f64::from(w * h);
    assert!(
        share > 0.95,
        "{}: {share:.3} of the pixels as on the page",
        figure.label
    );
    // The caption is outside: the region ends above it.
    assert!(figure.region.bottom >= figure.caption.top - 8.0);
}

/// A page without figures gives none, and a PDF without any gives an empty list; a
/// region off the page is an error, not a panic.
#[test]
fn pages_without_figures_and_bad_regions() {
    let text_only = asterism_testkit::pdf::build_pdf(
        &["BT /F1 12 Tf 72 700 Td (Figure 1. A caption without a figure above it.) Tj ET".into()],
        false,
    );
    assert!(
        asterism_library::parse::figure_regions(&text_only)
            .unwrap()
            .is_empty()
    );
    let off = Rect {
        left: 5000.0,
        bottom: 5000.0,
        right: 6000.0,
        top: 6000.0,
    };
    assert!(render_region(&text_only, 1, &off, 150.0).is_err());
    assert!(render_region(&text_only, 7, &off, 150.0).is_err());
}

/// Imported, a paper's figures are stored with it; `figure_png` renders one by the label
/// as people type it, and names the ones there are when asked for one that is not.
#[tokio::test]
async fn imported_figures_are_stored_and_rendered() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open_in_dir(dir.path()).await.unwrap();
    let source = dir.path().join("in");
    std::fs::create_dir_all(&source).unwrap();
    std::fs::write(source.join("celerite.pdf"), fixture("celerite_ms.pdf")).unwrap();
    let nowhere = "http://127.0.0.1:9".to_string();
    let importer = Importer {
        store: store.clone(),
        papers: PaperSearch {
            ads: AdsClient::new(nowhere.clone(), None, Duration::from_secs(1)).unwrap(),
            arxiv: ArxivClient::new(nowhere, Duration::from_secs(1)).unwrap(),
            store: store.clone(),
        },
        chunker: Chunker::characters(),
        data_dir: dir.path().join("data"),
        crossref: None,
        online: false,
        network_down: Default::default(),
    };
    let outcome = importer.import_file(&source.join("celerite.pdf")).await;
    let ImportOutcome::Imported { paper_id, .. } = outcome else {
        panic!("{outcome:?}");
    };
    let stored = store.figures(&paper_id).await.unwrap();
    assert!(stored.len() >= 3, "{stored:?}");
    let listed = figures(&store, &paper_id).await.unwrap();
    assert_eq!(listed, stored);
    let (figure, png) = figure_png(&store, &paper_id, "fig. 1", 100.0)
        .await
        .unwrap();
    assert_eq!(figure.label, "Figure 1");
    assert!(png.starts_with(b"\x89PNG"));
    let (w, h, rgba) = decode(&png);
    assert!(w > 100 && h > 50 && ink(&rgba) > 0.02, "{w}x{h}");
    let missing = figure_png(&store, &paper_id, "Figure 99", 100.0)
        .await
        .unwrap_err()
        .to_string();
    assert!(
        missing.contains("no Figure 99") && missing.contains("Figure 1"),
        "{missing}"
    );
    let bad = figure_png(&store, &paper_id, "../../etc/passwd", 100.0)
        .await
        .unwrap_err()
        .to_string();
    assert!(bad.contains("not a figure or table label"), "{bad}");
    // The caption passage knows its figure.
    let chunk = store
        .chunk_ids_matching(&asterism_store::PaperFilter::default())
        .await
        .unwrap();
    let mut with_figure = 0;
    for id in chunk {
        if store.figure_of_chunk(id).await.unwrap().is_some() {
            with_figure += 1;
        }
    }
    assert!(
        with_figure >= stored.len().min(3),
        "{with_figure} caption passages"
    );
}
