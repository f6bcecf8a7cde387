-- PostgreSQL twin of ../0004_scoped_idempotency_custom_limits.sql: idempotency keys scoped to the
-- key's mode (live or sandbox), and a Custom workspace's own limits.

ALTER TABLE batch_idempotency ADD COLUMN test BOOLEAN;
UPDATE batch_idempotency i SET test = b.test FROM batches b WHERE b.id = i.batch_id;
ALTER TABLE batch_idempotency ALTER COLUMN test SET NOT NULL;
ALTER TABLE batch_idempotency DROP CONSTRAINT batch_idempotency_pkey;
ALTER TABLE batch_idempotency ADD PRIMARY KEY (workspace_id, test, key);

ALTER TABLE workspaces ADD COLUMN custom_concurrency BIGINT CHECK (custom_concurrency > 0);
ALTER TABLE workspaces ADD COLUMN custom_rps BIGINT CHECK (custom_rps > 0);
