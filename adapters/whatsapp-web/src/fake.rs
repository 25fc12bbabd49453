//! A scripted stand-in for the library's live session, so the supervisor, the provider, the
//! outbound path and the browser tests run without a phone or a network (compiled always, so
//! the tests' build and the binaries' build are one).
//!
//! - [`FakeWaClientFactory`] implements [`WaClientFactory`]: each `start` makes a
//!   [`FakeSession`] and hands the test a [`FakeSessionHandle`] (see
//!   [`FakeWaClientFactory::sessions`] and [`FakeWaClientFactory::next_session`]).
//! - Through the handle the test plays the library's part: it emits library [`Event`]s in the
//!   session's ordered channel, reaches the session's ingestor, ends the run, and reads whether
//!   the run was shut down or aborted.
//! - [`FakeWaClient`] implements [`WaClient`]: it records every call ([`FakeCall`]) and answers
//!   from its script (a failure for the next call of an operation, the numbers on WhatsApp, the
//!   pair code, connected or not).
//!
//! Like the library, the fake's `pair_with_code` also emits `PairingCode` (or
//! `PairingCodeError`), and its `logout` emits `LoggedOut` and ends the run.
//!
//! [`FakeHistory`] builds the `Event::HistorySync` a phone's history arrives as (zlib-compressed,
//! as WhatsApp sends it), from [`HistoryMessage`]s; [`history_sync`] is the short form. A test
//! emits it with [`FakeSessionHandle::emit`]. [`contact_update`] and [`push_name_update`] build
//! the events of the phone's address book (app-state sync) and of a changed push name.

use std::collections::{HashMap, VecDeque};
use std::io::Write as _;
use std::sync::{Arc, Mutex, MutexGuard};

use async_trait::async_trait;
use chatflow_core::WhatsappId;
use chrono::{DateTime, Utc};
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};
use tokio::sync::watch;
use whatsapp_rust::Jid;
use whatsapp_rust::buffa::{Message as _, MessageField};
use whatsapp_rust::types::events::InboundMessage;
use whatsapp_rust::types::events::{
    ConnectFailureReason, Connected, Event, LazyHistorySync, LoggedOut, OfflineSyncCompleted,
    PairingCode, PairingCodeError,
};
use whatsapp_rust::types::message::{MessageInfo, MessageSource};
use whatsapp_rust::waproto::whatsapp as wa;
use whatsapp_rust::waproto::whatsapp::history_sync::HistorySyncType;

use crate::client::{
    HistoryAsk, MediaGone, MediaKind, MediaMessageKey, NotConnected, NumberCheck, SessionParams,
    SessionStats, Uploaded, WaClient, WaClientFactory, WaSession,
};
use crate::inbound::Ingestor;
use crate::storage::WaBackend;

/// A call the fake client received, with its arguments, in the order they came.
#[derive(Debug, Clone, PartialEq)]
pub enum FakeCall {
    Send {
        to: Jid,
        message: wa::Message,
        id: String,
    },
    Upload {
        bytes: Vec<u8>,
        kind: MediaKind,
    },
    Download {
        message: wa::Message,
    },
    Edit {
        to: Jid,
        original_id: String,
        message: wa::Message,
    },
    Revoke {
        to: Jid,
        id: String,
    },
    React {
        chat: Jid,
        key: wa::MessageKey,
        emoji: String,
    },
    MarkRead {
        chat: Jid,
        sender: Option<Jid>,
        ids: Vec<String>,
    },
    IsOnWhatsapp {
        jids: Vec<Jid>,
    },
    ProfilePicture {
        jid: Jid,
    },
    GroupSubject {
        jid: Jid,
    },
    PhoneNumberOf {
        lid: Jid,
    },
    RejectCall {
        call_id: String,
        peer: Jid,
        creator: Jid,
    },
    PairWithCode {
        phone: String,
    },
    ChatLid {
        phone: Jid,
    },
    RequestHistory {
        ask: HistoryAsk,
    },
    MediaReupload {
        key: MediaMessageKey,
        media_key: Vec<u8>,
    },
    Logout,
}

/// An operation of [`WaClient`], to script its next failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FakeOp {
    Send,
    Upload,
    Download,
    Edit,
    Revoke,
    React,
    MarkRead,
    IsOnWhatsapp,
    ProfilePicture,
    GroupSubject,
    PhoneNumberOf,
    RejectCall,
    PairWithCode,
    ChatLid,
    RequestHistory,
    MediaReupload,
    Logout,
}

/// How a fake run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FakeEnd {
    /// The run loop ended on its own ([`FakeSessionHandle::end`], or a logout).
    Finished,
    /// [`WaSession::shutdown`] was called.
    Shutdown,
    /// [`WaSession::abort`] was called.
    Aborted,
}

