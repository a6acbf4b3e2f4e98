-- ADS's answers for a paper's citations, references and similar papers, kept a day so
-- following the graph again (or `library missing` on the same collection) costs no
-- quota: the papers as JSON, how many ADS knows, and how many were asked for.
CREATE TABLE ads_link_cache (
    bibcode TEXT NOT NULL,
    link TEXT NOT NULL,
    asked INTEGER NOT NULL,
    num_found INTEGER NOT NULL,
    papers TEXT NOT NULL,
    fetched_at TEXT NOT NULL,
    PRIMARY KEY (bibcode, link)
);
