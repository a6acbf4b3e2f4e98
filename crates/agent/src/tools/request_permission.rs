//! `request_permission`: the agent asks the user, with its reason, for a permission it
//! lacks (a tool the mode or a rule makes it ask for, or one that was denied). Added by
//! the runtime on top of the registry, like `save_memory` in the seed.

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;

use asterism_protocol::{GrantKind, PermissionGrant};

use crate::permissions::{PermissionAnswer, PermissionQuestion, Rule, RuleDecision};
use crate::{ToolContext, ToolOutput, TypedTool};

/// Ask the user for permission to use a tool, explaining why.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RequestPermissionArgs {
    /// The tool you need, e.g. "run_bash".
    pub tool: String,
    /// Optionally narrow the request to matching calls, e.g. "git status*" or
    /// "path:notes/**".
    #[serde(default)]
    pub pattern: Option<String>,
    /// Why you need it, in one or two sentences the user can judge.
    pub reason: String,
}

pub struct RequestPermissionTool;

#[async_trait]
impl TypedTool for RequestPermissionTool {
    type Args = RequestPermissionArgs;
    const NAME: &'static str = "request_permission";
    // Asking is always allowed: the question itself is the permission check.
    const CONCURRENCY_SAFE: bool = true;
    const DESCRIPTION: &'static str = "Ask the user for permission to use a tool you are not allowed to use \
        (a call was denied, or would need approval), with your reason. If granted, matching calls run \
        without asking for the rest of the session.";

    async fn run(&self, args: RequestPermissionArgs, context: &ToolContext) -> ToolOutput {
        if context.silent {
            return ToolOutput::error(
                "A subagent cannot ask the user; report the need to the main agent.",
            );
        }
        let text = match args
            .pattern
            .as_deref()
            .map(str::trim)
            .filter(|pattern| !pattern.is_empty())
        {
            Some(pattern) => format!("{}({pattern})", args.tool.trim()),
            None => args.tool.trim().to_string(),
        };
        let rule = match Rule::parse(RuleDecision::Allow, &text) {
            Ok(rule) => rule,
            Err(error) => {
                return ToolOutput::error(format!(
                    "{error}. Use a tool name, optionally with a pattern."
                ));
            }
        };
        let arguments = serde_json::json!({"rule": rule.text});
        let reason = format!(
            "The agent asks to use {}: {}",
            rule.text,
            args.reason.trim()
        );
        let gate = &context.permissions;
        match gate
            .broker
            .ask(
                context.events.as_ref(),
                PermissionQuestion {
                    tool_call_id: &context.tool_call_id,
                    tool: &args.tool,
                    arguments: &arguments,
                    reason: &reason,
                    grants: &[PermissionGrant {
                        kind: GrantKind::Tool,
                        rule: rule.text.clone(),
                        text: rule.text.clone(),
                    }],
                },
                &context.cancel,
            )
            .await
        {
            PermissionAnswer::AllowOnce | PermissionAnswer::AllowSession { .. } => {
                gate.grant(rule.clone());
                ToolOutput::ok(format!("Granted for this session: {}", rule.text))
            }
            PermissionAnswer::AllowAlways { .. } => {
                gate.grant(rule.clone());
                if let Err(error) = context
                    .services
                    .store
                    .add_permission_rule(&rule.text, RuleDecision::Allow.as_str())
                    .await
                {
                    tracing::warn!(%error, "could not store the permission rule");
                }
                ToolOutput::ok(format!("Granted from now on: {}", rule.text))
            }
            PermissionAnswer::NoAnswer { reason } => {
                ToolOutput::error(format!("{} was not granted: {reason}", rule.text))
            }
            PermissionAnswer::Deny { reason } => ToolOutput::error(format!(
                "The user refused {}: {}",
                rule.text,
                reason
                    .filter(|reason| !reason.trim().is_empty())
                    .unwrap_or_else(|| "no reason given".into())
            )),
        }
    }
}
