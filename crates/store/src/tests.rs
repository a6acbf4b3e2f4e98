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

/// A database in a new folder, holding one session.
async fn a_store_with_a_session() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open_in_dir(dir.path()).await.unwrap();
    store
        .ensure_session("s1", "Where is NGC 4258?", "m")
        .await
        .unwrap();
    (dir, store)
}

#[tokio::test]
async fn migrating_twice_is_a_no_op_and_reopening_keeps_data() {
    let (dir, store) = a_store_with_a_session().await;
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

/// An older Asterism opening a database a newer one migrated says so in plain words,
/// and leaves the database as it was.
#[tokio::test]
async fn a_database_from_a_newer_asterism_is_refused_in_plain_words() {
    let (dir, store) = a_store_with_a_session().await;
    // What a newer version's next migration leaves behind.
    sqlx::query(
        "INSERT INTO _sqlx_migrations (version, description, installed_on, success, checksum, execution_time)
         VALUES (999, 'from the future', CURRENT_TIMESTAMP, 1, x'00', 0)",
    )
    .execute(store.pool())
    .await
    .unwrap();
    store.close().await;
    let error = Store::open_in_dir(dir.path())
        .await
        .unwrap_err()
        .to_string();
    assert!(error.contains("newer version of Asterism"), "{error}");
    assert!(error.contains("migration 999"), "{error}");
    assert!(!error.contains("resolved migrations"), "{error}");
    // Nothing was lost or changed: without the future row it opens with its session.
    let pool = sqlx::SqlitePool::connect(&format!(
        "sqlite://{}",
        dir.path().join(crate::DATABASE_FILE).display()
    ))
    .await
    .unwrap();
    let applied: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM _sqlx_migrations")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(applied, migrate::MIGRATIONS.len() as i64 + 1);
    sqlx::query("DELETE FROM _sqlx_migrations WHERE version = 999")
        .execute(&pool)
        .await
        .unwrap();
    pool.close().await;
    let store = Store::open_in_dir(dir.path()).await.unwrap();
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

/// Migration 18 drops the copy of a call's arguments from the tool rows written
/// before it, and nothing else of them.
#[tokio::test]
async fn tool_rows_lose_their_copy_of_the_arguments_and_keep_the_rest() {
    let (_dir, store) = temp_store().await;
    store.ensure_session("s1", "q", "m").await.unwrap();
    let row = NewMessage {
        session_id: "s1".into(),
        run_id: "r1".into(),
        step: 1,
        agent_name: "main".into(),
        role: MessageRole::Tool,
        content: "12:18:57.6 +47:18:14".into(),
        tool_calls: None,
        tool_call_id: Some("call_1".into()),
        metadata: json!({"name": "query_target", "arguments": {"name": "NGC 4258"}, "isError": false}),
        raw_json: None,
    };
    let user = NewMessage {
        role: MessageRole::User,
        tool_call_id: None,
        metadata: json!({"arguments": "a user row keeps what it has"}),
        ..row.clone()
    };
    store.append_messages(&[row, user]).await.unwrap();
    // What an earlier release stored from a hand-made bundle: metadata that is not JSON.
    sqlx::query(
        "INSERT INTO agent_messages (session_id, seq, run_id, step, agent_name, role, content, metadata, created_at)
         VALUES ('s1', 99, 'r0', 0, 'main', 'tool', 'x', 'not json', '2026-01-01T00:00:00Z')",
    )
    .execute(store.pool())
    .await
    .unwrap();
    let (_, _, sql) = migrate::MIGRATIONS[17];
    sqlx::raw_sql(sql).execute(store.pool()).await.unwrap();
    let kept: String = sqlx::query_scalar("SELECT metadata FROM agent_messages WHERE seq = 99")
        .fetch_one(store.pool())
        .await
        .unwrap();
    assert_eq!(
        kept, "not json",
        "left as it was, and the migration went through"
    );
    sqlx::query("DELETE FROM agent_messages WHERE seq = 99")
        .execute(store.pool())
        .await
        .unwrap();
    let messages = store.messages("s1").await.unwrap();
    assert_eq!(
        messages[0].metadata,
        json!({"name": "query_target", "isError": false})
    );
    assert_eq!(messages[0].content, "12:18:57.6 +47:18:14");
    assert_eq!(
        messages[1].metadata["arguments"],
        "a user row keeps what it has"
    );
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
async fn replay_reads_the_same_messages_without_raw_json() {
    let (_dir, store) = temp_store().await;
    store.ensure_session("s1", "q", "m").await.unwrap();
    let user = NewMessage {
        session_id: "s1".into(),
        run_id: "r1".into(),
        step: 0,
        agent_name: "main".into(),
        role: MessageRole::User,
        content: "Quotes \" and \\ and a tab\t and 中文".into(),
        tool_calls: None,
        tool_call_id: None,
        metadata: json!({}),
        raw_json: Some(json!({"role": "user"})),
    };
    let assistant = NewMessage {
        role: MessageRole::Assistant,
        step: 1,
        content: String::new(),
        tool_calls: Some(
            json!([{"id": "call_1", "name": "query_target", "arguments": "{\"name\":\"M 106\"}"}]),
        ),
        metadata: json!({"thinking": "resolve it", "usage": {"input": 12}}),
        ..user.clone()
    };
    let tool = NewMessage {
        role: MessageRole::Tool,
        step: 1,
        content: "RA 12:18:57.62".into(),
        tool_call_id: Some("call_1".into()),
        ..user.clone()
    };
    store
        .append_messages(&[user, assistant, tool])
        .await
        .unwrap();
    // A row written by a newer version with a role this one does not know.
    sqlx::query(
        "INSERT INTO agent_messages (session_id, seq, run_id, role, content, created_at)
         VALUES ('s1', 4, 'r1', 'critique', 'x', '2026-12-01T00:00:00Z')",
    )
    .execute(store.pool())
    .await
    .unwrap();
    let full = store.messages("s1").await.unwrap();
    let replay = store.messages_for_replay("s1").await.unwrap();
    assert_eq!(replay.len(), 3, "the unknown role is skipped");
    for (a, b) in full.iter().zip(&replay) {
        assert_eq!(b.raw_json, None);
        assert_eq!(
            StoredMessage {
                raw_json: None,
                ..a.clone()
            },
            *b
        );
    }
    assert!(
        store
            .messages_for_replay("nothing")
            .await
            .unwrap()
            .is_empty()
    );
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

async fn session_with_history(store: &Store, id: &str) {
    store
        .ensure_session(id, "TRGB distances", "qwen3-max")
        .await
        .unwrap();
    let message = |role, content: &str, tool_calls: Option<serde_json::Value>| NewMessage {
        session_id: id.into(),
        run_id: "r1".into(),
        step: 1,
        agent_name: "main".into(),
        role,
        content: content.into(),
        tool_calls,
        tool_call_id: None,
        metadata: json!({"model": "qwen3-max"}),
        raw_json: Some(json!({"role": "x", "content": content})),
    };
    store
        .append_messages(&[
            message(MessageRole::User, "Where is NGC 4258?", None),
            message(
                MessageRole::Assistant,
                "",
                Some(json!([{"id": "c1", "name": "query_target", "arguments": {"name": "NGC 4258"}}])),
            ),
        ])
        .await
        .unwrap();
    let audit = |tool: &str, decision: &str, outcome: &str| AuditRow {
        session_id: id.into(),
        agent_name: "main".into(),
        tool_call_id: format!("{tool}-{decision}"),
        tool: tool.into(),
        arguments: json!({"name": "NGC 4258", "token": "[REDACTED]"}),
        decision: decision.into(),
        outcome: outcome.into(),
        duration_ms: 12.5,
        error: None,
    };
    store
        .append_audit(&[
            audit("query_target", "allow", "ok"),
            audit("run_bash", "deny", "rejected"),
            audit("query_target", "allow", "error"),
        ])
        .await
        .unwrap();
    store
        .append_metrics(&[MetricRow {
            session_id: id.into(),
            run_id: "r1".into(),
            step: 1,
            agent_name: "main".into(),
            kind: "model".into(),
            name: "qwen3-max".into(),
            via: Some("rag_search".into()),
            prompt_tokens: 812,
            completion_tokens: 40,
            duration_ms: 930.0,
        }])
        .await
        .unwrap();
}

#[tokio::test]
async fn the_audit_log_pages_newest_first_and_filters_by_each_column() {
    let (_dir, store) = temp_store().await;
    session_with_history(&store, "s1").await;
    session_with_history(&store, "s2").await;
    let all = store
        .audit_page(&AuditFilter::default(), 0, 4)
        .await
        .unwrap();
    assert_eq!(all.total, 6);
    assert_eq!(all.entries.len(), 4);
    assert_eq!(all.entries[0].session_id, "s2", "newest first");
    assert_eq!(all.tools, ["query_target", "run_bash"]);
    assert_eq!(all.decisions, ["allow", "deny"]);
    let second = store
        .audit_page(&AuditFilter::default(), 4, 4)
        .await
        .unwrap();
    assert_eq!(second.entries.len(), 2);
    let filter = AuditFilter {
        session_id: Some("s1".into()),
        tool: Some("query_target".into()),
        decision: Some("allow".into()),
        outcome: Some("error".into()),
    };
    let one = store.audit_page(&filter, 0, 50).await.unwrap();
    assert_eq!(one.total, 1);
    assert_eq!(one.entries[0].arguments["token"], "[REDACTED]");
}

#[tokio::test]
async fn a_session_bundle_round_trips_into_another_database_under_a_new_id_each_time() {
    let (_dir, store) = temp_store().await;
    session_with_history(&store, "s1").await;
    let bundle = store.export_session("s1").await.unwrap();
    assert_eq!(bundle["format"], BUNDLE_FORMAT);
    assert_eq!(bundle["messages"].as_array().unwrap().len(), 2);

    let (_other_dir, other) = temp_store().await;
    let first = other.import_session(&bundle).await.unwrap();
    assert_ne!(first, "s1", "stored under a new id");
    let original = store.messages("s1").await.unwrap();
    let imported = other.messages(&first).await.unwrap();
    assert_eq!(
        imported, original,
        "every message, tool call and raw JSON comes back"
    );
    assert_eq!(other.audit_count(&first).await.unwrap(), 3);
    let metric = &other.session_metrics(&first).await.unwrap()[0];
    assert_eq!(metric.prompt_tokens, 812);
    assert_eq!(
        metric.via.as_deref(),
        Some("rag_search"),
        "a tool's model call stays its"
    );
    assert_eq!(other.session(&first).await.unwrap().title, "TRGB distances");

    // The same bundle again is a second session; the first is untouched. Into the
    // database it came from, it is a copy beside the original.
    let second = other.import_session(&bundle).await.unwrap();
    assert_ne!(second, first);
    assert_eq!(other.messages(&first).await.unwrap().len(), 2);
    assert_eq!(other.messages(&second).await.unwrap().len(), 2);
    let copy = store.import_session(&bundle).await.unwrap();
    assert_eq!(store.messages(&copy).await.unwrap(), original);
    assert_eq!(store.messages("s1").await.unwrap(), original);
}

/// A bundle whose metadata or raw message is not JSON (exports carry them as JSON
/// text; a hand-made or hostile bundle may not) stores `{}` and nothing, so the session reads back and later migrations, which read
/// these columns as JSON, go through.
#[tokio::test]
async fn a_bundle_s_metadata_that_is_not_an_object_is_stored_as_empty() {
    let (_dir, store) = temp_store().await;
    let bundle = json!({
        "format": BUNDLE_FORMAT, "version": BUNDLE_VERSION,
        "session": {"id": "s8", "title": "t"},
        "messages": [{"seq": 1, "run_id": "r", "role": "tool", "content": "out",
                      "tool_call_id": "c1", "metadata": "not json {", "raw_json": "nor this"}],
    });
    let id = store.import_session(&bundle).await.unwrap();
    let messages = store.messages(&id).await.unwrap();
    assert_eq!(messages[0].metadata, json!({}));
    assert_eq!(messages[0].raw_json, None);
    assert_eq!(messages[0].content, "out");
}

#[tokio::test]
async fn a_broken_bundle_is_refused_and_leaves_nothing_behind() {
    let (_dir, store) = temp_store().await;
    let not_ours = store
        .import_session(&json!({"hello": 1}))
        .await
        .unwrap_err();
    assert!(
        not_ours.to_string().contains("not a session bundle"),
        "{not_ours}"
    );
    let newer = json!({"format": BUNDLE_FORMAT, "version": 99, "session": {"id": "x"}});
    assert!(
        store
            .import_session(&newer)
            .await
            .unwrap_err()
            .to_string()
            .contains("version 99")
    );
    // A message without a role violates the schema half-way through: all rolled back.
    let broken = json!({
        "format": BUNDLE_FORMAT, "version": BUNDLE_VERSION,
        "session": {"id": "s9", "title": "t"},
        "messages": [{"seq": 1, "run_id": "r", "role": "user", "content": "hi"},
                     {"seq": 2, "run_id": "r", "content": "no role"}],
    });
    let error = store.import_session(&broken).await.unwrap_err().to_string();
    assert!(error.contains("not a session bundle"), "{error}");
    assert!(
        store.session("s9").await.is_err(),
        "the session row was rolled back"
    );
    assert!(store.messages("s9").await.unwrap().is_empty());
}

#[tokio::test]
async fn renaming_and_deleting_a_session_take_everything_of_it_and_nothing_else() {
    let (_dir, store) = temp_store().await;
    session_with_history(&store, "s1").await;
    session_with_history(&store, "s2").await;
    store
        .rename_session("s1", "  H0 from TRGB  ")
        .await
        .unwrap();
    assert_eq!(store.session("s1").await.unwrap().title, "H0 from TRGB");
    assert!(matches!(
        store.rename_session("nope", "x").await,
        Err(StoreError::NotFound(_))
    ));
    store.delete_session("s1").await.unwrap();
    assert!(store.session("s1").await.is_err());
    assert!(store.messages("s1").await.unwrap().is_empty());
    assert_eq!(store.audit_count("s1").await.unwrap(), 0);
    assert_eq!(store.metrics_count("s1").await.unwrap(), 0);
    assert_eq!(
        store.audit_count("s2").await.unwrap(),
        3,
        "the other session is untouched"
    );
    assert_eq!(store.messages("s2").await.unwrap().len(), 2);
}

#[tokio::test]
async fn a_preprint_and_its_published_version_are_one_paper_with_the_published_reference() {
    let (_dir, store) = temp_store().await;
    let preprint = asterism_protocol::PaperRecord {
        bibcode: Some("2021arXiv210512345B".into()),
        arxiv_id: Some("2105.12345".into()),
        title: "A 38 Million Year Old Neptune-sized Planet in the Kepler Field".into(),
        authors: vec!["Bouma, L. G.".into()],
        year: Some(2021),
        journal: Some("arXiv e-prints".into()),
        ..Default::default()
    };
    let published = asterism_protocol::PaperRecord {
        bibcode: Some("2022AJ....163..121B".into()),
        arxiv_id: Some("2105.12345".into()),
        doi: Some("10.3847/1538-3881/ac4966".into()),
        year: Some(2022),
        journal: Some("The Astronomical Journal".into()),
        volume: Some("163".into()),
        page: Some("121".into()),
        ..preprint.clone()
    };
    let id = store.upsert_paper(&preprint).await.unwrap();
    let note = store
        .add_note(&Note {
            id: String::new(),
            paper_id: Some(id.clone()),
            paper_label: None,
            page: Some(3),
            quote: Some("a 38 Myr old".into()),
            comment: "age from the cluster".into(),
            color: Some("yellow".into()),
            rects: serde_json::json!([{"x": 72, "y": 600, "width": 200, "height": 12}]),
            created_at: String::new(),
            updated_at: String::new(),
        })
        .await
        .unwrap();

    // The published version arrives (an ADS record, a download, an import).
    assert_eq!(
        store.upsert_paper(&published).await.unwrap(),
        id,
        "one entry"
    );
    let merged = store.paper_record(&id).await.unwrap().unwrap();
    assert_eq!(merged.bibcode.as_deref(), Some("2022AJ....163..121B"));
    assert_eq!(merged.doi.as_deref(), Some("10.3847/1538-3881/ac4966"));
    assert_eq!(merged.journal.as_deref(), Some("The Astronomical Journal"));
    assert_eq!(
        (
            merged.year,
            merged.volume.as_deref(),
            merged.page.as_deref()
        ),
        (Some(2022), Some("163"), Some("121"))
    );
    assert_eq!(
        merged.arxiv_id.as_deref(),
        Some("2105.12345"),
        "the eprint stays"
    );
    let notes = store.notes(Some(&id)).await.unwrap();
    assert_eq!(notes.len(), 1);
    assert_eq!(
        (notes[0].id.as_str(), &notes[0].rects),
        (note.id.as_str(), &note.rects),
        "highlight kept"
    );

    // The preprint seen again (an arXiv search) does not take the reference back, and
    // the DOI alone finds the same paper.
    assert_eq!(store.upsert_paper(&preprint).await.unwrap(), id);
    let by_doi = asterism_protocol::PaperRecord {
        doi: Some("10.3847/1538-3881/AC4966".into()),
        title: "x".into(),
        ..Default::default()
    };
    assert_eq!(store.upsert_paper(&by_doi).await.unwrap(), id);
    let kept = store.paper_record(&id).await.unwrap().unwrap();
    assert_eq!(kept.bibcode.as_deref(), Some("2022AJ....163..121B"));
    assert_eq!(kept.year, Some(2022));
}
