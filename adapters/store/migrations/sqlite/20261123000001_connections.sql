-- Connections and the sandbox channel (SQLite dialect; the PostgreSQL migration of the same
-- version has the same tables and columns).
--
-- `whatsapps` and `whatsapp_queues` come from the foundation; the service sets `provider` on
-- every new row (the column default stays as it was). The tables below hold the built-in
-- simulated phone network: pairing state per connection, what simulated phones sent to a
-- connection (delivered once the inbox committed it), and what they received from it.

CREATE TABLE sandbox_pairings (
    whatsapp_id BIGINT  PRIMARY KEY REFERENCES whatsapps (id) ON DELETE CASCADE,
    company_id  BIGINT  NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
    nonce       TEXT    NOT NULL,
    paired      BOOLEAN NOT NULL DEFAULT FALSE,
    updated_at  TIMESTAMP NOT NULL
);
CREATE INDEX sandbox_pairings_company_idx ON sandbox_pairings (company_id);

CREATE TABLE sandbox_inbound (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    company_id   BIGINT  NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
    whatsapp_id  BIGINT  NOT NULL REFERENCES whatsapps (id) ON DELETE CASCADE,
    event        TEXT    NOT NULL,
    created_at   TIMESTAMP NOT NULL,
    delivered_at TIMESTAMP
);
CREATE INDEX sandbox_inbound_pending_idx ON sandbox_inbound (delivered_at, id);
CREATE INDEX sandbox_inbound_company_idx ON sandbox_inbound (company_id);

CREATE TABLE sandbox_outbound (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    company_id  BIGINT  NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
    whatsapp_id BIGINT  NOT NULL REFERENCES whatsapps (id) ON DELETE CASCADE,
    to_number   TEXT    NOT NULL,
    external_id TEXT    NOT NULL,
    content     TEXT    NOT NULL,
    body        TEXT    NOT NULL DEFAULT '',
    ack         BIGINT  NOT NULL DEFAULT 1,
    deleted     BOOLEAN NOT NULL DEFAULT FALSE,
    reaction    TEXT    NOT NULL DEFAULT '',
    read_at     TIMESTAMP,
    created_at  TIMESTAMP NOT NULL,
    updated_at  TIMESTAMP NOT NULL
);
CREATE UNIQUE INDEX sandbox_outbound_external_key ON sandbox_outbound (whatsapp_id, external_id);
CREATE INDEX sandbox_outbound_company_idx ON sandbox_outbound (company_id);
