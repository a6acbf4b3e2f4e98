//! Links out of the app. The UI builds its links (ADS, arXiv, DOI, SIMBAD) from the
//! [`LinkBases`] in `app_status` and opens them through the opener plugin
//! (`tauri-plugin-opener`), whose `open_url` the main window may call only for pages
//! under those sites: the public ones in `capabilities/default.json`, the configured ones
//! in a capability added here at start and after each save. Any other web link (one in a
//! model's answer) goes to [`link_open`], which asks in a native message box first. A
//! stored PDF opens in the system's viewer or is shown in its folder only by paper id,
//! once its path is found inside the library folder. The webview itself never navigates
//! away from the app ([`stays_in_app`]).

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use asterism_agent::Settings;
use asterism_store::PaperFilter;
use serde::Serialize;
use specta::Type;
use tauri::ipc::CapabilityBuilder;
use tauri::{Manager, State, Url};
use tauri_plugin_opener::OpenerExt;

use crate::dialogs::{Dialogs, Phrase, UiLanguage, shown};
use crate::error::{AppError, AppErrorKind};
use crate::state::AppState;

/// Where the UI's links point: each a base URL without a trailing `/`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Type)]
#[serde(rename_all = "camelCase")]
pub struct LinkBases {
    /// `ADS_UI_URL`: `{ads}/abs/{bibcode}/abstract`.
    pub ads: String,
    /// `ARXIV_URL`: `{arxiv}/abs/{id}` and `{arxiv}/pdf/{id}`.
    pub arxiv: String,
    /// `DOI_URL`: `{doi}/{doi}`.
    pub doi: String,
    /// `SIMBAD_URL`: `{simbad}/sim-id?Ident={name}`.
    pub simbad: String,
}

impl LinkBases {
    pub fn from_settings(settings: &Settings) -> Self {
        let base = |url: &str| url.trim().trim_end_matches('/').to_string();
        Self {
            ads: base(&settings.ads_ui_url),
            arxiv: base(&settings.arxiv_url),
            doi: base(&settings.doi_url),
            simbad: base(&settings.simbad_url),
        }
    }

    fn all(&self) -> [&str; 4] {
        [&self.ads, &self.arxiv, &self.doi, &self.simbad]
    }

    /// Whether `url` is a page under one of the sites (an `http(s)` base with a host).
    pub fn covers(&self, url: &str) -> bool {
        self.all()
            .into_iter()
            .filter(|base| web_base(base))
            .any(|base| url.starts_with(&format!("{base}/")))
    }

    /// The opener scope entries (`{"url": glob}`) allowing every page under the sites.
    fn scope(&self) -> Vec<serde_json::Value> {
        self.all()
            .into_iter()
            .filter(|base| web_base(base))
            .map(|base| serde_json::json!({ "url": format!("{}/*", glob_escaped(base)) }))
            .collect()
    }
}

/// Whether a base URL is a web address with a host (nothing else is ever opened).
fn web_base(base: &str) -> bool {
    Url::parse(base).is_ok_and(|url| {
        matches!(url.scheme(), "http" | "https") && url.host_str().is_some_and(|h| !h.is_empty())
    })
}

/// `text` as a glob pattern matching itself only.
fn glob_escaped(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            '*' | '?' | '[' | ']' => format!("[{c}]"),
            _ => c.to_string(),
        })
        .collect()
}

/// The scope entries already granted to the main window, so a save adds only new ones.
#[derive(Default)]
pub struct AllowedLinks(Mutex<HashSet<String>>);

/// Lets the main window open pages under the configured sites through the opener plugin
/// (a runtime capability; entries granted before stay until the app restarts).
pub fn allow_configured(app: &tauri::AppHandle, settings: &Settings) -> Result<(), AppError> {
    let Some(allowed) = app.try_state::<AllowedLinks>() else {
        return Ok(());
    };
    let (fresh, granted): (Vec<serde_json::Value>, usize) = {
        let mut granted = allowed
            .0
            .lock()
            .map_err(|_| AppError::new(AppErrorKind::Internal, "link scope lock poisoned"))?;
        let fresh = LinkBases::from_settings(settings)
            .scope()
            .into_iter()
            .filter(|entry| granted.insert(entry.to_string()))
            .collect();
        (fresh, granted.len())
    };
    if fresh.is_empty() {
        return Ok(());
    }
    let capability = CapabilityBuilder::new(format!("configured-links-{granted}"))
        .window("main")
        .permission_scoped(
            "opener:allow-open-url",
            fresh,
            Vec::<serde_json::Value>::new(),
        );
    app.add_capability(capability)
        .map_err(|error| AppError::new(AppErrorKind::Internal, error.to_string()))
}

/// Whether the webview may go to `url`: only the app's own pages (the embedded UI, or
/// the dev server on localhost). Everything else opens outside or not at all.
pub fn stays_in_app(url: &Url) -> bool {
    match url.scheme() {
        "tauri" | "about" => true,
        "http" | "https" => matches!(url.host_str(), Some("localhost" | "tauri.localhost")),
        _ => false,
    }
}

