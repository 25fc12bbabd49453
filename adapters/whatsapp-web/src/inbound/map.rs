//! The library's decrypted messages and events as the core's [`InboundEvent`]s: pure functions,
//! no client, no clock (see the parent module for what is mapped and what is not yet).

use chatflow_core::inbox::channel::{InboundEvent, InboundMessage as Message};
use chatflow_core::inbox::model::MediaType;
use whatsapp_rust::Server;
use whatsapp_rust::chrono::{DateTime, Utc};
use whatsapp_rust::types::call::CallAction;
use whatsapp_rust::types::events::{Event, InboundMessage};
use whatsapp_rust::types::message::MessageInfo;
use whatsapp_rust::types::presence::ReceiptType;
use whatsapp_rust::wacore::proto_helpers::MessageExt as _;
use whatsapp_rust::wacore_binary::JidExt as _;
use whatsapp_rust::waproto::whatsapp as wa;
use whatsapp_rust::waproto::whatsapp::message::protocol_message::Type as ProtocolType;

use super::address::{chat_of, person};

/// The ack of a message the channel could not deliver (a server error receipt). Below the 0
/// a sent message starts at, so today's forward-only acks never apply it (see the parent
/// module).
pub const ACK_ERROR: i64 = -1;
/// The ack of a message the server took but did not deliver yet (one tick).
pub const ACK_SENT: i64 = 1;
/// The ack of a message delivered to the contact's phone (two ticks).
pub const ACK_DELIVERED: i64 = 2;
/// The ack of a message the contact read (two blue ticks).
pub const ACK_READ: i64 = 3;
/// The ack of a voice note or audio the contact played.
pub const ACK_PLAYED: i64 = 4;

/// What the inbox knows of a message's attachment before downloading it: its kind, its type,
/// its file name when the sender gave one, and whether an audio is a voice note. The download
/// (a later step) needs these to store the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MediaInfo {
    pub media_type: MediaType,
    /// The MIME type the sender declared (a usual one for the kind when it declared none).
    pub mime_type: String,
    /// The document's file name; `None` for photos, videos, audio and stickers.
    pub file_name: Option<String>,
    /// An audio recorded as a voice note (push to talk).
    pub voice_note: bool,
}

/// The attachment of `message` (wrappers such as view-once, disappearing and sent-from-the-phone
/// looked through); `None` for a message without one. A sticker is an image (`image/webp`); a
/// round video note is a video.
pub fn media_of(message: &wa::Message) -> Option<MediaInfo> {
    let m = message.get_base_message();
    let (media_type, mime, default_mime, file_name, voice_note) =
        if let Some(image) = m.image_message.as_option() {
            (MediaType::Image, &image.mimetype, "image/jpeg", None, false)
        } else if let Some(sticker) = m.sticker_message.as_option() {
            (
                MediaType::Image,
                &sticker.mimetype,
                "image/webp",
                None,
                false,
            )
        } else if let Some(video) = m
            .video_message
            .as_option()
            .or_else(|| m.ptv_message.as_option())
        {
            (MediaType::Video, &video.mimetype, "video/mp4", None, false)
        } else if let Some(audio) = m.audio_message.as_option() {
            let ptt = audio.ptt.unwrap_or(false);
            let default = if ptt {
                "audio/ogg; codecs=opus"
            } else {
                "audio/mpeg"
            };
            (MediaType::Audio, &audio.mimetype, default, None, ptt)
        } else if let Some(doc) = m.document_message.as_option() {
            let name = non_empty(doc.file_name.as_deref())
                .or_else(|| non_empty(doc.title.as_deref()))
                .map(str::to_owned);
            (
                MediaType::Application,
                &doc.mimetype,
                "application/octet-stream",
                name,
                false,
            )
        } else {
            return None;
        };
    let mime_type = if m.sticker_message.is_set() {
        // Stickers are WebP whatever else they declare.
        "image/webp".to_owned()
    } else {
        non_empty(mime.as_deref())
            .unwrap_or(default_mime)
            .to_owned()
    };
    Some(MediaInfo {
        media_type,
        mime_type,
        file_name,
        voice_note,
    })
}

