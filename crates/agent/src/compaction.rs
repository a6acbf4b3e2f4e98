//! Keeping the conversation inside the model's context window. Compaction changes what
//! is sent, never what is stored.
//!
//! - micro: tool outputs older than the most recent `keep_tool_outputs` are replaced by
//!   a placeholder (the call/result pairs stay, so the history stays valid);
//! - auto: when the estimate passes the soft limit, the model summarises the older
//!   turns; the summary is stored in `agent_sessions.summary` and the conversation
//!   becomes summary + recent turns;
//! - manual: a flag (set by the `compress_context` tool) that the next step honours,
//!   whatever the size and even when the circuit breaker is open;
//! - a circuit breaker stops auto compaction after repeated failures.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use asterism_llm::{ChatMessage, ChatModel, ChatRequest, LlmError, ModelEvent};
use asterism_protocol::TokenUsage;
use futures::StreamExt;
use tokio_util::sync::CancellationToken;

/// The text that replaces an old tool output.
pub const CLEARED_TOOL_OUTPUT: &str =
    "[older tool output cleared to save context; call the tool again if you need it]";

/// The first user message of a compacted conversation starts with this.
pub const SUMMARY_PREFIX: &str = "[Summary of the earlier part of this session]\n";

/// Limits of the conversation sent to the model.
#[derive(Debug, Clone, PartialEq)]
pub struct CompactionConfig {
    /// Estimated tokens past which auto compaction runs.
    pub soft_limit_tokens: usize,
    /// Tool outputs kept verbatim by micro compaction.
    pub keep_tool_outputs: usize,
    /// User turns kept verbatim after a summary.
    pub keep_user_turns: usize,
    /// Consecutive auto-compaction failures before it stops trying.
    pub breaker_threshold: u32,
}

impl Default for CompactionConfig {
    fn default() -> Self {
        Self {
            soft_limit_tokens: 96_000,
            keep_tool_outputs: 8,
            keep_user_turns: 2,
            breaker_threshold: 3,
        }
    }
}

/// A rough token count: about four characters a token, plus a little per message. Used
/// only for what the model has not counted yet (see [`ContextWatch`]).
pub fn estimate_tokens(messages: &[ChatMessage]) -> usize {
    messages
        .iter()
        .map(|message| {
            let chars = match message {
                ChatMessage::System { content }
                | ChatMessage::User { content }
                | ChatMessage::Tool { content, .. } => content.len(),
                ChatMessage::Assistant {
                    content,
                    tool_calls,
                } => {
                    content.as_ref().map_or(0, String::len)
                        + tool_calls
                            .iter()
                            .map(|call| call.name.len() + call.arguments.len() + 16)
                            .sum::<usize>()
                }
            };
            chars / 4 + 4
        })
        .sum()
}

/// Clears all but the last `keep` tool outputs. Returns how many were cleared.
pub fn micro_compact(messages: &mut [ChatMessage], keep: usize) -> usize {
    let tool_positions: Vec<usize> = messages
        .iter()
        .enumerate()
        .filter(|(_, message)| matches!(message, ChatMessage::Tool { content, .. } if content != CLEARED_TOOL_OUTPUT))
        .map(|(index, _)| index)
        .collect();
    let clear = tool_positions.len().saturating_sub(keep);
    for &index in &tool_positions[..clear] {
        if let ChatMessage::Tool { content, .. } = &mut messages[index] {
            *content = CLEARED_TOOL_OUTPUT.to_string();
        }
    }
    clear
}

/// The messages sent to the model, kept from step to step: the system prompt, then the
/// conversation with all but the latest `keep` tool outputs cleared (as
/// [`micro_compact`] would). Each step appends only what the conversation gained, and
/// the request shares the list instead of copying it, so a step costs the same at step
/// 1,000 as at step 10. A compaction (which replaces the conversation's first message)
/// or another system prompt rebuilds it.
#[derive(Debug, Default)]
pub struct SentMessages {
    messages: std::sync::Arc<Vec<ChatMessage>>,
    /// How many messages of the conversation are in `messages`.
    mirrored: usize,
    /// The first and the last mirrored messages as the conversation had them.
    first: Option<ChatMessage>,
    last: Option<ChatMessage>,
    /// Where in `messages` the tool outputs not cleared yet are, oldest first.
    live: std::collections::VecDeque<usize>,
}

