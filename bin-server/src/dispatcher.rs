//! The realtime dispatcher: tails each company's event log and emits new events to the sockets
//! that may receive them.
//!
//! Every write appends its events ([`chatflow_core::events::Event`], one typed model for every
//! feature) to the log in its own transaction (`chatflow_store`'s outbox), so every event a
//! client receives carries its company's `seq` and none is lost after a commit.
//!
//! One task ([`start`]) knows each company's last emitted sequence number. It is woken in
//! process after writes ([`Realtime::wake`]: every mutating HTTP request and the socket's own
//! writes poke it) and
//! also polls [`EventLog::heads`] every [`POLL`], which catches writes by the CLI or another
//! server. For each company that moved it reads the new events in order and, for every socket of
//! the company, emits the event only when the socket's user may see it
//! ([`chatflow_core::events::Event::visible_to`]) and in the form that user receives
//! ([`chatflow_core::events::Event::for_recipient`], LGPD masking). It matches on the event's
//! type: a settings event drops the cached settings before it goes out, a user event refreshes
//! that user's sockets after. At start it begins from the current heads:
//! old events are not emitted again (clients ask for them with `sync`).
//!
//! A background task ([`spawn_pruner`]) trims the log every hour.

use std::collections::HashMap;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::Response;
use chatflow_core::events::{RecipientSettings, StoredEvent};
use chatflow_core::identity::Actor;
use chatflow_core::ids::{CompanyId, TenantScope, UserId};

use chatflow_core::service::Ports;
use serde_json::Value;
use socketioxide::SocketIo;
use socketioxide::extract::SocketRef;
use tokio::sync::{Notify, watch};

use crate::realtime::{SocketActor, company_room, room_for, user_room};
use crate::state::AppState;

/// How often the dispatcher polls the companies' heads when nothing woke it.
pub const POLL: Duration = Duration::from_millis(250);
/// Events read per company per query.
const BATCH: u32 = 500;
/// How long a company's cached LGPD settings are trusted without a settings event.
const SETTINGS_TTL: Duration = Duration::from_secs(5);
/// How often the log is pruned.
const PRUNE_EVERY: Duration = Duration::from_secs(3600);
/// Events younger than this are kept.
const KEEP_HOURS: i64 = 24;
/// Packets a socket may have waiting before emits to it fail.
pub const SOCKET_BUFFER: usize = 4096;
/// The newest events kept per company whatever their age.
pub const KEEP_PER_COMPANY: u32 = 10_000;

/// The dispatcher's shared handle: wake it, ask what it emitted, stop it.
#[derive(Clone)]
pub struct Realtime {
    inner: Arc<Inner>,
}

struct Inner {
    wake: Notify,
    stop: watch::Sender<bool>,
    stopped: AtomicBool,
    /// Each company's last sequence number emitted to sockets.
    emitted: Mutex<HashMap<CompanyId, i64>>,
}

impl std::fmt::Debug for Realtime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Realtime")
            .field("stopped", &self.inner.stopped.load(Ordering::Relaxed))
            .finish_non_exhaustive()
    }
}

impl Default for Realtime {
    fn default() -> Self {
        Self::new()
    }
}

impl Realtime {
    /// A handle with nothing emitted yet.
    pub fn new() -> Self {
        Self {
            inner: Arc::new(Inner {
                wake: Notify::new(),
                stop: watch::Sender::new(false),
                stopped: AtomicBool::new(false),
                emitted: Mutex::new(HashMap::new()),
            }),
        }
    }

    /// Tells the dispatcher new events may be in the log (cheap; wakes coalesce).
    pub fn wake(&self) {
        self.inner.wake.notify_one();
    }

    /// The company's last sequence number emitted to sockets: every later event will still be
    /// emitted live to the sockets connected now.
    pub fn emitted(&self, company: CompanyId) -> i64 {
        self.lock().get(&company).copied().unwrap_or(0)
    }

    /// Stops the dispatcher and the pruner.
    pub fn shutdown(&self) {
        self.inner.stopped.store(true, Ordering::SeqCst);
        self.inner.stop.send_replace(true);
        self.inner.wake.notify_one();
    }

    fn stopped(&self) -> bool {
        self.inner.stopped.load(Ordering::SeqCst)
    }

