//! [`SandboxProvider`]: the sessions of the simulated network, its background task (QR
//! renewal, scans and typed pair codes, inbound delivery, pruning) and its [`ChannelProvider`]
//! implementation.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, RwLock, Weak};
use std::time::Duration;

use async_trait::async_trait;
use chatflow_core::inbox::channel::{
    ChannelChat, ChannelProfile, ChannelProvider, HistoryChunk, HistoryRequest, InboundEvent,
    InboundSink, Outbound, Queued, ReadMessage,
};
use chatflow_core::inbox::inbound::retry_delay;
use chatflow_core::inbox::model::{ConnectionStatus, ProviderKind, SessionReason, SessionUpdate};
use chatflow_core::inbox::sandbox::{
    INBOUND_RETENTION_DAYS, SandboxChange, SandboxRepo, display_body, paired_number, pairing_string,
};
use chatflow_core::ports::{Clock, IdGenerator};
use chatflow_core::{CompanyId, Error, ErrorCode, Result, TenantScope, WhatsappId};
use tokio::sync::Notify;
use tokio::time::Instant;

use crate::pair_code::{fresh_pair_code, type_pair_code};
use crate::phone::{fresh_external_id, queue_phone_act};
use crate::qr::qr_data_url;
use crate::{DRAIN_PER_CONNECTION, PhoneAct, PhoneMessage, SandboxConfig};

/// How often delivered inbound rows are pruned.
const PRUNE_INTERVAL: Duration = Duration::from_secs(3600);

/// A session's state in this process.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Phase {
    /// Showing QR code number `retries` since `shown_at`.
    Qrcode {
        retries: i64,
        shown_at: Instant,
    },
    /// Linking by phone number: showing a pair code since `shown_at`.
    PairCode {
        shown_at: Instant,
    },
    Connected,
    /// Paired, but the simulated network dropped the connection: nothing is delivered until
    /// it is back ([`SandboxProvider::reconnect`]).
    Dropped,
}

#[derive(Debug, Clone)]
struct Session {
    company: CompanyId,
    phase: Phase,
}

struct Inner {
    repo: Arc<dyn SandboxRepo>,
    ids: Arc<dyn IdGenerator>,
    /// The server's clock: what phones' messages are stamped with, and when retries fall due.
    clock: Arc<dyn Clock>,
    config: SandboxConfig,
    sink: RwLock<Option<Arc<dyn InboundSink>>>,
    sessions: Mutex<HashMap<WhatsappId, Session>>,
    /// Held while a session changes phase (a start, a pair code asked for, the background
    /// round), so a QR renewal never overwrites a pair code asked for meanwhile.
    transitions: tokio::sync::Mutex<()>,
    wake: Notify,
    /// When delivered inbound rows were last pruned.
    pruned_at: Mutex<Option<Instant>>,
    /// Connections (re)connected whose backlog is not delivered yet: each reports
    /// [`InboundEvent::CaughtUp`] once it is.
    catching_up: Mutex<HashSet<WhatsappId>>,
    /// Receipts phones produced since the last background round ([`Inner::flush_acks`]).
    pending_acks: Mutex<Vec<PendingAck>>,
}

/// One connection's receipts: external ids with their acks.
type Receipts = Vec<(String, i64)>;

