//! Inbound: the library's decrypted messages and events mapped to the core's
//! [`chatflow_core::inbox::channel::InboundEvent`]s, and the durability hook that commits them
//! through the [`chatflow_core::inbox::channel::InboundSink`] before WhatsApp gets its ack.
//!
//! # Ack after commit
//!
//! The library hands every decrypted user message to [`IngestHook`] and acknowledges it to
//! WhatsApp only once the hook answered `Ok`; on `Err` WhatsApp delivers it again only on the
//! *next* connection, not in this one. So [`Ingestor::commit`] answers `Ok` once every message
//! of the batch is handled (committed, a duplicate of a committed one, or set aside by the sink
//! after failing too often), retrying in the meantime with the core's
//! [`chatflow_core::inbox::inbound::retry_delay`] (1 s doubling to 60 s; the sink sets an event
//! aside at its eighth attempt). It answers `Err` only once the ingestor is
//! [shut down](Ingestor::shutdown), when the session is stopping anyway. A message that maps to
//! nothing is acknowledged without a delivery.
//!
//! Receipts, missed calls, number changes and the phone's history come outside the hook
//! ([`Ingestor::deliver_events`]): the library acknowledges them itself (a part of the history
//! before it even hands it over), so they are at-most-once for us. They are retried a few times
//! and then dropped with a warning; acks only move forward, so the next receipt corrects a lost
//! one, while a lost part of the history stays lost (the import goes on with the other parts).
//!
//! # What is mapped ([`map`])
//!
//! - **Messages**: text (plain and extended), photos, videos (and round video notes), audio
//!   (voice notes too), documents, stickers (as photos), locations (live ones too) and contact
//!   cards, with the caption as the body, the quoted message's id, the time WhatsApp gave, and
//!   whether the connected phone sent it. Wrappers (view once, disappearing messages, messages
//!   sent from the phone) are looked through.
//!   - A document without a caption shows its file name; a location shows its name, address and
//!     a map link; a contact card shows the name and the numbers (one a line), the form of the
//!     cards the inbox sends.
//!   - The chat is the person's phone number, or the LID when neither the message nor what the
//!     session learned tells the number ([`address`]); the identity that did not win goes along
//!     as the message's alias, so the inbox keeps one contact per person
//!     ([`chatflow_core::inbox::identities`]). In a group the chat is the group and the
//!     participant is the writer's number (the inbox stores group messages only on connections
//!     that take groups).
//! - **Number changes** (`ContactNumberChanged`): the new number with the old number and LIDs
//!   as its aliases, so the contact moves to the new number with its history.
//!   - The chat's name is the contact's push name; groups and messages sent from the phone
//!     leave it empty (the push name is the participant's, or ours).
//! - **Edits** (the new text) and **deletions for everyone**, by the id of the message they
//!   change.
//! - **Reactions** from the contact (an empty emoji removes one).
//! - **Receipts**: sent 1, delivered 2, read 3, played 4 ([`map::ACK_SENT`]...), and a server
//!   error as -1 ([`map::ACK_ERROR`]; see below).
//! - **Missed calls**, by the call's id.
//! - **The end of the offline backlog** (`OfflineSyncCompleted`: WhatsApp delivered what it queued
//!   while the session was away) as [`chatflow_core::inbox::channel::InboundEvent::CaughtUp`].
//!   The library dispatches it once the backlog's last messages went through the durability hook,
//!   and the connection's lane delivers it after the backlog's receipts, so the inbox checks a gap
//!   after an outage only once what WhatsApp kept is in.
//! - **The phone's history** (`HistorySync`, sent after a new link): one
//!   [`chatflow_core::inbox::channel::InboundEvent::History`] per part, its messages mapped as
//!   the same messages live, their attachments left for the import to download ([`history`]).
//!   The core keeps them only for a connection whose import of old messages is on; with it on, a
//!   new link asks the phone for its whole history ([`crate::real::device_props`]).
//!
//! # Attachments
//!
//! The hook downloads each message's attachment through the session's client before the
//! commit ([`fetch_media`]), so the file is stored with its message and WhatsApp's ack waits for
//! both. A download is bounded ([`MEDIA_TIMEOUT`], [`MAX_MEDIA_BYTES`]) and tried
//! [`MEDIA_ATTEMPTS`] times; a file that cannot be had leaves the message stored with its kind
//! and caption (the inbox shows the kind's placeholder): the message is never lost, and a stuck
//! download holds the connection's later messages at most three times the timeout. Documents keep their file name; other files are named by the message's id and their type's
//! extension.
//!
//! # Not yet
//!
//! - Reactions made on the connected phone (the event cannot say they are the company's).
//! - Group pictures; a group renamed while the session runs keeps its old name until the next
//!   run (the subject is asked with a group's first message of each run and names the group's
//!   contact), polls,
//!   interactive replies, view-once contents beyond their kind, status updates, newsletters,
//!   push-name and picture changes, undecryptable placeholders.
//! - History asked for on demand (`fetch_message_history`, to fill a gap after an outage), and
//!   the reactions, receipts and edits a history part carries beside its messages.
//! - Receipts count per message, not per group member: the first member's delivery marks a
//!   group message delivered.
//! - **Server errors are not shown yet.** A server-error receipt is delivered as ack -1
//!   ([`map::ACK_ERROR`]), but acks only move forward and a sent message starts at 0, so the
//!   store never applies it today; it shows once the ack event carries its error (the design's
//!   `Ack { error }`).

