//! The sandbox channel: a built-in simulated phone network implementing the core's
//! [`ChannelProvider`] (kind [`ProviderKind::Sandbox`]), so the whole inbox works without an
//! external account.
//!
//! - Pairing: [`ChannelProvider::start`] reports OPENING, then a QR code (an SVG data URL of the
//!   pairing string `chatflow-sandbox:{companyId}:{whatsappId}:{nonce}`), renewed every
//!   [`SandboxConfig::qr_interval`]; after [`SandboxConfig::max_qr_codes`] unscanned codes the
//!   session times out. A "scan" ([`SandboxRepo::mark_scanned`], from the CLI or the HTTP route)
//!   connects it with the number `5500000000{whatsappId}`. A paired connection reconnects
//!   directly on restart.
//! - Outbound: [`ChannelProvider::send`] stores the message in the phone's received list with
//!   ack 1 and reports acks 2 and 3 after [`SandboxConfig::ack_delay`] each.
//! - Inbound: what simulated phones do ([`PhoneAct`]: messages with or without a file, reactions,
//!   edits and deletions of their own messages, missed calls) is queued durably
//!   ([`SandboxRepo::push_inbound`]), drained in order by the background task
//!   ([`SandboxProvider::spawn`]) and marked delivered only after the [`InboundSink`] returned
//!   Ok, so a crash replays it (and ingestion's unique key makes the replay harmless).
//! - Chats: the phones that talked with a connection are its chats
//!   ([`ChannelProvider::list_chats`]); a phone's profile is the name it last sent
//!   ([`ChannelProvider::profile`]).
//!
//! State shared with other processes lives in the database (the [`SandboxRepo`] port); the task
//! polls it every [`SandboxConfig::poll_interval`] and wakes at once after in-process writes.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, RwLock, Weak};
use std::time::Duration;

use async_trait::async_trait;
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use chatflow_core::inbox::channel::{
    ChannelChat, ChannelMedia, ChannelProfile, ChannelProvider, InboundEvent, InboundMessage,
    InboundSink, Outbound,
};
use chatflow_core::inbox::inbound::retry_delay;
use chatflow_core::inbox::model::{ConnectionStatus, MediaType, ProviderKind, SessionUpdate};
use chatflow_core::inbox::sandbox::{
    INBOUND_RETENTION_DAYS, SandboxChange, SandboxRepo, display_body, paired_number, pairing_string,
};
use chatflow_core::ports::IdGenerator;
use chatflow_core::{CompanyId, Error, ErrorCode, Result, TenantScope, WhatsappId};
use tokio::sync::Notify;
use tokio::time::Instant;

/// Inbound rows read per connection and round.
pub const DRAIN_PER_CONNECTION: u32 = 50;

/// How often delivered inbound rows are pruned.
const PRUNE_INTERVAL: Duration = Duration::from_secs(3600);

/// Timings of the simulated network.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SandboxConfig {
    /// How long one QR code stays valid before a new one is shown (30 s).
    pub qr_interval: Duration,
    /// Unscanned QR codes before the session times out (5).
    pub max_qr_codes: i64,
    /// Delay before each ack step (sent → delivered → read; 500 ms).
    pub ack_delay: Duration,
    /// How often the database is polled for scans and phone messages written by other
    /// processes (200 ms).
    pub poll_interval: Duration,
}

impl Default for SandboxConfig {
    fn default() -> Self {
        Self {
            qr_interval: Duration::from_secs(30),
            max_qr_codes: 5,
            ack_delay: Duration::from_millis(500),
            poll_interval: Duration::from_millis(200),
        }
    }
}

/// What a simulated phone sends: the fields of `chatflow sandbox send` and
/// `POST /sandbox/{whatsappId}/send`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PhoneMessage {
    /// The phone's number (or the group's id when `is_group`).
    pub from: String,
    /// The contact's push name (the number when empty).
    pub name: String,
    pub body: String,
    pub is_group: bool,
    /// An attachment: file name, MIME type and bytes.
    pub file: Option<PhoneFile>,
}

/// A file a simulated phone sends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PhoneFile {
    pub file_name: String,
    /// Empty to guess from the file name.
    pub mime_type: String,
    pub bytes: Vec<u8>,
}

