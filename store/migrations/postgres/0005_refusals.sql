-- PostgreSQL twin of ../0005_refusals.sql. Nodes add to the same row of a minute with
-- ON CONFLICT ... DO UPDATE, which PostgreSQL makes atomic.

CREATE TABLE refusals (
    workspace_id     BIGINT NOT NULL,
    key_id           BIGINT NOT NULL,
    endpoint         TEXT   NOT NULL,
    minute           BIGINT NOT NULL,
    status           BIGINT NOT NULL,
    error_code       TEXT   NOT NULL,
    count            BIGINT NOT NULL CHECK (count > 0),
    first_request_id TEXT   NOT NULL,
    PRIMARY KEY (key_id, minute, endpoint, status, error_code),
    FOREIGN KEY (key_id, workspace_id) REFERENCES api_keys (id, workspace_id)
);
CREATE INDEX refusals_workspace_minute ON refusals (workspace_id, minute);

CREATE TABLE store_probe (
    pad BYTEA NOT NULL
);