#[derive(Default)]
struct ClientState {
    calls: Vec<FakeCall>,
    failures: HashMap<FakeOp, VecDeque<String>>,
    connected: bool,
    numbers: HashMap<Jid, NumberCheck>,
    pair_code: String,
    profile_pictures: HashMap<Jid, String>,
    group_subjects: HashMap<Jid, String>,
    phone_numbers: HashMap<Jid, String>,
    /// The next downloads' answers: the bytes, or the status of a file WhatsApp's servers no
    /// longer hold.
    downloads: VecDeque<Result<Vec<u8>, u16>>,
    chat_lids: HashMap<Jid, Jid>,
    /// The on-demand history the phone answers the next history requests with.
    history_answers: VecDeque<FakeHistory>,
    /// The phone's answers to the next re-upload requests (none: it does not answer).
    reuploads: VecDeque<Result<String, String>>,
    stats: SessionStats,
}

/// The scripted [`WaClient`]. Made by the factory (not connected until the test says so) or
/// alone with [`FakeWaClient::new`] (connected, for outbound tests).
pub struct FakeWaClient {
    state: Mutex<ClientState>,
    events: Option<UnboundedSender<Arc<Event>>>,
    run: Option<Arc<watch::Sender<Option<FakeEnd>>>>,
}

impl Default for FakeWaClient {
    fn default() -> Self {
        Self::new()
    }
}

impl FakeWaClient {
    /// A connected client outside any session: it emits no events.
    pub fn new() -> Self {
        let client = Self {
            state: Mutex::new(ClientState::default()),
            events: None,
            run: None,
        };
        client.lock().connected = true;
        client.lock().pair_code = "FAKE1234".to_owned();
        client
    }

    fn in_session(
        events: UnboundedSender<Arc<Event>>,
        run: Arc<watch::Sender<Option<FakeEnd>>>,
    ) -> Self {
        let client = Self {
            state: Mutex::new(ClientState::default()),
            events: Some(events),
            run: Some(run),
        };
        client.lock().pair_code = "FAKE1234".to_owned();
        client
    }

    fn lock(&self) -> MutexGuard<'_, ClientState> {
        // A panicking test thread poisons the lock; the state stays readable.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Records `call`, then fails when a failure was scripted for `op`.
    fn record(&self, op: FakeOp, call: FakeCall) -> anyhow::Result<()> {
        let mut state = self.lock();
        state.calls.push(call);
        match state.failures.get_mut(&op).and_then(VecDeque::pop_front) {
            Some(error) => Err(anyhow::anyhow!(error)),
            None => Ok(()),
        }
    }

    fn emit(&self, event: Event) {
        if let Some(events) = &self.events {
            let _ = events.send(Arc::new(event));
        }
    }

    /// Every call so far, in order.
    pub fn calls(&self) -> Vec<FakeCall> {
        self.lock().calls.clone()
    }

    /// The sends so far: `(to, message, id)`.
    pub fn sent(&self) -> Vec<(Jid, wa::Message, String)> {
        self.lock()
            .calls
            .iter()
            .filter_map(|call| match call {
                FakeCall::Send { to, message, id } => {
                    Some((to.clone(), message.clone(), id.clone()))
                }
                _ => None,
            })
            .collect()
    }

    /// The uploads so far: `(bytes, kind)`.
    pub fn uploads(&self) -> Vec<(Vec<u8>, MediaKind)> {
        self.lock()
            .calls
            .iter()
            .filter_map(|call| match call {
                FakeCall::Upload { bytes, kind } => Some((bytes.clone(), *kind)),
                _ => None,
            })
            .collect()
    }

    /// The next call of `op` fails with `error` (queued: several calls fail in turn).
    pub fn fail_next(&self, op: FakeOp, error: &str) {
        self.lock()
            .failures
            .entry(op)
            .or_default()
            .push_back(error.to_owned());
    }

    /// Whether the socket is up and logged in (sends fail while it is not).
    pub fn set_connected(&self, connected: bool) {
        self.lock().connected = connected;
    }

    /// What `is_on_whatsapp` answers for `check.jid`. Numbers not scripted are not registered.
    pub fn set_number(&self, check: NumberCheck) {
        self.lock().numbers.insert(check.jid.clone(), check);
    }

    /// The code `pair_with_code` answers (`FAKE1234` unless set).
    pub fn set_pair_code(&self, code: &str) {
        code.clone_into(&mut self.lock().pair_code);
    }

    /// The profile picture address of `jid` (none unless set).
    pub fn set_profile_picture(&self, jid: &Jid, url: &str) {
        self.lock()
            .profile_pictures
            .insert(jid.clone(), url.to_owned());
    }

    /// The subject of the group `jid` (an unknown group answers an error).
    pub fn set_group_subject(&self, jid: &Jid, subject: &str) {
        self.lock()
            .group_subjects
            .insert(jid.clone(), subject.to_owned());
    }

