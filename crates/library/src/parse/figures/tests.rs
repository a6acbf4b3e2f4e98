//! The geometry of [`find_regions`] on synthetic pages, hostile ones included.

use super::*;

fn rect(left: f32, bottom: f32, right: f32, top: f32) -> Rect {
    Rect {
        left,
        bottom,
        right,
        top,
    }
}

fn run(text: &str, left: f32, bottom: f32, right: f32, top: f32) -> TextRun {
    TextRun {
        text: text.into(),
        rect: rect(left, bottom, right, top),
    }
}

fn page(text: Vec<TextRun>, graphics: Vec<Rect>) -> PageContent {
    PageContent {
        width: 612.0,
        height: 792.0,
        text,
        graphics,
    }
}

/// A plot above its caption: the frame, its tick and axis labels, not the text of the
/// page above it nor the caption.
#[test]
fn a_figure_is_the_drawing_above_its_caption_with_its_labels() {
    let content = page(
        vec![
            run(
                "The page's text before the figure, a whole line of it.",
                100.0,
                720.0,
                500.0,
                730.0,
            ),
            run("0.5", 88.0, 395.0, 98.0, 403.0),
            run("Time (s)", 280.0, 386.0, 330.0, 395.0),
            run("Figure 1.", 100.0, 360.0, 140.0, 370.0),
            run("The light curve of the source.", 143.0, 360.0, 400.0, 370.0),
            run("Its second line.", 100.0, 348.0, 480.0, 358.0),
        ],
        vec![
            rect(100.0, 400.0, 500.0, 700.0),
            rect(100.0, 398.0, 103.0, 402.0),
        ],
    );
    let found = find_regions(4, &content);
    assert_eq!(found.len(), 1, "{found:?}");
    let figure = &found[0];
    assert_eq!(
        (figure.label.as_str(), figure.kind.as_str(), figure.page),
        ("Figure 1", "figure", 4)
    );
    assert_eq!(figure.region, rect(88.0, 386.0, 500.0, 700.0));
    assert_eq!(figure.caption, rect(100.0, 348.0, 480.0, 370.0));
}

/// A table's rows and rules below its caption, ended at its last rule: the prose
/// after it is not a row.
#[test]
fn a_table_is_the_rows_below_its_caption_down_to_its_last_rule() {
    let content = page(
        vec![
            run("Table 2. Fitted parameters.", 100.0, 300.0, 260.0, 310.0),
            run("Name  1.0  2.0", 100.0, 276.0, 500.0, 286.0),
            run("Other  3.0  4.0", 100.0, 264.0, 500.0, 274.0),
            run(
                "The fit shows that the spectrum is harder than it was.",
                100.0,
                238.0,
                500.0,
                248.0,
            ),
        ],
        vec![
            rect(100.0, 295.0, 500.0, 296.0),
            rect(100.0, 258.0, 500.0, 259.0),
        ],
    );
    let found = find_regions(2, &content);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].kind, "table");
    assert_eq!(found[0].region, rect(100.0, 258.0, 500.0, 296.0));
}

/// A caption under its table (a rule just above it, prose just below): the rows above.
#[test]
fn a_caption_under_its_table_takes_the_rows_above() {
    let content = page(
        vec![
            run("Name  1.0  2.0", 100.0, 330.0, 500.0, 340.0),
            run("Other  3.0  4.0", 100.0, 318.0, 500.0, 328.0),
            run("Table 2. Fitted parameters.", 100.0, 300.0, 260.0, 310.0),
            run(
                "The fit shows that the spectrum is harder than it was.",
                100.0,
                284.0,
                500.0,
                294.0,
            ),
        ],
        vec![
            rect(100.0, 345.0, 500.0, 346.0),
            rect(100.0, 313.0, 500.0, 314.0),
        ],
    );
    let found = find_regions(2, &content);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].region, rect(100.0, 313.0, 500.0, 346.0));
}

/// "… as shown in Figure 3. The …" in running text is not a caption, however near a
/// drawing it is.
#[test]
fn a_reference_in_running_text_is_not_a_caption() {
    let content = page(
        vec![
            run("as shown in", 100.0, 500.0, 160.0, 510.0),
            run("Figure 3. The fit is good.", 162.0, 500.0, 290.0, 510.0),
        ],
        vec![rect(100.0, 520.0, 500.0, 700.0)],
    );
    assert!(find_regions(1, &content).is_empty());
}

/// A sentence broken before "Figure 3." goes on: the line above ends mid-sentence.
#[test]
fn a_reference_after_a_broken_line_is_not_a_caption() {
    let content = page(
        vec![
            run(
                "The fitted spectrum of the source is shown in",
                100.0,
                512.0,
                400.0,
                522.0,
            ),
            run(
                "Figure 3. The fit is good and the residuals are small.",
                100.0,
                500.0,
                400.0,
                510.0,
            ),
        ],
        vec![rect(100.0, 530.0, 500.0, 700.0)],
    );
    assert!(find_regions(1, &content).is_empty());
}

/// A run narrower than a point (a stray glyph) after a caption's label neither hangs
/// the line's assembly nor hides the caption.
#[test]
fn a_zero_width_run_ends_nothing() {
    let content = page(
        vec![
            run("Figure 5", 100.0, 300.0, 140.0, 310.0),
            run(".", 140.0, 300.0, 140.0, 310.0),
            run(" The spectrum.", 142.0, 300.0, 300.0, 310.0),
        ],
        vec![rect(100.0, 320.0, 500.0, 600.0)],
    );
    let found = find_regions(1, &content);
    assert_eq!(
        found.iter().map(|f| f.label.as_str()).collect::<Vec<_>>(),
        ["Figure 5"]
    );
}

/// Two figures in one column: the lower one stops at the upper one's caption.
#[test]
fn a_figure_never_grows_past_another_caption() {
    let content = page(
        vec![
            run("Figure 1. The upper one.", 100.0, 480.0, 300.0, 490.0),
            run("Figure 2. The lower one.", 100.0, 230.0, 300.0, 240.0),
        ],
        vec![
            rect(100.0, 500.0, 500.0, 700.0),
            rect(100.0, 250.0, 500.0, 470.0),
        ],
    );
    let found = find_regions(1, &content);
    let lower = found
        .iter()
        .find(|f| f.label == "Figure 2")
        .expect("Figure 2");
    assert_eq!(lower.region, rect(100.0, 250.0, 500.0, 470.0));
    let upper = found
        .iter()
        .find(|f| f.label == "Figure 1")
        .expect("Figure 1");
    assert_eq!(upper.region, rect(100.0, 500.0, 500.0, 700.0));
}

/// A hostile page: thousands of runs on one line, every one starting with "F" (as a PDF
/// made to stall the import would have). Finding its captions ends (without the caps on
/// candidates and runs a line, 1,500 runs is 1,500 lines of 1,500 steps each scanning
/// 1,500 runs); a page past the cap has none
/// looked for.
#[test]
fn a_page_of_runs_all_starting_with_f_ends() {
    let runs = |n: usize| {
        (0..n)
            // 7 pt apart: each starts a line of its own and is joined to the next.
            .map(|i| run("F", i as f32 * 7.0, 300.0, i as f32 * 7.0 + 0.05, 310.0))
            .collect::<Vec<_>>()
    };
    let graphics = vec![rect(0.0, 320.0, 600.0, 600.0)];
    assert!(find_regions(1, &page(runs(1_500), graphics.clone())).is_empty());
    assert!(find_regions(1, &page(runs(40_000), graphics)).is_empty());
}
