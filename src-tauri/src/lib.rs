//! The Asterism desktop shell: Tauri commands and channels over the engine, nothing
//! more. `specta_builder()` is the one list of commands, used by `run()` and by the
//! test that writes `ui/src/bindings.ts`.

mod commands;
mod error;
mod state;

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
        commands::sessions_list,
        commands::session_timeline,
        commands::app_status,
    ])
}

/// Starts the app: reads the same configuration as the CLI, opens the database, and
/// shows the window.
pub fn run() {
    let _ = rustls::crypto::ring::default_provider().install_default();
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("ASTERISM_LOG")
                .unwrap_or_else(|_| "warn".into()),
        )
        .init();
    let builder = specta_builder();
    let result = tauri::Builder::default()
        .invoke_handler(builder.invoke_handler())
        .setup(move |app| {
            builder.mount_events(app);
            let settings = asterism_agent::Settings::load()?;
            let state = tauri::async_runtime::block_on(state::AppState::open(settings))?;
            app.manage(state);
            Ok(())
        })
        .run(tauri::generate_context!());
    if let Err(error) = result {
        eprintln!("Asterism could not start: {error}");
        std::process::exit(1);
    }
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
