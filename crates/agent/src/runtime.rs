//! The ReAct loop: stream the model's answer, run the tools it calls, repeat until it
//! answers without tools, `max_steps` is reached, or the run is cancelled.

use std::sync::Arc;
use std::time::Instant;

use asterism_llm::{ChatMessage, ChatModel, ChatRequest, ChatResponse, LlmError, ModelEvent};
use asterism_protocol::{AgentEvent, MAIN_AGENT, RunFinishReason, TokenUsage};
use asterism_store::{MessageRole, MetricRow, StoreError};
use futures::StreamExt;
use tokio_util::sync::CancellationToken;

use crate::executor::{ExecutionScope, assign_call_ids, execute_calls};
use crate::history::{RowScope, conversation_from};
use crate::{AgentConfig, EventSink, Services, ToolContext, ToolRegistry};

/// What to run.
#[derive(Debug, Clone, PartialEq)]
pub struct RunRequest {
    /// Continue this session; `None` starts a new one.
    pub session_id: Option<String>,
    pub question: String,
    pub enable_thinking: bool,
}

/// How a run ended.
#[derive(Debug, Clone, PartialEq)]
pub struct RunOutcome {
    pub session_id: String,
    pub reason: RunFinishReason,
    pub usage: TokenUsage,
    pub steps: i32,
    /// The error that ended a failed run.
    pub error: Option<String>,
    /// The final answer text (the last step's text).
    pub answer: String,
}

/// The agent: a model, tools and services.
#[derive(Clone)]
pub struct AgentRuntime {
    services: Arc<Services>,
    model: Arc<dyn ChatModel>,
    registry: Arc<ToolRegistry>,
    config: AgentConfig,
}

/// The model's answer for one step, or why there is none.
enum StepOutcome {
    Answer(ChatResponse, f64),
    Failed {
        error: LlmError,
        thinking: String,
        text: String,
    },
}

impl AgentRuntime {
    pub fn new(
        services: Arc<Services>,
        model: Arc<dyn ChatModel>,
        registry: ToolRegistry,
        config: AgentConfig,
    ) -> Self {
        Self {
            services,
            model,
            registry: Arc::new(registry),
            config,
        }
    }

    pub fn services(&self) -> &Arc<Services> {
        &self.services
    }

    pub fn model(&self) -> &Arc<dyn ChatModel> {
        &self.model
    }

    pub fn registry(&self) -> &ToolRegistry {
        &self.registry
    }

    /// Runs the agent on a question. Every event goes to `sink`; every message is stored
    /// before the run returns. Storage failures end the run with an `Error` event.
    pub async fn run(
        &self,
        request: RunRequest,
        sink: Arc<dyn EventSink>,
        cancel: CancellationToken,
    ) -> RunOutcome {
        let session_id = request
            .session_id
            .clone()
            .unwrap_or_else(|| uuid::Uuid::new_v4().to_string());
        let rows = RowScope {
            session_id: session_id.clone(),
            run_id: uuid::Uuid::new_v4().to_string(),
            agent_name: MAIN_AGENT.to_string(),
        };
        let mut outcome = RunOutcome {
            session_id: session_id.clone(),
            reason: RunFinishReason::Failed,
            usage: TokenUsage::default(),
            steps: 0,
            error: None,
            answer: String::new(),
        };
        if let Err(error) = self
            .run_inner(&request, &rows, &sink, &cancel, &mut outcome)
            .await
        {
            let message = format!("Storing the session failed: {error}");
            sink.emit(AgentEvent::Error {
                kind: "storage".into(),
                message: message.clone(),
                step: outcome.steps,
            });
            outcome.reason = RunFinishReason::Failed;
            outcome.error = Some(message);
        }
        let finished = AgentEvent::RunFinished {
            session_id: session_id.clone(),
            reason: outcome.reason,
            usage: outcome.usage,
            steps: outcome.steps,
            finished_at: asterism_store::now_rfc3339(),
        };
        self.store_event(&rows, outcome.steps, &finished, None)
            .await;
        sink.emit(finished);
        outcome
    }

