//! The inbox's entities as the web app and the API see them (camelCase on the wire, spec 1 §3
//! and spec 2 §4), and the inputs that create or change them.

use chrono::{DateTime, NaiveDate, Utc};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::ids::{CompanyId, ContactId, MessageId, QueueId, TagId, TicketId, UserId, WhatsappId};
use crate::ports::{ChannelKind, QueueSummary};
use crate::ticket::{TicketLogType, TicketStatus};

// ------------------------------------------------------------------ connections

/// A connection's session status (spec 2 §4), spelled as on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum ConnectionStatus {
    /// A QR code is waiting to be scanned.
    #[serde(rename = "qrcode")]
    Qrcode,
    /// The phone is pairing.
    #[serde(rename = "PAIRING")]
    Pairing,
    /// No session.
    #[serde(rename = "DISCONNECTED")]
    #[default]
    Disconnected,
    /// The QR code expired unscanned too many times.
    #[serde(rename = "TIMEOUT")]
    Timeout,
    /// The session is starting.
    #[serde(rename = "OPENING")]
    Opening,
    /// Connected and working.
    #[serde(rename = "CONNECTED")]
    Connected,
}

impl ConnectionStatus {
    /// The wire name.
    pub const fn as_str(self) -> &'static str {
        match self {
            ConnectionStatus::Qrcode => "qrcode",
            ConnectionStatus::Pairing => "PAIRING",
            ConnectionStatus::Disconnected => "DISCONNECTED",
            ConnectionStatus::Timeout => "TIMEOUT",
            ConnectionStatus::Opening => "OPENING",
            ConnectionStatus::Connected => "CONNECTED",
        }
    }

    /// Parses the wire name.
    pub fn parse(value: &str) -> Option<Self> {
        [
            Self::Qrcode,
            Self::Pairing,
            Self::Disconnected,
            Self::Timeout,
            Self::Opening,
            Self::Connected,
        ]
        .into_iter()
        .find(|s| s.as_str() == value)
    }

    /// The side menu shows a badge on /connections while any connection is in one of these.
    pub const fn needs_attention(self) -> bool {
        !matches!(self, ConnectionStatus::Connected)
    }
}

/// Which implementation drives a connection. `sandbox` is the built-in simulated phone
/// network; the real providers come later behind the same port.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum ProviderKind {
    /// The simulated phone network (no external account).
    Sandbox,
    /// WhatsApp Web protocol (the specification's `beta`).
    Beta,
    /// Meta's WhatsApp Cloud API.
    Cloud,
    /// Facebook Messenger.
    Facebook,
    /// Instagram Direct.
    Instagram,
}

