//! Repository ports of the inbox. Every method takes the tenant scope; methods that write also
//! append their realtime events to the company's event log **in the same transaction** (the
//! outbox), so a client never sees an event for data that was rolled back.

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use crate::error::Result;
use crate::events::{Event, StoredEvent};
use crate::ids::{
    CompanyId, ContactId, MessageId, QueueId, TagId, TenantScope, TicketId, UserId, WhatsappId,
};
use crate::inbox::channel::InboundMessage;
use crate::inbox::ingest::{IngestContext, IngestPlan};
use crate::inbox::model::{
    Connection, ConnectionInput, Contact, ContactFilter, ContactInput, KeysetPage, Message,
    NewMessage, NewTicket, PageStart, SessionUpdate, Tag, Ticket, TicketFilter, TicketLogEntry,
    TicketNote,
};
use crate::ticket::{TicketLog, TicketState};

/// Connections (`whatsapps`).
#[async_trait]
pub trait ConnectionRepo: Send + Sync {
    async fn list(&self, scope: TenantScope) -> Result<Vec<Connection>>;
    async fn get(&self, scope: TenantScope, id: WhatsappId) -> Result<Option<Connection>>;
    async fn count(&self, scope: TenantScope) -> Result<i64>;
    /// Creates; when `input.is_default`, the company's other connections lose the flag in the
    /// same transaction. Appends `events`.
    async fn create(
        &self,
        scope: TenantScope,
        input: &ConnectionInput,
        token: &str,
        events: &[Event],
    ) -> Result<Connection>;
    /// Updates the editable fields (and the default flag as in `create`).
    async fn update(
        &self,
        scope: TenantScope,
        id: WhatsappId,
        input: &ConnectionInput,
    ) -> Result<Option<Connection>>;
    async fn set_token(&self, scope: TenantScope, id: WhatsappId, token: &str) -> Result<bool>;
    /// Records a session change and appends the `whatsappSession` event: the status, QR code
    /// and retries as given, the number when given, and the pair code, reason and until as
    /// [`crate::inbox::connection_rules::session_details_after`] decides from the row's previous
    /// status and details.
    async fn set_session(
        &self,
        scope: TenantScope,
        id: WhatsappId,
        update: &SessionUpdate,
    ) -> Result<Option<Connection>>;
    async fn delete(&self, scope: TenantScope, id: WhatsappId) -> Result<bool>;
    /// Platform-level: every connection of every company (provider restart at boot).
    async fn list_all_platform(&self) -> Result<Vec<Connection>>;
    /// Makes `id` the company's default connection (the others lose the flag) in one
    /// transaction, appending `whatsapp` update events; `false` when it is not the company's.
    async fn set_default(&self, scope: TenantScope, id: WhatsappId) -> Result<bool>;
}

