//! `file_write` and `file_edit`: atomic writes inside the sandbox, with a diff for the UI.

use std::path::Path;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;

use crate::{ToolContext, ToolOutput, TypedTool};

/// A unified diff of a change, for the timeline.
pub(crate) fn unified_diff(path: &str, before: &str, after: &str) -> String {
    similar::TextDiff::from_lines(before, after)
        .unified_diff()
        .context_radius(3)
        .header(path, path)
        .to_string()
}

/// Writes `content` to `path` through a temporary file in the same folder and a rename,
/// so a reader never sees half a file.
pub(crate) async fn write_atomically(path: &Path, content: &str) -> std::io::Result<()> {
    let name = path
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default();
    let temporary = path.with_file_name(format!(".{name}.asterism-{}.tmp", uuid::Uuid::new_v4()));
    tokio::fs::write(&temporary, content).await?;
    if let Ok(metadata) = tokio::fs::metadata(path).await {
        // Keep the file's permissions.
        let _ = tokio::fs::set_permissions(&temporary, metadata.permissions()).await;
    }
    match tokio::fs::rename(&temporary, path).await {
        Ok(()) => Ok(()),
        Err(error) => {
            let _ = tokio::fs::remove_file(&temporary).await;
            Err(error)
        }
    }
}

/// The text of a file about to be replaced or edited: opened as the readers open it
/// (no link at its end, no FIFO or device, at most [`super::MAX_READ_BYTES`]).
async fn read_text(
    sandbox: &crate::security::Sandbox,
    path: &Path,
    shown: &str,
) -> Result<String, String> {
    let (sandbox, path, name) = (sandbox.clone(), path.to_path_buf(), shown.to_string());
    let read = tokio::task::spawn_blocking(move || {
        super::read_confined(&sandbox, &name, &path, super::MAX_READ_BYTES)
    })
    .await
    .map_err(|error| format!("cannot read {shown}: {error}"))??;
    if read.cut {
        return Err(format!(
            "{shown} is larger than {} MB",
            super::MAX_READ_BYTES >> 20
        ));
    }
    if super::looks_binary(&read.bytes) {
        return Err(format!("{shown} is a binary file"));
    }
    String::from_utf8(read.bytes).map_err(|_| format!("{shown} is not UTF-8 text"))
}

/// Why writing the call's `path` can make code run later (asked every time), if it can.
fn code_running_target(
    arguments: &serde_json::Value,
    sandbox: &crate::security::Sandbox,
) -> Option<String> {
    let path = arguments.get("path")?.as_str()?;
    let target = sandbox.resolve_for_write(path).ok()?;
    crate::security::files::runs_code_later(&target, sandbox.skills())
        .map(|why| format!("writing {path} can make code run later: {why}"))
}

/// Write a file.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FileWriteArgs {
    /// A path in the workspace, the library or the skills folder (its folder must exist).
    pub path: String,
    /// The whole new content.
    pub content: String,
}

pub struct FileWriteTool;

#[async_trait]
impl TypedTool for FileWriteTool {
    type Args = FileWriteArgs;
    const NAME: &'static str = "file_write";
    const DESCRIPTION: &'static str = "Create or overwrite a text file in the workspace, the library or the skills \
        folder (atomically). To change part of a file prefer file_edit.";
    const INTERRUPT: crate::InterruptBehavior = crate::InterruptBehavior::Block;

    fn always_ask(
        &self,
        arguments: &serde_json::Value,
        sandbox: &crate::security::Sandbox,
    ) -> Option<String> {
        code_running_target(arguments, sandbox)
    }

    async fn run(&self, args: FileWriteArgs, context: &ToolContext) -> ToolOutput {
        let sandbox = context.sandbox();
        let path = match sandbox.resolve_for_write(&args.path) {
            Ok(path) => path,
            Err(error) => return ToolOutput::error(error.to_string()),
        };
        if path.is_dir() {
            return ToolOutput::error(format!("{} is a folder", args.path));
        }
        let shown = super::shown(&path, sandbox.roots());
        let before = if path.exists() {
            match read_text(&sandbox, &path, &shown).await {
                Ok(text) => Some(text),
                Err(error) => return ToolOutput::error(format!("{error}; not overwritten")),
            }
        } else {
            None
        };
        if let Err(error) = write_atomically(&path, &args.content).await {
            return ToolOutput::error(format!("cannot write {shown}: {error}"));
        }
        let lines = args.content.lines().count();
        let text = match &before {
            Some(_) => format!("Overwrote {shown} ({lines} lines)."),
            None => format!("Created {shown} ({lines} lines)."),
        };
        ToolOutput::ok(text).with_metadata(serde_json::json!({
            "path": shown,
            "created": before.is_none(),
            "bytes": args.content.len(),
            "diff": unified_diff(&shown, before.as_deref().unwrap_or(""), &args.content),
        }))
    }
}

/// Replace text in a file.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FileEditArgs {
    pub path: String,
    /// The exact text to replace (with enough context to be unique).
    pub old_string: String,
    /// What replaces it.
    pub new_string: String,
    /// Replace every occurrence instead of requiring exactly one.
    #[serde(default)]
    pub replace_all: bool,
}

pub struct FileEditTool;

#[async_trait]
impl TypedTool for FileEditTool {
    type Args = FileEditArgs;
    const NAME: &'static str = "file_edit";
    const DESCRIPTION: &'static str = "Replace an exact piece of text in a file. old_string must occur exactly \
        once (include surrounding lines to make it unique) unless replace_all is true. Answers with a diff.";
    const INTERRUPT: crate::InterruptBehavior = crate::InterruptBehavior::Block;

    fn always_ask(
        &self,
        arguments: &serde_json::Value,
        sandbox: &crate::security::Sandbox,
    ) -> Option<String> {
        code_running_target(arguments, sandbox)
    }

    async fn run(&self, args: FileEditArgs, context: &ToolContext) -> ToolOutput {
        if args.old_string.is_empty() {
            return ToolOutput::error("old_string is empty; use file_write to create a file");
        }
        if args.old_string == args.new_string {
            return ToolOutput::error("old_string and new_string are the same; nothing to do");
        }
        let sandbox = context.sandbox();
        let path = match sandbox.resolve(&args.path) {
            Ok(path) => path,
            Err(error) => return ToolOutput::error(error.to_string()),
        };
        let shown = super::shown(&path, sandbox.roots());
        let before = match read_text(&sandbox, &path, &shown).await {
            Ok(text) => text,
            Err(error) => return ToolOutput::error(error),
        };
        let count = before.matches(&args.old_string).count();
        let after = match (count, args.replace_all) {
            (0, _) => {
                return ToolOutput::error(format!(
                    "old_string was not found in {shown}; read the file again and copy the text exactly"
                ));
            }
            (1, _) | (_, true) => before.replace(&args.old_string, &args.new_string),
            (n, false) => {
                return ToolOutput::error(format!(
                    "old_string occurs {n} times in {shown}; add surrounding lines to make it unique, or set replace_all"
                ));
            }
        };
        if let Err(error) = write_atomically(&path, &after).await {
            return ToolOutput::error(format!("cannot write {shown}: {error}"));
        }
        let diff = unified_diff(&shown, &before, &after);
        ToolOutput::ok(format!(
            "Replaced {count} occurrence{} in {shown}.\n{diff}",
            if count == 1 { "" } else { "s" }
        ))
        .with_metadata(serde_json::json!({"path": shown, "replacements": count, "diff": diff}))
    }
}
