use super::*;
use serde_json::json;

async fn temp_store() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open_in_dir(dir.path()).await.unwrap();
    (dir, store)
}

#[tokio::test]
async fn sqlite_vec_is_loaded_on_every_pooled_connection() {
    let (_dir, store) = temp_store().await;
    let mut handles = Vec::new();
    for _ in 0..4 {
        let pool = store.pool().clone();
        handles.push(tokio::spawn(async move {
            let (version,): (String,) = sqlx::query_as("SELECT vec_version()")
                .fetch_one(&pool)
                .await
                .unwrap();
            version
        }));
    }
    for handle in handles {
        assert!(handle.await.unwrap().starts_with('v'));
    }
}

#[tokio::test]
async fn knn_returns_nearest_chunks_first() {
    let (_dir, store) = temp_store().await;
    let pool = store.pool();
    sqlx::query(
        "INSERT INTO papers (id, title, added_at, updated_at) VALUES ('p1', 'T', 'x', 'x')",
    )
    .execute(pool)
    .await
    .unwrap();
    for (ordinal, hot) in [(1, 0usize), (2, 1), (3, 2)] {
        let id: i64 = sqlx::query_scalar(
            "INSERT INTO chunks (paper_id, ordinal, text) VALUES ('p1', ?, 'x') RETURNING id",
        )
        .bind(ordinal)
        .fetch_one(pool)
        .await
        .unwrap();
        let mut vector = vec![0.01f32; 384];
        vector[hot] = 1.0;
        sqlx::query("INSERT INTO chunk_vectors (rowid, embedding) VALUES (?, ?)")
            .bind(id)
            .bind(vector_to_blob(&vector))
            .execute(pool)
            .await
            .unwrap();
    }
    let mut query = vec![0.01f32; 384];
    query[1] = 1.0;
    let rows: Vec<(i64, f64)> = sqlx::query_as(
        "SELECT rowid, distance FROM chunk_vectors WHERE embedding MATCH ? AND k = 2 ORDER BY distance",
    )
    .bind(vector_to_blob(&query))
    .fetch_all(pool)
    .await
    .unwrap();
    assert_eq!(rows.len(), 2);
    let ordinal: i64 = sqlx::query_scalar("SELECT ordinal FROM chunks WHERE id = ?")
        .bind(rows[0].0)
        .fetch_one(pool)
        .await
        .unwrap();
    assert_eq!(
        ordinal, 2,
        "the chunk whose vector matches the query comes first"
    );
    assert!(rows[0].1 < rows[1].1);
}

#[tokio::test]
async fn fts5_finds_chunks_by_stemmed_term_and_follows_deletes() {
    let (_dir, store) = temp_store().await;
    let pool = store.pool();
    sqlx::query(
        "INSERT INTO papers (id, title, added_at, updated_at) VALUES ('p1', 'T', 'x', 'x')",
    )
    .execute(pool)
    .await
    .unwrap();
    sqlx::query(
        "INSERT INTO chunks (paper_id, ordinal, page, section, text) VALUES
         ('p1', 1, 3, 'Distances', 'The tip of the red giant branch calibrates distances.'),
         ('p1', 2, 4, 'Masers', 'Water masers orbit the nucleus of NGC 4258.')",
    )
    .execute(pool)
    .await
    .unwrap();
    let pages: Vec<i64> = sqlx::query_scalar(
        "SELECT c.page FROM chunks_fts f JOIN chunks c ON c.id = f.rowid
         WHERE chunks_fts MATCH ? ORDER BY bm25(chunks_fts)",
    )
    .bind("maser")
    .fetch_all(pool)
    .await
    .unwrap();
    assert_eq!(pages, [4]);
    sqlx::query("DELETE FROM chunks WHERE ordinal = 2")
        .execute(pool)
        .await
        .unwrap();
    let hits: i64 =
        sqlx::query_scalar("SELECT COUNT(*) FROM chunks_fts WHERE chunks_fts MATCH 'maser'")
            .fetch_one(pool)
            .await
            .unwrap();
    assert_eq!(hits, 0);
}

#[tokio::test]
async fn migrating_twice_is_a_no_op_and_reopening_keeps_data() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open_in_dir(dir.path()).await.unwrap();
    store
        .ensure_session("s1", "Where is NGC 4258?", "m")
        .await
        .unwrap();
    store.migrate().await.unwrap();
    store.close().await;
    let store = Store::open_in_dir(dir.path()).await.unwrap();
    let applied: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM _sqlx_migrations")
        .fetch_one(store.pool())
        .await
        .unwrap();
    assert_eq!(applied, migrate::MIGRATIONS.len() as i64);
    assert_eq!(store.list_sessions(10).await.unwrap().len(), 1);
}

#[test]
fn every_migration_file_is_embedded() {
    let folder = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../migrations");
    let mut files: Vec<String> = std::fs::read_dir(folder)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".sql"))
        .collect();
    files.sort();
    let embedded: Vec<String> = migrate::MIGRATIONS
        .iter()
        .map(|(version, description, _)| format!("{version:04}_{description}.sql"))
        .collect();
    assert_eq!(files, embedded);
}

#[tokio::test]
async fn messages_keep_order_roles_and_json() {
    let (_dir, store) = temp_store().await;
    store.ensure_session("s1", "q", "m").await.unwrap();
    let base = NewMessage {
        session_id: "s1".into(),
        run_id: "r1".into(),
        step: 1,
        agent_name: "main".into(),
        role: MessageRole::User,
        content: "Where is NGC 4258?".into(),
        tool_calls: None,
        tool_call_id: None,
        metadata: json!({}),
        raw_json: None,
    };
    let assistant = NewMessage {
        role: MessageRole::Assistant,
        content: String::new(),
        tool_calls: Some(json!([{"id": "call_1", "name": "query_target", "arguments": "{}"}])),
        metadata: json!({"thinking": "resolve it"}),
        ..base.clone()
    };
    store
        .append_messages(&[base.clone(), assistant])
        .await
        .unwrap();
    let stored = store.messages("s1").await.unwrap();
    assert_eq!(stored.len(), 2);
    assert_eq!(stored[0].seq, 1);
    assert_eq!(stored[1].seq, 2);
    assert_eq!(stored[1].role, MessageRole::Assistant);
    assert_eq!(stored[1].metadata["thinking"], "resolve it");
    assert_eq!(
        stored[1].tool_calls.as_ref().unwrap()[0]["name"],
        "query_target"
    );
    let sessions = store.list_sessions(10).await.unwrap();
    assert_eq!(sessions[0].message_count, 2);
}

#[tokio::test]
async fn messages_of_an_unknown_session_violate_the_foreign_key() {
    let (_dir, store) = temp_store().await;
    let orphan = NewMessage {
        session_id: "missing".into(),
        run_id: "r".into(),
        step: 0,
        agent_name: "main".into(),
        role: MessageRole::User,
        content: "x".into(),
        tool_calls: None,
        tool_call_id: None,
        metadata: json!({}),
        raw_json: None,
    };
    assert!(store.append_messages(&[orphan]).await.is_err());
}
