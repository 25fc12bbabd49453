//! Running a claimed job: what each [`JobPayload`] means, as use cases. The hosts' workers only
//! claim, call [`run`], and record the outcome with [`settle`].

use chrono::{DateTime, Utc};

use crate::error::{Error, ErrorCode, Result};
use crate::identity::Actor;
use crate::jobs::{Job, JobPayload, follow_ups, retry_delay, worth_retrying};
use crate::service::Ports;

/// Does the work of `job`, as the user it was queued for (with that user's permissions now).
#[tracing::instrument(level = "debug", name = "jobs::run", skip_all, fields(company = job.company_id.0, job = job.id))]
pub async fn run(ports: &Ports, job: &Job) -> Result<()> {
    match &job.payload {
        JobPayload::ForwardMessage {
            user_id,
            message_id,
            contact_id,
            sign,
            then: _,
        } => {
            let user = ports
                .users
                .get(job.scope(), *user_id)
                .await?
                .ok_or_else(|| Error::new(ErrorCode::ERR_NO_USER_FOUND))?;
            let actor = Actor::of(&user);
            crate::service::inbox::messages::forward(ports, &actor, *message_id, *contact_id, *sign)
                .await
                .map(|_| ())
        }
        JobPayload::FlowTimer {
            ticket_id,
            run_id,
            timer,
        } => {
            crate::service::automation::on_flow_timer(
                ports,
                job.scope(),
                *ticket_id,
                *run_id,
                *timer,
            )
            .await
        }
        JobPayload::RoutingTimer { ticket_id, timer } => {
            crate::service::automation::on_routing_timer(ports, job.scope(), *ticket_id, *timer)
                .await
        }
        JobPayload::SendSchedule {
            schedule_id,
            revision,
        } => {
            crate::service::schedules::on_send_due(ports, job.scope(), *schedule_id, *revision)
                .await
        }
        JobPayload::ImportHistory { whatsapp_id } => {
            crate::service::inbox::history::step(ports, job.scope(), *whatsapp_id).await
        }
        JobPayload::CheckGap { gap_id } => {
            crate::service::inbox::gaps::check(ports, job.scope(), *gap_id).await
        }
        JobPayload::CheckDelivery { whatsapp_id } => {
            crate::service::inbox::delivery::look(ports, job.scope(), *whatsapp_id).await
        }
        JobPayload::RefreshPicture { ticket_id } => {
            crate::service::inbox::contacts::refresh_picture(ports, job.scope(), *ticket_id).await
        }
        JobPayload::RefreshPictures {
            whatsapp_id,
            contacts,
        } => {
            crate::service::inbox::contacts::refresh_pictures(
                ports,
                job.scope(),
                *whatsapp_id,
                contacts,
            )
            .await
        }
    }
}

/// What became of a job after [`run`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Settled {
    Finished,
    /// Failed; tried again at this time.
    Retrying(DateTime<Utc>),
    /// Failed for good.
    Failed,
}

/// Records the outcome of running `job`: finished jobs are removed, failures that may pass are
/// retried later ([`retry_delay`]), the others are kept as failed with their error.
#[tracing::instrument(level = "debug", name = "jobs::settle", skip_all, fields(company = job.company_id.0, job = job.id))]
pub async fn settle(ports: &Ports, job: &Job, outcome: &Result<()>) -> Result<Settled> {
    match outcome {
        Ok(()) => {
            let then = follow_ups(job, ports.clock.now());
            ports.jobs.finish(job.id, &then).await?;
            Ok(Settled::Finished)
        }
        Err(error) => {
            let text = error.to_string();
            match retry_delay(job.attempts).filter(|_| worth_retrying(error.code)) {
                Some(delay) => {
                    let at = ports.clock.now() + delay;
                    ports.jobs.retry_at(job.id, at, &text).await?;
                    Ok(Settled::Retrying(at))
                }
                None => {
                    let then = follow_ups(job, ports.clock.now());
                    ports.jobs.give_up(job.id, &text, &then).await?;
                    Ok(Settled::Failed)
                }
            }
        }
    }
}
