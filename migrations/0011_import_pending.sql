-- An import in flight: the file of a paper whose passages are not committed yet. The
-- paper and its file row are written together, marked pending (the paper `incomplete`),
-- and the text, the passages and the end of the mark are committed in one transaction,
-- so an interrupted import leaves a paper the next import, `library index` or app start
-- finishes, never one that is silently unsearchable.
ALTER TABLE paper_files ADD COLUMN pending INTEGER NOT NULL DEFAULT 0;
CREATE INDEX paper_files_pending ON paper_files(paper_id) WHERE pending = 1;

-- Papers earlier versions left broken (their import interrupted between the text and
-- the passages, or before the text): an imported PDF and not one passage. They are
-- finished like any interrupted import (a scanned or encrypted one is tried once more).
UPDATE paper_files SET pending = 1
 WHERE kind = 'pdf' AND source = 'import'
   AND NOT EXISTS (SELECT 1 FROM chunks c WHERE c.paper_id = paper_files.paper_id)
   AND id = (SELECT MIN(f.id) FROM paper_files f WHERE f.paper_id = paper_files.paper_id);
UPDATE papers SET status = 'incomplete'
 WHERE id IN (SELECT paper_id FROM paper_files WHERE pending = 1);
