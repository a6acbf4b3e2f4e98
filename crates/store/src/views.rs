//! What the desktop app reads and changes beyond a run: the audit log in pages, a
//! session's measurements, renaming and deleting sessions, and session bundles (one
//! JSON file holding everything stored about a session, to move it between machines).

use sqlx::Row;

use crate::{Result, Store, StoreError, now_rfc3339};

/// Which audit rows a page covers; `None` matches everything.
#[derive(Debug, Clone, Default, PartialEq, serde::Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct AuditFilter {
    pub session_id: Option<String>,
    pub tool: Option<String>,
    pub decision: Option<String>,
    pub outcome: Option<String>,
}

/// One tool call in the audit log (arguments were redacted before they were stored).
#[derive(Debug, Clone, PartialEq, serde::Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct AuditEntry {
    #[specta(type = f64)]
    pub id: i64,
    pub session_id: String,
    pub agent_name: String,
    pub tool_call_id: String,
    pub tool: String,
    #[specta(type = asterism_protocol::JsonValue)]
    pub arguments: serde_json::Value,
    pub decision: String,
    pub outcome: String,
    pub duration_ms: f64,
    pub error: Option<String>,
    pub created_at: String,
}

/// A page of the audit log, newest first, and how many rows match in all.
#[derive(Debug, Clone, PartialEq, serde::Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct AuditPage {
    pub entries: Vec<AuditEntry>,
    pub total: u32,
    /// The values the filters can take (every tool, decision and outcome ever logged).
    pub tools: Vec<String>,
    pub decisions: Vec<String>,
    pub outcomes: Vec<String>,
}

/// One measurement of a session: a model call or a tool call.
#[derive(Debug, Clone, PartialEq, serde::Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct MetricEntry {
    pub run_id: String,
    pub step: i32,
    pub agent_name: String,
    /// `model`, `tool` or `wait` (a call waiting for the user's permission; `name` is
    /// the tool).
    pub kind: String,
    pub name: String,
    /// For a model call a tool made (`rag_search` writing its answer): that tool.
    pub via: Option<String>,
    pub prompt_tokens: i32,
    pub completion_tokens: i32,
    pub duration_ms: f64,
    pub created_at: String,
}

/// The format name written into every bundle; imports refuse anything else.
pub const BUNDLE_FORMAT: &str = "asterism-session";
/// The bundle version this build writes and reads.
pub const BUNDLE_VERSION: u64 = 1;

/// The filter's columns as SQL with binds ?1…?4, a literal so queries stay static.
macro_rules! audit_filter_sql {
    () => {
        "(?1 IS NULL OR session_id = ?1) AND (?2 IS NULL OR tool = ?2)
         AND (?3 IS NULL OR decision = ?3) AND (?4 IS NULL OR outcome = ?4)"
    };
}

