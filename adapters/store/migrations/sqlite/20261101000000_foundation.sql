-- Chatflow foundation schema (SQLite dialect). The PostgreSQL migration of the same version has
-- the same tables, columns, constraints and indexes.
--
-- Conventions: every tenant table carries company_id with ON DELETE CASCADE from companies;
-- timestamps are RFC 3339 text in UTC (what sqlx writes for chrono values); uuids are 16-byte
-- blobs (what sqlx writes for uuid values); booleans are 0/1.

CREATE TABLE plans (
    id                INTEGER PRIMARY KEY AUTOINCREMENT,
    name              TEXT    NOT NULL,
    users             BIGINT  NOT NULL DEFAULT 0,
    connections       BIGINT  NOT NULL DEFAULT 0,
    queues            BIGINT  NOT NULL DEFAULT 0,
    amount            BIGINT  NOT NULL DEFAULT 0,
    is_public         BOOLEAN NOT NULL DEFAULT TRUE,
    use_whatsapp      BOOLEAN NOT NULL DEFAULT TRUE,
    use_facebook      BOOLEAN NOT NULL DEFAULT TRUE,
    use_instagram     BOOLEAN NOT NULL DEFAULT TRUE,
    use_campaigns     BOOLEAN NOT NULL DEFAULT TRUE,
    use_schedules     BOOLEAN NOT NULL DEFAULT TRUE,
    use_internal_chat BOOLEAN NOT NULL DEFAULT TRUE,
    use_external_api  BOOLEAN NOT NULL DEFAULT TRUE,
    use_kanban        BOOLEAN NOT NULL DEFAULT TRUE,
    use_open_ai       BOOLEAN NOT NULL DEFAULT TRUE,
    use_integrations  BOOLEAN NOT NULL DEFAULT TRUE,
    created_at        TIMESTAMP NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now')),
    updated_at        TIMESTAMP NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now'))
);

CREATE TABLE companies (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    name           TEXT    NOT NULL,
    email          TEXT,
    phone          TEXT,
    plan_id        BIGINT  NOT NULL REFERENCES plans (id) ON DELETE RESTRICT,
    status         BOOLEAN NOT NULL DEFAULT TRUE,
    due_date       DATE    NOT NULL,
    recurrence     TEXT    NOT NULL DEFAULT 'MENSAL',
    document       TEXT,
    payment_method TEXT,
    address_street TEXT,
    address_state  TEXT,
    address_city   TEXT,
    created_at     TIMESTAMP NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now')),
    updated_at     TIMESTAMP NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now')),
    last_login     TIMESTAMP
);
CREATE INDEX companies_plan_idx ON companies (plan_id);
CREATE INDEX companies_due_date_idx ON companies (due_date);

CREATE TABLE platform_settings (
    key        TEXT PRIMARY KEY,
    value      TEXT NOT NULL,
    updated_at TIMESTAMP NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now'))
);

CREATE TABLE company_settings (
    company_id BIGINT NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
    key        TEXT   NOT NULL,
    value      TEXT   NOT NULL,
    updated_at TIMESTAMP NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now')),
    PRIMARY KEY (company_id, key)
);

CREATE TABLE queues (
    id                   INTEGER PRIMARY KEY AUTOINCREMENT,
    company_id           BIGINT  NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
    name                 TEXT    NOT NULL,
    color                TEXT    NOT NULL,
    order_queue          BIGINT,
    greeting_message     TEXT    NOT NULL DEFAULT '',
    out_of_hours_message TEXT    NOT NULL DEFAULT '',
    close_ticket         BOOLEAN NOT NULL DEFAULT FALSE,
    ativar_roteador      BOOLEAN NOT NULL DEFAULT FALSE,
    tempo_roteador       BIGINT  NOT NULL DEFAULT 0,
    integration_id       BIGINT,
    file_list_id         BIGINT,
    schedules            TEXT    NOT NULL DEFAULT '[]',
    created_at           TIMESTAMP NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now')),
    updated_at           TIMESTAMP NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now'))
);
CREATE INDEX queues_company_idx ON queues (company_id);
CREATE UNIQUE INDEX queues_company_color_key ON queues (company_id, color);

