-- The passages kept for keyword search only (reference lists, author lists, page
-- furniture: `embedded = 2`), so that counting what is embedded reads two partial
-- indexes and not every passage's row (a library of 1,000 papers: 60 ms → under 5).
CREATE INDEX chunks_keywords_only ON chunks(id) WHERE embedded = 2;