/// Contacts, their extra fields and tags.
#[async_trait]
pub trait ContactRepo: Send + Sync {
    async fn search(
        &self,
        scope: TenantScope,
        filter: &ContactFilter,
        start: &PageStart,
        page_size: u32,
    ) -> Result<KeysetPage<Contact>>;
    async fn get(&self, scope: TenantScope, id: ContactId) -> Result<Option<Contact>>;
    /// Brief list (name, number) for pickers, at most `limit`, matching `search`.
    async fn list_brief(
        &self,
        scope: TenantScope,
        search: &str,
        limit: u32,
    ) -> Result<Vec<Contact>>;
    /// `ERR_DUPLICATED_CONTACT` when (channel, number) exists in the company.
    async fn create(&self, scope: TenantScope, input: &ContactInput) -> Result<Contact>;
    async fn update(
        &self,
        scope: TenantScope,
        id: ContactId,
        input: &ContactInput,
    ) -> Result<Option<Contact>>;
    async fn delete(&self, scope: TenantScope, id: ContactId) -> Result<bool>;
    async fn set_active(
        &self,
        scope: TenantScope,
        id: ContactId,
        active: bool,
    ) -> Result<Option<Contact>>;
    async fn set_flags(
        &self,
        scope: TenantScope,
        id: ContactId,
        disable_bot: Option<bool>,
        accept_audio: Option<bool>,
    ) -> Result<Option<Contact>>;
    /// Sets the contact's profile picture address (`urlPicture`, `None`: it has none) as just
    /// looked up (the lookup's time is kept, see [`Contact::picture_due`]) and appends its update
    /// event, unless it is already that; answers the contact when it changed.
    async fn set_picture(
        &self,
        scope: TenantScope,
        id: ContactId,
        url: Option<&str>,
        at: DateTime<Utc>,
    ) -> Result<Option<Contact>>;
    /// Replaces the contact's tags.
    async fn set_tags(&self, scope: TenantScope, id: ContactId, tags: &[TagId]) -> Result<bool>;
    /// Inserts, or updates name/e-mail of the contact with the same (channel, number); returns
    /// whether it was created.
    async fn upsert(&self, scope: TenantScope, input: &ContactInput) -> Result<(Contact, bool)>;
    /// The contact with this (channel, number), the number already normalised.
    async fn find_by_number(
        &self,
        scope: TenantScope,
        channel: crate::ports::ChannelKind,
        number: &str,
    ) -> Result<Option<Contact>>;
    /// The contacts of the scope's company on `channel` that one of `identities` names, as its
    /// number or as one of its aliases: each match with the identity that matched.
    async fn find_by_identities(
        &self,
        scope: TenantScope,
        channel: crate::ports::ChannelKind,
        identities: &[&str],
    ) -> Result<Vec<(String, crate::inbox::identities::KnownContact)>>;
    /// Carries out `plan` (its `keep` set) in one transaction: merges the `merge` contacts into
    /// `keep` (their tickets, messages, notes, schedules, tags, extra information and aliases;
    /// a ticket open on a connection where `keep` has one too joins it and is removed), gives
    /// `keep` the plan's number when `renumber`, and makes the plan's aliases `keep`'s. Appends
    /// the contact and ticket events. `false` when `keep` is no longer the company's.
    async fn apply_identities(
        &self,
        scope: TenantScope,
        channel: crate::ports::ChannelKind,
        plan: &crate::inbox::identities::IdentityPlan,
    ) -> Result<bool>;
    /// Makes each alias its contact's (an alias another contact had moves), in one statement
    /// per chunk.
    async fn add_aliases(
        &self,
        scope: TenantScope,
        channel: crate::ports::ChannelKind,
        aliases: &[(ContactId, String)],
    ) -> Result<()>;
    /// The aliases of the company's contact `id`, sorted (none when it is not the company's).
    async fn aliases(&self, scope: TenantScope, id: ContactId) -> Result<Vec<String>>;
}

/// Tags.
/// Contact spreadsheets waiting for their import (`POST /contacts/upload`, then
/// `POST /contactsImport`), per company: at most `keep` per company (a new one drops that
/// company's oldest), each until its expiry, taken once.
#[async_trait]
pub trait StagedUploadRepo: Send + Sync {
    /// Stages `sheet` under `token` for the scope's company until `expires_at`; in the same
    /// transaction drops every expired upload and the company's oldest ones beyond `keep`.
    async fn stage(
        &self,
        scope: TenantScope,
        token: &str,
        sheet: &crate::inbox::import::Sheet,
        now: DateTime<Utc>,
        expires_at: DateTime<Utc>,
        keep: u32,
    ) -> Result<()>;
    /// The company's unexpired upload of `token`, left staged.
    async fn staged(
        &self,
        scope: TenantScope,
        token: &str,
        now: DateTime<Utc>,
    ) -> Result<Option<crate::inbox::import::Sheet>>;
    /// Takes (removes and answers) the company's unexpired upload of `token`; a second take of
    /// the same token answers `None`.
    async fn take(
        &self,
        scope: TenantScope,
        token: &str,
        now: DateTime<Utc>,
    ) -> Result<Option<crate::inbox::import::Sheet>>;
    /// Platform-level housekeeping across companies: deletes every upload expired at `now`;
    /// answers how many.
    async fn prune_expired_across_companies(&self, now: DateTime<Utc>) -> Result<u64>;
}

