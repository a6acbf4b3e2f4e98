//! Where a paper's figures and tables are on their pages: each "Figure N" or "Table N"
//! caption found in the text layer, and the block it captions — the graphics above a
//! figure's caption (images, vector drawings, embedded plots, with their tick labels),
//! the rows and rules below a table's caption (or above it). Boxes are in PDF points, the origin at the page's
//! bottom left. pdfium gives the page objects and their boxes ([`regions_of_page`]); the
//! geometry ([`find_regions`]) is plain arithmetic, tested on its own.

use pdfium_render::prelude::{
    PdfPage, PdfPageObject, PdfPageObjectCommon, PdfPageObjectType, PdfPageObjectsCommon,
};

use crate::library::chunk::{Float, breaks_off, find_caption};

/// A box on a page, in points from the bottom left.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Rect {
    pub left: f32,
    pub bottom: f32,
    pub right: f32,
    pub top: f32,
}

impl Rect {
    pub fn width(&self) -> f32 {
        self.right - self.left
    }

    pub fn height(&self) -> f32 {
        self.top - self.bottom
    }

    fn union(&self, other: &Rect) -> Rect {
        Rect {
            left: self.left.min(other.left),
            bottom: self.bottom.min(other.bottom),
            right: self.right.max(other.right),
            top: self.top.max(other.top),
        }
    }

    fn grown(&self, by: f32) -> Rect {
        Rect {
            left: self.left - by,
            bottom: self.bottom - by,
            right: self.right + by,
            top: self.top + by,
        }
    }

    fn overlaps(&self, other: &Rect) -> bool {
        self.left < other.right
            && other.left < self.right
            && self.bottom < other.top
            && other.bottom < self.top
    }

    fn overlaps_across(&self, other: &Rect) -> bool {
        self.left < other.right && other.left < self.right
    }

    fn inside(&self, other: &Rect) -> bool {
        self.left >= other.left
            && self.right <= other.right
            && self.bottom >= other.bottom
            && self.top <= other.top
    }
}

/// A figure or table found on a page.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct FigureRegion {
    /// 1-based.
    pub page: u32,
    /// "Figure 3", "Table 1" (as the caption passage's label).
    pub label: String,
    /// `figure` or `table`.
    pub kind: String,
    /// The figure's graphics or the table's body.
    pub region: Rect,
    /// The caption's block.
    pub caption: Rect,
    pub page_width: f32,
    pub page_height: f32,
}

/// A run of text on one line, and its box.
#[derive(Debug, Clone)]
pub struct TextRun {
    pub text: String,
    pub rect: Rect,
}

/// What a page holds, as the geometry needs it.
#[derive(Debug, Clone, Default)]
pub struct PageContent {
    pub width: f32,
    pub height: f32,
    pub text: Vec<TextRun>,
    /// Images, vector paths, shadings and embedded forms.
    pub graphics: Vec<Rect>,
}

/// A caption found on a page: its label, kind and block.
struct Caption {
    label: String,
    kind: Float,
    block: Rect,
}

/// The figures and tables of one page (`page`: 1-based).
pub fn find_regions(page: u32, content: &PageContent) -> Vec<FigureRegion> {
    let captions = captions(content);
    let mut found: Vec<FigureRegion> = Vec::new();
    for (at, caption) in captions.iter().enumerate() {
        let others: Vec<&Rect> = captions
            .iter()
            .enumerate()
            .filter(|(other, _)| *other != at)
            .map(|(_, c)| &c.block)
            .collect();
        let region = match caption.kind {
            Float::Figure => figure_above(content, &caption.block, &others),
            Float::Table => table_of(content, &caption.block, &others),
        };
        let Some(region) = region else {
            continue;
        };
        // The same label twice on a page ("Table 1" and "Table 1 (continued)"): the first.
        if found.iter().any(|f| f.label == caption.label) {
            continue;
        }
        found.push(FigureRegion {
            page,
            label: caption.label.clone(),
            kind: match caption.kind {
                Float::Figure => "figure".into(),
                Float::Table => "table".into(),
            },
            region,
            caption: caption.block,
            page_width: content.width,
            page_height: content.height,
        });
    }
    found
}

