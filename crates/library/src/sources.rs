//! Clients of the external services.

pub mod sesame;
