//! The Cloud API's `messages` webhook field (`object = whatsapp_business_account`).
//!
//! | Meta | inbox event |
//! |---|---|
//! | `text` | message (`chat`), its body |
//! | `image`, `sticker` | message (`image`), the caption; the media id to download (a sticker is a WebP image) |
//! | `video` | message (`video`), the caption |
//! | `audio` (`voice: true` for a voice note) | message (`audio`) |
//! | `document` | message (`application`), the caption, else the file name; stored under its file name |
//! | `location` | message (`locationMessage`): name, address, a map link |
//! | `contacts` | message (`contactMessage`): each card's name and numbers (the WhatsApp id where given) |
//! | `interactive` `button_reply` / `list_reply` | message (`chat`), the chosen title |
//! | `button` (a template's quick reply) | message (`chat`), the button's text |
//! | `reaction` | reaction on `message_id` (no or empty emoji: removed) |
//! | `system` `user_changed_number` | identities: the new number, the old number (and BSUIDs) as aliases |
//! | `system` `user_changed_user_id` | identities: the person, with the new and previous BSUIDs |
//! | `edit` / `revoke` (coexistence numbers) | edit / deletion of `original_message_id` |
//! | `unsupported`, `order`, `interactive` `nfm_reply`, unknown types | message with [`super::unsupported_notice`] |
//! | `request_welcome` | skipped (no content) |
//! | `context.id` | the quoted message's external id |
//! | statuses `sent` / `delivered` / `read` / `played` | ack 1 / 2 / 3 / 4 |
//! | status `failed` | ack [`crate::ACK_FAILED`] with [`super::SendFailure`] (code, title, details) |
//!
//! **Who wrote it.** The chat is the contact's phone number (`from`, digits only) when Meta gives
//! it; a user who adopted a username may come without one, and is then known by their
//! business-scoped user id (BSUID, `from_user_id` or the contact's `user_id`, e.g.
//! `US.13491208655302741918`: never digits only, so never taken for a number). When both come,
//! the BSUID goes along as the message's alias, so the inbox keeps one contact whichever of the
//! two a later message carries ([`chatflow_core::inbox::identities`]). The chat's name is the
//! contact's `profile.name`, else their `profile.username`. The username itself is not an
//! identity: users change it, and a released username could join two people into one contact.
//!
//! Other fields of the account (`message_template_status_update`, `account_update`, ...) are
//! skipped.

use chatflow_core::inbox::channel::{InboundEvent, InboundMessage};
use chatflow_core::inbox::model::MediaType;
use chrono::{DateTime, Utc};
use serde::Deserialize;
use serde_json::Value;

