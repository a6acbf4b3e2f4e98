//! The agent end to end at the wire: a scripted model and recorded Sesame answers on
//! loopback, a real SQLite file.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod suite {
    mod common;
    mod compaction;
    mod executor;
    mod failures;
    mod figures;
    mod filesystem;
    mod hooks;
    mod library;
    mod limits;
    mod orchestration;
    mod papers;
    mod permissions;
    mod query_target;
    mod replay;
    mod resilience;
    mod security;
    mod shell_trust;
}
