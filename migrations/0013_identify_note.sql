-- Why a paper known only from its PDF is not identified ("offline (ADS and arXiv
-- unreachable)", "no arXiv id, DOI or title match", …), as the last attempt found;
-- NULL once it is identified or never tried.
ALTER TABLE papers ADD COLUMN identify_note TEXT;
