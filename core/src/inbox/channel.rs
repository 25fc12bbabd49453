//! The channel port: what every provider (sandbox, WhatsApp Web, Cloud API, Messenger,
//! Instagram) does for the inbox, and the inbound events it reports.
//!
//! Providers push [`InboundEvent`]s to an [`InboundSink`]; the sink returns only after the event
//! is committed, and the provider acknowledges (or forgets) the event only then. A provider that
//! crashes before acknowledging replays the event, and ingestion's unique key on
//! (connection, external id) makes the replay harmless.

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::ids::{TenantScope, WhatsappId};
use crate::inbox::model::{MediaType, ProviderKind, SessionUpdate};

/// A media attachment travelling through a channel.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChannelMedia {
    pub media_type: MediaType,
    pub file_name: String,
    pub mime_type: String,
    /// The bytes (the host stores them with the media-store port).
    #[serde(with = "bytes_as_base64")]
    pub bytes: Vec<u8>,
}

/// A contact's message the inbox marked read ([`ChannelProvider::mark_read`]): its channel id
/// and, in a group, who wrote it (WhatsApp's read receipt in a group names each writer).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReadMessage {
    pub external_id: String,
    /// The group member who wrote it (their number or LID), as the message was stored; `None`
    /// in a one-to-one chat, or when the channel did not name the writer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub participant: Option<String>,
}

/// An attachment the provider could not download when its message arrived: the message is
/// stored with the error `ERR_WAPP_DOWNLOAD_MEDIA` and what a later try needs
/// ([`ChannelProvider::download_media`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FailedMedia {
    pub media_type: MediaType,
    pub file_name: String,
    pub mime_type: String,
    /// What the provider needs to fetch it again (WhatsApp: the media's keys and path), opaque
    /// to the inbox; sealed at rest and never shown.
    pub locator: String,
}

/// A message that reached a connection from a contact (or was sent from the phone itself).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InboundMessage {
    /// The channel's id of the message; unique per connection.
    pub external_id: String,
    /// The chat: the contact's number, or the group's id.
    pub chat: String,
    /// The chat's display name (contact push name or group subject).
    pub chat_name: String,
    pub is_group: bool,
    /// In a group: who wrote it.
    pub participant: Option<String>,
    /// Sent from the connected phone itself.
    pub from_me: bool,
    pub body: String,
    pub media_type: MediaType,
    pub media: Option<ChannelMedia>,
    /// The external id of the quoted message.
    pub quoted_external_id: Option<String>,
    pub timestamp: DateTime<Utc>,
    /// The person's other identities on this channel, besides `chat` (WhatsApp: the LID of a
    /// person written to by phone number, or the other way round): the same contact
    /// ([`crate::inbox::identities`]). Empty for groups and channels that know one identity.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub aliases: Vec<String>,
    /// The attachment that could not be downloaded (then `media` is `None`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub media_failed: Option<Box<FailedMedia>>,
}

impl InboundMessage {
    /// The call-log line of a call from `chat` (a missed or declined call), kept once per call
    /// by its id.
    pub fn call_log(
        external_id: String,
        chat: String,
        chat_name: String,
        timestamp: DateTime<Utc>,
    ) -> Self {
        Self {
            external_id,
            chat,
            chat_name,
            is_group: false,
            participant: None,
            from_me: false,
            body: String::new(),
            media_type: MediaType::CallLog,
            media: None,
            quoted_external_id: None,
            timestamp,
            aliases: Vec::new(),
            media_failed: None,
        }
    }
}

