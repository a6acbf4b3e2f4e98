-- Permission rules the user granted "always" (Allow), or wrote (Ask, Deny).

CREATE TABLE permission_rules (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    rule        TEXT NOT NULL,     -- e.g. run_bash(git status*)
    decision    TEXT NOT NULL,     -- allow | ask | deny
    created_at  TEXT NOT NULL,
    UNIQUE (rule, decision)
);

