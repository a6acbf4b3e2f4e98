use serde::{Deserialize, Serialize};
use specta::Type;

use crate::AgentEvent;

/// What the UI renders: one entry of a session's timeline. Built by [`Timeline`] from
/// [`AgentEvent`]s, live as they stream or from the database on replay.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Type)]
#[serde(
    tag = "kind",
    rename_all = "kebab-case",
    rename_all_fields = "camelCase"
)]
pub enum TimelineItem {
    /// The question the user asked.
    User { id: String, text: String },
    /// The model's reasoning for one step (collapsed by default).
    Thinking {
        id: String,
        step: i32,
        agent_name: String,
        text: String,
    },
    /// Answer text streamed by the model.
    Text {
        id: String,
        step: i32,
        agent_name: String,
        text: String,
    },
    /// A tool call with its arguments.
    ToolCall {
        id: String,
        tool_call_id: String,
        step: i32,
        agent_name: String,
        name: String,
        #[specta(type = crate::JsonValue)]
        arguments: serde_json::Value,
    },
    /// A tool's result, paired with its call by `toolCallId`.
    ToolResult {
        id: String,
        tool_call_id: String,
        step: i32,
        agent_name: String,
        name: String,
        output: String,
        is_error: bool,
        #[specta(type = crate::JsonValue)]
        metadata: serde_json::Value,
        duration_ms: f64,
    },
    /// An agent's todo list as it stood after one todo_write (each update is an item, so
    /// the timeline shows how the plan evolved; the last one is current).
    Todos {
        id: String,
        agent_name: String,
        #[specta(type = crate::JsonValue)]
        todos: serde_json::Value,
    },
    /// A subagent's work: its task, then (once finished) its summary. The items of that
    /// agent (same `agentName`) between its start and finish nest under it.
    Subagent {
        id: String,
        agent_name: String,
        parent: String,
        task: String,
        summary: Option<String>,
        reason: Option<crate::RunFinishReason>,
        steps: i32,
    },
    /// A notice: a retry, a fallback model, a compaction marker, a hook problem.
    Notice {
        id: String,
        step: i32,
        notice_kind: String,
        message: String,
    },
    /// An error that ended or interrupted the run.
    Error {
        id: String,
        step: i32,
        error_kind: String,
        message: String,
    },
}

/// Folds [`AgentEvent`]s into [`TimelineItem`]s. The same fold serves live runs and
/// replay from the database, so both show exactly the same items.
///
/// Consecutive `Thinking` (or `TextDelta`) fragments of one step and agent merge into one
/// item; events that have no visual form of their own (usage, progress) are skipped.
#[derive(Debug, Default, Clone)]
pub struct Timeline {
    items: Vec<TimelineItem>,
}

impl Timeline {
    pub fn new() -> Self {
        Self::default()
    }

    /// Builds the timeline of a whole event sequence.
    pub fn from_events<'a>(events: impl IntoIterator<Item = &'a AgentEvent>) -> Self {
        let mut timeline = Self::new();
        for event in events {
            timeline.apply(event);
        }
        timeline
    }

    pub fn items(&self) -> &[TimelineItem] {
        &self.items
    }

    pub fn into_items(self) -> Vec<TimelineItem> {
        self.items
    }

    fn next_id(&self) -> String {
        format!("item-{}", self.items.len())
    }

    /// Applies one event.
    pub fn apply(&mut self, event: &AgentEvent) {
        match event {
            AgentEvent::Thinking {
                delta,
                step,
                agent_name,
            } => self.stream(true, delta, *step, agent_name),
            AgentEvent::TextDelta {
                delta,
                step,
                agent_name,
            } => self.stream(false, delta, *step, agent_name),
            AgentEvent::SubagentFinished {
                agent_name,
                summary,
                reason,
                steps,
            } => {
                // The latest unfinished item of that subagent.
                for item in self.items.iter_mut().rev() {
                    if let TimelineItem::Subagent {
                        agent_name: name,
                        summary: slot @ None,
                        reason: ended,
                        steps: taken,
                        ..
                    } = item
                        && name == agent_name
                    {
                        *slot = Some(summary.clone());
                        *ended = Some(*reason);
                        *taken = *steps;
                        break;
                    }
                }
            }
            other => {
                let id = self.next_id();
                if let Some(item) = new_item(id, other) {
                    self.items.push(item);
                }
            }
        }
    }

    /// Streamed thinking or answer text: added to the last item when it is the same
    /// kind, step and agent, else a new item.
    fn stream(&mut self, thinking: bool, delta: &str, step: i32, agent_name: &str) {
        match self.items.last_mut() {
            Some(TimelineItem::Thinking {
                step: last_step,
                agent_name: last_agent,
                text,
                ..
            }) if thinking && *last_step == step && last_agent == agent_name => {
                text.push_str(delta);
                return;
            }
            Some(TimelineItem::Text {
                step: last_step,
                agent_name: last_agent,
                text,
                ..
            }) if !thinking && *last_step == step && last_agent == agent_name => {
                text.push_str(delta);
                return;
            }
            _ => {}
        }
        let (id, agent_name, text) = (self.next_id(), agent_name.to_string(), delta.to_string());
        self.items.push(match thinking {
            true => TimelineItem::Thinking {
                id,
                step,
                agent_name,
                text,
            },
            false => TimelineItem::Text {
                id,
                step,
                agent_name,
                text,
            },
        });
    }
}

