//! The Asterism desktop shell: Tauri commands and channels over the engine, nothing
//! more. `specta_builder()` is the one list of commands, used by `run()` and by the
//! test that writes `ui/src/bindings.ts`.

mod about;
mod ads;
mod commands;
mod dialogs;
mod error;
mod grants;
mod library;
mod links;
mod mcp;
mod news;
mod rendering;
mod sessions;
mod settings;
mod setup;
mod state;
mod views;
mod web_memory;

use std::time::Duration;

use tauri::Manager;
use tauri_specta::{Builder, collect_commands};

pub use commands::AppStatus;
pub use error::{AppError, AppErrorKind};

/// Every command the webview may call.
pub fn specta_builder() -> Builder<tauri::Wry> {
    Builder::<tauri::Wry>::new().commands(collect_commands![
        commands::agent_run,
        commands::agent_cancel,
        commands::permission_answer,
        commands::question_answer,
        commands::app_status,
        dialogs::dialog_language,
        sessions::sessions_list,
        sessions::session_timeline,
        sessions::session_timeline_tail,
        sessions::session_rename,
        sessions::session_delete,
        sessions::session_export,
        sessions::session_import,
        library::library_import,
        library::library_import_paths,
        library::library_import_cancel,
        library::library_background_embedding,
        library::library_list,
        library::library_paper,
        library::library_delete,
        library::library_figures,
        library::library_collections,
        library::library_collect,
        library::library_search,
        library::library_objects,
        library::library_objects_near,
        news::news_today,
        news::paper_links,
        news::paper_add,
        ads::ads_libraries,
        ads::ads_pull,
        ads::ads_push,
        library::library_export_bib,
        library::note_add,
        library::notes_list,
        links::link_open,
        links::library_open_pdf,
        links::library_show_pdf,
        views::session_metrics,
        views::audit_page,
        views::target_resolve,
        settings::settings_get,
        settings::settings_save,
        settings::settings_choose_workspace,
        setup::setup_check,
        setup::setup_local_servers,
        about::about,
        about::license_text,
        mcp::mcp_servers,
        mcp::mcp_add,
        mcp::mcp_remove,
        mcp::mcp_set_enabled,
    ])
}

/// Answers `pdf://localhost/{paper_id}` with the paper's stored PDF.
async fn pdf_response(app: &tauri::AppHandle, path: &str) -> tauri::http::Response<Vec<u8>> {
    let paper_id = path.trim_start_matches('/');
    let result = match app.try_state::<state::AppState>() {
        Some(state) => library::pdf_bytes(&state, paper_id).await,
        None => Err(AppError::new(AppErrorKind::Internal, "not started")),
    };
    file_response(result, "application/pdf")
}

/// Answers `figure://localhost/{paper_id}/{label}` with the figure or table rendered as
/// a PNG (the label as the caption passage names it, URL-encoded).
async fn figure_response(app: &tauri::AppHandle, path: &str) -> tauri::http::Response<Vec<u8>> {
    let result = match app.try_state::<state::AppState>() {
        Some(state) => library::figure_png(&state, path).await,
        None => Err(AppError::new(AppErrorKind::Internal, "not started")),
    };
    file_response(result, "image/png")
}

fn file_response(
    result: Result<Vec<u8>, AppError>,
    kind: &'static str,
) -> tauri::http::Response<Vec<u8>> {
    let (status, kind, body) = match result {
        Ok(bytes) => (200, kind, bytes),
        Err(error) => {
            let status = match error.kind {
                AppErrorKind::NotFound => 404,
                AppErrorKind::InvalidInput => 400,
                _ => 500,
            };
            (status, "text/plain", error.message.into_bytes())
        }
    };
    tauri::http::Response::builder()
        .status(status)
        .header("content-type", kind)
        .header("access-control-allow-origin", "*")
        .body(body)
        .unwrap_or_default()
}

/// Once the page and its first requests are served, what starting took and freed goes
/// back to the system (8 MB of the app process's 117 MB at rest).
fn release_after_start() {
    std::thread::spawn(|| {
        std::thread::sleep(std::time::Duration::from_secs(1));
        asterism_agent::heap::release_free_memory();
    });
}