pub mod address;
pub mod history;
pub mod map;

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use base64::Engine as _;
use chatflow_core::inbox::channel::{ChannelMedia, FailedMedia, InboundEvent, InboundSink, Queued};
use chatflow_core::inbox::identities;
use chatflow_core::inbox::inbound::retry_delay;
use chatflow_core::{TenantScope, WhatsappId};
use tokio::sync::watch;
use whatsapp_rust::types::events::InboundMessage;
use whatsapp_rust::wacore::proto_helpers::MessageExt as _;
use whatsapp_rust::waproto::whatsapp as wa;
use whatsapp_rust::{Client, InboundDurabilityHook};

use crate::client::{MediaGone, MediaMessageKey, WaClient};
use crate::real::RealWaClient;
pub use history::history_chunk;
pub use map::{declared_size, map_content, map_event, map_message, media_of, stored_file_name};

/// Deliveries of an event from outside the hook (a receipt, a missed call, a part of the
/// history) before it is dropped.
pub const EVENT_ATTEMPTS: u32 = 3;

/// Commits batches of decrypted messages of one connection (see the module's documentation).
pub struct Ingestor {
    pub scope: TenantScope,
    pub connection: WhatsappId,
    pub sink: Arc<dyn InboundSink>,
    /// `true` once the ingestor is shut down.
    stopped: watch::Sender<bool>,
    /// Group subjects already asked for in this run, by chat.
    subjects: std::sync::Mutex<HashMap<String, String>>,
}

/// Why a delivery stopped before every event was handled.
enum Stopped {
    /// The ingestor is shut down.
    ShutDown,
    /// The event failed its last allowed attempt.
    GaveUp,
}

impl Ingestor {
    /// The ingestor of `connection`, delivering to `sink`.
    pub fn new(scope: TenantScope, connection: WhatsappId, sink: Arc<dyn InboundSink>) -> Self {
        Self {
            scope,
            connection,
            sink,
            stopped: watch::Sender::new(false),
            subjects: std::sync::Mutex::default(),
        }
    }

    /// Stops the ingestor: commits waiting for a retry answer `Err` at once, and later commits
    /// deliver nothing and answer `Err` (WhatsApp delivers those messages again on the next
    /// connection). A delivery under way finishes first.
    pub fn shutdown(&self) {
        self.stopped.send_replace(true);
    }

    /// Whether [`Ingestor::shutdown`] was called.
    pub fn is_shut_down(&self) -> bool {
        *self.stopped.borrow()
    }

