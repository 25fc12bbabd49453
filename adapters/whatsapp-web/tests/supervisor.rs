//! The session supervisor over the fake client factory and the real store (SQLite and
//! PostgreSQL): what each session event makes of the connection's status, when a run is rebuilt
//! and when it is not, the lease between two server processes and its fence, the deaf-session
//! watchdog, and the commands (stop, log out, new QR code, restart, pair code, shutdown).
//!
//! Each test runs the supervisors on a tokio runtime whose clock is paused (a backoff of two
//! seconds takes no real time, and "no rebuild within an hour" is checked in an instant). The
//! store runs on the test's own runtime, on the wall clock: each call of the supervisor reaches
//! it from a blocking task of the paused runtime, which holds that runtime's clock still until
//! the call returns (a database call takes no time on the paused clock, and its pool's timers
//! never see the paused time). Times written to the database come from a manual clock the test
//! moves, so a lease expires when the test says so.
//!
//! A "process" is a supervisor with its owner id, its fake factory and its own path to the store,
//! which the test can freeze (every call of that process hangs until thawed: a process paused
//! past its lease, the case fencing is for). Its sink stands in for the host: it records every
//! session update and writes it on the connection, as the host does.

use std::future::Future;
use std::panic::resume_unwind;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use chatflow_core::events::Event as CoreEvent;
use chatflow_core::inbox::channel::{ChannelProvider, HistoryChunk, HistoryRequest, ReadMessage};
use chatflow_core::inbox::channel::{InboundEvent, InboundSink};
use chatflow_core::inbox::lease::{ChannelLeaseRepo, Lease, LeaseToken};
use chatflow_core::inbox::model::{
    Connection, ConnectionInput, ConnectionStatus, SessionReason, SessionUpdate,
};
use chatflow_core::inbox::ports::ConnectionRepo;
use chatflow_core::inbox::session_state::{SessionStateRepo, StateNamespace, StateOp, StateRow};
use chatflow_core::ports::{Clock, CompanyRepo, NewCompany, NewPlan, PlanRepo, SecretCipher};
use chatflow_core::tenancy::{Money, PlanFlags, Recurrence};
use chatflow_core::{ErrorCode, Result, TenantScope, WhatsappId};
use chatflow_store::{Stamps, Store, testing};
use chatflow_system::{ManualClock, SealedSecrets};
use chatflow_whatsapp_web::client::SessionStats;
use chatflow_whatsapp_web::fake::{
    FakeCall, FakeEnd, FakeHistory, FakeSessionHandle, FakeWaClientFactory, HistoryMessage,
    contact_update, history_sync, push_name_update, text_from,
};
use chatflow_whatsapp_web::provider::WaProvider;
use chatflow_whatsapp_web::supervisor::{
    Stop, Supervisor, SupervisorConfig, SupervisorDeps, TrafficHandler,
};
use chatflow_whatsapp_web::whatsapp_rust::Jid;
use chatflow_whatsapp_web::whatsapp_rust::types::events::{
    ClientOutdated, ConnectFailureReason, Event, LoggedOut, OfflineSyncCompleted, PairSuccess,
    PairingQrCode, PairingQrCodesExhausted, Receipt, StreamReplaced, TempBanReason, TemporaryBan,
};
use chatflow_whatsapp_web::whatsapp_rust::types::message::MessageSource;
use chatflow_whatsapp_web::whatsapp_rust::types::presence::ReceiptType;
use chatflow_whatsapp_web::whatsapp_rust::wacore::store::traits::{
    DeviceStore, LidPnMappingEntry, ProtocolStore, SignalStore,
};
use chrono::{DateTime, TimeDelta, Utc};
use tokio::runtime::Handle;
use tokio::sync::watch;
use tokio::time::Instant;

// =============================================================================================
// The store, reached from the paused runtime
// =============================================================================================

/// One process's path to the store (see the module's documentation).
struct Remote {
    store: Store,
    /// The runtime the store lives on (the wall clock).
    home: Handle,
    frozen: watch::Receiver<bool>,
}

impl Remote {
    /// Runs `call` on the store: after a thaw when frozen, then on a blocking task of the
    /// paused runtime (which keeps its clock still meanwhile) that drives it on the store's
    /// runtime.
    async fn call<T, F, Fut>(&self, call: F) -> T
    where
        F: FnOnce(Store) -> Fut + Send + 'static,
        Fut: Future<Output = T> + Send + 'static,
        T: Send + 'static,
    {
        let mut frozen = self.frozen.clone();
        let _ = frozen.wait_for(|frozen| !*frozen).await;
        let store = self.store.clone();
        let home = self.home.clone();
        match tokio::task::spawn_blocking(move || home.block_on(call(store))).await {
            Ok(answer) => answer,
            Err(failure) => resume_unwind(failure.into_panic()),
        }
    }
}

#[async_trait]
impl ChannelLeaseRepo for Remote {
    async fn acquire(
        &self,
        connection: WhatsappId,
        owner: &str,
        now: DateTime<Utc>,
        ttl: TimeDelta,
    ) -> Result<Option<LeaseToken>> {
        let owner = owner.to_owned();
        self.call(move |s| async move { s.acquire(connection, &owner, now, ttl).await })
            .await
    }

    async fn renew(
        &self,
        connection: WhatsappId,
        owner: &str,
        token: LeaseToken,
        now: DateTime<Utc>,
        ttl: TimeDelta,
    ) -> Result<bool> {
        let owner = owner.to_owned();
        self.call(move |s| async move { s.renew(connection, &owner, token, now, ttl).await })
            .await
    }

    async fn release(
        &self,
        connection: WhatsappId,
        owner: &str,
        token: LeaseToken,
    ) -> Result<bool> {
        let owner = owner.to_owned();
        self.call(move |s| async move { s.release(connection, &owner, token).await })
            .await
    }

    async fn lease(&self, connection: WhatsappId) -> Result<Option<Lease>> {
        self.call(move |s| async move { s.lease(connection).await })
            .await
    }

    async fn claimable_across_companies(&self, now: DateTime<Utc>) -> Result<Vec<WhatsappId>> {
        self.call(move |s| async move { s.claimable_across_companies(now).await })
            .await
    }
}

#[async_trait]
impl SessionStateRepo for Remote {
    async fn get(
        &self,
        connection: WhatsappId,
        ns: StateNamespace,
        key: &[u8],
    ) -> Result<Option<StateRow>> {
        let key = key.to_vec();
        self.call(move |s| async move { SessionStateRepo::get(&s, connection, ns, &key).await })
            .await
    }

    async fn get_many(
        &self,
        connection: WhatsappId,
        ns: StateNamespace,
        keys: &[Vec<u8>],
    ) -> Result<Vec<StateRow>> {
        let keys = keys.to_vec();
        self.call(move |s| async move { s.get_many(connection, ns, &keys).await })
            .await
    }

    async fn list(
        &self,
        connection: WhatsappId,
        ns: StateNamespace,
        prefix: &[u8],
    ) -> Result<Vec<StateRow>> {
        let prefix = prefix.to_vec();
        self.call(move |s| async move { SessionStateRepo::list(&s, connection, ns, &prefix).await })
            .await
    }

    async fn max_aux(&self, connection: WhatsappId, ns: StateNamespace) -> Result<Option<i64>> {
        self.call(move |s| async move { s.max_aux(connection, ns).await })
            .await
    }

    async fn apply(
        &self,
        connection: WhatsappId,
        fence: LeaseToken,
        ops: &[StateOp],
    ) -> Result<u64> {
        let ops = ops.to_vec();
        self.call(move |s| async move { s.apply(connection, fence, &ops).await })
            .await
    }

    async fn take(
        &self,
        connection: WhatsappId,
        fence: LeaseToken,
        ns: StateNamespace,
        key: &[u8],
    ) -> Result<Option<StateRow>> {
        let key = key.to_vec();
        self.call(move |s| async move { s.take(connection, fence, ns, &key).await })
            .await
    }

    async fn wipe(&self, connection: WhatsappId) -> Result<u64> {
        self.call(move |s| async move { s.wipe(connection).await })
            .await
    }
}

#[async_trait]
impl ConnectionRepo for Remote {
    async fn list(&self, scope: TenantScope) -> Result<Vec<Connection>> {
        self.call(move |s| async move { ConnectionRepo::list(&s, scope).await })
            .await
    }

    async fn get(&self, scope: TenantScope, id: WhatsappId) -> Result<Option<Connection>> {
        self.call(move |s| async move { ConnectionRepo::get(&s, scope, id).await })
            .await
    }

    async fn count(&self, scope: TenantScope) -> Result<i64> {
        self.call(move |s| async move { ConnectionRepo::count(&s, scope).await })
            .await
    }

