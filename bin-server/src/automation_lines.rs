//! The server's [`AutomationLines`]: the automation after inbound messages (flows, routing,
//! integrations) runs off the inbound path, one line per ticket. A ticket's work runs in the
//! order it was submitted, one at a time; different tickets' run at the same time, at most
//! [`RUNNING`] at once; at most [`WAITING`] works wait, and a submit beyond that waits for room
//! (the provider's next batch waits with it, so memory stays bounded). After each work the
//! realtime dispatcher and the job worker are woken, as after any write.
//!
//! The lines live in memory. An event is acknowledged once it is committed and its work
//! accepted here, so a server that stops before a work ran keeps the message and gives it no
//! answer: the same as before, when the acknowledgement waited for the automation and the
//! provider's replay of an event whose automation was cut short was a duplicate.

use std::collections::{HashMap, VecDeque};
use std::panic::AssertUnwindSafe;
use std::sync::{Arc, Mutex, PoisonError};

use async_trait::async_trait;
use chatflow_core::service::inbox::ingest::{AutomationLines, AutomationWork};
use chatflow_core::{CompanyId, TenantScope, TicketId};
use futures_util::FutureExt;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// Works running at once, over all tickets.
pub const RUNNING: usize = 32;
/// Works accepted and not finished, over all tickets.
pub const WAITING: usize = 10_000;
/// Idle lines remembered (for [`AutomationLines::submit`]'s freshness) before the oldest go.
const REMEMBERED: usize = 4_096;

type Key = (CompanyId, TicketId);
type Job = (
    std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send>>,
    OwnedSemaphorePermit,
);

/// One line per ticket; see the module's documentation.
#[derive(Clone)]
pub struct Lines {
    inner: Arc<Inner>,
}

struct Inner {
    state: Mutex<State>,
    waiting: Arc<Semaphore>,
    running: Arc<Semaphore>,
    after_each: Box<dyn Fn() + Send + Sync>,
}

#[derive(Default)]
struct State {
    /// Works finished so far: the marks count them.
    finished: u64,
    /// The highest `last_done` of the idle lines forgotten.
    forgotten_up_to: u64,
    lines: HashMap<Key, Line>,
}

#[derive(Default)]
struct Line {
    queue: VecDeque<Job>,
    /// A task is running this line's works.
    busy: bool,
    /// `finished` when this line's last work finished.
    last_done: u64,
}

impl std::fmt::Debug for Lines {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Lines").finish_non_exhaustive()
    }
}

impl Lines {
    /// Lines that call `after_each` after every work.
    pub fn new(after_each: impl Fn() + Send + Sync + 'static) -> Lines {
        Lines {
            inner: Arc::new(Inner {
                state: Mutex::new(State::default()),
                waiting: Arc::new(Semaphore::new(WAITING)),
                running: Arc::new(Semaphore::new(RUNNING)),
                after_each: Box::new(after_each),
            }),
        }
    }

    /// Waits until every accepted work finished, or `limit` passed; answers whether all did.
    pub async fn drain(&self, limit: std::time::Duration) -> bool {
        let all = u32::try_from(WAITING).unwrap_or(u32::MAX);
        tokio::time::timeout(limit, self.inner.waiting.acquire_many(all))
            .await
            .is_ok_and(|permits| permits.is_ok())
    }

    /// No accepted work is unfinished.
    pub fn idle(&self) -> bool {
        self.inner.waiting.available_permits() == WAITING
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.inner
            .state
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Runs `key`'s line until it is empty.
    async fn run_line(self, key: Key) {
        let mut next = self.turn(key, false);
        while let Some((work, _accepted)) = next {
            {
                let _running = self.inner.running.clone().acquire_owned().await;
                // A panicking work (a bug) must not stop the ticket's line.
                if AssertUnwindSafe(work).catch_unwind().await.is_err() {
                    tracing::error!(
                        company = key.0.0,
                        ticket = key.1.0,
                        "the automation after an inbound message panicked"
                    );
                }
            }
            next = self.turn(key, true);
            (self.inner.after_each)();
        }
    }

    /// One look at `key`'s line, after a work of it finished (`finished_one`): the next work,
    /// or `None` with the line marked idle.
    fn turn(&self, key: Key, finished_one: bool) -> Option<Job> {
        let mut state = self.state();
        if finished_one {
            state.finished += 1;
        }
        let finished = state.finished;
        let line = state.lines.get_mut(&key)?;
        if finished_one {
            line.last_done = finished;
        }
        let job = line.queue.pop_front();
        if job.is_none() {
            line.busy = false;
            forget_idle(&mut state);
        }
        job
    }
}

/// Forgets the idle lines finished longest ago once more than [`REMEMBERED`] are kept.
fn forget_idle(state: &mut State) {
    if state.lines.len() <= REMEMBERED * 2 {
        return;
    }
    let mut idle: Vec<(u64, Key)> = state
        .lines
        .iter()
        .filter(|(_, line)| !line.busy && line.queue.is_empty())
        .map(|(key, line)| (line.last_done, *key))
        .collect();
    idle.sort_unstable();
    let excess = state.lines.len().saturating_sub(REMEMBERED);
    for (last_done, key) in idle.into_iter().take(excess) {
        state.lines.remove(&key);
        state.forgotten_up_to = state.forgotten_up_to.max(last_done);
    }
}

#[async_trait]
impl AutomationLines for Lines {
    fn mark(&self) -> u64 {
        self.state().finished
    }

