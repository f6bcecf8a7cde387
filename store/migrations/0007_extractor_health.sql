-- Extractor health (issue 19, item 3): per hour, endpoint, sitedef version and field, how many live
-- successful responses could show the field, over how many items (1 per response for a top-level
-- field, the list's items for "list[].field"), and how many had it filled; and per hour, endpoint
-- and version, how many runs ended with each error code ("" for a success). Each node adds its
-- counts to the hour's row (INSERT ... ON CONFLICT DO UPDATE SET n = n + excluded.n), so rows of
-- many nodes add up. Rows older than 30 days are deleted. Portable SQL: the same file runs on
-- PostgreSQL.
CREATE TABLE extractor_fill (
    hour      INTEGER NOT NULL,          -- Unix time / 3600, UTC
    endpoint  TEXT    NOT NULL,
    version   TEXT    NOT NULL,
    field     TEXT    NOT NULL,
    responses INTEGER NOT NULL,
    items     INTEGER NOT NULL,
    filled    INTEGER NOT NULL,
    PRIMARY KEY (hour, endpoint, version, field)
);

CREATE TABLE extractor_outcomes (
    hour     INTEGER NOT NULL,           -- Unix time / 3600, UTC
    endpoint TEXT    NOT NULL,
    version  TEXT    NOT NULL,
    code     TEXT    NOT NULL,           -- the error code, "" for a success
    count    INTEGER NOT NULL,
    PRIMARY KEY (hour, endpoint, version, code)
);
