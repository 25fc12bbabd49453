-- The flow builder: flows with a draft and numbered published versions, phrase campaigns, and
-- the runs of flows on tickets (SQLite dialect; the PostgreSQL migration of the same version
-- has the same columns and indexes).
--
-- `flows.draft` is the graph being edited (NULL when there are no unpublished edits);
-- `flows.published_version` names the live row of `flow_versions`. Publishing inserts the next
-- version and points the flow at it in one transaction. A run (`flow_runs`) names the version it
-- started on and keeps it. Deleting a flow deletes its versions, runs and campaigns (the server
-- refuses while a connection or a campaign uses it).
CREATE TABLE flows (
    id                INTEGER PRIMARY KEY AUTOINCREMENT,
    company_id        BIGINT  NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
    name              TEXT    NOT NULL,
    active            BOOLEAN NOT NULL DEFAULT TRUE,
    draft             TEXT,
    published_version BIGINT,
    created_at        TIMESTAMP NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now')),
    updated_at        TIMESTAMP NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now'))
);
CREATE INDEX flows_company_name_idx ON flows (company_id, name);

CREATE TABLE flow_versions (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    flow_id      BIGINT  NOT NULL REFERENCES flows (id) ON DELETE CASCADE,
    company_id   BIGINT  NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
    version      BIGINT  NOT NULL,
    graph        TEXT    NOT NULL,
    published_at TIMESTAMP NOT NULL,
    published_by BIGINT  REFERENCES users (id) ON DELETE SET NULL,
    UNIQUE (flow_id, version)
);
CREATE INDEX flow_versions_company_idx ON flow_versions (company_id, flow_id);

CREATE TABLE flow_campaigns (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    company_id  BIGINT  NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
    name        TEXT    NOT NULL,
    flow_id     BIGINT  NOT NULL REFERENCES flows (id) ON DELETE CASCADE,
    whatsapp_id BIGINT  REFERENCES whatsapps (id) ON DELETE SET NULL,
    phrase      TEXT    NOT NULL,
    status      BOOLEAN NOT NULL DEFAULT TRUE,
    created_at  TIMESTAMP NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now')),
    updated_at  TIMESTAMP NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now'))
);
CREATE INDEX flow_campaigns_company_idx ON flow_campaigns (company_id, name);
CREATE INDEX flow_campaigns_flow_idx ON flow_campaigns (flow_id);

-- status: running | waiting | ended.
CREATE TABLE flow_runs (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    company_id   BIGINT  NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
    ticket_id    BIGINT  NOT NULL REFERENCES tickets (id) ON DELETE CASCADE,
    flow_id      BIGINT  NOT NULL REFERENCES flows (id) ON DELETE CASCADE,
    version      BIGINT  NOT NULL,
    state        TEXT    NOT NULL,
    current_node TEXT,
    status       TEXT    NOT NULL DEFAULT 'running',
    started_at   TIMESTAMP NOT NULL,
    updated_at   TIMESTAMP NOT NULL
);
CREATE INDEX flow_runs_flow_version_idx ON flow_runs (flow_id, version);
CREATE INDEX flow_runs_company_ticket_idx ON flow_runs (company_id, ticket_id);
