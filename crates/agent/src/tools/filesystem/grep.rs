//! `grep_files`: lines matching a regular expression, .gitignore respected.

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;

use crate::{ToolContext, ToolOutput, TypedTool};

/// Longest line shown, in characters.
const MAX_LINE_CHARS: usize = 300;

/// Search file contents.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GrepFilesArgs {
    /// A regular expression (Rust syntax): "H_?0\\s*=", "TRGB|tip of the red giant".
    pub pattern: String,
    /// The folder or file to search (default: the workspace).
    pub path: Option<String>,
    /// Only files whose path matches this glob ("**/*.tex").
    pub glob: Option<String>,
    #[serde(default)]
    pub case_insensitive: bool,
    /// At most this many matching lines (default 100).
    pub max_results: Option<usize>,
}

pub struct GrepFilesTool;

#[async_trait]
impl TypedTool for GrepFilesTool {
    type Args = GrepFilesArgs;
    const NAME: &'static str = "grep_files";
    const DESCRIPTION: &'static str = "Search text files under a folder of the workspace, the library or the skills \
        folder for a regular expression; answers path:line: text. Binary, hidden and .gitignore'd files are \
        skipped.";
    const CONCURRENCY_SAFE: bool = true;

    async fn run(&self, args: GrepFilesArgs, context: &ToolContext) -> ToolOutput {
        let sandbox = context.sandbox();
        let base = match sandbox.resolve(args.path.as_deref().unwrap_or(".")) {
            Ok(base) => base,
            Err(error) => return ToolOutput::error(error.to_string()),
        };
        let regex = match regex::RegexBuilder::new(&args.pattern)
            .case_insensitive(args.case_insensitive)
            .size_limit(1 << 20)
            .build()
        {
            Ok(regex) => regex,
            Err(error) => return ToolOutput::error(format!("bad pattern: {error}")),
        };
        let filter = match args.glob.as_deref().map(globset::Glob::new).transpose() {
            Ok(glob) => glob.map(|glob| glob.compile_matcher()),
            Err(error) => return ToolOutput::error(format!("bad glob: {error}")),
        };
        let max = args.max_results.unwrap_or(100).clamp(1, 1000);
        let cancel = context.cancel.clone();
        let sandbox = sandbox.clone();
        let found = tokio::task::spawn_blocking(move || {
            search(&base, filter.as_ref(), &regex, max, &sandbox, &cancel)
        })
        .await;
        let Ok((hits, more, withheld, too_big)) = found else {
            return ToolOutput::error("the search stopped unexpectedly");
        };
        let mut text = if hits.is_empty() {
            format!("No line matches {:?}.", args.pattern)
        } else {
            hits.join("\n")
        };
        if more {
            text.push_str(&format!("\n[stopped at {max} matches; narrow the search]"));
        }
        if withheld > 0 {
            text.push_str(&format!(
                "\n[{withheld} file(s) not searched: they may hold secrets]"
            ));
        }
        if too_big > 0 {
            text.push_str(&format!(
                "\n[{too_big} file(s) larger than {} MB not searched]",
                super::MAX_READ_BYTES >> 20
            ));
        }
        ToolOutput::ok(text).with_metadata(serde_json::json!({
            "count": hits.len(), "truncated": more, "withheld": withheld, "tooBig": too_big
        }))
    }
}

/// Walks `base` (hidden and .gitignore'd files skipped) for lines `regex` matches, at
/// most `max`: the hits as `path:line: text`, whether there were more, how many files
/// were withheld (outside what the sandbox lets it touch, or holding a private key) and
/// how many were too big to read.
fn search(
    base: &std::path::Path,
    filter: Option<&globset::GlobMatcher>,
    regex: &regex::Regex,
    max: usize,
    sandbox: &crate::security::Sandbox,
    cancel: &tokio_util::sync::CancellationToken,
) -> (Vec<String>, bool, usize, usize) {
    let roots = sandbox.roots();
    let mut hits = Vec::new();
    let mut more = false;
    let mut withheld = 0usize;
    let mut too_big = 0usize;
    'files: for entry in ignore::WalkBuilder::new(base).build().flatten() {
        if cancel.is_cancelled() {
            break;
        }
        let path = entry.path();
        if !entry.file_type().is_some_and(|kind| kind.is_file()) {
            continue;
        }
        if let Some(filter) = filter
            && !path
                .strip_prefix(base)
                .is_ok_and(|relative| filter.is_match(relative))
        {
            continue;
        }
        if !sandbox.may_touch(path) {
            withheld += 1;
            continue;
        }
        let Ok(read) = super::read_confined(sandbox, "", path, super::MAX_READ_BYTES) else {
            continue;
        };
        if read.cut {
            too_big += 1;
            continue;
        }
        let bytes = read.bytes;
        if super::looks_binary(&bytes) || bytes.starts_with(b"%PDF") {
            continue;
        }
        if crate::security::files::holds_private_key(&bytes) {
            withheld += 1;
            continue;
        }
        let text = String::from_utf8_lossy(&bytes);
        for (index, line) in text.lines().enumerate() {
            if regex.is_match(line) {
                if hits.len() == max {
                    more = true;
                    break 'files;
                }
                let line: String = line.trim().chars().take(MAX_LINE_CHARS).collect();
                hits.push(format!(
                    "{}:{}: {line}",
                    super::shown(path, roots),
                    index + 1
                ));
            }
        }
    }
    (hits, more, withheld, too_big)
}
