//! The object-centric library: the astronomical objects each paper is about, found in
//! its keywords (AAS/A&A "galaxies: individual: NGC 4258"), title and abstract, resolved
//! through Sesame (cached) and linked to the paper; then "papers about objects within 30′
//! of NGC 4258" is a cone search over the stored coordinates.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use asterism_protocol::{PaperRecord, ResolvedTarget};
use asterism_store::{LinkedObject, ObjectLink, PaperFilter};
use regex::Regex;

use crate::targets::target_cache_key;

/// Catalogue designations and named objects, as written in titles and abstracts.
static DESIGNATION: LazyLock<Option<Regex>> = LazyLock::new(|| {
    let catalogues = [
        // Galaxies, clusters, nebulae.
        r"(?:NGC|IC|UGC|UGCA|PGC|Mrk|Markarian|Arp|Abell|ACO|ESO|Holmberg|Sh\s?2-)\s?\d{1,6}[A-Z]?",
        r"M\s?(?:1[01]\d|[1-9]\d?)",
        r"[34]C\s?\d{1,3}(?:\.\d{1,2})?",
        // Stars and planetary systems.
        r"(?:HD|HIP|HR|GJ|Gliese|LHS|Ross|Wolf|KIC|TIC|EPIC)\s?\d{1,9}[A-Z]?",
        r"(?:Kepler|K2|KOI|TOI|WASP|HAT-P|HATS|KELT|XO|TrES|CoRoT|Qatar|TRAPPIST|LTT)[- ]\d{1,5}(?:\.\d{2})?[A-D]?[b-h]?",
        r"PSR\s?[JB]\d{4}[+-]\d{2,4}",
        // Transients.
        r"SN\s?(?:1[89]|20)\d{2}[a-z]{1,3}",
        r"GRB\s?\d{6}[A-Z]?",
        r"GW\d{6}",
        r"FRB\s?\d{8}[A-Z]?",
        r"AT\s?20\d{2}[a-z]{2,3}",
    ];
    let named = [
        "Crab Nebula",
        "Orion Nebula",
        "Andromeda Galaxy",
        "Large Magellanic Cloud",
        "Small Magellanic Cloud",
        "Proxima Centauri",
        "Alpha Centauri",
        "Betelgeuse",
        "Cas A",
        "Cygnus X-1",
        "Coma Cluster",
        "Virgo Cluster",
        "Perseus Cluster",
        "Bullet Cluster",
        "Omega Centauri",
        "47 Tucanae",
        "Vega",
    ];
    let pattern = format!(
        r"\b(?:(?:{}|{})\b|Sgr A\*)",
        catalogues.join("|"),
        named.join("|")
    );
    Regex::new(&pattern).ok()
});

/// `galaxies: individual: NGC 4258`, `stars: individual (Kepler-1627)`.
static INDIVIDUAL: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"(?i)individual\s*(?::|\()\s*([^()]+?)\s*\)?\s*$").ok());

/// One name found in a paper, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FoundObject {
    pub name: String,
    /// `keyword`, `title`, `abstract` or `text` (the start of its text, for a paper
    /// without an abstract).
    pub source: &'static str,
}

/// A planetary system's star: "Kepler 1627Ab" and "Kepler-1627 b" are Kepler-1627.
static HOST: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"^(Kepler|K2|KOI|TOI|WASP|HAT-P|HATS|KELT|XO|TrES|CoRoT|Qatar|TRAPPIST|LTT)[- ](\d{1,5}(?:\.\d{2})?)").ok()
});

/// "Kepler 1627Ab" is the star Kepler-1627; "M87" is "M 87".
fn canonical(name: &str) -> String {
    let name = name.trim();
    if let Some(host) = HOST.as_ref().and_then(|re| re.captures(name)) {
        return format!("{}-{}", &host[1], &host[2]);
    }
    let mut chars = name.chars();
    if let (Some('M'), Some(second)) = (chars.next(), chars.next())
        && second.is_ascii_digit()
    {
        return format!("M {}", &name[1..]);
    }
    name.to_string()
}

