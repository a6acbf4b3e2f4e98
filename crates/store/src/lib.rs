//! SQLite storage for Asterism: one pool (WAL, foreign keys, busy timeout) over one
//! database file, migrations embedded from `migrations/`, sqlite-vec and FTS5.
//!
//! One module per table group; every query is a runtime `sqlx::query` with binds.

mod ads_pulls;
mod audit;
mod figures;
mod imports;
mod leases;
mod library;
mod memories;
mod messages;
mod metrics;
mod migrate;
mod objects;
mod papers;
mod permissions;
mod profile;
mod rerank;
mod sessions;
mod targets;
mod tasks;
mod vec;
mod views;

use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::time::Duration;

use sqlx::SqlitePool;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};

pub use ads_pulls::{AdsPull, AdsPullApplied, AdsPullPlan};
pub use audit::AuditRow;
pub use figures::StoredFigure;
pub use imports::PendingFile;
pub use leases::{LeaseHolder, LeaseOutcome};
pub use library::{
    ChunkHit, LibraryFile, LibraryPaper, NewChunk, Note, PageBreak, PaperFilter, page_at,
};
pub use memories::MemoryRow;
pub use messages::{MessageRole, NewMessage, StoredMessage};
pub use metrics::MetricRow;
pub use objects::{LinkedObject, ObjectLink};
pub use papers::{PaperFile, PaperText};
pub use profile::ProfilePaper;
pub use sessions::SessionRow;
pub use targets::{CachedLinks, CachedTarget};
pub use tasks::{BackgroundTaskRow, TaskRow};
pub use vec::{blob_to_vector, vector_to_blob};
pub use views::{AuditEntry, AuditFilter, AuditPage, BUNDLE_FORMAT, BUNDLE_VERSION, MetricEntry};

/// File name of the database inside the data directory.
pub const DATABASE_FILE: &str = "asterism.db";

