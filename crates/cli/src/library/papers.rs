//! `asterism library list|show|delete|rename|notes|collect|tag|export-bib`: the papers
//! of the library and what the astronomer keeps on them.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use asterism_agent::Services;
use asterism_store::PaperFilter;

use super::{FilterArgs, local_or_fail};

/// `library list`: one line per paper, newest first.
pub(super) async fn list(
    services: &Services,
    filter: FilterArgs,
    json: bool,
) -> anyhow::Result<ExitCode> {
    let filter = filter.resolve(services).await?;
    let papers = services.store.library_papers(&filter).await?;
    if json {
        println!("{}", serde_json::to_string_pretty(&papers)?);
    } else if papers.is_empty() {
        println!("the library is empty: asterism library import FOLDER");
    } else {
        for paper in &papers {
            let first = paper.authors.first().map(String::as_str).unwrap_or("?");
            let year = paper.year.map(|y| y.to_string()).unwrap_or_default();
            println!(
                "{}  {:<12} {first} {year}: {}  ({} passages)",
                paper.id, paper.status, paper.title, paper.chunks
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `library show ID`: metadata, files, collections, tags and notes.
pub(super) async fn show(services: &Services, id: &str, json: bool) -> anyhow::Result<ExitCode> {
    let Some(paper_id) = services
        .library
        .resolve(id)
        .await
        .map_err(anyhow::Error::msg)?
    else {
        eprintln!("error: {id} is not in the library");
        return Ok(ExitCode::FAILURE);
    };
    let filter = PaperFilter {
        paper_id: Some(paper_id.clone()),
        ..PaperFilter::default()
    };
    let Some(paper) = services
        .store
        .library_papers(&filter)
        .await?
        .into_iter()
        .next()
    else {
        eprintln!("error: {id} is not in the library");
        return Ok(ExitCode::FAILURE);
    };
    let notes = services.store.notes(Some(&paper_id)).await?;
    if json {
        println!(
            "{}",
            serde_json::to_string_pretty(&serde_json::json!({"paper": paper, "notes": notes}))?
        );
    } else {
        print_paper(&paper, &notes);
    }
    Ok(ExitCode::SUCCESS)
}

fn print_paper(paper: &asterism_store::LibraryPaper, notes: &[asterism_store::Note]) {
    println!(
        "{}\n  id {}  status {}",
        paper.title, paper.id, paper.status
    );
    println!("  {}", paper.authors.join("; "));
    if let Some(note) = &paper.identify_note {
        println!("  not identified: {note}");
    }
    for (label, value) in [
        ("bibcode", &paper.bibcode),
        ("arXiv", &paper.arxiv_id),
        ("DOI", &paper.doi),
    ] {
        if let Some(value) = value {
            println!("  {label} {value}");
        }
    }
    for file in &paper.files {
        println!(
            "  file {} ({}, {} bytes{})",
            file.path,
            file.source,
            file.size_bytes,
            file.original_name
                .as_deref()
                .map(|n| format!(", from {n}"))
                .unwrap_or_default()
        );
    }
    if !paper.collections.is_empty() {
        println!("  collections: {}", paper.collections.join(", "));
    }
    if !paper.tags.is_empty() {
        println!("  tags: {}", paper.tags.join(", "));
    }
    for note in notes {
        let page = note.page.map(|p| format!("p. {p}: ")).unwrap_or_default();
        println!(
            "  note {page}{}{}",
            note.quote
                .as_deref()
                .map(|q| format!("“{q}” "))
                .unwrap_or_default(),
            note.comment
        );
    }
}

/// `library delete ID [--delete-notes]`.
pub(super) async fn delete(
    services: &Services,
    id: &str,
    delete_notes: bool,
) -> anyhow::Result<ExitCode> {
    let library = &services.library;
    let Some(paper_id) = library.resolve(id).await.map_err(anyhow::Error::msg)? else {
        eprintln!("error: {id} is not in the library");
        return Ok(ExitCode::FAILURE);
    };
    let title = services
        .store
        .paper_record(&paper_id)
        .await?
        .map(|paper| paper.title)
        .unwrap_or_default();
    if library.delete(&paper_id, delete_notes).await? {
        println!("deleted {title} ({paper_id})");
        Ok(ExitCode::SUCCESS)
    } else {
        eprintln!("error: {id} is not in the library");
        Ok(ExitCode::FAILURE)
    }
}

/// `library rename ID TITLE`.
pub(super) async fn rename(services: &Services, id: &str, title: &str) -> anyhow::Result<ExitCode> {
    anyhow::ensure!(!title.trim().is_empty(), "the title is empty");
    let paper_id = local_or_fail(services, id).await?;
    services
        .store
        .set_paper_title(&paper_id, title.trim())
        .await?;
    println!("{paper_id} is now titled {:?}", title.trim());
    Ok(ExitCode::SUCCESS)
}

/// `library notes [QUERY] [--paper ID]`: notes matching words, of one paper, or all.
pub(super) async fn notes(
    services: &Services,
    query: Option<String>,
    paper: Option<String>,
    json: bool,
) -> anyhow::Result<ExitCode> {
    let notes = match (&query, &paper) {
        (Some(query), _) => {
            let Some(expression) = asterism_library::library::search::fts_query(query) else {
                anyhow::bail!("the query has no words");
            };
            let found = services.store.search_notes(&expression, 100).await?;
            match &paper {
                Some(id) => {
                    let paper_id = local_or_fail(services, id).await?;
                    found
                        .into_iter()
                        .filter(|note| note.paper_id.as_deref() == Some(paper_id.as_str()))
                        .collect()
                }
                None => found,
            }
        }
        (None, Some(id)) => {
            let paper_id = local_or_fail(services, id).await?;
            services.store.notes(Some(&paper_id)).await?
        }
        (None, None) => services.store.notes(None).await?,
    };
    if json {
        println!("{}", serde_json::to_string_pretty(&notes)?);
    } else if notes.is_empty() {
        println!("no notes");
    } else {
        print_notes(&notes);
    }
    Ok(ExitCode::SUCCESS)
}

/// One line per note: whose (or the deleted paper's label), page, quote and comment.
fn print_notes(notes: &[asterism_store::Note]) {
    for note in notes {
        let page = note.page.map(|p| format!(" p. {p}")).unwrap_or_default();
        let whose = note
            .paper_id
            .clone()
            .or_else(|| {
                note.paper_label
                    .clone()
                    .map(|label| format!("(deleted) {label}"))
            })
            .unwrap_or_default();
        let quote = note
            .quote
            .as_deref()
            .map(|q| format!("“{q}” "))
            .unwrap_or_default();
        println!("{whose}{page}: {quote}{}", note.comment);
    }
}

/// `library collect ID COLLECTION`.
pub(super) async fn collect(
    services: &Services,
    id: &str,
    collection: &str,
) -> anyhow::Result<ExitCode> {
    let paper_id = local_or_fail(services, id).await?;
    services
        .store
        .add_to_collection(&paper_id, collection)
        .await?;
    println!("{id} is in {collection}");
    Ok(ExitCode::SUCCESS)
}

/// `library tag ID TAG`.
pub(super) async fn tag(services: &Services, id: &str, tag: &str) -> anyhow::Result<ExitCode> {
    let paper_id = local_or_fail(services, id).await?;
    services.store.tag_paper(&paper_id, tag).await?;
    println!("{id} tagged {tag}");
    Ok(ExitCode::SUCCESS)
}

/// `library export --format csl-json [--collection C] [--out FILE]`.
pub(super) async fn export_csl_json(
    services: &Services,
    collection: Option<String>,
    out: Option<PathBuf>,
) -> anyhow::Result<ExitCode> {
    let (text, items) = services.library.csl_json(collection).await?;
    match out {
        Some(path) => {
            std::fs::write(&path, &text).with_context(|| format!("writing {}", path.display()))?;
            eprintln!("{items} items written to {}", path.display());
        }
        None => print!("{text}"),
    }
    Ok(ExitCode::SUCCESS)
}

/// `library export-bib [--collection C] [--out FILE]`.
pub(super) async fn export_bib(
    services: &Services,
    collection: Option<String>,
    out: Option<PathBuf>,
    with_files: bool,
) -> anyhow::Result<ExitCode> {
    let (text, entries, notes) = services.library.bibtex(collection, with_files).await?;
    match out {
        Some(path) => {
            std::fs::write(&path, &text).with_context(|| format!("writing {}", path.display()))?;
            eprintln!("{entries} entries written to {}", path.display());
        }
        None => print!("{text}"),
    }
    for note in notes {
        eprintln!("note: {note}");
    }
    Ok(ExitCode::SUCCESS)
}
