//! The live session of one connection behind our own traits, so the supervisor, the provider
//! and their tests run the same code on the library's client ([`crate::real`]) and on a
//! scripted fake (`crate::fake`, compiled always so tests and binaries share one build).
//!
//! - [`WaClientFactory`] builds a **fresh** session for each run of a connection (the library's
//!   client is never reused after it stopped).
//! - [`WaSession`] is one run: its [`WaClient`] for calls, a future that resolves when the run
//!   loop ends, and a graceful or immediate stop.
//! - Library events reach the supervisor, in order, through the channel of [`SessionParams`];
//!   decrypted user messages reach the [`crate::inbound::Ingestor`] through the library's inbound
//!   durability hook (so WhatsApp gets the ack only after our commit).
//!
//! The trait speaks the library's protocol types (`Jid`, `wa::Message`) and our own plain
//! structs where the library's are `#[non_exhaustive]` (a fake could not build them).

use std::sync::Arc;

use async_trait::async_trait;
use chatflow_core::WhatsappId;
use tokio::sync::mpsc::UnboundedSender;
use whatsapp_rust::Jid;
use whatsapp_rust::types::events::Event;
use whatsapp_rust::waproto::whatsapp as wa;

use crate::inbound::Ingestor;
use crate::storage::WaBackend;

/// The kind of a media upload (the library's `MediaType`, restricted to what we send).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MediaKind {
    Image,
    Video,
    Audio,
    Document,
    Sticker,
}

/// Where an uploaded blob lives and the keys to read it (what a media message carries).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Uploaded {
    pub url: String,
    pub direct_path: String,
    pub media_key: [u8; 32],
    pub file_enc_sha256: [u8; 32],
    pub file_sha256: [u8; 32],
    pub file_length: u64,
    pub media_key_timestamp: i64,
    pub streaming_sidecar: Option<Vec<u8>>,
}

/// What WhatsApp answered about one number.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NumberCheck {
    /// The address asked about.
    pub jid: Jid,
    pub is_registered: bool,
    /// The account's LID, when WhatsApp told it.
    pub lid: Option<Jid>,
    /// The account's phone-number address, when WhatsApp told it.
    pub pn: Option<Jid>,
}

/// What [`WaClient::request_history`] asks the phone for: up to `count` messages of `chat`
/// older than the anchor, a message of that chat (WhatsApp's on-demand history sync; the anchor
/// is named as the phone keeps it: its id, whether we sent it, its time).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HistoryAsk {
    /// The chat as the phone keys it (a group by `@g.us`; a person by LID or number, see
    /// [`WaClient::chat_lid`]).
    pub chat: Jid,
    pub anchor_id: String,
    pub anchor_from_me: bool,
    /// The anchor's time, in milliseconds since the epoch.
    pub anchor_time_ms: i64,
    pub count: i32,
}

/// The message a media re-upload is asked for, as WhatsApp keys it (the chat, the message's id,
/// whether we sent it, and in a group its writer).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MediaMessageKey {
    pub chat: Jid,
    pub id: String,
    pub from_me: bool,
    pub participant: Option<Jid>,
}

/// The error [`WaClient::download`] answers when WhatsApp's media servers no longer hold the
/// file (HTTP 404 or 410 from the media host, after the library refreshed its media
/// credentials): only the phone can upload it again ([`WaClient::request_media_reupload`]).
/// Found with `error.downcast_ref::<MediaGone>()`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MediaGone {
    /// The media host's answer (404 or 410).
    pub status: u16,
}

impl std::fmt::Display for MediaGone {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "WhatsApp's media servers no longer hold the file (HTTP {})",
            self.status
        )
    }
}

impl std::error::Error for MediaGone {}

/// Counters of a live session (the watchdog reads them).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SessionStats {
    pub frames_received: u64,
    pub messages_received: u64,
    pub messages_sent: u64,
    pub events_dropped: u64,
    pub reconnects: u64,
    pub last_data_received_ms: u64,
}

/// The error a call answers when the session is not connected or not logged in (the provider
/// answers `ERR_WAPP_NOT_INITIALIZED` for it). Found with `error.downcast_ref::<NotConnected>()`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NotConnected;

impl std::fmt::Display for NotConnected {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the WhatsApp session is not connected")
    }
}

impl std::error::Error for NotConnected {}