/// A connection (channel account), `whatsapp` on the wire.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Connection {
    pub id: WhatsappId,
    pub company_id: CompanyId,
    pub name: String,
    /// The account's number once connected.
    pub number: String,
    pub channel: ChannelKind,
    pub provider: ProviderKind,
    pub status: ConnectionStatus,
    /// The QR code to scan, as a `data:image/png;base64,...` URL, while `status` is `qrcode`.
    pub qrcode: String,
    pub retries: i64,
    pub is_default: bool,
    /// Random 30 alphanumerics (message API); regenerable.
    pub token: String,
    pub greeting_message: String,
    pub complation_message: String,
    pub out_of_hours_message: String,
    pub rating_message: String,
    pub allow_group: bool,
    /// `groupAsTicket`: group chats become tickets attended like one-to-one ones.
    pub group_as_ticket: bool,
    pub max_use_bot_queues: i64,
    pub time_use_bot_queues: i64,
    pub time_send_queue: i64,
    pub send_id_queue: Option<QueueId>,
    pub expires_ticket: i64,
    pub expires_inactive_message: String,
    pub time_create_new_ticket: i64,
    pub queue_ids: Vec<QueueId>,
    pub queues: Vec<QueueSummary>,
    pub updated_at: DateTime<Utc>,
    /// `maxUseBotQueuesNPS`: rating prompts before giving up (default 3).
    #[serde(default, rename = "maxUseBotQueuesNPS")]
    pub max_use_bot_queues_nps: i64,
    /// `expiresTicketNPS`: minutes a rating waits before the ticket closes; required (not 0)
    /// when ratings are on.
    #[serde(default, rename = "expiresTicketNPS")]
    pub expires_ticket_nps: i64,
    /// The flow started on a new conversation's first message (`flowIdWelcome`), if any.
    #[serde(default)]
    pub flow_id_welcome: Option<crate::flow_ports::FlowId>,
    /// The flow started when a message matches no phrase campaign (`flowIdNotPhrase`), if any.
    #[serde(default)]
    pub flow_id_not_phrase: Option<crate::flow_ports::FlowId>,
    /// First day of the collective vacation (both ends or neither).
    #[serde(default)]
    pub collective_vacation_start: Option<NaiveDate>,
    /// Last day of the collective vacation, included.
    #[serde(default)]
    pub collective_vacation_end: Option<NaiveDate>,
    /// Sent to contacts during the collective vacation.
    #[serde(default)]
    pub collective_vacation_message: String,
    /// The connection's working hours (read when `scheduleType` is `connection`); empty when
    /// never set.
    #[serde(default)]
    pub schedules: Vec<crate::queue::ScheduleRow>,
    /// `timeInactiveMessage`: minutes (stored and shown).
    #[serde(default)]
    pub time_inactive_message: i64,
    /// `inactiveMessage` (stored and shown).
    #[serde(default)]
    pub inactive_message: String,
    /// `whenExpiresTicket` (stored and shown).
    #[serde(default)]
    pub when_expires_ticket: i64,
    /// The code to type on the phone while linking by phone number (status `PAIRING`), eight
    /// characters shown as `XXXX-XXXX`. A short-lived secret: only those who manage connections
    /// see it (see [`crate::inbox::connection_rules::connection_for`]); `null` otherwise.
    #[serde(default)]
    pub pairing_code: Option<String>,
    /// Why the session is in its state when the status alone does not say (logged out from the
    /// phone, banned, replaced, reconnecting...), or `null`.
    #[serde(default)]
    pub session_reason: Option<SessionReason>,
    /// When what `sessionReason` names ends (a temporary ban), or `null`.
    #[serde(default)]
    pub session_until: Option<DateTime<Utc>>,
    /// `enableImportMessage`: the phone's history is imported at the next linking.
    #[serde(default)]
    pub enable_import_message: bool,
    /// `importOldMessages`: imported history starts at this moment (at most two years back).
    #[serde(default)]
    pub import_old_messages: Option<DateTime<Utc>>,
    /// `importRecentMessages`: imported history ends at this moment.
    #[serde(default)]
    pub import_recent_messages: Option<DateTime<Utc>>,
    /// `importOldMessagesGroups`: group chats are imported too (on a connection that takes
    /// groups).
    #[serde(default)]
    pub import_old_messages_groups: bool,
    /// `closedTicketsPostImported`: the imported tickets are closed when the import ends.
    #[serde(default)]
    pub closed_tickets_post_imported: bool,
    /// `queueIdImportMessages`: the queue imported tickets go to.
    #[serde(default)]
    pub queue_id_import_messages: Option<QueueId>,
    /// `statusImportMessages`: `null` (no import), the time the last part of the history
    /// arrived (RFC 3339: receiving), `Running` (writing), or `renderButtonCloseTickets`
    /// (finished; the imported tickets wait to be closed). See [`crate::inbox::history`].
    #[serde(default)]
    pub status_import_messages: Option<String>,
    /// When the connection went down (or went deaf), while it is not back: the outage that may
    /// leave a gap ([`crate::inbox::gaps`]); `null` while connected.
    #[serde(default)]
    pub down_since: Option<DateTime<Utc>>,
    /// The connection's last gap that an admin has not dismissed: messages may be missing
    /// between its `from` and `to` ([`crate::inbox::gaps`]).
    #[serde(default)]
    pub last_gap: Option<crate::inbox::gaps::ConnectionGap>,
}

