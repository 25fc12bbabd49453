//! The supervisor: one per server process, it runs the WhatsApp Web sessions of the
//! connections this process holds the lease of (design B3), one task per connection.
//!
//! # A connection's task
//!
//! 1. **Lease.** It takes the connection's lease ([`ChannelLeaseRepo::acquire`]) for this
//!    process's owner id. While another process holds it, the task waits and tries again every
//!    renewal period (this process does not run the connection); when it gets the lease after
//!    waiting, it runs only if the connection's recorded status still asks for a session (see
//!    [`should_run`]).
//! 2. **Runs.** Each run builds a fresh [`WaBackend`] fenced by the lease token and a fresh
//!    session from the [`WaClientFactory`] (a client is never reused), reports `OPENING`, and
//!    consumes the library's events in order: session events become [`SessionUpdate`]s
//!    delivered to the [`InboundSink`] as [`InboundEvent::Session`] (the table is in
//!    `status.rs`); every other event goes to the [`TrafficHandler`].
//! 3. **Endings.** A run that an event ended for good (logged out: keys wiped; replaced; banned,
//!    `until` its end; outdated client; refused connection; QR codes exhausted) is not rebuilt:
//!    the task reports, releases the lease and ends. A run that ended otherwise is rebuilt after
//!    the backoff (2 s doubling to 5 min, each delay up to 20 % shorter at random; back to 2 s
//!    after a run that stayed connected a minute). The old session is always awaited (within
//!    [`SupervisorConfig::stop_timeout`]) before the next is built.
//!
//! The first build of each task waits for its start slot: starts are staggered by
//! [`SupervisorConfig::start_stagger`], so restoring 200 connections at boot does not open 200
//! sockets at once.
//!
//! # The lease while running
//!
//! The task renews the lease every [`SupervisorConfig::renew_every`] for
//! [`SupervisorConfig::lease_ttl`]. It stops the session at once ([`WaSession::abort`]: no
//! flush, no more sends) when a renewal answers that the token is no longer this process's, or
//! when renewals have failed (the database unreachable) so long that the next attempt would
//! come after the lease's end: this process can no longer prove it holds the connection.
//! Meanwhile the fence refuses any late key write of the old session.
//!
//! **A lost lease is not reported by the loser.** The connection's status belongs to whoever
//! holds its lease: a process that lost it either lost it to another process, which reports
//! its own states (a late `DISCONNECTED` from the loser would overwrite the new owner's
//! `CONNECTED`), or lost it because it could not reach the database, where no report would
//! land either. If nobody holds it, the connection keeps its last status, and since that status
//! asks for a session, the next scan of any process (this one included) takes it over. The
//! reason [`SessionReason::LeaseLost`] is reported by the process that takes a connection over
//! from an owner whose lease expired: its first `OPENING` carries it, telling admins the
//! session moved.
//!
//! # Taking over
//!
//! Every [`SupervisorConfig::scan_every`] the supervisor lists the connections whose lease
//! nobody holds ([`ChannelLeaseRepo::claimable_across_companies`]) and starts those of the
//! `beta` provider whose status asks for a session and that it does not run already. A process
//! that died stops renewing, and within one lease time to live plus one scan another process
//! runs its connections. Connections never leased are started from the connection list at boot
//! (the core's `restore_sessions`), not by the scan.
//!
//! # Watchdog
//!
//! Every [`SupervisorConfig::watchdog_every`] the task reads the client's counters; a session
//! whose frames advance while its messages have been flat for far longer than the connection's
//! usual gap is restarted with a fresh client and reported `OPENING` with reason
//! [`SessionReason::Deaf`] (see `watchdog.rs`).
//!
//! # The whole history
//!
//! A run links a phone with the device properties that ask for the phone's whole message
//! history when the connection's import of old messages is on
//! ([`crate::client::SessionParams::full_history`]). The core says so before each start, new QR
//! code and pair code ([`Supervisor::want_full_history`], through the provider's
//! `want_history`); a connection the scan takes over is told by its own settings.
//!
//! # Commands
//!
//! [`Supervisor::stop`] ([`Stop::Shutdown`], [`Stop::Logout`], [`Stop::NewQr`]),
//! [`Supervisor::restart`] and [`Supervisor::request_pair_code`] act on the task of this
//! process. When another process runs the connection, they cannot reach its session: those that
//! need it answer `ERR_WAPP_NOT_INITIALIZED`.
//!
//! # Times
//!
//! Waits use tokio's clock (tests pause it); times written to the database (the lease's
//! expiry, a ban's end) come from the core's [`Clock`] port.

