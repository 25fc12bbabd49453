//! Durable jobs: work that must happen later or again, and must survive a restart or run on
//! exactly one of several servers (forwarding spaced 900 ms apart now; flow intervals, routing
//! timers and campaigns later).
//!
//! A job is stored with the company it belongs to, what to do ([`JobPayload`]) and when. Workers
//! *claim* due jobs for a lease: a claimed job is invisible to other workers until its lease
//! ends, and a worker that dies mid-job simply lets the lease run out, so the job is claimed
//! again. Delivery is therefore at least once; a job's work is written so that running it twice
//! does no harm where that matters.
//!
//! What a payload means is decided in [`crate::service::jobs::run`]; when to try again after a
//! failure in [`retry_delay`].

use async_trait::async_trait;
use chrono::{DateTime, TimeDelta, Utc};
use serde::{Deserialize, Serialize};

use crate::error::{ErrorCode, Result};
use crate::ids::{CompanyId, ContactId, MessageId, TenantScope, TicketId, UserId, WhatsappId};

/// What a job does.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum JobPayload {
    /// Forward one message to a contact on behalf of a user (`POST /message/forward`), then the
    /// ones in `then`, each as the next job once this one is settled (see [`follow_ups`]), so
    /// the pause between two copies is measured from the copy before, however late a worker is.
    #[serde(rename_all = "camelCase")]
    ForwardMessage {
        user_id: UserId,
        message_id: MessageId,
        contact_id: ContactId,
        sign: bool,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        then: Vec<MessageId>,
    },
    /// A flow's interval ran out: feed the timer to the run (`Input::TimerFired`). A run that
    /// moved on ignores it (the timer's number no longer matches).
    #[serde(rename_all = "camelCase")]
    FlowTimer {
        ticket_id: TicketId,
        run_id: i64,
        timer: u64,
    },
    /// A routing timer fell due (`core::routing::on_timer`): `timeSendQueue` or rotation.
    #[serde(rename_all = "camelCase")]
    RoutingTimer {
        ticket_id: TicketId,
        timer: crate::routing::TimerKind,
    },
    /// A schedule's send fell due (`core::service::schedules::on_send_due`). A schedule edited,
    /// deleted or already sent since has another revision, and the job does nothing.
    #[serde(rename_all = "camelCase")]
    SendSchedule {
        schedule_id: crate::ids::ScheduleId,
        revision: i64,
    },
    /// A step of a connection's import of old messages
    /// (`core::service::inbox::history::step`): write the next batch, wait for more history,
    /// or finish.
    #[serde(rename_all = "camelCase")]
    ImportHistory { whatsapp_id: crate::ids::WhatsappId },
    /// The check of a connection's gap after an outage (`core::service::inbox::gaps::check`):
    /// ask the phone for what each touched conversation may have missed, note the others.
    #[serde(rename_all = "camelCase")]
    CheckGap { gap_id: i64 },
    /// A look at a connection's outbound messages left at one tick
    /// (`core::service::inbox::delivery::look`), again every few minutes while it is connected.
    #[serde(rename_all = "camelCase")]
    CheckDelivery { whatsapp_id: crate::ids::WhatsappId },
    /// Fetch the profile picture of a new ticket's contact (a person or a group) from its
    /// channel (`core::service::inbox::contacts::refresh_picture`).
    #[serde(rename_all = "camelCase")]
    RefreshPicture { ticket_id: TicketId },
    /// Fetch the profile pictures of the contacts (people or groups) whose tickets one batch of
    /// messages created, from the batch's connection
    /// (`core::service::inbox::contacts::refresh_pictures`): one job and one connection read
    /// for the whole batch.
    #[serde(rename_all = "camelCase")]
    RefreshPictures {
        whatsapp_id: WhatsappId,
        contacts: Vec<PictureLookup>,
    },
}

/// A contact whose picture a [`JobPayload::RefreshPictures`] looks up: its id and the number
/// (or group id) its channel knows it by, as it was when the job was queued.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PictureLookup {
    pub contact_id: ContactId,
    pub number: String,
}

impl JobPayload {
    /// The stored kind (for logs and the `jobs.kind` column).
    pub fn kind(&self) -> &'static str {
        match self {
            JobPayload::ForwardMessage { .. } => "forwardMessage",
            JobPayload::FlowTimer { .. } => "flowTimer",
            JobPayload::RoutingTimer { .. } => "routingTimer",
            JobPayload::SendSchedule { .. } => "sendSchedule",
            JobPayload::ImportHistory { .. } => "importHistory",
            JobPayload::CheckGap { .. } => "checkGap",
            JobPayload::CheckDelivery { .. } => "checkDelivery",
            JobPayload::RefreshPicture { .. } => "refreshPicture",
            JobPayload::RefreshPictures { .. } => "refreshPictures",
        }
    }
}

