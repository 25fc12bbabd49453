//! The inbox: connections, contacts, tickets, messages and their realtime events.
//!
//! - [`model`]: entities and inputs as the API shows them.
//! - [`channel`]: the channel port every provider implements and the inbound event type.
//! - [`ingest`]: inbound ingestion as pure decisions.
//! - [`visibility`]: which tickets a user sees; the inbox filter.
//! - [`lgpd`]: number masking.
//! - [`events`]: realtime events (outbox entries) and their per-recipient payloads.
//! - [`search`]: search text normalisation.
//! - [`ports`]: repositories of the inbox.

pub mod channel;
pub mod events;
pub mod ingest;
pub mod lgpd;
pub mod model;
pub mod ports;
pub mod search;
pub mod visibility;