mod backoff;
mod status;
mod task;
mod watchdog;

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use chatflow_core::inbox::channel::{ChannelChat, InboundEvent, InboundSink};
use chatflow_core::inbox::history;
use chatflow_core::inbox::lease::ChannelLeaseRepo;
use chatflow_core::inbox::model::{ConnectionStatus, ProviderKind, SessionReason, SessionUpdate};
use chatflow_core::inbox::ports::ConnectionRepo;
use chatflow_core::inbox::session_state::SessionStateRepo;
use chatflow_core::ports::{Clock, SecretCipher};
use chatflow_core::{Error, ErrorCode, Result, TenantScope, WhatsappId};
use tokio::sync::{mpsc, oneshot, watch};
use tokio::task::JoinHandle;
use tokio::time::Instant;
use whatsapp_rust::types::events::Event;

use crate::client::{WaClient, WaClientFactory};

pub use status::qr_data_url;

#[cfg(doc)]
use crate::client::WaSession;
#[cfg(doc)]
use crate::storage::WaBackend;

/// Where the events that are not about the session (messages, receipts, calls, history,
/// contact and group changes...) go, with the connection they came from, in the order the
/// library emitted them. Called on the connection's task: it must not block (hand the event
/// to a queue or a channel).
pub type TrafficHandler = Arc<dyn Fn(TenantScope, WhatsappId, Arc<Event>) + Send + Sync>;

/// The supervisor's timings.
#[derive(Debug, Clone)]
pub struct SupervisorConfig {
    /// How long a lease lasts without renewal (30 s).
    pub lease_ttl: Duration,
    /// How often a held lease is renewed, and a lease held elsewhere tried again (10 s).
    pub renew_every: Duration,
    /// How often the supervisor looks for connections to take over (10 s).
    pub scan_every: Duration,
    /// The first delay before rebuilding a run that ended (2 s); it doubles per rebuild.
    pub backoff_first: Duration,
    /// The longest delay between rebuilds (5 min).
    pub backoff_max: Duration,
    /// Each delay is drawn from `[d × (1 − jitter), d]` (0.2).
    pub backoff_jitter: f64,
    /// A run connected this long sets the delay back to the first (60 s).
    pub stable_after: Duration,
    /// Starts are spaced by this much (250 ms: 200 connections restored in 50 s).
    pub start_stagger: Duration,
    /// How long a session may take to stop before it is left behind (10 s).
    pub stop_timeout: Duration,
    /// How often the deaf-session watchdog looks at a connected session (60 s).
    pub watchdog_every: Duration,
    /// The shortest silence that makes a session deaf (30 min).
    pub deaf_after: Duration,
    /// The silence that makes a session deaf, in multiples of the connection's usual gap
    /// between messages, when that is longer than `deaf_after` (10).
    pub deaf_factor: u32,
}

impl Default for SupervisorConfig {
    fn default() -> Self {
        SupervisorConfig {
            lease_ttl: Duration::from_secs(30),
            renew_every: Duration::from_secs(10),
            scan_every: Duration::from_secs(10),
            backoff_first: Duration::from_secs(2),
            backoff_max: Duration::from_secs(5 * 60),
            backoff_jitter: 0.2,
            stable_after: Duration::from_secs(60),
            start_stagger: Duration::from_millis(250),
            stop_timeout: Duration::from_secs(10),
            watchdog_every: Duration::from_secs(60),
            deaf_after: Duration::from_secs(30 * 60),
            deaf_factor: 10,
        }
    }
}

