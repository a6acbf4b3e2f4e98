//! Retries with backoff, `Retry-After`, and the fallback model, around any [`ChatModel`].
//!
//! A call is retried when it fails before the model produced anything (the HTTP status
//! was an error, the connection failed, or the stream broke before its first event) and
//! the error is retryable (429, 5xx, network). What the model already streamed is never
//! replayed, so a failure mid-answer is reported, not retried. When the retries are used
//! up the fallback model, if configured, gets one more round. Each retry and the switch
//! to the fallback appear in the stream as [`ModelEvent::Notice`]s, so the timeline says
//! what happened.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use backon::{BackoffBuilder, ExponentialBuilder};
use futures::StreamExt;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::{ChatModel, ChatRequest, LlmError, ModelEvent, ModelEventStream};

/// How hard to try.
#[derive(Debug, Clone, PartialEq)]
pub struct RetryPolicy {
    /// Retries after the first attempt, per model.
    pub max_retries: usize,
    pub min_delay: Duration,
    pub max_delay: Duration,
    /// A `Retry-After` longer than this is not waited for: the call fails instead.
    pub max_retry_after: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_retries: 3,
            min_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(20),
            max_retry_after: Duration::from_secs(120),
        }
    }
}

/// A [`ChatModel`] that retries and falls back.
pub struct ResilientModel {
    inner: Arc<dyn ChatModel>,
    fallback_model: Option<String>,
    policy: RetryPolicy,
}

impl ResilientModel {
    pub fn new(
        inner: Arc<dyn ChatModel>,
        fallback_model: Option<String>,
        policy: RetryPolicy,
    ) -> Self {
        Self {
            inner,
            fallback_model: fallback_model.filter(|model| !model.trim().is_empty()),
            policy,
        }
    }
}

/// Starts a call and waits for its first event, so a failure before any output counts
/// as a failed attempt. Returns the stream with that event put back in front.
async fn open(
    model: &dyn ChatModel,
    request: ChatRequest,
    cancel: &CancellationToken,
) -> Result<ModelEventStream, LlmError> {
    let mut stream = model.stream(request, cancel.clone()).await?;
    match stream.next().await {
        None => Err(LlmError::Network(
            "the model closed the stream without sending anything".into(),
        )),
        Some(Err(error)) => Err(error),
        Some(Ok(first)) => Ok(Box::pin(
            futures::stream::once(async move { Ok(first) }).chain(stream),
        )),
    }
}

/// Whether switching models may help: when the primary is unavailable (still failing
/// after its retries) or unknown to the provider (404). Not for a bad key, a bad
/// request, a cancelled call, or a conversation that is too long (compaction's job).
fn fallback_may_help(error: &LlmError) -> bool {
    error.is_retryable() || matches!(error, LlmError::Http { status: 404, .. })
}

fn seconds(duration: Duration) -> String {
    format!("{:.1} s", duration.as_secs_f64())
}

impl ResilientModel {
    /// Tries one model with retries; sends a notice before each wait.
    async fn attempt_with_retries(
        &self,
        request: &ChatRequest,
        label: &str,
        cancel: &CancellationToken,
        notices: &mpsc::Sender<Result<ModelEvent, LlmError>>,
    ) -> Result<ModelEventStream, LlmError> {
        let mut delays = ExponentialBuilder::default()
            .with_min_delay(self.policy.min_delay)
            .with_max_delay(self.policy.max_delay)
            .with_max_times(self.policy.max_retries)
            .with_jitter()
            .build();
        let mut attempt = 1;
        loop {
            let error = match open(self.inner.as_ref(), request.clone(), cancel).await {
                Ok(stream) => return Ok(stream),
                Err(error) => error,
            };
            if !error.is_retryable() {
                return Err(error);
            }
            let Some(backoff) = delays.next() else {
                return Err(error);
            };
            let delay = match &error {
                LlmError::RateLimited {
                    retry_after: Some(wait),
                } if *wait > self.policy.max_retry_after => return Err(error),
                LlmError::RateLimited {
                    retry_after: Some(wait),
                } => *wait,
                _ => backoff,
            };
            let notice = format!(
                "{label} failed ({error}); retry {attempt} of {} in {}",
                self.policy.max_retries,
                seconds(delay)
            );
            if notices
                .send(Ok(ModelEvent::Notice {
                    kind: "retry".into(),
                    message: notice,
                }))
                .await
                .is_err()
            {
                return Err(LlmError::Cancelled);
            }
            tokio::select! {
                () = tokio::time::sleep(delay) => {}
                () = cancel.cancelled() => return Err(LlmError::Cancelled),
            }
            attempt += 1;
        }
    }

    async fn drive(
        &self,
        request: ChatRequest,
        cancel: CancellationToken,
        sender: mpsc::Sender<Result<ModelEvent, LlmError>>,
    ) {
        let primary = request
            .model
            .clone()
            .unwrap_or_else(|| self.inner.model_name().to_string());
        let mut outcome = self
            .attempt_with_retries(&request, &format!("The model {primary}"), &cancel, &sender)
            .await;
        if let Err(error) = &outcome
            && let Some(fallback) = self
                .fallback_model
                .clone()
                .filter(|fallback| *fallback != primary)
            && fallback_may_help(error)
        {
            let notice = format!(
                "The model {primary} is unavailable ({error}); switching to the fallback model {fallback}."
            );
            if sender
                .send(Ok(ModelEvent::Notice {
                    kind: "fallback".into(),
                    message: notice,
                }))
                .await
                .is_err()
            {
                return;
            }
            let fallback_request = ChatRequest {
                model: Some(fallback.clone()),
                ..request
            };
            outcome = self
                .attempt_with_retries(
                    &fallback_request,
                    &format!("The fallback model {fallback}"),
                    &cancel,
                    &sender,
                )
                .await;
        }
        match outcome {
            Ok(mut stream) => {
                while let Some(item) = stream.next().await {
                    if sender.send(item).await.is_err() {
                        return;
                    }
                }
            }
            Err(error) => {
                let _ = sender.send(Err(error)).await;
            }
        }
    }
}

#[async_trait]
impl ChatModel for ResilientModel {
    fn model_name(&self) -> &str {
        self.inner.model_name()
    }

    fn supports_thinking_toggle(&self) -> bool {
        self.inner.supports_thinking_toggle()
    }

    async fn stream(
        &self,
        request: ChatRequest,
        cancel: CancellationToken,
    ) -> Result<ModelEventStream, LlmError> {
        let (sender, receiver) = mpsc::channel(256);
        let this = ResilientModel {
            inner: self.inner.clone(),
            fallback_model: self.fallback_model.clone(),
            policy: self.policy.clone(),
        };
        tokio::spawn(async move { this.drive(request, cancel, sender).await });
        Ok(Box::pin(futures::stream::unfold(
            receiver,
            |mut receiver| async move { receiver.recv().await.map(|item| (item, receiver)) },
        )))
    }
}