/// What a provider reports.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum InboundEvent {
    /// A new message.
    Message(InboundMessage),
    /// A delivery/read receipt for an outbound message.
    #[serde(rename_all = "camelCase")]
    Ack { external_id: String, ack: i64 },
    /// The contact edited a message.
    #[serde(rename_all = "camelCase")]
    Edit {
        external_id: String,
        body: String,
        timestamp: DateTime<Utc>,
    },
    /// The contact deleted a message for everyone.
    #[serde(rename_all = "camelCase")]
    Delete { external_id: String },
    /// The contact reacted (an empty emoji removes the reaction).
    #[serde(rename_all = "camelCase")]
    Reaction {
        external_id: String,
        chat: String,
        emoji: String,
    },
    /// A call the contact made that nobody answered.
    #[serde(rename_all = "camelCase")]
    MissedCall {
        /// The call's id (deduplication key).
        external_id: String,
        chat: String,
        chat_name: String,
        timestamp: DateTime<Utc>,
    },
    /// A contact is calling the connection's phone right now (a one-to-one voice or video
    /// call). When the company does not take calls (`acceptCallWhatsapp` disabled) the call is
    /// declined ([`ChannelProvider::reject_call`]), shown in the ticket as a call-log line and
    /// answered with the company's message; otherwise the phone rings as usual.
    #[serde(rename_all = "camelCase")]
    IncomingCall {
        /// The call's id (deduplication key, shared with a later missed-call event).
        external_id: String,
        chat: String,
        chat_name: String,
        is_video: bool,
        timestamp: DateTime<Utc>,
    },
    /// The channel told that these identities are one person (WhatsApp: a contact changed their
    /// phone number): `chat` is the identity to keep the contact under, `aliases` the others.
    /// An existing contact under any of them moves to `chat`, merged with the others
    /// ([`crate::inbox::identities`]); nobody known, nothing changes.
    #[serde(rename_all = "camelCase")]
    Identities { chat: String, aliases: Vec<String> },
    /// A part of the phone's message history (WhatsApp sends it right after a new link): kept
    /// for the connection's import of old messages when that is on
    /// ([`crate::inbox::history`]), dropped otherwise. Never a live message: no bot, flow or
    /// notification follows it.
    History(HistoryChunk),
    /// The channel delivered what it had queued for the connection while it was away (WhatsApp:
    /// the offline queue is drained after a reconnect). A connection back from an outage is
    /// checked for missing messages then ([`crate::inbox::gaps`]).
    CaughtUp,
    /// The session changed (QR code, connected, disconnected...).
    Session(SessionUpdate),
}

/// A part of a connection's message history, as the phone sent it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HistoryChunk {
    /// Its messages, in any order, each as a live message would arrive (chat and aliases, who
    /// sent it, its time, kind, text and quote). Attachments are not downloaded yet: a file
    /// comes as [`InboundMessage::media_failed`] with what its download needs, and the import
    /// downloads it.
    pub messages: Vec<InboundMessage>,
    /// How far the phone says the whole history has come (0-100), when it says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub progress: Option<u32>,
    /// The phone's answer to [`ChannelProvider::request_history`] (a chat's messages before a
    /// message the inbox holds), not the history sent at linking: written into the chat's
    /// conversation whatever the import settings say ([`crate::inbox::gaps`]).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub on_demand: bool,
}

/// What [`ChannelProvider::request_history`] asks the phone for: up to `count` messages of
/// `chat` sent before `anchor`, a message of that chat the inbox holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HistoryRequest {
    /// The contact's number (or LID), or the group's id, as messages name their chat.
    pub chat: String,
    pub is_group: bool,
    /// The channel's id of the anchor message.
    pub anchor_external_id: String,
    /// The anchor was sent from the connection (ours), rather than by the contact.
    pub anchor_from_me: bool,
    /// The anchor's time.
    pub anchor_time: DateTime<Utc>,
    /// How many messages at most.
    pub count: u32,
}

/// A contact card to send (vCard).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContactCard {
    pub name: String,
    pub number: String,
}

/// What to send to a chat.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum OutboundContent {
    Text {
        body: String,
    },
    Media {
        media: ChannelMedia,
        caption: String,
    },
    Contact {
        card: ContactCard,
    },
    #[serde(rename_all = "camelCase")]
    Location {
        latitude: f64_bits::F64,
        longitude: f64_bits::F64,
        name: String,
    },
}

/// An outbound message to one chat over one connection.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Outbound {
    pub connection: WhatsappId,
    /// The contact's number (or group id).
    pub to: String,
    pub content: OutboundContent,
    /// The external id of the quoted message.
    pub quoted_external_id: Option<String>,
    /// What the quoted message said and whether the connection sent it, when it is known:
    /// channels that show a quote's text (WhatsApp) need it besides the id.
    #[serde(default)]
    pub quoted: Option<QuotedContent>,
    /// Our id of the stored message this sends, when there is one: a provider sends a message
    /// with a given key at most once, and a repeated send (a send resumed after a crash) answers
    /// the first send's external id without reaching the phone again.
    #[serde(default)]
    pub idempotency_key: Option<String>,
}

