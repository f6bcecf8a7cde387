-- Issue 11. An Idempotency-Key belongs to the workspace AND the mode of the key that used it: a
-- sandbox batch must never answer a live key's request (fixture data, no credits), nor the
-- reverse. The old rows take the mode of the batch they name.
CREATE TABLE batch_idempotency_scoped (
    workspace_id INTEGER NOT NULL REFERENCES workspaces (id),
    test         INTEGER NOT NULL CHECK (test IN (0, 1)),
    key          TEXT    NOT NULL,
    request_hash TEXT    NOT NULL,
    batch_id     TEXT    NOT NULL REFERENCES batches (id),
    created_at   INTEGER NOT NULL,
    PRIMARY KEY (workspace_id, test, key)
);
INSERT INTO batch_idempotency_scoped (workspace_id, test, key, request_hash, batch_id, created_at)
    SELECT i.workspace_id, b.test, i.key, i.request_hash, i.batch_id, i.created_at
    FROM batch_idempotency i JOIN batches b ON b.id = i.batch_id;
DROP TABLE batch_idempotency;
ALTER TABLE batch_idempotency_scoped RENAME TO batch_idempotency;

-- A Custom workspace's own per-key limits (spec 8.1: concurrency 100 to 500 and more, 50 to 500
-- requests per second, a burst of twice that for 3 s). NULL: the plan's defaults.
ALTER TABLE workspaces ADD COLUMN custom_concurrency INTEGER CHECK (custom_concurrency > 0);
ALTER TABLE workspaces ADD COLUMN custom_rps INTEGER CHECK (custom_rps > 0);