/// The question before a web link outside the known sites is opened.
fn link_question(url: &str, language: UiLanguage) -> String {
    let url = shown(Path::new(url));
    match language {
        UiLanguage::En => format!(
            "{url}\n\nThis page is not on ADS, arXiv, doi.org or SIMBAD. Open it only if you trust where the link came from."
        ),
        UiLanguage::Zh => {
            format!(
                "{url}\n\n此网页不在 ADS、arXiv、doi.org 或 SIMBAD 上。仅当您信任链接来源时才打开。"
            )
        }
    }
}

/// Opens a web link (`http`/`https`) in the system's browser: at once when it is under
/// one of the configured sites, otherwise after the user confirms in a native message
/// box. `false` when declined.
#[tauri::command]
#[specta::specta]
pub async fn link_open(
    window: tauri::WebviewWindow,
    state: State<'_, AppState>,
    dialogs: State<'_, Dialogs>,
    url: String,
) -> Result<bool, AppError> {
    let parsed = Url::parse(url.trim())
        .map_err(|_| AppError::new(AppErrorKind::InvalidInput, "That is not a web address."))?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(AppError::new(
            AppErrorKind::InvalidInput,
            "Only web links (http, https) open from the app.",
        ));
    }
    let url = parsed.to_string();
    let bases = LinkBases::from_settings(&state.engine().settings);
    if !bases.covers(&url) {
        let question = link_question(&url, dialogs.language());
        let confirmed = dialogs
            .confirm(&window, Phrase::OpenLinkTitle, question, Phrase::OpenLink)
            .await?;
        if !confirmed {
            return Ok(false);
        }
    }
    window
        .opener()
        .open_url(url, None::<&str>)
        .map_err(|error| AppError::new(AppErrorKind::Internal, error.to_string()))?;
    Ok(true)
}

/// `path` with links and `..` resolved, when it lies inside `{data_dir}/papers`.
fn inside_library(path: &Path, data_dir: &Path) -> Result<PathBuf, AppError> {
    let outside = || {
        AppError::new(
            AppErrorKind::InvalidInput,
            "This file is not inside the library folder, so the app does not open it.",
        )
    };
    let folder = std::fs::canonicalize(data_dir.join("papers")).map_err(|_| outside())?;
    let path = std::fs::canonicalize(path).map_err(|error| {
        AppError::new(
            AppErrorKind::NotFound,
            format!("The stored PDF is missing: {error}"),
        )
    })?;
    if path.starts_with(&folder) {
        Ok(path)
    } else {
        Err(outside())
    }
}

/// The stored PDF of a paper (the file with `sha256`, or its first), inside the library.
async fn stored_pdf(
    state: &AppState,
    paper_id: &str,
    sha256: Option<&str>,
) -> Result<PathBuf, AppError> {
    let engine = state.engine();
    let filter = PaperFilter {
        paper_id: Some(paper_id.to_string()),
        ..PaperFilter::default()
    };
    let paper = engine
        .services
        .store
        .library_papers(&filter)
        .await?
        .into_iter()
        .next()
        .ok_or_else(|| {
            AppError::new(AppErrorKind::NotFound, "That paper is not in the library.")
        })?;
    let file = paper
        .files
        .into_iter()
        .filter(|file| file.path.to_lowercase().ends_with(".pdf"))
        .find(|file| sha256.is_none_or(|sha| sha == file.sha256))
        .ok_or_else(|| AppError::new(AppErrorKind::NotFound, "This paper has no stored PDF."))?;
    let data_dir = engine.settings.data_dir.clone();
    tokio::task::spawn_blocking(move || inside_library(Path::new(&file.path), &data_dir))
        .await
        .map_err(|error| AppError::new(AppErrorKind::Internal, error.to_string()))?
}

fn not_opened(error: tauri_plugin_opener::Error) -> AppError {
    AppError::new(
        AppErrorKind::Internal,
        format!("The system could not open it: {error}"),
    )
}

/// Opens a paper's stored PDF in the system's PDF viewer. `sha256` picks one of its
/// files (`null`: the first PDF).
#[tauri::command]
#[specta::specta]
pub async fn library_open_pdf(
    app: tauri::AppHandle,
    state: State<'_, AppState>,
    paper_id: String,
    sha256: Option<String>,
) -> Result<(), AppError> {
    let path = stored_pdf(&state, &paper_id, sha256.as_deref()).await?;
    app.opener()
        .open_path(path.to_string_lossy(), None::<&str>)
        .map_err(not_opened)
}

