-- Contact spreadsheets staged for import (SQLite dialect; the PostgreSQL migration of the same version
-- has the same table, columns and indexes). POST /contacts/upload stores the parsed sheet (the
-- core's compact Sheet as JSON) under a random token bound to the company; POST /contactsImport
-- takes it once. A company keeps at most a few (its oldest are dropped, never another company's);
-- times are Unix milliseconds so both engines compare them as numbers, and expired rows are pruned.

CREATE TABLE staged_uploads (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    company_id    BIGINT NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
    token         TEXT   NOT NULL,
    sheet         TEXT   NOT NULL,
    row_count     BIGINT NOT NULL,
    created_at_ms BIGINT NOT NULL,
    expires_at_ms BIGINT NOT NULL
);
CREATE UNIQUE INDEX staged_uploads_token_idx ON staged_uploads (company_id, token);
CREATE INDEX staged_uploads_company_idx ON staged_uploads (company_id, id);
CREATE INDEX staged_uploads_expiry_idx ON staged_uploads (expires_at_ms);
