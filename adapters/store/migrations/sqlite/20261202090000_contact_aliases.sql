-- One person, one contact: the other identities a channel knows a contact by (WhatsApp's LID
-- beside the phone number; later Meta's scoped user ids). The contact's `number` is its preferred
-- identity (a phone number when one is known); every other identity it was seen under is a row
-- here, unique per (company, channel), so a message under any of them finds the same contact.
-- A merge moves the rows to the contact that stays; deleting a contact deletes its aliases.
CREATE TABLE contact_aliases (
    company_id BIGINT NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
    channel    TEXT   NOT NULL,
    alias      TEXT   NOT NULL,
    contact_id BIGINT NOT NULL REFERENCES contacts (id) ON DELETE CASCADE,
    PRIMARY KEY (company_id, channel, alias)
);
CREATE INDEX contact_aliases_contact_idx ON contact_aliases (contact_id);