/// The size the sender declared for the attachment of `message`, when it has one.
pub fn declared_size(message: &wa::Message) -> Option<u64> {
    let m = message.get_base_message();
    m.image_message
        .as_option()
        .and_then(|x| x.file_length)
        .or_else(|| m.sticker_message.as_option().and_then(|x| x.file_length))
        .or_else(|| m.video_message.as_option().and_then(|x| x.file_length))
        .or_else(|| m.ptv_message.as_option().and_then(|x| x.file_length))
        .or_else(|| m.audio_message.as_option().and_then(|x| x.file_length))
        .or_else(|| m.document_message.as_option().and_then(|x| x.file_length))
}

/// The file name an attachment is stored under: the document's own name, else the message's id
/// with the extension of its type (`3EB0….jpg`).
pub fn stored_file_name(external_id: &str, info: &MediaInfo) -> String {
    if let Some(name) = info.file_name.as_deref().filter(|n| !n.trim().is_empty()) {
        return name.to_owned();
    }
    let extension = chatflow_core::media::extension_for(&info.mime_type);
    format!("{external_id}.{extension}")
}

/// Drops the inline preview pictures of `message`'s photo, video or document (a few KB each
/// that a later download does not need).
pub fn drop_thumbnails(message: &mut wa::Message) {
    if let Some(m) = message.image_message.as_option_mut() {
        m.jpeg_thumbnail = None;
    }
    if let Some(m) = message.video_message.as_option_mut() {
        m.jpeg_thumbnail = None;
    }
    if let Some(m) = message.document_message.as_option_mut() {
        m.jpeg_thumbnail = None;
    }
}

/// The event a decrypted message is for the inbox; `None` for messages the inbox shows nothing
/// of (protocol messages other than edits and deletions, key distributions, polls, status
/// updates, our own reactions...).
pub fn map_message(inbound: &InboundMessage) -> Option<InboundEvent> {
    map_content(&inbound.message, &inbound.info)
}

/// [`map_message`] on a message's parts: its content and who sent it where. The history sync
/// ([`super::history`]) maps its messages through here too, so an old message is what the same
/// message would have been live.
pub fn map_content(message: &wa::Message, info: &MessageInfo) -> Option<InboundEvent> {
    let place = place_of(info)?;
    let message = message.get_base_message();
    if let Some(protocol) = message.protocol_message.as_option() {
        return protocol_event(protocol, info);
    }
    if let Some(reaction) = message.reaction_message.as_option() {
        // A reaction from the connected phone is the company's, which the event cannot say
        // (it sets the contact's reaction): it is left out.
        if info.source.is_from_me {
            return None;
        }
        let external_id = non_empty(reaction.key.as_option()?.id.as_deref())?.to_owned();
        return Some(InboundEvent::Reaction {
            external_id,
            chat: place.chat,
            emoji: reaction.text.clone().unwrap_or_default(),
        });
    }
    let content = content_of(message)?;
    Some(InboundEvent::Message(Message {
        external_id: info.id.clone(),
        chat: place.chat,
        chat_name: place.chat_name,
        is_group: place.is_group,
        participant: place.participant,
        from_me: info.source.is_from_me,
        body: content.body,
        media_type: content.media_type,
        media: None,
        quoted_external_id: content
            .context
            .and_then(|c| non_empty(c.stanza_id.as_deref()))
            .map(str::to_owned),
        timestamp: info.timestamp,
        aliases: place.aliases,
        media_failed: None,
    }))
}

