//! The `asterism` binary against the scripted model and the Sesame fixture server.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod suite {
    mod ads_libraries;
    mod ask;
    mod common;
    mod doctor;
    mod figures;
    mod foreign_import;
    mod interrupted_import;
    mod library_cli;
    mod mcp;
    mod news;
    mod papers;
    mod real_model;
    mod robust;
    mod security;
    mod sessions;
    mod upgrade;
    mod zotero_genuine;
    mod zotero_import;
}