#[async_trait]
pub trait TagRepo: Send + Sync {
    /// Tags, optionally only kanban ones (`kanban = 1`) or only plain ones.
    async fn list(&self, scope: TenantScope, kanban: Option<bool>) -> Result<Vec<Tag>>;
    async fn create(&self, scope: TenantScope, name: &str, color: &str, kanban: i64)
    -> Result<Tag>;
    async fn update(
        &self,
        scope: TenantScope,
        id: TagId,
        name: &str,
        color: &str,
        kanban: i64,
    ) -> Result<Option<Tag>>;
    async fn delete(&self, scope: TenantScope, id: TagId) -> Result<bool>;
    async fn contact_tags(&self, scope: TenantScope, contact: ContactId) -> Result<Vec<Tag>>;
    async fn set_ticket_tag(
        &self,
        scope: TenantScope,
        ticket: TicketId,
        tag: TagId,
    ) -> Result<bool>;
    async fn clear_ticket_tags(&self, scope: TenantScope, ticket: TicketId) -> Result<bool>;
}

/// The stored part of a ticket a transition reads: its state plus identity.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TicketRow {
    pub id: TicketId,
    pub state: TicketState,
    pub contact_id: ContactId,
    pub whatsapp_id: Option<WhatsappId>,
    pub updated_at: DateTime<Utc>,
}

/// The bot's memory on a ticket (routing and flows before a human).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct BotMemory {
    /// The routing bot's state as JSON (`core::routing::BotState`); empty when never stored.
    pub bot_state: String,
    /// When the bot last sent a menu on the ticket.
    pub last_bot_message_at: Option<DateTime<Utc>>,
    /// `isBot`: the bot is waiting for the contact's choice.
    pub is_bot: bool,
    /// `useIntegration`: a flow or an integration holds the conversation.
    pub use_integration: bool,
    /// The integration holding the conversation as JSON
    /// (`core::integrations::IntegrationSession`); empty when none.
    pub integration: String,
}

/// Tickets, their logs and notes.
#[async_trait]
pub trait TicketRepo: Send + Sync {
    async fn list(
        &self,
        scope: TenantScope,
        filter: &TicketFilter,
        start: &PageStart,
        page_size: u32,
    ) -> Result<KeysetPage<Ticket>>;
    async fn get(&self, scope: TenantScope, id: TicketId) -> Result<Option<Ticket>>;
    async fn get_by_uuid(&self, scope: TenantScope, uuid: uuid::Uuid) -> Result<Option<Ticket>>;
    async fn row(&self, scope: TenantScope, id: TicketId) -> Result<Option<TicketRow>>;
    /// The contact's ticket that is not closed on that connection, if any.
    async fn active_for_contact(
        &self,
        scope: TenantScope,
        contact: ContactId,
        whatsapp: Option<WhatsappId>,
    ) -> Result<Option<Ticket>>;
    /// Creates a ticket. The database allows one not-closed ticket per (contact, connection):
    /// `Err(ERR_OTHER_OPEN_TICKET)` when one exists. Writes the `create` log and appends events.
    async fn create(
        &self,
        scope: TenantScope,
        ticket: &NewTicket,
        uuid: uuid::Uuid,
    ) -> Result<Ticket>;
    /// Stores a transition's state, its logs and its events, only if the ticket still has the
    /// `expected` state (optimistic check): `Ok(None)` when someone changed it meanwhile.
    async fn save_transition(
        &self,
        scope: TenantScope,
        id: TicketId,
        expected: &TicketState,
        new: &TicketState,
        logs: &[TicketLog],
        actor: Option<UserId>,
    ) -> Result<Option<Ticket>>;
    /// Sets unread to 0 (the attendant opened the ticket), marks its messages read and appends
    /// `updateUnread`. Answers the contact's messages it marked read (channel id, and in a
    /// group the writer), newest first (at most 100: what the phone is told was read); `None`
    /// when there is no such ticket.
    async fn reset_unread(
        &self,
        scope: TenantScope,
        id: TicketId,
    ) -> Result<Option<Vec<crate::inbox::channel::ReadMessage>>>;
    async fn set_use_integration(
        &self,
        scope: TenantScope,
        id: TicketId,
        on: bool,
    ) -> Result<Option<Ticket>>;
    async fn delete(&self, scope: TenantScope, id: TicketId) -> Result<bool>;
    /// Closes every ticket matching, with a `closed` log each; returns how many.
    async fn close_all(
        &self,
        scope: TenantScope,
        filter: &TicketFilter,
        actor: UserId,
    ) -> Result<u64>;
    async fn add_log(&self, scope: TenantScope, id: TicketId, log: &TicketLog) -> Result<()>;
    async fn logs(&self, scope: TenantScope, id: TicketId) -> Result<Vec<TicketLogEntry>>;
    async fn notes(
        &self,
        scope: TenantScope,
        ticket: Option<TicketId>,
        contact: Option<ContactId>,
    ) -> Result<Vec<TicketNote>>;
    async fn add_note(
        &self,
        scope: TenantScope,
        ticket: TicketId,
        user: UserId,
        note: &str,
    ) -> Result<Option<TicketNote>>;
    async fn delete_note(&self, scope: TenantScope, id: i64) -> Result<bool>;
    /// The bot's memory on the ticket; `None` when the ticket is not the company's.
    async fn bot_memory(&self, scope: TenantScope, id: TicketId) -> Result<Option<BotMemory>>;
    /// The bot's memory on each of `ids` that is the company's, in one read (an inbound
    /// batch's tickets); tickets that are not the company's are left out.
    async fn bot_memories(
        &self,
        scope: TenantScope,
        ids: &[TicketId],
    ) -> Result<Vec<(TicketId, BotMemory)>>;
    /// Stores the bot's memory (and `amountUsedBotQueues` is left alone); appends a ticket
    /// `update` event when `is_bot` or `use_integration` changed (the inbox shows them). False
    /// when the ticket is not the company's.
    async fn set_bot_memory(
        &self,
        scope: TenantScope,
        id: TicketId,
        memory: &BotMemory,
    ) -> Result<bool>;
    /// What routing needs to know about a queue for `ticket`: `waiting` = pending tickets of
    /// the queue without a user created before `ticket` (lower id); `attendants` = the queue's
    /// users (`user_queues`) with `online` and their count of `open` tickets; `last_assigned` =
    /// the user of the newest `open` ticket log in that queue. Scoped to the company.
    async fn queue_snapshot(
        &self,
        scope: TenantScope,
        queue: QueueId,
        ticket: TicketId,
    ) -> Result<crate::routing::QueueSnapshot>;
}

