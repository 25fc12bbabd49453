-- Gaps after an outage (core::inbox::gaps): when a connection went down (down_since, cleared
-- when it is back), the outages long enough to be checked for missing messages
-- (connection_gaps: waiting for the channel's queue, checking, checked; hidden once an admin
-- dismissed them), and the connection's last gap not dismissed as the connection shows it
-- (last_gap, JSON, kept with the gap's row).
ALTER TABLE whatsapps ADD COLUMN down_since TIMESTAMP;
ALTER TABLE whatsapps ADD COLUMN last_gap TEXT;

CREATE TABLE connection_gaps (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    company_id  BIGINT NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
    whatsapp_id BIGINT NOT NULL REFERENCES whatsapps (id) ON DELETE CASCADE,
    from_at     TIMESTAMP NOT NULL,
    to_at       TIMESTAMP NOT NULL,
    state       TEXT NOT NULL,
    fetched     BIGINT NOT NULL DEFAULT 0,
    noted       BIGINT NOT NULL DEFAULT 0,
    dismissed   BOOLEAN NOT NULL DEFAULT FALSE
);
CREATE INDEX connection_gaps_connection_idx ON connection_gaps (whatsapp_id, state);