impl SentMessages {
    /// The messages for a request about `conversation` under `system`.
    pub fn update(
        &mut self,
        system: &str,
        conversation: &[ChatMessage],
        keep: usize,
    ) -> std::sync::Arc<Vec<ChatMessage>> {
        if !self.follows(system, conversation) {
            *self = Self::default();
            std::sync::Arc::make_mut(&mut self.messages).push(ChatMessage::System {
                content: system.to_string(),
            });
        }
        // Shared with a request still held elsewhere: copied once, then owned again.
        let messages = std::sync::Arc::make_mut(&mut self.messages);
        for message in &conversation[self.mirrored..] {
            if matches!(message, ChatMessage::Tool { content, .. } if content != CLEARED_TOOL_OUTPUT)
            {
                self.live.push_back(messages.len());
            }
            messages.push(message.clone());
        }
        while self.live.len() > keep {
            let Some(index) = self.live.pop_front() else {
                break;
            };
            if let Some(ChatMessage::Tool { content, .. }) = messages.get_mut(index) {
                *content = CLEARED_TOOL_OUTPUT.to_string();
            }
        }
        self.mirrored = conversation.len();
        self.first = conversation.first().cloned();
        self.last = conversation.last().cloned();
        self.messages.clone()
    }

    /// Whether `conversation` is the one mirrored, grown at its end only.
    fn follows(&self, system: &str, conversation: &[ChatMessage]) -> bool {
        let same_system = matches!(
            self.messages.first(),
            Some(ChatMessage::System { content }) if content == system
        );
        same_system
            && self.mirrored > 0
            && self.mirrored <= conversation.len()
            && conversation.first() == self.first.as_ref()
            && conversation.get(self.mirrored - 1) == self.last.as_ref()
    }
}

/// Where the kept tail starts: the `keep_user_turns`-th last user message, so no
/// tool result is separated from its call.
pub fn tail_start(messages: &[ChatMessage], keep_user_turns: usize) -> usize {
    let users: Vec<usize> = messages
        .iter()
        .enumerate()
        .filter(|(_, message)| matches!(message, ChatMessage::User { .. }))
        .map(|(index, _)| index)
        .collect();
    if users.len() <= keep_user_turns {
        return 0;
    }
    users[users.len() - keep_user_turns.max(1)]
}

/// Asks the model to summarise `messages` (no tools). Returns the summary text.
pub async fn summarize(
    model: &dyn ChatModel,
    messages: &[ChatMessage],
    cancel: &CancellationToken,
) -> Result<String, LlmError> {
    let mut transcript = String::new();
    for message in messages {
        let line = match message {
            ChatMessage::System { .. } => continue,
            ChatMessage::User { content } => format!("USER: {content}"),
            ChatMessage::Assistant {
                content,
                tool_calls,
            } => {
                let calls: Vec<String> = tool_calls
                    .iter()
                    .map(|call| format!("{}({})", call.name, call.arguments))
                    .collect();
                format!(
                    "ASSISTANT: {}{}",
                    content.clone().unwrap_or_default(),
                    if calls.is_empty() {
                        String::new()
                    } else {
                        format!(" [called {}]", calls.join(", "))
                    }
                )
            }
            ChatMessage::Tool { content, .. } => {
                let short: String = content.chars().take(2000).collect();
                format!("TOOL RESULT: {short}")
            }
        };
        transcript.push_str(&line);
        transcript.push_str("\n\n");
    }
    let request = ChatRequest {
        response_schema: None,
        tool_choice: None,
        images: Vec::new(),
        messages: vec![
            ChatMessage::System {
                content: "You compress research conversations. Write a faithful summary that lets the \
                    conversation continue: the user's questions and goals, facts found with their \
                    sources (object names, coordinates, bibcodes, arXiv ids, page numbers), decisions \
                    made, open questions. Use short bullet points. Do not invent anything."
                    .into(),
            },
            ChatMessage::User { content: format!("Summarise this conversation:\n\n{transcript}") },
        ].into(),
        tools: Vec::new(),
        enable_thinking: false,
        model: None,
    };
    let mut stream = model.stream(request, cancel.clone()).await?;
    while let Some(event) = stream.next().await {
        if let ModelEvent::Completed(response) = event? {
            let summary = response.text.trim().to_string();
            if summary.is_empty() {
                return Err(LlmError::BadResponse("the summary is empty".into()));
            }
            return Ok(summary);
        }
    }
    Err(LlmError::BadResponse(
        "the summary stream ended early".into(),
    ))
}