/// What ingestion did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IngestOutcome {
    /// The (connection, external id) was already stored: nothing changed.
    Duplicate,
    /// The plan said to drop it (e.g. a group on a connection that does not allow groups).
    Ignored,
    Stored {
        ticket: TicketId,
        message: MessageId,
        ticket_created: bool,
        /// The message created the contact (a contact new to the company).
        contact_created: bool,
    },
}

/// One message of an [`MessageRepo::ingest_batch`]: the message and where its attachment was
/// stored (by the media port, before the transaction).
#[derive(Debug, Clone, Copy)]
pub struct Inbound<'a> {
    pub message: &'a InboundMessage,
    pub media_path: Option<&'a str>,
}

/// What [`MessageRepo::ingest_batch`] committed.
#[derive(Debug)]
pub struct IngestBatch {
    /// The outcome of each message committed, in order (a prefix of the batch).
    pub outcomes: Vec<Stored>,
    /// The error of the message after them, when one failed (the rest were not tried).
    pub failed: Option<crate::error::Error>,
}

/// An [`IngestOutcome`] with, for a stored message, the ticket and contact as the transaction
/// left them (so what runs next need not read them again).
#[derive(Debug)]
pub struct Stored {
    pub outcome: IngestOutcome,
    pub ticket: Option<Box<Ticket>>,
    pub contact: Option<Box<Contact>>,
}

impl Stored {
    /// An outcome that stored nothing (a duplicate, an ignored message).
    pub fn nothing(outcome: IngestOutcome) -> Self {
        Self {
            outcome,
            ticket: None,
            contact: None,
        }
    }
}

