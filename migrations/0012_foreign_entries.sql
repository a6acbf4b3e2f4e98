-- Papers that came from another library (a .bib or CSL-JSON file): the citation key
-- they had there, kept for BibTeX export, and the BibTeX entry as it was read, so an
-- export gives back every field.
ALTER TABLE papers ADD COLUMN citekey TEXT;
ALTER TABLE papers ADD COLUMN source_entry TEXT;
CREATE INDEX papers_citekey ON papers(citekey) WHERE citekey IS NOT NULL;
