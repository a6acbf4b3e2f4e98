//! `ask_user`: pause and ask the user a question (with optional choices); the answer is
//! the result. Not available to subagents, which work silently.

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;

use crate::permissions::ToolEffect;
use crate::questions::Reply;
use crate::{InterruptBehavior, ToolContext, ToolOutput, TypedTool};

/// A question for the user.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AskUserArgs {
    /// The question, self-contained (the user may not have read your reasoning).
    pub question: String,
    /// Choices to offer; the user may still answer in their own words.
    #[serde(default)]
    pub options: Vec<String>,
}

pub struct AskUserTool;

#[async_trait]
impl TypedTool for AskUserTool {
    type Args = AskUserArgs;
    const NAME: &'static str = "ask_user";
    const DESCRIPTION: &'static str = "Ask the user a question and wait for the answer (up to 5 minutes). Use it \
        when the task is ambiguous in a way that changes the result (which object, which epoch, which paper), \
        not for confirmation of routine steps. Offer options when the choices are known.";
    const INTERRUPT: InterruptBehavior = InterruptBehavior::Block;
    const EFFECT: Option<ToolEffect> = Some(ToolEffect::Read);

    async fn run(&self, args: AskUserArgs, context: &ToolContext) -> ToolOutput {
        let question = args.question.trim();
        if question.is_empty() {
            return ToolOutput::error("The question is empty.");
        }
        if context.silent {
            return ToolOutput::error(
                "ask_user is not available to a subagent. Finish with what you have and say in your summary what \
                 the main agent should ask the user.",
            );
        }
        let options: Vec<String> = args
            .options
            .iter()
            .map(|option| option.trim().to_string())
            .filter(|option| !option.is_empty())
            .collect();
        match context
            .questions
            .ask(context.events.as_ref(), question, &options, &context.cancel)
            .await
        {
            Reply::Answer(answer) => ToolOutput::ok(format!("The user answered: {answer}"))
                .with_metadata(serde_json::json!({"answered": true, "answer": answer, "options": options})),
            Reply::NoAnswer(reason) => ToolOutput::ok(format!(
                "The user did not answer ({reason}). Go on with the most reasonable reading of the request and say \
                 in your answer what you assumed."
            ))
            .with_metadata(serde_json::json!({"answered": false, "reason": reason, "options": options})),
        }
    }
}
