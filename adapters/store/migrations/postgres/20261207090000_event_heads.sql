-- Each company's event head (the last sequence number handed out) moves from
-- `companies.event_seq` to a table of its own: the companies row is the parent of nearly every
-- foreign key, so every insert share-locks it, and a counter bumped by every write on that same
-- row made concurrent writers pile up on it (multixact members, long update chains).
CREATE TABLE event_heads (
    company_id BIGINT PRIMARY KEY REFERENCES companies (id) ON DELETE CASCADE,
    seq        BIGINT NOT NULL
);
INSERT INTO event_heads (company_id, seq) SELECT id, event_seq FROM companies;
ALTER TABLE companies DROP COLUMN event_seq;

-- A write appends its events with placeholder numbers (negative, from `events_pending_seq`);
-- they are numbered when its transaction commits, by a deferred trigger that fires for each
-- pending event in the order they were inserted: it bumps the company's head and gives the
-- event the number. The head's row is locked from the first of them until the commit ends,
-- which is the commit's own work, instead of from the first append until the writer had sent
-- every statement after it (and waited for each round trip) as when the bump came first.
-- Numbers stay gap-free per company and visible in order: once a head of N is visible, every
-- event up to N is. A placeholder is never visible to another transaction.
CREATE SEQUENCE events_pending_seq;

CREATE FUNCTION number_pending_event() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    numbered BIGINT;
BEGIN
    INSERT INTO event_heads AS h (company_id, seq) VALUES (NEW.company_id, 1)
        ON CONFLICT (company_id) DO UPDATE SET seq = h.seq + 1
        RETURNING h.seq INTO numbered;
    UPDATE events SET seq = numbered WHERE company_id = NEW.company_id AND seq = NEW.seq;
    RETURN NULL;
END $$;

CREATE CONSTRAINT TRIGGER events_numbered_at_commit AFTER INSERT ON events
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (NEW.seq < 0)
    EXECUTE FUNCTION number_pending_event();
