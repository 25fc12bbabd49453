-- Quick-message shortcodes are unique among what their owner sees, compared without case
-- (docs/quick-messages.md). Two indexes say it where concurrent creates cannot slip past:
-- a shared (`geral`) shortcode is unique in its company, and a user's own shortcodes (shared or
-- private) are unique for that user. The core's check still refuses, with the same code, the
-- one clash an index cannot express across rows (a private shortcode of one user against a
-- shared one of another).
--
-- Rows that already clash keep their text: every duplicate after the oldest gets its id
-- appended to the shortcode ("promo" -> "promo-42"), so nothing is lost.
UPDATE quick_messages
SET shortcode = shortcode || '-' || CAST(id AS TEXT)
WHERE geral
  AND EXISTS (
    SELECT 1 FROM quick_messages older
    WHERE older.company_id = quick_messages.company_id
      AND older.geral
      AND lower(older.shortcode) = lower(quick_messages.shortcode)
      AND older.id < quick_messages.id
  );
UPDATE quick_messages
SET shortcode = shortcode || '-' || CAST(id AS TEXT)
WHERE EXISTS (
    SELECT 1 FROM quick_messages older
    WHERE older.company_id = quick_messages.company_id
      AND older.user_id = quick_messages.user_id
      AND lower(older.shortcode) = lower(quick_messages.shortcode)
      AND older.id < quick_messages.id
  );
CREATE UNIQUE INDEX quick_messages_shared_shortcode_key
    ON quick_messages (company_id, lower(shortcode)) WHERE geral;
CREATE UNIQUE INDEX quick_messages_owner_shortcode_key
    ON quick_messages (company_id, user_id, lower(shortcode));
