//! Outbound: the core's [`Outbound`] turned into WhatsApp's message protos and sent through a
//! [`WaClient`] (design B6).
//!
//! - [`to_jid`]: the address a ticket holds (a number, a group id, a LID) as a WhatsApp address.
//! - [`message_id`]: our own message id, derived from the send's idempotency key, so a send
//!   resumed after a crash goes out under the id of the first attempt.
//! - [`text_message`], [`media_message`], [`contact_message`], [`location_message`]: the
//!   protos, each carrying the quote ([`quote_context`]) when there is one.
//! - [`send_outbound`]: upload (for media), then send; failures as the spec's codes.
//!
//! Everything here but [`send_outbound`] is pure.

use chatflow_core::inbox::channel::{ChannelMedia, ContactCard, Outbound, OutboundContent};
use chatflow_core::inbox::model::MediaType;
use chatflow_core::{Error, ErrorCode, Result, WhatsappId};
use sha2::{Digest, Sha256};
use whatsapp_rust::Jid;
use whatsapp_rust::buffa::MessageField;
use whatsapp_rust::wacore::proto_helpers::build_quote_context_with_info;
use whatsapp_rust::wacore::request::RequestUtils;
use whatsapp_rust::waproto::whatsapp as wa;

use crate::client::{MediaKind, NotConnected, Uploaded, WaClient};

/// The MIME type WhatsApp plays as a voice note.
pub const VOICE_NOTE_MIME: &str = "audio/ogg; codecs=opus";

/// The most digits of a phone number (E.164).
const MAX_PHONE_DIGITS: usize = 15;
/// The fewest digits we take for a phone number.
const MIN_PHONE_DIGITS: usize = 6;

fn invalid_contact(to: &str) -> Error {
    Error::with_detail(
        ErrorCode::ERR_WAPP_INVALID_CONTACT,
        format!("not a WhatsApp address: {to:?}"),
    )
}