/// Something a simulated phone does to a connection: the inputs of `chatflow sandbox send` /
/// `call` and of `POST /sandbox/{whatsappId}/send` / `call`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PhoneAct {
    /// A message, with or without a file.
    Message(PhoneMessage),
    /// A reaction to a message of the chat (one the phone sent or received), by its external
    /// id; an empty emoji removes the phone's reaction.
    React {
        from: String,
        external_id: String,
        emoji: String,
    },
    /// The phone edits the text of a message it sent.
    Edit {
        from: String,
        external_id: String,
        body: String,
    },
    /// The phone deletes a message it sent, for everyone.
    Delete { from: String, external_id: String },
    /// The phone called and nobody answered.
    Call { from: String, name: String },
}

impl PhoneAct {
    /// The phone's number.
    pub fn from(&self) -> &str {
        match self {
            PhoneAct::Message(m) => &m.from,
            PhoneAct::React { from, .. }
            | PhoneAct::Edit { from, .. }
            | PhoneAct::Delete { from, .. }
            | PhoneAct::Call { from, .. } => from,
        }
    }
}

fn checked_sender(from: &str) -> Result<&str> {
    let from = from.trim();
    if from.is_empty()
        || !from
            .chars()
            .all(|c| c.is_ascii_digit() || c == '-' || c == '@')
    {
        return Err(Error::with_detail(
            ErrorCode::ERR_BAD_REQUEST,
            "the sender must be a phone number",
        ));
    }
    Ok(from)
}

fn fresh_external_id(ids: &dyn IdGenerator) -> String {
    format!("SBX{}", ids.token(20).to_uppercase())
}

fn push_name(name: &str, from: &str) -> String {
    if name.trim().is_empty() {
        from.to_owned()
    } else {
        name.trim().to_owned()
    }
}

/// Builds the inbound event of a phone's act. Returns the event and the external id it is
/// about: the new message's or call's, or the target of a reaction, edit or deletion. Refuses
/// (`ERR_BAD_REQUEST`) a sender that is not a number, an empty message, an empty edit and a
/// missing target; whose message the target is, is [`queue_phone_act`]'s check.
pub fn phone_act_event(ids: &dyn IdGenerator, act: &PhoneAct) -> Result<(InboundEvent, String)> {
    let from = checked_sender(act.from())?;
    let target = |external_id: &str| -> Result<String> {
        let id = external_id.trim();
        if id.is_empty() {
            return Err(Error::with_detail(
                ErrorCode::ERR_BAD_REQUEST,
                "name the message by its external id",
            ));
        }
        Ok(id.to_owned())
    };
    match act {
        PhoneAct::Message(message) => {
            let event = phone_event(ids, message)?;
            let id = match &event {
                InboundEvent::Message(m) => m.external_id.clone(),
                _ => String::new(),
            };
            Ok((event, id))
        }
        PhoneAct::React {
            external_id, emoji, ..
        } => {
            let id = target(external_id)?;
            Ok((
                InboundEvent::Reaction {
                    external_id: id.clone(),
                    chat: from.to_owned(),
                    emoji: emoji.trim().to_owned(),
                },
                id,
            ))
        }
        PhoneAct::Edit {
            external_id, body, ..
        } => {
            let id = target(external_id)?;
            if body.trim().is_empty() {
                return Err(Error::with_detail(
                    ErrorCode::ERR_BAD_REQUEST,
                    "an edit needs the new text",
                ));
            }
            Ok((
                InboundEvent::Edit {
                    external_id: id.clone(),
                    body: body.clone(),
                    timestamp: chrono::Utc::now(),
                },
                id,
            ))
        }
        PhoneAct::Delete { external_id, .. } => {
            let id = target(external_id)?;
            Ok((
                InboundEvent::Delete {
                    external_id: id.clone(),
                },
                id,
            ))
        }
        PhoneAct::Call { name, .. } => {
            let id = fresh_external_id(ids);
            Ok((
                InboundEvent::MissedCall {
                    external_id: id.clone(),
                    chat: from.to_owned(),
                    chat_name: push_name(name, from),
                    timestamp: chrono::Utc::now(),
                },
                id,
            ))
        }
    }
}