/// Errors from the store. Callers mostly show them; `NotFound` drives behaviour.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("database error: {0}")]
    Sqlx(#[from] sqlx::Error),
    #[error("database migration failed: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    #[error("{0} not found")]
    NotFound(String),
    /// Input the store refuses (e.g. a file that is not a session bundle).
    #[error("{0}")]
    Invalid(String),
    #[error("stored JSON is invalid: {0}")]
    Json(#[from] serde_json::Error),
    #[error("cannot create the data directory {path}: {source}")]
    DataDir {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot write {path}: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot take the database's migration lock {path}: {source}")]
    Lock {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// Takes the exclusive lock of `{database}.lock`, waiting for another process that
/// holds it (it is released when the returned file is dropped, or its process dies).
async fn migration_lock(database: &Path) -> Result<std::fs::File> {
    let mut name = database.as_os_str().to_owned();
    name.push(".lock");
    let path = PathBuf::from(name);
    let io = |source| StoreError::Lock {
        path: path.clone(),
        source,
    };
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(io)?;
    tokio::task::spawn_blocking(move || file.lock().map(|()| file))
        .await
        .map_err(|error| io(std::io::Error::other(error)))?
        .map_err(io)
}

/// Owner-only folders and files.
mod private {
    use std::path::Path;

    pub fn create_dir(path: &Path) -> std::io::Result<()> {
        let mut builder = std::fs::DirBuilder::new();
        builder.recursive(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::DirBuilderExt;
            builder.mode(0o700);
        }
        builder.create(path)
    }

    /// Creates an empty file with mode 0600 unless it exists.
    pub fn create_file(path: &Path) -> std::io::Result<()> {
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            options.mode(0o600);
        }
        match options.open(path) {
            Ok(_) => Ok(()),
            Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
            Err(error) => Err(error),
        }
    }

    #[cfg(unix)]
    pub fn restrict(path: &Path, mode: u32) -> std::io::Result<()> {
        use std::os::unix::fs::PermissionsExt;
        let current = std::fs::metadata(path)?.permissions().mode() & 0o777;
        if current & !mode != 0 {
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(current & mode))?;
        }
        Ok(())
    }

    #[cfg(not(unix))]
    pub fn restrict(_path: &Path, _mode: u32) -> std::io::Result<()> {
        Ok(())
    }
}

pub type Result<T, E = StoreError> = std::result::Result<T, E>;

/// The database: a cheap-to-clone handle over one connection pool.
#[derive(Clone, Debug)]
pub struct Store {
    pool: SqlitePool,
}

impl Store {
    /// Opens (creating if needed) `asterism.db` in `data_dir` and migrates it. The data
    /// directory is made owner-only (0700) and the database file 0600 (SQLite gives its
    /// WAL and shared-memory files the database's mode), also when they already exist.
    pub async fn open_in_dir(data_dir: &Path) -> Result<Self> {
        let io = |source| StoreError::DataDir {
            path: data_dir.to_path_buf(),
            source,
        };
        private::create_dir(data_dir).map_err(io)?;
        private::restrict(data_dir, 0o700).map_err(io)?;
        let database = data_dir.join(DATABASE_FILE);
        private::create_file(&database).map_err(io)?;
        for suffix in ["", "-wal", "-shm"] {
            let path = data_dir.join(format!("{DATABASE_FILE}{suffix}"));
            if path.exists() {
                private::restrict(&path, 0o600).map_err(io)?;
            }
        }
        Self::open(&database).await
    }

    /// Opens (creating if needed) the database file at `path` and migrates it.
    pub async fn open(path: &Path) -> Result<Self> {
        vec::register_sqlite_vec();
        let options = SqliteConnectOptions::from_str("sqlite:")?
            .filename(path)
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Normal)
            .foreign_keys(true)
            .busy_timeout(Duration::from_secs(10));
        // Several processes may open a new data directory at once (the app and a few
        // `asterism` commands): one migrates while the others wait on a lock file
        // beside the database, then find nothing left to do.
        let lock = migration_lock(path).await?;
        let pool = SqlitePoolOptions::new()
            .max_connections(4)
            .connect_with(options)
            .await?;
        let store = Self { pool };
        let migrated = store.migrate().await;
        drop(lock);
        migrated?;
        Ok(store)
    }

    /// Applies every embedded migration not yet applied. Running it again is a no-op.
    pub async fn migrate(&self) -> Result<()> {
        match migrate::migrator().run(&self.pool).await {
            // A database a newer Asterism has migrated: say so, not sqlx's words.
            Err(sqlx::migrate::MigrateError::VersionMissing(version)) => {
                return Err(StoreError::Invalid(format!(
                    "this database was last opened by a newer version of Asterism (its schema is at migration {version}, this one knows up to {}): update Asterism to open it; nothing in it was changed",
                    migrate::MIGRATIONS.last().map_or(0, |(known, _, _)| *known)
                )));
            }
            migrated => migrated?,
        }
        Ok(())
    }

    /// Frees what the idle connections cache (`PRAGMA shrink_memory`): each keeps up to
    /// 2 MB of the pages its last queries read (a search, an import) for as long as it
    /// lives. Connections in use are left alone; the caches fill again as they are used.
    pub async fn shrink_memory(&self) {
        let mut idle = Vec::new();
        while let Some(connection) = self.pool.try_acquire() {
            idle.push(connection);
        }
        let before = sqlite_memory_used();
        for connection in &mut idle {
            if let Err(error) = sqlx::query("PRAGMA shrink_memory")
                .execute(&mut **connection)
                .await
            {
                tracing::debug!(%error, "could not shrink a connection's cache");
            }
        }
        tracing::info!(
            connections = idle.len(),
            before,
            after = sqlite_memory_used(),
            "SQLite's memory, shrunk"
        );
    }

    /// The underlying pool, for crates that own their own query modules.
    pub fn pool(&self) -> &SqlitePool {
        &self.pool
    }

    /// Appends messages, audit rows and metrics in one transaction: the write-behind
    /// writer's unit of work.
    pub async fn append_batch(
        &self,
        messages: &[NewMessage],
        audit: &[AuditRow],
        metrics: &[MetricRow],
    ) -> Result<()> {
        if messages.is_empty() && audit.is_empty() && metrics.is_empty() {
            return Ok(());
        }
        let mut tx = self.pool.begin().await?;
        messages::insert_messages(&mut tx, messages).await?;
        audit::insert_audit(&mut tx, audit).await?;
        metrics::insert_metrics(&mut tx, metrics).await?;
        tx.commit().await?;
        Ok(())
    }

    /// The sqlite-vec version, proving the extension is loaded.
    pub async fn vec_version(&self) -> Result<String> {
        let (version,): (String,) = sqlx::query_as("SELECT vec_version()")
            .fetch_one(&self.pool)
            .await?;
        Ok(version)
    }

    /// Closes every connection, checkpointing the WAL.
    pub async fn close(&self) {
        self.pool.close().await;
    }
}

/// The bytes SQLite has allocated in this process, all connections together.
#[allow(unsafe_code)]
pub fn sqlite_memory_used() -> i64 {
    // SAFETY: a read of SQLite's own allocation counter; no preconditions.
    unsafe { libsqlite3_sys::sqlite3_memory_used() }
}

/// The current time as RFC 3339 UTC with millisecond precision, as stored in `*_at`.
pub fn now_rfc3339() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

#[cfg(test)]
mod tests;