/// Messages.
#[async_trait]
pub trait MessageRepo: Send + Sync {
    /// A ticket's messages, newest page first (`start` walks to older pages); items are returned
    /// oldest first within the page.
    async fn list(
        &self,
        scope: TenantScope,
        ticket: TicketId,
        start: &PageStart,
        page_size: u32,
    ) -> Result<KeysetPage<Message>>;
    async fn get(&self, scope: TenantScope, id: MessageId) -> Result<Option<Message>>;
    /// The media store's name of the message's attachment, if it has one.
    async fn media_path(&self, scope: TenantScope, id: MessageId) -> Result<Option<String>>;
    /// Stores an outbound message or note; updates the ticket's last message and appends the
    /// `appMessage create` and ticket `update` events.
    async fn create(&self, scope: TenantScope, message: &NewMessage) -> Result<Message>;
    /// Stores several outbound messages in one transaction, in order, as
    /// [`MessageRepo::create`] stores each: an `appMessage create` event per message and one
    /// ticket `update` per ticket. All or nothing.
    async fn create_many(
        &self,
        scope: TenantScope,
        messages: &[NewMessage],
    ) -> Result<Vec<Message>>;
    /// Records the channel's ids of several sent messages in one transaction, as
    /// [`MessageRepo::set_sent`] does each; answers the messages it changed.
    async fn set_sent_many(
        &self,
        scope: TenantScope,
        sent: &[(MessageId, String)],
    ) -> Result<Vec<Message>>;
    /// Records the channel's id once sent (and ack 1).
    async fn set_sent(
        &self,
        scope: TenantScope,
        id: MessageId,
        external_id: &str,
    ) -> Result<Option<Message>>;
    async fn edit(&self, scope: TenantScope, id: MessageId, body: &str) -> Result<Option<Message>>;
    async fn mark_deleted(&self, scope: TenantScope, id: MessageId) -> Result<Option<Message>>;
    /// The attachment of the company's message `id` that could not be downloaded (its locator
    /// still sealed), if it is still missing.
    async fn failed_media(
        &self,
        scope: TenantScope,
        id: MessageId,
    ) -> Result<Option<crate::inbox::channel::FailedMedia>>;
    /// The missing attachment of message `id` was had after all: stored under `media_path`; the
    /// error and what a retry needed are cleared; appends the message's update event.
    async fn media_recovered(
        &self,
        scope: TenantScope,
        id: MessageId,
        media_path: &str,
    ) -> Result<Option<Message>>;
    /// Sets our side's reaction (empty removes).
    async fn react(
        &self,
        scope: TenantScope,
        id: MessageId,
        emoji: &str,
        from_me: bool,
    ) -> Result<Option<Message>>;
    /// Count of messages in a date range, optionally only own ones (`GET /messages-allMe`).
    async fn count(
        &self,
        scope: TenantScope,
        from_me: Option<bool>,
        from: Option<DateTime<Utc>>,
        to: Option<DateTime<Utc>>,
    ) -> Result<i64>;

