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
        /// The queue the ticket starts in (the import queue for history; none for live
        /// messages, which the automation routes).
        #[serde(default)]
        queue: Option<crate::ids::QueueId>,
        /// Opened by the import of old messages ([`crate::inbox::history`]).
        #[serde(default)]
        imported: bool,
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
        /// The message comes from the phone's history ([`crate::inbox::history`]): it keeps
        /// the time the channel gave it as its creation time, and its ticket stays marked
        /// imported; a live message unmarks the ticket it joins.
        #[serde(default)]
        history: bool,
    },
}

/// The text a ticket shows as its last message for `message`: the body (or caption), else a
/// placeholder naming the media kind.
pub fn last_message_text(body: &str, media_type: MediaType) -> String {
    // A gap notice's body is its interval, not text to show.
    if !body.trim().is_empty() && media_type != MediaType::Gap {
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
        MediaType::Gap => "⚠️ Mensagens podem estar faltando".into(),
    }
}

/// The message a ticket's preview comes from, as the store loaded it with the ticket.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LastMessageSource {
    pub body: String,
    pub media_type: MediaType,
    pub is_deleted: bool,
    pub from_me: bool,
}

/// What a ticket's list preview shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LastMessagePreview {
    pub text: String,
    pub deleted: bool,
    pub from_me: bool,
    /// The media kind when `text` is only its placeholder (a file without a caption), so a
    /// client can name it in the reader's language; `None` for text and captioned files.
    pub media: Option<MediaType>,
}

/// The preview follows its message: when `source` (the message the ticket's
/// `last_message_id` points at) was deleted, the preview says so and shows no text; when it was
/// edited, its current text shows. Without a source (tickets from before the preview knew its
/// message, or whose message is gone) the stored text `stored` stays.
pub fn last_message_preview(
    stored: &str,
    source: Option<&LastMessageSource>,
) -> LastMessagePreview {
    match source {
        None => LastMessagePreview {
            text: stored.to_owned(),
            deleted: false,
            from_me: false,
            media: None,
        },
        Some(m) if m.is_deleted => LastMessagePreview {
            text: String::new(),
            deleted: true,
            from_me: m.from_me,
            media: None,
        },
        Some(m) => LastMessagePreview {
            text: last_message_text(&m.body, m.media_type),
            deleted: false,
            from_me: m.from_me,
            media: ((m.body.trim().is_empty() || m.media_type == MediaType::Gap)
                && m.media_type != MediaType::Chat)
                .then_some(m.media_type),
        },
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
    let (ticket, logs) = ticket_for(ctx, message, None, false);
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
        history: false,
    }
}

/// The ticket a stored message goes to: the contact's active (not closed) ticket, else a new
/// `pending` one in `queue` (marked `imported` for history) with its `create` log.
pub fn ticket_for(
    ctx: &IngestContext,
    message: &InboundMessage,
    queue: Option<crate::ids::QueueId>,
    imported: bool,
) -> (TicketPlan, Vec<TicketLog>) {
    let reusable = ctx
        .active_ticket
        .as_ref()
        .is_some_and(|t| t.status != TicketStatus::Closed);
    if reusable {
        return (TicketPlan::Reuse, Vec::new());
    }
    (
        TicketPlan::Create {
            status: TicketStatus::Pending,
            is_group: message.is_group,
            queue,
            imported,
        },
        vec![TicketLog {
            kind: TicketLogType::Create,
            user_id: None,
            queue_id: queue,
        }],
    )
}

/// Whether the contact is new or the chat's display name (from the contact's side) differs
/// from the stored name.
pub fn contact_changed(ctx: &IngestContext, message: &InboundMessage) -> bool {
    ctx.contact_created
        || (!message.from_me
            && !message.chat_name.trim().is_empty()
            && message.chat_name != ctx.contact.name)
}
