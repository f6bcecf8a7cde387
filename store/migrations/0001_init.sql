-- Portable SQL where it costs nothing: INTEGER PRIMARY KEY becomes a BIGINT identity in
-- PostgreSQL, 0/1 booleans become BOOLEAN; everything else (ON CONFLICT, RETURNING, partial
-- indexes, CHECK) reads the same in both. Times are Unix milliseconds, UTC.

CREATE TABLE workspaces (
    id              INTEGER PRIMARY KEY,
    name            TEXT    NOT NULL UNIQUE,
    plan            TEXT    NOT NULL CHECK (plan IN ('free', 'vibe', 'pro', 'custom')),
    monthly_credits INTEGER NOT NULL CHECK (monthly_credits >= 0),
    created_at      INTEGER NOT NULL
);

CREATE TABLE users (
    id            INTEGER PRIMARY KEY,
    workspace_id  INTEGER NOT NULL REFERENCES workspaces (id),
    email         TEXT    NOT NULL UNIQUE,
    password_hash TEXT    NOT NULL,
    created_at    INTEGER NOT NULL
);
CREATE INDEX users_workspace ON users (workspace_id);

CREATE TABLE api_keys (
    id           INTEGER PRIMARY KEY,
    workspace_id INTEGER NOT NULL REFERENCES workspaces (id),
    hash         TEXT    NOT NULL UNIQUE,   -- hex SHA-256 of the full key; the key itself is never stored
    short_prefix TEXT    NOT NULL,
    test         INTEGER NOT NULL CHECK (test IN (0, 1)),
    state        TEXT    NOT NULL CHECK (state IN ('active', 'revoked')),
    created_at   INTEGER NOT NULL,
    last_used_at INTEGER,
    revoked_at   INTEGER,
    CHECK ((state = 'revoked') = (revoked_at IS NOT NULL)),
    -- Target of the composite foreign keys below, so a ledger row can never pair one workspace with
    -- another workspace's key.
    UNIQUE (id, workspace_id),
    -- Revocation, `asa usage --key` and the dashboard address a key by its short prefix.
    UNIQUE (workspace_id, short_prefix)
);
CREATE INDEX api_keys_active ON api_keys (workspace_id) WHERE state = 'active';
CREATE INDEX api_keys_revoked ON api_keys (revoked_at) WHERE state = 'revoked';

-- The ledger: one row per billed request or batch item. The unique charge_id is what makes a
-- retried or replayed charge a no-op.
CREATE TABLE usage (
    id           INTEGER PRIMARY KEY,
    charge_id    TEXT    NOT NULL UNIQUE,
    workspace_id INTEGER NOT NULL,
    key_id       INTEGER NOT NULL,
    endpoint     TEXT    NOT NULL,
    credits      INTEGER NOT NULL CHECK (credits >= 0),
    created_at   INTEGER NOT NULL,
    FOREIGN KEY (key_id, workspace_id) REFERENCES api_keys (id, workspace_id)
);
CREATE INDEX usage_workspace_time ON usage (workspace_id, created_at);
CREATE INDEX usage_key_time ON usage (key_id, created_at);

-- Credits used per workspace and calendar month (yyyymm, UTC), kept in the same transaction as the
-- ledger so the allowance check is one row read instead of a scan of the month's ledger. It is a
-- billing total: purging a revoked key's history does not reduce it.
CREATE TABLE credit_months (
    workspace_id INTEGER NOT NULL REFERENCES workspaces (id),
    month        INTEGER NOT NULL,
    credits      INTEGER NOT NULL CHECK (credits >= 0),
    PRIMARY KEY (workspace_id, month)
);

CREATE TABLE request_log (
    id           INTEGER PRIMARY KEY,
    request_id   TEXT    NOT NULL UNIQUE,
    workspace_id INTEGER NOT NULL,
    key_id       INTEGER NOT NULL,
    endpoint     TEXT    NOT NULL,
    status       INTEGER NOT NULL,
    error_code   TEXT    NOT NULL DEFAULT '',
    cost         INTEGER NOT NULL DEFAULT 0,
    duration_ms  INTEGER NOT NULL DEFAULT 0,
    created_at   INTEGER NOT NULL,
    FOREIGN KEY (key_id, workspace_id) REFERENCES api_keys (id, workspace_id)
);
CREATE INDEX request_log_workspace_time ON request_log (workspace_id, created_at);
CREATE INDEX request_log_key_time ON request_log (key_id, created_at);
