//! The `beta` channel provider: the core's [`ChannelProvider`] over the [`Supervisor`] of this
//! process.
//!
//! # Assembly
//!
//! The host builds the provider before its use-case ports (the ports hold it), but the
//! supervisor needs the inbound sink, which needs the ports. So the provider is made with a
//! [`DepsBuilder`] and becomes live at [`WaProvider::attach_sink`]: that builds the
//! [`SupervisorDeps`] with the sink and this provider's traffic handler, and starts the
//! supervisor (its takeover scan runs from then on). Calls before that answer
//! `ERR_WAPP_NOT_INITIALIZED`.
//!
//! # Traffic
//!
//! Events that are not about the session (receipts, edits and deletions that come outside the
//! durability hook, reactions, missed calls, number changes, parts of the phone's history) are
//! mapped with [`map_event`] and delivered by [`Ingestor::deliver_events`] on one lane per
//! connection: a lane keeps its connection's order, and a slow delivery on one connection never
//! holds another's. Decrypted messages do not come this way: the library hands them to the
//! durability hook (see [`crate::inbound`]). The end of WhatsApp's offline backlog
//! (`OfflineSyncCompleted`) comes this way too, as [`InboundEvent::CaughtUp`] after the backlog.
//!
//! A history sync (`Event::HistorySync`) becomes one [`InboundEvent::History`] with the part's
//! messages ([`crate::inbound::history`]); it is decoded off the runtime's threads, in its
//! place in the lane. Like receipts it is at most once: the library acknowledged the part to
//! the phone before handing it over, so a part the sink still refuses after
//! [`crate::inbound::EVENT_ATTEMPTS`] tries is lost (logged).
//!
//! The phone's answer to a history request ([`ChannelProvider::request_history`]: a history
//! sync of type `ON_DEMAND`) comes this way as well, as a `History` chunk marked `on_demand`;
//! it is delivered whatever the connection's import of old messages says (the core writes it
//! into the chat's conversation, [`chatflow_core::inbox::gaps`]).
//!
//! # The whole history
//!
//! `want_history` is remembered per connection and handed to the supervisor
//! ([`Supervisor::want_full_history`]; wishes told before [`WaProvider::attach_sink`] are
//! handed over then): the next run that links a phone asks it for its whole history.
//!
//! # Calls
//!
//! | core call | what happens |
//! |---|---|
//! | `want_history` | [`Supervisor::want_full_history`]: the next link asks for the whole history |
//! | `start` | [`Supervisor::restart`]: a fresh client at once (or the task started) |
//! | `new_qr` | [`Stop::NewQr`]: the keys wiped and a new session showing a new QR code |
//! | `disconnect` | [`Stop::Logout`]: the device unlinked from the phone, the keys wiped |
//! | `request_pair_code` | [`Supervisor::request_pair_code`] |
//! | `send` | [`send_outbound`] on the live client (a reply carries the quoted message's writer and text) |
//! | `edit`, `delete`, `react` | the live client's edit, revoke and react |
//! | `mark_read` | a read receipt for the contact's messages; in a group one per writer ([`read_receipts`]) |
//! | `check_number`, `profile` | WhatsApp's number check, the profile picture |
//! | `request_history` | an on-demand history request to the phone ([`history_chat`], [`history_ask`]) |
//! | `download_media` | the download again, asking the phone to re-upload a file WhatsApp's servers dropped |
//! | `list_chats` | the connection's directory ([`crate::directory`]): the people the phone synced |
//!
//! Calls that need the live session answer `ERR_WAPP_NOT_INITIALIZED` when it is not connected
//! in this process (down, or run by another server process of the same database).
//!
//! # Listing the phone's chats
//!
//! WhatsApp Web has no call that lists a phone's chats. `list_chats` answers the connection's
//! directory instead, kept from what the phone syncs ([`crate::directory`]): its address book
//! (app-state contacts), the one-to-one chats of its history, and the push names seen. It reads
//! the stored state, so it answers whichever process runs the session; a connection whose phone
//! never synced answers no chats. Only what the phone synced is there: a phone that does not
//! share its address book, and a link without history, bring fewer people.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use async_trait::async_trait;
#[cfg(doc)]
use chatflow_core::inbox::channel::InboundEvent;
use chatflow_core::inbox::channel::{
    ChannelChat, ChannelMedia, ChannelProfile, ChannelProvider, FailedMedia, HistoryRequest,
    InboundSink, Outbound, ReadMessage,
};
use chatflow_core::inbox::model::ProviderKind;
use chatflow_core::{Error, ErrorCode, Result, TenantScope, WhatsappId};
use tokio::sync::mpsc::{UnboundedSender, unbounded_channel};
use whatsapp_rust::Jid;
use whatsapp_rust::types::events::Event;
use whatsapp_rust::waproto::whatsapp as wa;