    /// Maps `batch` and delivers it to the sink, retrying until every event is handled; `Ok`
    /// then (and at once for a batch that maps to nothing). `Err` only when the ingestor is
    /// shut down, so that WhatsApp keeps the messages unacknowledged.
    pub async fn commit(&self, batch: &[InboundMessage]) -> anyhow::Result<()> {
        let events: Vec<InboundEvent> = batch.iter().filter_map(map_message).collect();
        self.commit_events(events).await
    }

    /// [`Ingestor::commit`], with the attachments of the messages downloaded through `client`
    /// first (see [`fetch_media`]): what the durability hook does.
    pub async fn commit_with_media(
        &self,
        batch: &[InboundMessage],
        client: &dyn WaClient,
    ) -> anyhow::Result<()> {
        let mut events = Vec::with_capacity(batch.len());
        for inbound in batch {
            let Some(mut event) = map_message(inbound) else {
                continue;
            };
            if let InboundEvent::Message(message) = &mut event {
                let key = live_key(inbound);
                match fetch_media(client, &inbound.message, &message.external_id, Some(&key)).await
                {
                    Ok(media) => message.media = media,
                    Err(failed) => message.media_failed = Some(Box::new(failed)),
                }
                if message.is_group && message.chat_name.is_empty() {
                    message.chat_name = self.group_subject(client, &message.chat).await;
                }
                phone_number_for_lid(client, message).await;
            }
            events.push(event);
        }
        self.commit_events(events).await
    }

    /// The subject of the group `chat`, asked once per run ([`GROUP_SUBJECT_TIMEOUT`]); empty
    /// when WhatsApp does not answer (the group is then named by its id, and asked again with
    /// its next message).
    async fn group_subject(&self, client: &dyn WaClient, chat: &str) -> String {
        let known = self
            .subjects
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(chat)
            .cloned();
        if let Some(subject) = known {
            return subject;
        }
        let Some(jid) = address::jid_of(chat) else {
            return String::new();
        };
        match tokio::time::timeout(GROUP_SUBJECT_TIMEOUT, client.group_subject(&jid)).await {
            Ok(Ok(subject)) => {
                self.subjects
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .insert(chat.to_owned(), subject.clone());
                subject
            }
            Ok(Err(error)) => {
                tracing::debug!(chat, error = %format!("{error:#}"), "a group's subject could not be read");
                String::new()
            }
            Err(_) => String::new(),
        }
    }

    async fn commit_events(&self, events: Vec<InboundEvent>) -> anyhow::Result<()> {
        let events: Vec<Queued> = events
            .into_iter()
            .map(|event| Queued { event, attempts: 1 })
            .collect();
        match self.deliver(events, None).await {
            Ok(()) => Ok(()),
            Err(Stopped::ShutDown | Stopped::GaveUp) => Err(anyhow::anyhow!(
                "the WhatsApp session of connection {} is stopping: its messages are \
                 delivered again on the next connection",
                self.connection.0
            )),
        }
    }

    /// Delivers events from outside the hook (receipts, missed calls, parts of the history), in
    /// order, at most [`EVENT_ATTEMPTS`] times each; an event still failing then is dropped with
    /// a warning, and so is what follows it once the ingestor is shut down.
    pub async fn deliver_events(&self, events: Vec<InboundEvent>) {
        let queued: Vec<Queued> = events
            .into_iter()
            .map(|event| Queued { event, attempts: 1 })
            .collect();
        let count = queued.len();
        if let Err(stopped) = self.deliver(queued, Some(EVENT_ATTEMPTS)).await {
            tracing::warn!(
                company = self.scope.company_id().0,
                connection = self.connection.0,
                events = count,
                reason = match stopped {
                    Stopped::ShutDown => "the session is stopping",
                    Stopped::GaveUp => "an event failed every attempt",
                },
                "WhatsApp events dropped (receipts, calls and history are not delivered again)"
            );
        }
    }

