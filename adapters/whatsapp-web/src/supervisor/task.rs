//! One connection's task: the lease, the runs, the endings (see the parent module).

use std::collections::VecDeque;
use std::sync::Arc;

use chatflow_core::inbox::lease::LeaseToken;
use chatflow_core::inbox::model::{ConnectionStatus, SessionReason};
use chatflow_core::{Error, ErrorCode, Result, TenantScope, WhatsappId};
use chrono::TimeDelta;
use tokio::sync::{mpsc, oneshot};
use tokio::time::{Instant, Interval, MissedTickBehavior};
use whatsapp_rust::types::events::Event;
use whatsapp_rust::wacore::store::traits::DeviceStore;

use super::backoff::Backoff;
use super::status::{Effect, Tracker};
use super::watchdog::Watchdog;
use super::{Inner, Intent, Live, Stop, not_running_here, should_run, taken_over};
use crate::client::{SessionParams, WaClient, WaSession};
use crate::directory::DirectoryWriter;
use crate::inbound::Ingestor;
use crate::storage::WaBackend;

/// What callers ask of a task.
pub(crate) enum Command {
    Stop(Stop, oneshot::Sender<Result<()>>),
    /// A fresh client on the same keys, at once.
    Restart,
    /// Link by pair code for this number.
    PairCode(String, oneshot::Sender<Result<()>>),
    /// A pair code the client of run `run` answered.
    PairCodeIssued {
        run: u64,
        code: String,
    },
    /// The process is going away: stop, keep the status, release the lease.
    Handover,
}

/// How a task ends.
enum End {
    /// Report `update` (if any), release the lease, then answer `reply`.
    Release {
        update: Option<(ConnectionStatus, Option<SessionReason>)>,
        reply: Option<oneshot::Sender<Result<()>>>,
    },
    /// The lease is another's: say nothing, release nothing.
    Lost,
}

/// What follows a run.
enum Next {
    /// Build the next run after the backoff (reported with this reason, `Reconnecting` if
    /// none).
    Rebuild(Option<SessionReason>),
    /// Build the next run at once, reported with this reason.
    Again(Option<SessionReason>),
    End(End),
}

/// Why a run's event loop stopped.
enum Outcome {
    /// The session's run loop ended by itself.
    Finished,
    /// An event ended the run and it did not stop by itself in time.
    Overdue,
    LeaseLost,
    Deaf,
    /// A command that stops the session gracefully, then this.
    Stop(AfterStop),
}

/// What a command does once the session stopped.
enum AfterStop {
    Shutdown(oneshot::Sender<Result<()>>),
    Logout(oneshot::Sender<Result<()>>),
    NewQr(oneshot::Sender<Result<()>>),
    Restart,
    Handover,
}

/// The lease this task holds.
struct LeaseKeeper {
    token: LeaseToken,
    /// When a renewal last succeeded (tokio's clock).
    renewed: Instant,
    ticks: Interval,
}

/// One connection's task.
pub(crate) struct Task {
    inner: Arc<Inner>,
    scope: TenantScope,
    connection: WhatsappId,
    generation: u64,
    commands: mpsc::UnboundedReceiver<Command>,
    /// For the task's own spawned calls to report back.
    me: mpsc::UnboundedSender<Command>,
    live: Arc<Live>,
    start_at: Instant,
    intent: Option<Intent>,
    /// Commands that came before the lease, handled once it is held.
    pending: VecDeque<Command>,
    pair_phone: Option<String>,
    tracker: Tracker,
    backoff: Backoff,
    watchdog: Watchdog,
    /// The current run's number.
    run: u64,
    /// The token of the lease this task took, once it took it.
    token: Option<LeaseToken>,
    /// The current run's writer of the directory.
    directory: Option<DirectoryWriter>,
}