use crate::client::{HistoryAsk, NotConnected, WaClient};
use crate::inbound::address::phone_digits;
use crate::inbound::{Ingestor, map_event};
use crate::outbound::{QuotedMessage, send_outbound, text_message, to_jid};
use crate::supervisor::{Stop, Supervisor, SupervisorDeps, TrafficHandler};

/// Builds the supervisor's dependencies once the sink is known (see the module's
/// documentation).
pub type DepsBuilder =
    Box<dyn FnOnce(Arc<dyn InboundSink>, TrafficHandler) -> SupervisorDeps + Send>;

/// The `beta` provider (see the module's documentation). Cheap to clone; clones share the
/// supervisor.
#[derive(Clone)]
pub struct WaProvider {
    inner: Arc<Inner>,
}

struct Inner {
    builder: Mutex<Option<DepsBuilder>>,
    supervisor: OnceLock<Arc<Supervisor>>,
    /// `want_history` wishes told before the supervisor existed.
    early_wishes: Mutex<HashMap<WhatsappId, bool>>,
    /// The calls ringing now, for declining them: by call id, the caller and the call's creator
    /// as the offer named them.
    ringing: Arc<Mutex<HashMap<String, (Jid, Jid)>>>,
}

/// At most this many ringing calls are remembered (a call is declined within seconds or never).
const RINGING_KEPT: usize = 1024;

impl WaProvider {
    /// A provider that becomes live at [`WaProvider::attach_sink`].
    pub fn new(builder: DepsBuilder) -> Self {
        Self {
            inner: Arc::new(Inner {
                builder: Mutex::new(Some(builder)),
                supervisor: OnceLock::new(),
                early_wishes: Mutex::new(HashMap::new()),
                ringing: Arc::new(Mutex::new(HashMap::new())),
            }),
        }
    }

    /// Builds the supervisor with `sink` and starts it (its takeover scan, and from then on the
    /// sessions the core starts). Must be called within a tokio runtime; a second call does
    /// nothing.
    pub fn attach_sink(&self, sink: Arc<dyn InboundSink>) {
        let builder = self
            .inner
            .builder
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        let Some(builder) = builder else {
            return;
        };
        let traffic = traffic_lanes(sink.clone(), self.inner.ringing.clone());
        let supervisor = Supervisor::new(builder(sink, traffic));
        // Under the wishes' lock: a `want_history` either comes before (and is handed over
        // here) or after (and goes to the supervisor itself).
        let mut early = self
            .inner
            .early_wishes
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let _ = self.inner.supervisor.set(supervisor.clone());
        for (connection, wanted) in early.drain() {
            supervisor.want_full_history(connection, wanted);
        }
    }

    /// The supervisor, once the sink is attached.
    pub fn supervisor(&self) -> Option<&Arc<Supervisor>> {
        self.inner.supervisor.get()
    }

    /// Stops every session of this process gracefully, keeping their keys, and hands their
    /// leases over (the process is going away).
    pub async fn shutdown(&self) {
        if let Some(supervisor) = self.supervisor() {
            supervisor.shutdown_all().await;
        }
    }