    async fn create(
        &self,
        scope: TenantScope,
        input: &ConnectionInput,
        token: &str,
        events: &[CoreEvent],
    ) -> Result<Connection> {
        let (input, token, events) = (input.clone(), token.to_owned(), events.to_vec());
        self.call(move |s| async move {
            ConnectionRepo::create(&s, scope, &input, &token, &events).await
        })
        .await
    }

    async fn update(
        &self,
        scope: TenantScope,
        id: WhatsappId,
        input: &ConnectionInput,
    ) -> Result<Option<Connection>> {
        let input = input.clone();
        self.call(move |s| async move { ConnectionRepo::update(&s, scope, id, &input).await })
            .await
    }

    async fn set_token(&self, scope: TenantScope, id: WhatsappId, token: &str) -> Result<bool> {
        let token = token.to_owned();
        self.call(move |s| async move { s.set_token(scope, id, &token).await })
            .await
    }

    async fn set_session(
        &self,
        scope: TenantScope,
        id: WhatsappId,
        update: &SessionUpdate,
    ) -> Result<Option<Connection>> {
        let update = update.clone();
        self.call(move |s| async move { s.set_session(scope, id, &update).await })
            .await
    }

    async fn delete(&self, scope: TenantScope, id: WhatsappId) -> Result<bool> {
        self.call(move |s| async move { ConnectionRepo::delete(&s, scope, id).await })
            .await
    }

    async fn list_all_platform(&self) -> Result<Vec<Connection>> {
        self.call(move |s| async move { ConnectionRepo::list_all_platform(&s).await })
            .await
    }

    async fn set_default(&self, scope: TenantScope, id: WhatsappId) -> Result<bool> {
        self.call(move |s| async move { s.set_default(scope, id).await })
            .await
    }
}

// =============================================================================================
// The host's part: the sink and the traffic
// =============================================================================================

/// Records the session updates a process delivered and writes them on the connection; records
/// the other events too (what the provider's traffic lanes deliver).
struct Recorder {
    remote: Arc<Remote>,
    updates: watch::Sender<Vec<(WhatsappId, SessionUpdate)>>,
    events: watch::Sender<Vec<(WhatsappId, InboundEvent)>>,
}

#[async_trait]
impl InboundSink for Recorder {
    async fn deliver(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        event: InboundEvent,
    ) -> Result<()> {
        if let InboundEvent::Session(update) = event {
            self.remote.set_session(scope, connection, &update).await?;
            self.updates
                .send_modify(|updates| updates.push((connection, update)));
        } else {
            self.events
                .send_modify(|events| events.push((connection, event)));
        }
        Ok(())
    }
}

// =============================================================================================
// The world: one store, one manual clock, processes
// =============================================================================================

/// How long a test waits (on the paused clock) for something that must happen.
const PATIENCE: Duration = Duration::from_secs(60 * 60);

#[derive(Clone)]
struct World {
    store: Store,
    home: Handle,
    clock: ManualClock,
    scope: TenantScope,
    /// The company's connections (provider beta, status DISCONNECTED until a sink writes it).
    connections: Vec<WhatsappId>,
}

/// One server process.
struct Process {
    supervisor: Arc<Supervisor>,
    factory: FakeWaClientFactory,
    remote: Arc<Remote>,
    freeze: watch::Sender<bool>,
    updates: watch::Receiver<Vec<(WhatsappId, SessionUpdate)>>,
    traffic: watch::Receiver<Vec<(WhatsappId, Arc<Event>)>>,
}

fn cipher() -> Arc<dyn SecretCipher> {
    Arc::new(
        SealedSecrets::from_key_text("a test key of at least thirty-two characters")
            .expect("a key"),
    )
}

impl World {
    fn connection(&self) -> WhatsappId {
        self.connections[0]
    }

    /// A process named `owner` with the default timings.
    fn process(&self, owner: &str) -> Process {
        self.process_with(owner, SupervisorConfig::default())
    }

    fn process_with(&self, owner: &str, config: SupervisorConfig) -> Process {
        let (freeze, frozen) = watch::channel(false);
        let remote = Arc::new(Remote {
            store: self.store.clone(),
            home: self.home.clone(),
            frozen,
        });
        let (updates, updates_seen) = watch::channel(Vec::new());
        let sink = Arc::new(Recorder {
            remote: remote.clone(),
            updates,
            events: watch::Sender::new(Vec::new()),
        });
        let (seen, traffic) = watch::channel(Vec::new());
        let handler: TrafficHandler = Arc::new(move |_scope, connection, event| {
            seen.send_modify(|seen| seen.push((connection, event)));
        });
        let factory = FakeWaClientFactory::new();
        let supervisor = Supervisor::new(SupervisorDeps {
            factory: Arc::new(factory.clone()),
            state: remote.clone(),
            cipher: cipher(),
            leases: remote.clone(),
            connections: remote.clone(),
            clock: Arc::new(self.clock.clone()),
            sink,
            traffic: handler,
            owner: owner.to_owned(),
            config,
        });
        Process {
            supervisor,
            factory,
            remote,
            freeze,
            updates: updates_seen,
            traffic,
        }
    }

    /// A process whose supervisor the provider builds (the host's assembly): its sink, attached
    /// by [`ProviderProcess::attach`], gets the traffic lanes' events as well as the session
    /// updates.
    fn provider(&self, owner: &str) -> ProviderProcess {
        let (_freeze, frozen) = watch::channel(false);
        let remote = Arc::new(Remote {
            store: self.store.clone(),
            home: self.home.clone(),
            frozen,
        });
        let (updates, updates_seen) = watch::channel(Vec::new());
        let (events, events_seen) = watch::channel(Vec::new());
        let sink = Arc::new(Recorder {
            remote: remote.clone(),
            updates,
            events,
        });
        let factory = FakeWaClientFactory::new();
        let (clock, owner, built) = (self.clock.clone(), owner.to_owned(), factory.clone());
        let provider = WaProvider::new(Box::new(move |sink, traffic| SupervisorDeps {
            factory: Arc::new(built),
            state: remote.clone(),
            cipher: cipher(),
            leases: remote.clone(),
            connections: remote,
            clock: Arc::new(clock),
            sink,
            traffic,
            owner,
            config: SupervisorConfig::default(),
        }));
        ProviderProcess {
            provider,
            sink,
            factory,
            updates: updates_seen,
            events: events_seen,
        }
    }

    /// The connection as stored.
    async fn stored(&self, connection: WhatsappId) -> Connection {
        let (store, scope) = (self.store.clone(), self.scope);
        self.on_store(move || async move {
            ConnectionRepo::get(&store, scope, connection)
                .await
                .expect("read")
                .expect("the connection exists")
        })
        .await
    }

    async fn lease(&self, connection: WhatsappId) -> Option<Lease> {
        let store = self.store.clone();
        self.on_store(move || async move { store.lease(connection).await.expect("read") })
            .await
    }

    /// How many key-state rows the connection has (the device row is one).
    async fn key_rows(&self, connection: WhatsappId) -> usize {
        let store = self.store.clone();
        self.on_store(move || async move {
            let mut rows = 0;
            for ns in StateNamespace::ALL {
                rows += SessionStateRepo::list(&store, connection, *ns, b"")
                    .await
                    .expect("read")
                    .len();
            }
            rows
        })
        .await
    }

    async fn on_store<T, F, Fut>(&self, read: F) -> T
    where
        F: FnOnce() -> Fut + Send + 'static,
        Fut: Future<Output = T> + Send + 'static,
        T: Send + 'static,
    {
        let home = self.home.clone();
        match tokio::task::spawn_blocking(move || home.block_on(read())).await {
            Ok(answer) => answer,
            Err(failure) => resume_unwind(failure.into_panic()),
        }
    }
}

impl Process {
    /// The updates delivered so far for `connection`.
    fn updates(&self, connection: WhatsappId) -> Vec<SessionUpdate> {
        self.updates
            .borrow()
            .iter()
            .filter(|(id, _)| *id == connection)
            .map(|(_, update)| update.clone())
            .collect()
    }

    /// Waits until an update for `connection` matches, and answers it.
    async fn update_where(
        &self,
        connection: WhatsappId,
        what: impl Fn(&SessionUpdate) -> bool,
    ) -> SessionUpdate {
        let mut updates = self.updates.clone();
        let found = tokio::time::timeout(
            PATIENCE,
            updates.wait_for(|all| all.iter().any(|(id, u)| *id == connection && what(u))),
        )
        .await
        .expect("the update came in time")
        .expect("the recorder lives");
        found
            .iter()
            .find(|(id, u)| *id == connection && what(u))
            .map(|(_, u)| u.clone())
            .expect("found")
    }