/// The quoted message of an outbound reply, as the inbox stored it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct QuotedContent {
    /// Its text (a caption, or empty for a file without one).
    pub body: String,
    /// Sent from the connection (ours), rather than by the contact.
    pub from_me: bool,
    /// Who wrote it, where the chat does not say: the group member (their number or LID, as
    /// the message was stored) for a contact's message in a group, the connection's own number
    /// for ours; `None` for the contact's message in a one-to-one chat (the chat is the writer)
    /// or when the writer is not known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sender: Option<String>,
}

impl QuotedContent {
    /// What a reply shows of the stored message `quoted`: its text, its side, and its writer
    /// when the message was a group member's. Ours gets its writer from the connection it is
    /// sent through ([`QuotedContent::through`]).
    pub fn of(quoted: &crate::inbox::model::Message) -> Self {
        Self {
            body: quoted.body.clone(),
            from_me: quoted.from_me,
            sender: if quoted.from_me {
                None
            } else {
                quoted.participant.clone().filter(|p| !p.trim().is_empty())
            },
        }
    }

    /// The quote sent through a connection whose own number is `own_number` (empty while not
    /// known): our own message's writer is that number.
    #[must_use]
    pub fn through(mut self, own_number: &str) -> Self {
        let own = own_number.trim();
        if self.from_me && self.sender.is_none() && !own.is_empty() {
            self.sender = Some(own.to_owned());
        }
        self
    }
}

/// A contact's profile as a channel knows it (`GET /contacts/profile/{number}`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChannelProfile {
    /// The number as the channel knows it.
    pub number: String,
    /// The contact's push name (empty when the channel has none).
    pub name: String,
    /// The profile picture's address (empty when none).
    pub profile_pic_url: String,
}

/// A one-to-one chat a connection has (`POST /contacts/import/chats`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChannelChat {
    /// The contact's number.
    pub number: String,
    /// The contact's push name (empty when the channel has none).
    pub name: String,
}

/// `ERR_CHANNEL_NOT_SUPPORTED` for a capability `what` the provider lacks.
pub fn not_supported(kind: ProviderKind, what: &str) -> crate::Error {
    crate::Error::with_detail(
        crate::ErrorCode::ERR_CHANNEL_NOT_SUPPORTED,
        format!("the {kind:?} channel cannot {what}"),
    )
}