    fn live(&self) -> Result<&Arc<Supervisor>> {
        self.supervisor().ok_or_else(|| {
            Error::with_detail(
                ErrorCode::ERR_WAPP_NOT_INITIALIZED,
                "the WhatsApp sessions are not started yet",
            )
        })
    }

    /// The connection's client while its session is connected in this process.
    fn client(&self, connection: WhatsappId) -> Result<Arc<dyn WaClient>> {
        let supervisor = self.live()?;
        match supervisor.client(connection) {
            Some(client) if client.is_connected() => Ok(client),
            _ if supervisor.is_running(connection) => Err(Error::with_detail(
                ErrorCode::ERR_WAPP_NOT_INITIALIZED,
                NotConnected.to_string(),
            )),
            _ => Err(Error::with_detail(
                ErrorCode::ERR_WAPP_NOT_INITIALIZED,
                "the connection's session does not run on this server process",
            )),
        }
    }
}

/// A traffic handler with one delivery lane per connection (see the module's documentation).
fn traffic_lanes(
    sink: Arc<dyn InboundSink>,
    ringing: Arc<Mutex<HashMap<String, (Jid, Jid)>>>,
) -> TrafficHandler {
    type Lane = UnboundedSender<Arc<Event>>;
    let lanes: Mutex<HashMap<WhatsappId, Lane>> = Mutex::new(HashMap::new());
    Arc::new(move |scope, connection, event| {
        if let Event::IncomingCall(call) = &*event {
            let mut ringing = ringing.lock().unwrap_or_else(PoisonError::into_inner);
            if ringing.len() >= RINGING_KEPT {
                ringing.clear();
            }
            ringing.insert(
                call.action.call_id().to_owned(),
                (call.from.clone(), call.action.call_creator().clone()),
            );
        }
        let mut lanes = lanes.lock().unwrap_or_else(PoisonError::into_inner);
        let lane = lanes.entry(connection).or_insert_with(|| {
            let (sender, mut receiver) = unbounded_channel::<Arc<Event>>();
            let ingestor = Ingestor::new(scope, connection, sink.clone());
            tokio::spawn(async move {
                while let Some(event) = receiver.recv().await {
                    let events = if matches!(&*event, Event::HistorySync(_)) {
                        // Decoding a part of the history may take a while: off the runtime.
                        tokio::task::spawn_blocking(move || map_event(&event))
                            .await
                            .unwrap_or_else(|error| {
                                tracing::error!(%error, "a part of the phone's history could not be read");
                                Vec::new()
                            })
                    } else {
                        map_event(&event)
                    };
                    if !events.is_empty() {
                        ingestor.deliver_events(events).await;
                    }
                }
            });
            sender
        });
        // The lane's task lives as long as the handler; a send fails only if it panicked.
        if lane.send(event).is_err() {
            tracing::error!(
                connection = connection.0,
                "the connection's event lane is gone"
            );
        }
    })
}

/// A failed call of the live client as the core's error: `ERR_WAPP_NOT_INITIALIZED` when the
/// session went down meanwhile, else `code`.
fn failure(code: ErrorCode, error: &anyhow::Error) -> Error {
    if error.downcast_ref::<NotConnected>().is_some() {
        return Error::with_detail(ErrorCode::ERR_WAPP_NOT_INITIALIZED, error.to_string());
    }
    Error::with_detail(code, format!("{error:#}"))
}

#[async_trait]
impl ChannelProvider for WaProvider {
    fn kind(&self) -> ProviderKind {
        ProviderKind::Beta
    }

    async fn start(&self, scope: TenantScope, connection: WhatsappId) -> Result<()> {
        self.live()?.restart(scope, connection);
        Ok(())
    }

    async fn new_qr(&self, scope: TenantScope, connection: WhatsappId) -> Result<()> {
        self.live()?.stop(scope, connection, Stop::NewQr).await
    }

    async fn disconnect(&self, scope: TenantScope, connection: WhatsappId) -> Result<()> {
        self.live()?.stop(scope, connection, Stop::Logout).await
    }

