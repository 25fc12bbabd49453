//! The phone's message history (`Event::HistorySync`) as the core's [`HistoryChunk`]s: pure
//! functions, no client.
//!
//! WhatsApp sends a phone's history in parts right after a new link (how much depends on the
//! device properties the link announced: see [`crate::real::device_props`]), and later parts on
//! demand. Each part is a zlib-compressed `wa::HistorySync`; the parts that carry
//! conversations (the initial bootstrap, recent, full and on-demand syncs) become one chunk
//! each, the others (push names, statuses, settings) nothing.
//!
//! # Each message as if it came live
//!
//! A history message (`WebMessageInfo`: its key with the chat, `fromMe`, id and participant, its
//! content, time and push name) is turned into the library's `MessageInfo` and mapped by the
//! live path ([`super::map::map_content`]), so it keeps the same kind, text or caption, quote,
//! location and contact-card text, chat and aliases as the same message live:
//!
//! - **Who.** A person's chat is their phone number when the part tells it, else the LID; the
//!   other identity goes along as the alias. The part's `phoneNumberToLidMappings` (and each
//!   conversation's own `pnJid` / `lidJid`) tell the number of a LID chat or participant, and
//!   the LID of a number. In a group the chat is the group and the participant the writer's
//!   number.
//! - **Names.** A one-to-one chat is named by the contact's push name (not on messages sent
//!   from the phone: that push name is ours), else by the conversation's name; a group by the
//!   conversation's name (its subject).
//! - **Attachments** are not downloaded here: a photo, video, audio, document or sticker comes
//!   with [`chatflow_core::inbox::channel::InboundMessage::media_failed`] set to what a download
//!   needs (the same locator the live path keeps when its download fails), and the core's
//!   import downloads it through [`crate::inbound::download_again`]. A file declared larger
//!   than [`crate::inbound::MAX_MEDIA_BYTES`] comes as its kind and caption only, as live.
//! - **Left out:** what is no message of a chat (protocol messages such as deletions, edits
//!   and disappearing-message settings; reactions; key distributions; polls; stubs without
//!   content), status updates, newsletters, broadcast lists sent from the phone, and messages
//!   without an id or a time.
//!
//! The chunk's `progress` is the phone's (0-100), when it says.

use std::collections::HashMap;

use chatflow_core::inbox::channel::{HistoryChunk, InboundEvent, InboundMessage as Message};
use whatsapp_rust::chrono::DateTime;
use whatsapp_rust::types::events::LazyHistorySync;
use whatsapp_rust::types::message::{MessageInfo, MessageSource};
use whatsapp_rust::waproto::whatsapp as wa;
use whatsapp_rust::waproto::whatsapp::history_sync::HistorySyncType;
use whatsapp_rust::{Jid, Server};

use super::address::phone_digits;
use super::map::map_content;
use crate::client::MediaMessageKey;

/// The chunk a history sync is for the inbox: its messages and progress. `None` for a part of
/// a kind without conversations, for a part with neither messages nor progress, and for a
/// payload that does not decode (logged).
pub fn history_chunk(sync: &LazyHistorySync) -> Option<HistoryChunk> {
    if !carries_conversations(sync.sync_type()) {
        return None;
    }
    let Some(history) = sync.get() else {
        tracing::warn!(
            sync_type = sync.sync_type(),
            "a part of the phone's history could not be decoded; it is left out"
        );
        return None;
    };
    let messages = history_messages(history);
    let progress = sync.progress().or(history.progress).map(|p| p.min(100));
    if messages.is_empty() && progress.is_none() {
        return None;
    }
    Some(HistoryChunk {
        messages,
        progress,
        // The phone's answer to a request for one chat's messages (a gap's backfill).
        on_demand: sync.sync_type() == HistorySyncType::ON_DEMAND as i32,
    })
}

/// Whether a history sync of this type carries conversations (the initial bootstrap, recent,
/// full and on-demand syncs); push names, statuses and settings do not.
pub fn carries_conversations(sync_type: i32) -> bool {
    [
        HistorySyncType::INITIAL_BOOTSTRAP,
        HistorySyncType::RECENT,
        HistorySyncType::FULL,
        HistorySyncType::ON_DEMAND,
    ]
    .into_iter()
    .any(|kind| kind as i32 == sync_type)
}

