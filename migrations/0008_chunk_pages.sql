-- Page-true passages: the last page a passage reaches and where in its text each later
-- page starts (JSON [[byte offset, page], …]; NULL when it stays on one page). Passages
-- stored before this keep NULL and are read as lying on their first page until the
-- paper is parsed again.
ALTER TABLE chunks ADD COLUMN page_end INTEGER;
ALTER TABLE chunks ADD COLUMN page_breaks TEXT;