    async fn reject_call(
        &self,
        _scope: TenantScope,
        connection: WhatsappId,
        call_id: &str,
        chat: &str,
    ) -> Result<()> {
        let known = self
            .inner
            .ringing
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(call_id);
        let (peer, creator) = match known {
            Some(known) => known,
            None => {
                let peer = to_jid(chat)?;
                (peer.clone(), peer)
            }
        };
        let client = self.client(connection)?;
        client
            .reject_call(call_id, &peer, &creator)
            .await
            .map_err(|e| failure(ErrorCode::ERR_INTERNAL, &e))
    }

    async fn want_history(
        &self,
        _scope: TenantScope,
        connection: WhatsappId,
        wanted: bool,
    ) -> Result<()> {
        // Under the lock: see `attach_sink`.
        let mut early = self
            .inner
            .early_wishes
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        match self.supervisor() {
            Some(supervisor) => supervisor.want_full_history(connection, wanted),
            None => {
                early.insert(connection, wanted);
            }
        }
        Ok(())
    }

    async fn request_history(
        &self,
        _scope: TenantScope,
        connection: WhatsappId,
        request: &HistoryRequest,
    ) -> Result<()> {
        let chat = to_jid(&request.chat)?;
        let client = self.client(connection)?;
        let chat = history_chat(client.as_ref(), chat).await;
        let ask = history_ask(request, chat);
        let id = client
            .request_history(&ask)
            .await
            .map_err(|e| failure(ErrorCode::ERR_INTERNAL, &e))?;
        tracing::debug!(
            connection = connection.0,
            request = id,
            count = ask.count,
            "the phone was asked for a chat's history"
        );
        Ok(())
    }

    async fn download_media(
        &self,
        _scope: TenantScope,
        connection: WhatsappId,
        media: &FailedMedia,
    ) -> Result<ChannelMedia> {
        let client = self.client(connection)?;
        crate::inbound::download_again(client.as_ref(), media).await
    }

    async fn send(&self, _scope: TenantScope, message: &Outbound) -> Result<String> {
        let client = self.client(message.connection)?;
        let quoted = quoted_message(message);
        send_outbound(client.as_ref(), message, quoted.as_ref()).await
    }

    async fn edit(
        &self,
        _scope: TenantScope,
        connection: WhatsappId,
        to: &str,
        external_id: &str,
        body: &str,
    ) -> Result<()> {
        let to = to_jid(to)?;
        let client = self.client(connection)?;
        client
            .edit(&to, external_id, text_message(body, None))
            .await
            .map_err(|e| failure(ErrorCode::ERR_SENDING_WAPP_MSG, &e))
    }

    async fn delete(
        &self,
        _scope: TenantScope,
        connection: WhatsappId,
        to: &str,
        external_id: &str,
    ) -> Result<()> {
        let to = to_jid(to)?;
        let client = self.client(connection)?;
        client
            .revoke(&to, external_id)
            .await
            .map_err(|e| failure(ErrorCode::ERR_DELETE_WAPP_MSG, &e))
    }

    async fn react(
        &self,
        _scope: TenantScope,
        connection: WhatsappId,
        to: &str,
        external_id: &str,
        from_me: bool,
        emoji: &str,
    ) -> Result<()> {
        let chat = to_jid(to)?;
        let client = self.client(connection)?;
        let key = wa::MessageKey {
            remote_jid: Some(chat.to_string()),
            from_me: Some(from_me),
            id: Some(external_id.to_owned()),
            ..Default::default()
        };
        client
            .react(&chat, key, emoji)
            .await
            .map_err(|e| failure(ErrorCode::ERR_SENDING_WAPP_MSG, &e))
    }

    async fn mark_read(
        &self,
        _scope: TenantScope,
        connection: WhatsappId,
        chat: &str,
        read: &[ReadMessage],
    ) -> Result<()> {
        let chat = to_jid(chat)?;
        let receipts = read_receipts(&chat, read);
        if receipts.is_empty() {
            return Ok(());
        }
        let client = self.client(connection)?;
        for (writer, ids) in receipts {
            client
                .mark_read(&chat, writer.as_ref(), &ids)
                .await
                .map_err(|e| failure(ErrorCode::ERR_SENDING_WAPP_MSG, &e))?;
        }
        Ok(())
    }

