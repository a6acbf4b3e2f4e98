//! One model call: stream the answer, forwarding thinking, text and notices, and hand
//! each completed tool call to the executor as soon as it is ready.

use std::time::Instant;

use asterism_llm::{
    ChatMessage, ChatRequest, ChatResponse, LlmError, ModelEvent, ToolChoice, ToolDefinition,
};
use asterism_protocol::AgentEvent;
use futures::StreamExt;

use super::{AgentRuntime, Run};
use crate::compaction::SentMessages;
use crate::executor::StepExecutor;

/// The model's answer for one step, or why there is none.
pub(crate) enum StepOutcome {
    Answer(ChatResponse, f64),
    Failed {
        error: LlmError,
        thinking: String,
        text: String,
    },
}

impl AgentRuntime {
    pub(crate) async fn stream_step(
        &self,
        run: &Run<'_>,
        step: i32,
        system: &str,
        conversation: &[ChatMessage],
        sent: &mut SentMessages,
        executor: &mut StepExecutor,
    ) -> StepOutcome {
        let messages = sent.update(
            system,
            conversation,
            self.config.compaction.keep_tool_outputs,
        );
        let (tools, tool_choice) = match first_tool(run, step, executor.registry().definitions()) {
            Ok(offered) => offered,
            Err(error) => {
                return StepOutcome::Failed {
                    error,
                    thinking: String::new(),
                    text: String::new(),
                };
            }
        };
        let request = ChatRequest {
            response_schema: None,
            tool_choice,
            images: Vec::new(),
            messages,
            tools,
            enable_thinking: run.enable_thinking,
            model: None,
        };
        let agent_name = &run.rows.agent_name;
        let started = Instant::now();
        let mut thinking = String::new();
        let mut text = String::new();
        let mut stream = match self.model.stream(request, run.cancel.clone()).await {
            Ok(stream) => stream,
            Err(error) => {
                return StepOutcome::Failed {
                    error,
                    thinking,
                    text,
                };
            }
        };
        while let Some(item) = stream.next().await {
            match item {
                Ok(ModelEvent::Thinking(delta)) => {
                    thinking.push_str(&delta);
                    run.sink.emit(AgentEvent::Thinking {
                        delta,
                        step,
                        agent_name: agent_name.clone(),
                    });
                }
                Ok(ModelEvent::Text(delta)) => {
                    text.push_str(&delta);
                    run.sink.emit(AgentEvent::TextDelta {
                        delta,
                        step,
                        agent_name: agent_name.clone(),
                    });
                }
                Ok(ModelEvent::Notice { kind, message }) => {
                    self.notice(run, step, &kind, message);
                }
                Ok(ModelEvent::ToolCallReady(call)) => {
                    if self.config.streaming_tools {
                        executor.start(call);
                    }
                }
                Ok(ModelEvent::Completed(response)) => {
                    return StepOutcome::Answer(response, started.elapsed().as_secs_f64() * 1000.0);
                }
                Err(error) => {
                    return StepOutcome::Failed {
                        error,
                        thinking,
                        text,
                    };
                }
            }
        }
        StepOutcome::Failed {
            error: LlmError::BadResponse("the model stream ended without an answer".into()),
            thinking,
            text,
        }
    }
}

/// The tools offered to this step, and whether the model must call one. The run's first
/// step with `ask --tool NAME` is offered that tool alone with `tool_choice: "required"`:
/// the form every server takes (llama.cpp refuses the named-function object and falls
/// back to `auto`); other steps get every tool and the model's own choice.
fn first_tool(
    run: &Run<'_>,
    step: i32,
    mut tools: Vec<ToolDefinition>,
) -> Result<(Vec<ToolDefinition>, Option<ToolChoice>), LlmError> {
    let Some(name) = run.first_tool.as_deref().filter(|_| step == 1) else {
        return Ok((tools, None));
    };
    if let Some(at) = tools.iter().position(|tool| tool.name == name) {
        return Ok((vec![tools.swap_remove(at)], Some(ToolChoice::Required)));
    }
    let mut offered: Vec<&str> = tools.iter().map(|tool| tool.name.as_str()).collect();
    offered.sort_unstable();
    Err(LlmError::NotConfigured(format!(
        "no tool named \"{name}\" to call first; the tools are: {}",
        offered.join(", ")
    )))
}
