//! Idle connections give back the pages they cached (its own process: SQLite's memory
//! counter is the process's).

use asterism_store::{Store, sqlite_memory_used};

#[tokio::test]
async fn shrinking_frees_what_idle_connections_cached() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("asterism.db")).await.unwrap();
    let pool = store.pool();
    sqlx::query("CREATE TABLE filler (body BLOB)")
        .execute(pool)
        .await
        .unwrap();
    sqlx::query(
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1600) \
         INSERT INTO filler SELECT randomblob(4000) FROM n",
    )
    .execute(pool)
    .await
    .unwrap();
    // Read it all: the connection caches up to 2 MB of its pages.
    let total: i64 = sqlx::query_scalar("SELECT sum(length(body)) FROM filler")
        .fetch_one(pool)
        .await
        .unwrap();
    assert!(total > 6_000_000, "{total} bytes written");
    let cached = sqlite_memory_used();
    store.shrink_memory().await;
    let shrunk = sqlite_memory_used();
    assert!(
        shrunk + 1_000_000 < cached,
        "SQLite still holds {shrunk} bytes (was {cached})"
    );
}
