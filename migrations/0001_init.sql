-- Asterism schema, version 1: sessions and their history, audit and metrics, the Sesame
-- cache, and the paper library (papers, files, chunks with FTS5 and vectors, notes).

CREATE TABLE agent_sessions (
    id          TEXT PRIMARY KEY,
    title       TEXT NOT NULL,
    model       TEXT NOT NULL DEFAULT '',
    summary     TEXT,
    created_at  TEXT NOT NULL,
    updated_at  TEXT NOT NULL
);
CREATE INDEX agent_sessions_updated ON agent_sessions(updated_at DESC);

-- Every message of a session in order (seq), subagents included (agent_name).
-- role: system | user | assistant | tool | event (an error or marker shown in the
-- timeline but never sent to the model).
CREATE TABLE agent_messages (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id   TEXT NOT NULL REFERENCES agent_sessions(id) ON DELETE CASCADE,
    seq          INTEGER NOT NULL,
    run_id       TEXT NOT NULL,
    step         INTEGER NOT NULL DEFAULT 0,
    agent_name   TEXT NOT NULL DEFAULT 'main',
    role         TEXT NOT NULL,
    content      TEXT NOT NULL DEFAULT '',
    tool_calls   TEXT,          -- JSON array of {id, name, arguments} (assistant)
    tool_call_id TEXT,          -- tool results
    metadata     TEXT NOT NULL DEFAULT '{}',
    raw_json     TEXT,          -- the message exactly as sent to / received from the model
    created_at   TEXT NOT NULL,
    UNIQUE (session_id, seq)
);
CREATE INDEX agent_messages_session ON agent_messages(session_id, seq);

CREATE TABLE agent_audit_log (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id   TEXT NOT NULL,
    agent_name   TEXT NOT NULL,
    tool_call_id TEXT NOT NULL,
    tool         TEXT NOT NULL,
    arguments    TEXT NOT NULL,  -- secrets redacted
    decision     TEXT NOT NULL,  -- allow | rejected (invalid call) | later: ask-allowed | deny | hook-blocked
    outcome      TEXT NOT NULL,  -- ok | error | cancelled | timeout | rejected
    duration_ms  REAL NOT NULL,
    error        TEXT,
    created_at   TEXT NOT NULL
);
CREATE INDEX agent_audit_session ON agent_audit_log(session_id, id);

CREATE TABLE agent_metrics (
    id                INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id        TEXT NOT NULL,
    run_id            TEXT NOT NULL,
    step              INTEGER NOT NULL,
    agent_name        TEXT NOT NULL,
    kind              TEXT NOT NULL,  -- model | tool
    name              TEXT NOT NULL,  -- model name or tool name
    prompt_tokens     INTEGER NOT NULL DEFAULT 0,
    completion_tokens INTEGER NOT NULL DEFAULT 0,
    duration_ms       REAL NOT NULL,
    created_at        TEXT NOT NULL
);
CREATE INDEX agent_metrics_session ON agent_metrics(session_id, id);

-- CDS Sesame answers, keyed by the normalised query name.
CREATE TABLE targets (
    query_key   TEXT PRIMARY KEY,
    query       TEXT NOT NULL,
    resolved    TEXT NOT NULL,   -- ResolvedTarget JSON
    fetched_at  TEXT NOT NULL
);

CREATE TABLE papers (
    id             TEXT PRIMARY KEY,
    bibcode        TEXT UNIQUE,
    arxiv_id       TEXT UNIQUE,   -- without version
    doi            TEXT UNIQUE,
    title          TEXT NOT NULL DEFAULT '',
    authors        TEXT NOT NULL DEFAULT '[]',  -- JSON array
    year           INTEGER,
    journal        TEXT,
    abstract       TEXT,
    keywords       TEXT NOT NULL DEFAULT '[]',
    citation_count INTEGER,
    status         TEXT NOT NULL DEFAULT 'metadata',  -- metadata | downloaded | parsed | unidentified
    added_at       TEXT NOT NULL,
    updated_at     TEXT NOT NULL
);

CREATE TABLE paper_files (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    paper_id      TEXT NOT NULL REFERENCES papers(id) ON DELETE CASCADE,
    kind          TEXT NOT NULL,   -- pdf | html | markdown
    path          TEXT NOT NULL,
    original_name TEXT,
    sha256        TEXT NOT NULL,
    size_bytes    INTEGER NOT NULL,
    source        TEXT NOT NULL,   -- arxiv | ads | publisher | import
    added_at      TEXT NOT NULL,
    UNIQUE (sha256)
);

CREATE TABLE chunks (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    paper_id    TEXT NOT NULL REFERENCES papers(id) ON DELETE CASCADE,
    ordinal     INTEGER NOT NULL,
    page        INTEGER,
    section     TEXT,
    text        TEXT NOT NULL,
    UNIQUE (paper_id, ordinal)
);

CREATE VIRTUAL TABLE chunks_fts USING fts5(
    text, section,
    content = 'chunks', content_rowid = 'id',
    tokenize = 'porter unicode61 remove_diacritics 2'
);
CREATE TRIGGER chunks_ai AFTER INSERT ON chunks BEGIN
    INSERT INTO chunks_fts(rowid, text, section) VALUES (new.id, new.text, new.section);
END;
CREATE TRIGGER chunks_ad AFTER DELETE ON chunks BEGIN
    INSERT INTO chunks_fts(chunks_fts, rowid, text, section) VALUES ('delete', old.id, old.text, old.section);
END;
CREATE TRIGGER chunks_au AFTER UPDATE ON chunks BEGIN
    INSERT INTO chunks_fts(chunks_fts, rowid, text, section) VALUES ('delete', old.id, old.text, old.section);
    INSERT INTO chunks_fts(rowid, text, section) VALUES (new.id, new.text, new.section);
END;

-- One 384-dimensional embedding per chunk (rowid = chunks.id), cosine distance.
CREATE VIRTUAL TABLE chunk_vectors USING vec0(
    embedding float[384] distance_metric=cosine
);

CREATE TABLE notes (
    id          TEXT PRIMARY KEY,
    paper_id    TEXT REFERENCES papers(id) ON DELETE SET NULL,
    page        INTEGER,
    quote       TEXT,
    comment     TEXT NOT NULL DEFAULT '',
    color       TEXT,
    rects       TEXT NOT NULL DEFAULT '[]',  -- highlight rectangles, JSON
    created_at  TEXT NOT NULL,
    updated_at  TEXT NOT NULL
);
CREATE INDEX notes_paper ON notes(paper_id);
