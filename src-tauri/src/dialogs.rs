//! Native dialogs, opened by the Rust side. A command that reads or writes a file the
//! user names takes the path from the dialog's answer, never from the webview, so a
//! script injected into the page (say through a model's answer) cannot make the app
//! read or write where it likes. Paths dropped on the window or typed into the
//! Library's path field are confirmed in a native message box first, unless they lie
//! inside the data directory.
//!
//! Test hook: when `ASTERISM_E2E_DIALOG_ANSWERS` names a file at startup, no dialog is
//! shown and each one takes the first line of that file as its answer (the native
//! end-to-end test cannot click GTK dialogs). A line is one JSON value: the paths chosen
//! (`["/a.pdf", "/b"]`; save and folder dialogs take the first), `null` for a cancelled
//! dialog, or `true`/`false` for a message box's confirm/cancel. The variable is read
//! only at startup; whoever can set it could start any program anyway.

use std::path::{Path, PathBuf};
use std::sync::RwLock;

use serde::Deserialize;
use specta::Type;
use tauri::State;
use tauri::WebviewWindow;
use tauri_plugin_dialog::{DialogExt, FilePath, MessageDialogButtons, MessageDialogKind};
use tokio::sync::{Mutex, oneshot};

use crate::error::{AppError, AppErrorKind};

/// The environment variable of the test hook.
pub const ANSWERS_VARIABLE: &str = "ASTERISM_E2E_DIALOG_ANSWERS";

/// The language of the UI, which the native dialogs speak too.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Type)]
#[serde(rename_all = "camelCase")]
pub enum UiLanguage {
    #[default]
    En,
    Zh,
}

/// The words a dialog shows, in each UI language.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phrase {
    ExportSession,
    ImportSession,
    SessionBundle,
    ImportFiles,
    ImportFolder,
    ExportBib,
    Pdf,
    BibTex,
    ChooseWorkspace,
    ConfirmImportTitle,
    Import,
    ConfirmKeyTitle,
    SaveAndSend,
    OpenLinkTitle,
    OpenLink,
    ConfirmMcpTitle,
    AddServer,
    ConfirmGrantTitle,
    Allow,
    ConfirmSettingsTitle,
    Save,
    ConfirmRemoveTitle,
    Remove,
    Cancel,
}

impl Phrase {
    pub fn text(self, language: UiLanguage) -> &'static str {
        use Phrase::*;
        use UiLanguage::*;
        match (self, language) {
            (ExportSession, En) => "Export the session",
            (ExportSession, Zh) => "导出会话",
            (ImportSession, En) => "Import a session bundle",
            (ImportSession, Zh) => "导入会话包",
            (SessionBundle, En) => "Asterism session",
            (SessionBundle, Zh) => "Asterism 会话",
            (ImportFiles, En) => "Import PDFs or a library (.bib, CSL-JSON, zotero.sqlite)",
            (ImportFiles, Zh) => "导入 PDF 或文献库（.bib、CSL-JSON、zotero.sqlite）",
            (ImportFolder, En) => "Import a folder",
            (ImportFolder, Zh) => "导入文件夹",
            (ExportBib, En) => "Export BibTeX",
            (ExportBib, Zh) => "导出 BibTeX",
            (Pdf, En) => "PDF, BibTeX, CSL-JSON, Zotero",
            (Pdf, Zh) => "PDF、BibTeX、CSL-JSON、Zotero",
            (BibTex, _) => "BibTeX",
            (ChooseWorkspace, En) => "Choose the agent's workspace folder",
            (ChooseWorkspace, Zh) => "选择助手的工作区文件夹",
            (ConfirmImportTitle, En) => "Import into the library?",
            (ConfirmImportTitle, Zh) => "导入文献库？",
            (Import, En) => "Import",
            (Import, Zh) => "导入",
            (ConfirmKeyTitle, En) => "Send your API key to a new address?",
            (ConfirmKeyTitle, Zh) => "将 API 密钥发送到新地址？",
            (ConfirmRemoveTitle, En) => "Remove papers from an ADS library?",
            (ConfirmRemoveTitle, Zh) => "从 ADS 文献库移除论文？",
            (Remove, En) => "Push and remove",
            (Remove, Zh) => "推送并移除",
            (SaveAndSend, En) => "Save and send",
            (SaveAndSend, Zh) => "保存并发送",
            (OpenLinkTitle, En) => "Open this link in your browser?",
            (OpenLinkTitle, Zh) => "在浏览器中打开此链接？",
            (OpenLink, En) => "Open",
            (OpenLink, Zh) => "打开",
            (ConfirmMcpTitle, En) => "Let the agent use this MCP server?",
            (ConfirmMcpTitle, Zh) => "允许助手使用此 MCP 服务器？",
            (AddServer, En) => "Add",
            (AddServer, Zh) => "添加",
            (ConfirmGrantTitle, En) => "Let the agent do this without asking?",
            (ConfirmGrantTitle, Zh) => "允许助手无需询问即可执行？",
            (Allow, En) => "Allow",
            (Allow, Zh) => "允许",
            (ConfirmSettingsTitle, En) => "Loosen the agent's sandbox?",
            (ConfirmSettingsTitle, Zh) => "放宽助手的沙箱？",
            (Save, En) => "Save",
            (Save, Zh) => "保存",
            (Cancel, En) => "Cancel",
            (Cancel, Zh) => "取消",
        }
    }
}

