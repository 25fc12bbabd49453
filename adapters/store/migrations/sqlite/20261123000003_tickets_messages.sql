-- Tickets and messages of the inbox (issue 3).
--
-- The foundation's `messages` kept the channel's id as its primary key. Messages now get an
-- integer id; the channel's id is `external_id`, unique per connection, which makes inbound
-- ingestion idempotent. No deployment holds messages yet, so the table is recreated.

DROP TABLE messages;

CREATE TABLE messages (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    company_id    BIGINT  NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
    ticket_id     BIGINT  NOT NULL REFERENCES tickets (id) ON DELETE CASCADE,
    contact_id    BIGINT  REFERENCES contacts (id) ON DELETE CASCADE,
    whatsapp_id   BIGINT  REFERENCES whatsapps (id) ON DELETE SET NULL,
    external_id   TEXT,
    user_id       BIGINT  REFERENCES users (id) ON DELETE SET NULL,
    queue_id      BIGINT  REFERENCES queues (id) ON DELETE SET NULL,
    body          TEXT    NOT NULL DEFAULT '',
    search_text   TEXT    NOT NULL DEFAULT '',
    from_me       BOOLEAN NOT NULL DEFAULT FALSE,
    read          BOOLEAN NOT NULL DEFAULT FALSE,
    is_private    BOOLEAN NOT NULL DEFAULT FALSE,
    is_deleted    BOOLEAN NOT NULL DEFAULT FALSE,
    is_edited     BOOLEAN NOT NULL DEFAULT FALSE,
    is_forwarded  BOOLEAN NOT NULL DEFAULT FALSE,
    media_type    TEXT    NOT NULL DEFAULT 'chat',
    media_path    TEXT,
    media_name    TEXT,
    participant   TEXT,
    quoted_msg_id BIGINT  REFERENCES messages (id) ON DELETE SET NULL,
    ack           BIGINT  NOT NULL DEFAULT 0,
    created_at    TIMESTAMP NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now')),
    updated_at    TIMESTAMP NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now'))
);

CREATE UNIQUE INDEX messages_external_key ON messages (whatsapp_id, external_id);
CREATE INDEX messages_ticket_idx ON messages (ticket_id, id);
CREATE INDEX messages_company_created_idx ON messages (company_id, created_at);
CREATE INDEX messages_contact_idx ON messages (contact_id);
CREATE INDEX messages_quoted_idx ON messages (quoted_msg_id);

-- Accent- and case-insensitive search over message bodies (search_text is normalised by the
-- core): an external-content FTS5 index with the trigram tokenizer, kept in step by triggers.
CREATE VIRTUAL TABLE messages_fts USING fts5 (
    search_text, content = 'messages', content_rowid = 'id', tokenize = 'trigram'
);
CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN
    INSERT INTO messages_fts (rowid, search_text) VALUES (new.id, new.search_text);
END;
CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages BEGIN
    INSERT INTO messages_fts (messages_fts, rowid, search_text)
    VALUES ('delete', old.id, old.search_text);
END;
CREATE TRIGGER messages_fts_update AFTER UPDATE OF search_text ON messages BEGIN
    INSERT INTO messages_fts (messages_fts, rowid, search_text)
    VALUES ('delete', old.id, old.search_text);
    INSERT INTO messages_fts (rowid, search_text) VALUES (new.id, new.search_text);
END;

-- One reaction per side (the company's attendants, the contact) per message.
CREATE TABLE message_reactions (
    message_id BIGINT  NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
    company_id BIGINT  NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
    from_me    BOOLEAN NOT NULL,
    emoji      TEXT    NOT NULL,
    PRIMARY KEY (message_id, from_me)
);
CREATE INDEX message_reactions_company_idx ON message_reactions (company_id);

-- At most one ticket that is not closed per contact and connection: two concurrent inbound
-- messages of a new contact cannot make two tickets.
CREATE UNIQUE INDEX tickets_active_contact_key ON tickets (contact_id, whatsapp_id)
    WHERE status <> 'closed';
-- Keyset pagination of the inbox.
DROP INDEX tickets_company_status_updated_idx;
CREATE INDEX tickets_company_status_updated_idx ON tickets (company_id, status, updated_at, id);
CREATE INDEX tickets_company_updated_idx ON tickets (company_id, updated_at, id);