/// The messages of a decoded history sync, conversation by conversation in the order they
/// came (see the module's documentation for what is kept and how).
pub fn history_messages(history: &wa::HistorySync) -> Vec<Message> {
    let mut identities = Identities::default();
    for mapping in &history.phone_number_to_lid_mappings {
        if let (Some(pn), Some(lid)) = (
            parse(mapping.pn_jid.as_deref()),
            parse(mapping.lid_jid.as_deref()),
        ) {
            identities.learn(&lid, &pn);
        }
    }
    for conversation in &history.conversations {
        if let Some(chat) = parse(Some(&conversation.id)) {
            for other in [&conversation.pn_jid, &conversation.lid_jid] {
                if let Some(other) = parse(other.as_deref()) {
                    identities.learn(&chat, &other);
                    identities.learn(&other, &chat);
                }
            }
        }
    }
    let mut messages = Vec::new();
    for conversation in &history.conversations {
        let name = conversation_name(conversation);
        for stored in &conversation.messages {
            let Some(web) = stored.message.as_option() else {
                continue;
            };
            if let Some(message) = history_message(web, &conversation.id, name, &identities) {
                messages.push(message);
            }
        }
    }
    messages
}

/// One message of a conversation (`chat_id`, named `name`), mapped as live; `None` for what
/// the inbox keeps nothing of.
fn history_message(
    web: &wa::WebMessageInfo,
    chat_id: &str,
    name: Option<&str>,
    identities: &Identities,
) -> Option<Message> {
    let key = web.key.as_option()?;
    let content = web.message.as_option()?;
    let id = key.id.as_deref().filter(|id| !id.trim().is_empty())?;
    let seconds = i64::try_from(web.message_timestamp?).ok()?;
    let timestamp = DateTime::from_timestamp(seconds, 0)?;
    let chat = parse(key.remote_jid.as_deref())
        .or_else(|| parse(Some(chat_id)))?
        .to_non_ad();
    let from_me = key.from_me.unwrap_or(false);
    let is_group = chat.server == Server::Group;
    let writer = parse(key.participant.as_deref()).or_else(|| parse(web.participant.as_deref()));
    // In a one-to-one chat the contact writes under the chat's address; in a group, or a
    // broadcast list, the participant does.
    let sender = match &writer {
        Some(writer) if matches!(chat.server, Server::Group | Server::Broadcast) => writer.clone(),
        _ => chat.clone(),
    };
    // The message as WhatsApp keys it, for a re-upload of its attachment by the phone.
    let media_key = MediaMessageKey {
        chat: chat.clone(),
        id: id.to_owned(),
        from_me,
        participant: if is_group { writer } else { None },
    };
    let info = MessageInfo {
        source: MessageSource {
            sender_alt: identities.other(&sender),
            recipient_alt: if from_me {
                identities.other(&chat)
            } else {
                None
            },
            is_from_me: from_me,
            is_group,
            chat,
            sender,
            ..Default::default()
        },
        id: id.to_owned(),
        push_name: web.push_name.clone().unwrap_or_default(),
        timestamp,
        ..Default::default()
    };
    let InboundEvent::Message(mut message) = map_content(content, &info)? else {
        // Deletions, edits and reactions change messages the history already shows as they
        // ended up.
        return None;
    };
    if message.is_group && message.participant.as_deref() == Some(message.chat.as_str()) {
        // A group message that does not name its writer.
        message.participant = None;
    }
    if message.chat_name.is_empty()
        && let Some(name) = name
    {
        name.clone_into(&mut message.chat_name);
    }
    message.media_failed =
        crate::inbound::pending_media(content, &message.external_id, Some(&media_key))
            .map(Box::new);
    Some(message)
}

/// The conversation's name (a group's subject, the name a one-to-one chat has on the phone),
/// when it has one.
fn conversation_name(conversation: &wa::Conversation) -> Option<&str> {
    [&conversation.name, &conversation.display_name]
        .into_iter()
        .filter_map(|name| name.as_deref())
        .map(str::trim)
        .find(|name| !name.is_empty())
}

fn parse(jid: Option<&str>) -> Option<Jid> {
    jid.filter(|j| !j.trim().is_empty())?.trim().parse().ok()
}

/// The other identity of each person the history names: a LID's phone number, a number's LID.
#[derive(Default)]
struct Identities {
    /// By the LID's user: the phone-number address.
    numbers: HashMap<String, Jid>,
    /// By the phone number's digits: the LID address.
    lids: HashMap<String, Jid>,
}

impl Identities {
    /// Learns that `lid` and `pn` are one person (nothing unless they are a LID and a number).
    fn learn(&mut self, lid: &Jid, pn: &Jid) {
        let Some(digits) = phone_digits(pn) else {
            return;
        };
        if !lid.server.is_lid_family() {
            return;
        }
        self.numbers
            .entry(lid.user_base().to_owned())
            .or_insert_with(|| pn.to_non_ad());
        self.lids.entry(digits).or_insert_with(|| lid.to_non_ad());
    }

    /// The other identity of `jid`, when the history told it.
    fn other(&self, jid: &Jid) -> Option<Jid> {
        if jid.server.is_lid_family() {
            return self.numbers.get(jid.user_base()).cloned();
        }
        self.lids.get(&phone_digits(jid)?).cloned()
    }
}
