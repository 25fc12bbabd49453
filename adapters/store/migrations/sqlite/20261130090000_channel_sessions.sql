-- Channel sessions' key state and the lease on each session (SQLite dialect; the PostgreSQL
-- migration of the same version has the same tables, columns and indexes).
--
-- channel_session_state: what a provider that keeps protocol state (WhatsApp Web: the device,
-- Signal sessions and keys, app-state sync, LID mappings, inbound messages waiting for their
-- commit) stores per connection, one row per (namespace, key). `ns` is the core's
-- `StateNamespace::code`; `k` and `v` are bytes (values sealed by the provider when they are key
-- material); `aux` is a number the store compares without reading the value (a time, an expiry,
-- an id, a flag). Internal to the channel providers: reached by connection id only, never by a
-- route. Deleting the connection (or its company) deletes its keys.
CREATE TABLE channel_session_state (
    whatsapp_id BIGINT   NOT NULL REFERENCES whatsapps (id) ON DELETE CASCADE,
    ns          SMALLINT NOT NULL,
    k           BLOB     NOT NULL,
    v           BLOB     NOT NULL,
    aux         BIGINT   NOT NULL DEFAULT 0,
    PRIMARY KEY (whatsapp_id, ns, k)
);
CREATE INDEX channel_session_state_aux_idx ON channel_session_state (whatsapp_id, ns, aux);

-- channel_leases: the one server process running a connection's session (`owner`, NULL once
-- released) until `expires_at`, and the fencing token of its acquisition. The row outlives a
-- release so that tokens only grow; writes of the session's state carry the token and are
-- refused when it is not this row's.
CREATE TABLE channel_leases (
    whatsapp_id BIGINT    PRIMARY KEY REFERENCES whatsapps (id) ON DELETE CASCADE,
    owner       TEXT,
    token       BIGINT    NOT NULL,
    expires_at  TIMESTAMP NOT NULL
);
CREATE INDEX channel_leases_expiry_idx ON channel_leases (expires_at);
