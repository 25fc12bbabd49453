-- A schedule's send claimed and not recorded yet (docs/schedules.md "Sending"): the revision the
-- claim made, and the outbound message stored for it (in the claim's own transaction). A server
-- that dies mid-send leaves them set; the send's job, claimed again, resumes the claim instead
-- of dropping it. Recording the send clears both.
ALTER TABLE schedules ADD COLUMN claimed_revision BIGINT;
ALTER TABLE schedules ADD COLUMN claimed_message_id BIGINT REFERENCES messages (id) ON DELETE SET NULL;
