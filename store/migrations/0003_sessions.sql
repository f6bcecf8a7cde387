-- Dashboard sign-in (docs/dashboard.md): server-side sessions. The cookie carries a random token;
-- only its SHA-256 is stored, so a copy of the database signs no one in. users (0001) holds the
-- accounts: email (stored lower-cased, unique) and an argon2id hash in PHC form.

CREATE TABLE sessions (
    id           INTEGER PRIMARY KEY,
    token_hash   TEXT    NOT NULL UNIQUE,          -- hex SHA-256 of the cookie's token
    user_id      INTEGER NOT NULL REFERENCES users (id),
    created_at   INTEGER NOT NULL,
    expires_at   INTEGER NOT NULL,
    CHECK (expires_at > created_at)
);
CREATE INDEX sessions_user ON sessions (user_id);
CREATE INDEX sessions_expires ON sessions (expires_at);