    /// Completes when the server shuts down (for the other background workers).
    pub fn stop_signal(&self) -> impl std::future::Future<Output = ()> + Send + 'static {
        let mut stop = self.inner.stop.subscribe();
        async move {
            let _ = stop.wait_for(|stopped| *stopped).await;
        }
    }

    fn set_emitted(&self, company: CompanyId, seq: i64) {
        self.lock().insert(company, seq);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<CompanyId, i64>> {
        // The map holds plain numbers: a panic elsewhere cannot leave it half-written.
        self.inner
            .emitted
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Waits for a wake-up, `wait` or shutdown.
    async fn idle(&self, wait: Duration, stop: &mut watch::Receiver<bool>) {
        if self.stopped() {
            return;
        }
        tokio::select! {
            _ = self.inner.wake.notified() => {}
            _ = stop.wait_for(|stopped| *stopped) => {}
            _ = tokio::time::sleep(wait) => {}
        }
    }
}

/// Middleware: after every request that may have written (anything but GET, HEAD, OPTIONS),
/// wake the dispatcher so the events the write appended go out at once.
pub async fn wake_after_writes(
    State(state): State<AppState>,
    request: Request,
    next: Next,
) -> Response {
    let writes = !matches!(
        *request.method(),
        axum::http::Method::GET | axum::http::Method::HEAD | axum::http::Method::OPTIONS
    );
    let response = next.run(request).await;
    if writes {
        state.realtime.wake();
    }
    response
}

/// The recipient settings of a company, read from its stored settings.
pub async fn recipient_settings(ports: &Ports, company: CompanyId) -> RecipientSettings {
    match ports
        .settings
        .company_settings(TenantScope::new(company))
        .await
    {
        Ok(stored) => RecipientSettings::from_company_settings(&stored),
        Err(e) => {
            tracing::warn!(%company, "cannot read the company settings: {e}");
            // Unknown: mask rather than leak.
            RecipientSettings { hide_numbers: true }
        }
    }
}

/// The payload `actor` receives for `event`, or `None` when the actor may not see it. A panic
/// of the rules (a bug) drops the event for that socket instead of the dispatcher.
pub fn payload_for(
    event: &StoredEvent,
    actor: &Actor,
    settings: RecipientSettings,
) -> Option<Value> {
    if actor.company_id != event.company_id {
        return None;
    }
    std::panic::catch_unwind(AssertUnwindSafe(|| {
        event
            .event
            .visible_to(actor)
            .then(|| event.event.for_recipient(actor, settings, event.seq))
    }))
    .unwrap_or_else(|_| {
        tracing::error!(company = %event.company_id, seq = event.seq, "the event rules panicked");
        None
    })
}

/// Starts the dispatcher over `io`, reading through `ports`, until `realtime` shuts down. The
/// current heads are read before this returns: every event appended afterwards is emitted.
pub async fn start(
    realtime: Realtime,
    io: SocketIo,
    ports: Ports,
) -> chatflow_core::Result<tokio::task::JoinHandle<()>> {
    let last: HashMap<CompanyId, i64> = ports.event_log.heads().await?.into_iter().collect();
    for (company, seq) in &last {
        realtime.set_emitted(*company, *seq);
    }
    Ok(tokio::spawn(async move {
        Dispatcher {
            realtime,
            io,
            ports,
            settings: HashMap::new(),
        }
        .run(last)
        .await;
    }))
}

struct Dispatcher {
    realtime: Realtime,
    io: SocketIo,
    ports: Ports,
    /// Each company's LGPD settings and when they were read.
    settings: HashMap<CompanyId, (RecipientSettings, Instant)>,
}

impl Dispatcher {
    async fn run(mut self, mut last: HashMap<CompanyId, i64>) {
        let mut stop = self.realtime.inner.stop.subscribe();
        loop {
            self.realtime.idle(POLL, &mut stop).await;
            if self.realtime.stopped() {
                return;
            }
            let heads = match self.ports.event_log.heads().await {
                Ok(heads) => heads,
                Err(e) => {
                    tracing::warn!("the dispatcher cannot read the event heads: {e}");
                    continue;
                }
            };
            for (company, head) in heads {
                // A company that appeared after the start: all its events are new.
                let from = last.entry(company).or_insert(0);
                if head <= *from {
                    continue;
                }
                if self.io.within(company_room(company)).sockets().is_empty() {
                    // Nobody listens: skip the reads. A socket that connects later starts from
                    // here and finds the skipped events with `sync`.
                    *from = head;
                    self.realtime.set_emitted(company, head);
                    self.settings.remove(&company);
                } else {
                    *from = self.catch_up(company, *from).await;
                }
            }
        }
    }

    /// Emits the company's events after `from`; returns the last one emitted.
    async fn catch_up(&mut self, company: CompanyId, mut from: i64) -> i64 {
        let scope = TenantScope::new(company);
        loop {
            let events = match self.ports.event_log.read(scope, from, BATCH).await {
                Ok(events) => events,
                Err(e) => {
                    tracing::warn!(%company, after = from, "the dispatcher cannot read events: {e}");
                    return from;
                }
            };
            let full = events.len() == BATCH as usize;
            for event in &events {
                self.before_emit(event).await;
                let settings = self.settings_of(company).await;
                emit(&self.io, event, settings);
                from = event.seq;
                self.realtime.set_emitted(company, from);
                self.after_emit(event).await;
            }
            if !full {
                return from;
            }
        }
    }

    /// Keeps the cached state right before an event goes out: new settings apply to the event
    /// that announces them.
    async fn before_emit(&mut self, event: &StoredEvent) {
        if event.event.changes_settings() {
            self.settings.remove(&event.company_id);
        }
    }

    /// After a user event, refreshes the actor stored on that user's sockets (profile, queues
    /// and flags decide visibility); a deleted user's sockets are closed.
    async fn after_emit(&mut self, event: &StoredEvent) {
        if let Some(user) = event.event.changed_user() {
            refresh_user(&self.io, &self.ports, event.company_id, user).await;
        }
    }

    async fn settings_of(&mut self, company: CompanyId) -> RecipientSettings {
        if let Some((settings, at)) = self.settings.get(&company)
            && at.elapsed() < SETTINGS_TTL
        {
            return *settings;
        }
        let settings = recipient_settings(&self.ports, company).await;
        self.settings.insert(company, (settings, Instant::now()));
        settings
    }
}

/// Emits one event to the sockets of its room that may see it.
fn emit(io: &SocketIo, event: &StoredEvent, settings: RecipientSettings) {
    let name = event.event.name(event.company_id);
    let room = room_for(event.company_id, &event.event);
    // When the payload does not vary by recipient, build it once.
    let varies = event.event.varies_by_recipient(settings);
    let mut shared: Option<Option<Value>> = None;
    for socket in io.within(room).sockets() {
        let Some(SocketActor(actor)) = socket.extensions.get::<SocketActor>() else {
            continue;
        };
        let payload = if varies {
            payload_for(event, &actor, settings)
        } else if actor.company_id != event.company_id {
            None
        } else {
            let visible =
                std::panic::catch_unwind(AssertUnwindSafe(|| event.event.visible_to(&actor)))
                    .unwrap_or(false);
            if visible {
                shared
                    .get_or_insert_with(|| payload_for(event, &actor, settings))
                    .clone()
            } else {
                None
            }
        };
        if let Some(payload) = payload
            && let Err(e) = socket.emit(&name, &payload)
        {
            tracing::debug!(sid = %socket.id, event = %name, "emit failed: {e}");
        }
    }
}

/// Re-reads a user and stores the new actor on their sockets; closes them if the user is gone.
pub async fn refresh_user(io: &SocketIo, ports: &Ports, company: CompanyId, user: UserId) {
    let sockets: Vec<SocketRef> = io.within(user_room(company, user)).sockets();
    if sockets.is_empty() {
        return;
    }
    match ports.users.get(TenantScope::new(company), user).await {
        Ok(Some(found)) => {
            let actor = Arc::new(Actor::of(&found));
            for socket in sockets {
                socket.extensions.insert(SocketActor(actor.clone()));
            }
        }
        Ok(None) => {
            for socket in sockets {
                let _ = socket.disconnect();
            }
        }
        Err(e) => tracing::warn!(%company, %user, "cannot refresh a socket's user: {e}"),
    }
}

/// Prunes the log every hour: events older than 24 hours go, but each company keeps at least
/// its newest [`KEEP_PER_COMPANY`].
pub fn spawn_pruner(realtime: Realtime, ports: Ports) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut stop = realtime.inner.stop.subscribe();
        loop {
            tokio::select! {
                _ = stop.wait_for(|stopped| *stopped) => {}
                _ = tokio::time::sleep(PRUNE_EVERY) => {}
            }
            if realtime.stopped() {
                return;
            }
            let before = ports.clock.now() - chrono::Duration::hours(KEEP_HOURS);
            match ports.event_log.prune(before, KEEP_PER_COMPANY).await {
                Ok(pruned) => tracing::debug!(pruned, "pruned the event log"),
                Err(e) => tracing::warn!("cannot prune the event log: {e}"),
            }
        }
    })
}
