//! `asterism library objects|near|identify`: the objects the papers are about, papers
//! near a position, and identifying papers known only from their PDF.

use std::process::ExitCode;

use asterism_agent::Services;

use super::local_or_fail;

/// `library objects`: each object, where it is, and how many papers are about it.
pub(super) async fn objects(services: &Services, json: bool) -> anyhow::Result<ExitCode> {
    let objects = services.library.objects().await?;
    if json {
        println!(
            "{}",
            serde_json::to_string_pretty(&serde_json::json!({"objects": objects}))?
        );
        return Ok(ExitCode::SUCCESS);
    }
    if objects.is_empty() {
        println!("no objects yet: they are found when papers are imported or downloaded");
    }
    for object in &objects {
        println!(
            "{:<24} {:<28} {:>3} paper{}",
            object.name,
            position(
                object.ra_deg,
                object.dec_deg,
                object.resolved_name.as_deref()
            ),
            object.papers.len(),
            if object.papers.len() == 1 { "" } else { "s" }
        );
    }
    Ok(ExitCode::SUCCESS)
}

fn position(ra: Option<f64>, dec: Option<f64>, resolved: Option<&str>) -> String {
    match (ra, dec) {
        (Some(ra), Some(dec)) => format!(
            "{ra:>9.4} {dec:>+8.4}{}",
            resolved
                .map(|name| format!(" ({name})"))
                .unwrap_or_default()
        ),
        _ => "not resolved yet".into(),
    }
}

/// `library near NAME --radius R`: papers about objects within R of NAME.
pub(super) async fn near(
    services: &Services,
    name: &str,
    radius: &str,
    json: bool,
) -> anyhow::Result<ExitCode> {
    let radius = asterism_library::library::objects::parse_radius(radius)?;
    let found = services.library.objects_near(name, radius).await?;
    if json {
        println!("{}", serde_json::to_string_pretty(&found)?);
        return Ok(ExitCode::SUCCESS);
    }
    println!(
        "within {radius} arcmin of {} ({:.4} {:+.4}): {} object{}",
        found.center.name,
        found.center.ra_deg,
        found.center.dec_deg,
        found.objects.len(),
        if found.objects.len() == 1 { "" } else { "s" }
    );
    for nearby in &found.objects {
        println!(
            "{}  {:.1} arcmin",
            nearby.object.name, nearby.separation_arcmin
        );
        for paper in &nearby.object.papers {
            println!(
                "    {}  {} {}: {}",
                paper.id,
                paper.first_author.as_deref().unwrap_or("?"),
                paper.year.map(|y| y.to_string()).unwrap_or_default(),
                paper.title
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `library identify [ID]`: one line per paper (and one per changed field), a count on
/// stderr; `--json`: the outcomes.
pub(super) async fn identify(
    services: &Services,
    id: Option<&str>,
    json: bool,
) -> anyhow::Result<ExitCode> {
    let paper_id = match id {
        Some(id) => Some(local_or_fail(services, id).await?),
        None => None,
    };
    let outcomes = services.library.identify(paper_id.as_deref()).await?;
    if json {
        println!("{}", serde_json::to_string_pretty(&outcomes)?);
        return Ok(ExitCode::SUCCESS);
    }
    if outcomes.is_empty() {
        println!("every paper is identified: none is known only from its PDF");
    }
    for outcome in &outcomes {
        let via = outcome
            .via
            .as_deref()
            .map(|via| format!("  (by {via})"))
            .unwrap_or_default();
        println!(
            "{:<18} {}  {}{via}",
            outcome.status, outcome.paper_id, outcome.title
        );
        for line in &outcome.changes {
            println!("    {line}");
        }
        if let Some(reason) = &outcome.reason {
            println!("    not identified: {reason}");
        }
    }
    let found = outcomes.iter().filter(|o| o.status == "identified").count();
    eprintln!("{found} of {} identified", outcomes.len());
    Ok(ExitCode::SUCCESS)
}
