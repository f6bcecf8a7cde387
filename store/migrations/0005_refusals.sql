-- Unbilled answers that are not successes (429, 400, 402, 404, 501, 502 ...) are counted per key,
-- endpoint, minute, status and error code instead of one request_log row each: a key flooding
-- refusals writes one row a minute, not thousands a second (issue 11, item 3). The first request
-- id of each count is kept, so a support request can still be matched to a real request.
CREATE TABLE refusals (
    workspace_id     INTEGER NOT NULL,
    key_id           INTEGER NOT NULL,
    endpoint         TEXT    NOT NULL,
    minute           INTEGER NOT NULL,          -- Unix time / 60, UTC
    status           INTEGER NOT NULL,
    error_code       TEXT    NOT NULL,
    count            INTEGER NOT NULL CHECK (count > 0),
    first_request_id TEXT    NOT NULL,
    PRIMARY KEY (key_id, minute, endpoint, status, error_code),
    FOREIGN KEY (key_id, workspace_id) REFERENCES api_keys (id, workspace_id)
);
CREATE INDEX refusals_workspace_minute ON refusals (workspace_id, minute);

-- Ping's write probe (store/health.go): a row is inserted and deleted in one transaction, so the
-- table is always empty.
CREATE TABLE store_probe (
    pad BLOB NOT NULL
);
