//! `asterism papers search|get|download|parse|content|figure|bibtex`: the literature services
//! and the paper library from the terminal.

use std::path::PathBuf;
use std::process::ExitCode;

use asterism_agent::{Services, Settings, bootstrap};
use asterism_library::library::figures;
use asterism_library::papers::bibtex;
use asterism_library::papers::graph::Link;
use asterism_library::parse;
use asterism_protocol::PaperRecord;
use clap::Subcommand;

#[derive(Subcommand)]
pub enum PapersCommand {
    /// Search ADS and arXiv at once; results merged, with local status.
    Search {
        /// Plain words or ADS syntax.
        query: String,
        #[arg(long, default_value_t = 10)]
        limit: u32,
        #[arg(long)]
        json: bool,
    },
    /// One paper's metadata by bibcode, arXiv id or DOI.
    Get {
        id: String,
        #[arg(long)]
        json: bool,
    },
    /// Download a paper's PDF into the library (arXiv, ADS links, DOI).
    Download {
        id: String,
        #[arg(long)]
        json: bool,
    },
    /// Parse a library paper (arXiv HTML, else its PDF) and store the Markdown; or parse
    /// a local PDF or HTML file and print the Markdown (nothing is stored).
    Parse {
        /// A bibcode, arXiv id, DOI, or a path to a .pdf/.html file.
        id_or_path: String,
        /// Read the downloaded PDF even when arXiv has HTML.
        #[arg(long)]
        pdf_only: bool,
        /// Write the Markdown here instead of standard output.
        #[arg(long)]
        out: Option<PathBuf>,
        #[arg(long)]
        json: bool,
    },
    /// Print a parsed paper: all of it, pages ("3-5") or a section ("2.1", "Introduction").
    Content {
        id: String,
        #[arg(long, conflicts_with = "section")]
        pages: Option<String>,
        #[arg(long)]
        section: Option<String>,
        #[arg(long)]
        json: bool,
    },
    /// The papers citing a paper (a library id, bibcode, arXiv id or DOI), from ADS,
    /// newest first, each marked when it is in the library.
    Citations {
        id: String,
        #[arg(long, default_value_t = 50)]
        limit: u32,
        #[arg(long)]
        json: bool,
    },
    /// The papers a paper cites, from ADS, each marked when it is in the library.
    References {
        id: String,
        #[arg(long, default_value_t = 50)]
        limit: u32,
        #[arg(long)]
        json: bool,
    },
    /// The papers ADS finds similar to a paper, most similar first.
    Similar {
        id: String,
        #[arg(long, default_value_t = 20)]
        limit: u32,
        #[arg(long)]
        json: bool,
    },
    /// A library paper's figures and tables: listed, or one rendered as a PNG
    /// (`papers figure ID 3 --out fig3.png`; "Table 2" for a table).
    Figure {
        id: String,
        /// 3, "Figure 3", "Table 2"; none lists them.
        label: Option<String>,
        /// Where to write the PNG (default: figure-3.png, table-2.png here).
        #[arg(long)]
        out: Option<PathBuf>,
        #[arg(long, default_value_t = asterism_library::library::figures::DEFAULT_DPI)]
        dpi: f32,
        #[arg(long)]
        json: bool,
    },
    /// BibTeX for papers: ADS's export when a token is set, else made locally.
    Bibtex {
        #[arg(required = true)]
        ids: Vec<String>,
        #[arg(long)]
        json: bool,
    },
}

pub(crate) fn line(index: usize, paper: &PaperRecord) -> String {
    let first = paper
        .authors
        .first()
        .map(String::as_str)
        .unwrap_or("unknown");
    let more = if paper.authors.len() > 1 {
        " et al."
    } else {
        ""
    };
    let ids: Vec<String> = [
        paper.bibcode.clone(),
        paper.arxiv_id.as_ref().map(|id| format!("arXiv:{id}")),
        paper.doi.as_ref().map(|d| format!("doi:{d}")),
    ]
    .into_iter()
    .flatten()
    .collect();
    let local = if paper.local.parsed {
        " [parsed]"
    } else if paper.local.downloaded {
        " [downloaded]"
    } else if paper.local.in_library {
        " [library]"
    } else {
        ""
    };
    format!(
        "{index:>2}. {}\n    {first}{more} ({}) {}{}{local}\n    {}",
        paper.title,
        paper
            .year
            .map(|y| y.to_string())
            .unwrap_or_else(|| "n.d.".into()),
        paper.journal.as_deref().unwrap_or(""),
        paper
            .citation_count
            .map(|c| format!(" · {c} citations"))
            .unwrap_or_default(),
        ids.join("  ")
    )
}

