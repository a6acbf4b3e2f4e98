//! Readers of Sesame's text (`-oI`) and XML (`-ox`) outputs.

use asterism_protocol::{ResolvedTarget, TargetResolver};
use quick_xml::Reader;
use quick_xml::events::Event;

use super::SesameError;
use super::otype::object_type_label;

/// What one resolver (Simbad, NED, VizieR) said.
#[derive(Debug, Default, Clone)]
struct ResolverAnswer {
    name: String,
    ra_deg: Option<f64>,
    dec_deg: Option<f64>,
    main_name: Option<String>,
    object_type: Option<String>,
    morphology: Option<String>,
    redshift: Option<f64>,
    velocity_kms: Option<f64>,
    aliases: Vec<String>,
    reference_count: Option<i32>,
}

/// Reads a Sesame answer (text or XML) for the query `query`.
pub fn parse_sesame(query: &str, body: &str) -> Result<ResolvedTarget, SesameError> {
    let trimmed = body.trim_start_matches('\u{feff}').trim_start();
    let answers = if trimmed.starts_with("<?xml") || trimmed.starts_with("<Sesame") {
        parse_xml(trimmed)?
    } else if trimmed.starts_with('#') {
        parse_text(trimmed)
    } else if trimmed.is_empty() {
        return Err(SesameError::BadResponse("the answer is empty".into()));
    } else {
        let preview: String = trimmed.chars().take(80).collect();
        return Err(SesameError::BadResponse(format!(
            "the answer is neither Sesame text nor XML: {preview:?}"
        )));
    };
    combine(query, answers)
}

/// `S=Simbad (CDS, via client/server)` → `Simbad`; `N=NED` → `NED`; `V=VizieR (local)` → `VizieR`.
fn resolver_name(label: &str) -> String {
    let after_code = label.split_once('=').map_or(label, |(_, rest)| rest);
    let name = after_code
        .split(['(', ':', ','])
        .next()
        .unwrap_or(after_code)
        .trim();
    match name.split_whitespace().next().unwrap_or(name) {
        simbad if simbad.eq_ignore_ascii_case("simbad") => "Simbad".into(),
        ned if ned.eq_ignore_ascii_case("ned") => "NED".into(),
        vizier if vizier.eq_ignore_ascii_case("vizier") => "VizieR".into(),
        other => other.to_string(),
    }
}

fn parse_number(text: &str) -> Option<f64> {
    text.trim()
        .trim_start_matches('+')
        .parse::<f64>()
        .ok()
        .filter(|value| value.is_finite())
}

/// A right ascension in degrees, if the text is one: a number in [0, 360).
fn parse_ra(text: &str) -> Option<f64> {
    parse_number(text).filter(|ra| (0.0..360.0).contains(ra))
}

/// A declination in degrees, if the text is one: a number in [-90, 90].
fn parse_dec(text: &str) -> Option<f64> {
    parse_number(text).filter(|dec| (-90.0..=90.0).contains(dec))
}

fn parse_text(body: &str) -> Vec<ResolverAnswer> {
    let mut answers = Vec::new();
    let mut current: Option<ResolverAnswer> = None;
    for line in body.lines() {
        let line = line.trim_end();
        if let Some(rest) = line.strip_prefix("#=") {
            if let Some(answer) = current.take() {
                answers.push(answer);
            }
            current = Some(ResolverAnswer {
                name: resolver_name(rest),
                ..ResolverAnswer::default()
            });
            continue;
        }
        if line.starts_with("#!") || line.starts_with("#====") {
            // A resolver that failed, or the end marker: close the current one.
            if let Some(answer) = current.take() {
                answers.push(answer);
            }
            continue;
        }
        let Some(answer) = current.as_mut() else {
            continue;
        };
        let Some((tag, value)) = line.split_once(' ') else {
            continue;
        };
        let value = value.trim();
        match tag {
            "%J" => {
                let coordinates = value.split('=').next().unwrap_or(value);
                let mut parts = coordinates.split_whitespace();
                answer.ra_deg = parts.next().and_then(parse_ra);
                answer.dec_deg = parts.next().and_then(parse_dec);
            }
            "%I.0" => answer.main_name = Some(clean_name(value)).filter(|name| !name.is_empty()),
            "%I" => answer.aliases.push(clean_name(value)),
            "%C.0" => answer.object_type = Some(value.to_string()),
            "%M" | "%MT" => answer.morphology = Some(value.to_string()),
            "%#B" => {
                answer.reference_count =
                    value.split_whitespace().next().and_then(|n| n.parse().ok())
            }
            "%V" => {
                // `%V z 1593 0.005327 [..]` or `%V v 1583 5.3E-03 [..]`: kind, velocity, redshift.
                let mut parts = value.split_whitespace();
                let _kind = parts.next();
                answer.velocity_kms = parts.next().and_then(parse_number);
                answer.redshift = parts.next().and_then(parse_number);
            }
            _ => {}
        }
    }
    if let Some(answer) = current.take() {
        answers.push(answer);
    }
    answers
}

