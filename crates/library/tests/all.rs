//! The literature services against loopback servers serving recorded answers.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod suite {
    mod ads;
    mod ads_properties;
    mod arxiv;
    mod atom_properties;
    mod download;
    mod figures;
    mod identify;
    mod keywords;
    mod library;
    mod local_model;
    mod metadata;
    mod metadata_truth;
    mod mutate;
    mod parse;
    mod search;
    mod sesame_properties;
    mod vector_recall;
}