/// Shows a paper's stored PDF selected in the system's file manager, or opens its
/// folder where no file manager answers that request (no D-Bus session).
#[tauri::command]
#[specta::specta]
pub async fn library_show_pdf(
    app: tauri::AppHandle,
    state: State<'_, AppState>,
    paper_id: String,
    sha256: Option<String>,
) -> Result<(), AppError> {
    let path = stored_pdf(&state, &paper_id, sha256.as_deref()).await?;
    let shown_in_folder = {
        let path = path.clone();
        tokio::task::spawn_blocking(move || tauri_plugin_opener::reveal_item_in_dir(path))
            .await
            .map_err(|error| AppError::new(AppErrorKind::Internal, error.to_string()))?
    };
    if let Err(error) = shown_in_folder {
        tracing::debug!(%error, "no file manager showed the file; opening its folder");
        let folder = path.parent().unwrap_or(&path);
        app.opener()
            .open_path(folder.to_string_lossy(), None::<&str>)
            .map_err(not_opened)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bases(ads: &str) -> LinkBases {
        LinkBases {
            ads: ads.into(),
            arxiv: "https://arxiv.org".into(),
            doi: "https://doi.org".into(),
            simbad: "https://simbad.cds.unistra.fr/simbad".into(),
        }
    }

    #[test]
    fn only_pages_under_the_sites_are_covered() {
        let known = bases("https://ui.adsabs.harvard.edu");
        assert!(known.covers("https://ui.adsabs.harvard.edu/abs/2016A%26A...594A..13P/abstract"));
        assert!(known.covers("https://simbad.cds.unistra.fr/simbad/sim-id?Ident=M%20106"));
        assert!(!known.covers("https://arxiv.org.evil.example/abs/1"));
        assert!(!known.covers("https://simbad.cds.unistra.fr/other"));
        assert!(!known.covers("https://example.org/"));
        // A base that is no web address covers nothing and is never granted.
        let odd = bases("file:///etc");
        assert!(!odd.covers("file:///etc/passwd"));
        assert_eq!(odd.scope().len(), 3);
    }

    #[test]
    fn the_scope_is_each_site_and_everything_under_it() {
        let loopback = LinkBases::from_settings(&{
            let mut settings = test_settings();
            settings.ads_ui_url = "http://127.0.0.1:4321/ads-ui/".into();
            settings
        });
        assert_eq!(loopback.ads, "http://127.0.0.1:4321/ads-ui");
        assert_eq!(
            loopback.scope()[0],
            serde_json::json!({ "url": "http://127.0.0.1:4321/ads-ui/*" })
        );
        assert_eq!(
            glob_escaped("http://[::1]:8/a*b?"),
            "http://[[]::1[]]:8/a[*]b[?]"
        );
    }

    fn test_settings() -> Settings {
        let dir =
            std::env::temp_dir().join(format!("asterism-links-settings-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let environment = [("ASTERISM_DATA_DIR", dir.to_str().unwrap())]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Settings::load_from(environment, None).unwrap()
    }

    #[test]
    fn the_webview_stays_on_the_app_pages() {
        let url = |text: &str| Url::parse(text).unwrap();
        assert!(stays_in_app(&url("tauri://localhost/index.html")));
        assert!(stays_in_app(&url("http://localhost:1420/")));
        assert!(stays_in_app(&url("http://tauri.localhost/")));
        assert!(!stays_in_app(&url(
            "https://ui.adsabs.harvard.edu/abs/x/abstract"
        )));
        assert!(!stays_in_app(&url("file:///etc/passwd")));
        assert!(!stays_in_app(&url("http://localhost.evil.example/")));
    }

    #[test]
    fn only_files_inside_the_library_folder_open() {
        let root = std::env::temp_dir().join(format!("asterism-links-{}", std::process::id()));
        let data_dir = root.join("data");
        let papers = data_dir.join("papers");
        std::fs::create_dir_all(&papers).unwrap();
        std::fs::write(papers.join("a.pdf"), b"%PDF").unwrap();
        std::fs::write(data_dir.join("asterism.db"), b"").unwrap();
        std::fs::write(root.join("elsewhere.pdf"), b"%PDF").unwrap();
        let inside = inside_library(&papers.join("a.pdf"), &data_dir).unwrap();
        assert!(inside.ends_with("papers/a.pdf"));
        let refused = |path: PathBuf| inside_library(&path, &data_dir).unwrap_err().kind;
        assert_eq!(
            refused(papers.join("../asterism.db")),
            AppErrorKind::InvalidInput
        );
        assert_eq!(
            refused(root.join("elsewhere.pdf")),
            AppErrorKind::InvalidInput
        );
        assert_eq!(refused(papers.join("missing.pdf")), AppErrorKind::NotFound);
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(root.join("elsewhere.pdf"), papers.join("link.pdf"))
                .unwrap();
            assert_eq!(refused(papers.join("link.pdf")), AppErrorKind::InvalidInput);
        }
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn the_link_question_escapes_the_address() {
        let question = link_question("https://evil.example/\n\nSafe: click Open", UiLanguage::En);
        assert!(question.starts_with("https://evil.example/\\u{a}\\u{a}Safe: click Open\n\n"));
        assert!(link_question("https://a.example/", UiLanguage::Zh).contains("仅当您信任"));
    }
}