    async fn submit(&self, scope: TenantScope, mark: u64, works: Vec<(TicketId, AutomationWork)>) {
        for (ticket, work) in works {
            let Ok(accepted) = self.inner.waiting.clone().acquire_owned().await else {
                return;
            };
            let key = (scope.company_id(), ticket);
            let start = {
                let mut state = self.state();
                let forgotten_up_to = state.forgotten_up_to;
                let line = state.lines.entry(key).or_default();
                let current = !line.busy
                    && line.queue.is_empty()
                    && line.last_done <= mark
                    && (line.last_done > 0 || forgotten_up_to <= mark);
                line.queue.push_back((work(current), accepted));
                let start = !line.busy;
                line.busy = true;
                start
            };
            if start {
                tokio::spawn(self.clone().run_line(key));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    use super::*;

    /// What ran: (ticket, the work's number, whether it was called current).
    type Log = Arc<Mutex<Vec<(i64, usize, bool)>>>;

    fn record(log: &Log, ticket: i64, n: usize) -> AutomationWork {
        let log = log.clone();
        Box::new(move |current| {
            Box::pin(async move {
                // Later works of other tickets may overtake; this ticket's next may not.
                tokio::time::sleep(Duration::from_millis(((n * 7) % 5) as u64)).await;
                log.lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .push((ticket, n, current));
            })
        })
    }

    #[tokio::test]
    async fn a_tickets_works_run_in_order_and_later_works_are_not_current() {
        let woken = Arc::new(AtomicUsize::new(0));
        let counter = woken.clone();
        let lines = Lines::new(move || {
            counter.fetch_add(1, Ordering::Relaxed);
        });
        let scope = TenantScope::new(CompanyId(1));
        let log = Arc::new(Mutex::new(Vec::new()));
        for n in 0..20 {
            for ticket in [1, 2, 3] {
                let mark = lines.mark();
                lines
                    .submit(
                        scope,
                        mark,
                        vec![(TicketId(ticket), record(&log, ticket, n))],
                    )
                    .await;
            }
        }
        assert!(lines.drain(Duration::from_secs(10)).await);
        let log = log.lock().unwrap_or_else(PoisonError::into_inner).clone();
        assert_eq!(log.len(), 60);
        assert_eq!(woken.load(Ordering::Relaxed), 60);
        for ticket in [1, 2, 3] {
            let ours: Vec<(usize, bool)> = log
                .iter()
                .filter(|(t, _, _)| *t == ticket)
                .map(|(_, n, current)| (*n, *current))
                .collect();
            let order: Vec<usize> = ours.iter().map(|(n, _)| *n).collect();
            assert_eq!(
                order,
                (0..20).collect::<Vec<_>>(),
                "ticket {ticket} in order"
            );
            // The first found its line empty; the second was submitted while the first waited.
            assert!(ours[0].1);
            assert!(!ours[1].1);
        }
    }

    #[tokio::test]
    async fn a_work_after_another_finished_since_the_mark_is_not_current() {
        let lines = Lines::new(|| {});
        let scope = TenantScope::new(CompanyId(1));
        let log = Arc::new(Mutex::new(Vec::new()));
        let mark = lines.mark();
        lines
            .submit(scope, mark, vec![(TicketId(9), record(&log, 9, 0))])
            .await;
        assert!(lines.drain(Duration::from_secs(5)).await);
        // Submitted with the mark taken before the first ran: its reads may be stale.
        lines
            .submit(scope, mark, vec![(TicketId(9), record(&log, 9, 1))])
            .await;
        // A mark taken now: nothing ran on the ticket since.
        let now = lines.mark();
        lines
            .submit(scope, now, vec![(TicketId(9), record(&log, 9, 2))])
            .await;
        let other = lines.mark();
        lines
            .submit(scope, other, vec![(TicketId(10), record(&log, 10, 0))])
            .await;
        assert!(lines.drain(Duration::from_secs(5)).await);
        let log = log.lock().unwrap_or_else(PoisonError::into_inner).clone();
        let of = |t: i64, n: usize| log.iter().find(|e| e.0 == t && e.1 == n).map(|e| e.2);
        assert_eq!(of(9, 0), Some(true));
        assert_eq!(of(9, 1), Some(false));
        // Submitted while the previous one waited or ran: not current either.
        assert_eq!(of(9, 2), Some(false));
        assert_eq!(of(10, 0), Some(true));
    }

    #[tokio::test]
    async fn a_panicking_work_does_not_stop_its_line() {
        let lines = Lines::new(|| {});
        let scope = TenantScope::new(CompanyId(1));
        let log = Arc::new(Mutex::new(Vec::new()));
        let boom: AutomationWork = Box::new(|_| Box::pin(async { panic!("a bug") }));
        lines.submit(scope, 0, vec![(TicketId(5), boom)]).await;
        lines
            .submit(scope, 0, vec![(TicketId(5), record(&log, 5, 1))])
            .await;
        assert!(lines.drain(Duration::from_secs(5)).await);
        assert_eq!(log.lock().unwrap_or_else(PoisonError::into_inner).len(), 1);
    }
}