CREATE TABLE whatsapps (
    id                          INTEGER PRIMARY KEY AUTOINCREMENT,
    company_id                  BIGINT  NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
    name                        TEXT    NOT NULL,
    number                      TEXT    NOT NULL DEFAULT '',
    channel                     TEXT    NOT NULL DEFAULT 'whatsapp',
    status                      TEXT    NOT NULL DEFAULT 'DISCONNECTED',
    is_default                  BOOLEAN NOT NULL DEFAULT FALSE,
    token                       TEXT,
    greeting_message            TEXT    NOT NULL DEFAULT '',
    complation_message          TEXT    NOT NULL DEFAULT '',
    out_of_hours_message        TEXT    NOT NULL DEFAULT '',
    rating_message              TEXT    NOT NULL DEFAULT '',
    provider                    TEXT    NOT NULL DEFAULT 'beta',
    allow_group                 BOOLEAN NOT NULL DEFAULT FALSE,
    group_as_ticket             TEXT    NOT NULL DEFAULT 'disabled',
    enable_import_message       BOOLEAN NOT NULL DEFAULT FALSE,
    import_old_messages         TIMESTAMP,
    import_recent_messages      TIMESTAMP,
    import_old_messages_groups  BOOLEAN NOT NULL DEFAULT FALSE,
    closed_tickets_post_imported BOOLEAN NOT NULL DEFAULT FALSE,
    queue_id_import_messages    BIGINT  REFERENCES queues (id) ON DELETE SET NULL,
    status_import_messages      TEXT,
    max_use_bot_queues          BIGINT  NOT NULL DEFAULT 3,
    time_use_bot_queues         BIGINT  NOT NULL DEFAULT 0,
    time_send_queue             BIGINT  NOT NULL DEFAULT 0,
    send_id_queue               BIGINT  REFERENCES queues (id) ON DELETE SET NULL,
    expires_ticket              BIGINT  NOT NULL DEFAULT 0,
    when_expires_ticket         BIGINT  NOT NULL DEFAULT 0,
    expires_inactive_message    TEXT    NOT NULL DEFAULT '',
    time_inactive_message       BIGINT  NOT NULL DEFAULT 0,
    inactive_message            TEXT    NOT NULL DEFAULT '',
    max_use_bot_queues_nps      BIGINT  NOT NULL DEFAULT 3,
    expires_ticket_nps          BIGINT  NOT NULL DEFAULT 0,
    time_create_new_ticket      BIGINT  NOT NULL DEFAULT 0,
    greeting_media_attachment   TEXT,
    integration_id              BIGINT,
    prompt_id                   BIGINT,
    flow_id_welcome             BIGINT,
    flow_id_not_phrase          BIGINT,
    collective_vacation_start   DATE,
    collective_vacation_end     DATE,
    collective_vacation_message TEXT    NOT NULL DEFAULT '',
    schedules                   TEXT    NOT NULL DEFAULT '[]',
    qrcode                      TEXT    NOT NULL DEFAULT '',
    retries                     BIGINT  NOT NULL DEFAULT 0,
    created_at                  TIMESTAMP NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now')),
    updated_at                  TIMESTAMP NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now'))
);
CREATE INDEX whatsapps_company_idx ON whatsapps (company_id);
CREATE UNIQUE INDEX whatsapps_token_key ON whatsapps (token);

CREATE TABLE whatsapp_queues (
    company_id  BIGINT NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
    whatsapp_id BIGINT NOT NULL REFERENCES whatsapps (id) ON DELETE CASCADE,
    queue_id    BIGINT NOT NULL REFERENCES queues (id) ON DELETE CASCADE,
    PRIMARY KEY (whatsapp_id, queue_id)
);
CREATE INDEX whatsapp_queues_queue_idx ON whatsapp_queues (queue_id);
CREATE INDEX whatsapp_queues_company_idx ON whatsapp_queues (company_id);

