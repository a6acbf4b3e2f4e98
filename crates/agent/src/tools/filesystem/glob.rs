//! `glob_files`: files whose path matches a glob, .gitignore respected.

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;

use crate::{ToolContext, ToolOutput, TypedTool};

/// At most this many paths are listed.
const MAX_RESULTS: usize = 200;

/// Find files.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GlobFilesArgs {
    /// A glob over paths relative to `path`: "**/*.tex", "data/*.fits".
    pub pattern: String,
    /// The folder to search (default: the workspace).
    pub path: Option<String>,
}

pub struct GlobFilesTool;

#[async_trait]
impl TypedTool for GlobFilesTool {
    type Args = GlobFilesArgs;
    const NAME: &'static str = "glob_files";
    const DESCRIPTION: &'static str = "List files matching a glob (\"**/*.tex\", \"figures/*.pdf\") under a folder of \
        the workspace, the library or the skills folder; .gitignore'd and hidden files are skipped.";
    const CONCURRENCY_SAFE: bool = true;

    async fn run(&self, args: GlobFilesArgs, context: &ToolContext) -> ToolOutput {
        let sandbox = context.sandbox();
        let base = match sandbox.resolve(args.path.as_deref().unwrap_or(".")) {
            Ok(base) => base,
            Err(error) => return ToolOutput::error(error.to_string()),
        };
        let matcher = match globset::Glob::new(&args.pattern) {
            Ok(glob) => glob.compile_matcher(),
            Err(error) => {
                return ToolOutput::error(format!("bad glob {:?}: {error}", args.pattern));
            }
        };
        let cancel = context.cancel.clone();
        let roots = sandbox.roots().to_vec();
        let sandbox = sandbox.clone();
        let found = tokio::task::spawn_blocking(move || {
            let mut found = Vec::new();
            let mut more = false;
            let mut withheld = 0usize;
            for entry in ignore::WalkBuilder::new(&base).build().flatten() {
                if cancel.is_cancelled() {
                    break;
                }
                let path = entry.path();
                if !entry.file_type().is_some_and(|kind| kind.is_file()) {
                    continue;
                }
                let Ok(relative) = path.strip_prefix(&base) else {
                    continue;
                };
                if matcher.is_match(relative) {
                    if !sandbox.may_touch(path) {
                        withheld += 1;
                        continue;
                    }
                    if found.len() == MAX_RESULTS {
                        more = true;
                        break;
                    }
                    found.push(super::shown(path, &roots));
                }
            }
            found.sort();
            (found, more, withheld)
        })
        .await;
        let Ok((found, more, withheld)) = found else {
            return ToolOutput::error("the search stopped unexpectedly");
        };
        let mut text = if found.is_empty() {
            format!("No file matches {:?}.", args.pattern)
        } else {
            found.join("\n")
        };
        if more {
            text.push_str(&format!(
                "\n[only the first {MAX_RESULTS}; narrow the pattern]"
            ));
        }
        if withheld > 0 {
            text.push_str(&format!(
                "\n[{withheld} matching file(s) not listed: they may hold secrets]"
            ));
        }
        ToolOutput::ok(text).with_metadata(
            serde_json::json!({"count": found.len(), "truncated": more, "withheld": withheld}),
        )
    }
}
