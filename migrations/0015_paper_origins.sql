-- Where a paper came from in another library that has no citation keys (a Zotero item:
-- `zotero:<library id>/<item key>`), so importing that library again finds the same
-- paper (and its notes, by their own origin) instead of making another.
CREATE TABLE paper_origins (
    origin TEXT PRIMARY KEY,
    paper_id TEXT NOT NULL REFERENCES papers(id) ON DELETE CASCADE
);
CREATE INDEX paper_origins_paper ON paper_origins(paper_id);
