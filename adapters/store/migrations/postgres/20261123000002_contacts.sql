-- Contact search (PostgreSQL dialect; the SQLite migration of the same version has the same
-- columns and an equivalent index).
--
-- `search_text` holds the normalised (lower-cased, accent-free) name, number and e-mail, written
-- by the store on every insert and update, indexed with a pg_trgm GIN index so substring search
-- (`LIKE '%term%'`) never scans the table. Rows that existed before get a lower-cased backfill
-- (the store rewrites them with full normalisation when they next change).

CREATE EXTENSION IF NOT EXISTS pg_trgm;

ALTER TABLE contacts ADD COLUMN search_text TEXT NOT NULL DEFAULT '';

UPDATE contacts SET search_text = lower(trim(name || ' ' || number || ' ' || email));

CREATE INDEX contacts_search_trgm_idx ON contacts USING gin (search_text gin_trgm_ops);

CREATE INDEX contacts_company_name_id_idx ON contacts (company_id, name, id);