/// `{NGC} 3642` (VizieR's catalogue braces) → `NGC 3642`; runs of spaces collapse.
fn clean_name(name: &str) -> String {
    name.replace(['{', '}'], "")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

fn parse_xml(body: &str) -> Result<Vec<ResolverAnswer>, SesameError> {
    let mut reader = Reader::from_str(body);
    let mut answers = Vec::new();
    let mut current: Option<ResolverAnswer> = None;
    let mut targets_seen = 0usize;
    let mut path: Vec<String> = Vec::new();
    loop {
        match reader.read_event() {
            Err(error) => return Err(SesameError::BadResponse(format!("invalid XML: {error}"))),
            Ok(Event::Eof) => break,
            Ok(Event::Start(start)) => {
                let tag = String::from_utf8_lossy(start.name().as_ref()).into_owned();
                if tag == "Target" {
                    targets_seen += 1;
                }
                if tag == "Resolver" && targets_seen == 1 {
                    let label = start
                        .try_get_attribute("name")
                        .ok()
                        .flatten()
                        .and_then(|attribute| {
                            attribute
                                .unescape_value()
                                .ok()
                                .map(|value| value.into_owned())
                        })
                        .unwrap_or_default();
                    current = Some(ResolverAnswer {
                        name: resolver_name(&label),
                        ..ResolverAnswer::default()
                    });
                }
                path.push(tag);
            }
            Ok(Event::End(_)) => {
                if path.pop().as_deref() == Some("Resolver")
                    && let Some(answer) = current.take()
                {
                    answers.push(answer);
                }
                if targets_seen >= 1 && path.is_empty() {
                    break;
                }
            }
            Ok(Event::Text(text)) => {
                let Some(answer) = current.as_mut() else {
                    continue;
                };
                let Ok(value) = text.xml_content() else {
                    continue;
                };
                let value = value.trim();
                let leaf = path.last().map(String::as_str).unwrap_or("");
                let parent = path
                    .len()
                    .checked_sub(2)
                    .and_then(|i| path.get(i))
                    .map(String::as_str)
                    .unwrap_or("");
                match (parent, leaf) {
                    ("Resolver", "jradeg") => answer.ra_deg = parse_ra(value),
                    ("Resolver", "jdedeg") => answer.dec_deg = parse_dec(value),
                    ("Resolver", "oname") => {
                        answer.main_name = Some(clean_name(value)).filter(|name| !name.is_empty())
                    }
                    ("Resolver", "alias") => answer.aliases.push(clean_name(value)),
                    ("Resolver", "otype") => answer.object_type = Some(value.to_string()),
                    // Simbad's MType is a numeric code; NED's is the morphology in words.
                    ("Resolver", "MType") if parse_number(value).is_none() => {
                        answer.morphology = Some(value.to_string())
                    }
                    ("Resolver", "nrefs") => answer.reference_count = value.parse().ok(),
                    ("z", "v") => answer.redshift = parse_number(value),
                    ("Vel", "v") => answer.velocity_kms = parse_number(value),
                    _ => {}
                }
            }
            Ok(_) => {}
        }
    }
    if targets_seen == 0 {
        return Err(SesameError::BadResponse("the XML holds no <Target>".into()));
    }
    Ok(answers)
}

/// Preference when several resolvers answer: Simbad's positions are the most precise,
/// VizieR's (catalogue rounding) the least.
fn preference(resolver: &str) -> usize {
    match resolver {
        "Simbad" => 0,
        "NED" => 1,
        "VizieR" => 2,
        _ => 3,
    }
}

fn combine(query: &str, answers: Vec<ResolverAnswer>) -> Result<ResolvedTarget, SesameError> {
    let mut resolved: Vec<ResolverAnswer> = answers
        .into_iter()
        .filter(|answer| answer.ra_deg.is_some() && answer.dec_deg.is_some())
        .collect();
    if resolved.is_empty() {
        return Err(SesameError::NotFound(query.trim().to_string()));
    }
    resolved.sort_by_key(|answer| preference(&answer.name));
    let best = &resolved[0];
    let (Some(ra_deg), Some(dec_deg)) = (best.ra_deg, best.dec_deg) else {
        return Err(SesameError::NotFound(query.trim().to_string()));
    };
    let mut aliases: Vec<String> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let key = |name: &str| name.to_lowercase().split_whitespace().collect::<String>();
    for answer in &resolved {
        for alias in answer.main_name.iter().chain(answer.aliases.iter()) {
            if !alias.is_empty() && seen.insert(key(alias)) {
                aliases.push(alias.clone());
            }
        }
    }
    let object_type = best
        .object_type
        .clone()
        .or_else(|| resolved.iter().find_map(|a| a.object_type.clone()));
    let object_type_label = object_type
        .as_deref()
        .and_then(object_type_label)
        .map(str::to_string)
        .or_else(|| {
            resolved
                .iter()
                .filter_map(|a| a.object_type.as_deref())
                .find_map(object_type_label)
                .map(str::to_string)
        });
    Ok(ResolvedTarget {
        query: query.trim().to_string(),
        name: best
            .main_name
            .clone()
            .unwrap_or_else(|| query.trim().to_string()),
        ra_deg,
        dec_deg,
        ra_sexagesimal: ra_to_sexagesimal(ra_deg),
        dec_sexagesimal: dec_to_sexagesimal(dec_deg),
        object_type,
        object_type_label,
        morphology: resolved.iter().find_map(|a| a.morphology.clone()),
        redshift: resolved.iter().find_map(|a| a.redshift),
        velocity_kms: resolved.iter().find_map(|a| a.velocity_kms),
        aliases,
        resolver: best.name.clone(),
        resolvers: resolved
            .iter()
            .filter_map(|answer| {
                Some(TargetResolver {
                    name: answer.name.clone(),
                    ra_deg: answer.ra_deg?,
                    dec_deg: answer.dec_deg?,
                    object_type: answer.object_type.clone(),
                })
            })
            .collect(),
        reference_count: resolved.iter().find_map(|a| a.reference_count),
    })
}

/// Right ascension in degrees as `hh:mm:ss.ss`.
pub(crate) fn ra_to_sexagesimal(ra_deg: f64) -> String {
    let centiseconds =
        ((ra_deg.rem_euclid(360.0) / 15.0) * 360_000.0).round() as i64 % (24 * 360_000);
    let hours = centiseconds / 360_000;
    let minutes = (centiseconds / 6_000) % 60;
    let seconds = centiseconds % 6_000;
    format!(
        "{hours:02}:{minutes:02}:{:02}.{:02}",
        seconds / 100,
        seconds % 100
    )
}

/// Declination in degrees as `±dd:mm:ss.s`.
pub(crate) fn dec_to_sexagesimal(dec_deg: f64) -> String {
    let sign = if dec_deg < 0.0 { '-' } else { '+' };
    let deciseconds = (dec_deg.abs() * 36_000.0).round() as i64;
    let degrees = deciseconds / 36_000;
    let minutes = (deciseconds / 600) % 60;
    let seconds = deciseconds % 600;
    format!(
        "{sign}{degrees:02}:{minutes:02}:{:02}.{}",
        seconds / 10,
        seconds % 10
    )
}

#[cfg(test)]
mod tests;