/// The captions that start a line of the page, each with the lines that follow it
/// closely in its column.
fn captions(content: &PageContent) -> Vec<Caption> {
    let mut captions = Vec::new();
    for (at, run) in content.text.iter().enumerate() {
        // Every caption starts "Fig…", "FIG…", "Tab…" or "TAB…" (the cheap test first: a
        // page has thousands of runs).
        if !run.text.trim_start().starts_with(['F', 'T']) {
            continue;
        }
        let starts_line = !content.text.iter().enumerate().any(|(other, o)| {
            other != at
                && o.rect.right <= run.rect.left + 1.0
                && run.rect.left - o.rect.right < 6.0
                && same_line(&o.rect, &run.rect)
        });
        if !starts_line {
            continue;
        }
        let (line, first) = line_from(content, at);
        let Some((0, label, kind)) = find_caption(&format!("{line} ")) else {
            continue;
        };
        // "… as shown in" above "Figure 3. The …": the sentence goes on.
        if line_above(content, &first).is_some_and(|above| breaks_off(&above)) {
            continue;
        }
        captions.push(Caption {
            label,
            kind,
            block: caption_block(content, &first),
        });
    }
    captions
}

/// The text of the line from run `at` on, and its box: the runs that follow it closely
/// on its line (a caption's bold label is often a run of its own).
fn line_from(content: &PageContent, at: usize) -> (String, Rect) {
    let mut text = content.text[at].text.trim().to_string();
    let mut end = content.text[at].rect;
    let mut line = end;
    // Each run is taken once (a run narrower than a point stays where it was found).
    let mut taken = vec![at];
    while let Some((index, next)) = content
        .text
        .iter()
        .enumerate()
        .filter(|(index, o)| {
            !taken.contains(index)
                && o.rect.left >= end.right - 1.0
                && o.rect.left - end.right < 20.0
                && same_line(&o.rect, &end)
        })
        .min_by(|(_, a), (_, b)| a.rect.left.total_cmp(&b.rect.left))
    {
        // A gap narrower than a space joins the runs ("Figure 6" and ". (left) …"), as
        // does punctuation after any gap ("Figure 1" and ". A pictorial …"); a run that
        // starts with a space keeps it.
        let punctuation = next
            .text
            .trim_start()
            .starts_with(['.', ':', ',', ';', ')']);
        let spaced = next.text.starts_with(char::is_whitespace);
        if spaced || (next.rect.left - end.right > 0.2 * end.height() && !punctuation) {
            text.push(' ');
        }
        text.push_str(next.text.trim());
        taken.push(index);
        end = next.rect;
        line = line.union(&end);
    }
    (text, line)
}

/// The text of the line just above `line` in its column (within a line and a half).
fn line_above(content: &PageContent, line: &Rect) -> Option<String> {
    let reach = 1.5 * line.height().max(4.0);
    let start = content
        .text
        .iter()
        .enumerate()
        .filter(|(_, o)| {
            o.rect.bottom > line.top - 0.5 * line.height()
                && o.rect.bottom - line.top < reach
                && (o.rect.left - line.left).abs() < 12.0
        })
        .min_by(|(_, a), (_, b)| a.rect.bottom.total_cmp(&b.rect.bottom))?
        .0;
    Some(line_from(content, start).0)
}

fn same_line(a: &Rect, b: &Rect) -> bool {
    let overlap = a.top.min(b.top) - a.bottom.max(b.bottom);
    overlap > 0.5 * a.height().min(b.height())
}

