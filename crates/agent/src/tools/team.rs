//! The team tools: spawn_teammate, send_teammate_message, team_broadcast,
//! check_team_inbox (crate::team holds the inboxes).

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;

use crate::permissions::ToolEffect;
use crate::subagent::{DEFAULT_MAX_STEPS, MAX_STEPS_LIMIT, SubagentSpec};
use crate::team::{LEAD, TeamManager};
use crate::{InterruptBehavior, ToolContext, ToolOutput, TypedTool};

const TEAMMATE_INSTRUCTIONS: &str = "You are a member of a team led by the main agent (\"main\"). \
    Read your inbox with check_team_inbox when you start and between steps; send findings or questions to a \
    teammate with send_teammate_message (to \"main\" for the lead) or to everyone with team_broadcast. Your \
    final answer is sent to the lead automatically.";

/// A new teammate.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SpawnTeammateArgs {
    /// Its name in the team (lower-case, e.g. "photometry").
    pub name: String,
    /// Its whole task, self-contained.
    pub task: String,
    /// Model calls it may make (default 5, at most 10).
    pub max_steps: Option<usize>,
}

pub struct SpawnTeammateTool {
    pub team: TeamManager,
}

#[async_trait]
impl TypedTool for SpawnTeammateTool {
    type Args = SpawnTeammateArgs;
    const NAME: &'static str = "spawn_teammate";
    const DESCRIPTION: &'static str = "Start a named teammate: a subagent that works on its task beside you \
        (this call returns at once) and talks to the team through inboxes. Its final report arrives in your \
        inbox (check_team_inbox). Use it for independent parts of a larger job.";
    const INTERRUPT: InterruptBehavior = InterruptBehavior::Block;
    const EFFECT: Option<ToolEffect> = Some(ToolEffect::Record);

    async fn run(&self, args: SpawnTeammateArgs, context: &ToolContext) -> ToolOutput {
        let Some(launcher) = &context.subagents else {
            return ToolOutput::error("Only the lead can start teammates.");
        };
        let task = args.task.trim();
        if task.is_empty() {
            return ToolOutput::error("The task is empty.");
        }
        let name = launcher.unique_name(Some(&args.name));
        if let Err(error) = self.team.join(&context.session_id, &name) {
            return ToolOutput::error(error.to_string());
        }
        if let Err(error) = self.team.join(&context.session_id, LEAD) {
            return ToolOutput::error(error.to_string());
        }
        let spec = SubagentSpec {
            name: name.clone(),
            task: task.to_string(),
            instructions: Some(TEAMMATE_INSTRUCTIONS.to_string()),
            max_steps: args
                .max_steps
                .unwrap_or(DEFAULT_MAX_STEPS)
                .clamp(1, MAX_STEPS_LIMIT),
            allowed_tools: None,
        };
        let launcher = launcher.clone();
        let parent = context.clone();
        let team = self.team.clone();
        let teammate = name.clone();
        let handle = tokio::spawn(async move {
            let report = launcher.run(spec, &parent).await;
            let text = format!("Final report: {}", report.summary());
            if let Err(error) = team.send(&parent.session_id, &teammate, LEAD, &text) {
                tracing::warn!(%error, "a teammate's report could not be delivered");
            }
            let _ = launcher.persister.flush().await;
        });
        self.team.track(&name, handle);
        ToolOutput::ok(format!(
            "Teammate {name} is working on its task. Its report will arrive in your inbox (check_team_inbox)."
        ))
        .with_metadata(serde_json::json!({"teammate": name, "team": self.team.members(&context.session_id)}))
    }
}

/// A message to one teammate.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SendTeammateMessageArgs {
    /// The teammate's name ("main" for the lead).
    pub to: String,
    pub content: String,
}

pub struct SendTeammateMessageTool {
    pub team: TeamManager,
}