/// The editable fields of a connection (create and update).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", default)]
pub struct ConnectionInput {
    pub name: String,
    pub channel: Option<ChannelKind>,
    pub provider: Option<ProviderKind>,
    pub is_default: bool,
    pub greeting_message: String,
    pub complation_message: String,
    pub out_of_hours_message: String,
    pub rating_message: String,
    pub allow_group: bool,
    pub group_as_ticket: bool,
    pub max_use_bot_queues: i64,
    pub time_use_bot_queues: i64,
    pub time_send_queue: i64,
    pub send_id_queue: Option<QueueId>,
    pub expires_ticket: i64,
    pub expires_inactive_message: String,
    pub time_create_new_ticket: i64,
    pub queue_ids: Vec<QueueId>,
    /// `maxUseBotQueuesNPS` (default 3).
    #[serde(rename = "maxUseBotQueuesNPS")]
    pub max_use_bot_queues_nps: i64,
    /// `expiresTicketNPS`: required (not 0) when ratings are on.
    #[serde(rename = "expiresTicketNPS")]
    pub expires_ticket_nps: i64,
    /// `flowIdWelcome`: one of the company's flows, or none.
    #[serde(default)]
    pub flow_id_welcome: Option<crate::flow_ports::FlowId>,
    /// `flowIdNotPhrase`: one of the company's flows, or none.
    #[serde(default)]
    pub flow_id_not_phrase: Option<crate::flow_ports::FlowId>,
    /// `collectiveVacationStart`: with the end, or neither.
    #[serde(default)]
    pub collective_vacation_start: Option<NaiveDate>,
    /// `collectiveVacationEnd`: on or after the start.
    #[serde(default)]
    pub collective_vacation_end: Option<NaiveDate>,
    #[serde(default)]
    pub collective_vacation_message: String,
    /// Empty, or the seven weekdays' hours (checked by [`crate::queue::validate_schedules`]).
    #[serde(default)]
    pub schedules: Vec<crate::queue::ScheduleRow>,
    #[serde(default)]
    pub time_inactive_message: i64,
    #[serde(default)]
    pub inactive_message: String,
    #[serde(default)]
    pub when_expires_ticket: i64,
    /// `enableImportMessage`: import the phone's history at the next linking.
    #[serde(default)]
    pub enable_import_message: bool,
    /// `importOldMessages`: required when the import is on; at most two years back, not in the
    /// future.
    #[serde(default)]
    pub import_old_messages: Option<DateTime<Utc>>,
    /// `importRecentMessages`: required when the import is on; not before
    /// `importOldMessages`, not in the future.
    #[serde(default)]
    pub import_recent_messages: Option<DateTime<Utc>>,
    #[serde(default)]
    pub import_old_messages_groups: bool,
    #[serde(default)]
    pub closed_tickets_post_imported: bool,
    /// `queueIdImportMessages`: required when the import is on.
    #[serde(default)]
    pub queue_id_import_messages: Option<QueueId>,
}

impl Default for ConnectionInput {
    fn default() -> Self {
        Self {
            name: String::new(),
            channel: None,
            provider: None,
            is_default: false,
            greeting_message: String::new(),
            complation_message: String::new(),
            out_of_hours_message: String::new(),
            rating_message: String::new(),
            allow_group: false,
            group_as_ticket: false,
            max_use_bot_queues: 3,
            time_use_bot_queues: 0,
            time_send_queue: 0,
            send_id_queue: None,
            expires_ticket: 0,
            expires_inactive_message: String::new(),
            time_create_new_ticket: 0,
            queue_ids: Vec::new(),
            max_use_bot_queues_nps: 3,
            expires_ticket_nps: 0,
            flow_id_welcome: None,
            flow_id_not_phrase: None,
            collective_vacation_start: None,
            collective_vacation_end: None,
            collective_vacation_message: String::new(),
            schedules: Vec::new(),
            time_inactive_message: 0,
            inactive_message: String::new(),
            when_expires_ticket: 0,
            enable_import_message: false,
            import_old_messages: None,
            import_recent_messages: None,
            import_old_messages_groups: false,
            closed_tickets_post_imported: false,
            queue_id_import_messages: None,
        }
    }
}

/// A session change reported by a provider.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionUpdate {
    pub status: ConnectionStatus,
    /// The QR data URL (empty unless `status` is `qrcode`).
    pub qrcode: String,
    pub retries: i64,
    /// The account's number, once known.
    pub number: Option<String>,
    /// The code to type on the phone when linking by phone number (status `PAIRING`).
    #[serde(default)]
    pub pairing_code: Option<String>,
    /// Why the session is in this state, when the status alone does not say (a logout from the
    /// phone, a ban, a reconnection...).
    #[serde(default)]
    pub reason: Option<SessionReason>,
    /// When what `reason` names ends (a temporary ban).
    #[serde(default)]
    pub until: Option<DateTime<Utc>>,
}

