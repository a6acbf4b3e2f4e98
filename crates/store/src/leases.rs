//! Session leases: one run per session across processes. A run takes its session's
//! lease before it writes anything and renews it with a heartbeat; a second run on the
//! same session is told who holds it. A lease whose process has died (on this host) or
//! whose heartbeat is older than `stale_after` is taken over.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use sqlx::Row;

use crate::{Result, Store};

/// Who holds a session.
#[derive(Debug, Clone, PartialEq)]
pub struct LeaseHolder {
    pub run_id: String,
    pub pid: u32,
    pub host: String,
    /// Seconds since its last heartbeat.
    pub silent_for: f64,
}

/// What asking for a lease gave.
#[derive(Debug, Clone, PartialEq)]
pub enum LeaseOutcome {
    Acquired,
    Busy(LeaseHolder),
}

fn now() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|elapsed| elapsed.as_secs_f64())
        .unwrap_or(0.0)
}

/// This machine's name, to tell a holder on this host (whose pid can be checked) from
/// one on another host sharing the data directory.
pub fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .or_else(|_| std::fs::read_to_string("/etc/hostname"))
        .map(|name| name.trim().to_string())
        .ok()
        .filter(|name| !name.is_empty())
        .unwrap_or_else(|| "localhost".into())
}

/// Whether a process of this host is alive (`/proc/PID` exists). Elsewhere than Linux the
/// answer is "alive" and only the heartbeat decides.
fn process_alive(pid: u32) -> bool {
    if cfg!(target_os = "linux") {
        std::path::Path::new(&format!("/proc/{pid}")).exists()
    } else {
        true
    }
}

impl Store {
    /// Takes the session's lease for `run_id` (this process, this host) unless a live run
    /// holds it.
    pub async fn acquire_lease(
        &self,
        session_id: &str,
        run_id: &str,
        stale_after: Duration,
    ) -> Result<LeaseOutcome> {
        let pid = std::process::id();
        let host = host_name();
        for _ in 0..5 {
            let inserted = sqlx::query(
                "INSERT INTO session_leases (session_id, run_id, pid, host, heartbeat_at)
                 VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT(session_id) DO NOTHING",
            )
            .bind(session_id)
            .bind(run_id)
            .bind(i64::from(pid))
            .bind(&host)
            .bind(now())
            .execute(&self.pool)
            .await?;
            if inserted.rows_affected() == 1 {
                return Ok(LeaseOutcome::Acquired);
            }
            let Some(holder) = self.lease_holder(session_id).await? else {
                continue;
            };
            if holder.run_id == run_id {
                return Ok(LeaseOutcome::Acquired);
            }
            let dead = holder.host == host && !process_alive(holder.pid);
            if !dead && holder.silent_for < stale_after.as_secs_f64() {
                return Ok(LeaseOutcome::Busy(holder));
            }
            // Taken over only if nobody else took it meanwhile (compare and swap).
            let taken = sqlx::query(
                "UPDATE session_leases SET run_id = ?2, pid = ?3, host = ?4, heartbeat_at = ?5
                 WHERE session_id = ?1 AND run_id = ?6",
            )
            .bind(session_id)
            .bind(run_id)
            .bind(i64::from(pid))
            .bind(&host)
            .bind(now())
            .bind(&holder.run_id)
            .execute(&self.pool)
            .await?;
            if taken.rows_affected() == 1 {
                return Ok(LeaseOutcome::Acquired);
            }
        }
        match self.lease_holder(session_id).await? {
            Some(holder) if holder.run_id != run_id => Ok(LeaseOutcome::Busy(holder)),
            _ => Ok(LeaseOutcome::Acquired),
        }
    }