/// The events of a library event outside the durability hook: an ack per message of a receipt,
/// a missed call, a contact's number change, a part of the phone's history (one
/// [`InboundEvent::History`], see [`super::history`]), the end of the offline backlog
/// ([`InboundEvent::CaughtUp`]). Everything else (session events included:
/// the supervisor maps those) is nothing here.
///
/// A history sync is decoded here (a few milliseconds to some tens for a large part): call this
/// off the async runtime's threads for one (`spawn_blocking`).
pub fn map_event(event: &Event) -> Vec<InboundEvent> {
    match event {
        // WhatsApp delivered what it queued while the session was away. The library dispatches
        // it once the backlog's last messages are committed through the durability hook (its
        // drain tail), and the lane delivers it after the backlog's receipts: the inbox may
        // check a gap now ([`InboundEvent::CaughtUp`]).
        Event::OfflineSyncCompleted(_) => vec![InboundEvent::CaughtUp],
        Event::HistorySync(sync) => super::history::history_chunk(sync)
            .map(InboundEvent::History)
            .into_iter()
            .collect(),
        Event::Receipt(receipt) => match ack_of(&receipt.r#type) {
            Some(ack) => receipt
                .message_ids
                .iter()
                .filter(|id| !id.is_empty())
                .map(|id| InboundEvent::Ack {
                    external_id: id.clone(),
                    ack,
                })
                .collect(),
            None => Vec::new(),
        },
        Event::MissedCall(call) => match chat_of(&call.from) {
            Some(chat) if call.from.server != Server::Group => vec![InboundEvent::MissedCall {
                external_id: call.call_id.clone(),
                chat,
                chat_name: String::new(),
                timestamp: call.timestamp,
            }],
            _ => Vec::new(),
        },
        // A one-to-one call ringing now (offers replayed after a reconnection come as another
        // event: they no longer ring).
        Event::IncomingCall(call) => match &call.action {
            CallAction::Offer {
                call_id,
                caller_pn,
                is_video,
                group_jid: None,
                ..
            } if !call.offline && call.from.server != Server::Group => {
                match person(&call.from, [caller_pn.as_ref()]) {
                    Some((chat, _)) => vec![InboundEvent::IncomingCall {
                        external_id: call_id.clone(),
                        chat,
                        chat_name: call.notify.clone().unwrap_or_default(),
                        is_video: *is_video,
                        timestamp: call.timestamp,
                    }],
                    None => Vec::new(),
                }
            }
            _ => Vec::new(),
        },
        Event::ContactNumberChanged(change) if change.new_jid.server != Server::Group => {
            let Some((chat, mut aliases)) = person(&change.new_jid, [change.new_lid.as_ref()])
            else {
                return Vec::new();
            };
            for jid in [Some(&change.old_jid), change.old_lid.as_ref()]
                .into_iter()
                .flatten()
            {
                if let Some(identity) = chat_of(jid)
                    && identity != chat
                    && !aliases.contains(&identity)
                {
                    aliases.push(identity);
                }
            }
            vec![InboundEvent::Identities { chat, aliases }]
        }
        _ => Vec::new(),
    }
}

/// The ack a receipt of our message means; `None` for receipts about anything else (our own
/// devices' reads, retries, history...).
pub fn ack_of(receipt: &ReceiptType) -> Option<i64> {
    match receipt {
        ReceiptType::Sent => Some(ACK_SENT),
        ReceiptType::Delivered => Some(ACK_DELIVERED),
        ReceiptType::Read => Some(ACK_READ),
        ReceiptType::Played => Some(ACK_PLAYED),
        ReceiptType::ServerError => Some(ACK_ERROR),
        _ => None,
    }
}

/// Where a message belongs in the inbox.
struct Place {
    chat: String,
    chat_name: String,
    is_group: bool,
    participant: Option<String>,
    /// The person's other identities (see [`person`]); empty in groups.
    aliases: Vec<String>,
}