/// Queues a phone's act for the connection (the server delivers it within a moment) and
/// returns the external id it is about (see [`phone_act_event`]). A phone edits and deletes
/// only messages it sent, and reacts only to messages of its own chat (sent or received);
/// anything else is `ERR_NOT_FOUND`. `ERR_NO_WAPP_FOUND` when the connection is not the
/// company's. The CLI (another process) and the HTTP routes both queue through here.
pub async fn queue_phone_act(
    repo: &dyn SandboxRepo,
    ids: &dyn IdGenerator,
    scope: TenantScope,
    connection: WhatsappId,
    act: &PhoneAct,
) -> Result<String> {
    let (event, external_id) = phone_act_event(ids, act)?;
    let from = checked_sender(act.from())?;
    let known = match act {
        PhoneAct::Message(_) | PhoneAct::Call { .. } => true,
        PhoneAct::Edit { .. } | PhoneAct::Delete { .. } => {
            repo.phone_sent(scope, connection, from, &external_id)
                .await?
        }
        PhoneAct::React { .. } => {
            repo.phone_sent(scope, connection, from, &external_id)
                .await?
                || repo
                    .received(scope, connection, Some(from))
                    .await?
                    .iter()
                    .any(|r| r.external_id == external_id)
        }
    };
    if !known {
        return Err(Error::with_detail(
            ErrorCode::ERR_NOT_FOUND,
            format!("phone {from} has no message {external_id} it may change"),
        ));
    }
    repo.push_inbound(scope, connection, &event)
        .await?
        .ok_or(ErrorCode::ERR_NO_WAPP_FOUND)?;
    Ok(external_id)
}

/// Builds the inbound event for a phone message, with a fresh external id.
pub fn phone_event(ids: &dyn IdGenerator, message: &PhoneMessage) -> Result<InboundEvent> {
    let from = checked_sender(&message.from)?;
    let media = message.file.as_ref().map(|file| {
        let mime_type = if file.mime_type.is_empty() {
            mime_of(&file.file_name).to_owned()
        } else {
            file.mime_type.clone()
        };
        ChannelMedia {
            media_type: media_type_of(&mime_type),
            file_name: file.file_name.clone(),
            mime_type,
            bytes: file.bytes.clone(),
        }
    });
    if media.is_none() && message.body.trim().is_empty() {
        return Err(Error::with_detail(
            ErrorCode::ERR_BAD_REQUEST,
            "a message needs a text or a file",
        ));
    }
    let name = push_name(&message.name, from);
    Ok(InboundEvent::Message(InboundMessage {
        external_id: fresh_external_id(ids),
        chat: from.to_owned(),
        chat_name: name,
        is_group: message.is_group,
        participant: None,
        from_me: false,
        body: message.body.clone(),
        media_type: media.as_ref().map_or(MediaType::Chat, |m| m.media_type),
        media,
        quoted_external_id: None,
        timestamp: chrono::Utc::now(),
    }))
}

/// The MIME type of a file name's extension (octet-stream when unknown).
pub fn mime_of(file_name: &str) -> &'static str {
    let ext = file_name
        .rsplit_once('.')
        .map(|(_, e)| e.to_ascii_lowercase())
        .unwrap_or_default();
    match ext.as_str() {
        "jpg" | "jpeg" => "image/jpeg",
        "png" => "image/png",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "mp3" => "audio/mpeg",
        "ogg" | "oga" => "audio/ogg",
        "mp4" => "video/mp4",
        "pdf" => "application/pdf",
        "txt" => "text/plain",
        _ => "application/octet-stream",
    }
}

fn media_type_of(mime: &str) -> MediaType {
    match mime.split('/').next().unwrap_or_default() {
        "image" => MediaType::Image,
        "audio" => MediaType::Audio,
        "video" => MediaType::Video,
        _ => MediaType::Application,
    }
}

/// The QR code of `text` as a `data:image/svg+xml;base64,...` URL.
pub fn qr_data_url(text: &str) -> Result<String> {
    let code = qrcode::QrCode::new(text.as_bytes())
        .map_err(|e| Error::internal(format!("cannot encode the QR code: {e}")))?;
    let svg = code
        .render::<qrcode::render::svg::Color<'_>>()
        .min_dimensions(256, 256)
        .build();
    Ok(format!(
        "data:image/svg+xml;base64,{}",
        STANDARD.encode(svg.as_bytes())
    ))
}

