//! Name resolution with a cache: Sesame answers are kept in the `targets` table and
//! reused until they expire.

use std::time::Duration;

use asterism_protocol::ResolvedTarget;
use asterism_store::Store;

use crate::{SesameClient, SesameError};

/// A resolved target and where it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct TargetLookup {
    pub target: ResolvedTarget,
    /// True when the answer came from the local cache rather than Sesame.
    pub from_cache: bool,
    pub fetched_at: String,
}

/// Resolves object names through Sesame, caching answers in the database.
#[derive(Debug, Clone)]
pub struct TargetService {
    sesame: SesameClient,
    store: Store,
    max_age: Duration,
}

/// The cache key of a name: case and spacing do not matter ("ngc4258" = "NGC 4258").
pub fn target_cache_key(name: &str) -> String {
    name.to_lowercase()
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect()
}

impl TargetService {
    /// Cached answers older than `max_age` are fetched again.
    pub fn new(sesame: SesameClient, store: Store, max_age: Duration) -> Self {
        Self {
            sesame,
            store,
            max_age,
        }
    }

    pub async fn resolve(&self, name: &str) -> Result<TargetLookup, SesameError> {
        let key = target_cache_key(name);
        match self.store.cached_target(&key).await {
            Ok(Some(cached)) if self.is_fresh(&cached.fetched_at) => {
                let mut target = cached.target;
                target.query = name.trim().to_string();
                return Ok(TargetLookup {
                    target,
                    from_cache: true,
                    fetched_at: cached.fetched_at,
                });
            }
            Ok(_) => {}
            Err(error) => tracing::warn!(%error, "target cache unreadable; asking Sesame"),
        }
        let target = self.sesame.resolve(name).await?;
        if let Err(error) = self.store.cache_target(&key, &target).await {
            tracing::warn!(%error, "could not cache the Sesame answer");
        }
        Ok(TargetLookup {
            target,
            from_cache: false,
            fetched_at: asterism_store::now_rfc3339(),
        })
    }

    fn is_fresh(&self, fetched_at: &str) -> bool {
        chrono::DateTime::parse_from_rfc3339(fetched_at)
            .map(|fetched| {
                let age = chrono::Utc::now().signed_duration_since(fetched);
                age.to_std().map(|age| age <= self.max_age).unwrap_or(true)
            })
            .unwrap_or(false)
    }
}