impl Store {
    /// A page of the audit log, newest first.
    pub async fn audit_page(
        &self,
        filter: &AuditFilter,
        offset: u32,
        limit: u32,
    ) -> Result<AuditPage> {
        let rows = sqlx::query(concat!(
            "SELECT id, session_id, agent_name, tool_call_id, tool, arguments, decision, outcome,
                    duration_ms, error, created_at
             FROM agent_audit_log WHERE ",
            audit_filter_sql!(),
            " ORDER BY id DESC LIMIT ?5 OFFSET ?6"
        ))
        .bind(&filter.session_id)
        .bind(&filter.tool)
        .bind(&filter.decision)
        .bind(&filter.outcome)
        .bind(i64::from(limit.clamp(1, 500)))
        .bind(i64::from(offset))
        .fetch_all(&self.pool)
        .await?;
        let entries = rows
            .iter()
            .map(|row| {
                let arguments: String = row.try_get("arguments")?;
                Ok(AuditEntry {
                    id: row.try_get("id")?,
                    session_id: row.try_get("session_id")?,
                    agent_name: row.try_get("agent_name")?,
                    tool_call_id: row.try_get("tool_call_id")?,
                    tool: row.try_get("tool")?,
                    arguments: serde_json::from_str(&arguments)
                        .unwrap_or(serde_json::Value::String(arguments)),
                    decision: row.try_get("decision")?,
                    outcome: row.try_get("outcome")?,
                    duration_ms: row.try_get("duration_ms")?,
                    error: row.try_get("error")?,
                    created_at: row.try_get("created_at")?,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let (total,): (i64,) = sqlx::query_as(concat!(
            "SELECT COUNT(*) FROM agent_audit_log WHERE ",
            audit_filter_sql!()
        ))
        .bind(&filter.session_id)
        .bind(&filter.tool)
        .bind(&filter.decision)
        .bind(&filter.outcome)
        .fetch_one(&self.pool)
        .await?;
        let distinct = |sql: &'static str| async move {
            let values: Vec<(String,)> = sqlx::query_as(sql).fetch_all(&self.pool).await?;
            Ok::<_, StoreError>(values.into_iter().map(|(value,)| value).collect::<Vec<_>>())
        };
        Ok(AuditPage {
            entries,
            total: u32::try_from(total).unwrap_or(u32::MAX),
            tools: distinct("SELECT DISTINCT tool FROM agent_audit_log ORDER BY tool").await?,
            decisions: distinct("SELECT DISTINCT decision FROM agent_audit_log ORDER BY decision")
                .await?,
            outcomes: distinct("SELECT DISTINCT outcome FROM agent_audit_log ORDER BY outcome")
                .await?,
        })
    }

    /// Every measurement of a session, in the order taken.
    pub async fn session_metrics(&self, session_id: &str) -> Result<Vec<MetricEntry>> {
        let rows = sqlx::query(
            "SELECT run_id, step, agent_name, kind, name, via, prompt_tokens, completion_tokens,
                    duration_ms, created_at
             FROM agent_metrics WHERE session_id = ? ORDER BY id",
        )
        .bind(session_id)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|row| {
                Ok(MetricEntry {
                    run_id: row.try_get("run_id")?,
                    step: row.try_get("step")?,
                    agent_name: row.try_get("agent_name")?,
                    kind: row.try_get("kind")?,
                    name: row.try_get("name")?,
                    via: row.try_get("via")?,
                    prompt_tokens: row.try_get("prompt_tokens")?,
                    completion_tokens: row.try_get("completion_tokens")?,
                    duration_ms: row.try_get("duration_ms")?,
                    created_at: row.try_get("created_at")?,
                })
            })
            .collect()
    }

    /// Gives a session a new title (shown in the history).
    pub async fn rename_session(&self, id: &str, title: &str) -> Result<()> {
        let title: String = title.trim().chars().take(120).collect();
        let done = sqlx::query("UPDATE agent_sessions SET title = ?, updated_at = ? WHERE id = ?")
            .bind(title)
            .bind(now_rfc3339())
            .bind(id)
            .execute(&self.pool)
            .await?;
        if done.rows_affected() == 0 {
            return Err(StoreError::NotFound(format!("session {id}")));
        }
        Ok(())
    }

    /// Deletes a session with its messages, plan, measurements, audit rows and
    /// background tasks, in one transaction. Papers and notes are the library's and stay.
    pub async fn delete_session(&self, id: &str) -> Result<()> {
        let mut tx = self.pool.begin().await?;
        for sql in [
            "DELETE FROM agent_audit_log WHERE session_id = ?",
            "DELETE FROM agent_metrics WHERE session_id = ?",
            "DELETE FROM background_tasks WHERE session_id = ?",
            "DELETE FROM agent_tasks WHERE session_id = ?",
            "DELETE FROM agent_messages WHERE session_id = ?",
        ] {
            sqlx::query(sql).bind(id).execute(&mut *tx).await?;
        }
        let done = sqlx::query("DELETE FROM agent_sessions WHERE id = ?")
            .bind(id)
            .execute(&mut *tx)
            .await?;
        if done.rows_affected() == 0 {
            return Err(StoreError::NotFound(format!("session {id}")));
        }
        tx.commit().await?;
        Ok(())
    }

    /// Everything stored about a session as one JSON document (see [`BUNDLE_FORMAT`]).
    pub async fn export_session(&self, id: &str) -> Result<serde_json::Value> {
        let session = self.session(id).await?;
        let rows = |sql: &'static str| async move {
            let rows: Vec<(String,)> = sqlx::query_as(sql).bind(id).fetch_all(&self.pool).await?;
            rows.into_iter()
                .map(|(text,)| Ok(serde_json::from_str::<serde_json::Value>(&text)?))
                .collect::<Result<Vec<_>>>()
        };
        let messages = rows(
            "SELECT json_object('seq', seq, 'run_id', run_id, 'step', step,
                    'agent_name', agent_name, 'role', role, 'content', content,
                    'tool_calls', tool_calls, 'tool_call_id', tool_call_id,
                    'metadata', metadata, 'raw_json', raw_json, 'created_at', created_at)
             FROM agent_messages WHERE session_id = ? ORDER BY seq",
        )
        .await?;
        let audit = rows(
            "SELECT json_object('agent_name', agent_name, 'tool_call_id', tool_call_id,
                    'tool', tool, 'arguments', arguments, 'decision', decision,
                    'outcome', outcome, 'duration_ms', duration_ms, 'error', error,
                    'created_at', created_at)
             FROM agent_audit_log WHERE session_id = ? ORDER BY id",
        )
        .await?;
        let metrics = rows(
            "SELECT json_object('run_id', run_id, 'step', step, 'agent_name', agent_name,
                    'kind', kind, 'name', name, 'prompt_tokens', prompt_tokens,
                    'completion_tokens', completion_tokens, 'duration_ms', duration_ms,
                    'created_at', created_at, 'via', via)
             FROM agent_metrics WHERE session_id = ? ORDER BY id",
        )
        .await?;
        let tasks = rows(
            "SELECT json_object('agent_name', agent_name, 'task_id', task_id,
                    'position', position, 'content', content, 'status', status,
                    'blocked_by', blocked_by, 'updated_at', updated_at)
             FROM agent_tasks WHERE session_id = ? ORDER BY agent_name, position",
        )
        .await?;
        Ok(serde_json::json!({
            "format": BUNDLE_FORMAT,
            "version": BUNDLE_VERSION,
            "session": {
                "id": session.id,
                "title": session.title,
                "model": session.model,
                "summary": session.summary,
                "created_at": session.created_at,
                "updated_at": session.updated_at,
            },
            "messages": messages,
            "audit": audit,
            "metrics": metrics,
            "tasks": tasks,
        }))
    }

    /// Stores a bundle written by [`Store::export_session`], in one transaction, and
    /// returns the session id. Refuses other files, newer versions and a session that
    /// is already here (nothing is overwritten).
    /// Writes a session's bundle to `path`, through a temporary file beside it (a failed
    /// write leaves no half bundle); returns the bytes written.
    pub async fn export_session_file(&self, id: &str, path: &std::path::Path) -> Result<usize> {
        let bundle = self.export_session(id).await?;
        let text = serde_json::to_string_pretty(&bundle)?;
        let temp = path.with_extension("partial");
        let written = match tokio::fs::write(&temp, &text).await {
            Ok(()) => tokio::fs::rename(&temp, path).await,
            Err(error) => Err(error),
        };
        written.map_err(|source| {
            let _ = std::fs::remove_file(&temp);
            StoreError::Write {
                path: path.to_path_buf(),
                source,
            }
        })?;
        Ok(text.len())
    }

    /// Reads a bundle file and stores its session under a new id, which it returns.
    pub async fn import_session_file(&self, path: &std::path::Path) -> Result<String> {
        let shown = path.display();
        let text = tokio::fs::read_to_string(path)
            .await
            .map_err(|error| StoreError::Invalid(format!("cannot read {shown}: {error}")))?;
        let bundle: serde_json::Value = serde_json::from_str(&text).map_err(|error| {
            StoreError::Invalid(format!("{shown} is not a session bundle: {error}"))
        })?;
        self.import_session(&bundle).await
    }

    pub async fn import_session(&self, bundle: &serde_json::Value) -> Result<String> {
        let invalid = |what: &str| StoreError::Invalid(format!("not a session bundle: {what}"));
        if bundle.get("format").and_then(|f| f.as_str()) != Some(BUNDLE_FORMAT) {
            return Err(invalid("no \"format\": \"asterism-session\""));
        }
        match bundle.get("version").and_then(|v| v.as_u64()) {
            Some(BUNDLE_VERSION) => {}
            Some(version) => {
                return Err(StoreError::Invalid(format!(
                    "the bundle is version {version}; this Asterism reads version {BUNDLE_VERSION}"
                )));
            }
            None => return Err(invalid("no version")),
        }
        let session = bundle.get("session").ok_or_else(|| invalid("no session"))?;
        session
            .get("id")
            .and_then(|v| v.as_str())
            .filter(|id| !id.trim().is_empty())
            .ok_or_else(|| invalid("no session id"))?;
        let list = |name: &str| -> Result<String> {
            match bundle.get(name) {
                None | Some(serde_json::Value::Null) => Ok("[]".to_string()),
                Some(value @ serde_json::Value::Array(_)) => Ok(value.to_string()),
                Some(_) => Err(StoreError::Invalid(format!(
                    "not a session bundle: \"{name}\" is not a list"
                ))),
            }
        };
        // A new id: the same bundle imported twice is two sessions, and a bundle of a
        // session still in this library never touches it.
        let id = uuid::Uuid::new_v4().to_string();
        let now = now_rfc3339();
        let mut tx = self.pool.begin().await?;
        insert_session(&mut tx, &id, session, &now).await?;
        for (name, sql) in BUNDLE_ROWS {
            sqlx::query(sql)
                .bind(&id)
                .bind(list(name)?)
                .bind(&now)
                .execute(&mut *tx)
                .await
                .map_err(bad_bundle)?;
        }
        tx.commit().await?;
        Ok(id)
    }
}

