//! Ctrl-C, SIGTERM and SIGHUP stop a run the same way: the run is cancelled, its partial
//! answer and a "cancelled" marker are stored, and the process exits with 128 + the
//! signal's number (130, 143, 129), as shells report a program killed by it.

use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};

use tokio_util::sync::CancellationToken;

/// Which signal stopped the run (0: none yet).
#[derive(Debug, Clone, Default)]
pub struct StoppedBy(Arc<AtomicU8>);

impl StoppedBy {
    /// The exit status for a cancelled run: 128 + the signal, 130 when none was seen.
    pub fn exit_code(&self) -> u8 {
        match self.0.load(Ordering::SeqCst) {
            0 => 130,
            signal => 128 + signal,
        }
    }
}

/// Cancels `cancel` on the first of SIGINT, SIGTERM or SIGHUP. The handlers are in place
/// when this returns (a signal a moment later is caught, not fatal).
pub fn cancel_on_signal(cancel: CancellationToken) -> StoppedBy {
    let stopped = StoppedBy::default();
    let seen = stopped.0.clone();
    let first = first_signal();
    tokio::spawn(async move {
        let signal = first.await;
        seen.store(signal, Ordering::SeqCst);
        eprintln!("\ncancelling…");
        cancel.cancel();
    });
    stopped
}

/// Registers the handlers now; the future resolves with the first signal's number.
#[cfg(unix)]
fn first_signal() -> impl std::future::Future<Output = u8> + Send + 'static {
    use tokio::signal::unix::{SignalKind, signal};
    let handlers = (
        signal(SignalKind::interrupt()),
        signal(SignalKind::terminate()),
        signal(SignalKind::hangup()),
    );
    async move {
        let (Ok(mut interrupt), Ok(mut terminate), Ok(mut hangup)) = handlers else {
            let _ = tokio::signal::ctrl_c().await;
            return 2;
        };
        tokio::select! {
            _ = interrupt.recv() => 2,
            _ = terminate.recv() => 15,
            _ = hangup.recv() => 1,
        }
    }
}

#[cfg(not(unix))]
fn first_signal() -> impl std::future::Future<Output = u8> + Send + 'static {
    async {
        let _ = tokio::signal::ctrl_c().await;
        2
    }
}
