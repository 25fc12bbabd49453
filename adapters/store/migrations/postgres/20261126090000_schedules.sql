-- Scheduled and recurring messages (PostgreSQL dialect; the SQLite migration of the same version
-- has the same columns). `send_at` is the first send; `next_send_at` the send a queued job is
-- for (NULL once none follows); `sends` counts successful sends; `revision` is bumped by every
-- change, and a `sendSchedule` job of another revision does nothing (docs/schedules.md).
CREATE TABLE schedules (
    id                   BIGSERIAL PRIMARY KEY,
    company_id           BIGINT  NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
    contact_id           BIGINT  NOT NULL REFERENCES contacts (id) ON DELETE CASCADE,
    body                 TEXT    NOT NULL,
    send_at              TIMESTAMPTZ NOT NULL,
    next_send_at         TIMESTAMPTZ,
    sent_at              TIMESTAMPTZ,
    status               TEXT    NOT NULL,
    open_ticket          TEXT    NOT NULL,
    ticket_user_id       BIGINT  REFERENCES users (id) ON DELETE SET NULL,
    queue_id             BIGINT  REFERENCES queues (id) ON DELETE SET NULL,
    status_ticket        TEXT    NOT NULL,
    whatsapp_id          BIGINT  REFERENCES whatsapps (id) ON DELETE SET NULL,
    user_id              BIGINT  REFERENCES users (id) ON DELETE SET NULL,
    media_path           TEXT,
    media_name           TEXT,
    assinar              BOOLEAN NOT NULL DEFAULT FALSE,
    intervalo            BIGINT  NOT NULL,
    valor_intervalo      BIGINT  NOT NULL,
    enviar_quantas_vezes BIGINT  NOT NULL,
    tipo_dias            BIGINT  NOT NULL,
    sends                BIGINT  NOT NULL DEFAULT 0,
    revision             BIGINT  NOT NULL DEFAULT 0,
    last_error           TEXT,
    created_at           TIMESTAMPTZ NOT NULL,
    updated_at           TIMESTAMPTZ NOT NULL
);
CREATE INDEX schedules_company_idx ON schedules (company_id, next_send_at, send_at, id);
CREATE INDEX schedules_contact_idx ON schedules (company_id, contact_id);