/// The caption's first line grown down through the lines that follow it closely and
/// overlap it across.
fn caption_block(content: &PageContent, first: &Rect) -> Rect {
    let line = first.height().max(4.0);
    let mut block = *first;
    loop {
        let next = content
            .text
            .iter()
            .map(|run| run.rect)
            .filter(|r| {
                r.top <= block.bottom + 1.0
                    && r.top >= block.bottom - line
                    && r.overlaps_across(&block)
                    && !r.inside(&block)
            })
            .reduce(|a, b| a.union(&b));
        match next {
            Some(more) => block = block.union(&more),
            None => return block,
        }
    }
}

/// Graphics on a page, without those covering most of it (backgrounds, frames).
fn drawings(content: &PageContent) -> Vec<Rect> {
    let page = content.width * content.height;
    content
        .graphics
        .iter()
        .filter(|g| g.width() * g.height() < 0.8 * page && g.width().max(g.height()) > 3.0)
        .copied()
        .collect()
}

/// The graphics above a figure caption: the nearest drawing above it that overlaps it
/// across, grown through the drawings touching it, never past another caption; then its
/// labels (short text beside or below it, inside its margin).
fn figure_above(content: &PageContent, caption: &Rect, others: &[&Rect]) -> Option<Rect> {
    let ceiling = others
        .iter()
        .filter(|o| o.bottom >= caption.top && o.overlaps_across(caption))
        .map(|o| o.bottom)
        .fold(content.height, f32::min);
    let above: Vec<Rect> = drawings(content)
        .into_iter()
        .filter(|g| {
            g.bottom >= caption.top - 6.0 && g.top <= ceiling + 2.0 && g.overlaps_across(caption)
        })
        .collect();
    let nearest = above
        .iter()
        .filter(|g| g.bottom - caption.top < 0.3 * content.height)
        .min_by(|a, b| a.bottom.total_cmp(&b.bottom));
    let mut region = match nearest {
        Some(rule) if rule.height() < 3.0 => framed(rule, &above),
        Some(nearest) => *nearest,
        None => beside(content, caption, ceiling)?,
    };
    loop {
        let grown = above
            .iter()
            .filter(|g| g.overlaps(&region.grown(12.0)) && !g.inside(&region))
            .fold(region, |r, g| r.union(g));
        if grown == region {
            break;
        }
        region = grown;
    }
    // Kept clear of the caption, whose first line the rendering's margin would show.
    if (caption.top - 6.0..caption.top + 4.5).contains(&region.bottom) && region.height() > 40.0 {
        region.bottom = caption.top + 4.5;
    }
    let margin = region.grown(16.0);
    let labels = content
        .text
        .iter()
        .map(|run| run.rect)
        // Not above the graphics: what is there is the page's header or the text before.
        .filter(|r| r.inside(&margin) && r.top <= region.top + 1.0)
        // Not the caption, nor text of the next column (a label starts within the region's
        // width or to its left).
        .filter(|r| !r.overlaps(caption) && r.left < region.right - 2.0)
        .filter(|r| r.width() < 0.5 * region.width().max(40.0))
        .fold(region, |r, label| r.union(&label));
    Some(labels)
}

/// A listing between two rules of the same width (code in a figure): from `rule` up to
/// the nearest rule above it that spans the same width; the rule alone when none does.
fn framed(rule: &Rect, above: &[Rect]) -> Rect {
    above
        .iter()
        .filter(|g| {
            g.height() < 3.0
                && g.bottom > rule.top
                && (g.left - rule.left).abs() < 3.0
                && (g.right - rule.right).abs() < 3.0
        })
        .min_by(|a, b| a.bottom.total_cmp(&b.bottom))
        .map_or(*rule, |top| rule.union(top))
}

/// A side caption (A&A's `sidecaption`): the drawing beside the caption that spans its
/// first line's height, nearest to it, below `ceiling`.
fn beside(content: &PageContent, caption: &Rect, ceiling: f32) -> Option<Rect> {
    let gap = |g: &Rect| {
        if g.right <= caption.left + 2.0 {
            caption.left - g.right
        } else {
            g.left - caption.right
        }
    };
    drawings(content)
        .into_iter()
        .filter(|g| {
            !g.overlaps_across(caption)
                && g.bottom <= caption.top
                && g.top >= caption.top
                && g.top <= ceiling + 2.0
                && gap(g) < 40.0
                && g.height() >= 20.0
        })
        .min_by(|a, b| gap(a).total_cmp(&gap(b)))
}