/// What the supervisor is built with.
pub struct SupervisorDeps {
    /// Builds a fresh session per run.
    pub factory: Arc<dyn WaClientFactory>,
    /// The connections' key state (each run's [`WaBackend`] writes it, fenced).
    pub state: Arc<dyn SessionStateRepo>,
    /// Seals the key material.
    pub cipher: Arc<dyn SecretCipher>,
    /// The connections' leases.
    pub leases: Arc<dyn ChannelLeaseRepo>,
    /// The connections (their company and recorded status, for the scan).
    pub connections: Arc<dyn ConnectionRepo>,
    /// Times written to the database.
    pub clock: Arc<dyn Clock>,
    /// Where session updates (and, through the ingestor, messages) are delivered.
    pub sink: Arc<dyn InboundSink>,
    /// Where the other events go.
    pub traffic: TrafficHandler,
    /// This process's name on the leases (unique among the processes sharing the database).
    pub owner: String,
    pub config: SupervisorConfig,
}

/// How to stop a connection's session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    /// Stop gracefully and keep the keys (the next start connects without pairing); reported
    /// `DISCONNECTED`, so no other process takes it over.
    Shutdown,
    /// Unlink the device from the phone ([`WaClient::logout`]), stop and wipe the keys;
    /// reported `DISCONNECTED` with reason `LoggedOut`.
    Logout,
    /// Stop, wipe the keys and start afresh: a new QR code.
    NewQr,
}

/// Whether a connection recorded in `status` should have a running session: one that was
/// connected, connecting or pairing. `DISCONNECTED` (stopped, logged out, replaced, banned...)
/// and `TIMEOUT` (QR codes exhausted) wait for someone to start them again.
pub fn should_run(status: ConnectionStatus) -> bool {
    matches!(
        status,
        ConnectionStatus::Connected
            | ConnectionStatus::Opening
            | ConnectionStatus::Qrcode
            | ConnectionStatus::Pairing
    )
}

/// The sessions of this process (see the module's documentation).
pub struct Supervisor {
    inner: Arc<Inner>,
    scan: Mutex<Option<JoinHandle<()>>>,
}

/// What the supervisor and its tasks share.
pub(crate) struct Inner {
    deps: SupervisorDeps,
    tasks: Mutex<HashMap<WhatsappId, Slot>>,
    /// The next free start slot (the stagger).
    next_start: Mutex<Instant>,
    /// Numbers the tasks, so a task ending removes its own slot only.
    generation: Mutex<u64>,
    /// True once the process shuts down: no new task starts.
    closing: watch::Sender<bool>,
    /// The connections whose next link asks the phone for its whole history.
    full_history: Mutex<HashSet<WhatsappId>>,
}

/// A running task.
struct Slot {
    generation: u64,
    commands: mpsc::UnboundedSender<task::Command>,
    live: Arc<Live>,
    handle: JoinHandle<()>,
}

/// What a task shares with callers.
#[derive(Default)]
pub(crate) struct Live {
    /// The client, while the session is connected.
    client: Mutex<Option<Arc<dyn WaClient>>>,
}

impl Live {
    pub(crate) fn set_client(&self, client: Option<Arc<dyn WaClient>>) {
        *self.client.lock().unwrap_or_else(PoisonError::into_inner) = client;
    }

