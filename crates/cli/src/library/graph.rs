//! `asterism library missing`: what a collection cites, and what cites it, that it
//! lacks.

use std::process::ExitCode;

use asterism_agent::Services;
use asterism_library::papers::graph::Link;

pub(super) struct MissingOptions {
    pub links: String,
    pub per_paper: u32,
    pub limit: usize,
    pub json: bool,
}

pub(super) async fn missing(
    services: &Services,
    collection: Option<&str>,
    options: MissingOptions,
) -> anyhow::Result<ExitCode> {
    let links = match options.links.as_str() {
        "both" => vec![Link::References, Link::Citations],
        "references" => vec![Link::References],
        "citations" => vec![Link::Citations],
        other => {
            eprintln!("error: --links {other:?}: use references, citations or both");
            return Ok(ExitCode::from(2));
        }
    };
    let found = match services
        .library
        .missing(collection, &links, options.per_paper, options.limit)
        .await
    {
        Ok(found) => found,
        Err(error) => {
            eprintln!("error: {error}");
            return Ok(ExitCode::FAILURE);
        }
    };
    if options.json {
        println!("{}", serde_json::to_string_pretty(&found)?);
        return Ok(ExitCode::SUCCESS);
    }
    for (index, missing) in found.papers.iter().enumerate() {
        println!("{}", crate::papers::line(index + 1, &missing.paper));
        println!(
            "    linked from {} of your papers (cited by {}, citing {}): {}",
            missing.linked_from.len(),
            missing.cited_by_members,
            missing.cites_members,
            missing.linked_from.join("; ")
        );
    }
    for failure in &found.failed {
        eprintln!("warning: {failure}");
    }
    let what = collection.map_or("your library".to_string(), |c| format!("collection {c:?}"));
    eprintln!(
        "{} papers missing from {what} shown; {} of its papers asked of ADS, {} without a bibcode (run `asterism library identify`)",
        found.papers.len(),
        found.asked,
        found.without_bibcode
    );
    Ok(ExitCode::SUCCESS)
}