/// A messaging provider. One instance serves every connection of its [`ProviderKind`]; calls
/// name the connection.
#[async_trait]
pub trait ChannelProvider: Send + Sync {
    fn kind(&self) -> ProviderKind;
    /// Starts (or restarts) the connection's session; progress arrives as
    /// [`InboundEvent::Session`] events.
    async fn start(&self, scope: TenantScope, connection: WhatsappId) -> Result<()>;
    /// Drops the session and asks for a fresh QR code.
    async fn new_qr(&self, scope: TenantScope, connection: WhatsappId) -> Result<()>;
    /// Ends the session.
    async fn disconnect(&self, scope: TenantScope, connection: WhatsappId) -> Result<()>;
    /// Sends and returns the channel's id of the sent message. `ERR_WAPP_NOT_INITIALIZED` when
    /// the session is not connected, `ERR_SENDING_WAPP_MSG` when the channel refused.
    async fn send(&self, scope: TenantScope, message: &Outbound) -> Result<String>;
    /// Edits a sent message.
    async fn edit(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        to: &str,
        external_id: &str,
        body: &str,
    ) -> Result<()>;
    /// Deletes a sent message for everyone (`ERR_DELETE_WAPP_MSG` on failure).
    async fn delete(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        to: &str,
        external_id: &str,
    ) -> Result<()>;
    /// Reacts to a message (empty emoji removes); `from_me` says whether the message was sent
    /// from the connection (channels address a message by its sender and id).
    async fn react(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        to: &str,
        external_id: &str,
        from_me: bool,
        emoji: &str,
    ) -> Result<()>;
    /// Tells the contact that their messages `read` in `chat` were read (blue ticks on their
    /// phone; in a group, each message's writer); channels that mark a whole chat read ignore
    /// the messages.
    async fn mark_read(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        chat: &str,
        read: &[ReadMessage],
    ) -> Result<()>;
    /// The profile of `number` as the connection sees it; `None` when the channel knows no such
    /// contact. Providers that cannot look profiles up answer `ERR_CHANNEL_NOT_SUPPORTED`.
    async fn profile(
        &self,
        _scope: TenantScope,
        _connection: WhatsappId,
        _number: &str,
    ) -> Result<Option<ChannelProfile>> {
        Err(not_supported(self.kind(), "look a contact's profile up"))
    }
    /// Asks to link the connection by phone number instead of a QR code: `phone` is the
    /// account's number in international form, digits only. The code to type on the phone
    /// arrives as an [`InboundEvent::Session`] with status `PAIRING` and its `pairing_code`.
    /// Providers that cannot link by code answer `ERR_CHANNEL_NOT_SUPPORTED`.
    async fn request_pair_code(
        &self,
        _scope: TenantScope,
        _connection: WhatsappId,
        _phone: &str,
    ) -> Result<()> {
        Err(not_supported(self.kind(), "link by pair code"))
    }
    /// Whether `number` has an account on the channel: its canonical number when it has,
    /// `None` when it has not (`ERR_WAPP_INVALID_CONTACT` for the caller). Providers that cannot
    /// check numbers answer `ERR_CHANNEL_NOT_SUPPORTED`.
    async fn check_number(
        &self,
        _scope: TenantScope,
        _connection: WhatsappId,
        _number: &str,
    ) -> Result<Option<String>> {
        Err(not_supported(self.kind(), "check a number"))
    }
    /// The connection's one-to-one chats (groups excluded), oldest first. Providers that cannot
    /// list chats answer `ERR_CHANNEL_NOT_SUPPORTED`.
    async fn list_chats(
        &self,
        _scope: TenantScope,
        _connection: WhatsappId,
    ) -> Result<Vec<ChannelChat>> {
        Err(not_supported(self.kind(), "list its chats"))
    }
    /// Whether the next linking of `connection` asks the phone for its whole message history
    /// (the import of old messages is on), or only what the channel sends by default. Called
    /// before every start, new QR code and pair code; providers without history ignore it.
    async fn want_history(
        &self,
        _scope: TenantScope,
        _connection: WhatsappId,
        _wanted: bool,
    ) -> Result<()> {
        Ok(())
    }
    /// Declines the ringing call `call_id` from `chat` (reported as
    /// [`InboundEvent::IncomingCall`]). Providers without calls answer
    /// `ERR_CHANNEL_NOT_SUPPORTED`.
    async fn reject_call(
        &self,
        _scope: TenantScope,
        _connection: WhatsappId,
        _call_id: &str,
        _chat: &str,
    ) -> Result<()> {
        Err(not_supported(self.kind(), "decline a call"))
    }
    /// Asks the phone for the messages of one chat before a message the inbox holds (filling a
    /// gap after an outage, [`crate::inbox::gaps`]); the answer arrives later as an
    /// [`InboundEvent::History`] with `on_demand` set, or never when the phone is offline.
    /// Providers that cannot ask answer `ERR_CHANNEL_NOT_SUPPORTED`.
    async fn request_history(
        &self,
        _scope: TenantScope,
        _connection: WhatsappId,
        _request: &HistoryRequest,
    ) -> Result<()> {
        Err(not_supported(
            self.kind(),
            "ask the phone for a chat's history",
        ))
    }
    /// Tries again to download an attachment that failed when its message arrived (`media` as
    /// the provider reported it, its locator opened). `ERR_WAPP_DOWNLOAD_MEDIA` when it fails
    /// again; providers that report no failed attachments answer `ERR_CHANNEL_NOT_SUPPORTED`.
    async fn download_media(
        &self,
        _scope: TenantScope,
        _connection: WhatsappId,
        _media: &FailedMedia,
    ) -> Result<ChannelMedia> {
        Err(not_supported(self.kind(), "download an attachment again"))
    }
}