/// A receipt a phone produced (it got or read a message), waiting for the background round to
/// write it.
struct PendingAck {
    scope: TenantScope,
    connection: WhatsappId,
    external_id: String,
    ack: i64,
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
        clock: Arc<dyn Clock>,
        config: SandboxConfig,
    ) -> Self {
        Self {
            inner: Arc::new(Inner {
                repo,
                ids,
                clock,
                config,
                sink: RwLock::new(None),
                sessions: Mutex::new(HashMap::new()),
                transitions: tokio::sync::Mutex::new(()),
                wake: Notify::new(),
                pruned_at: Mutex::new(None),
                catching_up: Mutex::new(HashSet::new()),
                pending_acks: Mutex::new(Vec::new()),
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
            self.inner.clock.now(),
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

    /// A simulated phone types a pair code to link the connection ([`type_pair_code`]); when it
    /// is the code shown, the session becomes CONNECTED with the number the code was asked for.
    pub async fn type_pair_code(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        typed: &str,
    ) -> Result<()> {
        type_pair_code(self.inner.repo.as_ref(), scope, connection, typed).await?;
        self.inner.tick_pairing().await;
        Ok(())
    }

    /// The simulated network drops the connected session: it reports OPENING (reason
    /// `reconnecting`) and delivers nothing, phones' messages waiting in its queue, until
    /// [`SandboxProvider::reconnect`]; it stays paired. `ERR_WAPP_NOT_INITIALIZED` when the
    /// session is not connected.
    pub async fn drop_connection(&self, scope: TenantScope, connection: WhatsappId) -> Result<()> {
        let _transition = self.inner.transitions.lock().await;
        self.require_connected(connection)?;
        self.inner.sessions().insert(
            connection,
            Session {
                company: scope.company_id(),
                phase: Phase::Dropped,
            },
        );
        self.inner.catching_up().remove(&connection);
        self.inner
            .report_update(
                scope,
                connection,
                SessionUpdate {
                    status: ConnectionStatus::Opening,
                    reason: Some(SessionReason::Reconnecting),
                    ..Default::default()
                },
            )
            .await
    }

    /// The simulated network is back for a dropped session: it is CONNECTED again with its
    /// number, delivers what phones sent meanwhile and then reports
    /// [`InboundEvent::CaughtUp`]. `ERR_WAPP_NOT_INITIALIZED` when the session was not dropped.
    pub async fn reconnect(&self, scope: TenantScope, connection: WhatsappId) -> Result<()> {
        {
            let _transition = self.inner.transitions.lock().await;
            if self.inner.phase(connection) != Some(Phase::Dropped) {
                return Err(Error::with_detail(
                    ErrorCode::ERR_WAPP_NOT_INITIALIZED,
                    "the connection was not dropped",
                ));
            }
            let pairing = self.inner.repo.pairing(scope, connection).await?;
            let number = pairing.and_then(|p| p.pair_number);
            self.inner.connect(scope, connection, number).await?;
        }
        self.wake();
        Ok(())
    }

    /// Runs one round of the background work now: QR renewal and scans, then inbound delivery.
    pub async fn tick(&self) {
        self.inner.tick_pairing().await;
        self.inner.flush_acks().await;
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
        inner.flush_acks().await;
        let more = inner.drain_inbound().await;
        inner.prune_inbound().await;
        if more {
            // A connection's backlog (after a reconnect, say) drains batch after batch without
            // waiting for the next poll.
            continue;
        }
        let pause = inner.config.poll_interval;
        let woken = async {
            let notified = inner.wake.notified();
            tokio::time::timeout(pause, notified).await.ok();
        };
        woken.await;
    }
}

impl Inner {
    fn pending_acks(&self) -> std::sync::MutexGuard<'_, Vec<PendingAck>> {
        self.pending_acks.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Writes the receipts phones produced since the last round, one transaction per
    /// connection ([`SandboxRepo::report_acks`]), queued for delivery with what the phones
    /// sent: the receipts that piled up while the server was busy go in together. Receipts are
    /// at most once (a crash before this round forgets them; the next receipt of the message
    /// carries the phone's latest state).
    async fn flush_acks(&self) {
        let pending = std::mem::take(&mut *self.pending_acks());
        let mut groups: Vec<(TenantScope, WhatsappId, Receipts)> = Vec::new();
        for one in pending {
            match groups.iter_mut().find(|(_, c, _)| *c == one.connection) {
                Some((_, _, acks)) => acks.push((one.external_id, one.ack)),
                None => groups.push((one.scope, one.connection, vec![(one.external_id, one.ack)])),
            }
        }
        for (scope, connection, acks) in groups {
            if let Err(e) = self.repo.report_acks(scope, connection, &acks).await {
                tracing::debug!(connection = connection.0, acks = acks.len(), error = %e, "sandbox receipts not queued");
            }
        }
    }

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

    fn catching_up(&self) -> std::sync::MutexGuard<'_, HashSet<WhatsappId>> {
        self.catching_up.lock().unwrap_or_else(|e| e.into_inner())
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
        self.report_update(
            scope,
            connection,
            SessionUpdate {
                status,
                qrcode,
                retries,
                ..Default::default()
            },
        )
        .await
    }

    async fn report_update(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        update: SessionUpdate,
    ) -> Result<()> {
        self.sink()?
            .deliver(scope, connection, InboundEvent::Session(update))
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

    /// The session is CONNECTED, with the number a pair code was asked for, else the sandbox's
    /// own number for the connection.
    async fn connect(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        number: Option<String>,
    ) -> Result<()> {
        self.sessions().insert(
            connection,
            Session {
                company: scope.company_id(),
                phase: Phase::Connected,
            },
        );
        self.report_update(
            scope,
            connection,
            SessionUpdate {
                status: ConnectionStatus::Connected,
                number: Some(number.unwrap_or_else(|| paired_number(connection))),
                ..Default::default()
            },
        )
        .await?;
        // The backlog is read only now that the connection is stored CONNECTED: once it is
        // delivered, the session says it caught up.
        self.catching_up().insert(connection);
        Ok(())
    }

    /// Shows a fresh pair code for `phone` instead of QR codes; `ERR_WAPP_NOT_INITIALIZED` when
    /// the session is not waiting to be paired.
    async fn show_pair_code(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        phone: &str,
    ) -> Result<()> {
        let not_pairing = || {
            Error::with_detail(
                ErrorCode::ERR_WAPP_NOT_INITIALIZED,
                "the connection is not waiting to be paired: start its session first",
            )
        };
        let _transition = self.transitions.lock().await;
        let pairing = matches!(
            self.phase(connection),
            Some(Phase::Qrcode { .. } | Phase::PairCode { .. })
        );
        if !pairing {
            return Err(not_pairing());
        }
        let code = fresh_pair_code(self.ids.as_ref());
        if !self
            .repo
            .show_pair_code(scope, connection, &code, phone)
            .await?
        {
            return Err(not_pairing());
        }
        self.sessions().insert(
            connection,
            Session {
                company: scope.company_id(),
                phase: Phase::PairCode {
                    shown_at: Instant::now(),
                },
            },
        );
        self.report_update(
            scope,
            connection,
            SessionUpdate {
                status: ConnectionStatus::Pairing,
                pairing_code: Some(code),
                ..Default::default()
            },
        )
        .await
    }

    async fn begin(&self, scope: TenantScope, connection: WhatsappId, reset: bool) -> Result<()> {
        self.sink()?;
        let _transition = self.transitions.lock().await;
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
            self.connect(scope, connection, pairing.pair_number).await
        } else {
            self.show_qr(scope, connection, 1).await
        }
    }

    /// Scanned QR codes and typed pair codes connect; expired QR codes are renewed or time
    /// out, and so does an expired pair code.
    async fn tick_pairing(&self) {
        let _transition = self.transitions.lock().await;
        let waiting: Vec<(WhatsappId, CompanyId, Phase)> = self
            .sessions()
            .iter()
            .filter(|(_, s)| !matches!(s.phase, Phase::Connected | Phase::Dropped))
            .map(|(id, s)| (*id, s.company, s.phase.clone()))
            .collect();
        for (connection, company, phase) in waiting {
            let scope = TenantScope::new(company);
            let outcome = async {
                let pairing = self.repo.pairing(scope, connection).await?;
                if let Some(pairing) = pairing.filter(|p| p.paired) {
                    return self.connect(scope, connection, pairing.pair_number).await;
                }
                let (retries, expired, last) = match phase {
                    Phase::Qrcode { retries, shown_at } => (
                        retries,
                        shown_at.elapsed() >= self.config.qr_interval,
                        retries >= self.config.max_qr_codes,
                    ),
                    Phase::PairCode { shown_at } => {
                        (0, shown_at.elapsed() >= self.config.pair_code_ttl, true)
                    }
                    Phase::Connected | Phase::Dropped => return Ok(()),
                };
                if !expired {
                    return Ok(());
                }
                if last {
                    // A code scanned or typed after the timeout pairs nothing: the session must
                    // restart. Running out of QR codes says so; a pair code simply expired.
                    self.sessions().remove(&connection);
                    self.repo.unpair(scope, connection).await?;
                    let qr = matches!(phase, Phase::Qrcode { .. });
                    self.report_update(
                        scope,
                        connection,
                        SessionUpdate {
                            status: ConnectionStatus::Timeout,
                            retries,
                            reason: qr.then_some(SessionReason::QrExhausted),
                            ..Default::default()
                        },
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
    /// connection up. Answers whether a connection may have more rows ready: it had a full
    /// round and all of it was delivered.
    async fn drain_inbound(&self) -> bool {
        let Ok(sink) = self.sink() else {
            return false;
        };
        // Taken before the queue is read: a connection that connects meanwhile waits for the
        // next round, whose read sees its backlog.
        let catching_up: Vec<WhatsappId> = self.catching_up().iter().copied().collect();
        let pending = match self.repo.undelivered(DRAIN_PER_CONNECTION).await {
            Ok(pending) => pending,
            Err(e) => {
                tracing::warn!(error = %e, "cannot read the sandbox's inbound messages");
                return false;
            }
        };
        let mut more = false;
        // Each connection's rows in order, up to the first that waits for its retry time.
        let now = self.clock.now();
        let mut waiting: Vec<WhatsappId> = Vec::new();
        let mut batches: Vec<(TenantScope, WhatsappId, Vec<i64>, Vec<Queued>)> = Vec::new();
        for row in pending {
            if waiting.contains(&row.whatsapp_id) {
                continue;
            }
            if row.retry_at.is_some_and(|at| at > now) {
                waiting.push(row.whatsapp_id);
                continue;
            }
            let queued = Queued {
                event: row.event,
                attempts: u32::try_from(row.attempts.saturating_add(1)).unwrap_or(u32::MAX),
            };
            match batches.iter_mut().find(|b| b.1 == row.whatsapp_id) {
                Some((_, _, ids, events)) => {
                    ids.push(row.id);
                    events.push(queued);
                }
                None => batches.push((
                    TenantScope::new(row.company_id),
                    row.whatsapp_id,
                    vec![row.id],
                    vec![queued],
                )),
            }
        }
        // Connections whose backlog is in (none read, or all read was delivered and it was not
        // a full round).
        let mut behind: Vec<WhatsappId> = waiting.clone();
        // One batch per connection: the sink commits its messages together.
        for (scope, connection, ids, events) in batches {
            if ids.len() >= DRAIN_PER_CONNECTION as usize {
                behind.push(connection);
            }
            let attempts: Vec<u32> = events.iter().map(|queued| queued.attempts).collect();
            let done = sink.deliver_batch(scope, connection, events).await;
            let marked = self.repo.mark_delivered(scope, &ids[..done.handled]).await;
            more |= marked.is_ok()
                && done.failed.is_none()
                && ids.len() >= DRAIN_PER_CONNECTION as usize;
            if let Err(e) = marked {
                // They come again and are recognised as duplicates.
                tracing::warn!(
                    company = scope.company_id().0,
                    connection = connection.0,
                    error = %e,
                    "cannot mark sandbox messages delivered"
                );
            }
            let Some(e) = done.failed else {
                continue;
            };
            behind.push(connection);
            let (row, attempts) = (ids[done.handled], attempts[done.handled]);
            tracing::warn!(
                company = scope.company_id().0,
                connection = connection.0,
                row,
                attempts,
                error = %e,
                "sandbox message not delivered; it will be retried"
            );
            let retry_at = self.clock.now() + retry_delay(attempts);
            if let Err(e) = self
                .repo
                .mark_failed(scope, row, i64::from(attempts), retry_at, &e.to_string())
                .await
            {
                tracing::warn!(row, error = %e, "cannot record a failed sandbox delivery");
            }
        }
        for connection in catching_up {
            if behind.contains(&connection) {
                continue;
            }
            self.report_caught_up(sink.as_ref(), connection).await;
        }
        more
    }

    /// Tells the inbox that the connection delivered what phones sent while it was away
    /// ([`InboundEvent::CaughtUp`]); a failure is tried again next round.
    async fn report_caught_up(&self, sink: &dyn InboundSink, connection: WhatsappId) {
        let company = match self.sessions().get(&connection) {
            Some(Session {
                company,
                phase: Phase::Connected,
            }) => *company,
            _ => {
                self.catching_up().remove(&connection);
                return;
            }
        };
        let scope = TenantScope::new(company);
        match sink
            .deliver(scope, connection, InboundEvent::CaughtUp)
            .await
        {
            Ok(()) => {
                self.catching_up().remove(&connection);
            }
            Err(e) => tracing::warn!(
                company = company.0,
                connection = connection.0,
                error = %e,
                "the sandbox could not say it caught up; it will say it again"
            ),
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
        let before = self.clock.now() - chrono::Duration::days(INBOUND_RETENTION_DAYS);
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

    async fn request_pair_code(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        phone: &str,
    ) -> Result<()> {
        self.inner.show_pair_code(scope, connection, phone).await
    }

    async fn disconnect(&self, scope: TenantScope, connection: WhatsappId) -> Result<()> {
        let _transition = self.inner.transitions.lock().await;
        self.inner.repo.unpair(scope, connection).await?;
        self.inner.sessions().remove(&connection);
        self.inner.catching_up().remove(&connection);
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
                // Written by the background round with the other receipts due by then.
                inner.pending_acks().push(PendingAck {
                    scope,
                    connection,
                    external_id: id.clone(),
                    ack,
                });
                inner.wake.notify_one();
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
        _from_me: bool,
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
        _read: &[ReadMessage],
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
            .chat(scope, connection, number)
            .await?
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

    /// The phone answers with its history of the chat before the anchor (lost messages
    /// included), at most `count` messages, as a later [`InboundEvent::History`] with
    /// `on_demand` set, queued and delivered like everything phones send. Needs the session
    /// connected (`ERR_WAPP_NOT_INITIALIZED`).
    async fn request_history(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        request: &HistoryRequest,
    ) -> Result<()> {
        self.require_connected(connection)?;
        let messages = self
            .inner
            .repo
            .phone_history(
                scope,
                connection,
                &request.chat,
                &request.anchor_external_id,
                request.anchor_time,
                request.count,
            )
            .await?;
        let answer = InboundEvent::History(HistoryChunk {
            messages,
            progress: None,
            on_demand: true,
        });
        self.inner
            .repo
            .push_inbound(scope, connection, &answer)
            .await?
            .ok_or(ErrorCode::ERR_NO_WAPP_FOUND)?;
        self.wake();
        Ok(())
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
