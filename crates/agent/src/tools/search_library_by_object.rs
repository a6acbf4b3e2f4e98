//! `search_library_by_object`: the user's papers about an object or its neighbourhood.

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;

use crate::{ToolContext, ToolOutput, TypedTool};

/// Papers of the library about objects near a named one.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchLibraryByObjectArgs {
    /// An object name Sesame resolves, e.g. "M 87", "NGC 4258", "Kepler-1627".
    pub name: String,
    /// Cone radius in arcminutes around the object (default 10; up to 600).
    #[serde(default)]
    pub radius_arcmin: Option<f64>,
}

pub struct SearchLibraryByObjectTool;

const DEFAULT_RADIUS: f64 = 10.0;
const MAX_RADIUS: f64 = 600.0;

#[async_trait]
impl TypedTool for SearchLibraryByObjectTool {
    type Args = SearchLibraryByObjectArgs;
    const NAME: &'static str = "search_library_by_object";
    const DESCRIPTION: &'static str = "Find papers in the user's own library about an astronomical object \
        or objects near it: the name is resolved through Sesame and compared with the objects each paper \
        is about (from its keywords, title and abstract). Use it for questions like \"what do my papers \
        say about objects near M 87?\"; then read the papers with rag_search (paper filter) or \
        get_paper_content.";
    const CONCURRENCY_SAFE: bool = true;

    async fn run(&self, args: SearchLibraryByObjectArgs, context: &ToolContext) -> ToolOutput {
        let radius = args.radius_arcmin.unwrap_or(DEFAULT_RADIUS);
        if !(radius > 0.0 && radius <= MAX_RADIUS) {
            return ToolOutput::error(format!(
                "radius_arcmin must be above 0 and at most {MAX_RADIUS}, not {radius}"
            ));
        }
        let found = match context
            .services
            .library
            .objects_near(&args.name, radius)
            .await
        {
            Ok(found) => found,
            Err(error) => {
                return ToolOutput::error(format!("Cannot search around {}: {error}", args.name));
            }
        };
        let center = &found.center;
        let mut lines = vec![format!(
            "{} ({}) resolves to RA {:.5}, Dec {:+.5}. Library objects within {radius} arcmin: {}.",
            args.name,
            center.name,
            center.ra_deg,
            center.dec_deg,
            found.objects.len()
        )];
        if found.objects.is_empty() {
            lines.push(
                "No paper of the library is about an object there; search_papers finds papers outside it."
                    .into(),
            );
        }
        for nearby in &found.objects {
            let object = &nearby.object;
            lines.push(format!(
                "- {} ({:.1} arcmin{}):",
                object.name,
                nearby.separation_arcmin,
                object
                    .object_type
                    .as_deref()
                    .map(|kind| format!(", type {kind}"))
                    .unwrap_or_default()
            ));
            for paper in &object.papers {
                lines.push(format!(
                    "    paper_id {}: {} {} \"{}\" (name found in its {})",
                    paper.id,
                    paper.first_author.as_deref().unwrap_or("?"),
                    paper.year.map(|y| y.to_string()).unwrap_or_default(),
                    paper.title,
                    paper.found_in
                ));
            }
        }
        ToolOutput::ok(lines.join("\n"))
            .with_metadata(serde_json::to_value(&found).unwrap_or_default())
    }
}
