//! Webhook deliveries parsed into the core's [`InboundEvent`]s: pure functions, no client, no
//! clock (the caller passes the time the delivery arrived, used only for an event without a
//! readable time of its own).
//!
//! One app webhook receives the three channels; `object` says which:
//!
//! | `object` | channel | routed by ([`Item::account`]) | parsed in |
//! |---|---|---|---|
//! | `whatsapp_business_account` | Cloud API | `metadata.phone_number_id` of each change | [`cloud`] |
//! | `page` | Messenger | `entry[].id` (the page id) | [`messaging`] |
//! | `instagram` | Instagram Direct | `entry[].id` (the Instagram professional account id) | [`messaging`] |
//!
//! The host finds the connection by (channel, account) and delivers each item's event to the
//! inbound sink, in order, before answering 200 (Meta redelivers anything else, so duplicates are
//! normal: each message keeps the channel's id as its external id, and a redelivery yields the
//! same ids).
//!
//! # Nothing unknown fails the whole delivery
//!
//! A delivery that is not a JSON object is an error ([`ParseError`]). Anything inside it that
//! cannot be read, or that the inbox has no place for, is **skipped** and listed in
//! [`Delivery::skipped`] with the reason (the host logs them at warn), and the rest of the
//! delivery is parsed: another entry, change or message is never lost because of a neighbour.
//! A message of a **type the inbox cannot show** (WhatsApp's `unsupported`, `order`, a Flow's
//! `nfm_reply`, a type added after this code, an Instagram message flagged `is_unsupported`, an
//! attachment type we do not know) is not dropped: it becomes a message whose body is the
//! notice [`unsupported_notice`] (`[unsupported: <type>]`), so the attendant sees that the
//! contact sent something and can ask for it another way. Events that carry no message of the
//! contact (a `request_welcome`, referrals, opt-ins, hand-overs, comments, read watermarks without
//! a message id) are skipped.
//!
//! # Attachments are not downloaded here
//!
//! A message with a file comes with [`Item::media`], what its download needs (a Cloud media id,
//! or a Messenger/Instagram CDN URL), and its event has neither `media` nor `media_failed`. The
//! host downloads it with [`crate::graph::GraphClient::fetch_media`] and completes the event
//! with [`Item::with_media`], before delivering it.

pub mod cloud;
pub mod messaging;

use chatflow_core::inbox::channel::{ChannelMedia, FailedMedia, InboundEvent};
use chatflow_core::inbox::model::ProviderKind;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// Which of Meta's channels a delivery (or an item of it) is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MetaChannel {
    /// WhatsApp Cloud API (`object = whatsapp_business_account`).
    Cloud,
    /// Facebook Messenger (`object = page`).
    Messenger,
    /// Instagram Direct (`object = instagram`).
    Instagram,
}

impl MetaChannel {
    /// The core's provider kind of the channel's connections.
    pub const fn provider(self) -> ProviderKind {
        match self {
            MetaChannel::Cloud => ProviderKind::Cloud,
            MetaChannel::Messenger => ProviderKind::Facebook,
            MetaChannel::Instagram => ProviderKind::Instagram,
        }
    }

    /// The channel of a delivery's `object`; `None` for objects that carry no messages.
    pub fn of_object(object: &str) -> Option<Self> {
        match object {
            "whatsapp_business_account" => Some(MetaChannel::Cloud),
            "page" => Some(MetaChannel::Messenger),
            "instagram" => Some(MetaChannel::Instagram),
            _ => None,
        }
    }
}

/// How deliveries are read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ParseOptions {
    /// Our Meta app ids. A Messenger or Instagram echo (`is_echo`) whose `app_id` is one of
    /// them is a message this app sent through the Send API, stored when it was sent: it is
    /// skipped, so a fast echo can never race the send into a second copy. Echoes of messages
    /// sent from Meta's own inbox (another app id, or none) are kept as sent by the company.
    pub own_app_ids: Vec<String>,
}

/// What a webhook delivery holds.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Delivery {
    /// The events, in the order of the delivery.
    pub items: Vec<Item>,
    /// What was left out, with the reason (see the module's documentation).
    pub skipped: Vec<Skipped>,
}

/// One event for one connection.
#[derive(Debug, Clone, PartialEq)]
pub struct Item {
    /// The channel it came through.
    pub channel: MetaChannel,
    /// The account the event belongs to: the Cloud API phone number id, the page id or the
    /// Instagram account id (the host's key to the connection).
    pub account: String,
    /// The event, as the inbound sink takes it (attachments still to download: see `media`).
    pub event: InboundEvent,
    /// The attachment of a message event, to download before delivering it.
    pub media: Option<MediaRef>,
    /// Why Meta could not deliver one of our messages (a `failed` status): the event is then
    /// an ack of [`crate::ACK_FAILED`]. The core's ack event has no place for the reason yet.
    pub failure: Option<SendFailure>,
}

impl Item {
    /// The item's event with its attachment: the downloaded file as the message's `media`, or,
    /// when the download failed, the message kept with `media_failed` holding what a later try
    /// needs (the [`MediaRef`] as its locator), so the message is never lost. Events without an
    /// attachment come back as they are.
    pub fn with_media(
        self,
        downloaded: Result<ChannelMedia, chatflow_core::Error>,
    ) -> InboundEvent {
        let (InboundEvent::Message(mut message), Some(media)) = (self.event.clone(), self.media)
        else {
            return self.event;
        };
        match downloaded {
            Ok(file) => message.media = Some(file),
            Err(error) => {
                tracing::warn!(external_id = %message.external_id, %error, "attachment not downloaded; the message is kept without it");
                message.media_failed = Some(Box::new(FailedMedia {
                    media_type: message.media_type,
                    file_name: media.file_name_for(&message.external_id),
                    mime_type: media.mime_type().to_owned(),
                    locator: media.to_locator(),
                }));
            }
        }
        InboundEvent::Message(message)
    }
}