CREATE TABLE users (
    id                            INTEGER PRIMARY KEY AUTOINCREMENT,
    company_id                    BIGINT  NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
    name                          TEXT    NOT NULL,
    email                         TEXT    NOT NULL,
    password_hash                 TEXT    NOT NULL,
    profile                       TEXT    NOT NULL DEFAULT 'user',
    is_super                      BOOLEAN NOT NULL DEFAULT FALSE,
    all_ticket                    TEXT    NOT NULL DEFAULT 'disable',
    allow_group                   BOOLEAN NOT NULL DEFAULT FALSE,
    all_historic                  TEXT    NOT NULL DEFAULT 'disabled',
    all_user_chat                 TEXT    NOT NULL DEFAULT 'disabled',
    user_close_pending_ticket     TEXT    NOT NULL DEFAULT 'disabled',
    show_dashboard                TEXT    NOT NULL DEFAULT 'disabled',
    allow_real_time               TEXT    NOT NULL DEFAULT 'disabled',
    allow_connections             TEXT    NOT NULL DEFAULT 'disabled',
    start_work                    TEXT    NOT NULL DEFAULT '00:00',
    end_work                      TEXT    NOT NULL DEFAULT '23:59',
    farewell_message              TEXT,
    default_theme                 TEXT    NOT NULL DEFAULT 'light',
    default_menu                  TEXT    NOT NULL DEFAULT 'open',
    whatsapp_id                   BIGINT  REFERENCES whatsapps (id) ON DELETE SET NULL,
    profile_image                 TEXT,
    online                        BOOLEAN NOT NULL DEFAULT FALSE,
    default_tickets_manager_width BIGINT  NOT NULL DEFAULT 550,
    created_at                    TIMESTAMP NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now')),
    updated_at                    TIMESTAMP NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now'))
);
-- Sign-in is by e-mail alone, so an e-mail is unique across the whole platform.
CREATE UNIQUE INDEX users_email_lower_key ON users (lower(email));
CREATE INDEX users_company_name_idx ON users (company_id, name);

CREATE TABLE user_queues (
    company_id BIGINT NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
    user_id    BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    queue_id   BIGINT NOT NULL REFERENCES queues (id) ON DELETE CASCADE,
    PRIMARY KEY (user_id, queue_id)
);
CREATE INDEX user_queues_queue_idx ON user_queues (queue_id);
CREATE INDEX user_queues_company_idx ON user_queues (company_id);

CREATE TABLE refresh_sessions (
    id         BLOB    PRIMARY KEY,
    family     BLOB    NOT NULL,
    company_id BIGINT  NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
    user_id    BIGINT  NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    token_hash TEXT    NOT NULL,
    expires_at TIMESTAMP NOT NULL,
    used_at    TIMESTAMP,
    revoked    BOOLEAN NOT NULL DEFAULT FALSE,
    created_at TIMESTAMP NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now'))
);
CREATE UNIQUE INDEX refresh_sessions_token_hash_key ON refresh_sessions (token_hash);
CREATE INDEX refresh_sessions_family_idx ON refresh_sessions (company_id, family);
CREATE INDEX refresh_sessions_user_idx ON refresh_sessions (company_id, user_id);

CREATE TABLE contacts (
    id                   INTEGER PRIMARY KEY AUTOINCREMENT,
    company_id           BIGINT  NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
    name                 TEXT    NOT NULL,
    number               TEXT    NOT NULL,
    email                TEXT    NOT NULL DEFAULT '',
    active               BOOLEAN NOT NULL DEFAULT TRUE,
    disable_bot          BOOLEAN NOT NULL DEFAULT FALSE,
    accept_audio_message BOOLEAN NOT NULL DEFAULT TRUE,
    url_picture          TEXT,
    channel              TEXT    NOT NULL DEFAULT 'whatsapp',
    is_group             BOOLEAN NOT NULL DEFAULT FALSE,
    lgpd_accepted_at     TIMESTAMP,
    whatsapp_id          BIGINT  REFERENCES whatsapps (id) ON DELETE SET NULL,
    created_at           TIMESTAMP NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now')),
    updated_at           TIMESTAMP NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now'))
);
CREATE UNIQUE INDEX contacts_company_channel_number_key ON contacts (company_id, channel, number);
CREATE INDEX contacts_company_name_idx ON contacts (company_id, name);