    /// The phone number (digits) WhatsApp knows for the LID `lid` (none unless set).
    pub fn set_phone_number(&self, lid: &Jid, phone: &str) {
        self.lock()
            .phone_numbers
            .insert(lid.clone(), phone.to_owned());
    }

    /// The bytes the next `download` answers (queued; an empty queue answers an error).
    pub fn push_download(&self, bytes: Vec<u8>) {
        self.lock().downloads.push_back(Ok(bytes));
    }

    /// The next `download` finds the file gone from WhatsApp's servers: it answers
    /// [`MediaGone`] with `status` (404 or 410), as the library's media host would (queued with
    /// [`FakeWaClient::push_download`]).
    pub fn push_download_gone(&self, status: u16) {
        self.lock().downloads.push_back(Err(status));
    }

    /// The LID the phone keys the one-to-one chat with `phone` by (none unless set).
    pub fn set_chat_lid(&self, phone: &Jid, lid: &Jid) {
        self.lock().chat_lids.insert(phone.clone(), lid.clone());
    }

    /// The phone answers the next history request with `history` (queued; made with
    /// [`FakeHistory::on_demand`]): `request_history` emits it in the run's channel, as the
    /// phone's history sync would arrive. With nothing queued the phone does not answer.
    pub fn answer_history(&self, history: FakeHistory) {
        self.lock().history_answers.push_back(history);
    }

    /// The phone answers the next re-upload request with the new direct path `direct_path`
    /// (queued). With nothing queued the phone does not answer: the request waits forever, as
    /// the library's would until its timeout.
    pub fn answer_reupload(&self, direct_path: &str) {
        self.lock().reuploads.push_back(Ok(direct_path.to_owned()));
    }

    /// The phone answers the next re-upload request that it could not upload the file.
    pub fn refuse_reupload(&self, error: &str) {
        self.lock().reuploads.push_back(Err(error.to_owned()));
    }

    /// The history requests so far.
    pub fn history_requests(&self) -> Vec<HistoryAsk> {
        self.lock()
            .calls
            .iter()
            .filter_map(|call| match call {
                FakeCall::RequestHistory { ask } => Some(ask.clone()),
                _ => None,
            })
            .collect()
    }

    /// The counters `stats` answers.
    pub fn set_stats(&self, stats: SessionStats) {
        self.lock().stats = stats;
    }

    /// The upload the fake answers for `bytes`: derived from the bytes, so a test can predict it.
    pub fn uploaded_for(bytes: &[u8], kind: MediaKind) -> Uploaded {
        let seed = bytes
            .iter()
            .fold(0xcbf2_9ce4_8422_2325_u64, |hash, byte| {
                (hash ^ u64::from(*byte)).wrapping_mul(0x0100_0000_01b3)
            })
            .to_be_bytes();
        let fill = |salt: u8| {
            let mut out = [0u8; 32];
            for (i, byte) in out.iter_mut().enumerate() {
                *byte = seed[i % 8] ^ salt;
            }
            out
        };
        let name = format!("{kind:?}").to_lowercase();
        let hex: String = seed.iter().map(|b| format!("{b:02x}")).collect();
        Uploaded {
            url: format!("https://mmg.fake/{name}/{hex}"),
            direct_path: format!("/v/{name}/{hex}"),
            media_key: fill(1),
            file_enc_sha256: fill(2),
            file_sha256: fill(3),
            file_length: bytes.len() as u64,
            media_key_timestamp: 1_700_000_000,
            streaming_sidecar: None,
        }
    }
}

#[async_trait]
impl WaClient for FakeWaClient {
    async fn send(&self, to: &Jid, message: wa::Message, id: &str) -> anyhow::Result<String> {
        self.record(
            FakeOp::Send,
            FakeCall::Send {
                to: to.clone(),
                message,
                id: id.to_owned(),
            },
        )?;
        let mut state = self.lock();
        if !state.connected {
            return Err(NotConnected.into());
        }
        state.stats.messages_sent += 1;
        Ok(id.to_owned())
    }

    async fn upload(&self, bytes: Vec<u8>, kind: MediaKind) -> anyhow::Result<Uploaded> {
        let uploaded = Self::uploaded_for(&bytes, kind);
        self.record(FakeOp::Upload, FakeCall::Upload { bytes, kind })?;
        if !self.lock().connected {
            return Err(NotConnected.into());
        }
        Ok(uploaded)
    }

    async fn download(&self, message: &wa::Message) -> anyhow::Result<Vec<u8>> {
        self.record(
            FakeOp::Download,
            FakeCall::Download {
                message: message.clone(),
            },
        )?;
        match self.lock().downloads.pop_front() {
            Some(Ok(bytes)) => Ok(bytes),
            Some(Err(status)) => Err(MediaGone { status }.into()),
            None => Err(anyhow::anyhow!("no media scripted for this download")),
        }
    }