    /// Delivers `pending` in order: after a failure, waits [`retry_delay`] and delivers the
    /// rest again, the failed event with one more attempt. Gives up when the ingestor is shut
    /// down, or after `max_attempts` of one event when given.
    async fn deliver(
        &self,
        mut pending: Vec<Queued>,
        max_attempts: Option<u32>,
    ) -> Result<(), Stopped> {
        let mut stopped = self.stopped.subscribe();
        while !pending.is_empty() {
            if *stopped.borrow_and_update() {
                return Err(Stopped::ShutDown);
            }
            let done = self
                .sink
                .deliver_batch(self.scope, self.connection, pending.clone())
                .await;
            let Some(error) = done.failed else {
                return Ok(());
            };
            pending.drain(..done.handled.min(pending.len()));
            let waiting = pending.len();
            let Some(failed) = pending.first_mut() else {
                return Ok(());
            };
            let attempts = failed.attempts;
            tracing::warn!(
                company = self.scope.company_id().0,
                connection = self.connection.0,
                attempts,
                waiting,
                error = %error,
                "a WhatsApp event was not delivered; it will be retried"
            );
            if max_attempts.is_some_and(|max| attempts >= max) {
                return Err(Stopped::GaveUp);
            }
            failed.attempts = attempts.saturating_add(1);
            let delay = retry_delay(attempts)
                .to_std()
                .unwrap_or(std::time::Duration::from_secs(60));
            tokio::select! {
                () = tokio::time::sleep(delay) => {}
                _ = stopped.wait_for(|stopped| *stopped) => return Err(Stopped::ShutDown),
            }
        }
        Ok(())
    }
}

/// How long asking a group's subject may take before the message goes on without it.
pub const GROUP_SUBJECT_TIMEOUT: Duration = Duration::from_secs(10);

/// The largest attachment downloaded (64 MiB): a larger one arrives as its kind and caption,
/// without the file.
pub const MAX_MEDIA_BYTES: u64 = 64 * 1024 * 1024;

/// How long one download may take before it counts as failed.
pub const MEDIA_TIMEOUT: Duration = Duration::from_secs(60);

/// Downloads of one attachment before the message is stored without its file.
pub const MEDIA_ATTEMPTS: u32 = 3;

/// How long the phone may take to upload again a file WhatsApp's servers no longer hold
/// ([`download_again`]).
pub const REUPLOAD_TIMEOUT: Duration = Duration::from_secs(30);

/// The key of a live message, as a media re-upload names it: its chat, id, whether we sent it,
/// and in a group its writer.
pub fn live_key(inbound: &InboundMessage) -> MediaMessageKey {
    let source = &inbound.info.source;
    MediaMessageKey {
        chat: source.chat.clone(),
        id: inbound.info.id.clone(),
        from_me: source.is_from_me,
        participant: source.is_group.then(|| source.sender.clone()),
    }
}

/// Downloads the attachment of `message` (received as `external_id`, keyed `key`): `Ok(None)`
/// when it has none or declares more than [`MAX_MEDIA_BYTES`] (nothing to try again),
/// `Ok(Some)` with the file, or, when every one of the [`MEDIA_ATTEMPTS`] tries failed (1 s,
/// then 2 s apart), what a later try needs ([`failed_media`]): the message is stored with
/// `ERR_WAPP_DOWNLOAD_MEDIA` and the inbox offers to try again ([`download_again`]).
pub async fn fetch_media(
    client: &dyn WaClient,
    message: &wa::Message,
    external_id: &str,
    key: Option<&MediaMessageKey>,
) -> Result<Option<ChannelMedia>, FailedMedia> {
    let Some(info) = downloadable(message, external_id) else {
        return Ok(None);
    };
    for attempt in 1..=MEDIA_ATTEMPTS {
        match download_once(client, message, external_id, &info).await {
            Ok(media) => return Ok(media),
            Err(error) => {
                tracing::warn!(message = external_id, attempt, %error, "an attachment could not be downloaded");
            }
        }
        if attempt < MEDIA_ATTEMPTS {
            tokio::time::sleep(Duration::from_secs(u64::from(attempt))).await;
        }
    }
    Err(failed_media(message, external_id, &info, key))
}

