-- Each company's event head (the last sequence number handed out) moves from
-- `companies.event_seq` to a table of its own, as on PostgreSQL (see its migration of the same
-- name, which also numbers events at commit; SQLite has one writer at a time, so its writers
-- number them as they append).
CREATE TABLE event_heads (
    company_id BIGINT PRIMARY KEY REFERENCES companies (id) ON DELETE CASCADE,
    seq        BIGINT NOT NULL
);
INSERT INTO event_heads (company_id, seq) SELECT id, event_seq FROM companies;
ALTER TABLE companies DROP COLUMN event_seq;
