-- The sandbox's inbound rows name the chat they came from and the message they carry (calls
-- carry none: nothing a phone can edit or delete), so a simulated phone may edit or delete only
-- its own messages and a connection's chats can be listed (contacts imported from chats, a
-- phone's profile). Rows queued before are filled in from their event.
ALTER TABLE sandbox_inbound ADD COLUMN chat TEXT NOT NULL DEFAULT '';
ALTER TABLE sandbox_inbound ADD COLUMN chat_name TEXT NOT NULL DEFAULT '';
ALTER TABLE sandbox_inbound ADD COLUMN is_group BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE sandbox_inbound ADD COLUMN external_id TEXT;

UPDATE sandbox_inbound SET
    chat = COALESCE(json_extract(event, '$.chat'), ''),
    chat_name = COALESCE(json_extract(event, '$.chatName'), ''),
    is_group = COALESCE(json_extract(event, '$.isGroup'), 0) <> 0,
    external_id = CASE WHEN json_extract(event, '$.type') = 'message'
        THEN json_extract(event, '$.externalId') END;

CREATE INDEX sandbox_inbound_chat_idx ON sandbox_inbound (whatsapp_id, chat);
CREATE INDEX sandbox_inbound_external_idx ON sandbox_inbound (whatsapp_id, external_id);