use super::{
    Delivery, Item, MediaRef, MetaChannel, SendFailure, Skipped, location_text, non_empty,
    unsupported_notice,
};
use crate::{ACK_DELIVERED, ACK_FAILED, ACK_PLAYED, ACK_READ, ACK_SENT};

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Change {
    field: String,
    value: ChangeValue,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct ChangeValue {
    metadata: Metadata,
    contacts: Vec<Contact>,
    messages: Vec<Value>,
    statuses: Vec<Value>,
    errors: Vec<Value>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Metadata {
    phone_number_id: String,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Contact {
    profile: Profile,
    wa_id: Option<String>,
    user_id: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Profile {
    name: Option<String>,
    username: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Message {
    id: String,
    from: Option<String>,
    from_user_id: Option<String>,
    timestamp: Option<Value>,
    #[serde(rename = "type")]
    kind: String,
    context: Option<Context>,
    text: Option<Text>,
    image: Option<Media>,
    video: Option<Media>,
    audio: Option<Media>,
    document: Option<Media>,
    sticker: Option<Media>,
    location: Option<Location>,
    contacts: Option<Vec<Card>>,
    interactive: Option<Interactive>,
    button: Option<Button>,
    reaction: Option<Reaction>,
    system: Option<System>,
    unsupported: Option<Unsupported>,
    edit: Option<Edit>,
    revoke: Option<Revoke>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Context {
    id: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Text {
    body: String,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Media {
    id: String,
    mime_type: String,
    sha256: Option<String>,
    caption: Option<String>,
    filename: Option<String>,
    voice: bool,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Location {
    latitude: Option<f64>,
    longitude: Option<f64>,
    name: Option<String>,
    address: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Card {
    name: CardName,
    phones: Vec<CardPhone>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct CardName {
    formatted_name: Option<String>,
    first_name: Option<String>,
    last_name: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct CardPhone {
    phone: Option<String>,
    wa_id: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Interactive {
    #[serde(rename = "type")]
    kind: String,
    button_reply: Option<Choice>,
    list_reply: Option<Choice>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Choice {
    title: String,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Button {
    text: Option<String>,
    payload: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Reaction {
    message_id: String,
    emoji: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct System {
    #[serde(rename = "type")]
    kind: String,
    /// The new number (`user_changed_number`).
    wa_id: Option<String>,
    /// The new BSUID (`user_changed_user_id`).
    user_id: Option<String>,
    previous_user_id: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Unsupported {
    #[serde(rename = "type")]
    kind: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Edit {
    original_message_id: String,
    message: Option<EditedMessage>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct EditedMessage {
    text: Option<Text>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Revoke {
    original_message_id: String,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Status {
    id: String,
    status: String,
    errors: Vec<StatusError>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct StatusError {
    code: Option<i64>,
    title: String,
    message: String,
    error_data: ErrorData,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct ErrorData {
    details: String,
}

/// One `entry[]` of a Cloud API delivery.
pub(crate) fn parse_entry(entry: &Value, received_at: DateTime<Utc>, out: &mut Delivery) {
    let changes = entry
        .get("changes")
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice);
    for raw in changes {
        let change: Change = match Change::deserialize(raw) {
            Ok(change) => change,
            Err(e) => {
                out.skipped
                    .push(skipped("", "change", format!("unreadable: {e}")));
                continue;
            }
        };
        if change.field != "messages" {
            out.skipped.push(skipped(
                &change.value.metadata.phone_number_id,
                &format!("field {}", change.field),
                "not a messages field".to_owned(),
            ));
            continue;
        }
        parse_value(&change.value, received_at, out);
    }
}

fn parse_value(value: &ChangeValue, received_at: DateTime<Utc>, out: &mut Delivery) {
    let account = value.metadata.phone_number_id.as_str();
    if account.is_empty() {
        out.skipped.push(skipped(
            "",
            "messages change",
            "no metadata.phone_number_id".to_owned(),
        ));
        return;
    }
    for error in &value.errors {
        out.skipped
            .push(skipped(account, "webhook error", error.to_string()));
    }
    for raw in &value.messages {
        match Message::deserialize(raw) {
            Ok(message) => parse_message(account, &value.contacts, &message, received_at, out),
            Err(e) => out
                .skipped
                .push(skipped(account, "message", format!("unreadable: {e}"))),
        }
    }
    for raw in &value.statuses {
        match Status::deserialize(raw) {
            Ok(status) => parse_status(account, &status, out),
            Err(e) => out
                .skipped
                .push(skipped(account, "status", format!("unreadable: {e}"))),
        }
    }
}

fn parse_status(account: &str, status: &Status, out: &mut Delivery) {
    if status.id.is_empty() {
        out.skipped
            .push(skipped(account, "status", "no message id".to_owned()));
        return;
    }
    let ack = match status.status.as_str() {
        "sent" => ACK_SENT,
        "delivered" => ACK_DELIVERED,
        "read" => ACK_READ,
        "played" => ACK_PLAYED,
        "failed" => ACK_FAILED,
        other => {
            out.skipped.push(skipped(
                account,
                &format!("status {other}"),
                "not a delivery status".to_owned(),
            ));
            return;
        }
    };
    let failure = (ack == ACK_FAILED).then(|| {
        let first = status.errors.first();
        SendFailure {
            code: first.and_then(|e| e.code),
            title: first.map(|e| e.title.clone()).unwrap_or_default(),
            message: first
                .map(|e| {
                    [e.message.as_str(), e.error_data.details.as_str()]
                        .into_iter()
                        .filter(|t| !t.trim().is_empty())
                        .collect::<Vec<_>>()
                        .join(": ")
                })
                .unwrap_or_default(),
        }
    });
    out.items.push(Item {
        channel: MetaChannel::Cloud,
        account: account.to_owned(),
        event: InboundEvent::Ack {
            external_id: status.id.clone(),
            ack,
        },
        media: None,
        failure,
    });
}

/// Digits only, or `None` when nothing is left.
fn digits(text: Option<&str>) -> Option<String> {
    let digits: String = text?.chars().filter(char::is_ascii_digit).collect();
    (!digits.is_empty()).then_some(digits)
}

fn parse_message(
    account: &str,
    contacts: &[Contact],
    message: &Message,
    received_at: DateTime<Utc>,
    out: &mut Delivery,
) {
    let what = format!("message type {}", message.kind);
    if message.id.is_empty() {
        out.skipped
            .push(skipped(account, &what, "no message id".to_owned()));
        return;
    }
    let phone = digits(message.from.as_deref());
    // The contact entry of this sender: by number, else by BSUID, else the only one.
    let contact = contacts
        .iter()
        .find(|c| phone.is_some() && digits(c.wa_id.as_deref()) == phone)
        .or_else(|| {
            contacts.iter().find(|c| {
                message.from_user_id.is_some()
                    && c.user_id.as_deref() == message.from_user_id.as_deref()
            })
        })
        .or_else(|| contacts.first().filter(|_| contacts.len() == 1));
    let bsuid = non_empty(message.from_user_id.as_deref())
        .or_else(|| contact.and_then(|c| non_empty(c.user_id.as_deref())))
        .map(|b| b.trim().to_owned());

    if message.kind == "system" {
        system_event(account, message, phone, bsuid, out);
        return;
    }
    let Some(chat) = phone.clone().or_else(|| bsuid.clone()) else {
        out.skipped.push(skipped(
            account,
            &what,
            "no sender (neither from nor a BSUID)".to_owned(),
        ));
        return;
    };
    let aliases: Vec<String> = bsuid.into_iter().filter(|b| *b != chat).collect();
    let chat_name = contact
        .and_then(|c| {
            non_empty(c.profile.name.as_deref())
                .or_else(|| non_empty(c.profile.username.as_deref()))
        })
        .unwrap_or_default()
        .to_owned();
    let timestamp = seconds(message.timestamp.as_ref()).unwrap_or(received_at);
    let item = |event: InboundEvent, media: Option<MediaRef>| Item {
        channel: MetaChannel::Cloud,
        account: account.to_owned(),
        event,
        media,
        failure: None,
    };

    match message.kind.as_str() {
        "reaction" => {
            let Some(reaction) = message
                .reaction
                .as_ref()
                .filter(|r| !r.message_id.is_empty())
            else {
                out.skipped
                    .push(skipped(account, &what, "no reacted message id".to_owned()));
                return;
            };
            out.items.push(item(
                InboundEvent::Reaction {
                    external_id: reaction.message_id.clone(),
                    chat,
                    emoji: reaction.emoji.clone().unwrap_or_default(),
                },
                None,
            ));
            return;
        }
        "revoke" => {
            if let Some(revoke) = message
                .revoke
                .as_ref()
                .filter(|r| !r.original_message_id.is_empty())
            {
                out.items.push(item(
                    InboundEvent::Delete {
                        external_id: revoke.original_message_id.clone(),
                    },
                    None,
                ));
            } else {
                out.skipped
                    .push(skipped(account, &what, "no original message id".to_owned()));
            }
            return;
        }
        "edit" => {
            let edited = message.edit.as_ref().and_then(|e| {
                let body = e.message.as_ref()?.text.as_ref()?.body.clone();
                (!e.original_message_id.is_empty()).then(|| (e.original_message_id.clone(), body))
            });
            match edited {
                Some((external_id, body)) => out.items.push(item(
                    InboundEvent::Edit {
                        external_id,
                        body,
                        timestamp,
                    },
                    None,
                )),
                None => out
                    .skipped
                    .push(skipped(account, &what, "no edited text".to_owned())),
            }
            return;
        }
        "request_welcome" => {
            out.skipped.push(skipped(
                account,
                &what,
                "the contact opened the chat; no content".to_owned(),
            ));
            return;
        }
        _ => {}
    }

    let (media_type, body, media) = content(message);
    out.items.push(item(
        InboundEvent::Message(InboundMessage {
            external_id: message.id.clone(),
            chat,
            chat_name,
            is_group: false,
            participant: None,
            from_me: false,
            body,
            media_type,
            media: None,
            quoted_external_id: message
                .context
                .as_ref()
                .and_then(|c| non_empty(c.id.as_deref()))
                .map(str::to_owned),
            timestamp,
            aliases,
            media_failed: None,
        }),
        media,
    ));
}

/// What a message shows: its kind, its body and its attachment.
fn content(message: &Message) -> (MediaType, String, Option<MediaRef>) {
    let notice = |kind: &str| (MediaType::Chat, unsupported_notice(kind), None);
    let file = |media: &Option<Media>, kind: MediaType, default_mime: &str| {
        let Some(m) = media.as_ref().filter(|m| !m.id.is_empty()) else {
            return notice(&message.kind);
        };
        let file_name = non_empty(m.filename.as_deref()).map(str::to_owned);
        let body = non_empty(m.caption.as_deref())
            .map(str::to_owned)
            .or_else(|| {
                (kind == MediaType::Application)
                    .then(|| file_name.clone())
                    .flatten()
            })
            .unwrap_or_default();
        let mime_type = non_empty(Some(m.mime_type.as_str()))
            .unwrap_or(default_mime)
            .to_owned();
        (
            kind,
            body,
            Some(MediaRef::Cloud {
                id: m.id.clone(),
                mime_type,
                sha256: non_empty(m.sha256.as_deref()).map(str::to_owned),
                file_name,
                voice: m.voice,
            }),
        )
    };
    match message.kind.as_str() {
        "text" => match message.text.as_ref() {
            Some(t) => (MediaType::Chat, t.body.clone(), None),
            None => notice("text"),
        },
        "image" => file(&message.image, MediaType::Image, "image/jpeg"),
        "sticker" => file(&message.sticker, MediaType::Image, "image/webp"),
        "video" => file(&message.video, MediaType::Video, "video/mp4"),
        "audio" => file(&message.audio, MediaType::Audio, "audio/ogg"),
        "document" => file(
            &message.document,
            MediaType::Application,
            "application/octet-stream",
        ),
        "location" => match message.location.as_ref() {
            Some(Location {
                latitude: Some(lat),
                longitude: Some(lon),
                name,
                address,
            }) => (
                MediaType::Location,
                location_text([name.as_deref(), address.as_deref()], *lat, *lon),
                None,
            ),
            _ => notice("location"),
        },
        "contacts" => {
            let cards: Vec<String> = message
                .contacts
                .iter()
                .flatten()
                .filter_map(card_text)
                .collect();
            if cards.is_empty() {
                notice("contacts")
            } else {
                (MediaType::ContactCard, cards.join("\n\n"), None)
            }
        }
        "interactive" => {
            let chosen = message
                .interactive
                .as_ref()
                .and_then(|i| match i.kind.as_str() {
                    "button_reply" => i.button_reply.as_ref(),
                    "list_reply" => i.list_reply.as_ref(),
                    _ => None,
                });
            match chosen {
                Some(choice) => (MediaType::Chat, choice.title.clone(), None),
                None => notice(
                    message
                        .interactive
                        .as_ref()
                        .map_or("interactive", |i| i.kind.as_str()),
                ),
            }
        }
        "button" => match message
            .button
            .as_ref()
            .and_then(|b| non_empty(b.text.as_deref()).or(non_empty(b.payload.as_deref())))
        {
            Some(text) => (MediaType::Chat, text.to_owned(), None),
            None => notice("button"),
        },
        "unsupported" => notice(
            message
                .unsupported
                .as_ref()
                .and_then(|u| u.kind.as_deref())
                .unwrap_or("unsupported"),
        ),
        other => notice(other),
    }
}

/// A shared contact card: its name, then each number (the WhatsApp id when given).
fn card_text(card: &Card) -> Option<String> {
    let name = non_empty(card.name.formatted_name.as_deref())
        .map(str::to_owned)
        .or_else(|| {
            let parts: Vec<&str> = [
                card.name.first_name.as_deref(),
                card.name.last_name.as_deref(),
            ]
            .into_iter()
            .filter_map(non_empty)
            .collect();
            (!parts.is_empty()).then(|| parts.join(" "))
        });
    let mut numbers: Vec<String> = Vec::new();
    for phone in &card.phones {
        if let Some(number) =
            digits(phone.wa_id.as_deref()).or_else(|| digits(phone.phone.as_deref()))
            && !numbers.contains(&number)
        {
            numbers.push(number);
        }
    }
    if name.is_none() && numbers.is_empty() {
        return None;
    }
    Some(
        name.into_iter()
            .chain(numbers)
            .collect::<Vec<_>>()
            .join("\n"),
    )
}

/// A `system` message: a number or BSUID change, as the person's identities.
fn system_event(
    account: &str,
    message: &Message,
    phone: Option<String>,
    bsuid: Option<String>,
    out: &mut Delivery,
) {
    let system = message.system.as_ref();
    let kind = system.map_or("", |s| s.kind.as_str());
    let (chat, others): (Option<String>, Vec<Option<String>>) = match kind {
        "user_changed_number" => (
            digits(system.and_then(|s| s.wa_id.as_deref())),
            vec![phone, bsuid],
        ),
        "user_changed_user_id" => {
            let new_id = system
                .and_then(|s| non_empty(s.user_id.as_deref()))
                .map(str::to_owned)
                .or(bsuid.clone());
            let previous = system
                .and_then(|s| non_empty(s.previous_user_id.as_deref()))
                .map(str::to_owned);
            match phone {
                Some(phone) => (Some(phone), vec![new_id, previous, bsuid]),
                None => (new_id, vec![previous, bsuid]),
            }
        }
        _ => (None, Vec::new()),
    };
    let Some(chat) = chat else {
        out.skipped.push(skipped(
            account,
            &format!("system {kind}"),
            "not an identity change the inbox can apply".to_owned(),
        ));
        return;
    };
    let mut aliases: Vec<String> = Vec::new();
    for identity in others.into_iter().flatten() {
        if identity != chat && !aliases.contains(&identity) {
            aliases.push(identity);
        }
    }
    if aliases.is_empty() {
        out.skipped.push(skipped(
            account,
            &format!("system {kind}"),
            "no other identity".to_owned(),
        ));
        return;
    }
    out.items.push(Item {
        channel: MetaChannel::Cloud,
        account: account.to_owned(),
        event: InboundEvent::Identities { chat, aliases },
        media: None,
        failure: None,
    });
}

/// A Unix time in seconds, as Meta sends it (a string, sometimes a number).
fn seconds(value: Option<&Value>) -> Option<DateTime<Utc>> {
    let secs = match value? {
        Value::String(s) => s.trim().parse::<i64>().ok()?,
        Value::Number(n) => n.as_i64()?,
        _ => return None,
    };
    DateTime::<Utc>::from_timestamp(secs, 0)
}

fn skipped(account: &str, what: &str, reason: String) -> Skipped {
    Skipped {
        channel: Some(MetaChannel::Cloud),
        account: account.to_owned(),
        what: what.to_owned(),
        reason,
    }
}