    async fn run_inner(
        &self,
        request: &RunRequest,
        rows: &RowScope,
        sink: &Arc<dyn EventSink>,
        cancel: &CancellationToken,
        outcome: &mut RunOutcome,
    ) -> Result<(), StoreError> {
        let store = &self.services.store;
        let question = request.question.trim().to_string();
        store
            .ensure_session(&rows.session_id, &question, self.model.model_name())
            .await?;
        let previous = store.messages(&rows.session_id).await?;
        let mut conversation = conversation_from(&previous, &rows.agent_name);
        let system =
            crate::prompt::system_prompt(&chrono::Utc::now().format("%Y-%m-%d").to_string());

        let mut first_rows = Vec::new();
        if previous.is_empty() {
            first_rows.push(rows.row(0, MessageRole::System, system.clone()));
        }
        let mut user_row = rows.row(0, MessageRole::User, question.clone());
        user_row.metadata = serde_json::json!({"model": self.model.model_name(), "enableThinking": request.enable_thinking});
        first_rows.push(user_row);
        store.append_messages(&first_rows).await?;
        conversation.push(ChatMessage::User {
            content: question.clone(),
        });
        sink.emit(AgentEvent::RunStarted {
            run_id: rows.run_id.clone(),
            session_id: rows.session_id.clone(),
            question,
            model: self.model.model_name().to_string(),
            started_at: asterism_store::now_rfc3339(),
        });

        let tool_context = ToolContext {
            services: self.services.clone(),
            session_id: rows.session_id.clone(),
            run_id: rows.run_id.clone(),
            agent_name: rows.agent_name.clone(),
            tool_call_id: String::new(),
            silent: false,
            enable_thinking: request.enable_thinking,
            cancel: cancel.clone(),
            events: sink.clone(),
        };

        for step in 1..=i32::try_from(self.config.max_steps).unwrap_or(i32::MAX) {
            outcome.steps = step;
            if cancel.is_cancelled() {
                // Cancelled while tools ran: reported as a cancelled model call is.
                let event = AgentEvent::Error {
                    kind: "cancelled".into(),
                    message: "The run was cancelled.".into(),
                    step,
                };
                self.store_event(rows, step, &event, None).await;
                sink.emit(event);
                outcome.reason = RunFinishReason::Cancelled;
                return Ok(());
            }
            let mut messages = Vec::with_capacity(conversation.len() + 1);
            messages.push(ChatMessage::System {
                content: system.clone(),
            });
            messages.extend(conversation.iter().cloned());
            let chat_request = ChatRequest {
                messages,
                tools: self.registry.definitions(),
                enable_thinking: request.enable_thinking,
                model: None,
            };
            let (response, latency_ms) = match self
                .stream_step(chat_request, step, sink.as_ref(), cancel)
                .await
            {
                StepOutcome::Answer(response, latency_ms) => (response, latency_ms),
                StepOutcome::Failed {
                    error,
                    thinking,
                    text,
                } => {
                    let cancelled = matches!(error, LlmError::Cancelled);
                    let event = AgentEvent::Error {
                        kind: error.kind().to_string(),
                        message: if cancelled {
                            "The run was cancelled.".into()
                        } else {
                            error.to_string()
                        },
                        step,
                    };
                    self.store_event(rows, step, &event, Some((thinking, text)))
                        .await;
                    sink.emit(event);
                    outcome.reason = if cancelled {
                        RunFinishReason::Cancelled
                    } else {
                        RunFinishReason::Failed
                    };
                    outcome.error = (!cancelled).then(|| error.to_string());
                    return Ok(());
                }
            };
            let mut response = response;
            assign_call_ids(&mut response.tool_calls);
            let usage = response.usage.unwrap_or_default();
            outcome.usage.add(usage);
            sink.emit(AgentEvent::Usage {
                step,
                usage,
                model: response.model.clone(),
                latency_ms,
            });
            let mut assistant = rows.row(step, MessageRole::Assistant, response.text.clone());
            assistant.tool_calls = (!response.tool_calls.is_empty())
                .then(|| serde_json::to_value(&response.tool_calls).unwrap_or_default());
            assistant.metadata = serde_json::json!({
                "thinking": response.thinking,
                "model": response.model,
                "finishReason": response.finish_reason,
                "usage": usage,
                "latencyMs": latency_ms,
            });
            let assistant_message = ChatMessage::Assistant {
                content: (!response.text.is_empty()).then(|| response.text.clone()),
                tool_calls: response.tool_calls.clone(),
            };
            assistant.raw_json = serde_json::to_value(&assistant_message).ok();
            store.append_messages(&[assistant]).await?;
            store
                .append_metrics(&[MetricRow {
                    session_id: rows.session_id.clone(),
                    run_id: rows.run_id.clone(),
                    step,
                    agent_name: rows.agent_name.clone(),
                    kind: "model".into(),
                    name: response.model.clone(),
                    prompt_tokens: usage.prompt_tokens,
                    completion_tokens: usage.completion_tokens,
                    duration_ms: latency_ms,
                }])
                .await?;
            if !response.text.is_empty() {
                outcome.answer = response.text.clone();
            }
            if response.tool_calls.is_empty() {
                outcome.reason = RunFinishReason::Completed;
                return Ok(());
            }
            let results = execute_calls(
                &response.tool_calls,
                ExecutionScope {
                    registry: &self.registry,
                    config: &self.config,
                    context: &tool_context,
                    step,
                },
            )
            .await;
            conversation.push(assistant_message);
            let mut tool_rows = Vec::with_capacity(results.len());
            for result in &results {
                let mut row = rows.row(step, MessageRole::Tool, result.output.content.clone());
                row.tool_call_id = Some(result.tool_call_id.clone());
                row.metadata = serde_json::json!({
                    "name": result.name,
                    "arguments": result.arguments,
                    "isError": result.output.is_error,
                    "metadata": result.output.metadata,
                    "durationMs": result.duration.as_secs_f64() * 1000.0,
                    "outcome": result.outcome,
                });
                tool_rows.push(row);
                conversation.push(ChatMessage::Tool {
                    tool_call_id: result.tool_call_id.clone(),
                    content: result.output.content.clone(),
                });
            }
            store.append_messages(&tool_rows).await?;
            store.touch_session(&rows.session_id).await?;
        }
        outcome.reason = RunFinishReason::MaxSteps;
        let event = AgentEvent::Error {
            kind: "maxSteps".into(),
            message: format!(
                "The run stopped after {} steps, its limit, before the model finished.",
                self.config.max_steps
            ),
            step: outcome.steps,
        };
        self.store_event(rows, outcome.steps, &event, None).await;
        sink.emit(event);
        Ok(())
    }