/// The item an event adds on its own (`None`: the event adds none).
fn new_item(id: String, event: &AgentEvent) -> Option<TimelineItem> {
    Some(match event {
        AgentEvent::RunStarted { question, .. } => TimelineItem::User {
            id,
            text: question.clone(),
        },
        AgentEvent::ToolCall { .. } | AgentEvent::ToolResult { .. } => return tool_item(id, event),
        AgentEvent::Error { .. } | AgentEvent::Notice { .. } | AgentEvent::Compacted { .. } => {
            return notice_item(id, event);
        }
        AgentEvent::TodoUpdated { agent_name, todos } => TimelineItem::Todos {
            id,
            agent_name: agent_name.clone(),
            todos: todos.clone(),
        },
        AgentEvent::SubagentStarted {
            agent_name,
            parent,
            task,
        } => TimelineItem::Subagent {
            id,
            agent_name: agent_name.clone(),
            parent: parent.clone(),
            task: task.clone(),
            summary: None,
            reason: None,
            steps: 0,
        },
        _ => return None,
    })
}

/// A tool call, or its result.
fn tool_item(id: String, event: &AgentEvent) -> Option<TimelineItem> {
    Some(match event {
        AgentEvent::ToolCall {
            tool_call_id,
            name,
            arguments,
            step,
            agent_name,
            ..
        } => TimelineItem::ToolCall {
            id,
            tool_call_id: tool_call_id.clone(),
            step: *step,
            agent_name: agent_name.clone(),
            name: name.clone(),
            arguments: arguments.clone(),
        },
        AgentEvent::ToolResult {
            tool_call_id,
            name,
            output,
            is_error,
            metadata,
            step,
            duration_ms,
            agent_name,
            ..
        } => TimelineItem::ToolResult {
            id,
            tool_call_id: tool_call_id.clone(),
            step: *step,
            agent_name: agent_name.clone(),
            name: name.clone(),
            output: output.clone(),
            is_error: *is_error,
            metadata: metadata.clone(),
            duration_ms: *duration_ms,
        },
        _ => return None,
    })
}

