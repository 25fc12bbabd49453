-- Password-reset codes (SQLite dialect; the PostgreSQL migration of the same version has the same
-- table, columns and index). Only the code's SHA-256 is stored. A user has at most one row: a new
-- code replaces the earlier one. used_at is set when the code is used or burnt by too many wrong
-- attempts.

CREATE TABLE password_resets (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    company_id BIGINT  NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
    user_id    BIGINT  NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    code_hash  TEXT    NOT NULL,
    expires_at TIMESTAMP NOT NULL,
    attempts   BIGINT  NOT NULL DEFAULT 0,
    used_at    TIMESTAMP,
    created_at TIMESTAMP NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now'))
);
CREATE INDEX password_resets_user_idx ON password_resets (company_id, user_id, id);