/// A file dialog to show.
pub struct FileDialog {
    pub title: Phrase,
    /// The name a save dialog proposes.
    pub file_name: Option<String>,
    /// The one filter: its name and extensions.
    pub filter: Option<(Phrase, &'static [&'static str])>,
}

/// An answer read from the test hook's file.
#[derive(Debug, Clone, PartialEq, Eq)]
enum QueuedAnswer {
    Paths(Vec<PathBuf>),
    Cancelled,
    Confirm(bool),
}

impl QueuedAnswer {
    fn parse(line: &str) -> Result<Self, String> {
        match serde_json::from_str::<serde_json::Value>(line) {
            Ok(serde_json::Value::Null) => Ok(Self::Cancelled),
            Ok(serde_json::Value::Bool(confirm)) => Ok(Self::Confirm(confirm)),
            Ok(serde_json::Value::Array(paths)) if !paths.is_empty() => paths
                .into_iter()
                .map(|path| match path {
                    serde_json::Value::String(path) => Ok(PathBuf::from(path)),
                    other => Err(format!("{other} is not a path")),
                })
                .collect::<Result<_, _>>()
                .map(Self::Paths),
            _ => Err(format!(
                "{line:?} is not a queued dialog answer (a list of paths, null, true or false)"
            )),
        }
    }

    fn paths(self) -> Result<Option<Vec<PathBuf>>, AppError> {
        match self {
            Self::Paths(paths) => Ok(Some(paths)),
            Self::Cancelled => Ok(None),
            Self::Confirm(_) => Err(hook_error(
                "the queued answer is a confirmation, but a file dialog was opened",
            )),
        }
    }
}

fn hook_error(message: impl std::fmt::Display) -> AppError {
    AppError::new(
        AppErrorKind::Internal,
        format!("{ANSWERS_VARIABLE}: {message}"),
    )
}

/// Takes the first non-blank line of `file` and writes the rest back.
async fn take_answer(file: &Path) -> Result<QueuedAnswer, AppError> {
    let text = tokio::fs::read_to_string(file)
        .await
        .map_err(|error| hook_error(format!("cannot read {}: {error}", file.display())))?;
    let mut lines = text.lines();
    let line = lines
        .by_ref()
        .map(str::trim)
        .find(|line| !line.is_empty())
        .ok_or_else(|| hook_error("no answer is queued for this dialog"))?;
    let rest: String = lines.map(|line| format!("{line}\n")).collect();
    tokio::fs::write(file, rest)
        .await
        .map_err(|error| hook_error(format!("cannot write {}: {error}", file.display())))?;
    QueuedAnswer::parse(line).map_err(hook_error)
}

fn into_path(path: FilePath) -> Result<PathBuf, AppError> {
    path.into_path().map_err(|error| {
        AppError::new(
            AppErrorKind::InvalidInput,
            format!("the dialog answered a location that is not a file path: {error}"),
        )
    })
}

/// Shows the native dialogs (or, under the test hook, answers them from a file).
pub struct Dialogs {
    answers: Option<PathBuf>,
    language: RwLock<UiLanguage>,
    /// Held while a dialog is open: one at a time, so a page cannot pile them up.
    open: Mutex<()>,
}