/// An error, a notice, or the notice that the context was compacted.
fn notice_item(id: String, event: &AgentEvent) -> Option<TimelineItem> {
    Some(match event {
        AgentEvent::Error {
            kind,
            message,
            step,
        } => TimelineItem::Error {
            id,
            step: *step,
            error_kind: kind.clone(),
            message: message.clone(),
        },
        AgentEvent::Notice {
            kind,
            message,
            step,
        } => TimelineItem::Notice {
            id,
            step: *step,
            notice_kind: kind.clone(),
            message: message.clone(),
        },
        AgentEvent::Compacted {
            kind,
            tokens_before,
            tokens_after,
            step,
        } => TimelineItem::Notice {
            id,
            step: *step,
            notice_kind: "compaction".into(),
            message: format!(
                "Context compacted ({kind}): about {tokens_before} → {tokens_after} tokens"
            ),
        },
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{RunFinishReason, TokenUsage};
    use pretty_assertions::assert_eq;
    use serde_json::json;

    /// A run as the engine emits it: question, streamed thinking, a tool call and its
    /// result, then the streamed answer.
    pub(crate) fn sample_run() -> Vec<AgentEvent> {
        let main = || "main".to_string();
        vec![
            AgentEvent::RunStarted {
                run_id: "r1".into(),
                session_id: "s1".into(),
                question: "Where is NGC 4258?".into(),
                model: "scripted".into(),
                started_at: "2026-12-02T20:00:00Z".into(),
            },
            AgentEvent::Thinking {
                delta: "Resolve ".into(),
                step: 1,
                agent_name: main(),
            },
            AgentEvent::Thinking {
                delta: "the name.".into(),
                step: 1,
                agent_name: main(),
            },
            AgentEvent::ToolCall {
                id: "e1".into(),
                tool_call_id: "call_1".into(),
                name: "query_target".into(),
                arguments: json!({"name": "NGC 4258"}),
                step: 1,
                agent_name: main(),
            },
            AgentEvent::ToolResult {
                id: "e1".into(),
                tool_call_id: "call_1".into(),
                name: "query_target".into(),
                output: "M 106 at 12:18:57.61 +47:18:13.3".into(),
                is_error: false,
                metadata: json!({"raDeg": 184.74008333}),
                step: 1,
                duration_ms: 12.0,
                agent_name: main(),
            },
            AgentEvent::TodoUpdated {
                agent_name: main(),
                todos: json!([{"taskId": "locate", "content": "Resolve NGC 4258", "status": "in_progress", "blockedBy": []}]),
            },
            AgentEvent::SubagentStarted {
                agent_name: "scout".into(),
                parent: main(),
                task: "Find the maser distance".into(),
            },
            AgentEvent::Thinking {
                delta: "Search ADS.".into(),
                step: 1,
                agent_name: "scout".into(),
            },
            AgentEvent::SubagentFinished {
                agent_name: "scout".into(),
                summary: "7.58 Mpc (Reid et al. 2019)".into(),
                reason: RunFinishReason::Completed,
                steps: 2,
            },
            AgentEvent::TextDelta {
                delta: "NGC 4258 is ".into(),
                step: 2,
                agent_name: main(),
            },
            AgentEvent::TextDelta {
                delta: "M 106.".into(),
                step: 2,
                agent_name: main(),
            },
            AgentEvent::Notice {
                kind: "retry".into(),
                message: "The model m failed (HTTP 503); retry 1 of 3 in 0.5 s".into(),
                step: 3,
            },
            AgentEvent::Compacted {
                kind: "auto".into(),
                tokens_before: 120_000,
                tokens_after: 9_000,
                step: 3,
            },
            AgentEvent::Error {
                kind: "network".into(),
                message: "the model stream broke mid-way".into(),
                step: 3,
            },
            AgentEvent::RunFinished {
                session_id: "s1".into(),
                reason: RunFinishReason::Failed,
                usage: TokenUsage::default(),
                steps: 3,
                finished_at: "2026-12-02T20:00:01Z".into(),
            },
        ]
    }

    #[test]
    fn deltas_merge_and_tool_pairs_keep_their_ids() {
        let timeline = Timeline::from_events(&sample_run());
        let kinds: Vec<_> = timeline
            .items()
            .iter()
            .map(|item| {
                serde_json::to_value(item).unwrap()["kind"]
                    .as_str()
                    .unwrap()
                    .to_string()
            })
            .collect();
        assert_eq!(
            kinds,
            [
                "user",
                "thinking",
                "tool-call",
                "tool-result",
                "todos",
                "subagent",
                "thinking",
                "text",
                "notice",
                "notice",
                "error"
            ]
        );
        match &timeline.items()[1] {
            TimelineItem::Thinking { text, .. } => assert_eq!(text, "Resolve the name."),
            other => panic!("expected thinking, got {other:?}"),
        }
        match &timeline.items()[5] {
            TimelineItem::Subagent {
                summary, reason, ..
            } => {
                assert_eq!(summary.as_deref(), Some("7.58 Mpc (Reid et al. 2019)"));
                assert_eq!(*reason, Some(RunFinishReason::Completed));
            }
            other => panic!("expected the finished subagent, got {other:?}"),
        }
        match &timeline.items()[7] {
            TimelineItem::Text { text, .. } => assert_eq!(text, "NGC 4258 is M 106."),
            other => panic!("expected text, got {other:?}"),
        }
    }

    #[test]
    fn thinking_of_a_new_step_starts_a_new_item() {
        let events = vec![
            AgentEvent::Thinking {
                delta: "a".into(),
                step: 1,
                agent_name: "main".into(),
            },
            AgentEvent::Thinking {
                delta: "b".into(),
                step: 2,
                agent_name: "main".into(),
            },
        ];
        assert_eq!(Timeline::from_events(&events).items().len(), 2);
    }

    /// Writes the events and the items they fold into where the UI's own fold is tested
    /// against them, so the TypeScript reducer and this one cannot drift apart.
    #[test]
    fn shared_fold_fixture_is_fresh() {
        let events = sample_run();
        let items = Timeline::from_events(&events).into_items();
        let fixture = serde_json::to_string_pretty(&json!({"events": events, "items": items}))
            .unwrap()
            + "\n";
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../ui/src/timeline/fold.fixture.json");
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).unwrap();
        }
        let current = std::fs::read_to_string(&path).unwrap_or_default();
        if current != fixture {
            std::fs::write(&path, fixture).unwrap();
        }
    }
}
