//! Messenger (`object = page`) and Instagram Direct (`object = instagram`) deliveries: each
//! `entry[].messaging[]` event.
//!
//! | Meta | inbox event |
//! |---|---|
//! | `message.text` | message (`chat`) with the text |
//! | `message.attachments[]` `image` / `video` / `audio` / `file` | a message per attachment (`image` / `video` / `audio` / `application`), the CDN URL to download; the first keeps the text and the `mid`, the others are `mid#2`, `mid#3`... |
//! | attachment `location` (Messenger) | message (`locationMessage`) with a map link |
//! | attachment `share`, `ig_reel`, `reel`, `ig_post`, `fallback`, `template` | message (`chat`) with its title and URL |
//! | attachment `story_mention` (Instagram) | message (`chat`) with the story's URL; the story itself is never downloaded (Meta forbids storing it) |
//! | other attachment types, `is_unsupported` | message with [`super::unsupported_notice`] |
//! | `message.reply_to.mid` | the quoted message's external id |
//! | `message.reply_to.story` (Instagram story reply) | the text, then the story's URL on its own line |
//! | `message.is_echo` | the same, sent by the company (`from_me`, the chat is the recipient); skipped when its `app_id` is ours ([`super::ParseOptions::own_app_ids`]) |
//! | `message.is_deleted` (Instagram) | deletion of `mid` |
//! | `message_edit { mid, text }` | edit of `mid` |
//! | `reaction { mid, action, emoji }` | reaction on `mid` (`unreact`: removed); the page's own reactions skipped |
//! | `delivery { mids }` | ack 2 for each mid |
//! | `read { mid }` | ack 3 for the mid |
//! | `read { watermark }` without a mid, `delivery` without mids | skipped: the ack needs a message id |
//! | `postback { title, mid }` | message (`chat`) with the button's title |
//! | `referral`, `optin`, hand-overs, `standby`, `changes` (comments) | skipped |
//!
//! The chat is the customer's page-scoped id (PSID) or Instagram-scoped id (IGSID). Names are
//! not in the webhook (the profile API gives them), so the chat's name is empty.

use chatflow_core::inbox::channel::{InboundEvent, InboundMessage};
use chatflow_core::inbox::model::MediaType;
use chrono::{DateTime, Utc};
use serde::Deserialize;
use serde_json::Value;