    /// Streams one model call, forwarding thinking and text as they arrive.
    async fn stream_step(
        &self,
        request: ChatRequest,
        step: i32,
        sink: &dyn EventSink,
        cancel: &CancellationToken,
    ) -> StepOutcome {
        let started = Instant::now();
        let mut thinking = String::new();
        let mut text = String::new();
        let mut stream = match self.model.stream(request, cancel.clone()).await {
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
                    sink.emit(AgentEvent::Thinking {
                        delta,
                        step,
                        agent_name: MAIN_AGENT.into(),
                    });
                }
                Ok(ModelEvent::Text(delta)) => {
                    text.push_str(&delta);
                    sink.emit(AgentEvent::TextDelta {
                        delta,
                        step,
                        agent_name: MAIN_AGENT.into(),
                    });
                }
                Ok(ModelEvent::ToolCallReady(_)) => {}
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

    /// Stores an event row (errors, run ends) so replay shows it; what was streamed
    /// before a failure is kept with it.
    async fn store_event(
        &self,
        rows: &RowScope,
        step: i32,
        event: &AgentEvent,
        partial: Option<(String, String)>,
    ) {
        let mut row = rows.row(step, MessageRole::Event, String::new());
        let (thinking, text) = partial.unwrap_or_default();
        row.metadata =
            serde_json::json!({"event": event, "partialThinking": thinking, "partialText": text});
        if let Err(error) = self.services.store.append_messages(&[row]).await {
            tracing::warn!(%error, "could not store a timeline event");
        }
    }
}
