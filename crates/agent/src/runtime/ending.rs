//! How a run ends and what it leaves for replay: notices, errors, cancellation, a run
//! that could not take its session, and the event rows stored with them.

use std::sync::Arc;

use asterism_llm::LlmError;
use asterism_protocol::{AgentEvent, MAIN_AGENT, RunFinishReason, TokenUsage};
use asterism_store::MessageRole;

use super::{AgentRuntime, Run, RunOutcome};
use crate::EventSink;

impl AgentRuntime {
    /// The outcome of a run that could not take its session (busy, cancelled while
    /// waiting, or the database failed): an error event, nothing stored.
    pub(super) fn not_started(
        &self,
        session_id: &str,
        sink: &Arc<dyn EventSink>,
        error: crate::lease::LeaseError,
    ) -> RunOutcome {
        use crate::lease::LeaseError;
        let (kind, reason, busy_pid) = match &error {
            LeaseError::Busy { holder, .. } => ("busy", RunFinishReason::Failed, Some(holder.pid)),
            LeaseError::Cancelled(_) => ("cancelled", RunFinishReason::Cancelled, None),
            LeaseError::Store(_) => ("storage", RunFinishReason::Failed, None),
        };
        sink.emit(AgentEvent::Error {
            kind: kind.into(),
            message: error.to_string(),
            step: 0,
        });
        RunOutcome {
            session_id: session_id.to_string(),
            reason,
            usage: TokenUsage::default(),
            steps: 0,
            error: Some(error.to_string()),
            answer: String::new(),
            busy_pid,
        }
    }

    pub(super) fn fail_storage(&self, run: &Run<'_>, outcome: &mut RunOutcome, error: String) {
        let message = format!("Storing the session failed: {error}");
        run.sink.emit(AgentEvent::Error {
            kind: "storage".into(),
            message: message.clone(),
            step: outcome.steps,
        });
        outcome.reason = RunFinishReason::Failed;
        outcome.error = Some(message);
    }

    /// Emits and stores a notice.
    pub(crate) fn notice(&self, run: &Run<'_>, step: i32, kind: &str, message: String) {
        let event = AgentEvent::Notice {
            kind: kind.into(),
            message,
            step,
        };
        self.store_event(run, step, &event, None);
        run.sink.emit(event);
    }

    pub(super) fn end_cancelled(&self, run: &Run<'_>, step: i32, outcome: &mut RunOutcome) {
        outcome.reason = RunFinishReason::Cancelled;
        if run.rows.agent_name != MAIN_AGENT {
            // The parent reports the cancellation of the run.
            return;
        }
        let event = AgentEvent::Error {
            kind: "cancelled".into(),
            message: "The run was cancelled.".into(),
            step,
        };
        self.store_event(run, step, &event, None);
        run.sink.emit(event);
        outcome.reason = RunFinishReason::Cancelled;
    }

    pub(super) fn end_failed(
        &self,
        run: &Run<'_>,
        step: i32,
        error: LlmError,
        thinking: String,
        text: String,
        outcome: &mut RunOutcome,
    ) {
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
        self.store_event(run, step, &event, Some((thinking, text)));
        run.sink.emit(event);
        outcome.reason = if cancelled {
            RunFinishReason::Cancelled
        } else {
            RunFinishReason::Failed
        };
        outcome.error = (!cancelled).then(|| error.to_string());
    }

    /// Stores an event row (errors, notices, run ends) so replay shows it; what was
    /// streamed before a failure is kept with it.
    pub(crate) fn store_event(
        &self,
        run: &Run<'_>,
        step: i32,
        event: &AgentEvent,
        partial: Option<(String, String)>,
    ) {
        self.store_event_with(run, step, event, partial, None);
    }

    pub(crate) fn store_event_with(
        &self,
        run: &Run<'_>,
        step: i32,
        event: &AgentEvent,
        partial: Option<(String, String)>,
        extra: Option<(&str, serde_json::Value)>,
    ) {
        let mut row = run.rows.row(step, MessageRole::Event, String::new());
        let (thinking, text) = partial.unwrap_or_default();
        row.metadata =
            serde_json::json!({"event": event, "partialThinking": thinking, "partialText": text});
        if let (Some((key, value)), Some(object)) = (extra, row.metadata.as_object_mut()) {
            object.insert(key.to_string(), value);
        }
        run.persister.messages(vec![row]);
    }
}
