//! PDF → text, single thread, beside `pdftotext` on the same files.
//!
//! For each PDF in the fixtures (or the folders/files given as arguments): the time
//! `pdftotext` takes (one process per file, as a user runs it), the time Asterism takes
//! to read the text layer (pdfium, and the pure-Rust fallback), and how well the words
//! agree with pdftotext's: the overlap of word 6-grams (multiset Dice, after the same
//! normalisation of both texts). The agreement of the Markdown built from that text
//! (hyphens joined, running headers dropped) is printed beside it.
//!
//!     cargo bench -p asterism-library --bench pdf_text [-- PDF_OR_DIR…]

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use asterism_library::parse::{PdfEngine, clean_text, extract_pdf_with, pages_to_markdown};

const ROUNDS: u32 = 5;

fn pdfs(arguments: &[String]) -> Vec<PathBuf> {
    let roots: Vec<PathBuf> = if arguments.is_empty() {
        vec![Path::new(env!("CARGO_MANIFEST_DIR")).join("../testkit/fixtures/pdfs")]
    } else {
        arguments.iter().map(PathBuf::from).collect()
    };
    let mut files = Vec::new();
    for root in roots {
        if root.is_dir() {
            let mut found: Vec<PathBuf> = std::fs::read_dir(&root)
                .map(|entries| entries.flatten().map(|entry| entry.path()).collect())
                .unwrap_or_default();
            found.retain(|path| path.extension().is_some_and(|ext| ext == "pdf"));
            found.sort();
            files.extend(found);
        } else {
            files.push(root);
        }
    }
    files
}

fn words(text: &str) -> Vec<String> {
    clean_text(text)
        .lines()
        .filter(|line| !(line.starts_with("<!-- page ") && line.ends_with(" -->")))
        .flat_map(str::split_whitespace)
        .filter(|word| !word.chars().all(|c| c == '#'))
        .map(|word| {
            word.trim_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase()
        })
        .filter(|word| !word.is_empty())
        .collect()
}

fn six_grams(words: &[String]) -> HashMap<&[String], u32> {
    let mut counts = HashMap::new();
    for gram in words.windows(6) {
        *counts.entry(gram).or_default() += 1;
    }
    counts
}

/// Multiset overlap of the two texts' words (order ignored), over the longer text.
fn word_agreement(ours: &str, reference: &str) -> f64 {
    let (ours, reference) = (words(ours), words(reference));
    let mut counts: HashMap<&str, i64> = HashMap::new();
    for word in &reference {
        *counts.entry(word).or_default() += 1;
    }
    let mut shared = 0usize;
    for word in &ours {
        if let Some(n) = counts.get_mut(word.as_str())
            && *n > 0
        {
            *n -= 1;
            shared += 1;
        }
    }
    shared as f64 / ours.len().max(reference.len()).max(1) as f64
}

/// Multiset Dice overlap of the two texts' word 6-grams.
fn agreement(ours: &str, reference: &str) -> f64 {
    let (ours, reference) = (words(ours), words(reference));
    let (a, b) = (six_grams(&ours), six_grams(&reference));
    let shared: u32 = a
        .iter()
        .map(|(gram, n)| (*n).min(b.get(gram).copied().unwrap_or(0)))
        .sum();
    let total = ours.len().saturating_sub(5) + reference.len().saturating_sub(5);
    if total == 0 {
        return 0.0;
    }
    2.0 * f64::from(shared) / total as f64
}

fn pdftotext(path: &Path) -> Option<(String, Duration)> {
    let start = Instant::now();
    let output = Command::new("pdftotext")
        .args(["-enc", "UTF-8"])
        .arg(path)
        .arg("-")
        .output()
        .ok()?;
    output.status.success().then(|| {
        (
            String::from_utf8_lossy(&output.stdout).into_owned(),
            start.elapsed(),
        )
    })
}

/// PDF → text with one engine: (the page texts joined, pages, the time it took).
fn ours(bytes: &[u8], engine: PdfEngine) -> Option<(String, usize, Duration)> {
    let start = Instant::now();
    let text = extract_pdf_with(bytes, engine).ok()?;
    let elapsed = start.elapsed();
    Some((text.pages.join("\n"), text.pages.len(), elapsed))
}