/// The attachment of `message` (received as `external_id`) a download would fetch; `None` when
/// it has none or declares more than [`MAX_MEDIA_BYTES`] (logged: it is stored without its
/// file).
fn downloadable(message: &wa::Message, external_id: &str) -> Option<map::MediaInfo> {
    let info = media_of(message)?;
    if declared_size(message).is_some_and(|size| size > MAX_MEDIA_BYTES) {
        tracing::warn!(
            message = external_id,
            "an attachment larger than the download limit is stored without its file"
        );
        return None;
    }
    Some(info)
}

/// What a later download of `message`'s attachment needs ([`failed_media`]), without trying
/// one now: the history's attachments, which the import downloads with [`download_again`].
/// `None` when the message has no attachment, or one larger than [`MAX_MEDIA_BYTES`] (as
/// [`fetch_media`] answers).
pub fn pending_media(
    message: &wa::Message,
    external_id: &str,
    key: Option<&MediaMessageKey>,
) -> Option<FailedMedia> {
    let info = downloadable(message, external_id)?;
    Some(failed_media(message, external_id, &info, key))
}

/// Why one download failed.
#[derive(Debug)]
enum Failure {
    /// WhatsApp's servers no longer hold the file: only the phone can upload it again.
    Gone(MediaGone),
    Other(String),
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Gone(gone) => std::fmt::Display::fmt(gone, f),
            Self::Other(error) => f.write_str(error),
        }
    }
}

/// One bounded download: the file, `None` when it is larger than [`MAX_MEDIA_BYTES`], or why it
/// failed.
async fn download_once(
    client: &dyn WaClient,
    message: &wa::Message,
    external_id: &str,
    info: &map::MediaInfo,
) -> Result<Option<ChannelMedia>, Failure> {
    match tokio::time::timeout(MEDIA_TIMEOUT, client.download(message)).await {
        Ok(Ok(bytes)) if (bytes.len() as u64) <= MAX_MEDIA_BYTES => Ok(Some(ChannelMedia {
            media_type: info.media_type,
            file_name: stored_file_name(external_id, info),
            mime_type: info.mime_type.clone(),
            bytes,
        })),
        Ok(Ok(_)) => {
            tracing::warn!(
                message = external_id,
                "an attachment larger than the download limit is stored without its file"
            );
            Ok(None)
        }
        Ok(Err(error)) => Err(match error.downcast_ref::<MediaGone>() {
            Some(gone) => Failure::Gone(*gone),
            None => Failure::Other(format!("{error:#}")),
        }),
        Err(_) => Err(Failure::Other("timed out".into())),
    }
}