/// Why a session stopped or is waiting, shown on the connection with what to do.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum SessionReason {
    /// The phone removed this linked device (or the session was logged out): pair again.
    LoggedOut,
    /// Another client took the session over (the number was linked elsewhere with these keys).
    Replaced,
    /// WhatsApp banned the number for a while (`code` as WhatsApp gives it; see `until`).
    TemporaryBan { code: i64 },
    /// WhatsApp refuses this client version.
    Outdated,
    /// Every QR code expired unscanned.
    QrExhausted,
    /// A pair code was refused; `throttled` when WhatsApp asks to wait before the next one.
    PairCodeError { throttled: bool, message: String },
    /// The phone asks for a passkey or a confirmation to finish linking.
    PasskeyRequired,
    /// The session looked connected but received nothing; it was restarted.
    Deaf,
    /// Another server process took the connection over.
    LeaseLost,
    /// The connection dropped and is being re-established.
    Reconnecting,
    /// The connection failed for another reason (WhatsApp's message).
    Failed { message: String },
}

// --------------------------------------------------------------------- contacts

/// A tag, `{id, name, color, kanban}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Tag {
    pub id: TagId,
    pub name: String,
    pub color: String,
    /// 1 when the tag is a kanban lane.
    pub kanban: i64,
}

/// A contact's extra field `{id, name, value}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct ExtraInfo {
    #[serde(default)]
    pub id: Option<i64>,
    pub name: String,
    pub value: String,
}

/// A contact (spec 1 §3). `number` is masked for plain users under LGPD (see
/// [`crate::inbox::lgpd`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Contact {
    pub id: ContactId,
    pub company_id: CompanyId,
    pub name: String,
    pub number: String,
    pub email: String,
    /// False when blocked.
    pub active: bool,
    pub disable_bot: bool,
    pub accept_audio_message: bool,
    pub url_picture: Option<String>,
    /// When the picture was last looked up on the channel (never sent to the browser).
    #[serde(skip)]
    pub picture_at: Option<DateTime<Utc>>,
    pub channel: ChannelKind,
    pub is_group: bool,
    pub lgpd_accepted_at: Option<DateTime<Utc>>,
    pub whatsapp_id: Option<WhatsappId>,
    /// The connection's name, for the contacts table.
    pub whatsapp_name: Option<String>,
    pub extra_info: Vec<ExtraInfo>,
    pub tags: Vec<Tag>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

/// How long a contact's looked-up profile picture is trusted: a channel's picture addresses
/// expire (WhatsApp's after some days), so a new ticket looks it up again once this has passed.
pub const PICTURE_REFRESH_HOURS: i64 = 24;

impl Contact {
    /// Whether a new ticket of this contact should look its picture up: never looked up (and
    /// none known), or looked up more than [`PICTURE_REFRESH_HOURS`] ago.
    pub fn picture_due(&self, now: DateTime<Utc>) -> bool {
        match self.picture_at {
            None => true,
            Some(at) => now - at >= chrono::TimeDelta::hours(PICTURE_REFRESH_HOURS),
        }
    }
}

/// The fields of a contact form (create and update).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct ContactInput {
    pub name: String,
    pub number: String,
    #[serde(default)]
    pub email: String,
    #[serde(default)]
    pub channel: Option<ChannelKind>,
    #[serde(default)]
    pub is_group: bool,
    #[serde(default)]
    pub whatsapp_id: Option<WhatsappId>,
    #[serde(default)]
    pub disable_bot: Option<bool>,
    #[serde(default)]
    pub accept_audio_message: Option<bool>,
    #[serde(default)]
    pub extra_info: Vec<ExtraInfo>,
}

/// Filters of `GET /contacts`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ContactFilter {
    /// Matches name, number or e-mail (accent- and case-insensitive).
    pub search: String,
    pub channel: Option<ChannelKind>,
    pub is_group: Option<bool>,
    /// Contacts having any of these tags.
    pub tag_ids: Vec<TagId>,
}

