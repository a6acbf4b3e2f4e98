//! The astronomy domain of Asterism, without any agent: name resolution through CDS
//! Sesame (and, as later issues land, ADS, arXiv, downloads, parsing and the library).

pub mod download;
pub mod http;
pub mod library;
pub mod news;
pub mod papers;
pub mod parse;
pub mod parts;
pub mod sources;
pub mod targets;

pub use sources::sesame::{SesameClient, SesameError, parse_sesame};
pub use targets::{TargetLookup, TargetService};