/// A job to store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewJob {
    pub payload: JobPayload,
    pub run_at: DateTime<Utc>,
}

/// A claimed job.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Job {
    pub id: i64,
    pub company_id: CompanyId,
    pub payload: JobPayload,
    pub run_at: DateTime<Utc>,
    /// Claims so far, this one included.
    pub attempts: u32,
}

impl Job {
    /// The scope the job's work runs in.
    pub fn scope(&self) -> TenantScope {
        TenantScope::new(self.company_id)
    }
}

/// The jobs a settled job leaves behind, stored in the same transaction that removes it or
/// marks it failed (never when it is put back for a retry, which will leave them itself): the
/// next forward of a chain, [`FORWARD_SPACING_MS`](crate::inbox::messages::FORWARD_SPACING_MS)
/// after `now`. A forward that failed for good does not hold back the ones after it.
pub fn follow_ups(job: &Job, now: DateTime<Utc>) -> Vec<NewJob> {
    match &job.payload {
        JobPayload::ForwardMessage {
            user_id,
            contact_id,
            sign,
            then,
            ..
        } => forward_chain(*user_id, *contact_id, *sign, then, now)
            .into_iter()
            .collect(),
        JobPayload::FlowTimer { .. }
        | JobPayload::RoutingTimer { .. }
        | JobPayload::SendSchedule { .. }
        | JobPayload::ImportHistory { .. }
        | JobPayload::CheckGap { .. }
        | JobPayload::CheckDelivery { .. }
        | JobPayload::RefreshPicture { .. }
        | JobPayload::RefreshPictures { .. } => Vec::new(),
    }
}

/// The job that forwards `ids` in order to a contact as `user`, its first copy
/// [`FORWARD_SPACING_MS`](crate::inbox::messages::FORWARD_SPACING_MS) after `now`; `None` when
/// there is nothing to forward.
pub fn forward_chain(
    user_id: UserId,
    contact_id: ContactId,
    sign: bool,
    ids: &[MessageId],
    now: DateTime<Utc>,
) -> Option<NewJob> {
    let (first, rest) = ids.split_first()?;
    Some(NewJob {
        payload: JobPayload::ForwardMessage {
            user_id,
            message_id: *first,
            contact_id,
            sign,
            then: rest.to_vec(),
        },
        run_at: now
            + TimeDelta::milliseconds(
                i64::try_from(crate::inbox::messages::FORWARD_SPACING_MS).unwrap_or(i64::MAX),
            ),
    })
}

/// Attempts before a job is given up (kept, marked failed, with its last error).
pub const MAX_ATTEMPTS: u32 = 5;

/// How long to wait before attempt `attempts + 1` after a failure: 2 s, 8 s, 32 s, 128 s
/// (doubling twice per attempt), or `None` when the job has had its [`MAX_ATTEMPTS`].
pub fn retry_delay(attempts: u32) -> Option<TimeDelta> {
    if attempts >= MAX_ATTEMPTS {
        return None;
    }
    let exponent = attempts.saturating_sub(1).min(8);
    Some(TimeDelta::seconds(2i64 << (2 * exponent)))
}

/// Whether a job that failed with `code` may succeed later (a channel that is reconnecting, a
/// database hiccup) rather than never (the message or contact is gone, permission withdrawn).
pub fn worth_retrying(code: ErrorCode) -> bool {
    matches!(
        code,
        ErrorCode::ERR_INTERNAL
            | ErrorCode::ERR_SENDING_WAPP_MSG
            | ErrorCode::ERR_WAPP_NOT_INITIALIZED
    )
}