// ---------------------------------------------------------------------- tickets

/// The contact as a ticket shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct TicketContact {
    pub id: ContactId,
    pub name: String,
    pub number: String,
    pub url_picture: Option<String>,
    pub channel: ChannelKind,
    pub is_group: bool,
    pub active: bool,
    pub tags: Vec<Tag>,
}

/// A user as a ticket shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct TicketUser {
    pub id: UserId,
    pub name: String,
}

/// A connection as a ticket shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct TicketConnection {
    pub id: WhatsappId,
    pub name: String,
    pub channel: ChannelKind,
    pub group_as_ticket: bool,
}

/// A ticket with what the inbox and the ticket view show (spec 1 §3).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Ticket {
    pub id: TicketId,
    pub uuid: Uuid,
    pub company_id: CompanyId,
    pub status: TicketStatus,
    pub unread_messages: i64,
    /// The list preview: the last message's text (or a media placeholder), empty when that
    /// message was deleted (see [`crate::inbox::ingest::last_message_preview`]).
    pub last_message: String,
    /// The message the preview comes from (never a private note); `None` before any message.
    /// The three preview fields default when absent, so tickets stored in the event log before
    /// they existed still read.
    #[serde(default)]
    pub last_message_id: Option<MessageId>,
    /// The preview's message was deleted (by the attendant's side or by the contact).
    #[serde(default)]
    pub last_message_deleted: bool,
    /// The preview's message was sent from the connection's side.
    #[serde(default)]
    pub last_message_from_me: bool,
    /// The media kind when the preview is only a file's placeholder (`lastMessage` then holds
    /// the Portuguese placeholder, e.g. "📷 Imagem", which clients may show in their language).
    #[serde(default)]
    pub last_message_media: Option<MediaType>,
    pub is_group: bool,
    pub is_bot: bool,
    pub channel: ChannelKind,
    pub user_id: Option<UserId>,
    pub queue_id: Option<QueueId>,
    pub whatsapp_id: Option<WhatsappId>,
    pub contact_id: ContactId,
    pub amount_used_bot_queues: i64,
    pub use_integration: bool,
    #[serde(rename = "isTransfered")]
    pub is_transferred: bool,
    pub contact: TicketContact,
    pub queue: Option<QueueSummary>,
    pub user: Option<TicketUser>,
    pub whatsapp: Option<TicketConnection>,
    pub tags: Vec<Tag>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

/// The inbox tab / status filter of `GET /tickets`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum TicketTab {
    Open,
    Pending,
    Group,
    Closed,
    /// The search tab: every status.
    Search,
}

/// Sort order of the open and pending tabs (by `updatedAt`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SortOrder {
    Asc,
    #[default]
    Desc,
}

/// What a caller asks of `GET /tickets`, before the policy narrows it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TicketQuery {
    pub search: String,
    /// Search message bodies too.
    pub search_on_messages: bool,
    /// `status`: one tab; `None` lists every status.
    pub statuses: Vec<TicketStatus>,
    pub show_all: bool,
    pub queue_ids: Vec<QueueId>,
    pub tag_ids: Vec<TagId>,
    pub user_ids: Vec<UserId>,
    pub whatsapp_ids: Vec<WhatsappId>,
    pub with_unread_messages: bool,
    pub sort: SortOrder,
    /// Only tickets updated on this date (UTC), from the `date`/`updatedAt` parameters.
    pub updated_on: Option<NaiveDate>,
}

/// The filter the store runs: the query after the policy applied the caller's visibility.
/// Built only by [`crate::inbox::visibility::ticket_filter`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TicketFilter {
    pub search: String,
    pub search_on_messages: bool,
    /// Empty means every status.
    pub statuses: Vec<TicketStatus>,
    /// Every queue (no queue restriction); `queue_ids` and `include_no_queue` are then unused.
    pub all_queues: bool,
    /// Tickets of these queues (when `all_queues` is false).
    pub queue_ids: Vec<QueueId>,
    /// Also tickets without a queue (allTicket enabled).
    pub include_no_queue: bool,
    /// Tickets owned by this user pass the queue and group restrictions (one always sees one's
    /// own tickets).
    pub own_user: Option<UserId>,
    /// Restrict to these owners; tickets without owner pass when `include_unassigned`. Empty
    /// means no owner restriction.
    pub user_ids: Vec<UserId>,
    pub include_unassigned: bool,
    /// Only group tickets (`Some(true)`), only one-to-one (`Some(false)`), or both.
    pub is_group: Option<bool>,
    pub tag_ids: Vec<TagId>,
    pub whatsapp_ids: Vec<WhatsappId>,
    pub with_unread_messages: bool,
    pub sort: SortOrder,
    pub updated_on: Option<NaiveDate>,
    /// Unread tickets first (the inbox's first load), then `sort`.
    pub unread_first: bool,
}

