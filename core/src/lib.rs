//! Chatflow's pure domain.
//!
//! Everything here is a decision: functions from state and input to new state and effects.
//! The core does no I/O: no tokio, no database, no HTTP, no wall clock and no randomness except
//! through the ports in [`ports`], which adapters implement and hosts wire together. It builds for
//! `wasm32-unknown-unknown`.
//!
//! Modules:
//! - [`ids`]: typed identifiers and the tenant scope every repository call takes.
//! - [`error`]: the one error catalogue (`ERR_*` codes of the specification).
//! - [`tenancy`]: companies, plans and their flags, subscription state and renewal math.
//! - [`identity`]: users, profiles, per-user flags, the acting user.
//! - [`policy`]: the permission table and the one policy function.
//! - [`ticket`]: the ticket state machine.
//! - [`events`]: the one typed realtime event model of every feature (the event log's entries),
//!   who hears each event and its socket name and payload.
//! - [`inbox`]: connections, contacts, tickets, messages, ingestion.
//! - [`flow`]: the flow builder's graph, its validation and the deterministic interpreter.
//! - [`flow_ports`]: the storage ports of flows, their versions and phrase campaigns.
//! - [`integrations`]: the assistant and Typebot ports and their rules (request, hand-over,
//!   keywords, rich text).
//! - [`handoff`]: the integration holding a conversation after a flow handed it over (the
//!   session remembered on the ticket, Typebot settings, what a message does to a session).
//! - [`jobs`]: durable jobs (what, for which company, when) and their retry schedule.
//! - [`limits`]: upload limits (file sizes per kind, spreadsheet bounds, staged uploads).
//! - [`quick_message`]: quick messages (quick replies): who sees and edits them, validation,
//!   their events and storage port.
//! - [`queue`]: queues, their chatbot menus and working hours.
//! - [`routing`]: routing before a human: working hours, chatbot menus, rotation, the decision.
//! - [`validation`]: form and payload rules, password strength.
//! - [`settings`]: the catalogue of platform and company settings with their defaults.
//! - [`ports`]: the traits adapters implement.
//! - [`service`]: use cases that combine rules and ports, shared by the server and the CLI.
//! - `typescript` (feature `ts`): the TypeScript declarations of the types the web app shares,
//!   written by `cargo xtask types`.

pub mod automation;
pub mod error;
pub mod events;
pub mod flow;
pub mod flow_ports;
pub mod handoff;
pub mod identity;
pub mod ids;
pub mod inbox;
pub mod integrations;
pub mod jobs;
pub mod limits;
pub mod media;
pub mod policy;
pub mod ports;
pub mod queue;
pub mod quick_message;
pub mod routing;
pub mod schedule;
pub mod service;
pub mod settings;
pub mod tenancy;
pub mod ticket;
#[cfg(test)]
mod typescript;
pub mod validation;

pub use error::{Error, ErrorCode, FieldError, Result};
pub use ids::{
    CompanyId, ContactId, MessageId, PlanId, QueueId, ScheduleId, TagId, TenantScope, TicketId,
    UserId, WhatsappId,
};