-- A contact's extra information (extraInfo on the wire).
CREATE TABLE contact_custom_fields (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    company_id BIGINT NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
    contact_id BIGINT NOT NULL REFERENCES contacts (id) ON DELETE CASCADE,
    name       TEXT   NOT NULL,
    value      TEXT   NOT NULL DEFAULT '',
    created_at TIMESTAMP NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now')),
    updated_at TIMESTAMP NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now'))
);
CREATE INDEX contact_custom_fields_contact_idx ON contact_custom_fields (contact_id);
CREATE INDEX contact_custom_fields_company_idx ON contact_custom_fields (company_id);

CREATE TABLE tags (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    company_id BIGINT NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
    name       TEXT   NOT NULL,
    color      TEXT   NOT NULL DEFAULT '',
    kanban     BIGINT NOT NULL DEFAULT 0,
    created_at TIMESTAMP NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now')),
    updated_at TIMESTAMP NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now'))
);
CREATE INDEX tags_company_idx ON tags (company_id, name);

CREATE TABLE contact_tags (
    company_id BIGINT NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
    contact_id BIGINT NOT NULL REFERENCES contacts (id) ON DELETE CASCADE,
    tag_id     BIGINT NOT NULL REFERENCES tags (id) ON DELETE CASCADE,
    PRIMARY KEY (contact_id, tag_id)
);
CREATE INDEX contact_tags_tag_idx ON contact_tags (tag_id);
CREATE INDEX contact_tags_company_idx ON contact_tags (company_id);

CREATE TABLE tickets (
    id                     INTEGER PRIMARY KEY AUTOINCREMENT,
    company_id             BIGINT  NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
    uuid                   BLOB    NOT NULL,
    status                 TEXT    NOT NULL DEFAULT 'pending',
    unread_messages        BIGINT  NOT NULL DEFAULT 0,
    last_message           TEXT    NOT NULL DEFAULT '',
    is_group               BOOLEAN NOT NULL DEFAULT FALSE,
    is_bot                 BOOLEAN NOT NULL DEFAULT FALSE,
    channel                TEXT    NOT NULL DEFAULT 'whatsapp',
    user_id                BIGINT  REFERENCES users (id) ON DELETE SET NULL,
    queue_id               BIGINT  REFERENCES queues (id) ON DELETE SET NULL,
    whatsapp_id            BIGINT  REFERENCES whatsapps (id) ON DELETE SET NULL,
    contact_id             BIGINT  NOT NULL REFERENCES contacts (id) ON DELETE CASCADE,
    amount_used_bot_queues BIGINT  NOT NULL DEFAULT 0,
    use_integration        BOOLEAN NOT NULL DEFAULT FALSE,
    integration_id         BIGINT,
    is_transfered          BOOLEAN NOT NULL DEFAULT FALSE,
    created_at             TIMESTAMP NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now')),
    updated_at             TIMESTAMP NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now'))
);
CREATE UNIQUE INDEX tickets_uuid_key ON tickets (uuid);
CREATE INDEX tickets_company_status_updated_idx ON tickets (company_id, status, updated_at);
CREATE INDEX tickets_company_queue_idx ON tickets (company_id, queue_id);
CREATE INDEX tickets_company_user_idx ON tickets (company_id, user_id);
CREATE INDEX tickets_contact_idx ON tickets (contact_id);
CREATE INDEX tickets_whatsapp_idx ON tickets (whatsapp_id);

CREATE TABLE ticket_tags (
    company_id BIGINT NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
    ticket_id  BIGINT NOT NULL REFERENCES tickets (id) ON DELETE CASCADE,
    tag_id     BIGINT NOT NULL REFERENCES tags (id) ON DELETE CASCADE,
    PRIMARY KEY (ticket_id, tag_id)
);
CREATE INDEX ticket_tags_tag_idx ON ticket_tags (tag_id);
CREATE INDEX ticket_tags_company_idx ON ticket_tags (company_id);

