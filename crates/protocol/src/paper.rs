use serde::{Deserialize, Serialize};
use specta::Type;

/// Where a paper stands in the local library.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct LocalStatus {
    pub in_library: bool,
    pub downloaded: bool,
    pub parsed: bool,
}

/// A paper as the search services and the library describe it. Preprint and published
/// versions of one paper are one record carrying both identifiers.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct PaperRecord {
    /// ADS bibcode of the published version (or of the e-print when unpublished).
    pub bibcode: Option<String>,
    /// arXiv identifier without version, e.g. `1202.3665` or `astro-ph/0601001`.
    pub arxiv_id: Option<String>,
    /// The latest arXiv version seen, e.g. 2 for `v2`.
    pub arxiv_version: Option<i32>,
    pub doi: Option<String>,
    pub title: String,
    /// "Last, First" as ADS writes them, or as arXiv gives them.
    pub authors: Vec<String>,
    /// Affiliations per author, when the source gives them.
    pub affiliations: Vec<String>,
    pub year: Option<i32>,
    /// Journal or publication ("The Astrophysical Journal", "arXiv e-prints").
    pub journal: Option<String>,
    pub volume: Option<String>,
    pub page: Option<String>,
    #[serde(rename = "abstract")]
    pub abstract_text: Option<String>,
    pub keywords: Vec<String>,
    /// arXiv categories, primary first.
    pub categories: Vec<String>,
    pub citation_count: Option<i32>,
    /// Publication date as the source gives it (ISO date or `YYYY-MM-00`).
    pub published: Option<String>,
    /// Which services described it (`ads`, `arxiv`).
    pub sources: Vec<String>,
    pub local: LocalStatus,
}
