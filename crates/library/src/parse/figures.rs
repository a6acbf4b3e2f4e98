//! Where a paper's figures and tables are on their pages: each "Figure N" or "Table N"
//! caption found in the text layer, and the block it captions — the graphics above a
//! figure's caption (images, vector drawings, embedded plots, with their tick labels),
//! the rows and rules below a table's caption (or above it). Boxes are in PDF points, the origin at the page's
//! bottom left. pdfium gives the page objects and their boxes ([`regions_of_page`]); the
//! geometry ([`find_regions`]) is plain arithmetic, tested on its own.

use pdfium_render::prelude::{
    PdfPage, PdfPageObject, PdfPageObjectCommon, PdfPageObjectType, PdfPageObjectsCommon,
    PdfPageText,
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

/// The most text runs a page may have for its captions to be looked for (a dense page of
/// a real paper has a few thousand).
const MOST_RUNS: usize = 12_000;
/// The most runs starting with "F" or "T" looked at as captions on one page.
const MOST_CANDIDATES: usize = 200;
/// The most runs joined into one line.
const MOST_RUNS_A_LINE: usize = 60;

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
    // A hostile page (tens of thousands of runs, all starting "F") must not make the
    // quadratic look-ups below take minutes: such a page has no figures found.
    if content.text.len() > MOST_RUNS {
        return captions;
    }
    let mut candidates = 0;
    for (at, run) in content.text.iter().enumerate() {
        // Every caption starts "Fig…", "FIG…", "Tab…" or "TAB…" (the cheap test first: a
        // page has thousands of runs).
        if !run.text.trim_start().starts_with(['F', 'T']) {
            continue;
        }
        candidates += 1;
        if candidates > MOST_CANDIDATES {
            break;
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
    while taken.len() < MOST_RUNS_A_LINE
        && let Some((index, next)) = content
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

/// What pdfium says a page holds: its text runs (from `text`, the page's text layer
/// already loaded) and its graphics' boxes.
pub fn page_content(page: &PdfPage<'_>, text: Option<&PdfPageText<'_>>) -> PageContent {
    let mut content = PageContent {
        width: page.width().value,
        height: page.height().value,
        text: text.map(text_runs).unwrap_or_default(),
        ..PageContent::default()
    };
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

/// The page's text as runs: each the consecutive characters of one text object (what
/// pdfium's own `segments()` gives, in one pass: asking pdfium for each segment's text
/// scans the whole page again, and took two thirds of a page's parsing).
fn text_runs(text: &PdfPageText<'_>) -> Vec<TextRun> {
    let mut runs: Vec<TextRun> = Vec::new();
    // The current run's text object, known by its box (two objects with one box, one
    // after the other, would be one run: harmless).
    let mut object: Option<[f32; 4]> = None;
    for char in text.chars().iter() {
        let c = char.unicode_char().unwrap_or(' ');
        if char.is_generated().unwrap_or(false) {
            // pdfium's spaces and line ends between a run's characters.
            if let Some(run) = runs.last_mut().filter(|_| object.is_some()) {
                run.text.push(if c.is_whitespace() { ' ' } else { c });
            }
            continue;
        }
        let Some(rect) = char.tight_bounds().ok().map(|b| Rect {
            left: b.left().value,
            bottom: b.bottom().value,
            right: b.right().value,
            top: b.top().value,
        }) else {
            continue;
        };
        if rect.width() < 0.01 || rect.height() < 0.01 {
            continue;
        }
        let key = char
            .text_object()
            .ok()
            .and_then(|o| o.bounds().ok())
            .map(|b| {
                [
                    b.left().value,
                    b.bottom().value,
                    b.right().value,
                    b.top().value,
                ]
            });
        match runs.last_mut() {
            Some(run) if object.is_some() && key == object => {
                run.text.push(c);
                run.rect = run.rect.union(&rect);
            }
            _ => {
                object = key.or(Some([f32::NAN; 4]));
                runs.push(TextRun {
                    text: c.to_string(),
                    rect,
                });
            }
        }
    }
    for run in &mut runs {
        run.text = run.text.trim_end().to_string();
    }
    runs.retain(|run| !run.text.trim().is_empty());
    runs
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
pub fn regions_of_page(
    number: u32,
    page: &PdfPage<'_>,
    text: Option<&PdfPageText<'_>>,
) -> Vec<FigureRegion> {
    find_regions(number, &page_content(page, text))
}

#[cfg(test)]
mod tests;