/// The chat of a message: the group, or the person (by phone number when WhatsApp told it, with
/// the other identity as an alias). `None` for status updates, newsletters and other places that
/// are no chat of the inbox.
fn place_of(info: &MessageInfo) -> Option<Place> {
    let source = &info.source;
    let from_me = source.is_from_me;
    let sender = || person(&source.sender, [source.sender_alt.as_ref()]);
    let one_to_one = |(chat, aliases): (String, Vec<String>), chat_name: String| Place {
        chat,
        chat_name,
        is_group: false,
        participant: None,
        aliases,
    };
    match source.chat.server {
        Server::Group => Some(Place {
            chat: chat_of(&source.chat)?,
            // The push name is the participant's, not the group's.
            chat_name: String::new(),
            is_group: true,
            participant: if from_me {
                None
            } else {
                sender().map(|(chat, _)| chat)
            },
            aliases: Vec::new(),
        }),
        // A broadcast list reaches each member as a one-to-one message from its owner.
        Server::Broadcast if !source.chat.is_status_broadcast() && !from_me => {
            Some(one_to_one(sender()?, info.push_name.clone()))
        }
        Server::Broadcast => None,
        // Sent from the phone: the chat is the recipient, and the push name is ours.
        _ if from_me => Some(one_to_one(
            person(
                &source.chat,
                [
                    source.recipient_alt.as_ref(),
                    info.peer_recipient_pn.as_ref(),
                ],
            )?,
            String::new(),
        )),
        _ => Some(one_to_one(
            person(&source.chat, [source.sender_alt.as_ref()])?,
            info.push_name.clone(),
        )),
    }
}

/// An edit (the new text) or a deletion for everyone; `None` for other protocol messages.
fn protocol_event(
    protocol: &wa::message::ProtocolMessage,
    info: &MessageInfo,
) -> Option<InboundEvent> {
    let external_id = non_empty(protocol.key.as_option()?.id.as_deref())?.to_owned();
    match protocol.r#type? {
        ProtocolType::REVOKE => Some(InboundEvent::Delete { external_id }),
        ProtocolType::MESSAGE_EDIT => {
            let edited = protocol.edited_message.as_option()?.get_base_message();
            let body = edited
                .text_content()
                .or_else(|| edited.get_caption())?
                .to_owned();
            let timestamp = protocol
                .timestamp_ms
                .and_then(DateTime::<Utc>::from_timestamp_millis)
                .unwrap_or(info.timestamp);
            Some(InboundEvent::Edit {
                external_id,
                body,
                timestamp,
            })
        }
        _ => None,
    }
}

/// What a message shows: its kind, its text (or caption) and the context it quotes from.
struct Content<'a> {
    media_type: MediaType,
    body: String,
    context: Option<&'a wa::ContextInfo>,
}

fn content_of(m: &wa::Message) -> Option<Content<'_>> {
    if let Some(text) = non_empty(m.conversation.as_deref()) {
        return Some(Content {
            media_type: MediaType::Chat,
            body: text.to_owned(),
            context: None,
        });
    }
    if let Some(ext) = m.extended_text_message.as_option() {
        return Some(Content {
            media_type: MediaType::Chat,
            body: non_empty(ext.text.as_deref())?.to_owned(),
            context: ext.context_info.as_option(),
        });
    }
    if let Some(media) = media_of(m) {
        let (caption, context) = if let Some(x) = m.image_message.as_option() {
            (x.caption.as_deref(), x.context_info.as_option())
        } else if let Some(x) = m.sticker_message.as_option() {
            (None, x.context_info.as_option())
        } else if let Some(x) = m.video_message.as_option().or(m.ptv_message.as_option()) {
            (x.caption.as_deref(), x.context_info.as_option())
        } else if let Some(x) = m.audio_message.as_option() {
            (None, x.context_info.as_option())
        } else if let Some(x) = m.document_message.as_option() {
            (x.caption.as_deref(), x.context_info.as_option())
        } else {
            (None, None)
        };
        // A document without a caption shows its file name, as on the phone.
        let body = non_empty(caption)
            .map(str::to_owned)
            .or_else(|| media.file_name.clone())
            .unwrap_or_default();
        return Some(Content {
            media_type: media.media_type,
            body,
            context,
        });
    }
    if let Some(loc) = m.location_message.as_option() {
        return Some(Content {
            media_type: MediaType::Location,
            body: location_text(
                [loc.name.as_deref(), loc.address.as_deref()],
                loc.degrees_latitude,
                loc.degrees_longitude,
            )?,
            context: loc.context_info.as_option(),
        });
    }
    if let Some(loc) = m.live_location_message.as_option() {
        return Some(Content {
            media_type: MediaType::Location,
            body: location_text(
                [loc.caption.as_deref(), None],
                loc.degrees_latitude,
                loc.degrees_longitude,
            )?,
            context: loc.context_info.as_option(),
        });
    }
    if let Some(card) = m.contact_message.as_option() {
        return Some(Content {
            media_type: MediaType::ContactCard,
            body: card_text(card.display_name.as_deref(), card.vcard.as_deref())?,
            context: card.context_info.as_option(),
        });
    }
    if let Some(cards) = m.contacts_array_message.as_option() {
        let body: Vec<String> = cards
            .contacts
            .iter()
            .filter_map(|c| card_text(c.display_name.as_deref(), c.vcard.as_deref()))
            .collect();
        if body.is_empty() {
            return None;
        }
        return Some(Content {
            media_type: MediaType::ContactCard,
            body: body.join("\n\n"),
            context: cards.context_info.as_option(),
        });
    }
    None
}

