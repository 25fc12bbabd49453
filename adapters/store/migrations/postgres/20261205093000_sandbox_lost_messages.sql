-- A simulated phone's message may be lost on the way, as WhatsApp can lose one after an outage:
-- it stays in the phone's own history (the phone can answer a history request with it later)
-- but is never delivered live.
ALTER TABLE sandbox_inbound ADD COLUMN lost BOOLEAN NOT NULL DEFAULT FALSE;