/// A keyset position in a list: the sort key of the last row of the previous page.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cursor {
    /// Primary sort value (e.g. `updatedAt` as RFC 3339, or a rank), compared as text/number by
    /// the store for the list it came from.
    pub key: String,
    /// Tie-breaker: the row id.
    pub id: i64,
}

impl Cursor {
    /// The opaque form sent to clients (`nextCursor`): URL-safe, no padding.
    pub fn encode(&self) -> String {
        let raw = format!("{}|{}", self.id, self.key);
        raw.bytes().map(|b| format!("{b:02x}")).collect()
    }

    /// Parses [`Cursor::encode`]'s output; `None` for anything else.
    pub fn decode(value: &str) -> Option<Self> {
        if !value.len().is_multiple_of(2) || value.len() > 512 {
            return None;
        }
        let bytes: Option<Vec<u8>> = (0..value.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(value.get(i..i + 2)?, 16).ok())
            .collect();
        let raw = String::from_utf8(bytes?).ok()?;
        let (id, key) = raw.split_once('|')?;
        Some(Self {
            key: key.to_owned(),
            id: id.parse().ok()?,
        })
    }
}

/// A page of a keyset-paginated list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KeysetPage<T> {
    pub items: Vec<T>,
    pub has_more: bool,
    /// Where the next page starts; `None` on the last page.
    pub next_cursor: Option<Cursor>,
    /// Total matching rows; only computed for the first page (`None` otherwise).
    pub count: Option<i64>,
    /// The company's event sequence the page was read at, when the store read it (first pages
    /// of a tab): reads of other company data keyed by it (settings) may come from a cache.
    pub seq: Option<i64>,
}

/// Where a page starts: a cursor, or (compatibility) a 1-based page number of `page_size` rows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PageStart {
    First,
    After(Cursor),
    PageNumber(u32),
}

/// A ticket to create by hand (`POST /tickets`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewTicket {
    pub contact_id: ContactId,
    pub whatsapp_id: Option<WhatsappId>,
    pub queue_id: Option<QueueId>,
    pub user_id: Option<UserId>,
    pub status: TicketStatus,
    pub is_group: bool,
    pub channel: ChannelKind,
}

/// An entry of `GET /tickets-log/{ticketId}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct TicketLogEntry {
    pub id: i64,
    #[serde(rename = "type")]
    pub kind: TicketLogType,
    pub user: Option<TicketUser>,
    pub queue: Option<QueueSummary>,
    pub created_at: DateTime<Utc>,
}

/// A ticket note.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct TicketNote {
    pub id: i64,
    pub note: String,
    pub user: Option<TicketUser>,
    pub ticket_id: TicketId,
    pub contact_id: ContactId,
    pub created_at: DateTime<Utc>,
}

// --------------------------------------------------------------------- messages

/// A message's media kind (spec 1 §3), spelled as on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum MediaType {
    #[serde(rename = "chat")]
    Chat,
    #[serde(rename = "image")]
    Image,
    #[serde(rename = "audio")]
    Audio,
    #[serde(rename = "video")]
    Video,
    #[serde(rename = "application")]
    Application,
    #[serde(rename = "locationMessage")]
    Location,
    #[serde(rename = "contactMessage")]
    ContactCard,
    #[serde(rename = "call_log")]
    CallLog,
    /// A notice the inbox wrote into a conversation: messages may be missing between two
    /// times (the connection was down, [`crate::inbox::gaps`]); the body is the interval
    /// `{from}/{to}` in RFC 3339.
    #[serde(rename = "gap")]
    Gap,
}

