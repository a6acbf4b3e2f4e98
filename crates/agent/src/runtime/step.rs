//! One model call: stream the answer, forwarding thinking, text and notices, and hand
//! each completed tool call to the executor as soon as it is ready.

use std::time::Instant;

use asterism_llm::{ChatMessage, ChatRequest, ChatResponse, LlmError, ModelEvent};
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
        let request = ChatRequest {
            response_schema: None,
            images: Vec::new(),
            messages,
            tools: executor.registry().definitions(),
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
