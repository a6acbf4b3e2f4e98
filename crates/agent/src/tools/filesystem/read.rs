//! `read_file`: lines of a text file, numbered; an unchanged file read again with the
//! same range answers with a short stub instead of the same text.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;

use crate::{ToolContext, ToolOutput, TypedTool};

/// What an unchanged file read again returns.
pub const FILE_UNCHANGED_STUB: &str = "[file unchanged since it was last read with the same range; the earlier content above is still current]";

/// Lines returned unless asked otherwise, and the longest line kept whole.
const DEFAULT_LIMIT: usize = 2000;
const MAX_LINE_CHARS: usize = 2000;

type Key = (String, PathBuf, usize, usize);

/// Per session: which file ranges were returned, at which modification time and size.
#[derive(Debug, Clone, Default)]
pub struct FileStateCache {
    seen: Arc<Mutex<HashMap<Key, (SystemTime, u64)>>>,
}

impl FileStateCache {
    /// Records a read; true when the same range of the same unchanged file was already
    /// returned in this session.
    fn check_and_record(&self, key: Key, stamp: (SystemTime, u64)) -> bool {
        let Ok(mut seen) = self.seen.lock() else {
            return false;
        };
        seen.insert(key, stamp) == Some(stamp)
    }

    /// Forgets a session's reads (after compaction the text is no longer in context).
    pub fn forget_session(&self, session_id: &str) {
        if let Ok(mut seen) = self.seen.lock() {
            seen.retain(|(session, ..), _| session != session_id);
        }
    }
}

/// Read a file.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadFileArgs {
    /// A path relative to the workspace, or inside the library, the skills folder or the
    /// session's tool-output folder.
    pub path: String,
    /// The first line to return (1-based; default 1).
    pub offset: Option<usize>,
    /// How many lines (default 2000).
    pub limit: Option<usize>,
}

pub struct ReadFileTool;

#[async_trait]
impl TypedTool for ReadFileTool {
    type Args = ReadFileArgs;
    const NAME: &'static str = "read_file";
    const DESCRIPTION: &'static str = "Read a text file inside the workspace, the library, the skills folder or this session's \
        tool-output folder (where long tool output is kept),
        as numbered lines (offset/limit for a range). Reading the same range of an unchanged file again \
        returns a short note instead. For papers use get_paper_content.";
    const CONCURRENCY_SAFE: bool = true;

    async fn run(&self, args: ReadFileArgs, context: &ToolContext) -> ToolOutput {
        let sandbox = context.sandbox();
        let path = match sandbox.resolve(&args.path) {
            Ok(path) => path,
            Err(error) => return ToolOutput::error(error.to_string()),
        };
        if path.is_dir() {
            return ToolOutput::error(format!(
                "{} is a folder; use glob_files to list it",
                args.path
            ));
        }
        let offset = args.offset.unwrap_or(1).max(1);
        let limit = args.limit.unwrap_or(DEFAULT_LIMIT).max(1);
        let read = {
            let (path, shown, sandbox) = (path.clone(), args.path.clone(), sandbox.clone());
            tokio::task::spawn_blocking(move || {
                super::read_confined(&sandbox, &shown, &path, super::MAX_READ_BYTES)
            })
            .await
        };
        let super::Read {
            bytes,
            metadata,
            cut,
        } = match read {
            Ok(Ok(read)) => read,
            Ok(Err(error)) => return ToolOutput::error(error),
            Err(error) => return ToolOutput::error(format!("cannot read {}: {error}", args.path)),
        };
        if bytes.starts_with(b"%PDF") {
            return ToolOutput::error(format!(
                "{} is a PDF; parse it (asterism papers parse, or parse_paper for library papers)",
                args.path
            ));
        }
        if super::looks_binary(&bytes) {
            return ToolOutput::error(format!("{} is a binary file", args.path));
        }
        if crate::security::files::holds_private_key(&bytes) {
            return ToolOutput::error(
                crate::security::PathError::Secret(args.path.clone(), "it holds a private key")
                    .to_string(),
            );
        }
        let stamp = (
            metadata.modified().unwrap_or(SystemTime::UNIX_EPOCH),
            metadata.len(),
        );
        let key = (context.session_id.clone(), path.clone(), offset, limit);
        if context.services.file_state.check_and_record(key, stamp) {
            return ToolOutput::ok(FILE_UNCHANGED_STUB)
                .with_metadata(serde_json::json!({"unchanged": true}));
        }
        let text = String::from_utf8_lossy(&bytes);
        let total = text.lines().count();
        let mut out = String::new();
        for (index, line) in text.lines().enumerate().skip(offset - 1).take(limit) {
            let line: String = if line.chars().count() > MAX_LINE_CHARS {
                line.chars()
                    .take(MAX_LINE_CHARS)
                    .chain("…".chars())
                    .collect()
            } else {
                line.to_string()
            };
            out.push_str(&format!("{:>6}\t{line}\n", index + 1));
        }
        let last = (offset - 1).saturating_add(limit).min(total);
        if cut {
            out.push_str(&format!(
                "[the file is {} MB: only its first {} MB ({total} lines) are read; use run_bash (sed -n, tail) for the rest]\n",
                metadata.len() >> 20,
                super::MAX_READ_BYTES >> 20
            ));
        }
        if out.is_empty() {
            out = format!("(the file has {total} lines; nothing from line {offset})");
        } else if last < total {
            out.push_str(&format!(
                "[lines {offset}–{last} of {total}; continue with offset {}]",
                last + 1
            ));
        }
        ToolOutput::ok(out).with_metadata(serde_json::json!({
            "path": super::shown(&path, sandbox.roots()),
            "totalLines": total,
        }))
    }
}
