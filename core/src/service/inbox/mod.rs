//! Use cases of the inbox (issue 3): connections, contacts and tags, tickets and messages,
//! inbound ingestion.

pub mod calls;
pub mod connections;
pub mod contacts;
pub mod delivery;
pub mod gaps;
pub mod history;
pub mod identities;
pub mod inbound_failures;
pub mod ingest;
pub mod messages;
pub mod tags;
pub mod tickets;
