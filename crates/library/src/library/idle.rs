//! What the library holds in memory only while it is used: the local embedding model's
//! session and the vector index's cells. Each records its last use; a long-lived
//! process (the app) calls [`crate::Library::release_idle`] now and then, as Ollama's
//! keep-alive unloads a model, and the next use loads them again.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// The process's clock origin for [`LastUse`].
fn origin() -> Instant {
    static ORIGIN: OnceLock<Instant> = OnceLock::new();
    *ORIGIN.get_or_init(Instant::now)
}

/// When something was last used (milliseconds after [`origin`], plus one; 0: never).
#[derive(Debug, Default)]
pub struct LastUse(AtomicU64);

impl LastUse {
    /// Used now.
    pub fn touch(&self) {
        let now = u64::try_from(origin().elapsed().as_millis()).unwrap_or(u64::MAX);
        self.0.store(now.saturating_add(1), Ordering::Relaxed);
    }

    /// Whether it has gone unused for `keep` or longer (never used counts as idle).
    pub fn idle_for(&self, keep: Duration) -> bool {
        let last = self.0.load(Ordering::Relaxed);
        if last == 0 {
            return true;
        }
        let since = Duration::from_millis(last - 1);
        origin().elapsed().saturating_sub(since) >= keep
    }
}

/// What [`crate::Library::release_idle`] let go.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Released {
    pub model: bool,
    pub vectors: bool,
}

impl Released {
    pub fn any(self) -> bool {
        self.model || self.vectors
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_use_is_idle_only_once_the_keep_alive_has_passed() {
        let last = LastUse::default();
        assert!(last.idle_for(Duration::from_secs(300)), "never used");
        last.touch();
        assert!(!last.idle_for(Duration::from_secs(300)));
        assert!(last.idle_for(Duration::ZERO));
        std::thread::sleep(Duration::from_millis(30));
        assert!(last.idle_for(Duration::from_millis(20)));
        assert!(!last.idle_for(Duration::from_secs(1)));
    }
}
