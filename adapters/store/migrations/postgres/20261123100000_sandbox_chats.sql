-- The sandbox's inbound rows name the chat they came from and the message they carry (calls
-- carry none: nothing a phone can edit or delete), so a simulated phone may edit or delete only
-- its own messages and a connection's chats can be listed (contacts imported from chats, a
-- phone's profile). Rows queued before are filled in from their event.
ALTER TABLE sandbox_inbound ADD COLUMN chat TEXT NOT NULL DEFAULT '';
ALTER TABLE sandbox_inbound ADD COLUMN chat_name TEXT NOT NULL DEFAULT '';
ALTER TABLE sandbox_inbound ADD COLUMN is_group BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE sandbox_inbound ADD COLUMN external_id TEXT;

UPDATE sandbox_inbound SET
    chat = COALESCE(event::jsonb ->> 'chat', ''),
    chat_name = COALESCE(event::jsonb ->> 'chatName', ''),
    is_group = COALESCE((event::jsonb ->> 'isGroup')::boolean, FALSE),
    external_id = CASE WHEN event::jsonb ->> 'type' = 'message'
        THEN event::jsonb ->> 'externalId' END;

CREATE INDEX sandbox_inbound_chat_idx ON sandbox_inbound (whatsapp_id, chat);
CREATE INDEX sandbox_inbound_external_idx ON sandbox_inbound (whatsapp_id, external_id);
