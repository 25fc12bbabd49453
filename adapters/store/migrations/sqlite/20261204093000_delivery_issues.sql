-- Delivery assurance (core::inbox::delivery): an outbound message still at one tick ten minutes
-- after WhatsApp took it is flagged (delivery_issue = 'notDelivered'); a later receipt clears it.
-- The partial index holds only the outbound messages a look may flag.
ALTER TABLE messages ADD COLUMN delivery_issue TEXT;
CREATE INDEX messages_one_tick_idx ON messages (whatsapp_id, created_at)
    WHERE from_me AND ack = 1 AND delivery_issue IS NULL;
CREATE INDEX messages_delivery_issue_idx ON messages (whatsapp_id, created_at)
    WHERE delivery_issue IS NOT NULL;
