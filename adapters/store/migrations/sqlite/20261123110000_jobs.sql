-- Durable jobs (SQLite dialect; the PostgreSQL migration of the same version has the same
-- columns). A worker claims due jobs by setting locked_until (its lease); a job whose lease ran
-- out is claimed again, so a crashed worker loses nothing. Finished jobs are deleted; failed ones
-- stay with failed_at and their last error.
CREATE TABLE jobs (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    company_id   BIGINT  NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
    kind         TEXT    NOT NULL,
    payload      TEXT    NOT NULL,
    run_at       TIMESTAMP NOT NULL,
    locked_until TIMESTAMP,
    attempts     INTEGER NOT NULL DEFAULT 0,
    last_error   TEXT,
    failed_at    TIMESTAMP,
    created_at   TIMESTAMP NOT NULL
);
CREATE INDEX jobs_due_idx ON jobs (run_at, id) WHERE failed_at IS NULL;
CREATE INDEX jobs_company_idx ON jobs (company_id);