    /// Waits for an update with `status`.
    async fn status(&self, connection: WhatsappId, status: ConnectionStatus) -> SessionUpdate {
        self.update_where(connection, |u| u.status == status).await
    }

    /// Waits for the next run the supervisor builds.
    async fn next_run(&self) -> FakeSessionHandle {
        tokio::time::timeout(PATIENCE, self.factory.next_session())
            .await
            .expect("a run was built in time")
    }

    /// Waits until the process no longer runs the connection (its task ended, and released the
    /// lease when it held it still). Looked at every 100 ms of the paused clock (the task's end
    /// has no signal of its own).
    async fn stopped(&self, connection: WhatsappId, owner: &str) {
        let deadline = Instant::now() + PATIENCE;
        loop {
            let lease = self.remote.lease(connection).await.expect("read");
            let held = lease.is_some_and(|lease| lease.owner.as_deref() == Some(owner));
            if !self.supervisor.is_running(connection) && !held {
                return;
            }
            assert!(Instant::now() < deadline, "the task ended in time");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    fn freeze(&self, frozen: bool) {
        self.freeze.send_replace(frozen);
    }
}

/// A process assembled as the host does: the provider over its supervisor.
struct ProviderProcess {
    provider: WaProvider,
    sink: Arc<Recorder>,
    factory: FakeWaClientFactory,
    updates: watch::Receiver<Vec<(WhatsappId, SessionUpdate)>>,
    events: watch::Receiver<Vec<(WhatsappId, InboundEvent)>>,
}

impl ProviderProcess {
    /// Makes the provider live with its recording sink.
    fn attach(&self) {
        self.provider.attach_sink(self.sink.clone());
    }

    fn supervisor(&self) -> &Arc<Supervisor> {
        self.provider.supervisor().expect("attached")
    }

    async fn next_run(&self) -> FakeSessionHandle {
        tokio::time::timeout(PATIENCE, self.factory.next_session())
            .await
            .expect("a run was built in time")
    }

    async fn connected(&self, connection: WhatsappId) {
        let mut updates = self.updates.clone();
        tokio::time::timeout(
            PATIENCE,
            updates.wait_for(|all| {
                all.iter()
                    .any(|(id, u)| *id == connection && u.status == ConnectionStatus::Connected)
            }),
        )
        .await
        .expect("connected in time")
        .expect("the recorder lives");
    }

    /// Waits until `count` events (other than session updates) were delivered for
    /// `connection`, and answers them.
    async fn events(&self, connection: WhatsappId, count: usize) -> Vec<InboundEvent> {
        let mut events = self.events.clone();
        let seen = tokio::time::timeout(
            PATIENCE,
            events.wait_for(|all| all.iter().filter(|(id, _)| *id == connection).count() >= count),
        )
        .await
        .expect("the events came in time")
        .expect("the recorder lives");
        seen.iter()
            .filter(|(id, _)| *id == connection)
            .map(|(_, event)| event.clone())
            .collect()
    }
}

// =============================================================================================
// Fixture and engines
// =============================================================================================

fn stamps() -> Stamps {
    Stamps::new(
        Arc::new(chatflow_system::SystemClock),
        Arc::new(chatflow_system::RandomIds),
    )
}

async fn fixture(store: &Store) -> (TenantScope, Vec<WhatsappId>) {
    let plan = PlanRepo::create(
        store,
        &NewPlan {
            name: "Basic".to_owned(),
            users: 10,
            connections: 5,
            queues: 8,
            amount: Money(4990),
            is_public: true,
            flags: PlanFlags::ALL,
        },
    )
    .await
    .expect("plan created")
    .id;
    let company = CompanyRepo::create(
        store,
        &NewCompany {
            name: "Company A".to_owned(),
            email: Some("company-a@example.com".to_owned()),
            phone: None,
            plan_id: plan,
            status: true,
            due_date: chrono::NaiveDate::from_ymd_opt(2030, 1, 31).expect("a date"),
            recurrence: Recurrence::Mensal,
            document: None,
        },
    )
    .await
    .expect("company created");
    let scope = TenantScope::new(company.id);
    let mut connections = Vec::new();
    for name in ["first", "second", "third"] {
        let id = chatflow_store::on_pool!(store.pool(), |p| {
            sqlx::query_scalar::<_, i64>(
                "INSERT INTO whatsapps (company_id, name, provider) VALUES ($1, $2, 'beta') \
                 RETURNING id",
            )
            .bind(company.id.0)
            .bind(name)
            .fetch_one(p)
            .await
            .expect("connection inserted")
        });
        connections.push(WhatsappId(id));
    }
    (scope, connections)
}

/// Runs `test` in a paused runtime with a world over `store` (which lives on the calling
/// runtime).
async fn in_world<F, Fut>(store: Store, test: F)
where
    F: FnOnce(World) -> Fut + Send + 'static,
    Fut: Future<Output = ()> + 'static,
{
    let (scope, connections) = fixture(&store).await;
    let world = World {
        store,
        home: Handle::current(),
        clock: ManualClock::starting_now(),
        scope,
        connections,
    };
    let outcome = tokio::task::spawn_blocking(move || {
        let paused = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .start_paused(true)
            .build()
            .expect("a runtime");
        paused.block_on(test(world));
    })
    .await;
    if let Err(failure) = outcome {
        resume_unwind(failure.into_panic());
    }
}

async fn on_sqlite<F, Fut>(test: F)
where
    F: FnOnce(World) -> Fut + Send + 'static,
    Fut: Future<Output = ()> + 'static,
{
    testing::on_sqlite(stamps(), true, |store, _| in_world(store, test)).await;
}

async fn on_postgres<F, Fut>(test: F)
where
    F: FnOnce(World) -> Fut + Send + 'static,
    Fut: Future<Output = ()> + 'static,
{
    testing::on_postgres(stamps(), true, |store, _| in_world(store, test)).await;
}

/// One test per engine for each listed `async fn(World)`.
macro_rules! engine_tests {
    ($($name:ident),* $(,)?) => {
        mod sqlite {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    super::on_sqlite(super::$name).await;
                }
            )*
        }
        mod postgres {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    super::on_postgres(super::$name).await;
                }
            )*
        }
    };
}

// =============================================================================================
// Events
// =============================================================================================

fn qr(code: &str) -> Event {
    Event::PairingQrCode(
        PairingQrCode::builder()
            .code(code.to_owned())
            .timeout(Duration::from_secs(60))
            .build(),
    )
}

fn paired(number: &str) -> Event {
    Event::PairSuccess(
        PairSuccess::builder()
            .id(format!("{number}@s.whatsapp.net")
                .parse::<Jid>()
                .expect("a jid"))
            .lid("99887766@lid".parse::<Jid>().expect("a lid"))
            .business_name(String::new())
            .platform("android".to_owned())
            .build(),
    )
}

fn logged_out() -> Event {
    Event::LoggedOut(
        LoggedOut::builder()
            .on_connect(false)
            .reason(ConnectFailureReason::LoggedOut)
            .build(),
    )
}

/// Writes one key row through the run's own backend (fenced by its token).
async fn write_key(run: &FakeSessionHandle, address: &str) -> anyhow::Result<()> {
    run.backend
        .put_identity(address, [7; 32])
        .await
        .map_err(|error| anyhow::anyhow!("{error:?}"))
}

/// Sleeps `duration` on the paused clock (proves that nothing happens meanwhile).
async fn idle(duration: Duration) {
    tokio::time::sleep(duration).await;
}

// =============================================================================================
// Tests
// =============================================================================================