    async fn profile(
        &self,
        _scope: TenantScope,
        connection: WhatsappId,
        number: &str,
    ) -> Result<Option<ChannelProfile>> {
        let jid = to_jid(number)?;
        let client = self.client(connection)?;
        let Some(found) = registered(client.as_ref(), &jid).await? else {
            return Ok(None);
        };
        let address = found.pn.clone().unwrap_or_else(|| jid.clone());
        let picture = client
            .profile_picture(&address)
            .await
            .map_err(|e| failure(ErrorCode::ERR_WAPP_CHECK_CONTACT, &e))?;
        Ok(Some(ChannelProfile {
            number: phone_digits(&address).unwrap_or_else(|| address.user.to_string()),
            name: String::new(),
            profile_pic_url: picture.unwrap_or_default(),
        }))
    }

    async fn request_pair_code(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        phone: &str,
    ) -> Result<()> {
        self.live()?
            .request_pair_code(scope, connection, phone)
            .await
    }

    async fn list_chats(
        &self,
        _scope: TenantScope,
        connection: WhatsappId,
    ) -> Result<Vec<ChannelChat>> {
        self.live()?.directory(connection).await
    }

    async fn check_number(
        &self,
        _scope: TenantScope,
        connection: WhatsappId,
        number: &str,
    ) -> Result<Option<String>> {
        let jid = to_jid(number)?;
        let client = self.client(connection)?;
        Ok(registered(client.as_ref(), &jid).await?.map(|found| {
            let address = found.pn.unwrap_or(found.jid);
            phone_digits(&address).unwrap_or_else(|| address.user.to_string())
        }))
    }
}

/// The read receipts for the messages `read` of `chat`: one for a one-to-one chat (its messages'
/// ids), and in a group one per writer with that writer's messages, in the order the writers
/// first appear (WhatsApp's group receipt names the writer). A group message without a writer,
/// or with one that is no address, is left out.
pub fn read_receipts(chat: &Jid, read: &[ReadMessage]) -> Vec<(Option<Jid>, Vec<String>)> {
    if chat.server != whatsapp_rust::Server::Group {
        let ids: Vec<String> = read.iter().map(|m| m.external_id.clone()).collect();
        return if ids.is_empty() {
            Vec::new()
        } else {
            vec![(None, ids)]
        };
    }
    let mut receipts: Vec<(Option<Jid>, Vec<String>)> = Vec::new();
    for message in read {
        let Some(writer) = message
            .participant
            .as_deref()
            .and_then(|p| to_jid(p).ok())
            .filter(|w| w.server != whatsapp_rust::Server::Group)
        else {
            continue;
        };
        match receipts
            .iter_mut()
            .find(|(known, _)| known.as_ref() == Some(&writer))
        {
            Some((_, ids)) => ids.push(message.external_id.clone()),
            None => receipts.push((Some(writer), vec![message.external_id.clone()])),
        }
    }
    receipts
}

/// The chat as the phone keys it in a history request. A group is its `@g.us` address, and a
/// chat already named by its LID stays so. A person named by number is asked by their LID when
/// the session learned it and the account's one-to-one chats moved to LIDs
/// ([`WaClient::chat_lid`]): the phone then keys the chat by the LID (its history sync names
/// such chats by LID, the number beside as `pnJid`), so a request by number may name a chat it
/// does not have. Otherwise (no LID known, a lookup that failed, an account not moved yet) by
/// number.
pub async fn history_chat(client: &dyn WaClient, chat: Jid) -> Jid {
    if chat.server != whatsapp_rust::Server::Pn {
        return chat;
    }
    match client.chat_lid(&chat).await {
        Ok(Some(lid)) => lid,
        Ok(None) => chat,
        Err(error) => {
            tracing::debug!(error = %format!("{error:#}"), "the LID of a chat could not be looked up; asked by number");
            chat
        }
    }
}