/// The object names of a paper: keywords first, then title, then abstract; each once.
pub fn find_objects(record: &PaperRecord) -> Vec<FoundObject> {
    let mut found: Vec<FoundObject> = Vec::new();
    let mut add = |name: String, source: &'static str| {
        let key = target_cache_key(&name);
        if !key.is_empty() && !found.iter().any(|f| target_cache_key(&f.name) == key) {
            found.push(FoundObject { name, source });
        }
    };
    for keyword in &record.keywords {
        if let Some(name) = INDIVIDUAL
            .as_ref()
            .and_then(|re| re.captures(keyword))
            .and_then(|c| c.get(1))
        {
            add(canonical(name.as_str()), "keyword");
        }
    }
    let texts = [
        (record.title.as_str(), "title"),
        (
            record.abstract_text.as_deref().unwrap_or_default(),
            "abstract",
        ),
    ];
    for (text, source) in texts {
        for found in DESIGNATION.iter().flat_map(|re| re.find_iter(text)) {
            add(canonical(found.as_str()), source);
        }
    }
    found
}

/// How much of the text of a paper without an abstract is read for object names (about
/// its first page).
const FRONT_CHARS: usize = 4000;
/// Set once every paper of the library has been scanned for objects.
const SCANNED: &str = "objects_scanned";
/// Names not resolved yet that one listing tries again (each is a Sesame request).
pub const RESOLVE_PER_CALL: usize = 25;

/// An object of the library: its name, where it is (when resolved) and its papers.
#[derive(Debug, Clone, PartialEq, serde::Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct LibraryObject {
    /// As first written in a paper.
    pub name: String,
    /// Sesame's main identifier (e.g. `M 106` for "NGC 4258"), when resolved.
    pub resolved_name: Option<String>,
    pub ra_deg: Option<f64>,
    pub dec_deg: Option<f64>,
    /// `12 18 57.62`, `+47 18 13.4` (as Sesame gives them), when resolved.
    pub ra_sexagesimal: Option<String>,
    pub dec_sexagesimal: Option<String>,
    /// Simbad's type code (`Sy2`) and its name ("Seyfert 2 galaxy").
    pub object_type: Option<String>,
    pub object_type_label: Option<String>,
    pub morphology: Option<String>,
    pub redshift: Option<f64>,
    pub velocity_kms: Option<f64>,
    pub papers: Vec<ObjectPaper>,
}

/// A paper about an object, as the object views list it.
#[derive(Debug, Clone, PartialEq, serde::Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ObjectPaper {
    pub id: String,
    pub title: String,
    pub first_author: Option<String>,
    #[specta(type = Option<f64>)]
    pub year: Option<i64>,
    /// Where the name was found: `keyword`, `title` or `abstract`.
    pub found_in: String,
}

/// An object within the radius of a cone search.
#[derive(Debug, Clone, PartialEq, serde::Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct NearbyObject {
    #[serde(flatten)]
    pub object: LibraryObject,
    pub separation_arcmin: f64,
}

/// The answer of a cone search over the library's objects.
#[derive(Debug, Clone, PartialEq, serde::Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct NearbyObjects {
    pub center: ResolvedTarget,
    pub radius_arcmin: f64,
    /// Nearest first.
    pub objects: Vec<NearbyObject>,
}

/// Great-circle distance in degrees (haversine, stable for small angles).
pub fn separation_deg(ra1: f64, dec1: f64, ra2: f64, dec2: f64) -> f64 {
    let (ra1, dec1, ra2, dec2) = (
        ra1.to_radians(),
        dec1.to_radians(),
        ra2.to_radians(),
        dec2.to_radians(),
    );
    let a = ((dec2 - dec1) / 2.0).sin().powi(2)
        + dec1.cos() * dec2.cos() * ((ra2 - ra1) / 2.0).sin().powi(2);
    2.0 * a.sqrt().min(1.0).asin().to_degrees()
}