impl Task {
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        inner: Arc<Inner>,
        scope: TenantScope,
        connection: WhatsappId,
        generation: u64,
        commands: mpsc::UnboundedReceiver<Command>,
        me: mpsc::UnboundedSender<Command>,
        live: Arc<Live>,
        start_at: Instant,
        intent: Intent,
    ) -> Task {
        let config = inner.config().clone();
        Task {
            inner,
            scope,
            connection,
            generation,
            commands,
            me,
            live,
            start_at,
            pair_phone: match &intent {
                Intent::Run { pair_phone, .. } => pair_phone.clone(),
                Intent::Logout(_) => None,
            },
            intent: Some(intent),
            pending: VecDeque::new(),
            tracker: Tracker::new(),
            backoff: Backoff::new(
                config.backoff_first,
                config.backoff_max,
                config.backoff_jitter,
            ),
            watchdog: Watchdog::new(config.deaf_after, config.deaf_factor, start_at),
            run: 0,
            token: None,
            directory: None,
        }
    }
}

/// Runs the task to its end.
pub(crate) async fn run(mut task: Task) {
    let connection = task.connection;
    match task.main().await {
        End::Release { update, reply } => {
            if let Some((status, reason)) = update
                && let Some(update) = task.tracker.set(status, reason, 0)
            {
                task.inner.report(task.scope, connection, update).await;
            }
            task.live.set_client(None);
            task.inner.remove(connection, task.generation);
            task.release().await;
            if let Some(reply) = reply {
                let _ = reply.send(Ok(()));
            }
        }
        End::Lost => {
            task.live.set_client(None);
            task.inner.remove(connection, task.generation);
        }
    }
    tracing::debug!(connection = connection.0, "the connection's task ended");
}

impl Task {
    /// The stagger, the lease, then the runs.
    async fn main(&mut self) -> End {
        // The start slot. Commands wait for the lease, except a handover.
        loop {
            tokio::select! {
                () = tokio::time::sleep_until(self.start_at) => break,
                command = self.commands.recv() => match command {
                    Some(Command::Handover) | None => return End::Lost,
                    Some(command) => self.pending.push_back(command),
                },
            }
        }
        let Some((mut lease, from_another)) = self.acquire().await else {
            return End::Lost;
        };
        match self.intent.take() {
            Some(Intent::Logout(reply)) => {
                self.wipe().await;
                return End::Release {
                    update: Some((
                        ConnectionStatus::Disconnected,
                        Some(SessionReason::LoggedOut),
                    )),
                    reply: Some(reply),
                };
            }
            Some(Intent::Run {
                wipe_first, reply, ..
            }) => {
                if wipe_first {
                    self.wipe().await;
                }
                if let Some(reply) = reply {
                    let _ = reply.send(Ok(()));
                }
            }
            None => {}
        }
        self.runs(&mut lease, from_another).await
    }