/// Where an inbound attachment is fetched from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum MediaRef {
    /// A Cloud API media id (`GET /{v}/{id}` gives a short-lived URL to fetch with the token).
    #[serde(rename_all = "camelCase")]
    Cloud {
        /// The media id.
        id: String,
        /// The type Meta declared.
        mime_type: String,
        /// The file's SHA-256 as Meta gave it (hex or base64), checked after the download.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        sha256: Option<String>,
        /// A document's file name.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        file_name: Option<String>,
        /// An audio recorded as a voice note.
        #[serde(default)]
        voice: bool,
    },
    /// A Messenger or Instagram attachment: an expiring CDN URL, fetched without a token.
    #[serde(rename_all = "camelCase")]
    Url {
        /// The CDN URL.
        url: String,
        /// The type, when known; else taken from the download's `Content-Type`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        mime_type: Option<String>,
    },
}

impl MediaRef {
    /// The declared type (`application/octet-stream` when unknown).
    pub fn mime_type(&self) -> &str {
        match self {
            MediaRef::Cloud { mime_type, .. } if !mime_type.trim().is_empty() => mime_type,
            MediaRef::Url {
                mime_type: Some(m), ..
            } if !m.trim().is_empty() => m,
            _ => "application/octet-stream",
        }
    }

    /// The file name to store the attachment under: a document's own name, else the message's
    /// id with the type's extension.
    pub fn file_name_for(&self, external_id: &str) -> String {
        if let MediaRef::Cloud {
            file_name: Some(name),
            ..
        } = self
            && !name.trim().is_empty()
        {
            return name.clone();
        }
        let extension = chatflow_core::media::extension_for(self.mime_type());
        let stem: String = external_id
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .take(64)
            .collect();
        format!("{stem}.{extension}")
    }

    /// The reference as a [`FailedMedia`] locator (JSON).
    pub fn to_locator(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// The reference a locator holds; `None` when it is not one of ours.
    pub fn from_locator(locator: &str) -> Option<Self> {
        serde_json::from_str(locator).ok()
    }
}

/// Why Meta did not deliver a message we sent (a Cloud API `failed` status).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SendFailure {
    /// Meta's error code (131047: outside the 24-hour window; 131026: undeliverable...).
    pub code: Option<i64>,
    /// Its title.
    pub title: String,
    /// Its message and details, when given.
    pub message: String,
}

/// Something of a delivery that was left out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    /// The channel, when the delivery's object named one.
    pub channel: Option<MetaChannel>,
    /// The account it was for, when known.
    pub account: String,
    /// What it was (`message type request_welcome`, `status deleted`, `field account_update`...).
    pub what: String,
    /// Why it was left out.
    pub reason: String,
}

/// A delivery that cannot be read at all.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    /// The body is not a JSON object.
    #[error("the delivery is not a JSON object: {0}")]
    NotJson(String),
}

/// The body of a message of a type the inbox cannot show (see the module's documentation).
pub fn unsupported_notice(kind: &str) -> String {
    let kind: String = kind
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
        .take(40)
        .collect();
    let kind = if kind.is_empty() { "unknown" } else { &kind };
    format!("[unsupported: {kind}]")
}

/// Parses a verified delivery (see the module's documentation). `received_at` stands in for
/// the time of an event that carries none Meta's way.
pub fn parse(
    body: &[u8],
    options: &ParseOptions,
    received_at: DateTime<Utc>,
) -> Result<Delivery, ParseError> {
    let root: serde_json::Value =
        serde_json::from_slice(body).map_err(|e| ParseError::NotJson(e.to_string()))?;
    let object = root
        .as_object()
        .ok_or_else(|| ParseError::NotJson("not an object".to_owned()))?;
    let kind = object
        .get("object")
        .and_then(serde_json::Value::as_str)
        .unwrap_or_default();
    let entries: &[serde_json::Value] = object
        .get("entry")
        .and_then(serde_json::Value::as_array)
        .map_or(&[], Vec::as_slice);
    let mut out = Delivery::default();
    match MetaChannel::of_object(kind) {
        Some(MetaChannel::Cloud) => {
            for entry in entries {
                cloud::parse_entry(entry, received_at, &mut out);
            }
        }
        Some(channel) => {
            for entry in entries {
                messaging::parse_entry(channel, entry, options, received_at, &mut out);
            }
        }
        None => out.skipped.push(Skipped {
            channel: None,
            account: String::new(),
            what: format!("object {kind}"),
            reason: "not a messaging object".to_owned(),
        }),
    }
    Ok(out)
}

/// A text that is not blank.
pub(crate) fn non_empty(text: Option<&str>) -> Option<&str> {
    text.filter(|t| !t.trim().is_empty())
}

/// A location as the inbox shows one: its name and address when given, then a map link.
pub(crate) fn location_text(labels: [Option<&str>; 2], latitude: f64, longitude: f64) -> String {
    let mut lines: Vec<String> = labels
        .into_iter()
        .filter_map(non_empty)
        .map(str::to_owned)
        .collect();
    lines.push(format!(
        "https://maps.google.com/maps?q={latitude},{longitude}"
    ));
    lines.join("\n")
}
