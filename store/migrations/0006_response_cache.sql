-- Successful responses kept for max_age (issue 19, item 2): per workspace, by a key the API
-- derives from the endpoint, its version, the key's mode (live or sandbox), the sandbox case and
-- the normalised parameters. Only the API writes it; rows are evicted oldest first when the total
-- size passes the configured cap, and dropped when older than the longest max_age.
CREATE TABLE response_cache (
    workspace_id INTEGER NOT NULL,
    cache_key    TEXT    NOT NULL,          -- hex SHA-256
    endpoint     TEXT    NOT NULL,
    fetched_at   INTEGER NOT NULL,          -- Unix ms, UTC
    size         INTEGER NOT NULL CHECK (size >= 0),
    meta         TEXT    NOT NULL,          -- JSON: the headers a hit repeats
    body         BLOB    NOT NULL,
    PRIMARY KEY (workspace_id, cache_key),
    FOREIGN KEY (workspace_id) REFERENCES workspaces (id)
);
-- Eviction walks it oldest first, and the total size is summed from it without reading bodies.
CREATE INDEX response_cache_age ON response_cache (fetched_at, size);