/// A location as text: its name and address when given, then a map link the inbox shows as a
/// link.
fn location_text(
    labels: [Option<&str>; 2],
    latitude: Option<f64>,
    longitude: Option<f64>,
) -> Option<String> {
    let (latitude, longitude) = (latitude?, longitude?);
    let mut lines: Vec<String> = labels
        .into_iter()
        .filter_map(non_empty)
        .map(str::to_owned)
        .collect();
    lines.push(format!(
        "https://maps.google.com/maps?q={latitude},{longitude}"
    ));
    Some(lines.join("\n"))
}

/// A contact card as the inbox shows one (the form of the cards it sends): the name, then each
/// number on its own line. The numbers come from the vCard's `TEL` lines (the WhatsApp id when
/// the line has one). A card with neither shows its vCard as it came.
fn card_text(display_name: Option<&str>, vcard: Option<&str>) -> Option<String> {
    let vcard = vcard.unwrap_or_default();
    let mut name = non_empty(display_name).map(str::to_owned);
    let mut numbers: Vec<String> = Vec::new();
    for line in unfolded(vcard) {
        let Some((head, value)) = line.split_once(':') else {
            continue;
        };
        // `item1.TEL;type=CELL;waid=5511...` → property `TEL` with its parameters.
        let mut params = head.split(';');
        let property = params.next().unwrap_or_default();
        let property = property.rsplit('.').next().unwrap_or(property);
        if property.eq_ignore_ascii_case("FN") && name.is_none() {
            name = non_empty(Some(value.trim())).map(str::to_owned);
        } else if property.eq_ignore_ascii_case("TEL") {
            let waid = params.find_map(|p| {
                let (key, value) = p.split_once('=')?;
                key.trim().eq_ignore_ascii_case("waid").then_some(value)
            });
            let digits: String = waid
                .unwrap_or(value)
                .chars()
                .filter(char::is_ascii_digit)
                .collect();
            if !digits.is_empty() && !numbers.contains(&digits) {
                numbers.push(digits);
            }
        }
    }
    if name.is_none() && numbers.is_empty() {
        return non_empty(Some(vcard.trim())).map(str::to_owned);
    }
    Some(
        name.into_iter()
            .chain(numbers)
            .collect::<Vec<_>>()
            .join("\n"),
    )
}

/// The logical lines of a vCard (a line starting with a space or a tab continues the previous
/// one).
fn unfolded(vcard: &str) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for raw in vcard.lines() {
        let raw = raw.trim_end_matches('\r');
        match (raw.strip_prefix([' ', '\t']), lines.last_mut()) {
            (Some(rest), Some(last)) => last.push_str(rest),
            _ => lines.push(raw.to_owned()),
        }
    }
    lines
}

fn non_empty(text: Option<&str>) -> Option<&str> {
    text.filter(|t| !t.trim().is_empty())
}
