-- The per-company event log (SQLite dialect; the PostgreSQL migration of the same version has
-- the same tables and columns). Writers bump companies.event_seq in their own transaction and
-- insert their events with the numbers it hands out, so sequence numbers are gap-free per company
-- and in commit order. The server's dispatcher emits new rows to sockets; reconnecting clients
-- read what they missed. Old rows are pruned.

ALTER TABLE companies ADD COLUMN event_seq BIGINT NOT NULL DEFAULT 0;

CREATE TABLE events (
    company_id BIGINT NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
    seq        BIGINT NOT NULL,
    payload    TEXT   NOT NULL,
    created_at TIMESTAMP NOT NULL,
    PRIMARY KEY (company_id, seq)
);
CREATE INDEX events_created_idx ON events (created_at);