/// The first run shows its QR code as an image, then pairs and connects with the number; its
/// client is handed out only while connected.
async fn a_qr_code_then_pairing_connects_with_the_number(w: World) {
    let a = w.process("server-a");
    let conn = w.connection();
    assert!(a.supervisor.start(w.scope, conn, None));
    assert!(
        !a.supervisor.start(w.scope, conn, None),
        "one task per connection"
    );
    let run = a.next_run().await;
    assert_eq!(run.connection, conn);
    assert_eq!(run.pair_phone, None);
    let opening = a.status(conn, ConnectionStatus::Opening).await;
    assert_eq!(opening.reason, None);
    let lease = w.lease(conn).await.expect("leased");
    assert_eq!(lease.owner.as_deref(), Some("server-a"));

    assert!(run.emit(qr("2@first,abc,def")));
    let shown = a.status(conn, ConnectionStatus::Qrcode).await;
    assert!(shown.qrcode.starts_with("data:image/svg+xml;base64,"));
    assert!(
        a.supervisor.client(conn).is_none(),
        "no sends before connecting"
    );

    assert!(run.emit(paired("5511999990000")));
    let pairing = a.status(conn, ConnectionStatus::Pairing).await;
    assert_eq!(pairing.number.as_deref(), Some("5511999990000"));
    assert!(run.connect());
    let connected = a.status(conn, ConnectionStatus::Connected).await;
    assert_eq!(connected.number.as_deref(), Some("5511999990000"));
    assert_eq!(connected.reason, None);
    let stored = w.stored(conn).await;
    assert_eq!(stored.status, ConnectionStatus::Connected);
    assert_eq!(stored.number, "5511999990000");

    // Sends go through this run's client.
    let client = a.supervisor.client(conn).expect("connected");
    let to: Jid = "5511777770000@s.whatsapp.net".parse().expect("a jid");
    client
        .send(&to, Default::default(), "3EB0AA")
        .await
        .expect("sent");
    assert_eq!(run.client().sent().len(), 1);

    // Other events are traffic, with their connection, in order.
    for count in [1, 2] {
        run.emit(Event::OfflineSyncCompleted(
            OfflineSyncCompleted::builder().count(count).build(),
        ));
    }
    let mut seen = a.traffic.clone();
    let traffic = tokio::time::timeout(PATIENCE, seen.wait_for(|seen| seen.len() >= 2))
        .await
        .expect("delivered in time")
        .expect("the handler lives")
        .clone();
    let counts: Vec<_> = traffic
        .iter()
        .map(|(id, event)| match event.as_ref() {
            Event::OfflineSyncCompleted(done) => (*id, done.count),
            other => panic!("not traffic: {other:?}"),
        })
        .collect();
    assert_eq!(counts, [(conn, 1), (conn, 2)]);
    a.supervisor.shutdown_all().await;
}

/// A run that ends without a final reason is rebuilt on a fresh client, after the backoff
/// (2 s, then 4 s, each up to 20 % shorter), and only once the old run is over; while waiting,
/// the connection shows OPENING (reconnecting).
async fn a_run_that_ends_is_rebuilt_after_the_backoff(w: World) {
    let a = w.process("server-a");
    let conn = w.connection();
    a.supervisor.start(w.scope, conn, None);
    let first = a.next_run().await;
    first.connect();
    a.status(conn, ConnectionStatus::Connected).await;

    let ended = Instant::now();
    first.end();
    let waiting = a
        .update_where(conn, |u| {
            u.status == ConnectionStatus::Opening && u.reason == Some(SessionReason::Reconnecting)
        })
        .await;
    assert_eq!(waiting.retries, 1);
    assert!(a.supervisor.client(conn).is_none());
    idle(Duration::from_millis(1_500)).await;
    assert_eq!(a.factory.sessions().len(), 1, "no rebuild before the delay");
    let second = a.next_run().await;
    let delay = ended.elapsed();
    assert!(
        (Duration::from_millis(1_600)..=Duration::from_secs(2)).contains(&delay),
        "{delay:?}"
    );
    assert_eq!(first.ended(), Some(FakeEnd::Finished));
    assert!(
        !Arc::ptr_eq(&first.client(), &second.client()),
        "a fresh client"
    );

    // The second delay doubles.
    let ended = Instant::now();
    second.end();
    let third = a.next_run().await;
    let delay = ended.elapsed();
    assert!(
        (Duration::from_millis(3_200)..=Duration::from_secs(4)).contains(&delay),
        "{delay:?}"
    );
    // A client that cannot even be built is tried again too, later still.
    a.factory.fail_next_start("no network");
    let ended = Instant::now();
    third.end();
    let failed = a
        .update_where(conn, |u| {
            matches!(&u.reason, Some(SessionReason::Failed { message }) if message.contains("no network"))
        })
        .await;
    assert_eq!(failed.status, ConnectionStatus::Opening);
    let fourth = a.next_run().await;
    assert!(ended.elapsed() >= Duration::from_millis(6_400 + 12_800));
    fourth.connect();
    a.status(conn, ConnectionStatus::Connected).await;
    a.supervisor.shutdown_all().await;
}

/// "Try again" and "new QR code" stop the running session gracefully and build the next only
/// once it is over; a new QR code also wipes the keys.
async fn a_restart_awaits_the_old_run_before_the_next(w: World) {
    let a = w.process("server-a");
    let conn = w.connection();
    a.supervisor.start(w.scope, conn, None);
    let first = a.next_run().await;
    first.connect();
    a.status(conn, ConnectionStatus::Connected).await;
    write_key(&first, "111:1@s.whatsapp.net")
        .await
        .expect("written under the lease");
    assert!(w.key_rows(conn).await > 0);

    a.supervisor.restart(w.scope, conn);
    let second = a.next_run().await;
    assert_eq!(
        first.ended(),
        Some(FakeEnd::Shutdown),
        "stopped before the next"
    );
    assert!(w.key_rows(conn).await > 0, "a restart keeps the keys");
    second.connect();
    a.status(conn, ConnectionStatus::Connected).await;

    a.supervisor
        .stop(w.scope, conn, Stop::NewQr)
        .await
        .expect("asked for");
    let third = a.next_run().await;
    assert_eq!(second.ended(), Some(FakeEnd::Shutdown));
    assert_eq!(
        w.key_rows(conn).await,
        0,
        "a new QR code starts from no keys"
    );
    third.emit(qr("2@fresh,abc,def"));
    a.status(conn, ConnectionStatus::Qrcode).await;
    a.supervisor.shutdown_all().await;
}

/// A stream replaced elsewhere ends the connection for good: DISCONNECTED (replaced), the run
/// stopped (the library did not stop it within the stop timeout), the lease given up, and no
/// rebuild, not by the backoff nor by the takeover scan.
async fn no_rebuild_after_the_stream_was_replaced(w: World) {
    let a = w.process("server-a");
    let conn = w.connection();
    a.supervisor.start(w.scope, conn, None);
    let run = a.next_run().await;
    run.connect();
    a.status(conn, ConnectionStatus::Connected).await;
    run.emit(Event::StreamReplaced(StreamReplaced::builder().build()));
    let update = a.status(conn, ConnectionStatus::Disconnected).await;
    assert_eq!(update.reason, Some(SessionReason::Replaced));
    assert!(a.supervisor.client(conn).is_none());
    a.stopped(conn, "server-a").await;
    assert_eq!(run.ended(), Some(FakeEnd::Shutdown));
    assert_eq!(w.lease(conn).await.expect("leased once").owner, None);
    idle(Duration::from_secs(3_600)).await;
    assert_eq!(a.factory.sessions().len(), 1);
    assert_eq!(w.stored(conn).await.status, ConnectionStatus::Disconnected);
}

/// Logged out from the phone: DISCONNECTED (logged out), the keys wiped, no rebuild.
async fn no_rebuild_after_a_logout_and_the_keys_are_wiped(w: World) {
    let a = w.process("server-a");
    let conn = w.connection();
    a.supervisor.start(w.scope, conn, None);
    let run = a.next_run().await;
    run.connect();
    a.status(conn, ConnectionStatus::Connected).await;
    write_key(&run, "111:1@s.whatsapp.net")
        .await
        .expect("written");
    assert!(w.key_rows(conn).await > 0);
    run.emit(logged_out());
    run.end();
    let update = a.status(conn, ConnectionStatus::Disconnected).await;
    assert_eq!(update.reason, Some(SessionReason::LoggedOut));
    a.stopped(conn, "server-a").await;
    assert_eq!(w.key_rows(conn).await, 0);
    idle(Duration::from_secs(3_600)).await;
    assert_eq!(a.factory.sessions().len(), 1);
}

/// An outdated client is not rebuilt (a new version is needed).
async fn no_rebuild_after_an_outdated_client(w: World) {
    let a = w.process("server-a");
    let conn = w.connection();
    a.supervisor.start(w.scope, conn, None);
    let run = a.next_run().await;
    run.emit(Event::ClientOutdated(ClientOutdated::builder().build()));
    run.end();
    let update = a.status(conn, ConnectionStatus::Disconnected).await;
    assert_eq!(update.reason, Some(SessionReason::Outdated));
    a.stopped(conn, "server-a").await;
    idle(Duration::from_secs(3_600)).await;
    assert_eq!(a.factory.sessions().len(), 1);
}