    // ------------------------------------------------------------- inbound side
    /// Ingests inbound messages of one connection exactly once, in order, in **one**
    /// transaction (group commit: one disk flush for the batch). For each message: upserts the
    /// contact, loads the [`IngestContext`], calls `decide` (the core's pure decision), applies
    /// the plan (reuse or create the ticket — the unique index on not-closed tickets serialises
    /// races —, insert the message with `ON CONFLICT (whatsapp_id, external_id) DO NOTHING`,
    /// bump unread and last message, write logs) and appends the plan's events, rendered from
    /// the rows as written. Each message of a batch runs in its own savepoint: a duplicate or an
    /// ignored message undoes only its own writes. The batch stops at the first message that
    /// fails: what came before it is committed and returned in [`IngestBatch::outcomes`], its
    /// error in [`IngestBatch::failed`], and nothing after it was tried. An `Err` means nothing
    /// was committed. The caller loads `connection` beforehand (its settings need no
    /// transaction).
    async fn ingest_batch(
        &self,
        scope: TenantScope,
        connection: &Connection,
        messages: &[Inbound<'_>],
        decide: &(
             dyn for<'c, 'm> Fn(&'c IngestContext, &'m InboundMessage) -> IngestPlan + Send + Sync
         ),
    ) -> Result<IngestBatch>;
    /// Applies a receipt to the message with that external id (ack only moves forward).
    async fn apply_ack(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        external_id: &str,
        ack: i64,
    ) -> Result<Option<Message>>;
    /// Applies receipts of one connection in one transaction, in order (acks only move
    /// forward; unknown external ids are skipped); answers how many messages moved, each
    /// announced once with its latest ack.
    async fn apply_acks(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        acks: &[(String, i64)],
    ) -> Result<usize>;
    async fn apply_edit(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        external_id: &str,
        body: &str,
    ) -> Result<Option<Message>>;
    async fn apply_delete(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        external_id: &str,
    ) -> Result<Option<Message>>;
    async fn apply_reaction(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        external_id: &str,
        emoji: &str,
    ) -> Result<Option<Message>>;
}

/// What a reconnecting client gets for "everything since sequence N".
#[derive(Debug, Clone, PartialEq)]
pub enum Missed {
    /// The events after N, in order.
    Events(Vec<StoredEvent>),
    /// N is older than what the log keeps: the client must reload its lists.
    RefreshRequired,
}

/// The per-company event log: the outbox the dispatcher emits from and the replay source for
/// reconnecting clients. Sequence numbers are per company, gap-free and assigned in commit
/// order (the company's head, `event_heads.seq`, is bumped in the writing transaction).
#[async_trait]
pub trait EventLog: Send + Sync {
    /// Appends events that describe no stored data, in their own transaction (tools and tests;
    /// every write appends its own events in its transaction instead, through its repository),
    /// and returns the company's new head (the current one for no events).
    async fn append(&self, scope: TenantScope, events: &[Event]) -> Result<i64>;
    /// Platform-level: each company's latest sequence number (the dispatcher polls this).
    async fn heads(&self) -> Result<Vec<(CompanyId, i64)>>;
    /// Events of the company with sequence > `after`, at most `limit`, in order.
    async fn read(&self, scope: TenantScope, after: i64, limit: u32) -> Result<Vec<StoredEvent>>;
    /// Replay for a reconnecting client (see [`Missed`]).
    async fn missed(&self, scope: TenantScope, after: i64, limit: u32) -> Result<Missed>;
    /// Drops events older than `before`, keeping at least the newest `keep` per company.
    async fn prune(&self, before: DateTime<Utc>, keep: u32) -> Result<u64>;
}

/// The queue of each connection's import of old messages ([`crate::inbox::history`]): the
/// history as it arrived, durably, until a job has written it as messages.
#[async_trait]
pub trait HistoryImportRepo: Send + Sync {
    /// In one transaction: queues `messages` (one queued before under its external id is
    /// skipped), records that a part of the history arrived `at` (the phone's `progress` kept
    /// at its highest), sets the connection's `statusImportMessages` to `status`, makes sure an
    /// [`crate::jobs::JobPayload::ImportHistory`] job is due by `at` (none is added while one
    /// waits unclaimed). Answers the import's state after.
    async fn queue(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        messages: &[InboundMessage],
        at: DateTime<Utc>,
        progress: Option<u32>,
        status: &str,
    ) -> Result<crate::inbox::history::ImportState>;
    /// The import's state, `None` when the connection has none under way.
    async fn state(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
    ) -> Result<Option<crate::inbox::history::ImportState>>;
    /// Up to `limit` queued messages not written yet, oldest first (by their time), with
    /// their queue ids.
    async fn unwritten(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        limit: u32,
    ) -> Result<Vec<(i64, InboundMessage)>>;
    /// Marks queued messages written and sets `statusImportMessages` to `status`, in one
    /// transaction; answers the import's state after.
    async fn written(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        ids: &[i64],
        status: &str,
    ) -> Result<Option<crate::inbox::history::ImportState>>;
    /// Makes sure an import job of the connection is due by `at`: adds one unless one waits
    /// unclaimed already.
    async fn wake(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        at: DateTime<Utc>,
    ) -> Result<()>;
    /// Ends the import, in one transaction, unless messages arrived that are not written yet
    /// (then `None`: the import goes on): drops its queue and state, closes its imported
    /// tickets still pending when `close` (without messages to the contacts), sets
    /// `statusImportMessages` to `status`, and appends `events` with the connection's update.
    /// Answers how many tickets it closed.
    async fn finish(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        close: bool,
        status: Option<&str>,
        events: &[Event],
    ) -> Result<Option<u64>>;
    /// Closes the connection's imported tickets still pending (`POST /closedimported/{id}`),
    /// clears `statusImportMessages` unless an import is under way, and appends `events` with
    /// the connection's update; answers how many it closed, `None` when the connection is not
    /// the company's.
    async fn close_imported(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        events: &[Event],
    ) -> Result<Option<u64>>;
}