    /// The run holding the session, if any.
    pub async fn lease_holder(&self, session_id: &str) -> Result<Option<LeaseHolder>> {
        let row = sqlx::query(
            "SELECT run_id, pid, host, heartbeat_at FROM session_leases WHERE session_id = ?1",
        )
        .bind(session_id)
        .fetch_optional(&self.pool)
        .await?;
        Ok(row.map(|row| LeaseHolder {
            run_id: row.get("run_id"),
            pid: u32::try_from(row.get::<i64, _>("pid")).unwrap_or(0),
            host: row.get("host"),
            silent_for: (now() - row.get::<f64, _>("heartbeat_at")).max(0.0),
        }))
    }

    /// Whether a live run holds the session now (a dead or stale holder does not).
    pub async fn session_is_busy(&self, session_id: &str, stale_after: Duration) -> Result<bool> {
        Ok(self.lease_holder(session_id).await?.is_some_and(|holder| {
            let dead = holder.host == host_name() && !process_alive(holder.pid);
            !dead && holder.silent_for < stale_after.as_secs_f64()
        }))
    }

    /// Renews the lease; false when the run no longer holds it.
    pub async fn renew_lease(&self, session_id: &str, run_id: &str) -> Result<bool> {
        let renewed = sqlx::query(
            "UPDATE session_leases SET heartbeat_at = ?3 WHERE session_id = ?1 AND run_id = ?2",
        )
        .bind(session_id)
        .bind(run_id)
        .bind(now())
        .execute(&self.pool)
        .await?;
        Ok(renewed.rows_affected() == 1)
    }

    /// Gives the lease back (only if `run_id` still holds it).
    pub async fn release_lease(&self, session_id: &str, run_id: &str) -> Result<()> {
        sqlx::query("DELETE FROM session_leases WHERE session_id = ?1 AND run_id = ?2")
            .bind(session_id)
            .bind(run_id)
            .execute(&self.pool)
            .await?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn one_run_holds_a_session_until_it_releases_or_dies() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open_in_dir(dir.path()).await.unwrap();
        let stale = Duration::from_secs(10);
        assert_eq!(
            store.acquire_lease("s", "run-1", stale).await.unwrap(),
            LeaseOutcome::Acquired
        );
        let LeaseOutcome::Busy(holder) = store.acquire_lease("s", "run-2", stale).await.unwrap()
        else {
            panic!("a second run must be refused");
        };
        assert_eq!(holder.pid, std::process::id());
        assert!(store.renew_lease("s", "run-1").await.unwrap());
        assert!(!store.renew_lease("s", "run-2").await.unwrap());
        store.release_lease("s", "run-2").await.unwrap();
        assert!(
            store.session_is_busy("s", stale).await.unwrap(),
            "not released by another run"
        );
        store.release_lease("s", "run-1").await.unwrap();
        assert_eq!(
            store.acquire_lease("s", "run-2", stale).await.unwrap(),
            LeaseOutcome::Acquired
        );
    }

    #[tokio::test]
    async fn a_dead_or_silent_holder_is_taken_over() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open_in_dir(dir.path()).await.unwrap();
        // A holder on this host whose process is gone: taken over at once.
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let dead_pid = child.id();
        child.wait().unwrap();
        sqlx::query("INSERT INTO session_leases VALUES ('s', 'old', ?1, ?2, ?3)")
            .bind(i64::from(dead_pid))
            .bind(host_name())
            .bind(now())
            .execute(&store.pool)
            .await
            .unwrap();
        let stale = Duration::from_secs(10);
        assert_eq!(
            store.acquire_lease("s", "new", stale).await.unwrap(),
            LeaseOutcome::Acquired
        );
        // A holder on another host that went silent: taken over once stale.
        sqlx::query("INSERT INTO session_leases VALUES ('t', 'far', 1, 'elsewhere', ?1)")
            .bind(now() - 5.0)
            .execute(&store.pool)
            .await
            .unwrap();
        assert!(matches!(
            store.acquire_lease("t", "near", stale).await.unwrap(),
            LeaseOutcome::Busy(_)
        ));
        assert_eq!(
            store
                .acquire_lease("t", "near", Duration::from_secs(2))
                .await
                .unwrap(),
            LeaseOutcome::Acquired
        );
    }
}