    async fn edit(&self, to: &Jid, original_id: &str, message: wa::Message) -> anyhow::Result<()> {
        self.record(
            FakeOp::Edit,
            FakeCall::Edit {
                to: to.clone(),
                original_id: original_id.to_owned(),
                message,
            },
        )
    }

    async fn revoke(&self, to: &Jid, id: &str) -> anyhow::Result<()> {
        self.record(
            FakeOp::Revoke,
            FakeCall::Revoke {
                to: to.clone(),
                id: id.to_owned(),
            },
        )
    }

    async fn react(&self, chat: &Jid, key: wa::MessageKey, emoji: &str) -> anyhow::Result<()> {
        self.record(
            FakeOp::React,
            FakeCall::React {
                chat: chat.clone(),
                key,
                emoji: emoji.to_owned(),
            },
        )
    }

    async fn mark_read(
        &self,
        chat: &Jid,
        sender: Option<&Jid>,
        ids: &[String],
    ) -> anyhow::Result<()> {
        self.record(
            FakeOp::MarkRead,
            FakeCall::MarkRead {
                chat: chat.clone(),
                sender: sender.cloned(),
                ids: ids.to_vec(),
            },
        )
    }

    async fn is_on_whatsapp(&self, jids: &[Jid]) -> anyhow::Result<Vec<NumberCheck>> {
        self.record(
            FakeOp::IsOnWhatsapp,
            FakeCall::IsOnWhatsapp {
                jids: jids.to_vec(),
            },
        )?;
        let state = self.lock();
        Ok(jids
            .iter()
            .map(|jid| {
                state.numbers.get(jid).cloned().unwrap_or(NumberCheck {
                    jid: jid.clone(),
                    is_registered: false,
                    lid: None,
                    pn: None,
                })
            })
            .collect())
    }

    async fn profile_picture(&self, jid: &Jid) -> anyhow::Result<Option<String>> {
        self.record(
            FakeOp::ProfilePicture,
            FakeCall::ProfilePicture { jid: jid.clone() },
        )?;
        Ok(self.lock().profile_pictures.get(jid).cloned())
    }

    async fn group_subject(&self, jid: &Jid) -> anyhow::Result<String> {
        self.record(
            FakeOp::GroupSubject,
            FakeCall::GroupSubject { jid: jid.clone() },
        )?;
        self.lock()
            .group_subjects
            .get(jid)
            .cloned()
            .ok_or_else(|| anyhow::anyhow!("no such group"))
    }

    async fn phone_number_of(&self, lid: &Jid) -> anyhow::Result<Option<String>> {
        self.record(
            FakeOp::PhoneNumberOf,
            FakeCall::PhoneNumberOf { lid: lid.clone() },
        )?;
        Ok(self.lock().phone_numbers.get(lid).cloned())
    }

    async fn chat_lid(&self, phone: &Jid) -> anyhow::Result<Option<Jid>> {
        self.record(
            FakeOp::ChatLid,
            FakeCall::ChatLid {
                phone: phone.clone(),
            },
        )?;
        Ok(self.lock().chat_lids.get(phone).cloned())
    }

    async fn request_history(&self, ask: &HistoryAsk) -> anyhow::Result<String> {
        self.record(
            FakeOp::RequestHistory,
            FakeCall::RequestHistory { ask: ask.clone() },
        )?;
        let answer = {
            let mut state = self.lock();
            if !state.connected {
                return Err(NotConnected.into());
            }
            state.history_answers.pop_front()
        };
        let id = format!("FAKEPDO{}", self.history_requests().len());
        if let Some(history) = answer {
            self.emit(history.event());
        }
        Ok(id)
    }

    async fn request_media_reupload(
        &self,
        key: &MediaMessageKey,
        media_key: &[u8],
    ) -> anyhow::Result<String> {
        self.record(
            FakeOp::MediaReupload,
            FakeCall::MediaReupload {
                key: key.clone(),
                media_key: media_key.to_vec(),
            },
        )?;
        let answer = {
            let mut state = self.lock();
            if !state.connected {
                return Err(NotConnected.into());
            }
            state.reuploads.pop_front()
        };
        match answer {
            Some(Ok(direct_path)) => Ok(direct_path),
            Some(Err(error)) => Err(anyhow::anyhow!(error)),
            // The phone does not answer.
            None => std::future::pending().await,
        }
    }

    async fn reject_call(&self, call_id: &str, peer: &Jid, creator: &Jid) -> anyhow::Result<()> {
        self.record(
            FakeOp::RejectCall,
            FakeCall::RejectCall {
                call_id: call_id.to_owned(),
                peer: peer.clone(),
                creator: creator.clone(),
            },
        )?;
        Ok(())
    }