/// A temporary ban shows its code and when it ends (now + its duration), and is not rebuilt.
async fn a_ban_shows_until_when(w: World) {
    let a = w.process("server-a");
    let conn = w.connection();
    a.supervisor.start(w.scope, conn, None);
    let run = a.next_run().await;
    run.connect();
    a.status(conn, ConnectionStatus::Connected).await;
    let banned_at = w.clock.now();
    run.emit(Event::TemporaryBan(
        TemporaryBan::builder()
            .code(TempBanReason::BlockedByUsers)
            .expire(TimeDelta::hours(24))
            .build(),
    ));
    run.end();
    let update = a.status(conn, ConnectionStatus::Disconnected).await;
    assert_eq!(
        update.reason,
        Some(SessionReason::TemporaryBan { code: 102 })
    );
    assert_eq!(update.until, Some(banned_at + TimeDelta::hours(24)));
    a.stopped(conn, "server-a").await;
    idle(Duration::from_secs(3_600)).await;
    assert_eq!(a.factory.sessions().len(), 1);
}

/// Every QR code expired unscanned: TIMEOUT, and no rebuild until someone asks.
async fn qr_codes_running_out_is_a_timeout(w: World) {
    let a = w.process("server-a");
    let conn = w.connection();
    a.supervisor.start(w.scope, conn, None);
    let run = a.next_run().await;
    for i in 0..6 {
        run.emit(qr(&format!("2@ref{i},abc,def")));
    }
    run.emit(Event::PairingQrCodesExhausted(
        PairingQrCodesExhausted::builder()
            .disconnected(true)
            .build(),
    ));
    run.end();
    let update = a.status(conn, ConnectionStatus::Timeout).await;
    assert_eq!(update.reason, Some(SessionReason::QrExhausted));
    assert!(update.qrcode.is_empty());
    a.stopped(conn, "server-a").await;
    idle(Duration::from_secs(3_600)).await;
    assert_eq!(a.factory.sessions().len(), 1);
    assert_eq!(w.stored(conn).await.status, ConnectionStatus::Timeout);
    // Starting it again shows new QR codes.
    a.supervisor.start(w.scope, conn, None);
    a.next_run().await.emit(qr("2@again,abc,def"));
    a.update_where(conn, |u| {
        u.status == ConnectionStatus::Qrcode && u.qrcode.starts_with("data:")
    })
    .await;
    a.supervisor.shutdown_all().await;
}

/// A second process does not run a connection the first holds; it runs it once the first
/// gives it up, and its first update does not speak of a lost lease (it was handed over).
async fn a_held_connection_is_not_run_by_another_process(w: World) {
    let a = w.process("server-a");
    let b = w.process("server-b");
    let conn = w.connection();
    a.supervisor.start(w.scope, conn, None);
    let run = a.next_run().await;
    run.connect();
    a.status(conn, ConnectionStatus::Connected).await;

    assert!(b.supervisor.start(w.scope, conn, None));
    idle(Duration::from_secs(120)).await;
    assert!(b.factory.sessions().is_empty(), "held by server-a");
    assert!(b.supervisor.is_running(conn), "server-b keeps trying");
    assert!(b.supervisor.client(conn).is_none());
    assert!(b.updates(conn).is_empty(), "server-b says nothing about it");
    let err = b
        .supervisor
        .request_pair_code(w.scope, conn, "5511999990000")
        .await
        .expect_err("another process runs it");
    assert_eq!(err.code, chatflow_core::ErrorCode::ERR_WAPP_NOT_INITIALIZED);

    // server-a goes away gracefully: it keeps the status (it reports nothing on its way out;
    // the stored status is not read here, since server-b may already be taking over) and
    // releases the lease.
    a.supervisor.shutdown_all().await;
    assert_eq!(run.ended(), Some(FakeEnd::Shutdown));
    assert_eq!(
        a.updates(conn).last().map(|u| u.status),
        Some(ConnectionStatus::Connected)
    );
    let handed = b.next_run().await;
    let first = b.status(conn, ConnectionStatus::Opening).await;
    assert_eq!(first.reason, None);
    assert_eq!(
        w.lease(conn).await.expect("leased").owner.as_deref(),
        Some("server-b")
    );
    handed.connect();
    b.status(conn, ConnectionStatus::Connected).await;
    b.supervisor.shutdown_all().await;
}

/// A process that stops renewing (frozen past its lease) is taken over by another process's
/// scan; when it wakes up its renewal is refused, its session is aborted without a word, and
/// its late key write is refused by the fence.
async fn a_silent_owner_is_taken_over_and_fenced(w: World) {
    let a = w.process("server-a");
    let b = w.process("server-b");
    let conn = w.connection();
    a.supervisor.start(w.scope, conn, None);
    let old = a.next_run().await;
    old.connect();
    a.status(conn, ConnectionStatus::Connected).await;
    write_key(&old, "111:1@s.whatsapp.net")
        .await
        .expect("written under the lease");
    idle(Duration::from_secs(60)).await;
    assert!(b.factory.sessions().is_empty(), "renewed: not claimable");
    let reports_before = a.updates(conn).len();

    a.freeze(true);
    w.clock.advance(TimeDelta::seconds(31));
    let new = b.next_run().await;
    let taken = b.status(conn, ConnectionStatus::Opening).await;
    assert_eq!(taken.reason, Some(SessionReason::LeaseLost));
    assert_eq!(
        w.lease(conn).await.expect("leased").owner.as_deref(),
        Some("server-b")
    );
    assert_eq!(old.ended(), None, "server-a is frozen, its session with it");

    a.freeze(false);
    assert_eq!(
        tokio::time::timeout(PATIENCE, old.wait_ended())
            .await
            .expect("aborted in time"),
        FakeEnd::Aborted
    );
    a.stopped(conn, "server-a").await;
    let err = write_key(&old, "222:1@s.whatsapp.net")
        .await
        .expect_err("the fence refuses the old token");
    assert!(format!("{err}").contains("ERR_CHANNEL_LEASE_LOST"), "{err}");
    assert!(a.supervisor.client(conn).is_none());
    assert_eq!(
        a.updates(conn).len(),
        reports_before,
        "the loser reports nothing"
    );
    // The new owner runs on.
    new.connect();
    b.status(conn, ConnectionStatus::Connected).await;
    write_key(&new, "333:1@s.whatsapp.net")
        .await
        .expect("the new owner writes");
    b.supervisor.shutdown_all().await;
    a.supervisor.shutdown_all().await;
}

/// The watchdog restarts a connected session whose frames advance while no message arrives for
/// the deaf window; one that receives nothing at all is left to the library's keepalive.
async fn the_watchdog_restarts_a_deaf_session(w: World) {
    let config = SupervisorConfig {
        deaf_after: Duration::from_secs(30 * 60),
        ..SupervisorConfig::default()
    };
    let a = w.process_with("server-a", config);
    let conn = w.connection();
    a.supervisor.start(w.scope, conn, None);
    let deaf = a.next_run().await;
    deaf.connect();
    a.status(conn, ConnectionStatus::Connected).await;
    let connected_at = Instant::now();
    // Nothing at all for an hour: not deafness.
    idle(Duration::from_secs(60 * 60)).await;
    assert_eq!(a.factory.sessions().len(), 1);
    // Frames keep coming (the keepalive's pongs), messages do not.
    deaf.client().set_stats(SessionStats {
        frames_received: 500,
        ..SessionStats::default()
    });
    let fresh = a.next_run().await;
    assert!(connected_at.elapsed() <= Duration::from_secs(60 * 60 + 61));
    assert_eq!(deaf.ended(), Some(FakeEnd::Shutdown));
    let update = a
        .update_where(conn, |u| u.reason == Some(SessionReason::Deaf))
        .await;
    assert_eq!(update.status, ConnectionStatus::Opening);

    // A session that receives messages is left alone.
    fresh.connect();
    a.status(conn, ConnectionStatus::Connected).await;
    for minute in 1..=90u64 {
        fresh.client().set_stats(SessionStats {
            frames_received: minute * 10,
            messages_received: minute,
            ..SessionStats::default()
        });
        idle(Duration::from_secs(60)).await;
    }
    assert_eq!(a.factory.sessions().len(), 2);
    a.supervisor.shutdown_all().await;
}

