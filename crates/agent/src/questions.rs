//! Questions from the agent to the user (ask_user): an `AskUser` event goes out, the
//! answer comes back through [`QuestionBroker::answer`] (the app's command, the CLI's
//! prompt) on a oneshot channel. No answer within the timeout (5 minutes by default),
//! cancellation, or nobody to ask: the agent is told so and carries on.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use asterism_protocol::AgentEvent;
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

use crate::EventSink;

/// The default time the agent waits for an answer.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(300);

/// What came of a question.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reply {
    /// The user's answer: one of the options or their own words.
    Answer(String),
    /// No answer, and why (timeout, cancelled, nobody can be asked).
    NoAnswer(String),
}

/// Hands questions out as events and answers back to the waiting tool.
#[derive(Debug)]
pub struct QuestionBroker {
    pending: Mutex<HashMap<String, oneshot::Sender<String>>>,
    timeout: Duration,
    /// False when nobody can answer (the CLI without a terminal).
    interactive: bool,
}

impl QuestionBroker {
    pub fn new(timeout: Duration, interactive: bool) -> Arc<Self> {
        Arc::new(Self {
            pending: Mutex::default(),
            timeout,
            interactive,
        })
    }

    /// Delivers an answer; false when no such question is waiting.
    pub fn answer(&self, request_id: &str, answer: &str) -> bool {
        let sender = self
            .pending
            .lock()
            .ok()
            .and_then(|mut pending| pending.remove(request_id));
        sender.is_some_and(|sender| sender.send(answer.to_string()).is_ok())
    }

    /// Ids of the questions waiting for an answer.
    pub fn waiting(&self) -> Vec<String> {
        self.pending
            .lock()
            .map(|pending| pending.keys().cloned().collect())
            .unwrap_or_default()
    }

    /// Emits the question and waits for the answer, the timeout, or cancellation.
    pub async fn ask(
        &self,
        sink: &dyn EventSink,
        question: &str,
        options: &[String],
        cancel: &CancellationToken,
    ) -> Reply {
        if !self.interactive {
            return Reply::NoAnswer("nobody can be asked here (no terminal or window)".into());
        }
        let request_id = format!("ask_{}", uuid::Uuid::new_v4().simple());
        let (sender, receiver) = oneshot::channel();
        if let Ok(mut pending) = self.pending.lock() {
            pending.insert(request_id.clone(), sender);
        }
        sink.emit(AgentEvent::AskUser {
            request_id: request_id.clone(),
            question: question.to_string(),
            options: options.to_vec(),
        });
        let reply = tokio::select! {
            answer = tokio::time::timeout(self.timeout, receiver) => match answer {
                Ok(Ok(answer)) => Reply::Answer(answer),
                Ok(Err(_)) => Reply::NoAnswer("the question was dropped".into()),
                Err(_) => Reply::NoAnswer(format!("no answer within {} s", self.timeout.as_secs())),
            },
            () = cancel.cancelled() => Reply::NoAnswer("the run was cancelled".into()),
        };
        if let Ok(mut pending) = self.pending.lock() {
            pending.remove(&request_id);
        }
        reply
    }
}

impl Default for QuestionBroker {
    fn default() -> Self {
        Self {
            pending: Mutex::default(),
            timeout: DEFAULT_TIMEOUT,
            interactive: false,
        }
    }
}
