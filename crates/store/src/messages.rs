use sqlx::Row;

use crate::{Result, Store, now_rfc3339};

/// Who wrote a stored message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MessageRole {
    System,
    User,
    Assistant,
    Tool,
    /// A timeline marker (an error, a cancellation) that is never sent to the model.
    Event,
}

impl MessageRole {
    pub fn as_str(self) -> &'static str {
        match self {
            MessageRole::System => "system",
            MessageRole::User => "user",
            MessageRole::Assistant => "assistant",
            MessageRole::Tool => "tool",
            MessageRole::Event => "event",
        }
    }

    pub fn parse(role: &str) -> Option<Self> {
        Some(match role {
            "system" => MessageRole::System,
            "user" => MessageRole::User,
            "assistant" => MessageRole::Assistant,
            "tool" => MessageRole::Tool,
            "event" => MessageRole::Event,
            _ => return None,
        })
    }
}

/// A message to append to a session.
#[derive(Debug, Clone, PartialEq)]
pub struct NewMessage {
    pub session_id: String,
    pub run_id: String,
    pub step: i32,
    pub agent_name: String,
    pub role: MessageRole,
    pub content: String,
    /// Assistant tool calls as a JSON array of `{id, name, arguments}`.
    pub tool_calls: Option<serde_json::Value>,
    pub tool_call_id: Option<String>,
    pub metadata: serde_json::Value,
    pub raw_json: Option<serde_json::Value>,
}

/// A message as stored, in session order.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredMessage {
    pub seq: i64,
    pub run_id: String,
    pub step: i32,
    pub agent_name: String,
    pub role: MessageRole,
    pub content: String,
    pub tool_calls: Option<serde_json::Value>,
    pub tool_call_id: Option<String>,
    pub metadata: serde_json::Value,
    pub raw_json: Option<serde_json::Value>,
    pub created_at: String,
}

impl Store {
    /// Appends messages to their sessions in one transaction, each taking the next `seq`.
    pub async fn append_messages(&self, messages: &[NewMessage]) -> Result<()> {
        self.append_batch(messages, &[], &[]).await
    }

    /// Every message of a session, in order.
    pub async fn messages(&self, session_id: &str) -> Result<Vec<StoredMessage>> {
        let rows = sqlx::query(
            "SELECT seq, run_id, step, agent_name, role, content, tool_calls, tool_call_id,
                    metadata, raw_json, created_at
             FROM agent_messages WHERE session_id = ? ORDER BY seq",
        )
        .bind(session_id)
        .fetch_all(&self.pool)
        .await?;
        to_messages(&rows)
    }
}

impl Store {
    /// How many messages a session has and its last `seq`: messages are only ever
    /// appended, so a timeline folded from them stays right while these are unchanged.
    pub async fn message_stamp(&self, session_id: &str) -> Result<(i64, i64)> {
        let stamp: (i64, i64) = sqlx::query_as(
            "SELECT COUNT(*), COALESCE(MAX(seq), 0) FROM agent_messages WHERE session_id = ?",
        )
        .bind(session_id)
        .fetch_one(&self.pool)
        .await?;
        Ok(stamp)
    }
}

/// One message as `messages_for_replay` reads it: a JSON array built by SQLite.
#[derive(serde::Deserialize)]
struct ReplayRow(
    i64,
    String,
    i32,
    String,
    String,
    String,
    Option<serde_json::Value>,
    Option<String>,
    serde_json::Value,
    String,
);

impl Store {
    /// The session's messages without `raw_json` (what replay needs: the raw model
    /// messages repeat the content and are the largest column to read and parse).
    ///
    /// SQLite builds the whole list as one JSON array: handing 10,000 rows over one by one
    /// from sqlx's worker thread took 85 ms, one string and one parse take a few.
    pub async fn messages_for_replay(&self, session_id: &str) -> Result<Vec<StoredMessage>> {
        let list: Option<String> = sqlx::query_scalar(
            "SELECT json_group_array(json_array(seq, run_id, step, agent_name, role, content,
                        json(tool_calls), tool_call_id, json(metadata), created_at) ORDER BY seq)
             FROM agent_messages WHERE session_id = ?",
        )
        .bind(session_id)
        .fetch_one(&self.pool)
        .await?;
        let rows: Vec<ReplayRow> = serde_json::from_str(list.as_deref().unwrap_or("[]"))?;
        Ok(rows
            .into_iter()
            .filter_map(|row| {
                // A role this version does not know is skipped, not fatal.
                let role = MessageRole::parse(&row.4)?;
                Some(StoredMessage {
                    seq: row.0,
                    run_id: row.1,
                    step: row.2,
                    agent_name: row.3,
                    role,
                    content: row.5,
                    tool_calls: row.6,
                    tool_call_id: row.7,
                    metadata: row.8,
                    raw_json: None,
                    created_at: row.9,
                })
            })
            .collect())
    }
}

/// Rows as messages; rows with a role this version does not know are skipped, not fatal.
fn to_messages(rows: &[sqlx::sqlite::SqliteRow]) -> Result<Vec<StoredMessage>> {
    rows.iter()
        .filter_map(|row| {
            let role: String = match row.try_get("role") {
                Ok(role) => role,
                Err(error) => return Some(Err(error.into())),
            };
            let role = MessageRole::parse(&role)?;
            Some(stored_message(row, role))
        })
        .collect()
}

fn parse_json(text: Option<String>) -> Result<Option<serde_json::Value>> {
    Ok(match text {
        Some(text) => Some(serde_json::from_str(&text)?),
        None => None,
    })
}

fn stored_message(row: &sqlx::sqlite::SqliteRow, role: MessageRole) -> Result<StoredMessage> {
    let metadata: String = row.try_get("metadata")?;
    Ok(StoredMessage {
        seq: row.try_get("seq")?,
        run_id: row.try_get("run_id")?,
        step: row.try_get("step")?,
        agent_name: row.try_get("agent_name")?,
        role,
        content: row.try_get("content")?,
        tool_calls: parse_json(row.try_get("tool_calls")?)?,
        tool_call_id: row.try_get("tool_call_id")?,
        metadata: serde_json::from_str(&metadata)?,
        raw_json: parse_json(row.try_get("raw_json")?)?,
        created_at: row.try_get("created_at")?,
    })
}

/// Inserts messages inside a transaction, each taking the next `seq` of its session.
pub(crate) async fn insert_messages(
    tx: &mut sqlx::SqliteConnection,
    messages: &[NewMessage],
) -> Result<()> {
    let now = now_rfc3339();
    for message in messages {
        sqlx::query(
            "INSERT INTO agent_messages
               (session_id, seq, run_id, step, agent_name, role, content, tool_calls,
                tool_call_id, metadata, raw_json, created_at)
             VALUES (?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM agent_messages WHERE session_id = ?),
                     ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        )
        .bind(&message.session_id)
        .bind(&message.session_id)
        .bind(&message.run_id)
        .bind(message.step)
        .bind(&message.agent_name)
        .bind(message.role.as_str())
        .bind(&message.content)
        .bind(
            message
                .tool_calls
                .as_ref()
                .map(serde_json::Value::to_string),
        )
        .bind(&message.tool_call_id)
        .bind(message.metadata.to_string())
        .bind(message.raw_json.as_ref().map(serde_json::Value::to_string))
        .bind(&now)
        .execute(&mut *tx)
        .await?;
    }
    Ok(())
}