    async fn pair_with_code(&self, phone: &str) -> anyhow::Result<String> {
        let recorded = self.record(
            FakeOp::PairWithCode,
            FakeCall::PairWithCode {
                phone: phone.to_owned(),
            },
        );
        match recorded {
            Ok(()) => {
                let code = self.lock().pair_code.clone();
                self.emit(Event::PairingCode(
                    PairingCode::builder()
                        .code(code.clone())
                        .timeout(std::time::Duration::from_secs(180))
                        .build(),
                ));
                Ok(code)
            }
            Err(error) => {
                self.emit(Event::PairingCodeError(
                    PairingCodeError::builder().error(error.to_string()).build(),
                ));
                Err(error)
            }
        }
    }

    async fn logout(&self) -> anyhow::Result<()> {
        self.record(FakeOp::Logout, FakeCall::Logout)?;
        self.lock().connected = false;
        self.emit(Event::LoggedOut(
            LoggedOut::builder()
                .on_connect(false)
                .reason(ConnectFailureReason::LoggedOut)
                .build(),
        ));
        if let Some(run) = &self.run {
            end_run(run, FakeEnd::Finished);
        }
        Ok(())
    }

    fn is_connected(&self) -> bool {
        self.lock().connected
    }

    fn stats(&self) -> SessionStats {
        self.lock().stats
    }
}

/// One fake run, as the supervisor holds it.
pub struct FakeSession {
    client: Arc<FakeWaClient>,
    run: Arc<watch::Sender<Option<FakeEnd>>>,
}

/// Marks the run ended with `end` unless it already ended; answers whether it did now.
fn end_run(run: &watch::Sender<Option<FakeEnd>>, end: FakeEnd) -> bool {
    run.send_if_modified(|current| {
        if current.is_some() {
            return false;
        }
        *current = Some(end);
        true
    })
}

#[async_trait]
impl WaSession for FakeSession {
    fn client(&self) -> Arc<dyn WaClient> {
        self.client.clone()
    }

    async fn finished(&mut self) {
        let mut ended = self.run.subscribe();
        // The sender lives in `self`, so the wait ends only when the run does.
        let _ = ended.wait_for(Option::is_some).await;
    }

    async fn shutdown(self: Box<Self>) {
        end_run(&self.run, FakeEnd::Shutdown);
        self.client.set_connected(false);
    }

    fn abort(&self) {
        end_run(&self.run, FakeEnd::Aborted);
        self.client.set_connected(false);
    }
}

/// The test's side of one fake run.
#[derive(Clone)]
pub struct FakeSessionHandle {
    /// The connection the run was started for.
    pub connection: WhatsappId,
    /// The number to link by pair code, when the run was started with one.
    pub pair_phone: Option<String>,
    /// Whether the run was started asking for the phone's whole history
    /// ([`SessionParams::full_history`]).
    pub full_history: bool,
    /// The key store the run was started with.
    pub backend: Arc<WaBackend>,
    /// The ingestor the library's durability hook would commit to.
    pub ingestor: Arc<Ingestor>,
    client: Arc<FakeWaClient>,
    events: UnboundedSender<Arc<Event>>,
    run: Arc<watch::Sender<Option<FakeEnd>>>,
}

impl FakeSessionHandle {
    /// The run's client, to script answers and read the calls.
    pub fn client(&self) -> Arc<FakeWaClient> {
        self.client.clone()
    }

    /// Emits a library event in the run's ordered channel; `false` when nobody listens anymore.
    pub fn emit(&self, event: Event) -> bool {
        self.events.send(Arc::new(event)).is_ok()
    }

    /// The socket is up and logged in: marks the client connected and emits `Connected`.
    pub fn connect(&self) -> bool {
        self.client.set_connected(true);
        self.emit(Event::Connected(Connected::builder().build()))
    }

    /// WhatsApp delivered what it queued while the session was away (`count` items): emits the
    /// library's `OfflineSyncCompleted`, which the library dispatches once the backlog's messages
    /// are committed through the durability hook.
    pub fn caught_up(&self, count: i32) -> bool {
        self.emit(Event::OfflineSyncCompleted(
            OfflineSyncCompleted::builder().count(count).build(),
        ))
    }

    /// Ends the run loop on its own (what the library does after a logout, a ban, a replaced
    /// stream or the last QR code); the supervisor's `finished()` resolves.
    pub fn end(&self) -> bool {
        self.client.set_connected(false);
        end_run(&self.run, FakeEnd::Finished)
    }

    /// How the run ended, if it did.
    pub fn ended(&self) -> Option<FakeEnd> {
        *self.run.borrow()
    }

    /// Waits until the run ended and answers how.
    pub async fn wait_ended(&self) -> FakeEnd {
        let mut ended = self.run.subscribe();
        match ended.wait_for(Option::is_some).await {
            Ok(end) => end.unwrap_or(FakeEnd::Finished),
            // Unreachable: `self` holds the sender.
            Err(_) => FakeEnd::Finished,
        }
    }

    /// Whether the supervisor stopped the run gracefully.
    pub fn was_shutdown(&self) -> bool {
        self.ended() == Some(FakeEnd::Shutdown)
    }