/// The same text after the Markdown clean-up the library stores (hyphens joined, running
/// headers dropped, headings marked): what retrieval reads.
fn markdown(bytes: &[u8], engine: PdfEngine) -> Option<String> {
    let text = extract_pdf_with(bytes, engine).ok()?;
    Some(pages_to_markdown(&text.pages, text.title.as_deref()).0)
}

fn main() {
    let arguments: Vec<String> = std::env::args()
        .skip(1)
        .filter(|argument| !argument.starts_with("--"))
        .collect();
    let files = pdfs(&arguments);
    let engines = [PdfEngine::Pdfium, PdfEngine::PdfExtract];
    let mut totals: HashMap<&str, (usize, Duration)> = HashMap::new();
    let mut agreements: HashMap<&str, Vec<f64>> = HashMap::new();
    let mut words_agree: HashMap<&str, Vec<f64>> = HashMap::new();
    let mut markdown_agree: HashMap<&str, Vec<f64>> = HashMap::new();
    if PdfEngine::best_available() != PdfEngine::Pdfium {
        println!("libpdfium not found: the pdfium rows below fall back to pdf-extract");
    }
    println!(
        "{:<28} {:>5} {:>14} {:>14} {:>8} {:>14} {:>8}",
        "file", "pages", "pdftotext p/s", "pdfium p/s", "agree", "pdf-extract p/s", "agree"
    );
    for path in &files {
        let Ok(bytes) = std::fs::read(path) else {
            continue;
        };
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let Some((reference, _)) = pdftotext(path) else {
            println!("{name}: pdftotext failed (is poppler-utils installed?)");
            continue;
        };
        let mut reference_time = Duration::ZERO;
        for _ in 0..ROUNDS {
            reference_time += pdftotext(path).map(|(_, t)| t).unwrap_or_default();
        }
        let mut row = Vec::new();
        let mut pages = 0;
        for engine in engines {
            let Some((markdown, n, _)) = ours(&bytes, engine) else {
                row.push((0.0, 0.0));
                continue;
            };
            pages = n;
            let mut elapsed = Duration::ZERO;
            for _ in 0..ROUNDS {
                elapsed += ours(&bytes, engine).map(|(_, _, t)| t).unwrap_or_default();
            }
            let agree = agreement(&markdown, &reference);
            words_agree
                .entry(engine.name())
                .or_default()
                .push(word_agreement(&markdown, &reference));
            if let Some(cleaned) = self::markdown(&bytes, engine) {
                markdown_agree
                    .entry(engine.name())
                    .or_default()
                    .push(agreement(&cleaned, &reference));
            }
            let entry = totals.entry(engine.name()).or_default();
            entry.0 += n * ROUNDS as usize;
            entry.1 += elapsed;
            agreements.entry(engine.name()).or_default().push(agree);
            row.push((n as f64 * f64::from(ROUNDS) / elapsed.as_secs_f64(), agree));
        }
        let entry = totals.entry("pdftotext").or_default();
        entry.0 += pages * ROUNDS as usize;
        entry.1 += reference_time;
        println!(
            "{:<28} {:>5} {:>14.1} {:>14.1} {:>8.3} {:>14.1} {:>8.3}",
            name,
            pages,
            pages as f64 * f64::from(ROUNDS) / reference_time.as_secs_f64(),
            row[0].0,
            row[0].1,
            row[1].0,
            row[1].1
        );
    }
    let rate = |name: &str| {
        totals
            .get(name)
            .map(|(pages, time)| *pages as f64 / time.as_secs_f64())
            .unwrap_or(0.0)
    };
    let mean = |table: &HashMap<&str, Vec<f64>>, name: &str| {
        table
            .get(name)
            .map(|values| values.iter().sum::<f64>() / values.len() as f64)
            .unwrap_or(0.0)
    };
    let reference = rate("pdftotext");
    println!();
    println!("all files, {ROUNDS} rounds each, single thread:");
    println!("  pdftotext    {reference:>7.1} pages/s");
    for engine in engines {
        let name = engine.name();
        println!(
            "  {name:<12} {:>7.1} pages/s = {:.2}x pdftotext, word 6-gram agreement {:.3}, word agreement {:.3}; after the Markdown clean-up, 6-gram agreement {:.3}",
            rate(name),
            rate(name) / reference,
            mean(&agreements, name),
            mean(&words_agree, name),
            mean(&markdown_agree, name)
        );
    }
}