-- A message's id is the channel's own message id (or a uuid for messages born here).
CREATE TABLE messages (
    id            TEXT    PRIMARY KEY,
    company_id    BIGINT  NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
    ticket_id     BIGINT  NOT NULL REFERENCES tickets (id) ON DELETE CASCADE,
    contact_id    BIGINT  REFERENCES contacts (id) ON DELETE CASCADE,
    queue_id      BIGINT  REFERENCES queues (id) ON DELETE SET NULL,
    body          TEXT    NOT NULL DEFAULT '',
    from_me       BOOLEAN NOT NULL DEFAULT FALSE,
    read          BOOLEAN NOT NULL DEFAULT FALSE,
    is_private    BOOLEAN NOT NULL DEFAULT FALSE,
    is_deleted    BOOLEAN NOT NULL DEFAULT FALSE,
    is_edited     BOOLEAN NOT NULL DEFAULT FALSE,
    is_forwarded  BOOLEAN NOT NULL DEFAULT FALSE,
    media_type    TEXT,
    media_url     TEXT,
    quoted_msg_id TEXT    REFERENCES messages (id) ON DELETE SET NULL,
    ack           BIGINT  NOT NULL DEFAULT 0,
    created_at    TIMESTAMP NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now')),
    updated_at    TIMESTAMP NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now'))
);
CREATE INDEX messages_ticket_created_idx ON messages (ticket_id, created_at);
CREATE INDEX messages_company_idx ON messages (company_id);
CREATE INDEX messages_contact_idx ON messages (contact_id);
CREATE INDEX messages_quoted_idx ON messages (quoted_msg_id);

CREATE TABLE ticket_notes (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    company_id BIGINT NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
    note       TEXT   NOT NULL,
    user_id    BIGINT REFERENCES users (id) ON DELETE SET NULL,
    ticket_id  BIGINT NOT NULL REFERENCES tickets (id) ON DELETE CASCADE,
    contact_id BIGINT NOT NULL REFERENCES contacts (id) ON DELETE CASCADE,
    created_at TIMESTAMP NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now')),
    updated_at TIMESTAMP NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now'))
);
CREATE INDEX ticket_notes_ticket_idx ON ticket_notes (ticket_id);
CREATE INDEX ticket_notes_contact_idx ON ticket_notes (contact_id);
CREATE INDEX ticket_notes_company_idx ON ticket_notes (company_id);

-- type: create, chatBot, queue, open, access, transfered, receivedTransfer, pending, closed,
-- reopen, redirect (spec 1 §3).
CREATE TABLE ticket_logs (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    company_id BIGINT NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
    ticket_id  BIGINT NOT NULL REFERENCES tickets (id) ON DELETE CASCADE,
    type       TEXT   NOT NULL,
    user_id    BIGINT REFERENCES users (id) ON DELETE SET NULL,
    queue_id   BIGINT REFERENCES queues (id) ON DELETE SET NULL,
    created_at TIMESTAMP NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now'))
);
CREATE INDEX ticket_logs_ticket_idx ON ticket_logs (ticket_id, created_at);
CREATE INDEX ticket_logs_company_idx ON ticket_logs (company_id);

-- Platform-level help entries (written by the super user, read by every company).
CREATE TABLE helps (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    title       TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    video       TEXT NOT NULL DEFAULT '',
    created_at  TIMESTAMP NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now')),
    updated_at  TIMESTAMP NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now'))
);

-- Platform-level announcements. priority: 1 red, 2 orange, 3 grey.
CREATE TABLE announcements (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    title      TEXT    NOT NULL,
    text       TEXT    NOT NULL DEFAULT '',
    media_path TEXT,
    media_name TEXT,
    priority   BIGINT  NOT NULL DEFAULT 3,
    status     BOOLEAN NOT NULL DEFAULT TRUE,
    created_at TIMESTAMP NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now')),
    updated_at TIMESTAMP NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now'))
);
CREATE INDEX announcements_created_idx ON announcements (created_at);
