-- Inbound events a channel delivered that could not be stored (a data or integrity error, a
-- refused text, or too many failed attempts) are set aside here, per company, with the error
-- that stopped them, so nothing queued behind them waits; the company's admins see, retry or
-- discard them (`/inbound-failures`).
CREATE TABLE inbound_failures (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    company_id   BIGINT  NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
    whatsapp_id  BIGINT  NOT NULL,
    event        TEXT    NOT NULL,
    error_code   TEXT    NOT NULL,
    error_detail TEXT    NOT NULL DEFAULT '',
    attempts     BIGINT  NOT NULL DEFAULT 1,
    created_at   TIMESTAMP NOT NULL,
    updated_at   TIMESTAMP NOT NULL
);
CREATE INDEX inbound_failures_company_idx ON inbound_failures (company_id, id);

-- The sandbox's queue counts failed deliveries and waits before the next one (a connection
-- whose oldest message waits does not hold the others up), and remembers the connection's
-- reaction to a message the phone sent.
ALTER TABLE sandbox_inbound ADD COLUMN attempts BIGINT NOT NULL DEFAULT 0;
ALTER TABLE sandbox_inbound ADD COLUMN retry_at TIMESTAMP;
ALTER TABLE sandbox_inbound ADD COLUMN last_error TEXT NOT NULL DEFAULT '';
ALTER TABLE sandbox_inbound ADD COLUMN reaction TEXT NOT NULL DEFAULT '';
