-- The phone's answers to a gap's history requests (core::inbox::gaps): a gap whose check asked
-- the phone for conversations waits for the answers until answer_by (state 'asked'); each
-- conversation asked is a gap_requests row, answered once a message of the answer lands in a
-- conversation of its contact. Those still unanswered by then get the notice.
ALTER TABLE connection_gaps ADD COLUMN answer_by TIMESTAMPTZ;

CREATE TABLE gap_requests (
    gap_id     BIGINT NOT NULL REFERENCES connection_gaps (id) ON DELETE CASCADE,
    company_id BIGINT NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
    ticket_id  BIGINT NOT NULL REFERENCES tickets (id) ON DELETE CASCADE,
    contact_id BIGINT NOT NULL REFERENCES contacts (id) ON DELETE CASCADE,
    answered   BOOLEAN NOT NULL DEFAULT FALSE,
    PRIMARY KEY (gap_id, ticket_id)
);
CREATE INDEX gap_requests_contact_idx ON gap_requests (contact_id) WHERE NOT answered;
