use serde::{Deserialize, Serialize};
use specta::Type;

/// One resolver's answer inside a Sesame response (Simbad, NED or VizieR).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct TargetResolver {
    /// `Simbad`, `NED` or `VizieR`.
    pub name: String,
    pub ra_deg: f64,
    pub dec_deg: f64,
    /// Object type code as the resolver gave it (`LIN`, `G`, `**`, …).
    pub object_type: Option<String>,
}

/// A sky object resolved by name through CDS Sesame.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct ResolvedTarget {
    /// The name the user asked for.
    pub query: String,
    /// The resolver's main identifier (e.g. `M 106` for "NGC 4258").
    pub name: String,
    /// ICRS J2000 right ascension in degrees.
    pub ra_deg: f64,
    /// ICRS J2000 declination in degrees.
    pub dec_deg: f64,
    /// Right ascension as `hh:mm:ss.ss`.
    pub ra_sexagesimal: String,
    /// Declination as `±dd:mm:ss.s`.
    pub dec_sexagesimal: String,
    /// Object type code of the answering resolver (`LIN`, `G`, …).
    pub object_type: Option<String>,
    /// The same type in words ("LINER-type active galaxy nucleus").
    pub object_type_label: Option<String>,
    /// Morphological type when given (NED's `SAB(s)bc;LINER`).
    pub morphology: Option<String>,
    /// Redshift when given.
    pub redshift: Option<f64>,
    /// Radial velocity in km/s when given.
    pub velocity_kms: Option<f64>,
    /// Other names of the object, de-duplicated, in the resolver's order.
    pub aliases: Vec<String>,
    /// Which resolver's position is reported (`Simbad`, `NED` or `VizieR`).
    pub resolver: String,
    /// Every resolver that answered, for comparison.
    pub resolvers: Vec<TargetResolver>,
    /// Number of bibliographic references Simbad lists, when given.
    pub reference_count: Option<i32>,
}