    /// Whether the supervisor stopped the run at once.
    pub fn was_aborted(&self) -> bool {
        self.ended() == Some(FakeEnd::Aborted)
    }
}

#[derive(Default)]
struct FactoryState {
    sessions: Vec<FakeSessionHandle>,
    failures: VecDeque<String>,
}

/// A [`WaClientFactory`] of fake runs (no network). Cheap to clone; clones share the runs.
#[derive(Clone)]
pub struct FakeWaClientFactory {
    state: Arc<Mutex<FactoryState>>,
    started: UnboundedSender<FakeSessionHandle>,
    receiver: Arc<tokio::sync::Mutex<UnboundedReceiver<FakeSessionHandle>>>,
}

impl Default for FakeWaClientFactory {
    fn default() -> Self {
        Self::new()
    }
}

impl FakeWaClientFactory {
    /// A factory with no runs yet, whose starts succeed unless scripted to fail.
    pub fn new() -> Self {
        let (started, receiver) = unbounded_channel();
        Self {
            state: Arc::default(),
            started,
            receiver: Arc::new(tokio::sync::Mutex::new(receiver)),
        }
    }

    fn lock(&self) -> MutexGuard<'_, FactoryState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Every run started so far, oldest first.
    pub fn sessions(&self) -> Vec<FakeSessionHandle> {
        self.lock().sessions.clone()
    }

    /// Waits for the next run to start (each run is handed out once, in start order).
    pub async fn next_session(&self) -> FakeSessionHandle {
        let mut receiver = self.receiver.lock().await;
        match receiver.recv().await {
            Some(handle) => handle,
            // Unreachable: `self` holds the sender.
            None => std::future::pending().await,
        }
    }

    /// The next `start` fails with `error` (queued: several starts fail in turn).
    pub fn fail_next_start(&self, error: &str) {
        self.lock().failures.push_back(error.to_owned());
    }
}

#[async_trait]
impl WaClientFactory for FakeWaClientFactory {
    async fn start(&self, params: SessionParams) -> anyhow::Result<Box<dyn WaSession>> {
        if let Some(error) = self.lock().failures.pop_front() {
            anyhow::bail!(error);
        }
        let (run, _) = watch::channel(None);
        let run = Arc::new(run);
        let client = Arc::new(FakeWaClient::in_session(params.events.clone(), run.clone()));
        let handle = FakeSessionHandle {
            connection: params.connection,
            pair_phone: params.pair_phone,
            full_history: params.full_history,
            backend: params.backend,
            ingestor: params.ingestor,
            client: client.clone(),
            events: params.events,
            run: run.clone(),
        };
        self.lock().sessions.push(handle.clone());
        let _ = self.started.send(handle);
        Ok(Box::new(FakeSession { client, run }))
    }
}

/// A one-to-one text message from `sender` (`digits@s.whatsapp.net`), as the library hands it
/// to the durability hook: what tests, the browser tests' fake server and the bench feed in.
pub fn text_from(sender: &Jid, id: &str, body: &str, push_name: &str) -> InboundMessage {
    InboundMessage::builder()
        .message(Arc::new(wa::Message {
            conversation: Some(body.to_owned()),
            ..Default::default()
        }))
        .info(Arc::new(MessageInfo {
            source: MessageSource {
                chat: sender.clone(),
                sender: sender.clone(),
                ..Default::default()
            },
            id: id.to_owned(),
            push_name: push_name.to_owned(),
            ..Default::default()
        }))
        .build()
}

/// One message of a fake history sync ([`FakeHistory`]), as simple parts: a text unless
/// [`HistoryMessage::with_message`] gives other content.
#[derive(Debug, Clone, PartialEq)]
pub struct HistoryMessage {
    /// The conversation it belongs to: a number (`5511…@s.whatsapp.net`), a LID (`…@lid`), a
    /// group (`…@g.us`), or anything else WhatsApp keeps (`status@broadcast`...).
    pub chat: Jid,
    /// Its id (the message's external id in the inbox).
    pub id: String,
    /// Sent from the connected phone.
    pub from_me: bool,
    /// In a group: who wrote it.
    pub participant: Option<Jid>,
    /// The writer's push name; empty for none.
    pub push_name: String,
    /// When it was sent (WhatsApp keeps whole seconds).
    pub timestamp: DateTime<Utc>,
    /// Its content.
    pub message: wa::Message,
}

impl HistoryMessage {
    /// A text `body` in `chat`, from the contact (or, in a group, from nobody named until
    /// [`HistoryMessage::by`]).
    pub fn text(chat: &Jid, id: &str, body: &str, timestamp: DateTime<Utc>) -> Self {
        Self {
            chat: chat.clone(),
            id: id.to_owned(),
            from_me: false,
            participant: None,
            push_name: String::new(),
            timestamp,
            message: wa::Message {
                conversation: Some(body.to_owned()),
                ..Default::default()
            },
        }
    }

