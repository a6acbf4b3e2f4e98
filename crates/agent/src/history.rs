//! The conversation the model sees, rebuilt from stored messages, and the rows that
//! store it.

use asterism_llm::{ChatMessage, ToolCall};
use asterism_store::{MessageRole, NewMessage, StoredMessage};

/// The text a tool call gets when its run ended before it finished.
pub(crate) const INTERRUPTED_RESULT: &str =
    "This tool call was interrupted (the run was cancelled or failed) before it returned a result.";

/// Rebuilds the main agent's conversation from its stored messages (system rows are
/// left out: the current system prompt is used). Tool calls without a stored result get
/// an "interrupted" result, so the history is always valid to send.
pub(crate) fn conversation_from(messages: &[StoredMessage], agent_name: &str) -> Vec<ChatMessage> {
    let mut conversation = Vec::new();
    let mut open_calls: Vec<String> = Vec::new();
    let close_open = |conversation: &mut Vec<ChatMessage>, open_calls: &mut Vec<String>| {
        for tool_call_id in open_calls.drain(..) {
            conversation.push(ChatMessage::Tool {
                tool_call_id,
                content: INTERRUPTED_RESULT.into(),
            });
        }
    };
    for message in messages
        .iter()
        .filter(|message| message.agent_name == agent_name)
    {
        match message.role {
            MessageRole::System | MessageRole::Event => {}
            MessageRole::User => {
                close_open(&mut conversation, &mut open_calls);
                conversation.push(ChatMessage::User {
                    content: message.content.clone(),
                });
            }
            MessageRole::Assistant => {
                close_open(&mut conversation, &mut open_calls);
                let tool_calls = stored_tool_calls(message);
                open_calls = tool_calls.iter().map(|call| call.id.clone()).collect();
                conversation.push(ChatMessage::Assistant {
                    content: (!message.content.is_empty()).then(|| message.content.clone()),
                    tool_calls,
                });
            }
            MessageRole::Tool => {
                let Some(tool_call_id) = message.tool_call_id.clone() else {
                    continue;
                };
                // A result whose call is not open (duplicated or orphaned) is dropped:
                // providers reject tool messages that answer nothing.
                if let Some(position) = open_calls.iter().position(|id| *id == tool_call_id) {
                    open_calls.remove(position);
                    conversation.push(ChatMessage::Tool {
                        tool_call_id,
                        content: message.content.clone(),
                    });
                }
            }
        }
    }
    close_open(&mut conversation, &mut open_calls);
    conversation
}

pub(crate) fn stored_tool_calls(message: &StoredMessage) -> Vec<ToolCall> {
    message
        .tool_calls
        .as_ref()
        .and_then(|calls| serde_json::from_value::<Vec<ToolCall>>(calls.clone()).ok())
        .unwrap_or_default()
}

/// Identity of the rows a run writes.
#[derive(Clone)]
pub(crate) struct RowScope {
    pub session_id: String,
    pub run_id: String,
    pub agent_name: String,
}

impl RowScope {
    pub fn row(&self, step: i32, role: MessageRole, content: String) -> NewMessage {
        NewMessage {
            session_id: self.session_id.clone(),
            run_id: self.run_id.clone(),
            step,
            agent_name: self.agent_name.clone(),
            role,
            content,
            tool_calls: None,
            tool_call_id: None,
            metadata: serde_json::json!({}),
            raw_json: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn stored(
        seq: i64,
        role: MessageRole,
        content: &str,
        tool_calls: Option<serde_json::Value>,
        tool_call_id: Option<&str>,
    ) -> StoredMessage {
        StoredMessage {
            seq,
            run_id: "r".into(),
            step: 1,
            agent_name: "main".into(),
            role,
            content: content.into(),
            tool_calls,
            tool_call_id: tool_call_id.map(str::to_string),
            metadata: json!({}),
            raw_json: None,
            created_at: String::new(),
        }
    }

    #[test]
    fn unanswered_calls_get_an_interrupted_result_and_orphans_are_dropped() {
        let calls = json!([{"id": "a", "name": "query_target", "arguments": "{}"}, {"id": "b", "name": "query_target", "arguments": "{}"}]);
        let messages = vec![
            stored(1, MessageRole::User, "q", None, None),
            stored(2, MessageRole::Assistant, "", Some(calls), None),
            stored(3, MessageRole::Tool, "result a", None, Some("a")),
            stored(4, MessageRole::Tool, "orphan", None, Some("zzz")),
            stored(5, MessageRole::Event, "error", None, None),
            stored(6, MessageRole::User, "again", None, None),
        ];
        let conversation = conversation_from(&messages, "main");
        assert_eq!(conversation.len(), 5);
        assert_eq!(
            conversation[2],
            ChatMessage::Tool {
                tool_call_id: "a".into(),
                content: "result a".into()
            }
        );
        assert_eq!(
            conversation[3],
            ChatMessage::Tool {
                tool_call_id: "b".into(),
                content: INTERRUPTED_RESULT.into()
            }
        );
        assert_eq!(
            conversation[4],
            ChatMessage::User {
                content: "again".into()
            }
        );
    }
}
