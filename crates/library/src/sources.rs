//! Clients of the external services.

pub mod ads;
pub mod arxiv;
pub mod crossref;
pub mod sesame;
