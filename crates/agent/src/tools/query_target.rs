//! `query_target`: resolve an object name through CDS Sesame.

use asterism_protocol::ResolvedTarget;
use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;

use crate::{ToolContext, ToolOutput, TypedTool};

/// Resolve an astronomical object name through CDS Sesame (Simbad, NED, VizieR).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct QueryTargetArgs {
    /// The object name as an astronomer writes it, e.g. "NGC 4258", "M 31", "Betelgeuse",
    /// "HD 209458".
    pub name: String,
}

/// Resolves names to coordinates, object type and aliases.
pub struct QueryTargetTool;

/// What the model reads: the facts, one per line.
fn describe(target: &ResolvedTarget, from_cache: bool) -> String {
    let mut lines = vec![
        format!("{} (asked: {})", target.name, target.query),
        format!(
            "RA, Dec (ICRS J2000): {} {} = {:.6}°, {:+.6}°",
            target.ra_sexagesimal, target.dec_sexagesimal, target.ra_deg, target.dec_deg
        ),
    ];
    match (&target.object_type, &target.object_type_label) {
        (Some(code), Some(label)) => lines.push(format!("Type: {label} ({code})")),
        (Some(code), None) => lines.push(format!("Type: {code}")),
        _ => {}
    }
    if let Some(morphology) = &target.morphology {
        lines.push(format!("Morphology: {morphology}"));
    }
    if let Some(redshift) = target.redshift {
        lines.push(format!("Redshift: {redshift}"));
    }
    if let Some(velocity) = target.velocity_kms {
        lines.push(format!("Radial velocity: {velocity} km/s"));
    }
    if !target.aliases.is_empty() {
        let shown: Vec<&str> = target.aliases.iter().take(12).map(String::as_str).collect();
        let more = target.aliases.len().saturating_sub(shown.len());
        let suffix = if more > 0 {
            format!(" (+{more} more)")
        } else {
            String::new()
        };
        lines.push(format!("Aliases: {}{suffix}", shown.join(", ")));
    }
    let others: Vec<&str> = target
        .resolvers
        .iter()
        .map(|resolver| resolver.name.as_str())
        .collect();
    lines.push(format!(
        "Resolved by {} (answering: {}){}",
        target.resolver,
        others.join(", "),
        if from_cache {
            "; from the local cache"
        } else {
            ""
        }
    ));
    lines.join("\n")
}

#[async_trait]
impl TypedTool for QueryTargetTool {
    type Args = QueryTargetArgs;
    const NAME: &'static str = "query_target";
    const DESCRIPTION: &'static str = "Resolve an astronomical object name (galaxy, star, \
        cluster, nebula, quasar, …) through CDS Sesame (Simbad, NED, VizieR). Returns ICRS \
        J2000 coordinates in sexagesimal and degrees, the object type, aliases and which \
        resolver answered. Use it whenever a question involves where an object is or what \
        it is.";
    const CONCURRENCY_SAFE: bool = true;

    async fn run(&self, args: QueryTargetArgs, context: &ToolContext) -> ToolOutput {
        if args.name.trim().is_empty() {
            return ToolOutput::error("query_target needs a non-empty object name.");
        }
        match context.services.targets.resolve(&args.name).await {
            Ok(lookup) => {
                let mut metadata = serde_json::to_value(&lookup.target).unwrap_or_default();
                if let Some(object) = metadata.as_object_mut() {
                    object.insert("fromCache".into(), lookup.from_cache.into());
                    object.insert("fetchedAt".into(), lookup.fetched_at.clone().into());
                }
                ToolOutput::ok(describe(&lookup.target, lookup.from_cache)).with_metadata(metadata)
            }
            Err(error) => ToolOutput::error(error.to_string()),
        }
    }
}
