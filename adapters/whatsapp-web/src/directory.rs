//! The directory of a connection: the people the phone knows (its address book and its
//! one-to-one chats) with their names, kept from what the phone syncs, so that the contacts
//! import (`POST /contacts/import/chats`, [`ChannelProvider::list_chats`]) can list them.
//! WhatsApp Web has no call that lists a phone's chats: the directory is what the session saw.
//!
//! # Where it comes from
//!
//! | library event | what it tells | name's weight | adds the person |
//! |---|---|---|---|
//! | `ContactUpdate` (app-state sync of the address book) | the contact, its LID or number | address book (full name, else first name) | yes |
//! | `HistorySync` with conversations | each one-to-one chat, its LID or number | the chat's name, else the contact's push name on its messages | yes |
//! | `HistorySync` of push names | the push names of people | push name | no (names only people already known) |
//! | `PushNameUpdate` | the sender's new push name | push name | in a one-to-one chat yes, in a group no |
//!
//! Groups, broadcast lists, statuses, newsletters, bots and the connection's own number are
//! left out. A person is keyed by phone number (digits); one WhatsApp named by LID only is
//! resolved to the number through what the event carried (the contact's `pnJid`, the history's
//! mappings) and else, when it is stored, through the session's LID → phone-number mappings
//! ([`crate::storage`]); one whose number is still unknown is kept under its LID
//! (`123456789@lid`) and listed once the number is known.
//!
//! # Names
//!
//! A name from the address book outweighs the chat's name, which outweighs a push name: a
//! sighting replaces the stored name when it has a name and weighs at least as much as the
//! stored one (a later address-book name replaces an earlier one; a push name never replaces
//! an address-book name). An empty name never replaces a name. The time kept is when the person
//! was first seen: the earliest time any sighting of them carried.
//!
//! # Writing
//!
//! The supervisor hands these events to a per-run writer task ([`DirectoryWriter`]), off the
//! session's event loop and away from the durability hook: it drains what is queued (a full
//! sync of the address book brings thousands of contacts at once), maps it (a history part is
//! decoded off the runtime's threads) and writes the batch with one fenced `apply`
//! ([`WaBackend::put_directory`]). A failed batch is logged and dropped: the directory is a
//! convenience for the import, the next sync brings the contacts again.
//!
//! [`ChannelProvider::list_chats`]: chatflow_core::inbox::channel::ChannelProvider::list_chats

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use chatflow_core::ports::Clock;
use serde::{Deserialize, Serialize};
use tokio::sync::mpsc::{UnboundedSender, unbounded_channel};
use tokio::task::JoinHandle;
use whatsapp_rust::types::events::Event;
use whatsapp_rust::wacore::store::traits::DeviceStore;
use whatsapp_rust::waproto::whatsapp as wa;
use whatsapp_rust::{Jid, Server};

use crate::inbound::address::phone_digits;
use crate::inbound::history::carries_conversations;
use crate::storage::WaBackend;

/// How much a name weighs (see the module's documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum NameSource {
    /// The person's push name (the name they set on their own phone).
    Push,
    /// The name of the one-to-one chat on the phone.
    Chat,
    /// The phone's address book.
    Book,
}

/// What one event tells about one person.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sighting {
    /// The person: their phone number (digits), or `123456789@lid` when no number was told.
    pub chat: String,
    /// Their LID's user, when known.
    pub lid: Option<String>,
    /// The name (trimmed; empty when the event told none).
    pub name: String,
    /// Where the name comes from.
    pub source: NameSource,
    /// When (unix seconds).
    pub at: i64,
    /// Whether the sighting adds the person to a directory that does not have them; a push
    /// name seen in a group only renames people already known.
    pub adds: bool,
}

/// One person of the directory, as stored (the value of a `Directory` row, JSON).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DirectoryEntry {
    /// The name (empty when none is known).
    pub name: String,
    /// Their LID's user, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lid: Option<String>,
    /// Where the name comes from.
    pub from: NameSource,
    /// When the person was first seen (unix seconds).
    pub at: i64,
}

