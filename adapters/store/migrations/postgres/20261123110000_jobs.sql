-- Durable jobs (PostgreSQL dialect; see the SQLite migration of the same version). Workers on
-- several servers claim with FOR UPDATE SKIP LOCKED, so a job is held by one worker at a time.
CREATE TABLE jobs (
    id           BIGSERIAL PRIMARY KEY,
    company_id   BIGINT  NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
    kind         TEXT    NOT NULL,
    payload      TEXT    NOT NULL,
    run_at       TIMESTAMPTZ NOT NULL,
    locked_until TIMESTAMPTZ,
    attempts     INTEGER NOT NULL DEFAULT 0,
    last_error   TEXT,
    failed_at    TIMESTAMPTZ,
    created_at   TIMESTAMPTZ NOT NULL
);
CREATE INDEX jobs_due_idx ON jobs (run_at, id) WHERE failed_at IS NULL;
CREATE INDEX jobs_company_idx ON jobs (company_id);