    /// Takes the lease, waiting while another process holds it. `None` when the task must end
    /// without it (then it holds nothing): answered meanwhile, or the connection should no
    /// longer run. Also answers whether the lease was taken from an owner whose lease
    /// expired.
    async fn acquire(&mut self) -> Option<(LeaseKeeper, bool)> {
        let inner = self.inner.clone();
        let deps = &inner.deps;
        let config = self.inner.config().clone();
        let ttl = ttl(&config.lease_ttl);
        let mut waited = false;
        loop {
            let now = deps.clock.now();
            let before = deps.leases.lease(self.connection).await.ok().flatten();
            match deps
                .leases
                .acquire(self.connection, &deps.owner, now, ttl)
                .await
            {
                Ok(Some(token)) => {
                    self.token = Some(token);
                    let keeper = LeaseKeeper {
                        token,
                        renewed: Instant::now(),
                        ticks: ticks(config.renew_every),
                    };
                    if waited && !self.still_wanted().await {
                        tracing::info!(
                            connection = self.connection.0,
                            "the connection no longer asks for a session"
                        );
                        self.lease_released(token).await;
                        return None;
                    }
                    // Taken from another owner whose lease had expired (not one that
                    // released it meanwhile: the read and the acquisition are two calls).
                    let from_another = before.is_some_and(|lease| {
                        lease.owner.as_deref().is_some_and(|o| o != deps.owner)
                            && !lease.is_held_at(now)
                            && lease.token < token
                    });
                    return Some((keeper, from_another));
                }
                Ok(None) => {
                    tracing::debug!(
                        connection = self.connection.0,
                        "another process holds the connection"
                    );
                    waited = true;
                    if let Some(Intent::Run {
                        wipe_first: true, ..
                    })
                    | Some(Intent::Logout(_)) = &self.intent
                    {
                        // Wiping under another process's session would corrupt it.
                        self.refuse_intent();
                        return None;
                    }
                    // Commands that came during the stagger are answered now.
                    while let Some(command) = self.pending.pop_front() {
                        if self.while_elsewhere(command) {
                            return None;
                        }
                    }
                }
                Err(error) => {
                    tracing::warn!(connection = self.connection.0, %error, "the lease could not be taken; trying again");
                }
            }
            let deadline = Instant::now() + config.renew_every;
            loop {
                tokio::select! {
                    () = tokio::time::sleep_until(deadline) => break,
                    command = self.commands.recv() => match command {
                        None => return None,
                        Some(Command::Restart) => break,
                        Some(command) => if self.while_elsewhere(command) {
                            return None;
                        },
                    },
                }
            }
        }
    }

    /// A command while another process runs the connection; true when the task ends.
    fn while_elsewhere(&mut self, command: Command) -> bool {
        match command {
            Command::Stop(Stop::Shutdown, reply) => {
                let _ = reply.send(Ok(()));
                true
            }
            Command::Stop(_, reply) => {
                let _ = reply.send(Err(not_running_here()));
                true
            }
            Command::PairCode(_, reply) => {
                let _ = reply.send(Err(not_running_here()));
                false
            }
            Command::Handover => true,
            Command::Restart | Command::PairCodeIssued { .. } => false,
        }
    }

    /// Answers a logout or a new QR code this task was started for but cannot do.
    fn refuse_intent(&mut self) {
        if let Some(
            Intent::Logout(reply)
            | Intent::Run {
                reply: Some(reply), ..
            },
        ) = self.intent.take()
        {
            let _ = reply.send(Err(not_running_here()));
        }
        while let Some(command) = self.pending.pop_front() {
            self.while_elsewhere(command);
        }
    }

    /// Whether the connection's recorded status still asks for a session.
    async fn still_wanted(&self) -> bool {
        match self
            .inner
            .deps
            .connections
            .get(self.scope, self.connection)
            .await
        {
            Ok(Some(connection)) => should_run(connection.status),
            Ok(None) => false,
            Err(error) => {
                tracing::warn!(connection = self.connection.0, %error, "the connection could not be read");
                false
            }
        }
    }