/// A session's state in this process.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Phase {
    /// Showing QR code number `retries` since `shown_at`.
    Qrcode {
        retries: i64,
        shown_at: Instant,
    },
    Connected,
}

#[derive(Debug, Clone)]
struct Session {
    company: CompanyId,
    phase: Phase,
}

struct Inner {
    repo: Arc<dyn SandboxRepo>,
    ids: Arc<dyn IdGenerator>,
    config: SandboxConfig,
    sink: RwLock<Option<Arc<dyn InboundSink>>>,
    sessions: Mutex<HashMap<WhatsappId, Session>>,
    wake: Notify,
    /// When delivered inbound rows were last pruned.
    pruned_at: Mutex<Option<Instant>>,
}

/// The sandbox provider. Cheap to clone; every clone drives the same sessions.
#[derive(Clone)]
pub struct SandboxProvider {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for SandboxProvider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SandboxProvider")
            .field("config", &self.inner.config)
            .finish_non_exhaustive()
    }
}

impl SandboxProvider {
    /// A provider storing its state through `repo`.
    pub fn new(
        repo: Arc<dyn SandboxRepo>,
        ids: Arc<dyn IdGenerator>,
        config: SandboxConfig,
    ) -> Self {
        Self {
            inner: Arc::new(Inner {
                repo,
                ids,
                config,
                sink: RwLock::new(None),
                sessions: Mutex::new(HashMap::new()),
                wake: Notify::new(),
                pruned_at: Mutex::new(None),
            }),
        }
    }

    /// Sets where events go. The sink is attached after construction because it needs the
    /// use-case ports, which hold this provider.
    pub fn attach_sink(&self, sink: Arc<dyn InboundSink>) {
        *self.inner.sink.write().unwrap_or_else(|e| e.into_inner()) = Some(sink);
    }

    /// Starts the background task (QR renewal, scans, inbound delivery). It ends when every
    /// clone of the provider is dropped.
    pub fn spawn(&self) -> tokio::task::JoinHandle<()> {
        let weak = Arc::downgrade(&self.inner);
        tokio::spawn(run(weak))
    }

    /// Wakes the background task now (after an in-process scan or phone message).
    pub fn wake(&self) {
        self.inner.wake.notify_one();
    }

    /// A phone scans the connection's QR code; `ERR_WAPP_NOT_INITIALIZED` when it is not
    /// pairing.
    pub async fn scan(&self, scope: TenantScope, connection: WhatsappId) -> Result<()> {
        if !self.inner.repo.mark_scanned(scope, connection).await? {
            return Err(ErrorCode::ERR_WAPP_NOT_INITIALIZED.into());
        }
        self.inner.tick_pairing().await;
        Ok(())
    }

    /// A simulated phone sends a message to the connection; returns its external id.
    pub async fn phone_send(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        message: &PhoneMessage,
    ) -> Result<String> {
        self.phone_act(scope, connection, &PhoneAct::Message(message.clone()))
            .await
    }

    /// A simulated phone acts on the connection ([`queue_phone_act`]); returns the external id
    /// the act is about.
    pub async fn phone_act(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        act: &PhoneAct,
    ) -> Result<String> {
        let external_id = queue_phone_act(
            self.inner.repo.as_ref(),
            self.inner.ids.as_ref(),
            scope,
            connection,
            act,
        )
        .await?;
        self.wake();
        Ok(external_id)
    }

    /// What simulated phones received from the connection (only `to`'s when given).
    pub async fn received(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        to: Option<&str>,
    ) -> Result<Vec<chatflow_core::inbox::sandbox::SandboxReceived>> {
        self.inner.repo.received(scope, connection, to).await
    }

    /// The connection's reaction to a message a phone sent, as the phone sees it (empty for
    /// none); `None` when the phone sent no such message.
    pub async fn reaction_to_sent(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        external_id: &str,
    ) -> Result<Option<String>> {
        self.inner
            .repo
            .reaction_to_sent(scope, connection, external_id)
            .await
    }

    /// Runs one round of the background work now: QR renewal and scans, then inbound delivery.
    pub async fn tick(&self) {
        self.inner.tick_pairing().await;
        self.inner.drain_inbound().await;
    }

