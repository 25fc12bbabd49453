//! The job worker: claims due jobs from the durable queue and runs them through the core
//! ([`chatflow_core::service::jobs`]). It sleeps until the next job is due (at most
//! [`MAX_IDLE`]), or until a request that queued jobs wakes it, and stops with the server.
//! Several servers may run it on one PostgreSQL database: claiming is exclusive per lease.

use std::sync::Arc;
use std::time::Duration;

use chatflow_core::service::Ports;
use chatflow_core::service::jobs;
use tokio::sync::Notify;

use crate::dispatcher::Realtime;

/// Jobs claimed at once.
const BATCH: u32 = 16;
/// The longest sleep between looks at the queue (jobs queued by another process, e.g. the CLI
/// or another server, are seen within this).
const MAX_IDLE: Duration = Duration::from_secs(1);

/// Wakes the worker after a request queued jobs (cheap to clone).
#[derive(Debug, Clone, Default)]
pub struct JobWaker(Arc<Notify>);

impl JobWaker {
    /// Makes the worker look at the queue now.
    pub fn wake(&self) {
        self.0.notify_one();
    }
}

/// Starts the worker; it ends when `realtime` shuts down. `lease`: how long a claimed job stays
/// invisible to other workers (`CHATFLOW_JOB_LEASE`, far longer than any job takes).
pub fn spawn(
    ports: Ports,
    waker: JobWaker,
    realtime: &Realtime,
    lease: chrono::TimeDelta,
) -> tokio::task::JoinHandle<()> {
    let stop = realtime.stop_signal();
    tokio::spawn(async move {
        tokio::pin!(stop);
        loop {
            let idle = match run_due(&ports, lease).await {
                Ok(idle) => idle,
                Err(e) => {
                    tracing::warn!("job queue unavailable: {e}");
                    MAX_IDLE
                }
            };
            tokio::select! {
                () = &mut stop => return,
                () = waker.0.notified() => {}
                () = tokio::time::sleep(idle) => {}
            }
        }
    })
}

/// Runs the jobs due on a server's clock when its embedder says so: what the background
/// worker does on each look at the queue, for a server built with
/// [`crate::JobRunner::Explicit`] (tests on a manual clock advance the clock, then run the due
/// jobs, then check).
#[derive(Clone)]
pub struct DueJobs {
    ports: Ports,
    realtime: Realtime,
    lease: chrono::TimeDelta,
}

impl std::fmt::Debug for DueJobs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DueJobs").finish_non_exhaustive()
    }
}

impl DueJobs {
    pub(crate) fn new(ports: Ports, realtime: Realtime, lease: chrono::TimeDelta) -> DueJobs {
        DueJobs {
            ports,
            realtime,
            lease,
        }
    }

    /// Runs every job due at the clock's time now (and the jobs those queue for now), settles
    /// each, wakes the dispatcher for their events, and answers the kinds that ran, in order
    /// (`JobPayload::kind`).
    pub async fn run(&self) -> chatflow_core::Result<Vec<&'static str>> {
        let ran = claim_and_run(&self.ports, self.lease).await?;
        self.realtime.wake();
        Ok(ran)
    }
}

/// Runs every job due now; returns how long to sleep before the next one is due.
async fn run_due(ports: &Ports, lease: chrono::TimeDelta) -> chatflow_core::Result<Duration> {
    claim_and_run(ports, lease).await?;
    let next = ports.jobs.next_due().await?;
    Ok(match next {
        Some(at) => (at - ports.clock.now())
            .to_std()
            .unwrap_or(Duration::ZERO)
            .min(MAX_IDLE),
        None => MAX_IDLE,
    })
}

/// Claims and runs due jobs until none is due; answers the kinds that ran.
async fn claim_and_run(
    ports: &Ports,
    lease: chrono::TimeDelta,
) -> chatflow_core::Result<Vec<&'static str>> {
    let mut ran = Vec::new();
    loop {
        let now = ports.clock.now();
        let claimed = ports.jobs.claim_due(now, lease, BATCH).await?;
        if claimed.is_empty() {
            break;
        }
        for job in claimed {
            let outcome = jobs::run(ports, &job).await;
            if let Err(e) = &outcome {
                tracing::warn!(
                    job = job.id,
                    kind = job.payload.kind(),
                    attempt = job.attempts,
                    "job failed: {e}"
                );
            }
            jobs::settle(ports, &job, &outcome).await?;
            ran.push(job.payload.kind());
        }
    }
    Ok(ran)
}