/// The durable job queue.
#[async_trait]
pub trait JobQueue: Send + Sync {
    /// Stores jobs of the scope's company; returns their ids in order.
    async fn enqueue(&self, scope: TenantScope, jobs: &[NewJob]) -> Result<Vec<i64>>;
    /// Platform-level: claims up to `limit` jobs due at `now` (not failed, lease free) until
    /// `now + lease`, oldest due first, counting an attempt on each. Two workers never hold the
    /// same job at once.
    async fn claim_due(&self, now: DateTime<Utc>, lease: TimeDelta, limit: u32)
    -> Result<Vec<Job>>;
    /// Platform-level: when the next job falls due (its run time, or the end of its lease when it
    /// is claimed); `None` when nothing waits. Workers sleep until then instead of claiming on
    /// every tick.
    async fn next_due(&self) -> Result<Option<DateTime<Utc>>>;
    /// Removes a finished job and stores the jobs it leaves behind ([`follow_ups`]) for its
    /// company, in one transaction.
    async fn finish(&self, id: i64, then: &[NewJob]) -> Result<()>;
    /// Puts a failed job back to run at `at`, keeping `error`.
    async fn retry_at(&self, id: i64, at: DateTime<Utc>, error: &str) -> Result<()>;
    /// Marks a job failed for good, keeping `error` (it is never claimed again), and stores the
    /// jobs it leaves behind ([`follow_ups`]) for its company, in one transaction.
    async fn give_up(&self, id: i64, error: &str, then: &[NewJob]) -> Result<()>;
    /// Jobs of the scope's company not finished yet (waiting, claimed or failed), for tests and
    /// the CLI.
    async fn pending(&self, scope: TenantScope) -> Result<Vec<Job>>;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_passing_failures_are_retried() {
        assert!(worth_retrying(ErrorCode::ERR_SENDING_WAPP_MSG));
        assert!(!worth_retrying(ErrorCode::ERR_NO_TICKET_FOUND));
        assert!(!worth_retrying(ErrorCode::ERR_NO_PERMISSION));
    }

    #[test]
    fn retries_back_off_and_stop() {
        let delays: Vec<Option<i64>> = (1..=6)
            .map(|n| retry_delay(n).map(|d| d.num_seconds()))
            .collect();
        assert_eq!(
            delays,
            vec![Some(2), Some(8), Some(32), Some(128), None, None]
        );
    }

    #[test]
    fn a_forward_chain_leaves_its_next_copy_a_pause_after_it_settles() {
        let now = DateTime::<Utc>::from_timestamp(1_800_000_000, 0).expect("time");
        let job = |then: Vec<MessageId>| Job {
            id: 1,
            company_id: CompanyId(2),
            payload: JobPayload::ForwardMessage {
                user_id: UserId(3),
                message_id: MessageId(9),
                contact_id: ContactId(4),
                sign: true,
                then,
            },
            run_at: now - TimeDelta::seconds(5),
            attempts: 1,
        };
        assert_eq!(
            follow_ups(&job(vec![MessageId(10), MessageId(11)]), now),
            vec![NewJob {
                payload: JobPayload::ForwardMessage {
                    user_id: UserId(3),
                    message_id: MessageId(10),
                    contact_id: ContactId(4),
                    sign: true,
                    then: vec![MessageId(11)],
                },
                run_at: now + TimeDelta::milliseconds(900),
            }]
        );
        assert!(follow_ups(&job(Vec::new()), now).is_empty());
    }

    /// `payload` is stored as `json` and read back as itself.
    fn round_trip(payload: &JobPayload, json: &str) {
        let text = serde_json::to_string(payload).expect("json");
        assert_eq!(text, json);
        assert_eq!(
            &serde_json::from_str::<JobPayload>(&text).expect("back"),
            payload
        );
    }

    #[test]
    fn payloads_are_stored_with_their_kind() {
        let payload = JobPayload::ForwardMessage {
            user_id: UserId(3),
            message_id: MessageId(9),
            contact_id: ContactId(4),
            sign: true,
            then: Vec::new(),
        };
        round_trip(
            &payload,
            r#"{"kind":"forwardMessage","userId":3,"messageId":9,"contactId":4,"sign":true}"#,
        );
        assert_eq!(payload.kind(), "forwardMessage");
        let chained = JobPayload::ForwardMessage {
            user_id: UserId(3),
            message_id: MessageId(9),
            contact_id: ContactId(4),
            sign: false,
            then: vec![MessageId(10)],
        };
        round_trip(
            &chained,
            r#"{"kind":"forwardMessage","userId":3,"messageId":9,"contactId":4,"sign":false,"then":[10]}"#,
        );
        let timer = JobPayload::RoutingTimer {
            ticket_id: TicketId(7),
            timer: crate::routing::TimerKind::Rotation {
                queue_id: crate::ids::QueueId(2),
            },
        };
        round_trip(
            &timer,
            r#"{"kind":"routingTimer","ticketId":7,"timer":{"kind":"rotation","queueId":2}}"#,
        );
    }
}
