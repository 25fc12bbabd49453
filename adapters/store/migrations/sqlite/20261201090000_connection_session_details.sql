-- What a connection shows of its session besides the status, and linking a sandbox connection
-- by pair code (SQLite dialect; the PostgreSQL migration of the same version has the same columns).
--
-- whatsapps.pairing_code: the code to type on the phone while linking by phone number (status
-- PAIRING), shown only to those who manage connections. session_reason: why the session is in
-- its state (the core's SessionReason as JSON text: {"kind": "loggedOut"}, {"kind":
-- "temporaryBan", "code": 101}...), NULL when the status says it all. session_until: when what
-- the reason names ends (a temporary ban).
ALTER TABLE whatsapps ADD COLUMN pairing_code TEXT;
ALTER TABLE whatsapps ADD COLUMN session_reason TEXT;
ALTER TABLE whatsapps ADD COLUMN session_until TIMESTAMP;

-- sandbox_pairings.pair_code: the code a simulated phone must type to pair (NULL when the
-- connection is not linking by code); pair_number: the number the code was asked for, which the
-- connection gets once paired (NULL when paired by QR code: the sandbox's own number).
ALTER TABLE sandbox_pairings ADD COLUMN pair_code TEXT;
ALTER TABLE sandbox_pairings ADD COLUMN pair_number TEXT;