/// What decides when to compact: the size of the conversation, as the model's own
/// tokenizer counted it, and the breaker.
///
/// After each call the server reports the prompt's and the answer's tokens (`usage`):
/// the exact size, in the model's tokens, of everything sent (system prompt, tool
/// definitions and messages as sent) and of the answer. Only the messages added since
/// are estimated (four characters a token); before the first call, and after a
/// compaction replaced the conversation, everything is.
#[derive(Debug, Clone, PartialEq)]
pub struct ContextWatch {
    pub breaker: CircuitBreaker,
    /// The model's count and how many conversation messages it covers.
    counted: Option<(usize, usize)>,
}

impl ContextWatch {
    pub fn new(breaker_threshold: u32) -> Self {
        Self {
            breaker: CircuitBreaker::new(breaker_threshold),
            counted: None,
        }
    }

    /// Records the model's count after a call whose answer is the conversation's
    /// `messages`-th message. A provider that reports no usage leaves the estimate.
    pub fn counted(&mut self, usage: Option<&TokenUsage>, messages: usize) {
        let tokens = usage.map(|usage| {
            usize::try_from(usage.prompt_tokens.saturating_add(usage.completion_tokens))
                .unwrap_or(0)
        });
        self.counted = tokens
            .filter(|&tokens| tokens > 0)
            .map(|tokens| (tokens, messages));
    }

    /// The conversation was replaced (compacted): what was counted no longer applies.
    pub fn forget(&mut self) {
        self.counted = None;
    }

    /// The tokens the next request will carry: the model's count where there is one,
    /// plus an estimate of the messages after it.
    pub fn tokens(&self, system: &str, conversation: &[ChatMessage]) -> usize {
        match self.counted {
            Some((tokens, covered)) if covered <= conversation.len() => {
                tokens + estimate_tokens(&conversation[covered..])
            }
            _ => estimate_tokens(conversation) + system.len() / 4 + 4,
        }
    }
}

/// Stops auto compaction after `threshold` failures in a row.
#[derive(Debug, Clone, PartialEq)]
pub struct CircuitBreaker {
    failures: u32,
    threshold: u32,
}

impl CircuitBreaker {
    pub fn new(threshold: u32) -> Self {
        Self {
            failures: 0,
            threshold,
        }
    }
    pub fn is_open(&self) -> bool {
        self.failures >= self.threshold
    }
    pub fn record_failure(&mut self) {
        self.failures += 1;
    }
    pub fn record_success(&mut self) {
        self.failures = 0;
    }
}

/// The manual-compaction flag, shared with the `compress_context` tool.
#[derive(Debug, Clone, Default)]
pub struct CompactionRequest(Arc<AtomicBool>);

