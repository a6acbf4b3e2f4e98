-- What the model said of a passage for a question (PaperQA2's relevance score, 0-10, and
-- a short summary of what the passage says about the question), per model: asking the
-- same question again costs no tokens. A passage that is re-chunked takes its verdicts
-- with it.
CREATE TABLE rerank_cache (
    question TEXT NOT NULL,
    chunk_id INTEGER NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
    model TEXT NOT NULL,
    score INTEGER NOT NULL,
    summary TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (question, model, chunk_id)
);