/// The connection's own identities, which the directory never holds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Own {
    /// Our phone number (digits).
    pub number: Option<String>,
    /// Our LID's user.
    pub lid: Option<String>,
}

impl Own {
    /// Ours from the device's stored identity.
    pub fn of(pn: Option<&Jid>, lid: Option<&Jid>) -> Self {
        Own {
            number: pn.and_then(phone_digits),
            lid: lid.map(|lid| lid.user_base().to_owned()),
        }
    }

    fn is(&self, sighting: &Sighting) -> bool {
        self.number.as_deref() == Some(sighting.chat.as_str())
            || (self.lid.is_some() && self.lid == sighting.lid)
            || self
                .lid
                .as_ref()
                .is_some_and(|lid| sighting.chat == format!("{lid}@lid"))
    }
}

/// The entry after `sighting` (see the module's documentation); `None` when it changes
/// nothing (or adds nobody).
pub fn merge(stored: Option<&DirectoryEntry>, sighting: &Sighting) -> Option<DirectoryEntry> {
    let Some(stored) = stored else {
        return sighting.adds.then(|| DirectoryEntry {
            name: sighting.name.clone(),
            lid: sighting.lid.clone(),
            from: sighting.source,
            at: sighting.at,
        });
    };
    let mut next = stored.clone();
    if !sighting.name.is_empty() && (sighting.source >= stored.from || stored.name.is_empty()) {
        next.name.clone_from(&sighting.name);
        next.from = sighting.source;
    }
    if sighting.lid.is_some() {
        next.lid.clone_from(&sighting.lid);
    }
    next.at = next.at.min(sighting.at);
    (next != *stored).then_some(next)
}

/// Whether the directory wants this event (see the module's documentation).
pub fn concerns(event: &Event) -> bool {
    match event {
        Event::ContactUpdate(_) | Event::PushNameUpdate(_) => true,
        Event::HistorySync(sync) => {
            carries_conversations(sync.sync_type())
                || sync.sync_type() == wa::history_sync::HistorySyncType::PUSH_NAME as i32
        }
        _ => false,
    }
}

/// What `event` tells about people, without ours (`own`); `now` (unix seconds) stands for the
/// time of a chat the history gives none. A history part is decoded here: call this off the
/// runtime's threads for one.
pub fn sightings(event: &Event, own: &Own, now: i64) -> Vec<Sighting> {
    let found = match event {
        Event::ContactUpdate(update) => {
            let action = &update.action;
            let alternatives = [action.pn_jid.as_deref(), action.lid_jid.as_deref()]
                .into_iter()
                .filter_map(parse)
                .collect::<Vec<_>>();
            let name = [&action.full_name, &action.first_name]
                .into_iter()
                .filter_map(|name| name.as_deref().map(str::trim))
                .find(|name| !name.is_empty())
                .unwrap_or_default();
            identity(&update.jid, &alternatives)
                .map(|(chat, lid)| Sighting {
                    chat,
                    lid,
                    name: name.to_owned(),
                    source: NameSource::Book,
                    at: update.timestamp.timestamp(),
                    adds: true,
                })
                .into_iter()
                .collect()
        }
        Event::PushNameUpdate(update) => {
            let source = &update.message.source;
            let name = update.new_push_name.trim();
            if source.is_from_me || name.is_empty() {
                return Vec::new();
            }
            let alternatives: Vec<Jid> = source.sender_alt.iter().cloned().collect();
            let one_to_one = !source.is_group && source.chat.server != Server::Broadcast;
            identity(&update.jid, &alternatives)
                .map(|(chat, lid)| Sighting {
                    chat,
                    lid,
                    name: name.to_owned(),
                    source: NameSource::Push,
                    at: update.message.timestamp.timestamp(),
                    adds: one_to_one,
                })
                .into_iter()
                .collect()
        }
        Event::HistorySync(sync) if concerns(event) => match sync.get() {
            Some(history) => history_sightings(history, now),
            None => Vec::new(),
        },
        _ => Vec::new(),
    };
    found
        .into_iter()
        .filter(|sighting| !own.is(sighting))
        .collect()
}

