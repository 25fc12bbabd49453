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

/// Runs every job due now; returns how long to sleep before the next one is due.
async fn run_due(ports: &Ports, lease: chrono::TimeDelta) -> chatflow_core::Result<Duration> {
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
        }
    }
    let next = ports.jobs.next_due().await?;
    Ok(match next {
        Some(at) => (at - ports.clock.now())
            .to_std()
            .unwrap_or(Duration::ZERO)
            .min(MAX_IDLE),
        None => MAX_IDLE,
    })
}
