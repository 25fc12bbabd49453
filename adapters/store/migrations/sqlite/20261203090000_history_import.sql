-- The import of old messages (spec 2): the phone's history, queued as it arrives and written as
-- messages by a job.
--
-- history_imports: one row per queued message of a connection's import (the core's
-- InboundMessage as JSON, an attachment's locator sealed with the server's key), unique per
-- (connection, external id) so a part sent twice is queued once; written once the job stored
-- it. history_import_runs: one row per connection with an import under way (when the last part
-- arrived, the phone's progress). Both go when the import finishes or the connection is deleted.
CREATE TABLE history_imports (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    company_id  BIGINT  NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
    whatsapp_id BIGINT  NOT NULL REFERENCES whatsapps (id) ON DELETE CASCADE,
    external_id TEXT    NOT NULL,
    sent_at     TIMESTAMP NOT NULL,
    payload     TEXT    NOT NULL,
    written     BOOLEAN NOT NULL DEFAULT FALSE
);
CREATE UNIQUE INDEX history_imports_key ON history_imports (whatsapp_id, external_id);
CREATE INDEX history_imports_unwritten_idx ON history_imports (whatsapp_id, written, sent_at, id);

CREATE TABLE history_import_runs (
    whatsapp_id  BIGINT PRIMARY KEY REFERENCES whatsapps (id) ON DELETE CASCADE,
    company_id   BIGINT NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
    last_part_at TIMESTAMP NOT NULL,
    progress     BIGINT NOT NULL DEFAULT 0,
    started_at   TIMESTAMP NOT NULL
);

-- Tickets the import opened (closed by the close-imported button or at the end of the import);
-- a live message unmarks the ticket it joins.
ALTER TABLE tickets ADD COLUMN imported BOOLEAN NOT NULL DEFAULT FALSE;

-- A conversation lists its messages by their time: history written after a live message still
-- shows before it.
CREATE INDEX messages_ticket_time_idx ON messages (ticket_id, created_at, id);