    fn require_connected(&self, connection: WhatsappId) -> Result<()> {
        match self.inner.phase(connection) {
            Some(Phase::Connected) => Ok(()),
            _ => Err(ErrorCode::ERR_WAPP_NOT_INITIALIZED.into()),
        }
    }
}

async fn run(weak: Weak<Inner>) {
    loop {
        let Some(inner) = weak.upgrade() else {
            return;
        };
        inner.tick_pairing().await;
        inner.drain_inbound().await;
        inner.prune_inbound().await;
        let pause = inner.config.poll_interval;
        let woken = async {
            let notified = inner.wake.notified();
            tokio::time::timeout(pause, notified).await.ok();
        };
        woken.await;
    }
}

impl Inner {
    fn sink(&self) -> Result<Arc<dyn InboundSink>> {
        self.sink
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
            .ok_or_else(|| Error::internal("the sandbox has no inbound sink attached"))
    }

    fn sessions(&self) -> std::sync::MutexGuard<'_, HashMap<WhatsappId, Session>> {
        self.sessions.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn phase(&self, connection: WhatsappId) -> Option<Phase> {
        self.sessions().get(&connection).map(|s| s.phase.clone())
    }

    async fn report(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        status: ConnectionStatus,
        qrcode: String,
        retries: i64,
    ) -> Result<()> {
        let number = (status == ConnectionStatus::Connected).then(|| paired_number(connection));
        self.sink()?
            .deliver(
                scope,
                connection,
                InboundEvent::Session(SessionUpdate {
                    status,
                    qrcode,
                    retries,
                    number,
                }),
            )
            .await
    }

    /// Shows QR code number `retries` with a fresh nonce.
    async fn show_qr(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        retries: i64,
    ) -> Result<()> {
        let nonce = self.ids.token(16);
        self.repo
            .begin_pairing(scope, connection, &nonce, false)
            .await?;
        let url = qr_data_url(&pairing_string(scope.company_id(), connection, &nonce))?;
        self.sessions().insert(
            connection,
            Session {
                company: scope.company_id(),
                phase: Phase::Qrcode {
                    retries,
                    shown_at: Instant::now(),
                },
            },
        );
        self.report(scope, connection, ConnectionStatus::Qrcode, url, retries)
            .await
    }

    async fn connect(&self, scope: TenantScope, connection: WhatsappId) -> Result<()> {
        self.sessions().insert(
            connection,
            Session {
                company: scope.company_id(),
                phase: Phase::Connected,
            },
        );
        self.report(
            scope,
            connection,
            ConnectionStatus::Connected,
            String::new(),
            0,
        )
        .await
    }

    async fn begin(&self, scope: TenantScope, connection: WhatsappId, reset: bool) -> Result<()> {
        self.sink()?;
        let nonce = self.ids.token(16);
        let pairing = self
            .repo
            .begin_pairing(scope, connection, &nonce, reset)
            .await?;
        self.report(
            scope,
            connection,
            ConnectionStatus::Opening,
            String::new(),
            0,
        )
        .await?;
        if pairing.paired {
            self.connect(scope, connection).await
        } else {
            self.show_qr(scope, connection, 1).await
        }
    }

    /// Scanned codes connect; expired ones are renewed or time out.
    async fn tick_pairing(&self) {
        let waiting: Vec<(WhatsappId, CompanyId, i64, Instant)> = self
            .sessions()
            .iter()
            .filter_map(|(id, s)| match s.phase {
                Phase::Qrcode { retries, shown_at } => Some((*id, s.company, retries, shown_at)),
                Phase::Connected => None,
            })
            .collect();
        for (connection, company, retries, shown_at) in waiting {
            let scope = TenantScope::new(company);
            let outcome = async {
                let paired = self
                    .repo
                    .pairing(scope, connection)
                    .await?
                    .is_some_and(|p| p.paired);
                if paired {
                    return self.connect(scope, connection).await;
                }
                if shown_at.elapsed() < self.config.qr_interval {
                    return Ok(());
                }
                if retries >= self.config.max_qr_codes {
                    // A code scanned after the timeout pairs nothing: the session must restart.
                    self.sessions().remove(&connection);
                    self.repo.unpair(scope, connection).await?;
                    self.report(
                        scope,
                        connection,
                        ConnectionStatus::Timeout,
                        String::new(),
                        retries,
                    )
                    .await
                } else {
                    self.show_qr(scope, connection, retries + 1).await
                }
            }
            .await;
            if let Err(e) = outcome {
                tracing::warn!(connection = connection.0, error = %e, "sandbox pairing step failed");
            }
        }
    }

