-- Which ADS library a collection was pulled from, as it was then: its name (the
-- collection's), when ADS last changed it and the bibcodes it held. A second pull asks
-- for nothing when ADS's date is unchanged, and removes from the collection only what
-- left the ADS library since (never a paper from the library, never a note).
CREATE TABLE ads_pulls (
    library_id TEXT PRIMARY KEY,
    collection TEXT NOT NULL,
    date_last_modified TEXT NOT NULL,
    bibcodes TEXT NOT NULL DEFAULT '[]',
    pulled_at TEXT NOT NULL
);