    fn client(&self) -> Option<Arc<dyn WaClient>> {
        self.client
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

/// How a task begins.
#[derive(Debug)]
pub(crate) enum Intent {
    /// Run the session; `wipe_first` for a new QR code (then `reply` is answered once the
    /// keys are gone); `pair_phone` to link by pair code.
    Run {
        wipe_first: bool,
        pair_phone: Option<String>,
        reply: Option<oneshot::Sender<Result<()>>>,
    },
    /// Only log out a connection nobody runs here: wipe its keys and report it.
    Logout(oneshot::Sender<Result<()>>),
}

impl Supervisor {
    /// The supervisor, with its takeover scan running. Must be called within a tokio runtime.
    pub fn new(deps: SupervisorDeps) -> Arc<Supervisor> {
        let (closing, _) = watch::channel(false);
        let inner = Arc::new(Inner {
            deps,
            tasks: Mutex::new(HashMap::new()),
            next_start: Mutex::new(Instant::now()),
            generation: Mutex::new(0),
            closing,
            full_history: Mutex::new(HashSet::new()),
        });
        let scan = tokio::spawn(scan_loop(inner.clone()));
        Arc::new(Supervisor {
            inner,
            scan: Mutex::new(Some(scan)),
        })
    }

    /// Starts the connection's task unless one runs here already; `pair_phone` (digits) to
    /// link by pair code alongside the QR code. True when a task was started.
    pub fn start(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        pair_phone: Option<String>,
    ) -> bool {
        self.inner.spawn(
            scope,
            connection,
            Intent::Run {
                wipe_first: false,
                pair_phone,
                reply: None,
            },
        )
    }

    /// Stops the connection's session (see [`Stop`]); returns once it stopped (for
    /// [`Stop::NewQr`], once the fresh session was asked for). When this process does not run
    /// it: [`Stop::Shutdown`] does nothing, [`Stop::Logout`] wipes the keys and reports the
    /// logout when no process holds the connection, and [`Stop::NewQr`] starts it afresh;
    /// both answer `ERR_WAPP_NOT_INITIALIZED` when another process runs it.
    pub async fn stop(&self, scope: TenantScope, connection: WhatsappId, how: Stop) -> Result<()> {
        let (reply, answer) = oneshot::channel();
        if self.inner.send(connection, task::Command::Stop(how, reply)) {
            // A task that ended meanwhile dropped the reply: it is stopped.
            return answer.await.unwrap_or(Ok(()));
        }
        match how {
            Stop::Shutdown => Ok(()),
            Stop::NewQr | Stop::Logout => {
                let (reply, answer) = oneshot::channel();
                let intent = if how == Stop::NewQr {
                    Intent::Run {
                        wipe_first: true,
                        pair_phone: None,
                        reply: Some(reply),
                    }
                } else {
                    Intent::Logout(reply)
                };
                if self.inner.spawn(scope, connection, intent) {
                    return answer.await.unwrap_or(Ok(()));
                }
                // A task started meanwhile (or the process is closing): ask it.
                let (reply, answer) = oneshot::channel();
                if self.inner.send(connection, task::Command::Stop(how, reply)) {
                    return answer.await.unwrap_or(Ok(()));
                }
                Ok(())
            }
        }
    }

    /// Tries again: a fresh client on the same keys, at once (no backoff). Starts the task
    /// when none runs here.
    pub fn restart(&self, scope: TenantScope, connection: WhatsappId) {
        if !self.inner.send(connection, task::Command::Restart) {
            self.start(scope, connection, None);
        }
    }

    /// The connection's client while its session runs here and is connected (for sends).
    pub fn client(&self, connection: WhatsappId) -> Option<Arc<dyn WaClient>> {
        self.inner
            .tasks
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&connection)
            .and_then(|slot| slot.live.client())
    }

    /// The people the connection's phone synced ([`crate::directory`]), as the contacts import
    /// lists them: read from the stored state, so it answers whichever process runs the
    /// session (or none); empty for a connection that never synced.
    pub async fn directory(&self, connection: WhatsappId) -> Result<Vec<ChannelChat>> {
        crate::storage::directory_chats(self.inner.deps.state.as_ref(), connection).await
    }

    /// Whether a task runs (or waits for the lease of) the connection in this process.
    pub fn is_running(&self, connection: WhatsappId) -> bool {
        self.inner
            .tasks
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .contains_key(&connection)
    }

    /// Asks for a pair code for `phone` (digits, international). The code arrives as a
    /// `PAIRING` update with its `pairing_code`.
    ///
    /// When the session runs here and shows a QR code (or an earlier pair code), its own client
    /// asks ([`WaClient::pair_with_code`]): no new QR codes, and an error (a refused number)
    /// is answered here. `ERR_BAD_REQUEST` while the session is connected (it is linked
    /// already). Otherwise (no run here yet, or a run still opening) the session is
    /// (re)started with the number, so the new client links by code alongside its QR code.
    /// `ERR_WAPP_NOT_INITIALIZED` when another process runs the connection.
    pub async fn request_pair_code(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        phone: &str,
    ) -> Result<()> {
        let (reply, answer) = oneshot::channel();
        if self
            .inner
            .send(connection, task::Command::PairCode(phone.to_owned(), reply))
        {
            return answer.await.unwrap_or_else(|_| Err(not_running_here()));
        }
        self.start(scope, connection, Some(phone.to_owned()));
        Ok(())
    }

    /// Whether the next runs of `connection` ask the phone for its whole message history when
    /// they link it (the connection's import of old messages is on): the flag each run is built
    /// with ([`crate::client::SessionParams::full_history`]). Remembered until changed; a run
    /// already built keeps what it was built with.
    pub fn want_full_history(&self, connection: WhatsappId, wanted: bool) {
        self.inner.set_full_history(connection, wanted);
    }

    /// What [`Supervisor::want_full_history`] last said for `connection` (`false` unless set).
    pub fn wants_full_history(&self, connection: WhatsappId) -> bool {
        self.inner.wants_full_history(connection)
    }

    /// Stops every session gracefully, keeping their keys and their recorded status, and
    /// releases their leases so other processes take them over at once (the process is going
    /// away). Starts nothing afterwards.
    pub async fn shutdown_all(&self) {
        self.inner.closing.send_replace(true);
        let scan = self
            .scan
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        if let Some(scan) = scan {
            scan.abort();
            let _ = scan.await;
        }
        let slots: Vec<Slot> = self
            .inner
            .tasks
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .drain()
            .map(|(_, slot)| slot)
            .collect();
        for slot in &slots {
            let _ = slot.commands.send(task::Command::Handover);
        }
        for slot in slots {
            let _ = slot.handle.await;
        }
    }
}

impl Inner {
    fn config(&self) -> &SupervisorConfig {
        &self.deps.config
    }