fn fail(message: impl std::fmt::Display) -> anyhow::Result<ExitCode> {
    eprintln!("error: {message}");
    Ok(ExitCode::FAILURE)
}

/// Parses a local file and prints (or writes) the Markdown.
async fn parse_local(path: PathBuf, out: Option<PathBuf>, json: bool) -> anyhow::Result<ExitCode> {
    let parsed = tokio::task::spawn_blocking(move || parse::parse_file(&path)).await?;
    let parsed = match parsed {
        Ok(parsed) => parsed,
        Err(error) => return fail(error),
    };
    let summary = serde_json::json!({
        "source": parsed.source,
        "engine": parsed.engine,
        "pages": parsed.pages,
        "sections": parsed.sections,
        "words": parsed.markdown.split_whitespace().count(),
    });
    match out {
        Some(out) => {
            std::fs::write(&out, &parsed.markdown)?;
            if json {
                println!("{}", serde_json::to_string_pretty(&summary)?);
            } else {
                eprintln!(
                    "wrote {} ({} pages, {} sections, {} engine)",
                    out.display(),
                    parsed.pages.map_or("no".into(), |p| p.to_string()),
                    parsed.sections.len(),
                    parsed.engine
                );
            }
        }
        None if json => {
            let mut summary = summary;
            summary["markdown"] = parsed.markdown.into();
            println!("{}", serde_json::to_string_pretty(&summary)?);
        }
        None => print!("{}", parsed.markdown),
    }
    Ok(ExitCode::SUCCESS)
}

pub async fn run(settings: &Settings, command: PapersCommand) -> anyhow::Result<ExitCode> {
    if let PapersCommand::Parse {
        id_or_path,
        out,
        json,
        ..
    } = &command
    {
        let path = PathBuf::from(id_or_path);
        if path.is_file() {
            return parse_local(path, out.clone(), *json).await;
        }
    }
    let services = bootstrap::open_services(settings).await?;
    let services = services.as_ref();
    match command {
        PapersCommand::Search { query, limit, json } => search(services, &query, limit, json).await,
        PapersCommand::Get { id, json } => get(services, &id, json).await,
        PapersCommand::Download { id, json } => download(services, &id, json).await,
        PapersCommand::Parse {
            id_or_path,
            pdf_only,
            out,
            json,
        } => parse_paper(services, &id_or_path, pdf_only, out, json).await,
        PapersCommand::Content {
            id,
            pages,
            section,
            json,
        } => content(services, &id, pages, section, json).await,
        PapersCommand::Bibtex { ids, json } => bibtex_entries(services, &ids, json).await,
        PapersCommand::Figure {
            id,
            label,
            out,
            dpi,
            json,
        } => match label {
            Some(label) => figure(services, &id, &label, out, dpi, json).await,
            None => list_figures(services, &id, json).await,
        },
        PapersCommand::Citations { id, limit, json } => {
            neighbours(services, &id, Link::Citations, limit, json).await
        }
        PapersCommand::References { id, limit, json } => {
            neighbours(services, &id, Link::References, limit, json).await
        }
        PapersCommand::Similar { id, limit, json } => {
            neighbours(services, &id, Link::Similar, limit, json).await
        }
    }
}

/// `papers citations|references|similar ID`: the neighbours ADS knows, with library marks.
async fn neighbours(
    services: &Services,
    id: &str,
    link: Link,
    limit: u32,
    json: bool,
) -> anyhow::Result<ExitCode> {
    let found = match services.papers.neighbours(id, link, limit).await {
        Ok(found) => found,
        Err(error) => return fail(error),
    };
    if json {
        println!("{}", serde_json::to_string_pretty(&found)?);
        return Ok(ExitCode::SUCCESS);
    }
    for (index, paper) in found.papers.iter().enumerate() {
        println!("{}", line(index + 1, paper));
    }
    let in_library = found.papers.iter().filter(|p| p.local.in_library).count();
    let what = match link {
        Link::Citations => "papers cite",
        Link::References => "references of",
        Link::Similar => "papers similar to",
    };
    eprintln!(
        "{} {what} {} in ADS; {} shown, {in_library} of them in your library",
        found.num_found,
        found.bibcode,
        found.papers.len()
    );
    Ok(ExitCode::SUCCESS)
}