/// Why a search around an object found nothing to show.
#[derive(Debug, thiserror::Error)]
pub enum NearError {
    /// What was asked cannot be answered (a bad radius, no resolver configured).
    #[error("{0}")]
    Invalid(String),
    /// Sesame knows no object of that name.
    #[error("{name}: {source}")]
    UnknownName {
        name: String,
        source: crate::sources::sesame::SesameError,
    },
    /// Sesame could not be asked (unreachable, too slow, a bad answer).
    #[error("{name}: {source}")]
    Resolver {
        name: String,
        source: crate::sources::sesame::SesameError,
    },
    #[error(transparent)]
    Store(#[from] asterism_store::StoreError),
}

/// A radius such as `30arcmin`, `30'`, `0.5deg`, `0.5°`, `90arcsec`, `90"` or `30`
/// (arcminutes), in arcminutes.
pub fn parse_radius(text: &str) -> Result<f64, NearError> {
    let text = text.trim();
    let units: [(&str, f64); 8] = [
        ("arcmin", 1.0),
        ("arcsec", 1.0 / 60.0),
        ("deg", 60.0),
        ("amin", 1.0),
        ("asec", 1.0 / 60.0),
        ("'", 1.0),
        ("\"", 1.0 / 60.0),
        ("°", 60.0),
    ];
    let (number, factor) = units
        .iter()
        .find_map(|(unit, factor)| text.strip_suffix(unit).map(|n| (n.trim(), *factor)))
        .unwrap_or((text, 1.0));
    match number.parse::<f64>() {
        Ok(value) if value > 0.0 && value.is_finite() => Ok(value * factor),
        _ => Err(NearError::Invalid(format!(
            "radius {text:?}: expected a positive number with arcmin, arcsec or deg (e.g. 30arcmin)"
        ))),
    }
}

impl crate::library::Library {
    /// Finds the objects `paper_id` is about, resolves their names through Sesame
    /// (cached; a name that cannot be resolved now stays linked, without coordinates)
    /// and links them to the paper. The number of objects linked.
    pub async fn link_objects(&self, paper_id: &str) -> Result<usize, asterism_store::StoreError> {
        self.link_paper(paper_id, true).await
    }

    async fn link_paper(
        &self,
        paper_id: &str,
        resolve: bool,
    ) -> Result<usize, asterism_store::StoreError> {
        let Some(record) = self.store.paper_record(paper_id).await? else {
            return Ok(0);
        };
        let mut found = find_objects(&record);
        if record.abstract_text.is_none() {
            // Known only from its file (an import without a readable abstract): the
            // start of its text stands in for the abstract.
            if let Some(text) = self.store.paper_text(paper_id).await? {
                let start: String = text.markdown.chars().take(FRONT_CHARS).collect();
                let front = PaperRecord {
                    abstract_text: Some(start),
                    ..PaperRecord::default()
                };
                for object in find_objects(&front) {
                    let key = target_cache_key(&object.name);
                    if !found.iter().any(|f| target_cache_key(&f.name) == key) {
                        found.push(FoundObject {
                            source: "text",
                            ..object
                        });
                    }
                }
            }
        }
        if let Some(targets) = self.targets.as_ref().filter(|_| resolve) {
            for object in &found {
                if let Err(error) = targets.resolve(&object.name).await {
                    tracing::debug!(%error, name = %object.name, "object not resolved now");
                }
            }
        }
        let links: Vec<ObjectLink> = found
            .iter()
            .map(|object| ObjectLink {
                query_key: target_cache_key(&object.name),
                name: object.name.clone(),
                source: object.source.into(),
            })
            .collect();
        self.store.link_objects(paper_id, &links).await?;
        Ok(links.len())
    }