fn all_digits(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

/// The WhatsApp address of `to`, as a ticket holds it:
///
/// - a phone number, digits with an optional leading `+` and spaces, dashes, dots or
///   parentheses between them → `digits@s.whatsapp.net`; the same address written out
///   (`…@s.whatsapp.net`, or the older `…@c.us`) is taken as is;
/// - `…@g.us` → a group (digits, or the older `creator-timestamp` form);
/// - `…@lid` → a LID;
/// - anything else → `ERR_WAPP_INVALID_CONTACT`.
pub fn to_jid(to: &str) -> Result<Jid> {
    let trimmed = to.trim();
    if let Some((user, server)) = trimmed.split_once('@') {
        let valid = match server {
            "s.whatsapp.net" | "c.us" => phone_digits(user).is_some_and(|d| d == user),
            "g.us" => {
                let mut parts = user.splitn(2, '-');
                parts.next().is_some_and(all_digits) && parts.next().is_none_or(all_digits)
            }
            "lid" => all_digits(user),
            _ => false,
        };
        return match server {
            _ if !valid => Err(invalid_contact(to)),
            "g.us" => Ok(Jid::group(user)),
            "lid" => Ok(Jid::lid(user)),
            _ => Ok(Jid::pn(user)),
        };
    }
    phone_digits(trimmed)
        .map(Jid::pn)
        .ok_or_else(|| invalid_contact(to))
}

/// The digits of a written phone number, when it is one.
fn phone_digits(number: &str) -> Option<String> {
    let rest = number.strip_prefix('+').unwrap_or(number);
    let mut digits = String::with_capacity(rest.len());
    for c in rest.chars() {
        match c {
            '0'..='9' => digits.push(c),
            ' ' | '-' | '.' | '(' | ')' => {}
            _ => return None,
        }
    }
    (MIN_PHONE_DIGITS..=MAX_PHONE_DIGITS)
        .contains(&digits.len())
        .then_some(digits)
}

/// Our id for a message: `"3EB0"` and 18 uppercase hex digits, the shape of the ids WhatsApp Web
/// makes. With an idempotency key it is the first 18 hex digits of
/// sha256(connection id as 8 big-endian bytes ‖ key), so every attempt of one send carries the
/// same id; without one it is random.
pub fn message_id(connection: WhatsappId, idempotency_key: Option<&str>) -> String {
    let Some(key) = idempotency_key else {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        return RequestUtils::message_id_at(None, now);
    };
    let mut hasher = Sha256::new();
    hasher.update(connection.0.to_be_bytes());
    hasher.update(key.as_bytes());
    let digest = hasher.finalize();
    let mut id = String::with_capacity(22);
    id.push_str("3EB0");
    for byte in &digest[..9] {
        id.push_str(&format!("{byte:02X}"));
    }
    id
}

/// What we know of a quoted message besides its id (from its stored proto).
#[derive(Debug, Clone, PartialEq)]
pub struct QuotedMessage {
    /// Who wrote it (our own address for a message we sent).
    pub sender: Jid,
    /// Its content, shown in the quote.
    pub message: wa::Message,
}

/// The context of a reply to the message `id` in `chat`: with the quoted message's sender and
/// content when they are known (what the phone shows), else its id alone.
pub fn quote_context(id: &str, chat: &Jid, quoted: Option<&QuotedMessage>) -> wa::ContextInfo {
    match quoted {
        Some(quoted) => {
            build_quote_context_with_info(id, &quoted.sender, chat, chat, &quoted.message)
        }
        None => wa::ContextInfo {
            stanza_id: Some(id.to_owned()),
            ..Default::default()
        },
    }
}

fn context_field(context: Option<wa::ContextInfo>) -> MessageField<wa::ContextInfo> {
    context.map_or_else(MessageField::none, MessageField::some)
}

fn non_empty(s: &str) -> Option<String> {
    (!s.is_empty()).then(|| s.to_owned())
}

/// A text message: plain, or as an extended text carrying its quote.
pub fn text_message(body: &str, context: Option<wa::ContextInfo>) -> wa::Message {
    match context {
        None => wa::Message {
            conversation: Some(body.to_owned()),
            ..Default::default()
        },
        Some(context) => wa::Message {
            extended_text_message: MessageField::some(wa::message::ExtendedTextMessage {
                text: Some(body.to_owned()),
                context_info: MessageField::some(context),
                ..Default::default()
            }),
            ..Default::default()
        },
    }
}

/// Whether `media` goes out as a voice note: an OGG audio (Opus), the only kind phones play as
/// one. The core says no more than the file's type.
pub fn is_voice_note(media: &ChannelMedia) -> bool {
    media.media_type == MediaType::Audio
        && media
            .mime_type
            .trim()
            .to_ascii_lowercase()
            .starts_with("audio/ogg")
}

/// How `media` is uploaded: images, videos and audio as such, anything else as a document.
pub fn media_kind(media: &ChannelMedia) -> MediaKind {
    match media.media_type {
        MediaType::Image => MediaKind::Image,
        MediaType::Video => MediaKind::Video,
        MediaType::Audio => MediaKind::Audio,
        _ => MediaKind::Document,
    }
}

/// The message of an uploaded `media` of kind `kind`, with its caption (images, videos and
/// documents; audio has none), its type, and for a document its file name.
pub fn media_message(
    media: &ChannelMedia,
    kind: MediaKind,
    caption: &str,
    uploaded: &Uploaded,
    context: Option<wa::ContextInfo>,
) -> wa::Message {
    let mime = non_empty(media.mime_type.trim());
    let context_info = context_field(context);
    let url = Some(uploaded.url.clone());
    let direct_path = Some(uploaded.direct_path.clone());
    let media_key = Some(uploaded.media_key.to_vec());
    let file_enc_sha256 = Some(uploaded.file_enc_sha256.to_vec());
    let file_sha256 = Some(uploaded.file_sha256.to_vec());
    let file_length = Some(uploaded.file_length);
    let media_key_timestamp = Some(uploaded.media_key_timestamp);
    match kind {
        MediaKind::Image => wa::Message {
            image_message: MessageField::some(wa::message::ImageMessage {
                url,
                mimetype: mime.or_else(|| Some("image/jpeg".to_owned())),
                caption: non_empty(caption),
                file_sha256,
                file_length,
                media_key,
                file_enc_sha256,
                direct_path,
                media_key_timestamp,
                context_info,
                ..Default::default()
            }),
            ..Default::default()
        },
        MediaKind::Video => wa::Message {
            video_message: MessageField::some(wa::message::VideoMessage {
                url,
                mimetype: mime.or_else(|| Some("video/mp4".to_owned())),
                caption: non_empty(caption),
                file_sha256,
                file_length,
                media_key,
                file_enc_sha256,
                direct_path,
                media_key_timestamp,
                streaming_sidecar: uploaded.streaming_sidecar.clone(),
                context_info,
                ..Default::default()
            }),
            ..Default::default()
        },
        MediaKind::Audio => {
            let ptt = is_voice_note(media);
            wa::Message {
                audio_message: MessageField::some(wa::message::AudioMessage {
                    url,
                    mimetype: if ptt {
                        Some(VOICE_NOTE_MIME.to_owned())
                    } else {
                        mime.or_else(|| Some("audio/mpeg".to_owned()))
                    },
                    ptt: Some(ptt),
                    file_sha256,
                    file_length,
                    media_key,
                    file_enc_sha256,
                    direct_path,
                    media_key_timestamp,
                    streaming_sidecar: uploaded.streaming_sidecar.clone(),
                    context_info,
                    ..Default::default()
                }),
                ..Default::default()
            }
        }
        MediaKind::Sticker => wa::Message {
            sticker_message: MessageField::some(wa::message::StickerMessage {
                url,
                mimetype: mime.or_else(|| Some("image/webp".to_owned())),
                file_sha256,
                file_length,
                media_key,
                file_enc_sha256,
                direct_path,
                media_key_timestamp,
                context_info,
                ..Default::default()
            }),
            ..Default::default()
        },
        MediaKind::Document => wa::Message {
            document_message: MessageField::some(wa::message::DocumentMessage {
                url,
                mimetype: mime.or_else(|| Some("application/octet-stream".to_owned())),
                title: non_empty(&media.file_name),
                file_name: non_empty(&media.file_name),
                caption: non_empty(caption),
                file_sha256,
                file_length,
                media_key,
                file_enc_sha256,
                direct_path,
                media_key_timestamp,
                context_info,
                ..Default::default()
            }),
            ..Default::default()
        },
    }
}

/// A vCard text value with its special characters escaped (RFC 2426 §4).
fn vcard_text(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            ',' => out.push_str("\\,"),
            ';' => out.push_str("\\;"),
            '\n' => out.push_str("\\n"),
            '\r' => {}
            c => out.push(c),
        }
    }
    out
}

