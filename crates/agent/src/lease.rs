//! A run's hold on its session across processes (the store's `session_leases`): taken
//! before anything is written, renewed by a heartbeat while the run lasts, given back at
//! its end. A second run on the same session (another `asterism ask --session`, the app)
//! is refused with the holder's pid, or waits for it with `wait`.

use std::time::Duration;

use asterism_store::{LeaseHolder, LeaseOutcome, Store, StoreError};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

/// How often a run says it is alive, and how long a silent holder keeps its session (a
/// holder on this host whose process is gone loses it at once).
pub const HEARTBEAT: Duration = Duration::from_secs(2);
pub const STALE_AFTER: Duration = Duration::from_secs(10);

/// Why a session could not be taken.
#[derive(Debug, thiserror::Error)]
pub enum LeaseError {
    #[error("session {session_id} is busy in another run (pid {pid})", pid = holder.pid)]
    Busy {
        session_id: String,
        holder: LeaseHolder,
    },
    #[error("the run was cancelled while waiting for session {0}")]
    Cancelled(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// A held session; the heartbeat stops when it is dropped, so a crashed run's lease goes
/// stale, and [`SessionLease::release`] gives it back at once.
#[derive(Debug)]
pub struct SessionLease {
    store: Store,
    session_id: String,
    run_id: String,
    heartbeat: JoinHandle<()>,
}

impl SessionLease {
    /// Takes the session for `run_id`; with `wait`, waits (polling) for a busy session
    /// until it is free or `cancel` fires.
    pub async fn take(
        store: &Store,
        session_id: &str,
        run_id: &str,
        wait: bool,
        cancel: &CancellationToken,
    ) -> Result<Self, LeaseError> {
        loop {
            match store.acquire_lease(session_id, run_id, STALE_AFTER).await? {
                LeaseOutcome::Acquired => break,
                LeaseOutcome::Busy(holder) if !wait => {
                    return Err(LeaseError::Busy {
                        session_id: session_id.to_string(),
                        holder,
                    });
                }
                LeaseOutcome::Busy(_) => {
                    tokio::select! {
                        () = tokio::time::sleep(Duration::from_millis(250)) => {}
                        () = cancel.cancelled() => return Err(LeaseError::Cancelled(session_id.to_string())),
                    }
                }
            }
        }
        let heartbeat = {
            let store = store.clone();
            let (session_id, run_id) = (session_id.to_string(), run_id.to_string());
            tokio::spawn(async move {
                let mut ticks = tokio::time::interval(HEARTBEAT);
                ticks.tick().await;
                loop {
                    ticks.tick().await;
                    match store.renew_lease(&session_id, &run_id).await {
                        Ok(true) => {}
                        Ok(false) => {
                            tracing::warn!(%session_id, "this run's hold on the session was taken over");
                            return;
                        }
                        Err(error) => tracing::warn!(%error, "the session's heartbeat failed"),
                    }
                }
            })
        };
        Ok(Self {
            store: store.clone(),
            session_id: session_id.to_string(),
            run_id: run_id.to_string(),
            heartbeat,
        })
    }

    /// Gives the session back.
    pub async fn release(self) {
        self.heartbeat.abort();
        if let Err(error) = self
            .store
            .release_lease(&self.session_id, &self.run_id)
            .await
        {
            tracing::warn!(%error, "the session's lease could not be given back; it goes stale");
        }
    }
}

impl Drop for SessionLease {
    fn drop(&mut self) {
        self.heartbeat.abort();
    }
}
