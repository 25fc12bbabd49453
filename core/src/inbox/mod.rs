//! The inbox: connections, contacts, tickets and messages (their realtime events are in
//! [`crate::events`]).
//!
//! - [`model`]: entities and inputs as the API shows them.
//! - [`channel`]: the channel port every provider implements and the inbound event type.
//! - [`ingest`]: inbound ingestion as pure decisions.
//! - [`inbound`]: storable and bounded text from channels, and setting aside what cannot be
//!   stored (inbound failures).
//! - [`visibility`]: which tickets a user sees; the inbox filter.
//! - [`membership`]: whether a ticket belongs in one inbox list, and the inbox's controls (asked
//!   by the web app through WASM).
//! - [`lgpd`]: number masking.
//! - [`messages`]: message rules (validation, signing, edit/delete, forward, media limits).
//! - [`search`]: search text normalisation.
//! - [`ports`]: repositories of the inbox.
//! - [`connection_rules`]: validation of a connection's settings.
//! - [`contact_rules`]: contact validation and number normalisation.
//! - [`history`]: the import of old messages (which history is kept, how it is stored, when
//!   the import ends).
//! - [`identities`]: one person, one contact: a contact's aliases and the merges they cause.
//! - [`import`]: contact import rules (column mapping, row outcomes).
//! - [`sandbox`]: the sandbox channel's persistence port.
//! - [`session_state`]: a channel session's key state (byte-level, per connection, fenced
//!   writes), for providers that keep protocol state (WhatsApp Web).
//! - [`lease`]: one owner process per connection's session: the lease and its fencing token.

pub mod channel;
pub mod connection_rules;
pub mod contact_rules;
pub mod delivery;
pub mod gaps;
pub mod history;
pub mod identities;
pub mod import;
pub mod inbound;
pub mod ingest;
pub mod lease;
pub mod lgpd;
pub mod membership;
pub mod messages;
pub mod model;
pub mod ports;
pub mod sandbox;
pub mod search;
pub mod session_state;
pub mod variables;
pub mod visibility;