/// Stop: DISCONNECTED, keys kept, the lease released. Log out: the device unlinked, the keys
/// wiped, DISCONNECTED (logged out); neither is taken over by the scan.
async fn stop_and_logout(w: World) {
    let a = w.process("server-a");
    let (first, second) = (w.connections[0], w.connections[1]);
    a.supervisor.start(w.scope, first, None);
    a.supervisor.start(w.scope, second, None);
    let mut runs = [a.next_run().await, a.next_run().await];
    runs.sort_by_key(|run| run.connection.0);
    let [one, two] = runs;
    for run in [&one, &two] {
        run.connect();
        a.status(run.connection, ConnectionStatus::Connected).await;
        write_key(run, "111:1@s.whatsapp.net")
            .await
            .expect("written");
    }

    a.supervisor
        .stop(w.scope, first, Stop::Shutdown)
        .await
        .expect("stopped");
    assert_eq!(one.ended(), Some(FakeEnd::Shutdown));
    let update = a.status(first, ConnectionStatus::Disconnected).await;
    assert_eq!(update.reason, None);
    assert!(w.key_rows(first).await > 0, "a stop keeps the keys");
    assert_eq!(w.lease(first).await.expect("leased").owner, None);
    assert!(!a.supervisor.is_running(first));

    a.supervisor
        .stop(w.scope, second, Stop::Logout)
        .await
        .expect("logged out");
    assert!(two.client().calls().contains(&FakeCall::Logout));
    let update = a.status(second, ConnectionStatus::Disconnected).await;
    assert_eq!(update.reason, Some(SessionReason::LoggedOut));
    assert_eq!(w.key_rows(second).await, 0);
    assert!(w.key_rows(first).await > 0, "only that connection's keys");
    assert_eq!(w.lease(second).await.expect("leased").owner, None);

    idle(Duration::from_secs(600)).await;
    assert_eq!(
        a.factory.sessions().len(),
        2,
        "the scan leaves them stopped"
    );
    // A stop of what does not run here does nothing.
    a.supervisor
        .stop(w.scope, first, Stop::Shutdown)
        .await
        .expect("nothing to do");
    assert_eq!(a.factory.sessions().len(), 2);

    // A logout of a stopped connection wipes its keys (no client to unlink the device with).
    let before = a.updates(first).len();
    a.supervisor
        .stop(w.scope, first, Stop::Logout)
        .await
        .expect("logged out");
    assert_eq!(w.key_rows(first).await, 0);
    let after = a.updates(first);
    assert_eq!(after.len(), before + 1);
    assert_eq!(
        after.last().map(|u| (u.status, u.reason.clone())),
        Some((
            ConnectionStatus::Disconnected,
            Some(SessionReason::LoggedOut)
        ))
    );
    assert_eq!(a.factory.sessions().len(), 2, "no session for that");
    assert_eq!(w.lease(first).await.expect("leased").owner, None);

    // A new QR code for a stopped connection starts it afresh.
    write_key(&one, "111:1@s.whatsapp.net")
        .await
        .expect_err("that run's token is stale");
    a.supervisor
        .stop(w.scope, second, Stop::NewQr)
        .await
        .expect("asked for");
    let fresh = a.next_run().await;
    assert_eq!(fresh.connection, second);
    fresh.emit(qr("2@new,abc,def"));
    a.status(second, ConnectionStatus::Qrcode).await;
    a.supervisor.shutdown_all().await;
}

/// A pair code: asked of the running client while a QR code shows (the code is shown once);
/// or the session is started with the number when none runs.
async fn pair_codes(w: World) {
    let a = w.process("server-a");
    let conn = w.connection();
    a.supervisor.start(w.scope, conn, None);
    let run = a.next_run().await;
    run.emit(qr("2@abc,def,ghi"));
    a.status(conn, ConnectionStatus::Qrcode).await;
    run.client().set_pair_code("WXYZ5678");
    a.supervisor
        .request_pair_code(w.scope, conn, "5511999990000")
        .await
        .expect("asked");
    let update = a.status(conn, ConnectionStatus::Pairing).await;
    assert_eq!(update.pairing_code.as_deref(), Some("WXYZ5678"));
    assert_eq!(
        run.client().calls(),
        [FakeCall::PairWithCode {
            phone: "5511999990000".to_owned()
        }]
    );
    let pairing = a
        .updates(conn)
        .into_iter()
        .filter(|u| u.pairing_code.is_some())
        .count();
    assert_eq!(pairing, 1, "announced and answered: shown once");
    assert_eq!(a.factory.sessions().len(), 1, "the same run");

    // A refused number is answered to the caller.
    run.client().fail_next(
        chatflow_whatsapp_web::fake::FakeOp::PairWithCode,
        "bad number",
    );
    a.supervisor
        .request_pair_code(w.scope, conn, "123")
        .await
        .expect_err("refused");

    // Once connected, it is linked already.
    run.connect();
    a.status(conn, ConnectionStatus::Connected).await;
    a.supervisor
        .request_pair_code(w.scope, conn, "5511999990000")
        .await
        .expect_err("linked already");
    a.supervisor
        .stop(w.scope, conn, Stop::Shutdown)
        .await
        .expect("stopped");

    // Not running: started with the number.
    let other = w.connections[1];
    a.supervisor
        .request_pair_code(w.scope, other, "5511888880000")
        .await
        .expect("started");
    let run = a.next_run().await;
    assert_eq!(run.connection, other);
    assert_eq!(run.pair_phone.as_deref(), Some("5511888880000"));
    a.supervisor.shutdown_all().await;
}

/// Connections started together open one start slot apart (250 ms).
async fn starts_are_staggered(w: World) {
    let a = w.process("server-a");
    let began = Instant::now();
    for conn in &w.connections {
        a.supervisor.start(w.scope, *conn, None);
    }
    for expected in [0, 250, 500] {
        a.next_run().await;
        let offset = began.elapsed().as_millis();
        // (The paused clock moves in whole milliseconds.)
        assert!((expected..=expected + 1).contains(&offset), "{offset} ms");
    }
    a.supervisor.shutdown_all().await;
    for conn in &w.connections {
        assert_eq!(
            w.lease(*conn).await.expect("leased").owner,
            None,
            "released"
        );
    }
    // Nothing starts after the shutdown.
    assert!(!a.supervisor.start(w.scope, w.connections[0], None));
}

// ---------------------------------------------------------------------- the provider

fn receipt(kind: ReceiptType, id: &str) -> Event {
    let from: Jid = "5511999990000@s.whatsapp.net".parse().expect("a jid");
    Event::Receipt(
        Receipt::builder()
            .source(MessageSource {
                chat: from.clone(),
                sender: from,
                ..Default::default()
            })
            .message_ids(vec![id.to_owned()])
            .timestamp(Utc::now())
            .r#type(kind)
            .offline(false)
            .build(),
    )
}