/// The people of a decoded history part: each one-to-one conversation, and the push names.
fn history_sightings(history: &wa::HistorySync, now: i64) -> Vec<Sighting> {
    // The part's own LID → number mappings.
    let mut numbers: HashMap<String, Jid> = HashMap::new();
    for mapping in &history.phone_number_to_lid_mappings {
        if let (Some(pn), Some(lid)) = (
            parse(mapping.pn_jid.as_deref()),
            parse(mapping.lid_jid.as_deref()),
        ) && lid.server.is_lid_family()
        {
            numbers.insert(lid.user_base().to_owned(), pn);
        }
    }
    let alternatives_of = |jid: &Jid, told: &[Option<&str>]| -> Vec<Jid> {
        let mut alternatives: Vec<Jid> = told.iter().copied().filter_map(parse).collect();
        if jid.server.is_lid_family()
            && let Some(pn) = numbers.get(jid.user_base())
        {
            alternatives.push(pn.clone());
        }
        alternatives
    };
    let mut found = Vec::new();
    for conversation in &history.conversations {
        let Some(jid) = parse(Some(&conversation.id)) else {
            continue;
        };
        let alternatives = alternatives_of(
            &jid,
            &[
                conversation.pn_jid.as_deref(),
                conversation.lid_jid.as_deref(),
            ],
        );
        let Some((chat, lid)) = identity(&jid, &alternatives) else {
            continue;
        };
        let chat_name = [&conversation.name, &conversation.display_name]
            .into_iter()
            .filter_map(|name| name.as_deref().map(str::trim))
            .find(|name| !name.is_empty());
        let push_name = || {
            conversation
                .messages
                .iter()
                .filter_map(|stored| stored.message.as_option())
                .filter(|web| {
                    !web.key
                        .as_option()
                        .and_then(|key| key.from_me)
                        .unwrap_or(false)
                })
                .filter_map(|web| web.push_name.as_deref().map(str::trim))
                .find(|name| !name.is_empty())
        };
        let (name, source) = match chat_name {
            Some(name) => (name, NameSource::Chat),
            None => (push_name().unwrap_or_default(), NameSource::Push),
        };
        let at = [
            conversation.conversation_timestamp,
            conversation.last_msg_timestamp,
        ]
        .into_iter()
        .flatten()
        .filter_map(|seconds| i64::try_from(seconds).ok())
        .find(|&seconds| seconds > 0)
        .unwrap_or(now);
        found.push(Sighting {
            chat,
            lid,
            name: name.to_owned(),
            source,
            at,
            adds: true,
        });
    }
    for pushname in &history.pushnames {
        let (Some(jid), Some(name)) = (
            parse(pushname.id.as_deref()),
            pushname.pushname.as_deref().map(str::trim),
        ) else {
            continue;
        };
        if name.is_empty() {
            continue;
        }
        let alternatives = alternatives_of(&jid, &[]);
        if let Some((chat, lid)) = identity(&jid, &alternatives) {
            found.push(Sighting {
                chat,
                lid,
                name: name.to_owned(),
                source: NameSource::Push,
                at: now,
                adds: false,
            });
        }
    }
    found
}

