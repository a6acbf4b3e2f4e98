//! Offline replay: a stored session turned back into the [`AgentEvent`]s it produced,
//! from the database alone (no model, no network).

use std::sync::{Arc, Mutex};

use asterism_protocol::{AgentEvent, Timeline, TimelineItem};
use asterism_store::{MessageRole, Store, StoreError, StoredMessage};

use crate::history::stored_tool_calls;

/// The events of a stored session, in order, as they were emitted live (streamed deltas
/// come back whole: one `Thinking` and one `TextDelta` per step).
pub async fn session_events(
    store: &Store,
    session_id: &str,
) -> Result<Vec<AgentEvent>, StoreError> {
    let session = store.session(session_id).await?;
    let messages = store.messages_for_replay(session_id).await?;
    let mut events = events_from_messages(&session.id, &session.model, &messages);
    // The last run has no end: interrupted, unless a live run is still writing it.
    if run_is_open(&events)
        && !store
            .session_is_busy(session_id, crate::lease::STALE_AFTER)
            .await?
    {
        events.push(interrupted(&events));
    }
    Ok(events)
}

/// Whether the last run of these events has not finished.
fn run_is_open(events: &[AgentEvent]) -> bool {
    events
        .iter()
        .rev()
        .find_map(|event| match event {
            AgentEvent::RunStarted { .. } => Some(true),
            AgentEvent::RunFinished { .. } => Some(false),
            _ => None,
        })
        .unwrap_or(false)
}

/// The marker of a run whose process ended before it did (killed, crashed, power cut).
fn interrupted(events: &[AgentEvent]) -> AgentEvent {
    let step = events
        .iter()
        .rev()
        .find_map(|event| match event {
            AgentEvent::ToolCall { step, .. }
            | AgentEvent::ToolResult { step, .. }
            | AgentEvent::Thinking { step, .. }
            | AgentEvent::TextDelta { step, .. } => Some(*step),
            _ => None,
        })
        .unwrap_or(0);
    AgentEvent::Error {
        kind: "interrupted".into(),
        message: "This run was interrupted: its process ended before the run finished. The session can be continued.".into(),
        step,
    }
}

/// The timeline of a stored session: the same fold the live UI applies.
pub async fn session_timeline(
    store: &Store,
    session_id: &str,
) -> Result<Vec<TimelineItem>, StoreError> {
    let events = session_events(store, session_id).await?;
    Ok(Timeline::from_events(&events).into_items())
}

/// The last session folded into a timeline, so the whole timeline asked for right after
/// its tail, or the same session opened again, is not read and folded again (for 10,000
/// events that is most of the time a replay takes). One session is kept; it is used only
/// while the session's messages are unchanged (their count and last `seq`).
#[derive(Debug, Default)]
pub struct TimelineCache {
    slot: Mutex<Option<CachedTimeline>>,
}

#[derive(Debug)]
struct CachedTimeline {
    session_id: String,
    stamp: (i64, i64),
    items: Arc<Vec<TimelineItem>>,
}

impl TimelineCache {
    /// The session's timeline, folded now or taken from the last fold when still right.
    pub async fn timeline(
        &self,
        store: &Store,
        session_id: &str,
    ) -> Result<Arc<Vec<TimelineItem>>, StoreError> {
        let stamp = store.message_stamp(session_id).await?;
        if let Some(cached) = self.slot().as_ref()
            && cached.session_id == session_id
            && cached.stamp == stamp
        {
            return Ok(cached.items.clone());
        }
        let items = Arc::new(session_timeline(store, session_id).await?);
        *self.slot() = Some(CachedTimeline {
            session_id: session_id.to_string(),
            stamp,
            items: items.clone(),
        });
        Ok(items)
    }

    /// The last `count` items of the session's timeline and how many it has in all: what a
    /// long session shows first (its end, where the reader picks up) while the rest is on
    /// its way.
    pub async fn tail(
        &self,
        store: &Store,
        session_id: &str,
        count: usize,
    ) -> Result<(usize, Vec<TimelineItem>), StoreError> {
        let items = self.timeline(store, session_id).await?;
        let start = items.len().saturating_sub(count);
        Ok((items.len(), items[start..].to_vec()))
    }

    /// Drops what is kept (a session was deleted or imported over).
    pub fn forget(&self) {
        *self.slot() = None;
    }

    fn slot(&self) -> std::sync::MutexGuard<'_, Option<CachedTimeline>> {
        self.slot
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

fn text_field<'a>(value: &'a serde_json::Value, key: &str) -> &'a str {
    value
        .get(key)
        .and_then(serde_json::Value::as_str)
        .unwrap_or("")
}