    /// Delivers what phones sent, in order per connection; a row stays undelivered (and comes
    /// again) until the sink accepted it. Each connection's oldest [`DRAIN_PER_CONNECTION`] rows
    /// are read, so one connection's backlog never hides another's; a row that failed waits
    /// [`retry_delay`] before its next attempt, and the rows behind it on the same connection
    /// wait with it while other connections go on. The sink sets aside what can never be
    /// stored (or failed [`MAX_INBOUND_ATTEMPTS`](chatflow_core::inbox::inbound::MAX_INBOUND_ATTEMPTS)
    /// times) and answers Ok, so such a row is marked delivered and stops holding its
    /// connection up.
    async fn drain_inbound(&self) {
        let Ok(sink) = self.sink() else {
            return;
        };
        let pending = match self.repo.undelivered(DRAIN_PER_CONNECTION).await {
            Ok(pending) => pending,
            Err(e) => {
                tracing::warn!(error = %e, "cannot read the sandbox's inbound messages");
                return;
            }
        };
        let now = chrono::Utc::now();
        let mut blocked: Vec<WhatsappId> = Vec::new();
        for row in pending {
            if blocked.contains(&row.whatsapp_id) {
                continue;
            }
            if row.retry_at.is_some_and(|at| at > now) {
                blocked.push(row.whatsapp_id);
                continue;
            }
            let scope = TenantScope::new(row.company_id);
            let attempts = u32::try_from(row.attempts.saturating_add(1)).unwrap_or(u32::MAX);
            let delivered = sink
                .deliver_queued(scope, row.whatsapp_id, row.event, attempts)
                .await;
            let marked = match delivered {
                Ok(()) => self.repo.mark_delivered(scope, row.id).await,
                Err(e) => Err(e),
            };
            if let Err(e) = marked {
                tracing::warn!(
                    company = row.company_id.0,
                    connection = row.whatsapp_id.0,
                    row = row.id,
                    attempts,
                    error = %e,
                    "sandbox message not delivered; it will be retried"
                );
                blocked.push(row.whatsapp_id);
                let retry_at = chrono::Utc::now() + retry_delay(attempts);
                if let Err(e) = self
                    .repo
                    .mark_failed(scope, row.id, i64::from(attempts), retry_at, &e.to_string())
                    .await
                {
                    tracing::warn!(row = row.id, error = %e, "cannot record a failed sandbox delivery");
                }
            }
        }
    }

    /// Forgets delivered inbound rows older than [`INBOUND_RETENTION_DAYS`] (at most once an
    /// hour).
    async fn prune_inbound(&self) {
        {
            let mut last = self.pruned_at.lock().unwrap_or_else(|e| e.into_inner());
            if last.is_some_and(|at| at.elapsed() < PRUNE_INTERVAL) {
                return;
            }
            *last = Some(Instant::now());
        }
        let before = chrono::Utc::now() - chrono::Duration::days(INBOUND_RETENTION_DAYS);
        match self.repo.prune_delivered(before).await {
            Ok(0) => {}
            Ok(removed) => tracing::info!(removed, "pruned delivered sandbox messages"),
            Err(e) => tracing::warn!(error = %e, "cannot prune the sandbox's delivered messages"),
        }
    }
}

#[async_trait]
impl ChannelProvider for SandboxProvider {
    fn kind(&self) -> ProviderKind {
        ProviderKind::Sandbox
    }

    async fn start(&self, scope: TenantScope, connection: WhatsappId) -> Result<()> {
        self.inner.begin(scope, connection, false).await
    }

    async fn new_qr(&self, scope: TenantScope, connection: WhatsappId) -> Result<()> {
        self.inner.begin(scope, connection, true).await
    }

    async fn disconnect(&self, scope: TenantScope, connection: WhatsappId) -> Result<()> {
        self.inner.repo.unpair(scope, connection).await?;
        self.inner.sessions().remove(&connection);
        self.inner
            .report(
                scope,
                connection,
                ConnectionStatus::Disconnected,
                String::new(),
                0,
            )
            .await
    }