/// The person `jid` is (with the other identities told beside it): their key (the phone
/// number when one is told, else `…@lid`) and their LID's user. `None` for what is no person
/// (groups, broadcast lists, statuses, newsletters, bots...).
fn identity(jid: &Jid, alternatives: &[Jid]) -> Option<(String, Option<String>)> {
    let person = |jid: &&Jid| {
        matches!(
            jid.server,
            Server::Pn | Server::Hosted | Server::Legacy | Server::Lid | Server::HostedLid
        )
    };
    if !person(&jid) {
        return None;
    }
    let all: Vec<&Jid> = std::iter::once(jid)
        .chain(alternatives.iter())
        .filter(person)
        .collect();
    let lid = all
        .iter()
        .find(|jid| jid.server.is_lid_family())
        .map(|lid| lid.user_base().to_owned());
    let chat = match all.iter().find_map(|jid| phone_digits(jid)) {
        Some(number) => number,
        None => format!("{}@lid", lid.as_deref()?),
    };
    Some((chat, lid))
}

fn parse(jid: Option<&str>) -> Option<Jid> {
    jid.filter(|j| !j.trim().is_empty())?.trim().parse().ok()
}

/// The most events one batch takes (a full sync of a large address book is a few batches).
const BATCH: usize = 5_000;

/// The directory's writer of one run (see the module's documentation).
pub struct DirectoryWriter {
    events: UnboundedSender<Arc<Event>>,
    task: JoinHandle<()>,
}

impl DirectoryWriter {
    /// Starts the writer of a run, writing through `backend`; `clock` dates the chats the
    /// history gives no time.
    pub fn start(backend: Arc<WaBackend>, clock: Arc<dyn Clock>) -> Self {
        let (events, mut receiver) = unbounded_channel::<Arc<Event>>();
        let task = tokio::spawn(async move {
            let mut batch: Vec<Arc<Event>> = Vec::new();
            while let Some(event) = receiver.recv().await {
                batch.push(event);
                while batch.len() < BATCH {
                    match receiver.try_recv() {
                        Ok(event) => batch.push(event),
                        Err(_) => break,
                    }
                }
                write(
                    &backend,
                    clock.now().timestamp(),
                    std::mem::take(&mut batch),
                )
                .await;
            }
        });
        DirectoryWriter { events, task }
    }

    /// Hands `event` to the writer when the directory wants it; never waits.
    pub fn offer(&self, event: &Arc<Event>) {
        if concerns(event) && self.events.send(event.clone()).is_err() {
            tracing::warn!("the directory's writer is gone; an update of the directory is lost");
        }
    }

    /// Writes what was handed over (waiting at most `timeout`) and ends.
    pub async fn finish(self, timeout: Duration) {
        let DirectoryWriter { events, mut task } = self;
        drop(events);
        if tokio::time::timeout(timeout, &mut task).await.is_err() {
            tracing::warn!("the directory's writer did not finish in time; stopped");
            task.abort();
        }
    }

    /// Ends at once, writing nothing more.
    pub fn abort(self) {
        self.task.abort();
    }
}

/// Maps a batch of events and writes it as one.
async fn write(backend: &WaBackend, now: i64, events: Vec<Arc<Event>>) {
    let own = match backend.load().await {
        Ok(Some(device)) => Own::of(device.pn.as_ref(), device.lid.as_ref()),
        Ok(None) => Own::default(),
        Err(error) => {
            tracing::warn!(connection = backend.connection().0, %error, "the device could not be read; the directory's batch is left out");
            return;
        }
    };
    let mapped = tokio::task::spawn_blocking(move || {
        events
            .iter()
            .flat_map(|event| sightings(event, &own, now))
            .collect::<Vec<_>>()
    })
    .await;
    let found = match mapped {
        Ok(found) => found,
        Err(error) => {
            tracing::error!(%error, "the directory's batch could not be read");
            return;
        }
    };
    if found.is_empty() {
        return;
    }
    match backend.put_directory(&found).await {
        Ok(rows) => tracing::debug!(
            connection = backend.connection().0,
            seen = found.len(),
            rows,
            "the directory was updated"
        ),
        Err(error) => tracing::warn!(
            connection = backend.connection().0,
            %error,
            "the directory could not be updated"
        ),
    }
}
