-- The astronomical objects a paper is about: names found in its keywords ("galaxies:
-- individual: NGC 4258"), title and abstract, keyed as the Sesame cache keys them
-- (targets.query_key), so an object's coordinates are the cached Sesame answer.
CREATE TABLE paper_objects (
    paper_id  TEXT NOT NULL REFERENCES papers(id) ON DELETE CASCADE,
    query_key TEXT NOT NULL,
    name      TEXT NOT NULL,   -- as written in the paper, e.g. "Kepler-1627"
    source    TEXT NOT NULL,   -- 'keyword', 'title' or 'abstract'
    PRIMARY KEY (paper_id, query_key)
);
CREATE INDEX paper_objects_key ON paper_objects(query_key);
