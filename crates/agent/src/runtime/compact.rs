//! Auto and manual compaction between steps.

use asterism_llm::ChatMessage;
use asterism_protocol::AgentEvent;

use super::{AgentRuntime, Run};
use crate::compaction::{ContextWatch, SUMMARY_PREFIX, summarize, tail_start};

impl AgentRuntime {
    /// Summarises the older turns when the conversation passes the soft limit (unless
    /// the breaker is open) or when compaction was asked for. The summary goes into a
    /// stored compaction event, from which later runs rebuild the same conversation.
    pub(crate) async fn compact_if_needed(
        &self,
        run: &Run<'_>,
        step: i32,
        system: &str,
        conversation: &mut Vec<ChatMessage>,
        forced: Option<&str>,
        watch: &mut ContextWatch,
    ) {
        // `forced` names why compaction must run now (`manual`, `overflow`); `None`
        // means only when over the soft limit.
        let config = &self.config.compaction;
        let before = watch.tokens(system, conversation);
        if forced.is_none() && (before <= config.soft_limit_tokens || watch.breaker.is_open()) {
            return;
        }
        let tail = tail_start(conversation, config.keep_user_turns);
        if tail == 0 {
            if forced.is_some() {
                self.notice(
                    run,
                    step,
                    "compaction",
                    "Nothing to compact yet: the conversation is a single turn.".into(),
                );
            }
            return;
        }
        match summarize(self.model.as_ref(), &conversation[..tail], run.cancel).await {
            Ok(summary) => {
                watch.breaker.record_success();
                let mut compacted = vec![ChatMessage::User {
                    content: format!("{SUMMARY_PREFIX}{summary}"),
                }];
                compacted.extend(conversation.drain(tail..));
                *conversation = compacted;
                watch.forget();
                let after = watch.tokens(system, conversation);
                let event = AgentEvent::Compacted {
                    kind: forced.unwrap_or("auto").into(),
                    tokens_before: i32::try_from(before).unwrap_or(i32::MAX),
                    tokens_after: i32::try_from(after).unwrap_or(i32::MAX),
                    step,
                };
                self.store_event_with(
                    run,
                    step,
                    &event,
                    None,
                    Some(("compaction", serde_json::json!({"summary": summary, "keepUserTurns": config.keep_user_turns}))),
                );
                run.sink.emit(event);
                if let Err(error) = self
                    .services
                    .store
                    .set_session_summary(&run.rows.session_id, &summary)
                    .await
                {
                    tracing::warn!(%error, "could not store the session summary");
                }
            }
            Err(error) => {
                watch.breaker.record_failure();
                let tail_note = if watch.breaker.is_open() {
                    " Automatic compaction is off for the rest of this run."
                } else {
                    ""
                };
                self.notice(
                    run,
                    step,
                    "compaction",
                    format!("Compaction failed: {error}.{tail_note}"),
                );
            }
        }
    }
}