    async fn send(&self, scope: TenantScope, message: &Outbound) -> Result<String> {
        self.require_connected(message.connection)?;
        // A keyed send has a fixed id, so sending it again finds the first record (the phone
        // receives it once); an unkeyed one gets a fresh id.
        let external_id = match &message.idempotency_key {
            Some(key) => format!("SBXK{key}"),
            None => fresh_external_id(self.inner.ids.as_ref()),
        };
        let body = display_body(&message.content);
        self.inner
            .repo
            .record_received(
                scope,
                message.connection,
                &message.to,
                &external_id,
                &message.content,
                &body,
            )
            .await?;
        let weak = Arc::downgrade(&self.inner);
        let connection = message.connection;
        let id = external_id.clone();
        tokio::spawn(async move {
            for ack in [2, 3] {
                let Some(delay) = weak.upgrade().map(|i| i.config.ack_delay) else {
                    return;
                };
                tokio::time::sleep(delay).await;
                let Some(inner) = weak.upgrade() else {
                    return;
                };
                let step = async {
                    inner.repo.set_ack(scope, connection, &id, ack).await?;
                    inner
                        .sink()?
                        .deliver(
                            scope,
                            connection,
                            InboundEvent::Ack {
                                external_id: id.clone(),
                                ack,
                            },
                        )
                        .await
                };
                if let Err(e) = step.await {
                    tracing::debug!(external_id = %id, ack, error = %e, "sandbox ack not delivered");
                }
            }
        });
        Ok(external_id)
    }

    async fn edit(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        _to: &str,
        external_id: &str,
        body: &str,
    ) -> Result<()> {
        self.require_connected(connection)?;
        let change = SandboxChange::Edit(body.to_owned());
        if self
            .inner
            .repo
            .change_received(scope, connection, external_id, &change)
            .await?
        {
            Ok(())
        } else {
            Err(ErrorCode::ERR_SENDING_WAPP_MSG.into())
        }
    }

    async fn delete(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        _to: &str,
        external_id: &str,
    ) -> Result<()> {
        self.require_connected(connection)?;
        if self
            .inner
            .repo
            .change_received(scope, connection, external_id, &SandboxChange::Delete)
            .await?
        {
            Ok(())
        } else {
            Err(ErrorCode::ERR_DELETE_WAPP_MSG.into())
        }
    }

    async fn react(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        _to: &str,
        external_id: &str,
        emoji: &str,
    ) -> Result<()> {
        self.require_connected(connection)?;
        let change = SandboxChange::React(emoji.to_owned());
        // A message the phone received from the connection, or one the phone sent to it.
        if self
            .inner
            .repo
            .change_received(scope, connection, external_id, &change)
            .await?
            || self
                .inner
                .repo
                .react_to_sent(scope, connection, external_id, emoji)
                .await?
        {
            Ok(())
        } else {
            Err(ErrorCode::ERR_SENDING_WAPP_MSG.into())
        }
    }

    async fn mark_read(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        chat: &str,
    ) -> Result<()> {
        self.require_connected(connection)?;
        self.inner
            .repo
            .mark_chat_read(scope, connection, chat)
            .await
    }

    async fn profile(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        number: &str,
    ) -> Result<Option<ChannelProfile>> {
        Ok(self
            .inner
            .repo
            .chats(scope, connection)
            .await?
            .into_iter()
            .find(|c| c.number == number)
            .map(|c| ChannelProfile {
                name: if c.name.is_empty() {
                    c.number.clone()
                } else {
                    c.name
                },
                number: c.number,
                profile_pic_url: String::new(),
            }))
    }

