-- When the contact's profile picture was last looked up (core::inbox::model::Contact::picture_due):
-- a new ticket asks again once a day, as the channel's picture addresses expire.
ALTER TABLE contacts ADD COLUMN picture_at TIMESTAMPTZ;
