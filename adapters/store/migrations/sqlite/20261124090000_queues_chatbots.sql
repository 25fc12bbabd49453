-- Chatbot menus of queues and the company's working hours (SQLite dialect; the PostgreSQL
-- migration of the same version has the same columns and indexes).
--
-- A queue's menu is a tree of `chatbots` rows: `parent_id` NULL at the top level, `position`
-- orders siblings. Deleting a queue deletes its menu; deleting an option deletes its
-- sub-options. Targets (opt_queue_id, opt_user_id) lose the link when their row goes.
CREATE TABLE chatbots (
    id                 INTEGER PRIMARY KEY AUTOINCREMENT,
    company_id         BIGINT  NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
    queue_id           BIGINT  NOT NULL REFERENCES queues (id) ON DELETE CASCADE,
    parent_id          BIGINT  REFERENCES chatbots (id) ON DELETE CASCADE,
    position           BIGINT  NOT NULL DEFAULT 0,
    name               TEXT    NOT NULL,
    greeting_message   TEXT    NOT NULL DEFAULT '',
    queue_type         TEXT    NOT NULL DEFAULT 'text',
    opt_queue_id       BIGINT  REFERENCES queues (id) ON DELETE SET NULL,
    opt_user_id        BIGINT  REFERENCES users (id) ON DELETE SET NULL,
    opt_integration_id BIGINT,
    opt_file_id        BIGINT,
    close_ticket       BOOLEAN NOT NULL DEFAULT FALSE,
    created_at         TIMESTAMP NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now')),
    updated_at         TIMESTAMP NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now'))
);
CREATE INDEX chatbots_company_queue_idx ON chatbots (company_id, queue_id, parent_id, position);
CREATE INDEX chatbots_parent_idx ON chatbots (parent_id);
CREATE INDEX chatbots_opt_queue_idx ON chatbots (opt_queue_id);
CREATE INDEX chatbots_opt_user_idx ON chatbots (opt_user_id);

-- The company's working hours (seven rows as JSON; '[]' until saved, read as the defaults).
ALTER TABLE companies ADD COLUMN schedules TEXT NOT NULL DEFAULT '[]';