/// Starts the app: reads the same configuration as the CLI, opens the database, and
/// shows the window.
pub fn run() {
    asterism_agent::heap::return_freed_memory_promptly();
    let _ = rustls::crypto::ring::default_provider().install_default();
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("ASTERISM_LOG")
                .unwrap_or_else(|_| "warn".into()),
        )
        .init();
    web_memory::install();
    let builder = specta_builder();
    let result = tauri::Builder::default()
        .plugin(tauri_plugin_dialog::init())
        // The UI opens links itself (buttons, not `<a target="_blank">`).
        .plugin(
            tauri_plugin_opener::Builder::new()
                .open_js_links_on_click(false)
                .build(),
        )
        .invoke_handler(builder.invoke_handler())
        .register_asynchronous_uri_scheme_protocol("pdf", |context, request, responder| {
            let app = context.app_handle().clone();
            tauri::async_runtime::spawn(async move {
                responder.respond(pdf_response(&app, request.uri().path()).await);
            });
        })
        .register_asynchronous_uri_scheme_protocol("figure", |context, request, responder| {
            let app = context.app_handle().clone();
            tauri::async_runtime::spawn(async move {
                responder.respond(figure_response(&app, request.uri().path()).await);
            });
        })
        .setup(move |app| {
            builder.mount_events(app);
            app.manage(dialogs::Dialogs::from_env());
            app.manage(links::AllowedLinks::default());
            // The window first, and nothing slow after it on this thread: the web
            // process's start needs this thread's main loop, so whatever setup does
            // here delays the first screen by as much. The database opens on another
            // thread; a command that comes before it is open waits for it.
            if let Some(window) = app.config().app.windows.first() {
                let window = tauri::WebviewWindowBuilder::from_config(app.handle(), window)?
                    .on_navigation(|url| {
                        let stays = links::stays_in_app(url);
                        if !stays {
                            tracing::warn!(%url, "the webview may not leave the app");
                        }
                        stays
                    })
                    .on_page_load(|_, payload| {
                        if payload.event() == tauri::webview::PageLoadEvent::Finished {
                            release_after_start();
                        }
                    })
                    .build()?;
                rendering::configure(&window);
            }
            app.manage(state::AppState::default());
            open_in_background(app.handle().clone());
            Ok(())
        })
        .run(tauri::generate_context!());
    if let Err(error) = result {
        eprintln!("Asterism could not start: {error}");
        std::process::exit(1);
    }
}

/// Reads the settings and opens the database and services on a thread of its own, then
/// finishes interrupted imports. A failure ends the app as a failed setup did.
fn open_in_background(app: tauri::AppHandle) {
    std::thread::spawn(move || {
        let started = std::time::Instant::now();
        let opened = (|| -> Result<(), Box<dyn std::error::Error>> {
            let settings = asterism_agent::Settings::load()?;
            links::allow_configured(&app, &settings)?;
            let state = app.state::<state::AppState>();
            tauri::async_runtime::block_on(state.open(settings))?;
            finish_interrupted_imports(&state);
            release_when_idle(app.clone());
            Ok(())
        })();
        if let Err(error) = opened {
            eprintln!("Asterism could not start: {error}");
            std::process::exit(1);
        }
        tracing::info!(
            elapsed_ms = started.elapsed().as_millis(),
            "settings, database and services ready"
        );
    });
}

/// Now and then, lets go of the embedding model and the vector index the library has
/// not used for `KEEP_ALIVE_S` (they load again on their next use).
fn release_when_idle(app: tauri::AppHandle) {
    tauri::async_runtime::spawn(async move {
        loop {
            let keep = app.state::<state::AppState>().engine().settings.keep_alive;
            let tick = keep.map_or(Duration::from_secs(30), |keep| {
                (keep / 10).clamp(Duration::from_secs(1), Duration::from_secs(30))
            });
            tokio::time::sleep(tick).await;
            let engine = app.state::<state::AppState>().engine();
            if let Some(keep) = engine.settings.keep_alive {
                engine.services.release_idle(keep).await;
            }
        }
    });
}

/// Finishes, in the background, the imports an earlier run left unfinished (the app
/// was closed or killed in the middle of one), then embeds what has no vector yet: their
/// passages, those of an import cancelled before its embedding ended, or the whole
/// library once after the local model changed.
fn finish_interrupted_imports(state: &state::AppState) {
    let library = state.engine().services.library.clone();
    let shown = state.background_embedding.clone();
    tauri::async_runtime::spawn(async move {
        let finished = library.finish_incomplete(&|_, _, _| {}).await;
        if !finished.is_empty() {
            tracing::info!(papers = finished.len(), "finished interrupted imports");
        }
        match library.needs_indexing().await {
            Ok(true) => {}
            Ok(false) => return,
            Err(error) => return tracing::warn!(%error, "could not read the index's state"),
        }
        let progress = {
            let shown = shown.clone();
            move |done, total| {
                if let Ok(mut slot) = shown.lock() {
                    *slot = Some(library::EmbeddingProgress {
                        done: library::count(done),
                        total: library::count(total),
                    });
                }
            }
        };
        let report = library.index(&progress).await;
        if let Ok(mut slot) = shown.lock() {
            *slot = None;
        }
        match report {
            Ok(report) => tracing::info!(?report, "embedded the library's pending passages"),
            Err(error) => tracing::warn!(%error, "embedding the pending passages failed"),
        }
    });
}

#[cfg(test)]
mod tests {
    use specta_typescript::Typescript;

    /// Regenerates `ui/src/bindings.ts`; CI fails when the committed file differs.
    #[test]
    fn export_typescript_bindings() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../ui/src/bindings.ts");
        super::specta_builder()
            .export(Typescript::default().header("// @ts-nocheck\n"), &path)
            .unwrap();
        let written = std::fs::read_to_string(&path).unwrap();
        assert!(written.contains("agentRun"));
        assert!(written.contains("export type AgentEvent"));
    }
}
