//! How `serde_json::Value` fields appear in the TypeScript bindings.

use std::collections::HashMap;

use serde::Serialize;
use specta::Type;

/// Any JSON value. Only a description for the bindings (fields holding arbitrary JSON
/// are `serde_json::Value` in Rust and say `#[specta(type = JsonValue)]`): specta's own
/// mapping of `serde_json::Value` goes through 64-bit integers, which the TypeScript
/// exporter rightly refuses.
#[derive(Serialize, Type)]
#[serde(untagged)]
#[allow(dead_code)]
pub enum JsonValue {
    Null,
    Bool(bool),
    Number(f64),
    String(String),
    Array(Vec<JsonValue>),
    Object(HashMap<String, JsonValue>),
}