    /// Every object of the library with its papers, after up to [`RESOLVE_PER_CALL`]
    /// names not resolved yet are tried again (when Sesame answers).
    pub async fn objects(&self) -> Result<Vec<LibraryObject>, asterism_store::StoreError> {
        self.scan_objects().await?;
        if let Some(targets) = &self.targets {
            let linked = self.store.linked_objects(None).await?;
            let mut tried = std::collections::HashSet::new();
            for link in linked.iter().filter(|link| link.target.is_none()) {
                if tried.len() >= RESOLVE_PER_CALL {
                    break;
                }
                if tried.insert(link.query_key.clone()) {
                    let _ = targets.resolve(&link.name).await;
                }
            }
        }
        self.known_objects().await
    }

    /// Every object of the library with its papers, as resolved so far (no Sesame
    /// request).
    pub async fn known_objects(&self) -> Result<Vec<LibraryObject>, asterism_store::StoreError> {
        self.scan_objects().await?;
        let linked = self.store.linked_objects(None).await?;
        let papers: BTreeMap<String, asterism_store::LibraryPaper> = self
            .store
            .library_papers(&PaperFilter::default())
            .await?
            .into_iter()
            .map(|paper| (paper.id.clone(), paper))
            .collect();
        Ok(group(linked, &papers))
    }

    /// The first time (a library from before objects were linked), every paper is
    /// scanned for the objects it names.
    async fn scan_objects(&self) -> Result<(), asterism_store::StoreError> {
        if self.store.index_state(SCANNED).await?.is_none() {
            for paper in self.store.library_papers(&PaperFilter::default()).await? {
                self.link_paper(&paper.id, false).await?;
            }
            self.store.set_index_state(SCANNED, "1").await?;
        }
        Ok(())
    }