/// The locator of an attachment ([`FailedMedia::locator`], sealed at rest): WhatsApp's message
/// (the media's path and keys; thumbnails dropped), protobuf in base64, and the message's key,
/// which a re-upload by the phone needs. Locators written before the key was kept are the
/// message's base64 alone: they still open, with no key (no re-upload then, a plain retry).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
struct Locator {
    message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    key: Option<LocatorKey>,
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct LocatorKey {
    chat: String,
    id: String,
    from_me: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    participant: Option<String>,
}

/// What a later download of `message`'s attachment needs: its kind, name and type, and as the
/// locator the message itself (the media's path and keys; thumbnails dropped) with its key
/// (see [`open_locator`]).
pub fn failed_media(
    message: &wa::Message,
    external_id: &str,
    info: &map::MediaInfo,
    key: Option<&MediaMessageKey>,
) -> FailedMedia {
    use whatsapp_rust::buffa::Message as _;
    let mut kept = message.clone();
    map::drop_thumbnails(&mut kept);
    let locator = Locator {
        message: base64::engine::general_purpose::STANDARD.encode(kept.encode_to_vec()),
        key: key.map(|key| LocatorKey {
            chat: key.chat.to_string(),
            id: key.id.clone(),
            from_me: key.from_me,
            participant: key.participant.as_ref().map(ToString::to_string),
        }),
    };
    FailedMedia {
        media_type: info.media_type,
        file_name: stored_file_name(external_id, info),
        mime_type: info.mime_type.clone(),
        // A struct of strings always serialises.
        locator: serde_json::to_string(&locator).unwrap_or_default(),
    }
}

/// Opens a locator [`failed_media`] wrote: the message and, when the locator kept it, the
/// message's key. An old locator (the message's base64 alone) opens with no key.
pub fn open_locator(locator: &str) -> Result<(wa::Message, Option<MediaMessageKey>), String> {
    use whatsapp_rust::buffa::Message as _;
    let (encoded, key) = if locator.trim_start().starts_with('{') {
        let opened: Locator =
            serde_json::from_str(locator).map_err(|e| format!("the attachment's locator: {e}"))?;
        (opened.message, opened.key)
    } else {
        (locator.to_owned(), None)
    };
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(encoded.trim())
        .map_err(|e| format!("the attachment's locator: {e}"))?;
    let message = wa::Message::decode_from_slice(&bytes)
        .map_err(|e| format!("the attachment's locator: {e}"))?;
    let key =
        match key {
            None => None,
            Some(key) => Some(MediaMessageKey {
                chat: key
                    .chat
                    .parse()
                    .map_err(|e| format!("the attachment's locator names no chat: {e}"))?,
                id: key.id,
                from_me: key.from_me,
                participant: match key.participant {
                    Some(participant) => Some(participant.parse().map_err(|e| {
                        format!("the attachment's locator names no participant: {e}")
                    })?),
                    None => None,
                },
            }),
        };
    Ok((message, key))
}

/// The media part of `message` (wrappers looked through) as a message of its own, and the
/// part's media key; `None` without media or key.
fn media_part(message: &wa::Message) -> Option<(wa::Message, Vec<u8>)> {
    let base = message.get_base_message().clone();
    let key = [
        base.image_message
            .as_option()
            .and_then(|m| m.media_key.clone()),
        base.video_message
            .as_option()
            .and_then(|m| m.media_key.clone()),
        base.ptv_message
            .as_option()
            .and_then(|m| m.media_key.clone()),
        base.audio_message
            .as_option()
            .and_then(|m| m.media_key.clone()),
        base.document_message
            .as_option()
            .and_then(|m| m.media_key.clone()),
        base.sticker_message
            .as_option()
            .and_then(|m| m.media_key.clone()),
    ]
    .into_iter()
    .flatten()
    .next()?;
    Some((base, key))
}

/// Points the media part of `base` (a message [`media_part`] answered) at `direct_path`.
fn set_direct_path(base: &mut wa::Message, direct_path: &str) {
    let path = Some(direct_path.to_owned());
    if let Some(m) = base.image_message.as_option_mut() {
        m.direct_path = path;
    } else if let Some(m) = base.video_message.as_option_mut() {
        m.direct_path = path;
    } else if let Some(m) = base.ptv_message.as_option_mut() {
        m.direct_path = path;
    } else if let Some(m) = base.audio_message.as_option_mut() {
        m.direct_path = path;
    } else if let Some(m) = base.document_message.as_option_mut() {
        m.direct_path = path;
    } else if let Some(m) = base.sticker_message.as_option_mut() {
        m.direct_path = path;
    }
}

/// Downloads again an attachment [`fetch_media`] could not have (`media` as it reported it):
/// one bounded try; `ERR_WAPP_DOWNLOAD_MEDIA` when it fails (or the locator is not ours).
///
/// When WhatsApp's servers no longer hold the file ([`MediaGone`]) and the locator kept the
/// message's key, the phone is asked to upload it again
/// ([`WaClient::request_media_reupload`]); once it answers with the file's new path (within
/// [`REUPLOAD_TIMEOUT`]) the file is downloaded from there. A phone that does not answer, or
/// cannot upload it (it deleted the file), leaves the download failed.
pub async fn download_again(
    client: &dyn WaClient,
    media: &FailedMedia,
) -> chatflow_core::Result<ChannelMedia> {
    let failed = |detail: String| {
        chatflow_core::Error::with_detail(chatflow_core::ErrorCode::ERR_WAPP_DOWNLOAD_MEDIA, detail)
    };
    let (message, key) = open_locator(&media.locator).map_err(failed)?;
    let info = map::MediaInfo {
        media_type: media.media_type,
        mime_type: media.mime_type.clone(),
        file_name: Some(media.file_name.clone()),
        voice_note: false,
    };
    let named = |downloaded: ChannelMedia| ChannelMedia {
        file_name: media.file_name.clone(),
        ..downloaded
    };
    let gone = match download_once(client, &message, "", &info).await {
        Ok(Some(downloaded)) => return Ok(named(downloaded)),
        Ok(None) => return Err(failed("larger than the download limit".into())),
        Err(Failure::Other(error)) => return Err(failed(error)),
        Err(Failure::Gone(gone)) => gone,
    };
    let Some(key) = key else {
        return Err(failed(format!(
            "{gone}; the phone cannot be asked to upload it again (the attachment was kept \
             without its message's key)"
        )));
    };
    let Some((mut base, media_key)) = media_part(&message) else {
        return Err(failed(format!("{gone}; the attachment has no media key")));
    };
    let asked = tokio::time::timeout(
        REUPLOAD_TIMEOUT,
        client.request_media_reupload(&key, &media_key),
    )
    .await;
    let direct_path = match asked {
        Ok(Ok(direct_path)) => direct_path,
        Ok(Err(error)) => {
            return Err(failed(format!(
                "{gone}; the phone did not upload it again: {error:#}"
            )));
        }
        Err(_) => {
            return Err(failed(format!(
                "{gone}; the phone did not answer the request to upload it again within {} s",
                REUPLOAD_TIMEOUT.as_secs()
            )));
        }
    };
    tracing::debug!(message = key.id, "the phone uploaded an attachment again");
    set_direct_path(&mut base, &direct_path);
    match download_once(client, &base, "", &info).await {
        Ok(Some(downloaded)) => Ok(named(downloaded)),
        Ok(None) => Err(failed("larger than the download limit".into())),
        Err(error) => Err(failed(format!("uploaded again by the phone, but: {error}"))),
    }
}

/// The library's inbound durability hook over an [`Ingestor`]: WhatsApp gets the ack of a batch
/// only after [`Ingestor::commit_with_media`] answered `Ok`.
pub struct IngestHook(pub Arc<Ingestor>);

#[async_trait]
impl InboundDurabilityHook for IngestHook {
    async fn on_messages(
        &self,
        client: Arc<Client>,
        batch: &[InboundMessage],
    ) -> anyhow::Result<()> {
        self.0.commit_with_media(batch, &RealWaClient(client)).await
    }
}

/// A one-to-one message known only by the person's LID: when the session learned the person's
/// phone number (from a contact sync, a group, an earlier message), the message is addressed by
/// the number and the LID becomes its alias, so it reaches the contact the number has. A failed
/// lookup leaves the message as it came (the contact is merged once WhatsApp tells both).
async fn phone_number_for_lid(
    client: &dyn WaClient,
    message: &mut chatflow_core::inbox::channel::InboundMessage,
) {
    if message.is_group
        || !message.chat.ends_with("@lid")
        || message.aliases.iter().any(|a| identities::is_phone(a))
    {
        return;
    }
    let Some(lid) = address::jid_of(&message.chat) else {
        return;
    };
    match tokio::time::timeout(GROUP_SUBJECT_TIMEOUT, client.phone_number_of(&lid)).await {
        Ok(Ok(Some(phone))) => {
            let lid = std::mem::replace(&mut message.chat, phone);
            if !message.aliases.contains(&lid) {
                message.aliases.push(lid);
            }
        }
        Ok(Ok(None)) => {}
        Ok(Err(error)) => {
            tracing::debug!(%error, "the phone number of a LID could not be looked up")
        }
        Err(_) => tracing::debug!("the phone number of a LID was not looked up in time"),
    }
}
