-- PostgreSQL twin of ../0006_response_cache.sql: every integer is BIGINT (times are Unix
-- milliseconds, UTC), BLOB is BYTEA.

CREATE TABLE response_cache (
    workspace_id BIGINT NOT NULL,
    cache_key    TEXT   NOT NULL,
    endpoint     TEXT   NOT NULL,
    fetched_at   BIGINT NOT NULL,
    size         BIGINT NOT NULL CHECK (size >= 0),
    meta         TEXT   NOT NULL,
    body         BYTEA  NOT NULL,
    PRIMARY KEY (workspace_id, cache_key),
    FOREIGN KEY (workspace_id) REFERENCES workspaces (id)
);
CREATE INDEX response_cache_age ON response_cache (fetched_at, size);
