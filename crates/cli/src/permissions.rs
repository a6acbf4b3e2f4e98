//! `asterism permissions list|add|remove`: the rules stored for every session.

use std::process::ExitCode;

use anyhow::Context;
use asterism_agent::Settings;
use asterism_agent::permissions::{Rule, RuleDecision};
use asterism_store::Store;
use clap::{Subcommand, ValueEnum};

#[derive(Clone, Copy, ValueEnum)]
pub enum Decision {
    Allow,
    Ask,
    Deny,
}

#[derive(Subcommand)]
pub enum PermissionsCommand {
    /// The stored rules.
    List,
    /// Store a rule, e.g. `add "run_bash(git status*)" --decision allow` or
    /// `add query_target --decision ask`.
    Add {
        rule: String,
        #[arg(long, value_enum, default_value = "allow")]
        decision: Decision,
    },
    /// Remove a stored rule.
    Remove { rule: String },
}

pub async fn run(settings: &Settings, command: PermissionsCommand) -> anyhow::Result<ExitCode> {
    let store = Store::open_in_dir(&settings.data_dir)
        .await
        .context("opening the database")?;
    match command {
        PermissionsCommand::List => {
            let rules = store.permission_rules().await?;
            if rules.is_empty() {
                println!("no stored rules: writes and commands ask, reading is free");
            }
            for (rule, decision) in rules {
                println!("{decision:<5} {rule}");
            }
        }
        PermissionsCommand::Add { rule, decision } => {
            let decision = match decision {
                Decision::Allow => RuleDecision::Allow,
                Decision::Ask => RuleDecision::Ask,
                Decision::Deny => RuleDecision::Deny,
            };
            let parsed = Rule::parse(decision, &rule)?;
            store
                .add_permission_rule(&parsed.text, decision.as_str())
                .await?;
            println!("stored: {} {}", decision.as_str(), parsed.text);
        }
        PermissionsCommand::Remove { rule } => {
            if !store.remove_permission_rule(rule.trim()).await? {
                eprintln!("error: no stored rule {rule:?}");
                return Ok(ExitCode::FAILURE);
            }
            println!("removed: {rule}");
        }
    }
    Ok(ExitCode::SUCCESS)
}