/// A part of the phone's history reaches the sink as one `History` event with its messages, in
/// its place among the run's other events.
async fn a_history_sync_is_delivered_as_one_chunk_in_order(w: World) {
    let p = w.provider("server-a");
    p.attach();
    let conn = w.connection();
    p.provider.start(w.scope, conn).await.expect("started");
    let run = p.next_run().await;
    run.connect();
    p.connected(conn).await;

    let ana: Jid = "5511999990000@s.whatsapp.net".parse().expect("a jid");
    let at = Utc::now() - TimeDelta::days(30);
    let at = chrono::DateTime::from_timestamp(at.timestamp(), 0).expect("a time");
    run.emit(receipt(ReceiptType::Delivered, "3EB0SENT"));
    run.emit(history_sync(
        [
            HistoryMessage::text(&ana, "3EB0OLD1", "um", at).named("Ana"),
            HistoryMessage::text(&ana, "3EB0OLD2", "dois", at).from_me(),
        ],
        Some(100),
    ));
    run.emit(receipt(ReceiptType::Read, "3EB0SENT"));

    let events = p.events(conn, 3).await;
    assert!(
        matches!(&events[0], InboundEvent::Ack { external_id, ack: 2 } if external_id == "3EB0SENT"),
        "{:?}",
        events[0]
    );
    let InboundEvent::History(HistoryChunk {
        messages, progress, ..
    }) = &events[1]
    else {
        panic!("expected the history, got {:?}", events[1]);
    };
    assert_eq!(*progress, Some(100));
    let summary: Vec<(&str, &str, &str, bool)> = messages
        .iter()
        .map(|m| {
            (
                m.external_id.as_str(),
                m.chat.as_str(),
                m.body.as_str(),
                m.from_me,
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            ("3EB0OLD1", "5511999990000", "um", false),
            ("3EB0OLD2", "5511999990000", "dois", true)
        ]
    );
    assert_eq!(messages[0].timestamp, at);
    assert!(
        matches!(&events[2], InboundEvent::Ack { external_id, ack: 3 } if external_id == "3EB0SENT"),
        "{:?}",
        events[2]
    );
    // One chunk, once.
    idle(Duration::from_secs(60)).await;
    assert_eq!(p.events(conn, 3).await.len(), 3);
    p.provider.shutdown().await;
}

/// The chats the provider lists for the contacts import of `connection` once there are
/// `count` of them, as (number, name) (waits on the paused clock, at most [`PATIENCE`]).
async fn chats_when(
    provider: &WaProvider,
    scope: TenantScope,
    connection: WhatsappId,
    count: usize,
) -> Vec<(String, String)> {
    let deadline = Instant::now() + PATIENCE;
    loop {
        let chats = provider
            .list_chats(scope, connection)
            .await
            .expect("listed");
        if chats.len() >= count || Instant::now() >= deadline {
            return chats.into_iter().map(|c| (c.number, c.name)).collect();
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// What the phone syncs (its address book, its chats' history, push names) becomes the chats
/// the provider lists for the contacts import, oldest first: the address book's names over push
/// names, a LID contact by its number, groups and our own number left out. Any process lists
/// them (the session runs in another); a logout wipes them with the keys.
async fn the_phones_contacts_are_listed_for_the_import(w: World) {
    let p = w.provider("server-a");
    p.attach();
    let conn = w.connection();
    // Never synced: no chats, no error.
    assert_eq!(chats_when(&p.provider, w.scope, conn, 0).await, []);

    p.provider.start(w.scope, conn).await.expect("started");
    let run = p.next_run().await;
    // Our identity as the pairing stored it, and a LID whose number the session learned.
    run.backend.create().await.expect("device");
    let mut device = run.backend.load().await.expect("load").expect("created");
    device.pn = Some("5511988887777@s.whatsapp.net".parse().expect("a jid"));
    device.lid = Some("99887766@lid".parse().expect("a lid"));
    run.backend.save(&device).await.expect("saved");
    run.backend
        .put_lid_mapping(&LidPnMappingEntry {
            lid: "555000111".to_owned(),
            phone_number: "5511955554444".to_owned(),
            created_at: 1,
            updated_at: 1,
            learning_source: "usync".to_owned(),
        })
        .await
        .expect("mapping");
    run.connect();
    p.connected(conn).await;

    let day = |d: i64| DateTime::from_timestamp(1_770_000_000 + d * 86_400, 0).expect("a time");
    let jid = |text: &str| -> Jid { text.parse().expect("a jid") };
    let ana = jid("5511999990000@s.whatsapp.net");
    run.emit(contact_update(
        &ana,
        Some("Ana Souza"),
        Some("Ana"),
        None,
        day(1),
    ));
    run.emit(contact_update(
        &jid("123456789012345@lid"),
        None,
        Some("Bruno"),
        Some(&jid("5511977776666@s.whatsapp.net")),
        day(2),
    ));
    run.emit(contact_update(
        &jid("555000111@lid"),
        Some("Carla"),
        None,
        None,
        day(3),
    ));
    run.emit(contact_update(
        &jid("120363000000000001@g.us"),
        Some("Equipe"),
        None,
        None,
        day(1),
    ));
    run.emit(contact_update(
        &jid("5511988887777@s.whatsapp.net"),
        Some("Eu"),
        None,
        None,
        day(1),
    ));
    run.emit(push_name_update(&ana, &ana, "Aninha", day(4)));
    let duda = jid("5511944443333@s.whatsapp.net");
    run.emit(
        FakeHistory::new()
            .chat_name(&duda, "Duda")
            .chat_at(&duda, day(5))
            .event(),
    );
    let expected: Vec<(String, String)> = [
        ("5511999990000", "Ana Souza"),
        ("5511977776666", "Bruno"),
        ("5511955554444", "Carla"),
        ("5511944443333", "Duda"),
    ]
    .iter()
    .map(|(n, name)| ((*n).to_owned(), (*name).to_owned()))
    .collect();
    assert_eq!(chats_when(&p.provider, w.scope, conn, 4).await, expected);
    // The push name never replaces the address book's name, even later on.
    idle(Duration::from_secs(5)).await;
    assert_eq!(chats_when(&p.provider, w.scope, conn, 4).await, expected);

    // Another process, which does not run the session, lists the same.
    let q = w.provider("server-b");
    q.attach();
    assert!(!q.supervisor().is_running(conn));
    assert_eq!(chats_when(&q.provider, w.scope, conn, 4).await, expected);

    // Logging out wipes the directory with the keys.
    p.provider
        .disconnect(w.scope, conn)
        .await
        .expect("logged out");
    assert_eq!(chats_when(&p.provider, w.scope, conn, 0).await, []);
    p.provider.shutdown().await;
    q.provider.shutdown().await;
}

/// The end of WhatsApp's offline backlog reaches the sink as `CaughtUp`, after the backlog's
/// messages (committed through the durability hook) and its receipts, on the connection's lane
/// only.
async fn the_end_of_the_offline_backlog_is_caught_up_after_it(w: World) {
    let p = w.provider("server-a");
    p.attach();
    let (conn, other) = (w.connections[0], w.connections[1]);
    p.provider.start(w.scope, conn).await.expect("started");
    let run = p.next_run().await;
    run.connect();
    p.connected(conn).await;

    let ana: Jid = "5511999990000@s.whatsapp.net".parse().expect("a jid");
    run.ingestor
        .commit(&[text_from(&ana, "3EB0AWAY", "while you were away", "Ana")])
        .await
        .expect("the backlog's message is committed");
    run.emit(receipt(ReceiptType::Read, "3EB0SENT"));
    assert!(run.caught_up(2));

    let events = p.events(conn, 3).await;
    assert!(
        matches!(&events[0], InboundEvent::Message(m) if m.external_id == "3EB0AWAY"),
        "{:?}",
        events[0]
    );
    assert!(
        matches!(&events[1], InboundEvent::Ack { external_id, ack: 3 } if external_id == "3EB0SENT"),
        "{:?}",
        events[1]
    );
    assert_eq!(events[2], InboundEvent::CaughtUp);
    idle(Duration::from_secs(60)).await;
    assert_eq!(p.events(conn, 3).await.len(), 3, "once");
    assert!(p.events.borrow().iter().all(|(id, _)| *id != other));
    p.provider.shutdown().await;
}

fn history_request(chat: &str, is_group: bool, at: DateTime<Utc>) -> HistoryRequest {
    HistoryRequest {
        chat: chat.to_owned(),
        is_group,
        anchor_external_id: "3EB0ANCHOR".to_owned(),
        anchor_from_me: true,
        anchor_time: at,
        count: 50,
    }
}

/// A history request asks the phone for the chat's messages before the anchor: a group by its
/// address, a person by the LID the phone keys their chat by when the session knows it, else by
/// number.
async fn a_history_request_asks_the_phone_before_the_anchor(w: World) {
    let p = w.provider("server-a");
    p.attach();
    let conn = w.connection();
    p.provider.start(w.scope, conn).await.expect("started");
    let run = p.next_run().await;
    run.connect();
    p.connected(conn).await;
    let client = run.client();
    let ana: Jid = "5511999990000@s.whatsapp.net".parse().expect("a jid");
    let ana_lid: Jid = "123456789012345@lid".parse().expect("a lid");
    client.set_chat_lid(&ana, &ana_lid);
    let at = DateTime::from_timestamp_millis(1_760_000_000_123).expect("a time");

    for (chat, is_group) in [
        ("5511999990000", false),
        ("5511888880000", false),
        ("120363000000000001@g.us", true),
        ("123456789012345@lid", false),
    ] {
        p.provider
            .request_history(w.scope, conn, &history_request(chat, is_group, at))
            .await
            .expect("asked");
    }
    let asked: Vec<(String, String, bool, i64, i32)> = client
        .history_requests()
        .into_iter()
        .map(|ask| {
            (
                ask.chat.to_string(),
                ask.anchor_id,
                ask.anchor_from_me,
                ask.anchor_time_ms,
                ask.count,
            )
        })
        .collect();
    let expected = |chat: &str| {
        (
            chat.to_owned(),
            "3EB0ANCHOR".to_owned(),
            true,
            1_760_000_000_123,
            50,
        )
    };
    assert_eq!(
        asked,
        [
            expected("123456789012345@lid"),
            expected("5511888880000@s.whatsapp.net"),
            expected("120363000000000001@g.us"),
            expected("123456789012345@lid"),
        ]
    );
    p.provider.shutdown().await;
}

/// The phone's answer (an `ON_DEMAND` history sync) reaches the sink as a history chunk marked
/// on demand, though the connection's import of old messages is off.
async fn the_phones_answer_is_delivered_on_demand_with_the_import_off(w: World) {
    let p = w.provider("server-a");
    p.attach();
    let conn = w.connection();
    p.provider.start(w.scope, conn).await.expect("started");
    let run = p.next_run().await;
    assert!(!run.full_history, "the import is off");
    run.connect();
    p.connected(conn).await;

    let ana: Jid = "5511999990000@s.whatsapp.net".parse().expect("a jid");
    let ana_lid: Jid = "123456789012345@lid".parse().expect("a lid");
    let at = DateTime::from_timestamp(Utc::now().timestamp() - 3600, 0).expect("a time");
    // The phone keys the chat by the LID and tells the number beside it.
    run.client().answer_history(
        FakeHistory::on_demand()
            .message(
                HistoryMessage::text(&ana_lid, "3EB0MISSED", "lost in the gap", at).named("Ana"),
            )
            .lid_mapping(&ana_lid, &ana),
    );
    p.provider
        .request_history(w.scope, conn, &history_request("5511999990000", false, at))
        .await
        .expect("asked");

    let events = p.events(conn, 1).await;
    let InboundEvent::History(chunk) = &events[0] else {
        panic!("expected the history, got {:?}", events[0]);
    };
    assert!(chunk.on_demand);
    let summary: Vec<(&str, &str, &str, &[String])> = chunk
        .messages
        .iter()
        .map(|m| {
            (
                m.external_id.as_str(),
                m.chat.as_str(),
                m.body.as_str(),
                m.aliases.as_slice(),
            )
        })
        .collect();
    assert_eq!(
        summary,
        [(
            "3EB0MISSED",
            "5511999990000",
            "lost in the gap",
            &["123456789012345@lid".to_owned()][..]
        )]
    );
    p.provider.shutdown().await;
}

/// A history request needs the connected session of this process.
async fn a_history_request_needs_the_connected_session(w: World) {
    let p = w.provider("server-a");
    let conn = w.connection();
    let at = Utc::now();
    let request = history_request("5511999990000", false, at);
    let not_live = p
        .provider
        .request_history(w.scope, conn, &request)
        .await
        .expect_err("not live yet");
    assert_eq!(not_live.code, ErrorCode::ERR_WAPP_NOT_INITIALIZED);
    p.attach();
    let not_running = p
        .provider
        .request_history(w.scope, conn, &request)
        .await
        .expect_err("no session");
    assert_eq!(not_running.code, ErrorCode::ERR_WAPP_NOT_INITIALIZED);
    p.provider.start(w.scope, conn).await.expect("started");
    let run = p.next_run().await;
    let not_connected = p
        .provider
        .request_history(w.scope, conn, &request)
        .await
        .expect_err("not connected");
    assert_eq!(not_connected.code, ErrorCode::ERR_WAPP_NOT_INITIALIZED);
    assert!(run.client().history_requests().is_empty());
    p.provider.shutdown().await;
}

fn read(id: &str, participant: Option<&str>) -> ReadMessage {
    ReadMessage {
        external_id: id.to_owned(),
        participant: participant.map(str::to_owned),
    }
}

/// Reading a ticket tells the phone: one receipt for a one-to-one chat, and in a group one per
/// writer naming that writer's messages (a message without its writer is left out).
async fn read_receipts_go_per_writer_in_a_group(w: World) {
    let p = w.provider("server-a");
    p.attach();
    let conn = w.connection();
    p.provider.start(w.scope, conn).await.expect("started");
    let run = p.next_run().await;
    run.connect();
    p.connected(conn).await;

    p.provider
        .mark_read(
            w.scope,
            conn,
            "5511999990000",
            &[read("3EB0A", None), read("3EB0B", None)],
        )
        .await
        .expect("one-to-one");
    p.provider
        .mark_read(
            w.scope,
            conn,
            "120363000000000001@g.us",
            &[
                read("3EB0G1", Some("5511888880000")),
                read("3EB0G2", Some("123456789012345@lid")),
                read("3EB0G3", Some("5511888880000")),
                read("3EB0G4", None),
            ],
        )
        .await
        .expect("a group");
    p.provider
        .mark_read(
            w.scope,
            conn,
            "120363000000000001@g.us",
            &[read("3EB0G5", None)],
        )
        .await
        .expect("nothing to tell");

    let jid = |s: &str| s.parse::<Jid>().expect("a jid");
    let group = jid("120363000000000001@g.us");
    let reads: Vec<FakeCall> = run
        .client()
        .calls()
        .into_iter()
        .filter(|c| matches!(c, FakeCall::MarkRead { .. }))
        .collect();
    assert_eq!(
        reads,
        [
            FakeCall::MarkRead {
                chat: jid("5511999990000@s.whatsapp.net"),
                sender: None,
                ids: vec!["3EB0A".into(), "3EB0B".into()],
            },
            FakeCall::MarkRead {
                chat: group.clone(),
                sender: Some(jid("5511888880000@s.whatsapp.net")),
                ids: vec!["3EB0G1".into(), "3EB0G3".into()],
            },
            FakeCall::MarkRead {
                chat: group,
                sender: Some(jid("123456789012345@lid")),
                ids: vec!["3EB0G2".into()],
            },
        ]
    );
    p.provider.shutdown().await;
}

/// `want_history` decides whether the next runs ask for the whole history; a wish told before the
/// provider is live counts too.
async fn want_history_sets_the_next_runs_flag(w: World) {
    let p = w.provider("server-a");
    let (conn, other) = (w.connections[0], w.connections[1]);
    p.provider
        .want_history(w.scope, conn, true)
        .await
        .expect("remembered before the provider is live");
    p.attach();
    p.provider.start(w.scope, conn).await.expect("started");
    assert!(p.next_run().await.full_history, "the wish told early");
    p.provider.start(w.scope, other).await.expect("started");
    assert!(!p.next_run().await.full_history, "nobody asked for it");

    p.provider
        .want_history(w.scope, conn, false)
        .await
        .expect("remembered");
    p.provider.start(w.scope, conn).await.expect("restarted");
    assert!(!p.next_run().await.full_history, "turned off");
    p.provider
        .want_history(w.scope, conn, true)
        .await
        .expect("remembered");
    p.provider
        .new_qr(w.scope, conn)
        .await
        .expect("a new QR code");
    assert!(p.next_run().await.full_history, "turned on again");
    assert!(p.supervisor().wants_full_history(conn));
    assert!(!p.supervisor().wants_full_history(other));
    p.provider.shutdown().await;
}

/// A connection another process takes over asks for the whole history when its own settings
/// have the import on (nobody told the new owner).
async fn a_taken_over_connection_asks_for_the_whole_history_by_its_settings(w: World) {
    let conn = w.connection();
    let (from, to) = (Utc::now() - TimeDelta::days(90), Utc::now());
    let store = w.store.clone();
    w.on_store(move || async move {
        chatflow_store::on_pool!(store.pool(), |p| {
            sqlx::query(
                "UPDATE whatsapps SET enable_import_message = TRUE, import_old_messages = $1, \
                 import_recent_messages = $2 WHERE id = $3",
            )
            .bind(from)
            .bind(to)
            .bind(conn.0)
            .execute(p)
            .await
            .expect("import turned on")
            .rows_affected()
        });
    })
    .await;
    let a = w.process("server-a");
    let b = w.process("server-b");
    a.supervisor.start(w.scope, conn, None);
    let first = a.next_run().await;
    assert!(!first.full_history, "server-a was not told");
    first.connect();
    a.status(conn, ConnectionStatus::Connected).await;
    a.freeze(true);
    w.clock.advance(TimeDelta::seconds(31));
    let taken = b.next_run().await;
    assert!(taken.full_history);
    assert!(b.supervisor.wants_full_history(conn));
    a.freeze(false);
    b.supervisor.shutdown_all().await;
    a.supervisor.shutdown_all().await;
}

engine_tests!(
    the_phones_contacts_are_listed_for_the_import,
    the_end_of_the_offline_backlog_is_caught_up_after_it,
    a_history_request_asks_the_phone_before_the_anchor,
    the_phones_answer_is_delivered_on_demand_with_the_import_off,
    a_history_request_needs_the_connected_session,
    read_receipts_go_per_writer_in_a_group,
    a_history_sync_is_delivered_as_one_chunk_in_order,
    want_history_sets_the_next_runs_flag,
    a_taken_over_connection_asks_for_the_whole_history_by_its_settings,
    a_qr_code_then_pairing_connects_with_the_number,
    a_run_that_ends_is_rebuilt_after_the_backoff,
    a_restart_awaits_the_old_run_before_the_next,
    no_rebuild_after_the_stream_was_replaced,
    no_rebuild_after_a_logout_and_the_keys_are_wiped,
    no_rebuild_after_an_outdated_client,
    a_ban_shows_until_when,
    qr_codes_running_out_is_a_timeout,
    a_held_connection_is_not_run_by_another_process,
    a_silent_owner_is_taken_over_and_fenced,
    the_watchdog_restarts_a_deaf_session,
    stop_and_logout,
    pair_codes,
    starts_are_staggered,
);