/// `papers search`: ADS and arXiv merged; exit 1 when every service failed.
async fn search(
    services: &Services,
    query: &str,
    limit: u32,
    json: bool,
) -> anyhow::Result<ExitCode> {
    let outcome = services.papers.search(query, limit).await;
    if json {
        println!(
            "{}",
            serde_json::to_string_pretty(
                &serde_json::json!({"papers": outcome.papers, "notes": outcome.notes})
            )?
        );
    } else {
        for (index, paper) in outcome.papers.iter().enumerate() {
            println!("{}", line(index + 1, paper));
        }
        eprintln!("{}", outcome.notes.join("; "));
    }
    let failed =
        outcome.papers.is_empty() && outcome.notes.iter().all(|note| !note.contains(" found"));
    Ok(if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// `papers get`: one paper's metadata.
async fn get(services: &Services, id: &str, json: bool) -> anyhow::Result<ExitCode> {
    match services.papers.metadata(id).await {
        Ok(paper) => {
            if json {
                println!("{}", serde_json::to_string_pretty(&paper)?);
            } else {
                println!("{}", line(1, &paper));
                if let Some(text) = &paper.abstract_text {
                    println!("\n{text}");
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        Err(error) => fail(error),
    }
}

/// `papers download`: the PDF into the library, with progress in MB.
async fn download(services: &Services, id: &str, json: bool) -> anyhow::Result<ExitCode> {
    let progress = |bytes: u64, total: Option<u64>| {
        if !json {
            let total = total.map(|t| format!(" of {:.1}", t as f64 / 1_048_576.0));
            eprint!(
                "\r{:.1}{} MB",
                bytes as f64 / 1_048_576.0,
                total.unwrap_or_default()
            );
        }
    };
    match services.add_paper(id, &progress).await {
        Ok((_, done)) => {
            if json {
                println!(
                    "{}",
                    serde_json::to_string_pretty(&serde_json::json!({
                        "paperId": done.paper_id,
                        "path": done.path,
                        "sha256": done.sha256,
                        "bytes": done.bytes,
                        "source": done.source,
                        "alreadyPresent": done.already_present,
                    }))?
                );
            } else {
                eprintln!();
                println!(
                    "{} {} ({} bytes, from {})",
                    if done.already_present {
                        "already had"
                    } else {
                        "downloaded"
                    },
                    done.path.display(),
                    done.bytes,
                    done.source
                );
            }
            Ok(ExitCode::SUCCESS)
        }
        Err(error) => fail(error),
    }
}

/// `papers parse ID`: a library paper parsed and stored; its sections listed.
async fn parse_paper(
    services: &Services,
    id_or_path: &str,
    pdf_only: bool,
    out: Option<PathBuf>,
    json: bool,
) -> anyhow::Result<ExitCode> {
    let (paper_id, paper) = match services.papers.resolve(id_or_path).await {
        Ok(found) => found,
        Err(error) => return fail(format!("{error} (and no such file)")),
    };
    match services.parser.parse(&paper_id, &paper, pdf_only).await {
        Ok((parsed, notes)) => {
            if let Some(out) = &out {
                std::fs::write(out, &parsed.markdown)?;
            }
            if json {
                println!(
                    "{}",
                    serde_json::to_string_pretty(&serde_json::json!({
                        "paperId": paper_id,
                        "source": parsed.source,
                        "engine": parsed.engine,
                        "pages": parsed.pages,
                        "sections": parsed.sections,
                        "notes": notes,
                    }))?
                );
            } else {
                println!(
                    "parsed \"{}\" from {} ({}): {} sections",
                    paper.title,
                    parsed.source,
                    parsed.engine,
                    parsed.sections.len()
                );
                for section in &parsed.sections {
                    println!(
                        "{}{} {}{}",
                        "  ".repeat(usize::from(section.level)),
                        section.number.as_deref().unwrap_or("-"),
                        section.title,
                        section
                            .page
                            .map(|p| format!("  (p. {p})"))
                            .unwrap_or_default()
                    );
                }
                for note in notes {
                    eprintln!("note: {note}");
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        Err(error) => fail(error),
    }
}

/// `papers content`: a parsed paper, its pages or a section.
async fn content(
    services: &Services,
    id: &str,
    pages: Option<String>,
    section: Option<String>,
    json: bool,
) -> anyhow::Result<ExitCode> {
    let Some((paper_id, paper)) = services.papers.local(id).await? else {
        return fail(format!("{id} is not in the library"));
    };
    let Some(stored) = services.store.paper_text(&paper_id).await? else {
        return fail(format!(
            "\"{}\" is not parsed yet: asterism papers parse {id}",
            paper.title
        ));
    };
    match parse::select_content(
        &stored.markdown,
        pages.as_deref(),
        section.as_deref(),
        0,
        usize::MAX,
    ) {
        Ok(slice) => {
            if json {
                println!(
                    "{}",
                    serde_json::to_string_pretty(&serde_json::json!({
                        "paperId": paper_id,
                        "selected": slice.selected,
                        "source": stored.source,
                        "markdown": slice.text,
                    }))?
                );
            } else {
                print!("{}", slice.text);
            }
            Ok(ExitCode::SUCCESS)
        }
        Err(error) => fail(error),
    }
}

/// `papers bibtex`: entries for the papers; exit 1 when one was not found.
async fn bibtex_entries(
    services: &Services,
    ids: &[String],
    json: bool,
) -> anyhow::Result<ExitCode> {
    let (papers, missing) = services.papers.resolve_for_citation(ids).await;
    let (entries, notes) = bibtex::bibtex(&papers, Some(&services.papers.ads)).await;
    if json {
        println!(
            "{}",
            serde_json::to_string_pretty(&serde_json::json!({
                "entries": entries.iter().map(|e| serde_json::json!({"key": e.key, "source": e.source, "bibtex": e.text})).collect::<Vec<_>>(),
                "notes": notes,
                "notFound": missing,
            }))?
        );
    } else {
        for entry in &entries {
            println!("{}\n", entry.text.trim_end());
        }
        for note in notes.iter().chain(&missing) {
            eprintln!("note: {note}");
        }
    }
    Ok(if missing.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// `papers figure ID`: the paper's figures and tables, where they are.
async fn list_figures(services: &Services, id: &str, json: bool) -> anyhow::Result<ExitCode> {
    let (paper_id, paper) = match services.papers.resolve(id).await {
        Ok(found) => found,
        Err(error) => return fail(error),
    };
    let found = match figures::figures(&services.store, &paper_id).await {
        Ok(found) => found,
        Err(error) => return fail(error),
    };
    if json {
        let rows: Vec<serde_json::Value> = found.iter().map(figure_json).collect();
        println!("{}", serde_json::to_string_pretty(&rows)?);
        return Ok(ExitCode::SUCCESS);
    }
    for figure in &found {
        let [left, bottom, right, top] = figure.region;
        println!(
            "{:<10} p. {:<3} {:.0} x {:.0} pt",
            figure.label,
            figure.page,
            right - left,
            top - bottom
        );
    }
    eprintln!("{} figures and tables in \"{}\"", found.len(), paper.title);
    Ok(ExitCode::SUCCESS)
}

fn figure_json(figure: &asterism_store::StoredFigure) -> serde_json::Value {
    serde_json::json!({
        "label": figure.label,
        "kind": figure.kind,
        "page": figure.page,
        "region": figure.region,
        "caption": figure.caption,
        "pageSize": [figure.page_width, figure.page_height],
    })
}

/// `papers figure ID LABEL`: the figure (or table) rendered as a PNG file.
async fn figure(
    services: &Services,
    id: &str,
    label: &str,
    out: Option<PathBuf>,
    dpi: f32,
    json: bool,
) -> anyhow::Result<ExitCode> {
    let (paper_id, _) = match services.papers.resolve(id).await {
        Ok(found) => found,
        Err(error) => return fail(error),
    };
    let (figure, png) = match figures::figure_png(
        &services.store,
        &paper_id,
        label,
        dpi.clamp(36.0, 600.0),
    )
    .await
    {
        Ok(rendered) => rendered,
        Err(error) => return fail(error),
    };
    let out = out.unwrap_or_else(|| {
        PathBuf::from(format!(
            "{}.png",
            figure.label.to_lowercase().replace(' ', "-")
        ))
    });
    std::fs::write(&out, &png)?;
    if json {
        let mut row = figure_json(&figure);
        row["path"] = out.display().to_string().into();
        row["bytes"] = png.len().into();
        println!("{}", serde_json::to_string_pretty(&row)?);
    } else {
        println!(
            "{} (p. {}) written to {}",
            figure.label,
            figure.page,
            out.display()
        );
    }
    Ok(ExitCode::SUCCESS)
}
