-- One run per session across processes: the run holding a session's lease, the process
-- it runs in, and when it last said it is alive. A lease whose process is gone (same
-- host) or whose heartbeat is stale is taken over by the next run.
CREATE TABLE session_leases (
    session_id   TEXT PRIMARY KEY,
    run_id       TEXT NOT NULL,
    pid          INTEGER NOT NULL,
    host         TEXT NOT NULL,
    heartbeat_at REAL NOT NULL
);
