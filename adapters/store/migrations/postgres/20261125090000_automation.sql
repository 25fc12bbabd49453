-- The automation runtime: flow runs stepped with an optimistic revision, one run at a time per
-- ticket, the routing bot's memory on tickets, and the indexes of a queue's routing snapshot
-- (PostgreSQL dialect; the SQLite migration of the same version has the same columns and indexes).

-- Every saved step of a run bumps `revision`; a step that read an older revision loses.
ALTER TABLE flow_runs ADD COLUMN revision BIGINT NOT NULL DEFAULT 0;

-- A ticket runs at most one flow at a time: end all but the newest unfinished run of each ticket
-- before the index enforces it.
UPDATE flow_runs SET status = 'ended', revision = revision + 1
WHERE status <> 'ended'
  AND id NOT IN (SELECT MAX(id) FROM flow_runs WHERE status <> 'ended' GROUP BY ticket_id);
CREATE UNIQUE INDEX flow_runs_active_ticket_key ON flow_runs (ticket_id) WHERE status <> 'ended';

-- The routing bot's memory: its state as JSON ('' when never stored) and when it last sent a menu.
ALTER TABLE tickets ADD COLUMN bot_state TEXT NOT NULL DEFAULT '';
ALTER TABLE tickets ADD COLUMN last_bot_message_at TIMESTAMPTZ;

-- A queue's routing snapshot: its waiting tickets (pending, no user, older than the ticket) and
-- the newest `open` log of the queue (the rotation's last attendant). The new tickets index
-- covers the old (company_id, queue_id) one.
CREATE INDEX tickets_company_queue_status_idx ON tickets (company_id, queue_id, status, id);
DROP INDEX tickets_company_queue_idx;
CREATE INDEX ticket_logs_company_queue_type_idx ON ticket_logs (company_id, queue_id, type, id);
