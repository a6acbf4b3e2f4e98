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
}

pub async fn run(settings: &Settings, command: MemoriesCommand) -> anyhow::Result<ExitCode> {
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
