//! Inbound ingestion as pure decisions: given what the store found for an inbound message (the
//! connection, the upserted contact, the contact's not-closed ticket on that connection), decide
//! whether to reuse or create a ticket, how the unread count and last message change, which log
//! entries to write and which realtime events to emit.

use serde::{Deserialize, Serialize};

use crate::inbox::channel::InboundMessage;
use crate::inbox::model::{Connection, Contact, MediaType, Ticket};
use crate::ticket::{TicketLog, TicketLogType, TicketStatus};

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

/// The text a ticket shows as its last message for `message`: the body (or caption), else a
/// placeholder naming the media kind.
pub fn last_message_text(body: &str, media_type: MediaType) -> String {
    if !body.trim().is_empty() {
        return body.to_owned();
    }
    match media_type {
        MediaType::Chat => String::new(),
        MediaType::Image => "📷 Imagem".into(),
        MediaType::Audio => "🎵 Áudio".into(),
        MediaType::Video => "🎥 Vídeo".into(),
        MediaType::Application => "📄 Documento".into(),
        MediaType::Location => "📍 Localização".into(),
        MediaType::ContactCard => "👤 Contato".into(),
        MediaType::CallLog => "📞 Chamada perdida".into(),
    }
}

/// Decides what to do with `message`.
///
/// - A group chat is dropped unless the connection allows groups.
/// - The contact's active (not closed) ticket is reused; otherwise a new `pending` ticket is
///   created (a group ticket is `pending` with `is_group`, as the ticket invariants require),
///   with a `create` log. A closed ticket is never reused.
/// - A message from the contact adds 1 to the unread count; one sent from the phone adds 0.
/// - Events: the ticket update and the message creation, plus a contact event when the contact
///   was created or its display name changed (the store then writes the new name).
pub fn decide(ctx: &IngestContext, message: &InboundMessage) -> IngestPlan {
    if message.is_group && !ctx.connection.allow_group {
        return IngestPlan::Ignore;
    }
    let reusable = ctx
        .active_ticket
        .as_ref()
        .is_some_and(|t| t.status != TicketStatus::Closed);
    let (ticket, logs) = if reusable {
        (TicketPlan::Reuse, Vec::new())
    } else {
        (
            TicketPlan::Create {
                status: TicketStatus::Pending,
                is_group: message.is_group,
            },
            vec![TicketLog {
                kind: TicketLogType::Create,
                user_id: None,
                queue_id: None,
            }],
        )
    };
    let mut events = vec![EventIntent::TicketUpdate, EventIntent::MessageCreate];
    if contact_changed(ctx, message) {
        events.push(EventIntent::ContactUpdate);
    }
    IngestPlan::Store {
        ticket,
        unread_increment: if message.from_me { 0 } else { 1 },
        last_message: last_message_text(&message.body, message.media_type),
        logs,
        events,
    }
}

/// Whether the contact is new or the chat's display name (from the contact's side) differs
/// from the stored name.
pub fn contact_changed(ctx: &IngestContext, message: &InboundMessage) -> bool {
    ctx.contact_created
        || (!message.from_me
            && !message.chat_name.trim().is_empty()
            && message.chat_name != ctx.contact.name)
}
