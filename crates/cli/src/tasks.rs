//! `asterism tasks`: the agent's todo lists and background tasks.

use std::process::ExitCode;

use anyhow::Context;
use asterism_agent::Settings;
use asterism_store::Store;

pub async fn run(
    settings: &Settings,
    session: Option<String>,
    json: bool,
) -> anyhow::Result<ExitCode> {
    let store = Store::open_in_dir(&settings.data_dir)
        .await
        .context("opening the database")?;
    let session = match session {
        Some(session) => {
            store
                .session(&session)
                .await
                .with_context(|| format!("no session {session}"))?;
            Some(session)
        }
        None => store.latest_task_session().await?,
    };
    let lists = match &session {
        Some(session) => store.task_lists(session).await?,
        None => Vec::new(),
    };
    let background = store.background_tasks(session.as_deref()).await?;
    if json {
        let todos: Vec<serde_json::Value> = lists
            .iter()
            .map(|(agent, tasks)| serde_json::json!({"agentName": agent, "todos": tasks}))
            .collect();
        let value =
            serde_json::json!({"session": session, "todoLists": todos, "background": background});
        println!("{}", serde_json::to_string_pretty(&value)?);
        return Ok(ExitCode::SUCCESS);
    }
    match &session {
        Some(session) => println!("session {session}"),
        None => println!("no todo lists yet"),
    }
    for (agent, tasks) in &lists {
        println!("\n{agent}:");
        println!("{}", asterism_agent::todos::render(tasks));
    }
    if !background.is_empty() {
        println!("\nbackground tasks:");
        for task in &background {
            println!(
                "  {}  {:<14} {:<11} {}  {}",
                task.id,
                task.tool,
                task.status,
                task.created_at.get(..19).unwrap_or(""),
                task.arguments
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}
