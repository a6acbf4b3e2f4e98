//! Write-behind persistence: the loop hands rows to a writer task and goes on; the
//! writer applies them in order, one transaction per batch. `flush` waits until every
//! row handed over so far is stored (end of a run, cancellation, before reading).

use asterism_store::{AuditRow, MetricRow, NewMessage, Store};
use backon::{ExponentialBuilder, Retryable};

use crate::security::Scrubber;
use tokio::sync::{mpsc, oneshot};

enum Job {
    Messages(Vec<NewMessage>),
    Audit(Vec<AuditRow>),
    Metrics(Vec<MetricRow>),
    Flush(oneshot::Sender<Vec<String>>),
}

/// The handle the runtime and the executor write through.
#[derive(Clone, Debug)]
pub struct Persister {
    jobs: mpsc::UnboundedSender<Job>,
}

impl std::fmt::Debug for Job {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Job::Messages(_) => "Messages",
            Job::Audit(_) => "Audit",
            Job::Metrics(_) => "Metrics",
            Job::Flush(_) => "Flush",
        })
    }
}

impl Persister {
    /// Starts the writer task over `store`. Everything queued when it wakes is written in
    /// one transaction, in order; a failed batch is tried again a few times (a busy
    /// database is the usual cause) and then reported at the next flush.
    pub fn start(store: Store, scrubber: Scrubber) -> Self {
        let (jobs, mut receiver) = mpsc::unbounded_channel::<Job>();
        tokio::spawn(async move {
            let mut errors: Vec<String> = Vec::new();
            while let Some(job) = receiver.recv().await {
                let mut batch = vec![job];
                while let Ok(job) = receiver.try_recv() {
                    batch.push(job);
                }
                let (mut messages, mut audit, mut metrics, mut flushes) =
                    (Vec::new(), Vec::new(), Vec::new(), Vec::new());
                for job in batch {
                    match job {
                        Job::Messages(rows) => messages
                            .extend(rows.into_iter().map(|row| scrub_message(row, &scrubber))),
                        Job::Audit(rows) => {
                            audit.extend(rows.into_iter().map(|row| scrub_audit(row, &scrubber)))
                        }
                        Job::Metrics(rows) => metrics.extend(rows),
                        Job::Flush(done) => flushes.push(done),
                    }
                }
                // Three tries, 50 then 100 ms apart (a busy database, a full disk
                // freed meanwhile).
                let stored = (|| store.append_batch(&messages, &audit, &metrics))
                    .retry(
                        ExponentialBuilder::default()
                            .with_min_delay(std::time::Duration::from_millis(50))
                            .with_factor(2.0)
                            .with_max_times(2),
                    )
                    .await;
                if let Err(error) = stored {
                    tracing::error!(%error, "session history not stored");
                    errors.push(format!(
                        "storing {} messages, {} audit rows and {} metrics failed: {error}",
                        messages.len(),
                        audit.len(),
                        metrics.len()
                    ));
                }
                for done in flushes {
                    let _ = done.send(std::mem::take(&mut errors));
                }
            }
        });
        Self { jobs }
    }

    pub fn messages(&self, rows: Vec<NewMessage>) {
        if !rows.is_empty() {
            let _ = self.jobs.send(Job::Messages(rows));
        }
    }

    pub fn audit(&self, rows: Vec<AuditRow>) {
        if !rows.is_empty() {
            let _ = self.jobs.send(Job::Audit(rows));
        }
    }

    pub fn metrics(&self, rows: Vec<MetricRow>) {
        if !rows.is_empty() {
            let _ = self.jobs.send(Job::Metrics(rows));
        }
    }

    /// Waits until everything handed over is stored; returns the write errors since the
    /// last flush (empty when all is stored).
    pub async fn flush(&self) -> Vec<String> {
        let (done, wait) = oneshot::channel();
        if self.jobs.send(Job::Flush(done)).is_err() {
            return vec!["the history writer stopped".into()];
        }
        wait.await
            .unwrap_or_else(|_| vec!["the history writer stopped".into()])
    }
}

/// A message with every secret value replaced, in each of its fields (nothing is stored
/// unscrubbed, whoever wrote it: the user, the model or a tool).
fn scrub_message(mut row: NewMessage, scrubber: &Scrubber) -> NewMessage {
    if scrubber.is_empty() {
        return row;
    }
    scrubber.in_place(&mut row.content);
    row.tool_calls = row.tool_calls.map(|calls| scrubber.json(&calls));
    row.metadata = scrubber.json(&row.metadata);
    row.raw_json = row.raw_json.map(|raw| scrubber.json(&raw));
    row
}

fn scrub_audit(mut row: AuditRow, scrubber: &Scrubber) -> AuditRow {
    if scrubber.is_empty() {
        return row;
    }
    row.arguments = scrubber.json(&row.arguments);
    if let Some(error) = row.error.as_mut() {
        scrubber.in_place(error);
    }
    row
}

#[cfg(test)]
mod tests {
    use super::*;
    use asterism_store::MessageRole;

    fn row(session: &str, content: &str) -> NewMessage {
        NewMessage {
            session_id: session.into(),
            run_id: "r1".into(),
            step: 1,
            agent_name: "main".into(),
            role: MessageRole::User,
            content: content.into(),
            tool_calls: None,
            tool_call_id: None,
            metadata: serde_json::json!({}),
            raw_json: None,
        }
    }

    /// A batch the database refuses every time is tried three times, then reported at
    /// the next flush; the persister goes on with the next batch.
    #[tokio::test]
    async fn a_batch_that_keeps_failing_is_reported_and_the_next_one_is_stored() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open_in_dir(dir.path()).await.unwrap();
        store.ensure_session("s1", "q", "m").await.unwrap();
        let persister = Persister::start(store.clone(), Scrubber::new(Vec::new()));
        // No such session: its foreign key refuses the row whatever the try.
        persister.messages(vec![row("gone", "lost")]);
        let errors = persister.flush().await;
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(errors[0].starts_with("storing 1 messages, 0 audit rows and 0 metrics failed: "));
        persister.messages(vec![row("s1", "kept")]);
        assert!(persister.flush().await.is_empty());
        let stored = store.messages("s1").await.unwrap();
        assert_eq!(stored.len(), 1);
        assert_eq!(stored[0].content, "kept");
    }
}
