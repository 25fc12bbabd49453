-- The per-company event log (PostgreSQL dialect; see the SQLite migration of the same version).

ALTER TABLE companies ADD COLUMN event_seq BIGINT NOT NULL DEFAULT 0;

CREATE TABLE events (
    company_id BIGINT NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
    seq        BIGINT NOT NULL,
    payload    TEXT   NOT NULL,
    created_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (company_id, seq)
);
CREATE INDEX events_created_idx ON events (created_at);