/// The table a caption belongs to: below it (the usual place), or above it when a rule
/// sits just above the caption and none just below (a caption under its table); the
/// other side when nothing is found on the first.
fn table_of(content: &PageContent, caption: &Rect, others: &[&Rect]) -> Option<Rect> {
    let rules: Vec<Rect> = drawings(content)
        .into_iter()
        .filter(|g| g.height() < 3.0 && g.width() > 20.0 && g.overlaps_across(caption))
        .collect();
    let near = |up: bool| {
        rules.iter().any(|r| {
            let gap = if up {
                r.bottom - caption.top
            } else {
                caption.bottom - r.top
            };
            (-1.0..12.0).contains(&gap)
        })
    };
    let up = near(true) && !near(false);
    table_rows(content, caption, others, &rules, up)
        .or_else(|| table_rows(content, caption, others, &rules, !up))
}

/// The rows and rules that follow a table caption down the page (or up it, `up`), each
/// within a couple of lines of the last, never past another caption; ended at the last
/// rule going up, and going down when prose follows it (the text after the table is not
/// a row; a table continued on the next page has no closing rule, and its rows stay).
fn table_rows(
    content: &PageContent,
    caption: &Rect,
    others: &[&Rect],
    rules: &[Rect],
    up: bool,
) -> Option<Rect> {
    let beyond = |o: &Rect| {
        if up {
            o.bottom >= caption.top
        } else {
            o.top <= caption.bottom
        }
    };
    let limits = others
        .iter()
        .filter(|o| beyond(o) && o.overlaps_across(caption));
    let (ceiling, floor) = if up {
        (
            limits.map(|o| o.bottom).fold(content.height, f32::min),
            caption.top - 1.0,
        )
    } else {
        (
            caption.bottom + 1.0,
            limits.map(|o| o.top).fold(0.0, f32::max),
        )
    };
    let across = Rect {
        left: caption.left - 0.15 * content.width,
        right: caption.right + 0.15 * content.width,
        ..*caption
    };
    // (box, is a rule, is a line of prose)
    let mut items: Vec<(Rect, bool, bool)> = content
        .text
        .iter()
        .map(|run| (run.rect, false, run.text.split_whitespace().count() >= 8))
        .chain(rules.iter().map(|r| (*r, true, false)))
        .filter(|(r, ..)| r.top <= ceiling && r.bottom >= floor && r.overlaps_across(&across))
        .collect();
    if up {
        items.sort_by(|a, b| a.0.bottom.total_cmp(&b.0.bottom));
    } else {
        items.sort_by(|a, b| b.0.top.total_cmp(&a.0.top));
    }
    let line = caption.height().clamp(6.0, 14.0);
    let mut edge = if up { caption.top } else { caption.bottom };
    let mut body: Option<Rect> = None;
    let mut last_rule: Option<Rect> = None;
    // Whether prose came after the last rule (the text after the table).
    let mut prose_after_rule = false;
    for (rect, is_rule, prose) in items {
        let gap = if up {
            rect.bottom - edge
        } else {
            edge - rect.top
        };
        if gap > 2.2 * line {
            break;
        }
        body = Some(body.map_or(rect, |b| b.union(&rect)));
        edge = if up {
            edge.max(rect.top)
        } else {
            edge.min(rect.bottom)
        };
        if is_rule {
            last_rule = Some(rect);
            prose_after_rule = false;
        }
        prose_after_rule |= prose && rect.width() > 0.35 * across.width();
    }
    let mut body = body?;
    // Up the page the top rule ends a table (the page's header is above it); down it,
    // a table continued on the next page has no closing rule, and its rows stay.
    match last_rule.filter(|_| up || prose_after_rule) {
        Some(rule) if up => body.top = rule.top,
        Some(rule) => body.bottom = rule.bottom,
        None => {}
    }
    (body.height() > line).then_some(body)
}