impl Dialogs {
    /// Native dialogs, or the test hook's answers when `ASTERISM_E2E_DIALOG_ANSWERS` is set.
    pub fn from_env() -> Self {
        let answers = std::env::var_os(ANSWERS_VARIABLE)
            .filter(|value| !value.is_empty())
            .map(PathBuf::from);
        if let Some(file) = &answers {
            tracing::warn!(
                file = %file.display(),
                "test hook {ANSWERS_VARIABLE}: dialogs are answered from this file, not shown"
            );
        }
        Self {
            answers,
            language: RwLock::new(UiLanguage::default()),
            open: Mutex::new(()),
        }
    }

    pub fn language(&self) -> UiLanguage {
        self.language
            .read()
            .map(|language| *language)
            .unwrap_or_default()
    }

    fn set_language(&self, language: UiLanguage) {
        if let Ok(mut slot) = self.language.write() {
            *slot = language;
        }
    }

    pub fn text(&self, phrase: Phrase) -> &'static str {
        phrase.text(self.language())
    }

    /// Runs one dialog: the queued answer under the test hook, else the native dialog
    /// `show` opens, which answers through the sender (on a thread of its own: the main
    /// thread is never blocked).
    async fn answer<T: Send + 'static>(
        &self,
        queued: impl FnOnce(QueuedAnswer) -> Result<T, AppError>,
        show: impl FnOnce(oneshot::Sender<T>),
    ) -> Result<T, AppError> {
        let Ok(_open) = self.open.try_lock() else {
            return Err(AppError::new(
                AppErrorKind::Busy,
                "Another dialog is open; answer it first.",
            ));
        };
        if let Some(file) = &self.answers {
            return queued(take_answer(file).await?);
        }
        let (sender, receiver) = oneshot::channel();
        show(sender);
        receiver.await.map_err(|_| {
            AppError::new(
                AppErrorKind::Internal,
                "the dialog closed without answering",
            )
        })
    }

    fn builder(
        &self,
        window: &WebviewWindow,
        dialog: FileDialog,
    ) -> tauri_plugin_dialog::FileDialogBuilder<tauri::Wry> {
        let mut builder = window
            .dialog()
            .file()
            .set_parent(window)
            .set_title(self.text(dialog.title));
        if let Some((name, extensions)) = dialog.filter {
            builder = builder.add_filter(self.text(name), extensions);
        }
        if let Some(file_name) = dialog.file_name {
            builder = builder.set_file_name(file_name);
        }
        builder
    }

    /// Files to open (several may be chosen); `None` when the user cancelled.
    pub async fn pick_files(
        &self,
        window: &WebviewWindow,
        dialog: FileDialog,
    ) -> Result<Option<Vec<PathBuf>>, AppError> {
        let picked = self
            .answer(
                |queued| queued.paths().map(|paths| paths.map(Ok)),
                |sender| {
                    self.builder(window, dialog).pick_files(move |paths| {
                        let _ = sender.send(paths.map(|paths| {
                            paths.into_iter().map(into_path).collect::<Result<_, _>>()
                        }));
                    })
                },
            )
            .await?;
        picked.transpose()
    }

    /// One file to open; `None` when the user cancelled.
    pub async fn pick_file(
        &self,
        window: &WebviewWindow,
        dialog: FileDialog,
    ) -> Result<Option<PathBuf>, AppError> {
        let picked = self
            .answer(
                |queued| Ok(queued.paths()?.and_then(first).map(Ok)),
                |sender| {
                    self.builder(window, dialog).pick_file(move |path| {
                        let _ = sender.send(path.map(into_path));
                    })
                },
            )
            .await?;
        picked.transpose()
    }

    /// A folder; `None` when the user cancelled.
    pub async fn pick_folder(
        &self,
        window: &WebviewWindow,
        dialog: FileDialog,
    ) -> Result<Option<PathBuf>, AppError> {
        let picked = self
            .answer(
                |queued| Ok(queued.paths()?.and_then(first).map(Ok)),
                |sender| {
                    self.builder(window, dialog).pick_folder(move |path| {
                        let _ = sender.send(path.map(into_path));
                    })
                },
            )
            .await?;
        picked.transpose()
    }

    /// Where to save; `None` when the user cancelled.
    pub async fn save_file(
        &self,
        window: &WebviewWindow,
        dialog: FileDialog,
    ) -> Result<Option<PathBuf>, AppError> {
        let picked = self
            .answer(
                |queued| Ok(queued.paths()?.and_then(first).map(Ok)),
                |sender| {
                    self.builder(window, dialog).save_file(move |path| {
                        let _ = sender.send(path.map(into_path));
                    })
                },
            )
            .await?;
        picked.transpose()
    }

    /// Asks a yes/no question in a native message box; true when the user confirmed.
    pub async fn confirm(
        &self,
        window: &WebviewWindow,
        title: Phrase,
        message: String,
        confirm: Phrase,
    ) -> Result<bool, AppError> {
        let buttons = MessageDialogButtons::OkCancelCustom(
            self.text(confirm).to_string(),
            self.text(Phrase::Cancel).to_string(),
        );
        self.answer(
            |queued| match queued {
                QueuedAnswer::Confirm(confirmed) => Ok(confirmed),
                _ => Err(hook_error(
                    "the queued answer is for a file dialog, but a message box was opened",
                )),
            },
            |sender| {
                window
                    .dialog()
                    .message(message)
                    .title(self.text(title))
                    .parent(window)
                    .kind(MessageDialogKind::Warning)
                    .buttons(buttons)
                    .show(move |confirmed| {
                        let _ = sender.send(confirmed);
                    })
            },
        )
        .await
    }
}

