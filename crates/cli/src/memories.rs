//! `asterism memories list|delete`: what the agent remembers across sessions.

use std::process::ExitCode;

use anyhow::Context;
use asterism_agent::Settings;
use asterism_store::Store;
use clap::Subcommand;

#[derive(Subcommand)]
pub enum MemoriesCommand {
    /// Every memory, newest first.
    List {
        #[arg(long)]
        json: bool,
    },
    /// Forget one memory by its id.
    Delete { id: i64 },
    /// Let a subagent read a stored session and save what is worth remembering.
    Extract {
        session: String,
        #[arg(long)]
        json: bool,
    },
}

pub async fn run(settings: &Settings, command: MemoriesCommand) -> anyhow::Result<ExitCode> {
    if let MemoriesCommand::Extract { session, json } = command {
        return extract(settings, &session, json).await;
    }
    let store = Store::open_in_dir(&settings.data_dir)
        .await
        .context("opening the database")?;
    match command {
        MemoriesCommand::List { json } => {
            let memories = store.memories(i64::MAX).await?;
            if json {
                println!("{}", serde_json::to_string_pretty(&memories)?);
            } else if memories.is_empty() {
                println!("no memories yet: the agent saves them with save_memory");
            } else {
                for memory in memories {
                    println!(
                        "{:>4}  {:<10} {}  {}",
                        memory.id,
                        memory.kind,
                        memory.created_at.get(..10).unwrap_or(""),
                        memory.content
                    );
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        MemoriesCommand::Extract { .. } => Ok(ExitCode::SUCCESS),
        MemoriesCommand::Delete { id } => {
            if store.delete_memory(id).await? {
                println!("forgot memory {id}");
                Ok(ExitCode::SUCCESS)
            } else {
                eprintln!("error: no memory {id}");
                Ok(ExitCode::FAILURE)
            }
        }
    }
}

/// Runs the memory-extraction subagent over a session and prints what it saved.
pub async fn extract(settings: &Settings, session: &str, json: bool) -> anyhow::Result<ExitCode> {
    let services = asterism_agent::bootstrap::open_services(settings).await?;
    let runtime = asterism_agent::bootstrap::runtime(settings, services.clone())?;
    let printer = crate::render::Printer::new(
        json,
        false,
        std::io::IsTerminal::is_terminal(&std::io::stdout()),
    );
    let sink = std::sync::Arc::new(asterism_agent::FnSink(move |event| printer.print(&event)));
    let before = services.store.memories(i64::MAX).await?.len();
    let report = runtime
        .extract_memories(session, sink, tokio_util::sync::CancellationToken::new())
        .await
        .with_context(|| format!("cannot read session {session}"))?;
    let saved = services
        .store
        .memories(i64::MAX)
        .await?
        .len()
        .saturating_sub(before);
    if !json {
        eprintln!("{saved} new memor{}", if saved == 1 { "y" } else { "ies" });
    }
    Ok(match report.reason {
        asterism_protocol::RunFinishReason::Failed => {
            eprintln!("error: {}", report.summary());
            ExitCode::FAILURE
        }
        _ => ExitCode::SUCCESS,
    })
}
