//! The agent end to end at the wire: a scripted model and recorded Sesame answers on
//! loopback, a real SQLite file.

mod suite {
    mod common;
    mod failures;
    mod query_target;
}