    async fn list_chats(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
    ) -> Result<Vec<ChannelChat>> {
        Ok(self
            .inner
            .repo
            .chats(scope, connection)
            .await?
            .into_iter()
            .map(|c| ChannelChat {
                number: c.number,
                name: c.name,
            })
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Counter;
    impl IdGenerator for Counter {
        fn uuid(&self) -> uuid::Uuid {
            uuid::Uuid::nil()
        }
        fn token(&self, len: usize) -> String {
            "a".repeat(len)
        }
        fn digits(&self, len: usize) -> String {
            "1".repeat(len)
        }
    }

    #[test]
    fn qr_codes_are_svg_data_urls() {
        let url = qr_data_url("chatflow-sandbox:1:2:abc").expect("encoded");
        let encoded = url
            .strip_prefix("data:image/svg+xml;base64,")
            .expect("prefix");
        let svg = String::from_utf8(STANDARD.decode(encoded).expect("base64")).expect("utf-8");
        assert!(svg.contains("<svg"));
    }

    #[test]
    fn phone_messages_become_inbound_messages() {
        let event = phone_event(
            &Counter,
            &PhoneMessage {
                from: "5511999990000".into(),
                name: String::new(),
                body: "hello".into(),
                ..PhoneMessage::default()
            },
        )
        .expect("built");
        let InboundEvent::Message(m) = event else {
            panic!("a message")
        };
        assert_eq!(m.chat, "5511999990000");
        assert_eq!(m.chat_name, "5511999990000");
        assert_eq!(m.media_type, MediaType::Chat);
        assert!(m.external_id.starts_with("SBX"));

        let with_file = phone_event(
            &Counter,
            &PhoneMessage {
                from: "5511".into(),
                name: "Ana".into(),
                file: Some(PhoneFile {
                    file_name: "photo.JPG".into(),
                    mime_type: String::new(),
                    bytes: vec![1, 2, 3],
                }),
                ..PhoneMessage::default()
            },
        )
        .expect("built");
        let InboundEvent::Message(m) = with_file else {
            panic!("a message")
        };
        assert_eq!(m.media_type, MediaType::Image);
        assert_eq!(m.media.expect("media").mime_type, "image/jpeg");
        assert_eq!(m.chat_name, "Ana");
    }

    #[test]
    fn phone_acts_become_their_inbound_events() {
        let react = PhoneAct::React {
            from: "5511".into(),
            external_id: " SBXTARGET ".into(),
            emoji: "👍".into(),
        };
        let (event, id) = phone_act_event(&Counter, &react).expect("built");
        assert_eq!(id, "SBXTARGET");
        assert_eq!(
            event,
            InboundEvent::Reaction {
                external_id: "SBXTARGET".into(),
                chat: "5511".into(),
                emoji: "👍".into(),
            }
        );
        let delete = PhoneAct::Delete {
            from: "5511".into(),
            external_id: "SBXTARGET".into(),
        };
        assert_eq!(
            phone_act_event(&Counter, &delete).expect("built").0,
            InboundEvent::Delete {
                external_id: "SBXTARGET".into()
            }
        );
        let edit = PhoneAct::Edit {
            from: "5511".into(),
            external_id: "SBXTARGET".into(),
            body: "fixed".into(),
        };
        let (InboundEvent::Edit { body, .. }, _) = phone_act_event(&Counter, &edit).expect("built")
        else {
            panic!("an edit")
        };
        assert_eq!(body, "fixed");
        let call = PhoneAct::Call {
            from: "5511".into(),
            name: String::new(),
        };
        let (
            InboundEvent::MissedCall {
                chat_name,
                external_id,
                ..
            },
            id,
        ) = phone_act_event(&Counter, &call).expect("built")
        else {
            panic!("a missed call")
        };
        assert_eq!(chat_name, "5511");
        assert_eq!(external_id, id);
        assert!(id.starts_with("SBX"));
    }

    #[test]
    fn phone_acts_without_target_text_or_sender_are_refused() {
        let no_target = PhoneAct::Delete {
            from: "5511".into(),
            external_id: "  ".into(),
        };
        assert!(phone_act_event(&Counter, &no_target).is_err());
        let empty_edit = PhoneAct::Edit {
            from: "5511".into(),
            external_id: "SBX1".into(),
            body: " ".into(),
        };
        assert!(phone_act_event(&Counter, &empty_edit).is_err());
        let bad_sender = PhoneAct::Call {
            from: "maria".into(),
            name: "Maria".into(),
        };
        assert!(phone_act_event(&Counter, &bad_sender).is_err());
    }

    #[test]
    fn empty_or_anonymous_phone_messages_are_refused() {
        let no_sender = PhoneMessage {
            body: "x".into(),
            ..PhoneMessage::default()
        };
        assert!(phone_event(&Counter, &no_sender).is_err());
        let empty = PhoneMessage {
            from: "5511".into(),
            ..PhoneMessage::default()
        };
        assert!(phone_event(&Counter, &empty).is_err());
    }
}
