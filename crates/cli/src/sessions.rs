//! `asterism sessions list|show|replay|export|import`: stored sessions, offline.

use std::process::ExitCode;

use anyhow::Context;
use asterism_agent::{Settings, session_events};
use asterism_protocol::{Timeline, TimelineItem};
use asterism_store::Store;
use clap::Subcommand;

use crate::render::Printer;

#[derive(Subcommand)]
pub enum SessionsCommand {
    /// Sessions, most recent first.
    List {
        #[arg(long)]
        json: bool,
        #[arg(long, default_value_t = 50)]
        limit: u32,
    },
    /// A session's timeline (the items the app shows).
    Show {
        id: String,
        #[arg(long)]
        json: bool,
    },
    /// Re-emit a session's events from the database, without model or network.
    Replay {
        id: String,
        #[arg(long)]
        json: bool,
    },
    /// Write a session to a bundle file (the app's format), to replay it elsewhere.
    Export {
        id: String,
        file: std::path::PathBuf,
    },
    /// Store the session of a bundle file under a new id, and print that id.
    Import { file: std::path::PathBuf },
    /// Delete a session: its messages, audit entries, metrics and tasks. Asks first
    /// unless given --yes.
    Delete {
        id: String,
        #[arg(long)]
        yes: bool,
    },
}

pub async fn run(settings: &Settings, command: SessionsCommand) -> anyhow::Result<ExitCode> {
    let store = Store::open_in_dir(&settings.data_dir)
        .await
        .context("opening the database")?;
    match command {
        SessionsCommand::List { json, limit } => {
            let sessions = store.list_sessions(limit).await?;
            if json {
                println!("{}", serde_json::to_string_pretty(&sessions)?);
            } else if sessions.is_empty() {
                println!("no sessions yet: ask something with `asterism ask \"…\"`");
            } else {
                for session in sessions {
                    let when = session
                        .updated_at
                        .get(..16)
                        .unwrap_or(&session.updated_at)
                        .replace('T', " ");
                    println!(
                        "{}  {when}  {:>3} msgs  {}",
                        session.id, session.message_count, session.title
                    );
                }
            }
        }
        SessionsCommand::Show { id, json } => {
            let events = session_events(&store, &id)
                .await
                .with_context(|| format!("session {id}"))?;
            let items = Timeline::from_events(&events).into_items();
            if json {
                println!("{}", serde_json::to_string_pretty(&items)?);
            } else {
                for item in &items {
                    print_item(item);
                }
            }
        }
        SessionsCommand::Export { id, file } => {
            let bytes = store.export_session_file(&id, &file).await?;
            eprintln!("wrote {} ({bytes} bytes)", file.display());
        }
        SessionsCommand::Import { file } => {
            let id = store.import_session_file(&file).await?;
            println!("{id}");
        }
        SessionsCommand::Delete { id, yes } => return delete(&store, &id, yes).await,
        SessionsCommand::Replay { id, json } => {
            let events = session_events(&store, &id)
                .await
                .with_context(|| format!("session {id}"))?;
            let printer = Printer::new(json, true, false);
            for event in &events {
                printer.print(event);
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `sessions delete ID`: asks on the terminal (`y` deletes), refuses without one
/// unless `--yes`.
async fn delete(store: &Store, id: &str, yes: bool) -> anyhow::Result<ExitCode> {
    let session = store
        .session(id)
        .await
        .with_context(|| format!("session {id}"))?;
    let count = store.messages(id).await?.len();
    if !yes {
        use std::io::{BufRead, IsTerminal, Write};
        if !std::io::stdin().is_terminal() {
            anyhow::bail!("not deleting session {id} without a terminal to ask on: add --yes");
        }
        eprint!(
            "Delete session {id} \"{}\" ({count} messages)? [y/N] ",
            session.title
        );
        std::io::stderr().flush()?;
        let mut answer = String::new();
        std::io::stdin().lock().read_line(&mut answer)?;
        if !matches!(answer.trim(), "y" | "Y" | "yes") {
            eprintln!("kept");
            return Ok(ExitCode::FAILURE);
        }
    }
    store.delete_session(id).await?;
    eprintln!("deleted session {id} ({count} messages)");
    Ok(ExitCode::SUCCESS)
}

fn print_item(item: &TimelineItem) {
    match item {
        TimelineItem::User { text, .. } => println!("? {text}"),
        TimelineItem::Thinking { text, .. } => println!("  thinking: {text}"),
        TimelineItem::Text { text, .. } => println!("{text}"),
        TimelineItem::ToolCall {
            name, arguments, ..
        } => println!("→ {name} {arguments}"),
        TimelineItem::ToolResult {
            name,
            output,
            is_error,
            ..
        } => {
            println!("{} {name}", if *is_error { "✗" } else { "←" });
            for line in output.lines().take(20) {
                println!("    {line}");
            }
        }
        TimelineItem::Error { message, .. } => println!("error: {message}"),
        TimelineItem::Notice { message, .. } => println!("  note: {message}"),
        TimelineItem::Todos {
            agent_name, todos, ..
        } => {
            let tasks: Vec<asterism_store::TaskRow> =
                serde_json::from_value(todos.clone()).unwrap_or_default();
            println!("  plan of {agent_name}:");
            for line in asterism_agent::todos::render(&tasks).lines().skip(1) {
                println!("    {line}");
            }
        }
        TimelineItem::Subagent {
            agent_name,
            task,
            summary,
            steps,
            ..
        } => {
            println!("▸ {agent_name}: {task}");
            match summary {
                Some(summary) => println!("◂ {agent_name} ({steps} steps): {summary}"),
                None => println!("◂ {agent_name} did not finish"),
            }
        }
    }
}
