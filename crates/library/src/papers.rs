//! Papers: search across ADS and arXiv, merged into one list; metadata by any id.

pub mod bibtex;
pub mod graph;
mod merge;
mod search;

pub use merge::{merge_papers, title_key};
pub use search::{LookupError, PaperId, PaperSearch, SearchOutcome};
