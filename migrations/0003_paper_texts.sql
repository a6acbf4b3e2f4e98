-- The parsed text of a paper: Markdown with `<!-- page N -->` markers (PDF sources) and
-- `##` headings, and the list of its sections, so get_paper_content can return all of
-- it or a page or section range. One row per paper; parsing again replaces it.
CREATE TABLE paper_texts (
    paper_id   TEXT PRIMARY KEY REFERENCES papers(id) ON DELETE CASCADE,
    source     TEXT NOT NULL,      -- arxiv-html | pdf | html
    engine     TEXT NOT NULL,      -- latexml | pdfium | pdf-extract
    markdown   TEXT NOT NULL,
    pages      INTEGER,            -- none for sources without pages
    sections   TEXT NOT NULL DEFAULT '[]',  -- JSON [{level, number, title, page}]
    parsed_at  TEXT NOT NULL
);
-- Volume and page of the published version, for BibTeX made offline.
ALTER TABLE papers ADD COLUMN volume TEXT;
ALTER TABLE papers ADD COLUMN page TEXT;