use super::{
    Delivery, Item, MediaRef, MetaChannel, ParseOptions, Skipped, location_text, non_empty,
    unsupported_notice,
};
use crate::{ACK_DELIVERED, ACK_READ};

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Event {
    sender: Party,
    recipient: Party,
    timestamp: Option<Value>,
    message: Option<Message>,
    message_edit: Option<MessageEdit>,
    reaction: Option<Reaction>,
    delivery: Option<Receipt>,
    read: Option<Receipt>,
    postback: Option<Postback>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Party {
    id: String,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Message {
    mid: String,
    text: Option<String>,
    attachments: Vec<Attachment>,
    is_echo: bool,
    is_deleted: bool,
    is_unsupported: bool,
    app_id: Option<Value>,
    reply_to: Option<ReplyTo>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Attachment {
    #[serde(rename = "type")]
    kind: String,
    title: Option<String>,
    payload: Payload,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Payload {
    url: Option<String>,
    title: Option<String>,
    coordinates: Option<Coordinates>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Coordinates {
    lat: Option<f64>,
    long: Option<f64>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct ReplyTo {
    mid: Option<String>,
    story: Option<Story>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Story {
    url: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct MessageEdit {
    mid: String,
    text: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Reaction {
    mid: String,
    action: String,
    reaction: Option<String>,
    emoji: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Receipt {
    mids: Vec<String>,
    mid: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Postback {
    mid: Option<String>,
    title: Option<String>,
    payload: Option<String>,
}

/// One `entry[]` of a Messenger or Instagram delivery.
pub(crate) fn parse_entry(
    channel: MetaChannel,
    entry: &Value,
    options: &ParseOptions,
    received_at: DateTime<Utc>,
    out: &mut Delivery,
) {
    let account = match entry.get("id") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Number(n)) => n.to_string(),
        _ => String::new(),
    };
    let skip = |out: &mut Delivery, what: &str, reason: &str| {
        out.skipped.push(Skipped {
            channel: Some(channel),
            account: account.clone(),
            what: what.to_owned(),
            reason: reason.to_owned(),
        });
    };
    if account.is_empty() {
        skip(out, "entry", "no entry id");
        return;
    }
    if entry.get("changes").is_some() {
        skip(out, "changes", "comments and other fields are not messages");
    }
    if entry.get("standby").is_some() {
        skip(out, "standby", "another app holds the conversation");
    }
    let events = entry
        .get("messaging")
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice);
    for raw in events {
        let event = match Event::deserialize(raw) {
            Ok(event) => event,
            Err(e) => {
                skip(out, "messaging event", &format!("unreadable: {e}"));
                continue;
            }
        };
        let before = out.items.len() + out.skipped.len();
        parse_event(channel, &account, &event, options, received_at, out);
        if out.items.len() + out.skipped.len() == before {
            let keys: Vec<&str> = raw
                .as_object()
                .map(|o| {
                    o.keys()
                        .map(String::as_str)
                        .filter(|k| !matches!(*k, "sender" | "recipient" | "timestamp"))
                        .collect()
                })
                .unwrap_or_default();
            skip(
                out,
                &format!("messaging event {}", keys.join(",")),
                "no message, edit, reaction or receipt",
            );
        }
    }
}

fn parse_event(
    channel: MetaChannel,
    account: &str,
    event: &Event,
    options: &ParseOptions,
    received_at: DateTime<Utc>,
    out: &mut Delivery,
) {
    let timestamp = millis(event.timestamp.as_ref()).unwrap_or(received_at);
    let customer = event.sender.id.clone();
    let push = |out: &mut Delivery, event: InboundEvent, media: Option<MediaRef>| {
        out.items.push(Item {
            channel,
            account: account.to_owned(),
            event,
            media,
            failure: None,
        });
    };
    let skip = |out: &mut Delivery, what: &str, reason: &str| {
        out.skipped.push(Skipped {
            channel: Some(channel),
            account: account.to_owned(),
            what: what.to_owned(),
            reason: reason.to_owned(),
        });
    };

    if let Some(message) = &event.message {
        parse_message(channel, account, event, message, options, timestamp, out);
    }
    if let Some(edit) = &event.message_edit {
        match (non_empty(Some(&edit.mid)), &edit.text) {
            (Some(mid), Some(text)) => push(
                out,
                InboundEvent::Edit {
                    external_id: mid.to_owned(),
                    body: text.clone(),
                    timestamp,
                },
                None,
            ),
            _ => skip(out, "message_edit", "no mid or text"),
        }
    }
    if let Some(reaction) = &event.reaction {
        if customer == account {
            skip(out, "reaction", "the page's own reaction");
        } else if reaction.mid.is_empty() {
            skip(out, "reaction", "no mid");
        } else {
            let emoji = if reaction.action == "unreact" {
                String::new()
            } else {
                non_empty(reaction.emoji.as_deref())
                    .map(str::to_owned)
                    .unwrap_or_else(|| emoji_of(reaction.reaction.as_deref().unwrap_or_default()))
            };
            push(
                out,
                InboundEvent::Reaction {
                    external_id: reaction.mid.clone(),
                    chat: customer.clone(),
                    emoji,
                },
                None,
            );
        }
    }
    for (receipt, ack, name) in [
        (&event.delivery, ACK_DELIVERED, "delivery"),
        (&event.read, ACK_READ, "read"),
    ] {
        let Some(receipt) = receipt else { continue };
        let mids: Vec<&String> = receipt
            .mids
            .iter()
            .chain(receipt.mid.iter())
            .filter(|m| !m.is_empty())
            .collect();
        if mids.is_empty() {
            skip(out, name, "only a watermark; the ack needs a message id");
        }
        for mid in mids {
            push(
                out,
                InboundEvent::Ack {
                    external_id: mid.clone(),
                    ack,
                },
                None,
            );
        }
    }
    if let Some(postback) = &event.postback {
        let body = non_empty(postback.title.as_deref())
            .or(non_empty(postback.payload.as_deref()))
            .unwrap_or_default()
            .to_owned();
        // Older postbacks carry no mid: the time and sender make one that a redelivery repeats.
        let external_id = non_empty(postback.mid.as_deref()).map_or_else(
            || format!("postback:{customer}:{}", timestamp.timestamp_millis()),
            str::to_owned,
        );
        push(
            out,
            InboundEvent::Message(plain(external_id, customer.clone(), false, body, timestamp)),
            None,
        );
    }
}

fn plain(
    external_id: String,
    chat: String,
    from_me: bool,
    body: String,
    timestamp: DateTime<Utc>,
) -> InboundMessage {
    InboundMessage {
        external_id,
        chat,
        chat_name: String::new(),
        is_group: false,
        participant: None,
        from_me,
        body,
        media_type: MediaType::Chat,
        media: None,
        quoted_external_id: None,
        timestamp,
        aliases: Vec::new(),
        media_failed: None,
    }
}

fn parse_message(
    channel: MetaChannel,
    account: &str,
    event: &Event,
    message: &Message,
    options: &ParseOptions,
    timestamp: DateTime<Utc>,
    out: &mut Delivery,
) {
    let skip = |out: &mut Delivery, what: &str, reason: &str| {
        out.skipped.push(Skipped {
            channel: Some(channel),
            account: account.to_owned(),
            what: what.to_owned(),
            reason: reason.to_owned(),
        });
    };
    if message.mid.is_empty() {
        skip(out, "message", "no mid");
        return;
    }
    let push = |out: &mut Delivery, event: InboundEvent, media: Option<MediaRef>| {
        out.items.push(Item {
            channel,
            account: account.to_owned(),
            event,
            media,
            failure: None,
        });
    };
    if message.is_deleted {
        push(
            out,
            InboundEvent::Delete {
                external_id: message.mid.clone(),
            },
            None,
        );
        return;
    }
    let from_me = message.is_echo;
    if from_me {
        let app = match &message.app_id {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Number(n)) => n.to_string(),
            _ => String::new(),
        };
        if !app.is_empty() && options.own_app_ids.contains(&app) {
            skip(out, "echo", "sent by this app; stored when it was sent");
            return;
        }
    }
    // An echo's chat is the customer it went to.
    let chat = if from_me {
        event.recipient.id.clone()
    } else {
        event.sender.id.clone()
    };
    if chat.is_empty() {
        skip(out, "message", "no customer id");
        return;
    }
    let quoted = message
        .reply_to
        .as_ref()
        .and_then(|r| non_empty(r.mid.as_deref()))
        .map(str::to_owned);
    let story = message
        .reply_to
        .as_ref()
        .and_then(|r| r.story.as_ref())
        .and_then(|s| non_empty(s.url.as_deref()));
    let mut text = message.text.clone().unwrap_or_default();
    if let Some(url) = story {
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(url);
    }
    let base = |external_id: String, body: String| InboundMessage {
        quoted_external_id: quoted.clone(),
        ..plain(external_id, chat.clone(), from_me, body, timestamp)
    };

    if message.is_unsupported {
        push(
            out,
            InboundEvent::Message(base(message.mid.clone(), unsupported_notice("unsupported"))),
            None,
        );
        return;
    }
    if message.attachments.is_empty() {
        push(
            out,
            InboundEvent::Message(base(message.mid.clone(), text)),
            None,
        );
        return;
    }
    for (index, attachment) in message.attachments.iter().enumerate() {
        let external_id = if index == 0 {
            message.mid.clone()
        } else {
            format!("{}#{}", message.mid, index + 1)
        };
        // The text goes with the first attachment.
        let caption = if index == 0 {
            text.clone()
        } else {
            String::new()
        };
        let url = non_empty(attachment.payload.url.as_deref()).map(str::to_owned);
        let title = non_empty(attachment.title.as_deref())
            .or(non_empty(attachment.payload.title.as_deref()))
            .map(str::to_owned);
        let link_text = |caption: &str| {
            [Some(caption.to_owned()), title.clone(), url.clone()]
                .into_iter()
                .flatten()
                .filter(|t| !t.trim().is_empty())
                .collect::<Vec<_>>()
                .join("\n")
        };
        let file_kind = match attachment.kind.as_str() {
            "image" => Some(MediaType::Image),
            "video" => Some(MediaType::Video),
            "audio" => Some(MediaType::Audio),
            "file" => Some(MediaType::Application),
            _ => None,
        };
        let (mut msg, media) = match (file_kind, attachment.kind.as_str()) {
            (Some(kind), _) => match &url {
                Some(url) => (
                    InboundMessage {
                        media_type: kind,
                        ..base(external_id, caption)
                    },
                    Some(MediaRef::Url {
                        url: url.clone(),
                        mime_type: None,
                    }),
                ),
                None => (
                    base(external_id, unsupported_notice(&attachment.kind)),
                    None,
                ),
            },
            (None, "location") => match attachment.payload.coordinates.as_ref() {
                Some(Coordinates {
                    lat: Some(lat),
                    long: Some(long),
                }) => (
                    InboundMessage {
                        media_type: MediaType::Location,
                        ..base(
                            external_id,
                            location_text([title.as_deref(), None], *lat, *long),
                        )
                    },
                    None,
                ),
                _ => (base(external_id, link_text(&caption)), None),
            },
            (
                None,
                "share" | "ig_reel" | "reel" | "ig_post" | "fallback" | "template"
                | "story_mention",
            ) if url.is_some() || title.is_some() => (base(external_id, link_text(&caption)), None),
            (None, other) => (base(external_id, unsupported_notice(other)), None),
        };
        if index > 0 {
            // Only the first part answers the quoted message.
            msg.quoted_external_id = None;
        }
        push(out, InboundEvent::Message(msg), media);
    }
}

/// The emoji of a Messenger reaction name, for reactions that come without one.
fn emoji_of(name: &str) -> String {
    match name {
        "like" => "👍",
        "love" => "❤️",
        "haha" | "laugh" => "😆",
        "wow" => "😮",
        "sad" => "😢",
        "angry" => "😠",
        "smile" => "😊",
        "yay" => "🎉",
        _ => "👍",
    }
    .to_owned()
}

/// A Unix time in milliseconds (Messenger's timestamps).
fn millis(value: Option<&Value>) -> Option<DateTime<Utc>> {
    let ms = match value? {
        Value::Number(n) => n.as_i64()?,
        Value::String(s) => s.trim().parse::<i64>().ok()?,
        _ => return None,
    };
    DateTime::<Utc>::from_timestamp_millis(ms)
}
