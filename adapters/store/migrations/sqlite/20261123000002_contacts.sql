-- Contact search (SQLite dialect; the PostgreSQL migration of the same version has the same
-- columns and an equivalent index).
--
-- `search_text` holds the normalised (lower-cased, accent-free) name, number and e-mail, written
-- by the store on every insert and update. `contacts_fts` is an external-content FTS5 table with
-- the trigram tokenizer over it, kept in step by triggers, so substring search never scans the
-- table. Rows that existed before get a lower-cased backfill (the store rewrites them with full
-- normalisation when they next change; ASCII data is already exact).

ALTER TABLE contacts ADD COLUMN search_text TEXT NOT NULL DEFAULT '';

UPDATE contacts SET search_text = lower(trim(name || ' ' || number || ' ' || email));

CREATE VIRTUAL TABLE contacts_fts USING fts5(
    search_text,
    content = 'contacts',
    content_rowid = 'id',
    tokenize = 'trigram'
);

INSERT INTO contacts_fts (rowid, search_text) SELECT id, search_text FROM contacts;

CREATE TRIGGER contacts_fts_insert AFTER INSERT ON contacts BEGIN
    INSERT INTO contacts_fts (rowid, search_text) VALUES (new.id, new.search_text);
END;

CREATE TRIGGER contacts_fts_delete AFTER DELETE ON contacts BEGIN
    INSERT INTO contacts_fts (contacts_fts, rowid, search_text)
        VALUES ('delete', old.id, old.search_text);
END;

CREATE TRIGGER contacts_fts_update AFTER UPDATE OF search_text ON contacts BEGIN
    INSERT INTO contacts_fts (contacts_fts, rowid, search_text)
        VALUES ('delete', old.id, old.search_text);
    INSERT INTO contacts_fts (rowid, search_text) VALUES (new.id, new.search_text);
END;

CREATE INDEX contacts_company_name_id_idx ON contacts (company_id, name, id);