    fn is_closing(&self) -> bool {
        *self.closing.borrow()
    }

    fn set_full_history(&self, connection: WhatsappId, wanted: bool) {
        let mut wishes = self
            .full_history
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if wanted {
            wishes.insert(connection);
        } else {
            wishes.remove(&connection);
        }
    }

    pub(crate) fn wants_full_history(&self, connection: WhatsappId) -> bool {
        self.full_history
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .contains(&connection)
    }

    /// Spawns the connection's task unless one exists (or the process is closing).
    fn spawn(self: &Arc<Self>, scope: TenantScope, connection: WhatsappId, intent: Intent) -> bool {
        if self.is_closing() {
            return false;
        }
        let mut tasks = self.tasks.lock().unwrap_or_else(PoisonError::into_inner);
        if tasks.contains_key(&connection) {
            return false;
        }
        let generation = {
            let mut generation = self
                .generation
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            *generation += 1;
            *generation
        };
        let start_at = {
            let mut next = self
                .next_start
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            let at = (*next).max(Instant::now());
            *next = at + self.config().start_stagger;
            at
        };
        let (commands, receiver) = mpsc::unbounded_channel();
        let live = Arc::new(Live::default());
        let handle = tokio::spawn(task::run(task::Task::new(
            self.clone(),
            scope,
            connection,
            generation,
            receiver,
            commands.clone(),
            live.clone(),
            start_at,
            intent,
        )));
        tasks.insert(
            connection,
            Slot {
                generation,
                commands,
                live,
                handle,
            },
        );
        true
    }