impl CompactionRequest {
    /// Asks for compaction before the next model call. Idempotent.
    pub fn request(&self) {
        self.0.store(true, Ordering::SeqCst);
    }
    /// Takes the flag, clearing it.
    pub fn take(&self) -> bool {
        self.0.swap(false, Ordering::SeqCst)
    }
    pub fn is_requested(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use asterism_llm::ToolCall;

    #[test]
    fn the_watch_takes_the_model_s_count_and_estimates_only_what_came_after() {
        let mut conversation = turn("Where is NGC 4258?", "12:18:57.62 +47:18:13.4", "a");
        let mut watch = ContextWatch::new(3);
        let estimated = watch.tokens("system", &conversation);
        assert_eq!(estimated, estimate_tokens(&conversation) + 5);
        let usage = TokenUsage {
            prompt_tokens: 7_000,
            completion_tokens: 40,
            reasoning_tokens: 0,
        };
        watch.counted(Some(&usage), conversation.len());
        assert_eq!(watch.tokens("system", &conversation), 7_040);
        let added = ChatMessage::User {
            content: "And its distance?".into(),
        };
        conversation.push(added.clone());
        assert_eq!(
            watch.tokens("system", &conversation),
            7_040 + estimate_tokens(&[added])
        );
        // A provider without usage, a shorter (compacted) conversation, or forget():
        // back to the estimate.
        watch.counted(None, conversation.len());
        assert_eq!(
            watch.tokens("system", &conversation),
            estimate_tokens(&conversation) + 5
        );
        watch.counted(Some(&usage), conversation.len() + 3);
        assert_eq!(
            watch.tokens("system", &conversation),
            estimate_tokens(&conversation) + 5
        );
        watch.counted(Some(&usage), conversation.len());
        watch.forget();
        assert_eq!(
            watch.tokens("system", &conversation),
            estimate_tokens(&conversation) + 5
        );
    }

    fn turn(question: &str, output: &str, id: &str) -> Vec<ChatMessage> {
        vec![
            ChatMessage::User {
                content: question.into(),
            },
            ChatMessage::Assistant {
                content: None,
                tool_calls: vec![ToolCall {
                    id: id.into(),
                    name: "query_target".into(),
                    arguments: "{}".into(),
                }],
            },
            ChatMessage::Tool {
                tool_call_id: id.into(),
                content: output.into(),
            },
            ChatMessage::Assistant {
                content: Some("answer".into()),
                tool_calls: vec![],
            },
        ]
    }

    #[test]
    fn micro_compaction_keeps_the_latest_outputs_and_the_pairs() {
        let mut messages: Vec<ChatMessage> = (0..5)
            .flat_map(|i| turn(&format!("q{i}"), &"x".repeat(1000), &format!("c{i}")))
            .collect();
        let before = estimate_tokens(&messages);
        assert_eq!(micro_compact(&mut messages, 2), 3);
        assert!(estimate_tokens(&messages) < before);
        let outputs: Vec<&str> = messages
            .iter()
            .filter_map(|m| match m {
                ChatMessage::Tool { content, .. } => Some(content.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(
            outputs
                .iter()
                .filter(|o| **o == CLEARED_TOOL_OUTPUT)
                .count(),
            3
        );
        assert_eq!(outputs.len(), 5, "every call keeps a result");
        assert_eq!(micro_compact(&mut messages, 2), 0, "idempotent");
    }

    /// What a request sent before the list was kept: system prompt, a copy, micro-compacted.
    fn copied(system: &str, conversation: &[ChatMessage], keep: usize) -> Vec<ChatMessage> {
        let mut messages = vec![ChatMessage::System {
            content: system.into(),
        }];
        messages.extend(conversation.iter().cloned());
        micro_compact(&mut messages, keep);
        messages
    }

    #[test]
    fn the_kept_request_is_the_copied_one_step_after_step_and_after_a_compaction() {
        let mut sent = SentMessages::default();
        let mut conversation = Vec::new();
        for i in 0..8 {
            conversation.extend(turn(
                &format!("q{i}"),
                &format!("out {i}"),
                &format!("c{i}"),
            ));
            let shared = sent.update("system", &conversation, 3);
            assert_eq!(*shared, copied("system", &conversation, 3), "step {i}");
        }
        // A request still holding the list does not see later steps.
        let held = sent.update("system", &conversation, 3);
        conversation.extend(turn("q8", "out 8", "c8"));
        let next = sent.update("system", &conversation, 3);
        assert_eq!(held.len() + 4, next.len());
        assert_eq!(*next, copied("system", &conversation, 3));
        // A compaction replaces the start; another system prompt too.
        let compacted: Vec<ChatMessage> = std::iter::once(ChatMessage::User {
            content: format!("{SUMMARY_PREFIX}earlier"),
        })
        .chain(conversation[conversation.len() - 8..].iter().cloned())
        .collect();
        assert_eq!(
            *sent.update("system", &compacted, 3),
            copied("system", &compacted, 3)
        );
        assert_eq!(
            *sent.update("other", &compacted, 3),
            copied("other", &compacted, 3)
        );
    }

    #[test]
    fn the_tail_starts_at_a_user_turn() {
        let messages: Vec<ChatMessage> = (0..4)
            .flat_map(|i| turn(&format!("q{i}"), "out", &format!("c{i}")))
            .collect();
        assert_eq!(tail_start(&messages, 2), 8);
        assert!(matches!(messages[8], ChatMessage::User { .. }));
        assert_eq!(tail_start(&messages[..4], 2), 0);
    }

    #[test]
    fn the_breaker_opens_after_repeated_failures() {
        let mut breaker = CircuitBreaker::new(2);
        breaker.record_failure();
        assert!(!breaker.is_open());
        breaker.record_failure();
        assert!(breaker.is_open());
        breaker.record_success();
        assert!(!breaker.is_open());
    }
}
