-- The paper library: collections and tags, searchable notes, and what the vector index
-- was built with.
CREATE TABLE collections (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    name        TEXT NOT NULL UNIQUE COLLATE NOCASE,
    created_at  TEXT NOT NULL
);
CREATE TABLE paper_collections (
    paper_id       TEXT NOT NULL REFERENCES papers(id) ON DELETE CASCADE,
    collection_id  INTEGER NOT NULL REFERENCES collections(id) ON DELETE CASCADE,
    PRIMARY KEY (paper_id, collection_id)
);
CREATE TABLE paper_tags (
    paper_id  TEXT NOT NULL REFERENCES papers(id) ON DELETE CASCADE,
    tag       TEXT NOT NULL COLLATE NOCASE,
    PRIMARY KEY (paper_id, tag)
);

-- A deleted chunk takes its vector with it (vec0 has no foreign keys).
CREATE TRIGGER chunks_vectors_ad AFTER DELETE ON chunks BEGIN
    DELETE FROM chunk_vectors WHERE rowid = old.id;
END;
CREATE INDEX chunks_paper ON chunks(paper_id);
-- BM25 with the section title at half the weight of the text, as FTS5's `rank`.
INSERT INTO chunks_fts(chunks_fts, rank) VALUES ('rank', 'bm25(1.0, 0.5)');

-- Notes outlive their paper unless asked: keep what it was.
ALTER TABLE notes ADD COLUMN paper_label TEXT;
CREATE VIRTUAL TABLE notes_fts USING fts5(
    quote, comment,
    content = 'notes', content_rowid = 'rowid',
    tokenize = 'porter unicode61 remove_diacritics 2'
);
CREATE TRIGGER notes_ai AFTER INSERT ON notes BEGIN
    INSERT INTO notes_fts(rowid, quote, comment) VALUES (new.rowid, new.quote, new.comment);
END;
CREATE TRIGGER notes_ad AFTER DELETE ON notes BEGIN
    INSERT INTO notes_fts(notes_fts, rowid, quote, comment) VALUES ('delete', old.rowid, old.quote, old.comment);
END;
CREATE TRIGGER notes_au AFTER UPDATE ON notes BEGIN
    INSERT INTO notes_fts(notes_fts, rowid, quote, comment) VALUES ('delete', old.rowid, old.quote, old.comment);
    INSERT INTO notes_fts(rowid, quote, comment) VALUES (new.rowid, new.quote, new.comment);
END;

-- key/value: embedding model and dimension the stored vectors were made with.
CREATE TABLE index_state (
    key    TEXT PRIMARY KEY,
    value  TEXT NOT NULL
);

-- Chunks still to embed (the indexer's queue; survives restarts).
ALTER TABLE chunks ADD COLUMN embedded INTEGER NOT NULL DEFAULT 0;
CREATE INDEX chunks_pending ON chunks(id) WHERE embedded = 0;