impl MediaType {
    /// The wire name.
    pub const fn as_str(self) -> &'static str {
        match self {
            MediaType::Chat => "chat",
            MediaType::Image => "image",
            MediaType::Audio => "audio",
            MediaType::Video => "video",
            MediaType::Application => "application",
            MediaType::Location => "locationMessage",
            MediaType::ContactCard => "contactMessage",
            MediaType::CallLog => "call_log",
            MediaType::Gap => "gap",
        }
    }

    /// Parses the wire name.
    pub fn parse(value: &str) -> Option<Self> {
        [
            Self::Chat,
            Self::Image,
            Self::Audio,
            Self::Video,
            Self::Application,
            Self::Location,
            Self::ContactCard,
            Self::CallLog,
            Self::Gap,
        ]
        .into_iter()
        .find(|m| m.as_str() == value)
    }
}

/// A reaction on a message: one per side (the company's attendants, the contact).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Reaction {
    pub emoji: String,
    pub from_me: bool,
}

/// The quoted message as a reply shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct QuotedMessage {
    pub id: MessageId,
    pub body: String,
    pub from_me: bool,
    pub media_type: MediaType,
    pub is_deleted: bool,
}

/// A message (spec 1 §3).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Message {
    pub id: MessageId,
    pub ticket_id: TicketId,
    pub contact_id: Option<ContactId>,
    pub whatsapp_id: Option<WhatsappId>,
    /// The channel's id of the message (`wid`); unique per connection.
    pub external_id: Option<String>,
    pub body: String,
    pub from_me: bool,
    pub read: bool,
    pub is_private: bool,
    pub is_deleted: bool,
    pub is_edited: bool,
    pub is_forwarded: bool,
    pub media_type: MediaType,
    /// Where the web app fetches the media (`/messages/{id}/media`, bearer token); `None` for
    /// text.
    pub media_url: Option<String>,
    /// The original file name of a media attachment.
    pub media_name: Option<String>,
    pub quoted_msg: Option<QuotedMessage>,
    /// 0 clock, 1 sent, 2 delivered, 3 and 4 read (audio played), 5 read.
    pub ack: i64,
    /// Why the attachment is missing (`ERR_WAPP_DOWNLOAD_MEDIA`: it could not be downloaded
    /// when the message arrived; `POST /messages/{id}/media/retry` tries again), else `None`.
    #[serde(default)]
    pub media_error: Option<String>,
    /// What is wrong with an outbound message's delivery (`notDelivered`: still at one tick
    /// ten minutes after WhatsApp took it, [`crate::inbox::delivery`]), else `None`.
    #[serde(default)]
    pub delivery_issue: Option<crate::inbox::delivery::DeliveryIssue>,
    pub reactions: Vec<Reaction>,
    /// The user who sent it from the inbox (own-message checks), if any.
    pub user_id: Option<UserId>,
    /// In a group: the participant's name.
    pub participant: Option<String>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

/// A message to store for a ticket (outbound from the inbox, or private note).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewMessage {
    pub ticket_id: TicketId,
    pub body: String,
    pub from_me: bool,
    pub is_private: bool,
    pub is_forwarded: bool,
    pub media_type: MediaType,
    /// The media store's name of the attachment.
    pub media_path: Option<String>,
    pub media_name: Option<String>,
    pub quoted_msg_id: Option<MessageId>,
    pub user_id: Option<UserId>,
    /// Set once the channel accepted it.
    pub external_id: Option<String>,
    pub ack: i64,
}

impl NewMessage {
    /// A plain text the company sends on `ticket`: not private, not forwarded, quoting nothing,
    /// by no user, not yet accepted by the channel. Other kinds start here and change a field
    /// (`NewMessage { user_id, ..NewMessage::text(ticket, body) }`).
    pub fn text(ticket: TicketId, body: impl Into<String>) -> Self {
        Self {
            ticket_id: ticket,
            body: body.into(),
            from_me: true,
            is_private: false,
            is_forwarded: false,
            media_type: MediaType::Chat,
            media_path: None,
            media_name: None,
            quoted_msg_id: None,
            user_id: None,
            external_id: None,
            ack: 0,
        }
    }
}