    /// Sends `command` to the connection's task; false when none runs here.
    fn send(&self, connection: WhatsappId, command: task::Command) -> bool {
        let tasks = self.tasks.lock().unwrap_or_else(PoisonError::into_inner);
        match tasks.get(&connection) {
            Some(slot) => slot.commands.send(command).is_ok(),
            None => false,
        }
    }

    /// Removes the slot of the task `generation` (not a newer task's).
    fn remove(&self, connection: WhatsappId, generation: u64) {
        let mut tasks = self.tasks.lock().unwrap_or_else(PoisonError::into_inner);
        if tasks
            .get(&connection)
            .is_some_and(|slot| slot.generation == generation)
        {
            tasks.remove(&connection);
        }
    }

    /// Delivers a session update to the sink, trying three times.
    async fn report(&self, scope: TenantScope, connection: WhatsappId, update: SessionUpdate) {
        for attempt in 1..=3u32 {
            match self
                .deps
                .sink
                .deliver(scope, connection, InboundEvent::Session(update.clone()))
                .await
            {
                Ok(()) => return,
                Err(error) if attempt < 3 => {
                    tracing::warn!(connection = connection.0, %error, "a session update was not recorded; trying again");
                    tokio::time::sleep(Duration::from_secs(u64::from(attempt))).await;
                }
                Err(error) => {
                    tracing::error!(connection = connection.0, %error, status = update.status.as_str(), "a session update could not be recorded");
                }
            }
        }
    }
}

/// The takeover scan (see the module's documentation).
async fn scan_loop(inner: Arc<Inner>) {
    let every = inner.config().scan_every;
    let mut ticks = tokio::time::interval_at(Instant::now() + every, every);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        ticks.tick().await;
        if inner.is_closing() {
            return;
        }
        if let Err(error) = scan_once(&inner).await {
            tracing::warn!(%error, "the takeover scan failed");
        }
    }
}

/// One scan: starts the claimable connections that should run and do not run here.
async fn scan_once(inner: &Arc<Inner>) -> Result<()> {
    let now = inner.deps.clock.now();
    let claimable = inner.deps.leases.claimable_across_companies(now).await?;
    let claimable: Vec<WhatsappId> = {
        let tasks = inner.tasks.lock().unwrap_or_else(PoisonError::into_inner);
        claimable
            .into_iter()
            .filter(|id| !tasks.contains_key(id))
            .collect()
    };
    if claimable.is_empty() {
        return Ok(());
    }
    for connection in inner.deps.connections.list_all_platform().await? {
        if connection.provider == ProviderKind::Beta
            && should_run(connection.status)
            && claimable.contains(&connection.id)
        {
            let scope = TenantScope::new(connection.company_id);
            // Nobody told this process: the connection's own settings say whether a link asks
            // for the whole history, as the core would have.
            inner.set_full_history(connection.id, history::window_of(&connection).is_some());
            if inner.spawn(
                scope,
                connection.id,
                Intent::Run {
                    wipe_first: false,
                    pair_phone: None,
                    reply: None,
                },
            ) {
                tracing::info!(
                    connection = connection.id.0,
                    "taking over a connection nobody holds"
                );
            }
        }
    }
    Ok(())
}

/// `ERR_WAPP_NOT_INITIALIZED`: the session does not run in this process.
fn not_running_here() -> Error {
    Error::with_detail(
        ErrorCode::ERR_WAPP_NOT_INITIALIZED,
        "the session runs on another server process",
    )
}

/// The reason a takeover's first update carries.
fn taken_over() -> SessionReason {
    SessionReason::LeaseLost
}
