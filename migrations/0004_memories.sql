-- What the agent remembers across sessions (save_memory), shown in its system prompt.
CREATE TABLE memories (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    content     TEXT NOT NULL,
    kind        TEXT NOT NULL DEFAULT 'fact',   -- fact | preference | project
    session_id  TEXT,
    created_at  TEXT NOT NULL
);
