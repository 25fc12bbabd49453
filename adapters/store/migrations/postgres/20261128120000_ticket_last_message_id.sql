-- A ticket remembers which message its list preview (`last_message`) came from, so the preview
-- follows that message: deleted -> the ticket says so (`lastMessageDeleted`), edited -> its new
-- text (docs/inbox.md). Private notes never become the preview.
--
-- Existing tickets point at their newest message that is not a private note.
ALTER TABLE tickets ADD COLUMN last_message_id BIGINT REFERENCES messages (id) ON DELETE SET NULL;
UPDATE tickets
SET last_message_id = (
    SELECT max(m.id) FROM messages m
    WHERE m.ticket_id = tickets.id AND m.company_id = tickets.company_id AND NOT m.is_private
);
