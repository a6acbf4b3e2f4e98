-- A fingerprint of a paper's text (64-bit SimHash of its word 4-grams): a re-saved copy
-- of a PDF (same text, other bytes) is found as the same paper offline.
ALTER TABLE papers ADD COLUMN text_fingerprint INTEGER;
