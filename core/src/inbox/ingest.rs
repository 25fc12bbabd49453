//! Inbound ingestion as pure decisions: given what the store found for an inbound message (the
//! connection, the upserted contact, the contact's not-closed ticket on that connection), decide
//! whether to reuse or create a ticket, how the unread count and last message change, which log
//! entries to write and which realtime events to emit.

use serde::{Deserialize, Serialize};

use crate::inbox::channel::InboundMessage;
use crate::inbox::model::{Connection, Contact, Ticket};
use crate::ticket::{TicketLog, TicketStatus};

/// What the store loaded inside the ingest transaction.
#[derive(Debug, Clone, PartialEq)]
pub struct IngestContext {
    pub connection: Connection,
    /// The contact after the upsert.
    pub contact: Contact,
    /// The contact was created by this message.
    pub contact_created: bool,
    /// The contact's ticket on this connection that is not closed, if any.
    pub active_ticket: Option<Ticket>,
}

/// How to find the ticket for the message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum TicketPlan {
    /// Append to the active ticket.
    Reuse,
    /// Create a ticket (the database's unique index on not-closed tickets decides races: the
    /// loser reuses the winner's ticket).
    Create {
        status: TicketStatus,
        is_group: bool,
    },
}

/// Which events to append after the writes (rendered from the rows as committed).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum EventIntent {
    /// `company-{id}-ticket update` with the ticket after the message.
    TicketUpdate,
    /// `company-{id}-appMessage create` with the message and its ticket.
    MessageCreate,
    /// `company-{id}-contact update|create` with the contact.
    ContactUpdate,
}

/// The decision for one inbound message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum IngestPlan {
    /// Drop the message (e.g. a group chat on a connection that does not take groups).
    Ignore,
    /// Store it.
    Store {
        ticket: TicketPlan,
        /// Add this to the ticket's unread count (0 for messages sent from the phone itself).
        unread_increment: i64,
        /// The ticket's new `lastMessage`.
        last_message: String,
        /// Log entries for the ticket (after creation when `ticket` is `Create`).
        logs: Vec<TicketLog>,
        events: Vec<EventIntent>,
    },
}

/// Decides what to do with `message` (see the module documentation).
pub fn decide(ctx: &IngestContext, message: &InboundMessage) -> IngestPlan {
    let _ = (ctx, message);
    todo!("inbox ingest decision")
}