/// The calls a live session answers. Errors are the library's (`anyhow`), or [`NotConnected`]
/// when the session is down; the provider maps them to the spec's codes.
#[async_trait]
pub trait WaClient: Send + Sync {
    /// Sends `message` to `to` under our message id `id` and answers the id WhatsApp took (the
    /// same id). A repeated call with the same id is what the idempotent send relies on.
    async fn send(&self, to: &Jid, message: wa::Message, id: &str) -> anyhow::Result<String>;
    /// Encrypts and uploads a media blob.
    async fn upload(&self, bytes: Vec<u8>, kind: MediaKind) -> anyhow::Result<Uploaded>;
    /// Downloads and decrypts the media of a received message.
    async fn download(&self, message: &wa::Message) -> anyhow::Result<Vec<u8>>;
    /// Replaces the text of a message we sent.
    async fn edit(&self, to: &Jid, original_id: &str, message: wa::Message) -> anyhow::Result<()>;
    /// Deletes a message we sent, for everyone.
    async fn revoke(&self, to: &Jid, id: &str) -> anyhow::Result<()>;
    /// Reacts to the message `key` in `chat` (an empty emoji removes the reaction).
    async fn react(&self, chat: &Jid, key: wa::MessageKey, emoji: &str) -> anyhow::Result<()>;
    /// Marks messages of a chat read (WhatsApp reads by message id).
    async fn mark_read(
        &self,
        chat: &Jid,
        sender: Option<&Jid>,
        ids: &[String],
    ) -> anyhow::Result<()>;
    /// Which of `jids` have WhatsApp.
    async fn is_on_whatsapp(&self, jids: &[Jid]) -> anyhow::Result<Vec<NumberCheck>>;
    /// The address of the profile picture of `jid`, when it has one we may see.
    async fn profile_picture(&self, jid: &Jid) -> anyhow::Result<Option<String>>;
    /// The subject (name) of the group `jid`.
    async fn group_subject(&self, jid: &Jid) -> anyhow::Result<String>;
    /// The phone number (digits) WhatsApp told this session for the LID `lid`, if any (a
    /// lookup in what the session learned; nothing is sent).
    async fn phone_number_of(&self, lid: &Jid) -> anyhow::Result<Option<String>>;
    /// The LID the phone keys the one-to-one chat with the number `phone` by: the person's LID
    /// when this session learned it and the account's one-to-one chats moved to LIDs (WhatsApp's
    /// LID migration); `None` otherwise (the phone then keys the chat by the number). A lookup in
    /// what the session learned; nothing is sent.
    async fn chat_lid(&self, phone: &Jid) -> anyhow::Result<Option<Jid>>;
    /// Asks the phone for a chat's messages older than an anchor (a peer data operation to our
    /// own phone: WhatsApp's on-demand history sync) and answers the request's id. The phone
    /// answers later, if at all, with a history sync of type `ON_DEMAND` (an
    /// `Event::HistorySync` like any part of the history).
    async fn request_history(&self, ask: &HistoryAsk) -> anyhow::Result<String>;
    /// Asks the phone to upload again the media of the message `key` (its media key
    /// `media_key`), which WhatsApp's servers no longer hold ([`MediaGone`]), and waits (bounded)
    /// for its answer: the new direct path of the file. An error when the phone did not answer
    /// in time or could not upload it.
    async fn request_media_reupload(
        &self,
        key: &MediaMessageKey,
        media_key: &[u8],
    ) -> anyhow::Result<String>;
    /// Asks WhatsApp for a pair code for `phone` (digits, international); answers the code.
    async fn pair_with_code(&self, phone: &str) -> anyhow::Result<String>;
    /// Declines the ringing call `call_id` from `peer` (`creator`: the call's creator as the
    /// offer named it).
    async fn reject_call(&self, call_id: &str, peer: &Jid, creator: &Jid) -> anyhow::Result<()>;
    /// Unlinks this device from the phone.
    async fn logout(&self) -> anyhow::Result<()>;
    /// Whether the socket is up and logged in.
    fn is_connected(&self) -> bool;
    fn stats(&self) -> SessionStats;
}

/// What a session is built with.
pub struct SessionParams {
    pub connection: WhatsappId,
    /// The connection's key store, fenced by the lease token of this run.
    pub backend: Arc<WaBackend>,
    /// Where the durability hook commits decrypted messages.
    pub ingestor: Arc<Ingestor>,
    /// Every library event, in the order the library emitted it.
    pub events: UnboundedSender<Arc<Event>>,
    /// When set, link by pair code for this number (digits) alongside the QR code.
    pub pair_phone: Option<String>,
    /// A new link asks the phone for its whole message history (the connection's import of old
    /// messages is on: [`crate::real::device_props`]) instead of the recent part WhatsApp sends
    /// by default. It matters only when this run links a phone: a linked session keeps what it
    /// was linked with.
    pub full_history: bool,
}

/// One run of a connection's client.
#[async_trait]
pub trait WaSession: Send + Sync {
    /// The calls of this run.
    fn client(&self) -> Arc<dyn WaClient>;
    /// Resolves once the run loop ended, for whatever reason (the reason came as an event).
    async fn finished(&mut self);
    /// Stops gracefully: disconnects, flushes the library's state, waits for the loop to end.
    async fn shutdown(self: Box<Self>);
    /// Stops at once, without flushing (a lost lease: nothing more may be written or sent).
    fn abort(&self);
}

/// Builds fresh sessions.
#[async_trait]
pub trait WaClientFactory: Send + Sync {
    async fn start(&self, params: SessionParams) -> anyhow::Result<Box<dyn WaSession>>;
}
