-- Where a paper's metadata came from: 'local' (read from its own PDF: page 1, the
-- information dictionary, XMP) or the service that identified it ('ads', 'arxiv',
-- 'crossref'). NULL for papers stored before this that a service described.
ALTER TABLE papers ADD COLUMN metadata_source TEXT;
-- Affiliations per author (JSON array, in author order), when known.
ALTER TABLE papers ADD COLUMN affiliations TEXT NOT NULL DEFAULT '[]';
-- Imports no service identified held only what the file told: they are local-only.
UPDATE papers SET metadata_source = 'local' WHERE status = 'unidentified';
CREATE INDEX papers_local_only ON papers(id) WHERE metadata_source = 'local';
