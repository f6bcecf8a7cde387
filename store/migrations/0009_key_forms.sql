-- The dashboard's "Generate new key" forms that created a key (docs/dashboard.md). Each form carries
-- a single-use id; its row is written in the transaction that creates the key, so the key exists
-- exactly when the form is spent, and a form sent again (a browser reload re-sends the POST) or twice
-- at once creates one key. form_hash is the hex SHA-256 of the id (the id is not stored);
-- short_prefix names the key the form created, for the notice a resent form gets. Rows are purged
-- after expires_at, by when the dashboard refuses the form as expired anyway.

CREATE TABLE key_forms (
    id           INTEGER PRIMARY KEY,
    form_hash    TEXT    NOT NULL UNIQUE,
    workspace_id INTEGER NOT NULL REFERENCES workspaces (id),
    short_prefix TEXT    NOT NULL,
    created_at   INTEGER NOT NULL,
    expires_at   INTEGER NOT NULL
);
CREATE INDEX key_forms_expires ON key_forms (expires_at);