/// An event a provider queued, and how many times it was tried (1 for the first delivery).
#[derive(Debug, Clone, PartialEq)]
pub struct Queued {
    pub event: InboundEvent,
    pub attempts: u32,
}

/// What [`InboundSink::deliver_batch`] did.
#[derive(Debug, Default)]
pub struct BatchDelivery {
    /// How many events, from the first, are handled (committed, duplicates, or set aside): the
    /// provider acknowledges exactly these.
    pub handled: usize,
    /// Why the event after them failed (retrying may help, after
    /// [`crate::inbox::inbound::retry_delay`]); the events after it were not tried.
    pub failed: Option<Error>,
}

/// Where providers deliver inbound events. Returns once the event is durably committed (or
/// recognised as a duplicate); the provider acknowledges it only then.
#[async_trait]
pub trait InboundSink: Send + Sync {
    async fn deliver(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        event: InboundEvent,
    ) -> Result<()>;

    /// [`InboundSink::deliver`] for a provider that queues events and retries; `attempts`
    /// counts this delivery (1 for the first). `Ok` also when the event could never be stored
    /// (or failed too often) and was set aside in the company's inbound failures
    /// ([`crate::inbox::inbound`]): the provider acknowledges it and moves on. An error means
    /// retrying may help (after [`crate::inbox::inbound::retry_delay`]).
    async fn deliver_queued(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        event: InboundEvent,
        attempts: u32,
    ) -> Result<()> {
        let _ = attempts;
        self.deliver(scope, connection, event).await
    }

    /// [`InboundSink::deliver_queued`] for several queued events of one connection, in order.
    /// Sinks that can commit them together (group commit) do; this default delivers them one
    /// at a time. Stops at the first event that fails.
    async fn deliver_batch(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        events: Vec<Queued>,
    ) -> BatchDelivery {
        let mut done = BatchDelivery::default();
        for Queued { event, attempts } in events {
            if let Err(error) = self
                .deliver_queued(scope, connection, event, attempts)
                .await
            {
                done.failed = Some(error);
                break;
            }
            done.handled += 1;
        }
        done
    }
}

/// Latitude/longitude carried as exact bit patterns so the content stays `Eq` and hashable.
pub mod f64_bits {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    /// An `f64` compared by its bits.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub struct F64(pub u64);

    impl F64 {
        pub fn new(value: f64) -> Self {
            Self(value.to_bits())
        }
        pub fn get(self) -> f64 {
            f64::from_bits(self.0)
        }
    }

    impl Serialize for F64 {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            s.serialize_f64(self.get())
        }
    }

    impl<'de> Deserialize<'de> for F64 {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            f64::deserialize(d).map(F64::new)
        }
    }
}

/// Bytes as standard base64 in JSON.
mod bytes_as_base64 {
    use base64::Engine as _;
    use base64::engine::general_purpose::STANDARD;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(bytes: &[u8], s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&STANDARD.encode(bytes))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        let text = String::deserialize(d)?;
        STANDARD.decode(text).map_err(serde::de::Error::custom)
    }
}

/// The providers a host runs, by kind.
#[derive(Clone, Default)]
pub struct ChannelRegistry {
    providers: Vec<std::sync::Arc<dyn ChannelProvider>>,
}

impl ChannelRegistry {
    /// The registry with `provider` added (replacing one of the same kind).
    pub fn with(mut self, provider: std::sync::Arc<dyn ChannelProvider>) -> Self {
        self.providers.retain(|p| p.kind() != provider.kind());
        self.providers.push(provider);
        self
    }

    /// The provider of `kind`; `ERR_WAPP_NOT_INITIALIZED` when this host does not run it.
    pub fn get(&self, kind: ProviderKind) -> Result<std::sync::Arc<dyn ChannelProvider>> {
        self.providers
            .iter()
            .find(|p| p.kind() == kind)
            .cloned()
            .ok_or_else(|| {
                crate::Error::with_detail(
                    crate::ErrorCode::ERR_WAPP_NOT_INITIALIZED,
                    format!("no {kind:?} provider runs on this host"),
                )
            })
    }

    /// Every provider.
    pub fn all(&self) -> &[std::sync::Arc<dyn ChannelProvider>] {
        &self.providers
    }
}