    /// Sent from the connected phone.
    pub fn from_me(mut self) -> Self {
        self.from_me = true;
        self
    }

    /// Written by `participant` (a group's member).
    pub fn by(mut self, participant: &Jid) -> Self {
        self.participant = Some(participant.clone());
        self
    }

    /// With the writer's push name.
    pub fn named(mut self, push_name: &str) -> Self {
        push_name.clone_into(&mut self.push_name);
        self
    }

    /// With `message` as its content instead of the text.
    pub fn with_message(mut self, message: wa::Message) -> Self {
        self.message = message;
        self
    }

    /// The `WebMessageInfo` WhatsApp keeps it as in a history sync.
    pub fn web_message_info(&self) -> wa::WebMessageInfo {
        wa::WebMessageInfo {
            key: MessageField::some(wa::MessageKey {
                remote_jid: Some(self.chat.to_string()),
                from_me: Some(self.from_me),
                id: Some(self.id.clone()),
                participant: self.participant.as_ref().map(ToString::to_string),
            }),
            message: MessageField::some(self.message.clone()),
            message_timestamp: u64::try_from(self.timestamp.timestamp()).ok(),
            push_name: (!self.push_name.is_empty()).then(|| self.push_name.clone()),
            ..Default::default()
        }
    }
}

/// A part of a phone's history as WhatsApp sends it after a link (`Event::HistorySync`), built
/// from simple parts: messages grouped into conversations in the order their chats first
/// appear, the conversations' names, the phone-number-to-LID mappings and the progress. An
/// initial bootstrap unless [`FakeHistory::of_type`] says otherwise.
///
/// ```
/// use chatflow_whatsapp_web::fake::{FakeHistory, HistoryMessage};
/// use chatflow_whatsapp_web::whatsapp_rust::Jid;
/// use chrono::{TimeZone, Utc};
///
/// let ana: Jid = "5511999990000@s.whatsapp.net".parse().expect("a jid");
/// let at = Utc.with_ymd_and_hms(2025, 6, 1, 12, 0, 0).single().expect("a time");
/// let event = FakeHistory::new()
///     .message(HistoryMessage::text(&ana, "3EB0OLD1", "old hello", at).named("Ana"))
///     .progress(100)
///     .event();
/// // run.emit(event) on a fake session delivers one InboundEvent::History.
/// # let _ = event;
/// ```
#[derive(Debug, Clone)]
pub struct FakeHistory {
    sync_type: HistorySyncType,
    conversations: Vec<wa::Conversation>,
    mappings: Vec<wa::PhoneNumberToLIDMapping>,
    pushnames: Vec<wa::Pushname>,
    progress: Option<u32>,
    chunk_order: Option<u32>,
}

impl Default for FakeHistory {
    fn default() -> Self {
        Self::new()
    }
}

impl FakeHistory {
    /// An empty initial bootstrap (the first part after a link).
    pub fn new() -> Self {
        Self::of_type(HistorySyncType::INITIAL_BOOTSTRAP)
    }

    /// An empty answer of the phone to a history request (`ON_DEMAND`).
    pub fn on_demand() -> Self {
        Self::of_type(HistorySyncType::ON_DEMAND)
    }

    /// An empty part of `sync_type` (a full sync, push names...).
    pub fn of_type(sync_type: HistorySyncType) -> Self {
        Self {
            sync_type,
            conversations: Vec::new(),
            mappings: Vec::new(),
            pushnames: Vec::new(),
            progress: None,
            chunk_order: None,
        }
    }

    /// The conversation of `chat`, added when new.
    fn conversation(&mut self, chat: &Jid) -> &mut wa::Conversation {
        let id = chat.to_string();
        let at = match self.conversations.iter().position(|c| c.id == id) {
            Some(at) => at,
            None => {
                self.conversations.push(wa::Conversation {
                    id,
                    ..Default::default()
                });
                self.conversations.len() - 1
            }
        };
        &mut self.conversations[at]
    }

    /// Adds `message` to its chat's conversation.
    pub fn message(self, message: HistoryMessage) -> Self {
        let info = message.web_message_info();
        self.web_message(&message.chat, info)
    }

    /// Adds a message as WhatsApp stores it to the conversation of `chat` (for content the
    /// simple form does not have: stubs, a key without a chat...).
    pub fn web_message(mut self, chat: &Jid, info: wa::WebMessageInfo) -> Self {
        self.conversation(chat).messages.push(wa::HistorySyncMsg {
            message: MessageField::some(info),
            ..Default::default()
        });
        self
    }

    /// Names the conversation of `chat` (a group's subject, a contact's name on the phone).
    pub fn chat_name(mut self, chat: &Jid, name: &str) -> Self {
        self.conversation(chat).name = Some(name.to_owned());
        self
    }