/// A stored answer: its thinking, its text and its tool calls, as they streamed.
fn assistant_events(message: &StoredMessage, events: &mut Vec<AgentEvent>) {
    let agent_name = &message.agent_name;
    let thinking = text_field(&message.metadata, "thinking");
    if !thinking.is_empty() {
        events.push(AgentEvent::Thinking {
            delta: thinking.to_string(),
            step: message.step,
            agent_name: agent_name.clone(),
        });
    }
    if !message.content.is_empty() {
        events.push(AgentEvent::TextDelta {
            delta: message.content.clone(),
            step: message.step,
            agent_name: agent_name.clone(),
        });
    }
    for call in stored_tool_calls(message) {
        let arguments = serde_json::from_str(&call.arguments)
            .unwrap_or(serde_json::Value::String(call.arguments.clone()));
        events.push(AgentEvent::ToolCall {
            id: call.id.clone(),
            tool_call_id: call.id,
            name: call.name,
            arguments,
            step: message.step,
            agent_name: agent_name.clone(),
        });
    }
}

/// A stored tool result (after the to-do list todo_write announced before it, live).
fn tool_events(message: &StoredMessage, events: &mut Vec<AgentEvent>) {
    let agent_name = message.agent_name.clone();
    let tool_call_id = message.tool_call_id.clone().unwrap_or_default();
    let is_error = message
        .metadata
        .get("isError")
        .and_then(serde_json::Value::as_bool)
        .unwrap_or(false);
    if text_field(&message.metadata, "name") == "todo_write"
        && !is_error
        && let Some(todos) = message.metadata.pointer("/metadata/todos")
    {
        events.push(AgentEvent::TodoUpdated {
            agent_name: agent_name.clone(),
            todos: todos.clone(),
        });
    }
    events.push(AgentEvent::ToolResult {
        id: tool_call_id.clone(),
        tool_call_id,
        name: text_field(&message.metadata, "name").to_string(),
        output: message.content.clone(),
        is_error,
        metadata: message
            .metadata
            .get("metadata")
            .cloned()
            .unwrap_or(serde_json::Value::Null),
        step: message.step,
        duration_ms: message
            .metadata
            .get("durationMs")
            .and_then(serde_json::Value::as_f64)
            .unwrap_or(0.0),
        agent_name,
    });
}

/// Rebuilds events from stored messages.
pub fn events_from_messages(
    session_id: &str,
    model: &str,
    messages: &[StoredMessage],
) -> Vec<AgentEvent> {
    let mut events = Vec::new();
    // Whether the last RunStarted has had its RunFinished (kept, not searched for: a
    // session can hold thousands of runs).
    let mut open_run = false;
    for message in messages {
        let agent_name = message.agent_name.clone();
        match message.role {
            MessageRole::System => {}
            // A subagent's task: its SubagentStarted event row shows it.
            MessageRole::User if message.agent_name != asterism_protocol::MAIN_AGENT => {}
            // A background result handed to the agent: its Notice row shows it.
            MessageRole::User if message.metadata.get("background").is_some() => {}
            MessageRole::User => {
                if open_run {
                    events.push(interrupted(&events));
                }
                open_run = true;
                events.push(AgentEvent::RunStarted {
                    run_id: message.run_id.clone(),
                    session_id: session_id.to_string(),
                    question: message.content.clone(),
                    model: message
                        .metadata
                        .get("model")
                        .and_then(serde_json::Value::as_str)
                        .unwrap_or(model)
                        .to_string(),
                    started_at: message.created_at.clone(),
                });
            }
            MessageRole::Assistant => assistant_events(message, &mut events),
            MessageRole::Tool => tool_events(message, &mut events),
            MessageRole::Event => {
                let thinking = text_field(&message.metadata, "partialThinking");
                if !thinking.is_empty() {
                    events.push(AgentEvent::Thinking {
                        delta: thinking.to_string(),
                        step: message.step,
                        agent_name: agent_name.clone(),
                    });
                }
                let text = text_field(&message.metadata, "partialText");
                if !text.is_empty() {
                    events.push(AgentEvent::TextDelta {
                        delta: text.to_string(),
                        step: message.step,
                        agent_name: agent_name.clone(),
                    });
                }
                if let Some(event) = message
                    .metadata
                    .get("event")
                    .and_then(|event| serde_json::from_value::<AgentEvent>(event.clone()).ok())
                {
                    if matches!(event, AgentEvent::RunFinished { .. }) {
                        open_run = false;
                    }
                    events.push(event);
                }
            }
        }
    }
    events
}