impl FigureRegion {
    /// As the store keeps it, for `paper_id`.
    pub fn stored(&self, paper_id: &str) -> asterism_store::StoredFigure {
        let corners = |r: &Rect| [r.left, r.bottom, r.right, r.top].map(f64::from);
        asterism_store::StoredFigure {
            paper_id: paper_id.to_string(),
            label: self.label.clone(),
            kind: self.kind.clone(),
            page: i64::from(self.page),
            page_width: f64::from(self.page_width),
            page_height: f64::from(self.page_height),
            region: corners(&self.region),
            caption: corners(&self.caption),
        }
    }
}

/// What pdfium says a page holds: its text runs and its graphics' boxes.
pub fn page_content(page: &PdfPage<'_>) -> PageContent {
    let mut content = PageContent {
        width: page.width().value,
        height: page.height().value,
        ..PageContent::default()
    };
    if let Ok(text) = page.text() {
        content.text = text
            .segments()
            .iter()
            .map(|segment| {
                let b = segment.bounds();
                TextRun {
                    text: segment.text(),
                    rect: Rect {
                        left: b.left().value,
                        bottom: b.bottom().value,
                        right: b.right().value,
                        top: b.top().value,
                    },
                }
            })
            .filter(|run| !run.text.trim().is_empty())
            .collect();
    }
    content.graphics = page
        .objects()
        .iter()
        .filter(|object| {
            matches!(
                object.object_type(),
                PdfPageObjectType::Path
                    | PdfPageObjectType::Image
                    | PdfPageObjectType::Shading
                    | PdfPageObjectType::XObjectForm
            )
        })
        .filter_map(|object| {
            let b = object.bounds().ok()?;
            let rect = Rect {
                left: b.left().value,
                bottom: b.bottom().value,
                right: b.right().value,
                top: b.top().value,
            };
            let page = Rect {
                left: 0.0,
                bottom: 0.0,
                right: content.width,
                top: content.height,
            };
            Some(if rect.inside(&page.grown(5.0)) {
                rect
            } else {
                form_box(&object).unwrap_or(rect)
            })
        })
        .collect();
    content
}

/// The box of an embedded plot whose contents spill past the page (clipped by the form's
/// own box, which pdfium's bounds ignore): its first path when that starts at the form's
/// origin (the figure's background, as matplotlib and PGF draw it), placed on the page.
fn form_box(object: &PdfPageObject<'_>) -> Option<Rect> {
    let form = object.as_x_object_form_object()?;
    let first = form.get(0).ok()?;
    let b = first.bounds().ok()?;
    let at_origin = b.left().value.abs() < 1.0 && b.bottom().value.abs() < 1.0;
    if first.object_type() != PdfPageObjectType::Path || !at_origin {
        return None;
    }
    let matrix = object.matrix().ok()?;
    let (x0, y0) = matrix.apply_to_points(b.left(), b.bottom());
    let (x1, y1) = matrix.apply_to_points(b.right(), b.top());
    Some(Rect {
        left: x0.value.min(x1.value),
        bottom: y0.value.min(y1.value),
        right: x0.value.max(x1.value),
        top: y0.value.max(y1.value),
    })
}

/// Each label once per paper: its first caption (a table continued on the next page
/// keeps its first page).
pub fn first_of_each_label(regions: impl IntoIterator<Item = FigureRegion>) -> Vec<FigureRegion> {
    let mut kept: Vec<FigureRegion> = Vec::new();
    for region in regions {
        if !kept.iter().any(|k| k.label == region.label) {
            kept.push(region);
        }
    }
    kept
}

/// The figures and tables of a pdfium page (1-based `page`).
pub fn regions_of_page(number: u32, page: &PdfPage<'_>) -> Vec<FigureRegion> {
    find_regions(number, &page_content(page))
}

#[cfg(test)]
mod tests {
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
}
