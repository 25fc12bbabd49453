-- The inbox's first load lists unread tickets first, then by update time: an index on exactly
-- that order (company, status, unread flag, updated_at, id) lets a tab's first page be read
-- straight from the index instead of sorting every ticket of the tab.
CREATE INDEX tickets_inbox_unread_idx ON tickets
    (company_id, status, (CASE WHEN unread_messages > 0 THEN 1 ELSE 0 END), updated_at, id);