#[async_trait]
impl TypedTool for SendTeammateMessageTool {
    type Args = SendTeammateMessageArgs;
    const NAME: &'static str = "send_teammate_message";
    const DESCRIPTION: &'static str =
        "Send a message to one teammate's inbox (\"main\" is the lead).";
    const INTERRUPT: InterruptBehavior = InterruptBehavior::Block;
    const EFFECT: Option<ToolEffect> = Some(ToolEffect::Read);

    async fn run(&self, args: SendTeammateMessageArgs, context: &ToolContext) -> ToolOutput {
        if args.content.trim().is_empty() {
            return ToolOutput::error("The message is empty.");
        }
        let to = args.to.trim();
        match self.team.send(
            &context.session_id,
            &context.agent_name,
            to,
            args.content.trim(),
        ) {
            Ok(message) => ToolOutput::ok(format!("Sent to {to}."))
                .with_metadata(serde_json::to_value(message).unwrap_or_default()),
            Err(error) => ToolOutput::error(error.to_string()),
        }
    }
}

/// A message for everyone.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TeamBroadcastArgs {
    pub content: String,
}

pub struct TeamBroadcastTool {
    pub team: TeamManager,
}

#[async_trait]
impl TypedTool for TeamBroadcastTool {
    type Args = TeamBroadcastArgs;
    const NAME: &'static str = "team_broadcast";
    const DESCRIPTION: &'static str = "Send a message to every other member of the team.";
    const INTERRUPT: InterruptBehavior = InterruptBehavior::Block;
    const EFFECT: Option<ToolEffect> = Some(ToolEffect::Read);

    async fn run(&self, args: TeamBroadcastArgs, context: &ToolContext) -> ToolOutput {
        if args.content.trim().is_empty() {
            return ToolOutput::error("The message is empty.");
        }
        let others: Vec<String> = self
            .team
            .members(&context.session_id)
            .into_iter()
            .filter(|member| *member != context.agent_name)
            .collect();
        if others.is_empty() {
            return ToolOutput::error("There is nobody else in the team yet.");
        }
        for member in &others {
            if let Err(error) = self.team.send(
                &context.session_id,
                &context.agent_name,
                member,
                args.content.trim(),
            ) {
                return ToolOutput::error(error.to_string());
            }
        }
        ToolOutput::ok(format!("Sent to {}.", others.join(", ")))
            .with_metadata(serde_json::json!({"to": others}))
    }
}

/// Read your inbox.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CheckTeamInboxArgs {}

pub struct CheckTeamInboxTool {
    pub team: TeamManager,
}

#[async_trait]
impl TypedTool for CheckTeamInboxTool {
    type Args = CheckTeamInboxArgs;
    const NAME: &'static str = "check_team_inbox";
    const DESCRIPTION: &'static str =
        "Read (and empty) your team inbox: messages and teammates' final reports.";
    const INTERRUPT: InterruptBehavior = InterruptBehavior::Block;
    const EFFECT: Option<ToolEffect> = Some(ToolEffect::Read);

    async fn run(&self, _args: CheckTeamInboxArgs, context: &ToolContext) -> ToolOutput {
        match self.team.drain(&context.session_id, &context.agent_name) {
            Ok(messages) if messages.is_empty() => {
                let working = self.team.running();
                ToolOutput::ok(if working.is_empty() {
                    "Your inbox is empty.".to_string()
                } else {
                    format!(
                        "Your inbox is empty. Still working: {}.",
                        working.join(", ")
                    )
                })
                .with_metadata(serde_json::json!({"messages": [], "working": working}))
            }
            Ok(messages) => {
                let text: Vec<String> = messages
                    .iter()
                    .map(|message| {
                        format!(
                            "From {} ({}): {}",
                            message.from, message.sent_at, message.content
                        )
                    })
                    .collect();
                ToolOutput::ok(text.join("\n\n"))
                    .with_metadata(serde_json::json!({"messages": messages}))
            }
            Err(error) => ToolOutput::error(error.to_string()),
        }
    }
}