    /// Papers about objects within `radius_arcmin` of `name` (resolved through Sesame).
    pub async fn objects_near(
        &self,
        name: &str,
        radius_arcmin: f64,
    ) -> Result<NearbyObjects, NearError> {
        let targets = self
            .targets
            .as_ref()
            .ok_or_else(|| NearError::Invalid("no name resolver is configured".into()))?;
        let center = match targets.resolve(name).await {
            Ok(found) => found.target,
            Err(source @ crate::sources::sesame::SesameError::NotFound(_)) => {
                return Err(NearError::UnknownName {
                    name: name.to_string(),
                    source,
                });
            }
            Err(source) => {
                return Err(NearError::Resolver {
                    name: name.to_string(),
                    source,
                });
            }
        };
        let objects = self.objects().await?;
        let mut nearby: Vec<NearbyObject> = objects
            .into_iter()
            .filter_map(|object| {
                let (ra, dec) = (object.ra_deg?, object.dec_deg?);
                let separation_arcmin =
                    separation_deg(center.ra_deg, center.dec_deg, ra, dec) * 60.0;
                (separation_arcmin <= radius_arcmin).then_some(NearbyObject {
                    object,
                    separation_arcmin,
                })
            })
            .collect();
        nearby.sort_by(|a, b| a.separation_arcmin.total_cmp(&b.separation_arcmin));
        Ok(NearbyObjects {
            center,
            radius_arcmin,
            objects: nearby,
        })
    }
}

/// Links grouped into objects: one per resolved identifier (so "NGC 4258" and "M 106"
/// are one object), or per name while unresolved.
fn group(
    linked: Vec<LinkedObject>,
    papers: &BTreeMap<String, asterism_store::LibraryPaper>,
) -> Vec<LibraryObject> {
    let mut objects: BTreeMap<String, LibraryObject> = BTreeMap::new();
    for link in linked {
        let key = link
            .target
            .as_ref()
            .map(|t| format!("resolved:{}", t.name))
            .unwrap_or_else(|| format!("name:{}", link.query_key));
        let object = objects.entry(key).or_insert_with(|| LibraryObject {
            name: link.name.clone(),
            resolved_name: link.target.as_ref().map(|t| t.name.clone()),
            ra_deg: link.target.as_ref().map(|t| t.ra_deg),
            dec_deg: link.target.as_ref().map(|t| t.dec_deg),
            ra_sexagesimal: link.target.as_ref().map(|t| t.ra_sexagesimal.clone()),
            dec_sexagesimal: link.target.as_ref().map(|t| t.dec_sexagesimal.clone()),
            object_type: link.target.as_ref().and_then(|t| t.object_type.clone()),
            object_type_label: link
                .target
                .as_ref()
                .and_then(|t| t.object_type_label.clone()),
            morphology: link.target.as_ref().and_then(|t| t.morphology.clone()),
            redshift: link.target.as_ref().and_then(|t| t.redshift),
            velocity_kms: link.target.as_ref().and_then(|t| t.velocity_kms),
            papers: Vec::new(),
        });
        let Some(paper) = papers.get(&link.paper_id) else {
            continue;
        };
        if !object.papers.iter().any(|p| p.id == paper.id) {
            object.papers.push(ObjectPaper {
                id: paper.id.clone(),
                title: paper.title.clone(),
                first_author: paper.authors.first().cloned(),
                year: paper.year,
                found_in: link.source.clone(),
            });
        }
    }
    let mut objects: Vec<LibraryObject> = objects.into_values().collect();
    objects.sort_by(|a, b| {
        b.papers
            .len()
            .cmp(&a.papers.len())
            .then(a.name.cmp(&b.name))
    });
    objects
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(title: &str, abstract_text: &str, keywords: &[&str]) -> PaperRecord {
        PaperRecord {
            title: title.into(),
            abstract_text: Some(abstract_text.into()),
            keywords: keywords.iter().map(|k| k.to_string()).collect(),
            ..PaperRecord::default()
        }
    }

    #[test]
    fn names_come_from_keywords_title_and_abstract_once_each() {
        let paper = record(
            "A 38 Million Year Old Neptune-sized Planet in the Kepler Field",
            "Kepler 1627Ab orbits a member of the δ Lyr cluster. We compare it with \
             NGC 4258 (M106), M87 and HD 209458; SN 2011fe is unrelated. 10^9 M_sun, \
             ionized hydrogen and HII regions are not objects.",
            &[
                "galaxies: individual: NGC 4258",
                "stars: individual (Kepler-1627)",
                "methods: numerical",
            ],
        );
        let found = find_objects(&paper);
        let names: Vec<(&str, &str)> = found.iter().map(|f| (f.name.as_str(), f.source)).collect();
        assert_eq!(
            names,
            [
                ("NGC 4258", "keyword"),
                ("Kepler-1627", "keyword"),
                ("M 106", "abstract"),
                ("M 87", "abstract"),
                ("HD 209458", "abstract"),
                ("SN 2011fe", "abstract"),
            ]
        );
    }

    #[test]
    fn radii_and_separations() {
        assert_eq!(parse_radius("30arcmin").ok(), Some(30.0));
        assert_eq!(parse_radius("0.5deg").ok(), Some(30.0));
        assert_eq!(parse_radius("90arcsec").ok(), Some(1.5));
        assert_eq!(parse_radius("12'").ok(), Some(12.0));
        assert_eq!(parse_radius("7").ok(), Some(7.0));
        // A bad radius is the asker's mistake, not a failing service.
        for bad in ["-3arcmin", "far", "NaN"] {
            assert!(
                matches!(parse_radius(bad), Err(NearError::Invalid(_))),
                "{bad}"
            );
        }
        // NGC 4258 to NGC 4248: about 14.4 arcmin.
        let sep = separation_deg(184.7400833, 47.3037222, 184.4227, 47.4097) * 60.0;
        assert!((sep - 14.4).abs() < 0.1, "{sep}");
        assert!(separation_deg(10.0, 89.9999, 190.0, 89.9999) < 0.001);
    }
}
