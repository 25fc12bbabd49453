-- Quick messages (quick replies): a shortcode typed after "/" in the ticket input expands to the
-- stored text, with an optional file (`media_file`: the media store's name; `media_name`: the
-- original name). `geral`: shared with the whole company; otherwise only the owner sees it.
CREATE TABLE quick_messages (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    company_id BIGINT  NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
    user_id    BIGINT  NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    shortcode  TEXT    NOT NULL,
    message    TEXT    NOT NULL DEFAULT '',
    geral      BOOLEAN NOT NULL DEFAULT FALSE,
    visao      BOOLEAN NOT NULL DEFAULT TRUE,
    status     BOOLEAN NOT NULL DEFAULT TRUE,
    media_file TEXT,
    media_name TEXT,
    created_at TIMESTAMP NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now')),
    updated_at TIMESTAMP NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now'))
);
CREATE INDEX quick_messages_company_idx ON quick_messages (company_id, shortcode);
