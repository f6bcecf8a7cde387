-- Asynchronous batches (spec 2.6, 3.1, 4.6, 4.7; design decisions 9 and 10): the batch, its items
-- as a durable queue with leases, idempotency keys, and the webhook outbox with its delivery log.
-- Times are Unix milliseconds, UTC.

CREATE TABLE batches (
    id                      TEXT    PRIMARY KEY,   -- UUID
    workspace_id            INTEGER NOT NULL REFERENCES workspaces (id),
    -- The key that created the batch; its items are billed to it. No foreign key: purging a key
    -- revoked 90 days ago must not be blocked by its old batches.
    key_id                  INTEGER NOT NULL,
    test                    INTEGER NOT NULL CHECK (test IN (0, 1)),
    endpoint                TEXT    NOT NULL,      -- site.resource
    status                  TEXT    NOT NULL CHECK (status IN ('pending', 'running', 'complete', 'failed')),
    total_count             INTEGER NOT NULL CHECK (total_count >= 1),
    processed_count         INTEGER NOT NULL DEFAULT 0,
    success_count           INTEGER NOT NULL DEFAULT 0,
    failure_count           INTEGER NOT NULL DEFAULT 0,
    credits_charged         INTEGER NOT NULL DEFAULT 0 CHECK (credits_charged >= 0),
    -- Items waiting to be claimed, kept with every claim and requeue so the claim query finds the
    -- batches with work through a partial index instead of scanning items.
    queued_count            INTEGER NOT NULL CHECK (queued_count >= 0),
    -- Fairness: the number of the last claim that served this batch (0: never served); claims go
    -- to the batch served longest ago first.
    claim_seq               INTEGER NOT NULL DEFAULT 0,
    created_at              INTEGER NOT NULL,
    started_at              INTEGER,
    completed_at            INTEGER,
    webhook_url             TEXT,
    -- The signing secret must be recoverable to sign, so it is stored as issued.
    webhook_secret          TEXT,
    webhook_delivery_status TEXT CHECK (webhook_delivery_status IN ('pending', 'delivered', 'retrying', 'failed')),
    webhook_last_error      TEXT,
    webhook_delivered_at    INTEGER,
    CHECK (processed_count = success_count + failure_count AND processed_count <= total_count),
    CHECK ((status IN ('complete', 'failed')) = (completed_at IS NOT NULL)),
    CHECK ((webhook_url IS NULL) = (webhook_secret IS NULL))
);
CREATE INDEX batches_claimable ON batches (claim_seq, created_at) WHERE queued_count > 0;
CREATE INDEX batches_claim_seq ON batches (claim_seq);
CREATE INDEX batches_workspace ON batches (workspace_id, created_at);

CREATE TABLE batch_items (
    id               INTEGER PRIMARY KEY,
    batch_id         TEXT    NOT NULL REFERENCES batches (id),
    idx              INTEGER NOT NULL CHECK (idx >= 0),
    input            TEXT    NOT NULL,             -- the submitted item (JSON object), api_key removed
    state            TEXT    NOT NULL CHECK (state IN ('queued', 'running', 'ok', 'failed')),
    attempts         INTEGER NOT NULL DEFAULT 0,   -- claims so far; the fencing token of a completion
    lease_owner      TEXT,
    lease_expires_at INTEGER,
    http_status      INTEGER,
    error_code       TEXT,
    data             BLOB,                         -- the sync endpoint's JSON answer (data or error body)
    duration_ms      INTEGER,
    credits_charged  INTEGER NOT NULL DEFAULT 0 CHECK (credits_charged >= 0),
    finished_at      INTEGER,
    UNIQUE (batch_id, idx),
    CHECK ((state = 'running') = (lease_owner IS NOT NULL)),
    CHECK ((state IN ('ok', 'failed')) = (finished_at IS NOT NULL))
);
CREATE INDEX batch_items_queued ON batch_items (batch_id, idx) WHERE state = 'queued';
CREATE INDEX batch_items_running ON batch_items (lease_expires_at) WHERE state = 'running';

-- Idempotency-Key of POST .../batch: the same key within the window returns the same batch.
CREATE TABLE batch_idempotency (
    workspace_id INTEGER NOT NULL REFERENCES workspaces (id),
    key          TEXT    NOT NULL,
    request_hash TEXT    NOT NULL,
    batch_id     TEXT    NOT NULL REFERENCES batches (id),
    created_at   INTEGER NOT NULL,
    PRIMARY KEY (workspace_id, key)
);

-- The webhook outbox: a row is inserted in the transaction that ends its batch, so a crash can delay
-- a webhook but never lose it.
CREATE TABLE webhook_deliveries (
    id               TEXT    PRIMARY KEY,          -- event id (webhook-id), the same on every attempt
    batch_id         TEXT    NOT NULL UNIQUE REFERENCES batches (id),
    url              TEXT    NOT NULL,
    body             BLOB,                         -- the exact bytes signed, frozen at the first attempt
    state            TEXT    NOT NULL CHECK (state IN ('pending', 'retrying', 'delivered', 'failed')),
    attempts         INTEGER NOT NULL DEFAULT 0,
    next_attempt_at  INTEGER,                      -- null once delivered or failed
    lease_owner      TEXT,
    lease_expires_at INTEGER,
    last_status      INTEGER,
    last_error       TEXT,
    created_at       INTEGER NOT NULL,
    delivered_at     INTEGER,
    CHECK ((state IN ('pending', 'retrying')) = (next_attempt_at IS NOT NULL))
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE state IN ('pending', 'retrying');

-- One row per delivery attempt: when, what came back, how long it took.
CREATE TABLE webhook_attempts (
    delivery_id TEXT    NOT NULL REFERENCES webhook_deliveries (id),
    attempt     INTEGER NOT NULL,
    at          INTEGER NOT NULL,
    status      INTEGER NOT NULL DEFAULT 0,        -- the receiver's HTTP status; 0 when none came back
    error       TEXT    NOT NULL DEFAULT '',
    duration_ms INTEGER NOT NULL DEFAULT 0,
    response    TEXT    NOT NULL DEFAULT '',       -- the first 1 KiB of the receiver's answer
    PRIMARY KEY (delivery_id, attempt)
);