/// The session row of a bundle, under `id`.
async fn insert_session(
    conn: &mut sqlx::SqliteConnection,
    id: &str,
    session: &serde_json::Value,
    now: &str,
) -> Result<()> {
    let text = |name: &str| {
        session
            .get(name)
            .and_then(|v| v.as_str())
            .map(str::to_string)
    };
    sqlx::query(
        "INSERT INTO agent_sessions (id, title, model, summary, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?)",
    )
    .bind(id)
    .bind(text("title").unwrap_or_else(|| "Imported session".into()))
    .bind(text("model").unwrap_or_default())
    .bind(text("summary"))
    .bind(text("created_at").unwrap_or_else(|| now.to_string()))
    .bind(text("updated_at").unwrap_or_else(|| now.to_string()))
    .execute(conn)
    .await?;
    Ok(())
}

/// Each list of a bundle and the statement storing its rows: `?1` the session id, `?2`
/// the list (JSON), `?3` the time for rows without one.
const BUNDLE_ROWS: [(&str, &str); 4] = [
    (
        "messages",
        "INSERT INTO agent_messages (session_id, seq, run_id, step, agent_name, role, content,
                tool_calls, tool_call_id, metadata, raw_json, created_at)
         SELECT ?1, json_extract(value, '$.seq'), json_extract(value, '$.run_id'),
                coalesce(json_extract(value, '$.step'), 0),
                coalesce(json_extract(value, '$.agent_name'), 'main'),
                json_extract(value, '$.role'), coalesce(json_extract(value, '$.content'), ''),
                json_extract(value, '$.tool_calls'), json_extract(value, '$.tool_call_id'),
                CASE WHEN json_type(value, '$.metadata') = 'object'
                          OR (json_type(value, '$.metadata') = 'text'
                              AND json_valid(json_extract(value, '$.metadata')))
                    THEN json_extract(value, '$.metadata') ELSE '{}' END,
                CASE WHEN json_type(value, '$.raw_json') IN ('object', 'array')
                          OR (json_type(value, '$.raw_json') = 'text'
                              AND json_valid(json_extract(value, '$.raw_json')))
                    THEN json_extract(value, '$.raw_json') END,
                coalesce(json_extract(value, '$.created_at'), ?3)
         FROM json_each(?2)",
    ),
    (
        "audit",
        "INSERT INTO agent_audit_log (session_id, agent_name, tool_call_id, tool, arguments,
                decision, outcome, duration_ms, error, created_at)
         SELECT ?1, coalesce(json_extract(value, '$.agent_name'), 'main'),
                json_extract(value, '$.tool_call_id'), json_extract(value, '$.tool'),
                coalesce(json_extract(value, '$.arguments'), '{}'),
                json_extract(value, '$.decision'), json_extract(value, '$.outcome'),
                coalesce(json_extract(value, '$.duration_ms'), 0),
                json_extract(value, '$.error'),
                coalesce(json_extract(value, '$.created_at'), ?3)
         FROM json_each(?2)",
    ),
    (
        "metrics",
        "INSERT INTO agent_metrics (session_id, run_id, step, agent_name, kind, name,
                prompt_tokens, completion_tokens, duration_ms, created_at, via)
         SELECT ?1, json_extract(value, '$.run_id'), json_extract(value, '$.step'),
                coalesce(json_extract(value, '$.agent_name'), 'main'),
                json_extract(value, '$.kind'), json_extract(value, '$.name'),
                coalesce(json_extract(value, '$.prompt_tokens'), 0),
                coalesce(json_extract(value, '$.completion_tokens'), 0),
                coalesce(json_extract(value, '$.duration_ms'), 0),
                coalesce(json_extract(value, '$.created_at'), ?3),
                json_extract(value, '$.via')
         FROM json_each(?2)",
    ),
    (
        "tasks",
        "INSERT INTO agent_tasks (session_id, agent_name, task_id, position, content, status,
                blocked_by, updated_at)
         SELECT ?1, coalesce(json_extract(value, '$.agent_name'), 'main'),
                json_extract(value, '$.task_id'), json_extract(value, '$.position'),
                json_extract(value, '$.content'), json_extract(value, '$.status'),
                coalesce(json_extract(value, '$.blocked_by'), '[]'),
                coalesce(json_extract(value, '$.updated_at'), ?3)
         FROM json_each(?2)",
    ),
];

/// A row of the bundle the schema refuses (a missing role, a repeated seq…).
fn bad_bundle(error: sqlx::Error) -> StoreError {
    match error {
        sqlx::Error::Database(db) => {
            StoreError::Invalid(format!("not a session bundle: {}", db.message()))
        }
        other => other.into(),
    }
}
