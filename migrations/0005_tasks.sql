-- The agent's plan (todo_write): one list per session and agent, replaced as a whole.
CREATE TABLE agent_tasks (
    session_id  TEXT NOT NULL REFERENCES agent_sessions(id) ON DELETE CASCADE,
    agent_name  TEXT NOT NULL DEFAULT 'main',
    task_id     TEXT NOT NULL,
    position    INTEGER NOT NULL,
    content     TEXT NOT NULL,
    status      TEXT NOT NULL,                -- pending | in_progress | completed
    blocked_by  TEXT NOT NULL DEFAULT '[]',   -- JSON array of task ids
    updated_at  TEXT NOT NULL,
    PRIMARY KEY (session_id, agent_name, task_id)
);

-- Slow tool calls run in the background (bg_task_run): download_paper, parse_paper.
CREATE TABLE background_tasks (
    id           TEXT PRIMARY KEY,
    session_id   TEXT NOT NULL,
    tool         TEXT NOT NULL,
    arguments    TEXT NOT NULL,
    status       TEXT NOT NULL,               -- running | completed | failed | interrupted
    output       TEXT,
    is_error     INTEGER NOT NULL DEFAULT 0,
    notified     INTEGER NOT NULL DEFAULT 0,  -- result handed to the agent
    created_at   TEXT NOT NULL,
    finished_at  TEXT
);
CREATE INDEX background_tasks_session ON background_tasks(session_id, created_at);
