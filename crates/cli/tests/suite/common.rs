//! What several suites share.

use std::path::Path;
use std::process::{Command, Output};

/// `asterism ARGS` run in `home` as an offline user there: a clean environment, the
/// data folder `home/data`, no keyring, no embedding model, no name resolver.
pub fn offline(home: &Path, args: &[&str]) -> Output {
    offline_with(home, args, &[])
}

/// `offline` with more variables (a service's URL on loopback, a token).
pub fn offline_with(home: &Path, args: &[&str], variables: &[(&str, &str)]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_asterism"))
        .args(args)
        .current_dir(home)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", home)
        .env("ASTERISM_DATA_DIR", home.join("data"))
        .env("ASTERISM_KEYRING", "off")
        .env("EMBEDDINGS", "none")
        // Nothing listens there: names are not resolved, at once.
        .env("SESAME_URL", "http://127.0.0.1:9/sesame")
        .envs(variables.iter().copied())
        .output()
        .unwrap()
}

/// The JSON a successful `offline` run printed.
pub fn offline_json(home: &Path, args: &[&str]) -> serde_json::Value {
    let output = offline(home, args);
    assert!(output.status.success(), "{args:?}: {output:?}");
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|error| panic!("{args:?} printed no JSON ({error}): {output:?}"))
}