    /// Adds the conversation of `chat` without messages, last active at `at` (a chat the phone
    /// has, as a full sync lists it).
    pub fn chat_at(mut self, chat: &Jid, at: DateTime<Utc>) -> Self {
        let seconds = u64::try_from(at.timestamp()).unwrap_or_default();
        self.conversation(chat).conversation_timestamp = Some(seconds);
        self
    }

    /// Tells the push name of `jid` (the part's `pushnames`, as a push-name part carries them).
    pub fn push_name(mut self, jid: &Jid, name: &str) -> Self {
        self.pushnames.push(wa::Pushname {
            id: Some(jid.to_string()),
            pushname: Some(name.to_owned()),
        });
        self
    }

    /// Tells that the LID `lid` is the phone number `pn` (the part's
    /// `phoneNumberToLidMappings`).
    pub fn lid_mapping(mut self, lid: &Jid, pn: &Jid) -> Self {
        self.mappings.push(wa::PhoneNumberToLIDMapping {
            pn_jid: Some(pn.to_string()),
            lid_jid: Some(lid.to_string()),
        });
        self
    }

    /// How far the whole history has come (0-100).
    pub fn progress(mut self, progress: u32) -> Self {
        self.progress = Some(progress);
        self
    }

    /// The part's place among the parts of one transfer.
    pub fn chunk_order(mut self, order: u32) -> Self {
        self.chunk_order = Some(order);
        self
    }

    /// The decoded part.
    pub fn to_proto(&self) -> wa::HistorySync {
        wa::HistorySync {
            sync_type: self.sync_type,
            conversations: self.conversations.clone(),
            chunk_order: self.chunk_order,
            progress: self.progress,
            phone_number_to_lid_mappings: self.mappings.clone(),
            pushnames: self.pushnames.clone(),
            ..Default::default()
        }
    }

    /// The part as the library hands it over: zlib-compressed, decoded on demand.
    pub fn lazy(&self) -> LazyHistorySync {
        let raw = self.to_proto().encode_to_vec();
        let mut encoder = flate2::write::ZlibEncoder::new(
            Vec::with_capacity(raw.len()),
            flate2::Compression::fast(),
        );
        // Writing to memory does not fail.
        let compressed = encoder
            .write_all(&raw)
            .and_then(|()| encoder.finish())
            .unwrap_or_default();
        LazyHistorySync::new(
            compressed.into(),
            raw.len(),
            self.sync_type as i32,
            self.chunk_order,
            self.progress,
        )
    }

    /// The library event.
    pub fn event(&self) -> Event {
        Event::HistorySync(Box::new(self.lazy()))
    }
}

/// An initial bootstrap of `messages` with `progress`: the short form of [`FakeHistory`].
pub fn history_sync(
    messages: impl IntoIterator<Item = HistoryMessage>,
    progress: Option<u32>,
) -> Event {
    let mut history = messages
        .into_iter()
        .fold(FakeHistory::new(), FakeHistory::message);
    history.progress = progress;
    history.event()
}

/// The phone's address-book entry of `jid` as its app-state sync brings it
/// (`Event::ContactUpdate`): the full and first names, and the other identity the entry names
/// (a phone number for a LID, a LID for a number), at `at`.
pub fn contact_update(
    jid: &Jid,
    full_name: Option<&str>,
    first_name: Option<&str>,
    other: Option<&Jid>,
    at: DateTime<Utc>,
) -> Event {
    let (pn_jid, lid_jid) = match other {
        Some(other) if other.server.is_lid_family() => (None, Some(other.to_string())),
        Some(other) => (Some(other.to_string()), None),
        None => (None, None),
    };
    Event::ContactUpdate(
        whatsapp_rust::types::events::ContactUpdate::builder()
            .jid(jid.clone())
            .timestamp(at)
            .action(Box::new(wa::sync_action_value::ContactAction {
                full_name: full_name.map(str::to_owned),
                first_name: first_name.map(str::to_owned),
                pn_jid,
                lid_jid,
                ..Default::default()
            }))
            .from_full_sync(true)
            .build(),
    )
}

/// `sender` changed their push name to `name`, seen on a message at `at` in `chat` (their
/// one-to-one chat when it is theirs, else a group).
pub fn push_name_update(sender: &Jid, chat: &Jid, name: &str, at: DateTime<Utc>) -> Event {
    let info = MessageInfo {
        source: MessageSource {
            chat: chat.clone(),
            sender: sender.clone(),
            is_group: chat.server == whatsapp_rust::Server::Group,
            ..Default::default()
        },
        id: "3EB0PUSHNAME".to_owned(),
        push_name: name.to_owned(),
        timestamp: at,
        ..Default::default()
    };
    Event::PushNameUpdate(
        whatsapp_rust::types::events::PushNameUpdate::builder()
            .jid(sender.clone())
            .message(Box::new(info))
            .old_push_name(String::new())
            .new_push_name(name.to_owned())
            .build(),
    )
}