/// The vCard 3.0 of a contact card: its name, and its number with the `waid` parameter that
/// makes the phone offer "message" and "add".
pub fn vcard(card: &ContactCard) -> String {
    let name = vcard_text(card.name.trim());
    let digits: String = card.number.chars().filter(char::is_ascii_digit).collect();
    let tel = if digits.is_empty() {
        format!(
            "TEL;type=CELL;type=VOICE:{}",
            vcard_text(card.number.trim())
        )
    } else {
        format!("TEL;type=CELL;type=VOICE;waid={digits}:+{digits}")
    };
    format!("BEGIN:VCARD\nVERSION:3.0\nN:;{name};;;\nFN:{name}\n{tel}\nEND:VCARD")
}

/// A contact card message.
pub fn contact_message(card: &ContactCard, context: Option<wa::ContextInfo>) -> wa::Message {
    wa::Message {
        contact_message: MessageField::some(wa::message::ContactMessage {
            display_name: Some(card.name.trim().to_owned()),
            vcard: Some(vcard(card)),
            context_info: context_field(context),
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// A location message (a pin with an optional name).
pub fn location_message(
    latitude: f64,
    longitude: f64,
    name: &str,
    context: Option<wa::ContextInfo>,
) -> wa::Message {
    wa::Message {
        location_message: MessageField::some(wa::message::LocationMessage {
            degrees_latitude: Some(latitude),
            degrees_longitude: Some(longitude),
            name: non_empty(name),
            context_info: context_field(context),
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// A failed call as the spec's code: `ERR_WAPP_NOT_INITIALIZED` when the session was down,
/// else `ERR_SENDING_WAPP_MSG`.
fn send_failure(error: &anyhow::Error) -> Error {
    if error.downcast_ref::<NotConnected>().is_some() {
        return Error::with_detail(ErrorCode::ERR_WAPP_NOT_INITIALIZED, error.to_string());
    }
    Error::with_detail(ErrorCode::ERR_SENDING_WAPP_MSG, format!("{error:#}"))
}

/// Sends `outbound` through `client` and answers the id WhatsApp took: uploads its media first,
/// builds the proto (quoting `outbound.quoted_external_id`, with `quoted`'s sender and content
/// when known), and sends under [`message_id`] of its connection and idempotency key, so a
/// retried send reuses the id.
///
/// Errors: `ERR_WAPP_INVALID_CONTACT` for an address that is none, `ERR_WAPP_NOT_INITIALIZED`
/// when the session is not connected, `ERR_SENDING_WAPP_MSG` when the upload or the send failed.
pub async fn send_outbound(
    client: &dyn WaClient,
    outbound: &Outbound,
    quoted: Option<&QuotedMessage>,
) -> Result<String> {
    let to = to_jid(&outbound.to)?;
    if !client.is_connected() {
        return Err(Error::with_detail(
            ErrorCode::ERR_WAPP_NOT_INITIALIZED,
            NotConnected.to_string(),
        ));
    }
    let context = outbound
        .quoted_external_id
        .as_deref()
        .map(|id| quote_context(id, &to, quoted));
    let message = match &outbound.content {
        OutboundContent::Text { body } => text_message(body, context),
        OutboundContent::Media { media, caption } => {
            let kind = media_kind(media);
            let uploaded = client
                .upload(media.bytes.clone(), kind)
                .await
                .map_err(|e| send_failure(&e))?;
            media_message(media, kind, caption, &uploaded, context)
        }
        OutboundContent::Contact { card } => contact_message(card, context),
        OutboundContent::Location {
            latitude,
            longitude,
            name,
        } => location_message(latitude.get(), longitude.get(), name, context),
    };
    let id = message_id(outbound.connection, outbound.idempotency_key.as_deref());
    client
        .send(&to, message, &id)
        .await
        .map_err(|e| send_failure(&e))
}