fn first(paths: Vec<PathBuf>) -> Option<PathBuf> {
    paths.into_iter().next()
}

/// A path as a dialog shows it: control and bidirectional-formatting characters escaped
/// (a crafted name cannot add lines or reverse text in the question), long ones cut.
pub fn shown(path: &Path) -> String {
    const MAX: usize = 160;
    let text = path.to_string_lossy();
    let mut shown: String = text
        .chars()
        .map(|c| {
            let bidi = matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}');
            if c.is_control() || bidi {
                c.escape_unicode().to_string()
            } else {
                c.to_string()
            }
        })
        .collect();
    if shown.chars().count() > MAX {
        shown = shown.chars().take(MAX - 1).chain(['…']).collect();
    }
    shown
}

/// Sets the language the native dialogs speak (the UI's; called at start and on change).
#[tauri::command]
#[specta::specta]
pub async fn dialog_language(
    dialogs: State<'_, Dialogs>,
    language: UiLanguage,
) -> Result<(), AppError> {
    dialogs.set_language(language);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queued_answers_parse() {
        assert_eq!(
            QueuedAnswer::parse(r#"["/a.pdf", "/b"]"#),
            Ok(QueuedAnswer::Paths(vec!["/a.pdf".into(), "/b".into()]))
        );
        assert_eq!(QueuedAnswer::parse("null"), Ok(QueuedAnswer::Cancelled));
        assert_eq!(
            QueuedAnswer::parse("false"),
            Ok(QueuedAnswer::Confirm(false))
        );
        assert!(QueuedAnswer::parse("[]").is_err());
        assert!(QueuedAnswer::parse("[1]").is_err());
        assert!(QueuedAnswer::parse(r#""/a.pdf""#).is_err());
    }

    #[tokio::test]
    async fn answers_are_taken_in_order_and_an_empty_queue_is_an_error() {
        let file =
            std::env::temp_dir().join(format!("asterism-dialog-answers-{}", std::process::id()));
        std::fs::write(&file, "[\"/x.json\"]\n\nnull\ntrue\n").unwrap();
        assert_eq!(
            take_answer(&file).await.unwrap(),
            QueuedAnswer::Paths(vec!["/x.json".into()])
        );
        assert_eq!(take_answer(&file).await.unwrap(), QueuedAnswer::Cancelled);
        assert_eq!(
            take_answer(&file).await.unwrap(),
            QueuedAnswer::Confirm(true)
        );
        let error = take_answer(&file).await.unwrap_err();
        assert!(error.message.contains("no answer is queued"), "{error}");
        // A confirmation where a file dialog is open is refused, not taken as a path.
        assert!(QueuedAnswer::Confirm(true).paths().is_err());
        std::fs::remove_file(&file).unwrap();
    }

    #[test]
    fn shown_paths_cannot_add_lines_or_reverse_text() {
        assert_eq!(
            shown(Path::new("/tmp/a\n\nAll safe: click Import\u{202e}fdp.exe")),
            "/tmp/a\\u{a}\\u{a}All safe: click Import\\u{202e}fdp.exe"
        );
        let long = format!("/{}", "x".repeat(500));
        assert_eq!(shown(Path::new(&long)).chars().count(), 160);
    }
}