/// The on-demand history request for the core's `request` of `chat` (as the phone keys it):
/// the anchor by id, sender and time in milliseconds, the count as WhatsApp takes it.
pub fn history_ask(request: &HistoryRequest, chat: Jid) -> HistoryAsk {
    HistoryAsk {
        chat,
        anchor_id: request.anchor_external_id.clone(),
        anchor_from_me: request.anchor_from_me,
        anchor_time_ms: request.anchor_time.timestamp_millis(),
        count: i32::try_from(request.count).unwrap_or(i32::MAX),
    }
}

/// What a reply shows of the message it quotes: its writer and text. The writer is the chat
/// for the contact's message in a one-to-one chat, else the one the inbox names (the group
/// member, or our own number for our message); a quote whose writer is not known names the
/// message by id only.
fn quoted_message(message: &Outbound) -> Option<QuotedMessage> {
    let quoted = message.quoted.as_ref()?;
    let chat = to_jid(&message.to).ok()?;
    let sender = match &quoted.sender {
        Some(sender) => to_jid(sender).ok()?,
        None if !quoted.from_me && chat.server != whatsapp_rust::Server::Group => chat,
        None => return None,
    };
    Some(QuotedMessage {
        sender,
        message: text_message(&quoted.body, None),
    })
}

/// What WhatsApp answered about `jid`, when it has an account.
async fn registered(
    client: &dyn WaClient,
    jid: &whatsapp_rust::Jid,
) -> Result<Option<crate::client::NumberCheck>> {
    let answers = client
        .is_on_whatsapp(std::slice::from_ref(jid))
        .await
        .map_err(|e| failure(ErrorCode::ERR_WAPP_CHECK_CONTACT, &e))?;
    Ok(answers.into_iter().find(|a| a.is_registered))
}

#[cfg(test)]
mod tests {
    use chatflow_core::inbox::channel::{OutboundContent, QuotedContent};

    use super::*;

    fn reply(to: &str, from_me: bool, sender: Option<&str>) -> Outbound {
        Outbound {
            connection: WhatsappId(1),
            to: to.to_owned(),
            content: OutboundContent::Text {
                body: "Já vejo".into(),
            },
            quoted_external_id: Some("3EB0QUOTED".into()),
            quoted: Some(QuotedContent {
                body: "Meu pedido é o 123".into(),
                from_me,
                sender: sender.map(str::to_owned),
            }),
            idempotency_key: None,
        }
    }

    fn writer(message: &Outbound) -> Option<String> {
        quoted_message(message).map(|q| q.sender.to_string())
    }

    #[test]
    fn a_reply_carries_the_quoted_messages_writer() {
        // The contact's message in a one-to-one chat: written by the chat.
        assert_eq!(
            writer(&reply("5511988880000", false, None)).as_deref(),
            Some("5511988880000@s.whatsapp.net")
        );
        // Ours: our own number, as the inbox names it.
        assert_eq!(
            writer(&reply("5511988880000", true, Some("5511900000000"))).as_deref(),
            Some("5511900000000@s.whatsapp.net")
        );
        // A group member's, by LID or number.
        let group = "120363025555555555@g.us";
        assert_eq!(
            writer(&reply(group, false, Some("123456789@lid"))).as_deref(),
            Some("123456789@lid")
        );
        assert_eq!(
            writer(&reply(group, false, Some("5511977770000"))).as_deref(),
            Some("5511977770000@s.whatsapp.net")
        );
        // The writer not known (ours before the number is, a group message without its member,
        // a name stored where an address was expected): the quote names the message by id only.
        assert_eq!(writer(&reply("5511988880000", true, None)), None);
        assert_eq!(writer(&reply(group, false, None)), None);
        assert_eq!(writer(&reply(group, false, Some("Ana Souza"))), None);
        // The text goes with it.
        let quoted = quoted_message(&reply(group, false, Some("123456789@lid"))).expect("a quote");
        assert_eq!(
            quoted.message.conversation.as_deref(),
            Some("Meu pedido é o 123")
        );
    }
}
