//! The conversation the model sees, rebuilt from stored messages, and the rows that
//! store it.

use asterism_llm::{ChatMessage, ToolCall};
use asterism_store::{MessageRole, NewMessage, StoredMessage};

/// The text a tool call gets when its run ended before it finished.
pub(crate) const INTERRUPTED_RESULT: &str =
    "This tool call was interrupted (the run was cancelled or failed) before it returned a result.";

/// The most characters of one message's text sent to the model, and the most bytes of
/// one tool call's arguments: a bigger one stays whole in the database, and the model
/// gets its start and a note (a session holding a 5 MB message can still be continued).
pub const MAX_MESSAGE_CHARS_FOR_MODEL: usize = 64 * 1024;
pub const MAX_ARGUMENT_BYTES_FOR_MODEL: usize = 16 * 1024;

/// `text` cut to `MAX_MESSAGE_CHARS_FOR_MODEL` characters with a note, if longer.
fn cut_text(text: String) -> String {
    let total = text.chars().count();
    if total <= MAX_MESSAGE_CHARS_FOR_MODEL {
        return text;
    }
    let kept: String = text.chars().take(MAX_MESSAGE_CHARS_FOR_MODEL).collect();
    format!(
        "{kept}\n[… {} more characters of this message are kept in the session but not sent to the model]",
        total - MAX_MESSAGE_CHARS_FOR_MODEL
    )
}

/// A message as the model is sent it: over-long text cut, over-long tool arguments
/// replaced by a short JSON note (the call keeps its id and name, so its result still
/// answers it).
pub(crate) fn cut_for_model(message: ChatMessage) -> ChatMessage {
    match message {
        ChatMessage::User { content } => ChatMessage::User {
            content: cut_text(content),
        },
        ChatMessage::Tool {
            tool_call_id,
            content,
        } => ChatMessage::Tool {
            tool_call_id,
            content: cut_text(content),
        },
        ChatMessage::Assistant {
            content,
            tool_calls,
        } => ChatMessage::Assistant {
            content: content.map(cut_text),
            tool_calls: tool_calls
                .into_iter()
                .map(|mut call| {
                    if call.arguments.len() > MAX_ARGUMENT_BYTES_FOR_MODEL {
                        call.arguments = serde_json::json!({
                            "cut": format!("{} bytes of arguments, kept in the session but not sent again", call.arguments.len())
                        })
                        .to_string();
                    }
                    call
                })
                .collect(),
        },
        other => other,
    }
}

/// Rebuilds an agent's conversation from its stored messages (system rows are left out:
/// the current system prompt is used). Tool results are put in call order whatever order
/// they were stored in; calls without a stored result get an "interrupted" result, so the
/// history is always valid to send; compaction events replace what they summarised.
pub(crate) fn conversation_from(messages: &[StoredMessage], agent_name: &str) -> Vec<ChatMessage> {
    let mut conversation = Vec::new();
    // The open assistant turn: its call ids in order and the results seen so far.
    let mut open_calls: Vec<String> = Vec::new();
    let mut results: std::collections::HashMap<String, String> = std::collections::HashMap::new();
    let close_open =
        |conversation: &mut Vec<ChatMessage>,
         open_calls: &mut Vec<String>,
         results: &mut std::collections::HashMap<String, String>| {
            for tool_call_id in open_calls.drain(..) {
                let content = results
                    .remove(&tool_call_id)
                    .unwrap_or_else(|| INTERRUPTED_RESULT.into());
                conversation.push(ChatMessage::Tool {
                    tool_call_id,
                    content,
                });
            }
            results.clear();
        };
    for message in messages
        .iter()
        .filter(|message| message.agent_name == agent_name)
    {
        match message.role {
            MessageRole::System => {}
            MessageRole::Event => {
                if let Some((summary, keep_user_turns)) = compaction_of(message) {
                    close_open(&mut conversation, &mut open_calls, &mut results);
                    let tail = crate::compaction::tail_start(&conversation, keep_user_turns);
                    let mut compacted = vec![ChatMessage::User {
                        content: format!("{}{summary}", crate::compaction::SUMMARY_PREFIX),
                    }];
                    compacted.extend(conversation.drain(tail..));
                    conversation = compacted;
                }
            }
            MessageRole::User => {
                close_open(&mut conversation, &mut open_calls, &mut results);
                conversation.push(ChatMessage::User {
                    content: message.content.clone(),
                });
            }
            MessageRole::Assistant => {
                close_open(&mut conversation, &mut open_calls, &mut results);
                let tool_calls = stored_tool_calls(message);
                open_calls = tool_calls.iter().map(|call| call.id.clone()).collect();
                conversation.push(ChatMessage::Assistant {
                    content: (!message.content.is_empty()).then(|| message.content.clone()),
                    tool_calls,
                });
            }
            MessageRole::Tool => {
                // A result whose call is not open (duplicated or orphaned) is dropped:
                // providers reject tool messages that answer nothing.
                if let Some(tool_call_id) = &message.tool_call_id
                    && open_calls.contains(tool_call_id)
                {
                    results
                        .entry(tool_call_id.clone())
                        .or_insert_with(|| message.content.clone());
                }
            }
        }
    }
    close_open(&mut conversation, &mut open_calls, &mut results);
    conversation.into_iter().map(cut_for_model).collect()
}

/// The summary and kept turns of a stored compaction event.
pub(crate) fn compaction_of(message: &StoredMessage) -> Option<(String, usize)> {
    let compaction = message.metadata.get("compaction")?;
    let summary = compaction.get("summary")?.as_str()?.to_string();
    let keep = compaction
        .get("keepUserTurns")
        .and_then(serde_json::Value::as_u64)
        .unwrap_or(2);
    Some((summary, usize::try_from(keep).unwrap_or(2)))
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
    fn results_stored_out_of_order_are_sent_in_call_order_and_compaction_replaces_the_past() {
        let calls = json!([{"id": "a", "name": "t", "arguments": "{}"}, {"id": "b", "name": "t", "arguments": "{}"}]);
        let mut compaction = stored(7, MessageRole::Event, "", None, None);
        compaction.metadata =
            json!({"compaction": {"summary": "NGC 4258 is M 106.", "keepUserTurns": 1}});
        let messages = vec![
            stored(1, MessageRole::User, "q1", None, None),
            stored(2, MessageRole::Assistant, "", Some(calls), None),
            stored(3, MessageRole::Tool, "result b", None, Some("b")),
            stored(4, MessageRole::Tool, "result a", None, Some("a")),
            stored(5, MessageRole::Assistant, "done", None, None),
            stored(6, MessageRole::User, "q2", None, None),
        ];
        let conversation = conversation_from(&messages, "main");
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
                content: "result b".into()
            }
        );
        let mut with_compaction = messages.clone();
        with_compaction.push(compaction);
        let compacted = conversation_from(&with_compaction, "main");
        assert_eq!(compacted.len(), 2);
        assert_eq!(
            compacted[0],
            ChatMessage::User {
                content: format!("{}NGC 4258 is M 106.", crate::compaction::SUMMARY_PREFIX)
            }
        );
        assert_eq!(
            compacted[1],
            ChatMessage::User {
                content: "q2".into()
            }
        );
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