    /// Builds runs until one ends for good.
    async fn runs(&mut self, lease: &mut LeaseKeeper, from_another: bool) -> End {
        let mut reason = from_another.then(taken_over);
        loop {
            // Commands that came before the lease.
            while let Some(command) = self.pending.pop_front() {
                match self.between_runs(command).await {
                    Some(Next::End(end)) => return end,
                    Some(Next::Again(r) | Next::Rebuild(r)) => reason = r.or(reason),
                    None => {}
                }
            }
            self.run += 1;
            self.tracker.new_run();
            let retries = i64::from(self.backoff.attempts());
            if let Some(update) =
                self.tracker
                    .set(ConnectionStatus::Opening, reason.take(), retries)
            {
                self.inner.report(self.scope, self.connection, update).await;
            }
            let (events, receiver) = mpsc::unbounded_channel();
            let deps = &self.inner.deps;
            let backend = Arc::new(WaBackend::new(
                deps.state.clone(),
                deps.cipher.clone(),
                self.connection,
                lease.token,
            ));
            let ingestor = Arc::new(Ingestor::new(
                self.scope,
                self.connection,
                deps.sink.clone(),
            ));
            let params = SessionParams {
                connection: self.connection,
                backend: backend.clone(),
                ingestor: ingestor.clone(),
                events,
                pair_phone: self.pair_phone.clone(),
                full_history: self.inner.wants_full_history(self.connection),
            };
            let next = match deps.factory.start(params).await {
                Ok(session) => self.drive(session, receiver, &backend, lease).await,
                Err(error) => {
                    tracing::warn!(connection = self.connection.0, error = %format!("{error:#}"), "the session could not be built");
                    Next::Rebuild(Some(SessionReason::Failed {
                        message: format!("{error:#}"),
                    }))
                }
            };
            // The run is over: a commit still retrying answers an error, so WhatsApp delivers
            // its messages again on the next connection.
            ingestor.shutdown();
            match next {
                Next::End(end) => return end,
                Next::Again(r) => reason = r,
                Next::Rebuild(r) => {
                    let delay = self.backoff.next(rand::random::<f64>());
                    let deadline = Instant::now() + delay;
                    // Shown during the wait (the next run's first update repeats it).
                    let waiting = r.unwrap_or(SessionReason::Reconnecting);
                    let retries = i64::from(self.backoff.attempts());
                    if let Some(update) =
                        self.tracker
                            .set(ConnectionStatus::Opening, Some(waiting.clone()), retries)
                    {
                        self.inner.report(self.scope, self.connection, update).await;
                    }
                    reason = Some(waiting);
                    loop {
                        tokio::select! {
                            () = tokio::time::sleep_until(deadline) => break,
                            _ = lease.ticks.tick() => if !self.renew(lease).await {
                                return End::Lost;
                            },
                            command = self.commands.recv() => {
                                let Some(command) = command else { return End::Lost };
                                match self.between_runs(command).await {
                                    Some(Next::End(end)) => return end,
                                    Some(Next::Again(r) | Next::Rebuild(r)) => {
                                        reason = r;
                                        break;
                                    }
                                    None => {}
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// A command while no session runs (before the first run, or in a backoff); `None` to go
    /// on waiting.
    async fn between_runs(&mut self, command: Command) -> Option<Next> {
        match command {
            Command::Stop(Stop::Shutdown, reply) => Some(Next::End(End::Release {
                update: Some((ConnectionStatus::Disconnected, None)),
                reply: Some(reply),
            })),
            Command::Stop(Stop::Logout, reply) => {
                self.wipe().await;
                Some(Next::End(End::Release {
                    update: Some((
                        ConnectionStatus::Disconnected,
                        Some(SessionReason::LoggedOut),
                    )),
                    reply: Some(reply),
                }))
            }
            Command::Stop(Stop::NewQr, reply) => {
                self.wipe().await;
                let _ = reply.send(Ok(()));
                self.backoff.reset();
                Some(Next::Again(None))
            }
            Command::Restart => {
                self.backoff.reset();
                Some(Next::Again(None))
            }
            Command::PairCode(phone, reply) => {
                self.pair_phone = Some(phone);
                let _ = reply.send(Ok(()));
                self.backoff.reset();
                Some(Next::Again(None))
            }
            Command::PairCodeIssued { .. } => None,
            Command::Handover => Some(Next::End(End::Release {
                update: None,
                reply: None,
            })),
        }
    }

    /// Consumes one run's events until it ends, then stops it and says what follows.
    async fn drive(
        &mut self,
        mut session: Box<dyn WaSession>,
        mut events: mpsc::UnboundedReceiver<Arc<Event>>,
        backend: &Arc<WaBackend>,
        lease: &mut LeaseKeeper,
    ) -> Next {
        let config = self.inner.config().clone();
        // The address book and chats the phone syncs, written beside the event loop.
        self.directory = Some(DirectoryWriter::start(
            backend.clone(),
            self.inner.deps.clock.clone(),
        ));
        let client = session.client();
        self.watchdog.new_run(Instant::now());
        let mut watch = ticks(config.watchdog_every);
        let mut connected_since: Option<Instant> = None;
        let mut overdue_at: Option<Instant> = None;
        let mut dropped_events = 0u64;
        let mut events_open = true;
        let outcome = loop {
            tokio::select! {
                biased;
                event = events.recv(), if events_open => match event {
                    Some(event) => {
                        self.on_event(event, &client, backend, &mut connected_since, &mut overdue_at)
                            .await;
                    }
                    None => events_open = false,
                },
                () = session.finished() => break Outcome::Finished,
                _ = lease.ticks.tick() => if !self.renew(lease).await {
                    self.live.set_client(None);
                    session.abort();
                    break Outcome::LeaseLost;
                },
                () = sleep_until_some(overdue_at) => break Outcome::Overdue,
                _ = watch.tick() => {
                    let stats = client.stats();
                    if stats.events_dropped > dropped_events {
                        dropped_events = stats.events_dropped;
                        tracing::warn!(connection = self.connection.0, dropped = dropped_events, "the library dropped events");
                    }
                    let connected = self.tracker.status() == ConnectionStatus::Connected
                        && client.is_connected();
                    if self.watchdog.check(Instant::now(), stats, connected) {
                        tracing::warn!(connection = self.connection.0, "the session looks deaf; restarting it");
                        break Outcome::Deaf;
                    }
                },
                command = self.commands.recv() => match command {
                    None => break Outcome::Stop(AfterStop::Handover),
                    Some(command) => if let Some(after) = self.during_run(command, &client).await {
                        break Outcome::Stop(after);
                    },
                },
            }
        };

        if matches!(outcome, Outcome::LeaseLost) {
            // Its writes would be refused anyway.
            if let Some(directory) = self.directory.take() {
                directory.abort();
            }
            tracing::warn!(
                connection = self.connection.0,
                "the lease is lost; the session was stopped"
            );
            if tokio::time::timeout(config.stop_timeout, session.finished())
                .await
                .is_err()
            {
                tracing::error!(
                    connection = self.connection.0,
                    "an aborted session did not end in time"
                );
            }
            return Next::End(End::Lost);
        }
        self.live.set_client(None);
        let stable = connected_since.is_some_and(|since| since.elapsed() >= config.stable_after);
        match &outcome {
            Outcome::Finished => drop(session),
            Outcome::Stop(AfterStop::Logout(_)) => {
                if let Err(error) = tokio::time::timeout(config.stop_timeout, client.logout())
                    .await
                    .unwrap_or_else(|_| Err(whatsapp_rust::anyhow::anyhow!("no answer in time")))
                {
                    tracing::warn!(connection = self.connection.0, error = %format!("{error:#}"), "the logout did not reach WhatsApp");
                }
                self.stop_session(session).await;
            }
            _ => self.stop_session(session).await,
        }
        // What the session said before it stopped.
        while let Ok(event) = events.try_recv() {
            self.on_event(
                event,
                &client,
                backend,
                &mut connected_since,
                &mut overdue_at,
            )
            .await;
        }
        self.live.set_client(None);
        // The directory's last batch lands before a wipe (which would otherwise leave it).
        if let Some(directory) = self.directory.take() {
            directory.finish(config.stop_timeout).await;
        }
        // Keys are wiped once the session stopped: after a logout (the phone's or ours) and
        // for a new QR code.
        if self.tracker.ending() == Some(Effect::Ends { wipe_keys: true })
            || matches!(
                outcome,
                Outcome::Stop(AfterStop::Logout(_) | AfterStop::NewQr(_))
            )
        {
            self.wipe().await;
        }
        if stable {
            self.backoff.reset();
        }
        match outcome {
            Outcome::Finished | Outcome::Overdue => match self.tracker.run_ended() {
                Some((update, _)) => {
                    if let Some(update) = update {
                        self.inner.report(self.scope, self.connection, update).await;
                    }
                    Next::End(End::Release {
                        update: None,
                        reply: None,
                    })
                }
                None => Next::Rebuild(None),
            },
            Outcome::LeaseLost => Next::End(End::Lost),
            Outcome::Deaf => {
                if self.tracker.ending().is_some() {
                    return Next::End(End::Release {
                        update: None,
                        reply: None,
                    });
                }
                Next::Again(Some(SessionReason::Deaf))
            }
            Outcome::Stop(AfterStop::Shutdown(reply)) => Next::End(End::Release {
                update: Some((ConnectionStatus::Disconnected, None)),
                reply: Some(reply),
            }),
            Outcome::Stop(AfterStop::Logout(reply)) => Next::End(End::Release {
                update: Some((
                    ConnectionStatus::Disconnected,
                    Some(SessionReason::LoggedOut),
                )),
                reply: Some(reply),
            }),
            Outcome::Stop(AfterStop::NewQr(reply)) => {
                let _ = reply.send(Ok(()));
                self.backoff.reset();
                Next::Again(None)
            }
            Outcome::Stop(AfterStop::Restart) => {
                self.backoff.reset();
                Next::Again(None)
            }
            Outcome::Stop(AfterStop::Handover) => Next::End(End::Release {
                update: None,
                reply: None,
            }),
        }
    }

    /// A command while a session runs; `Some` when the session must stop for it.
    async fn during_run(
        &mut self,
        command: Command,
        client: &Arc<dyn WaClient>,
    ) -> Option<AfterStop> {
        match command {
            Command::Stop(Stop::Shutdown, reply) => Some(AfterStop::Shutdown(reply)),
            Command::Stop(Stop::Logout, reply) => Some(AfterStop::Logout(reply)),
            Command::Stop(Stop::NewQr, reply) => Some(AfterStop::NewQr(reply)),
            Command::Restart => Some(AfterStop::Restart),
            Command::Handover => Some(AfterStop::Handover),
            Command::PairCode(phone, reply) => {
                if self.tracker.awaiting_link() {
                    // This run's client asks; the code comes back as a command (and usually
                    // as the library's event too: reported once).
                    let client = client.clone();
                    let me = self.me.clone();
                    let run = self.run;
                    tokio::spawn(async move {
                        match client.pair_with_code(&phone).await {
                            Ok(code) => {
                                let _ = me.send(Command::PairCodeIssued { run, code });
                                let _ = reply.send(Ok(()));
                            }
                            Err(error) => {
                                let _ = reply.send(Err(Error::with_detail(
                                    ErrorCode::ERR_BAD_REQUEST,
                                    format!("the pair code was refused: {error:#}"),
                                )));
                            }
                        }
                    });
                    None
                } else if self.tracker.status() == ConnectionStatus::Connected {
                    let _ = reply.send(Err(Error::with_detail(
                        ErrorCode::ERR_BAD_REQUEST,
                        "the connection is linked already; log out to link another phone",
                    )));
                    None
                } else {
                    self.pair_phone = Some(phone);
                    let _ = reply.send(Ok(()));
                    Some(AfterStop::Restart)
                }
            }
            Command::PairCodeIssued { run, code } => {
                if run == self.run
                    && let Some(update) = self.tracker.pair_code(code)
                {
                    self.inner.report(self.scope, self.connection, update).await;
                }
                None
            }
        }
    }

    /// One library event of the current run.
    async fn on_event(
        &mut self,
        event: Arc<Event>,
        client: &Arc<dyn WaClient>,
        backend: &WaBackend,
        connected_since: &mut Option<Instant>,
        overdue_at: &mut Option<Instant>,
    ) {
        let step = self.tracker.on_event(&event, self.inner.deps.clock.now());
        if let Some(update) = step.report {
            self.inner.report(self.scope, self.connection, update).await;
        }
        match step.effect {
            Effect::None => {}
            Effect::Traffic => {
                if let Some(directory) = &self.directory {
                    directory.offer(&event);
                }
                (self.inner.deps.traffic)(self.scope, self.connection, event);
            }
            Effect::Connected => {
                let number = device_number(backend).await;
                if let Some(update) = self.tracker.connected(number) {
                    self.inner.report(self.scope, self.connection, update).await;
                }
                self.pair_phone = None;
                connected_since.get_or_insert_with(Instant::now);
                self.live.set_client(Some(client.clone()));
            }
            Effect::Dropped => {
                *connected_since = None;
                self.live.set_client(None);
            }
            Effect::Ends { .. } => {
                self.live.set_client(None);
                overdue_at.get_or_insert(Instant::now() + self.inner.config().stop_timeout);
            }
        }
    }

    /// Renews the lease; false when it is lost (see the parent module).
    async fn renew(&self, lease: &mut LeaseKeeper) -> bool {
        let deps = &self.inner.deps;
        let config = self.inner.config();
        match deps
            .leases
            .renew(
                self.connection,
                &deps.owner,
                lease.token,
                deps.clock.now(),
                ttl(&config.lease_ttl),
            )
            .await
        {
            Ok(true) => {
                lease.renewed = Instant::now();
                true
            }
            Ok(false) => {
                tracing::warn!(connection = self.connection.0, "the lease was taken over");
                false
            }
            Err(error) => {
                // Stop before the lease could end without this process knowing.
                let ends = lease.renewed + config.lease_ttl;
                if Instant::now() + config.renew_every >= ends {
                    tracing::error!(connection = self.connection.0, %error, "the lease could not be renewed before its end");
                    false
                } else {
                    tracing::warn!(connection = self.connection.0, %error, "the lease could not be renewed; trying again");
                    true
                }
            }
        }
    }

    /// Stops a session gracefully, waiting at most the stop timeout.
    async fn stop_session(&self, session: Box<dyn WaSession>) {
        let stopping = tokio::spawn(session.shutdown());
        match tokio::time::timeout(self.inner.config().stop_timeout, stopping).await {
            Ok(Ok(())) => {}
            Ok(Err(error)) => {
                tracing::error!(connection = self.connection.0, %error, "the session's stop failed");
            }
            Err(_) => {
                tracing::error!(
                    connection = self.connection.0,
                    "the session did not stop in time; left behind"
                );
            }
        }
    }

    /// Deletes the connection's keys.
    async fn wipe(&self) {
        match self.inner.deps.state.wipe(self.connection).await {
            Ok(rows) => {
                tracing::info!(connection = self.connection.0, rows, "the keys were wiped");
            }
            Err(error) => {
                tracing::error!(connection = self.connection.0, %error, "the keys could not be wiped");
            }
        }
    }

    /// Gives up the lease this task took (a newer task of this process has a newer token,
    /// which this leaves alone).
    async fn release(&self) {
        if let Some(token) = self.token {
            self.lease_released(token).await;
        }
    }

    async fn lease_released(&self, token: LeaseToken) {
        let deps = &self.inner.deps;
        if let Err(error) = deps
            .leases
            .release(self.connection, &deps.owner, token)
            .await
        {
            tracing::warn!(connection = self.connection.0, %error, "the lease could not be released");
        }
    }
}

/// The account's number from the device's stored identity, if the backend has it.
async fn device_number(backend: &WaBackend) -> Option<String> {
    match backend.load().await {
        Ok(Some(device)) => device.pn.map(|pn| pn.user.to_string()),
        Ok(None) => None,
        Err(error) => {
            tracing::warn!(%error, "the device could not be read");
            None
        }
    }
}

/// The lease's time to live as the port takes it.
fn ttl(ttl: &std::time::Duration) -> TimeDelta {
    TimeDelta::from_std(*ttl).unwrap_or(TimeDelta::seconds(30))
}

/// Ticks every `period`, the first one a period from now.
fn ticks(period: std::time::Duration) -> Interval {
    let mut ticks = tokio::time::interval_at(Instant::now() + period, period);
    ticks.set_missed_tick_behavior(MissedTickBehavior::Delay);
    ticks
}

/// Sleeps until `at`, forever when `None`.
async fn sleep_until_some(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}
