//! `asterism skills list|show`: the shipped skills and the user's own.

use std::process::ExitCode;

use asterism_agent::Settings;
use asterism_agent::skills::{SkillMode, SkillRegistry};
use clap::Subcommand;

#[derive(Subcommand)]
pub enum SkillsCommand {
    /// Every skill the agent can load, and SKILL.md files that could not be read.
    List {
        #[arg(long)]
        json: bool,
    },
    /// One skill's instructions.
    Show { name: String },
}

pub fn run(settings: &Settings, command: SkillsCommand) -> anyhow::Result<ExitCode> {
    let skills_dir = settings.data_dir.join("skills");
    let registry = SkillRegistry::load(&skills_dir);
    match command {
        SkillsCommand::List { json } => {
            if json {
                let problems: Vec<String> = registry
                    .problems()
                    .iter()
                    .map(ToString::to_string)
                    .collect();
                let value = serde_json::json!({"skills": registry.skills(), "problems": problems});
                println!("{}", serde_json::to_string_pretty(&value)?);
            } else {
                for skill in registry.skills() {
                    let mode = match skill.mode {
                        SkillMode::Inline => "inline",
                        SkillMode::Fork => "fork",
                    };
                    println!("{:<20} {:<6} {}", skill.name, mode, skill.description);
                }
                println!(
                    "\nyour own skills: {}/<name>/SKILL.md",
                    skills_dir.display()
                );
                for problem in registry.problems() {
                    eprintln!("warning: {problem}");
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        SkillsCommand::Show { name } => match registry.get(&name) {
            Some(skill) => {
                println!("{} ({})\n", skill.name, skill.source);
                println!("{}", skill.body);
                Ok(ExitCode::SUCCESS)
            }
            None => {
                eprintln!("error: no skill named {name:?}; see `asterism skills list`");
                Ok(ExitCode::FAILURE)
            }
        },
    }
}
