//! The durable job queue on both engines: only due jobs are claimed, a claim hides a job from
//! other workers until its lease ends (a crashed worker's job comes back), two workers claiming
//! at once never share a job, retries wait, failed jobs are kept and never claimed again, and
//! a company's pending list holds only its own jobs, and the jobs a settled job leaves behind
//! are stored with it, for its company, once.

use std::collections::HashSet;

use chatflow_core::ids::{ContactId, MessageId, UserId};
use chatflow_core::jobs::{JobPayload, JobQueue, NewJob};
use chatflow_store::Store;
use chrono::{SubsecRound, TimeDelta, Utc};

use crate::store_tests;
use crate::support::two_companies;

store_tests!(
    due_jobs_are_claimed_once_per_lease,
    concurrent_workers_never_share_a_job,
    settled_jobs_leave_their_follow_ups_for_their_own_company
);

fn forward(n: i64, at: chrono::DateTime<Utc>) -> NewJob {
    NewJob {
        payload: JobPayload::ForwardMessage {
            user_id: UserId(1),
            message_id: MessageId(n),
            contact_id: ContactId(2),
            sign: false,
            then: Vec::new(),
        },
        run_at: at,
    }
}

fn message_of(payload: &JobPayload) -> i64 {
    match payload {
        JobPayload::ForwardMessage { message_id, .. } => message_id.0,
        other => panic!("these tests enqueue forwards only, not {other:?}"),
    }
}

async fn due_jobs_are_claimed_once_per_lease(store: Store) {
    let (a, b) = two_companies(&store).await;
    // Microseconds: what PostgreSQL keeps, so times read back compare equal.
    let now = Utc::now().trunc_subsecs(6);
    let lease = TimeDelta::seconds(60);
    let ids = store
        .enqueue(
            a,
            &[
                forward(1, now - TimeDelta::seconds(1)),
                forward(2, now + TimeDelta::seconds(5)),
            ],
        )
        .await
        .expect("enqueue");
    assert_eq!(ids.len(), 2);
    store
        .enqueue(b, &[forward(3, now - TimeDelta::seconds(2))])
        .await
        .expect("B's");
    assert_eq!(
        store.next_due().await.expect("next"),
        Some(now - TimeDelta::seconds(2))
    );

    // Both companies' due jobs, oldest first; not the future one.
    let claimed = store.claim_due(now, lease, 10).await.expect("claim");
    let got: Vec<(i64, i64, u32)> = claimed
        .iter()
        .map(|j| (j.company_id.0, message_of(&j.payload), j.attempts))
        .collect();
    assert_eq!(
        got,
        vec![(b.company_id().0, 3, 1), (a.company_id().0, 1, 1)]
    );
    // Held: nobody else gets them during the lease.
    assert!(
        store
            .claim_due(now, lease, 10)
            .await
            .expect("again")
            .is_empty()
    );
    // A worker that died: after the lease the job is claimed again, with a second attempt.
    let later = now + lease + TimeDelta::seconds(1);
    let again = store
        .claim_due(later, lease, 10)
        .await
        .expect("after lease");
    let again: HashSet<(i64, u32)> = again
        .iter()
        .map(|j| (message_of(&j.payload), j.attempts))
        .collect();
    assert_eq!(again, HashSet::from([(3, 2), (1, 2), (2, 1)]));

    // Finish one, retry one later, give one up.
    let pending = store.pending(a).await.expect("A's jobs");
    assert_eq!(pending.len(), 2, "only A's");
    let one = pending
        .iter()
        .find(|j| message_of(&j.payload) == 1)
        .expect("job 1");
    let two = pending
        .iter()
        .find(|j| message_of(&j.payload) == 2)
        .expect("job 2");
    store.finish(one.id, &[]).await.expect("finish");
    let retry_at = later + TimeDelta::seconds(8);
    store
        .retry_at(two.id, retry_at, "channel down")
        .await
        .expect("retry");
    let b_job = store.pending(b).await.expect("B's jobs")[0].id;
    store.give_up(b_job, "gone", &[]).await.expect("give up");

    assert!(
        store
            .claim_due(later + TimeDelta::seconds(7), lease, 10)
            .await
            .expect("early")
            .is_empty()
    );
    let retried = store.claim_due(retry_at, lease, 10).await.expect("retried");
    assert_eq!(retried.len(), 1);
    assert_eq!(
        (message_of(&retried[0].payload), retried[0].attempts),
        (2, 2)
    );
    // The failed job is kept but never claimed again.
    assert!(
        store
            .claim_due(retry_at + TimeDelta::days(1), lease, 10)
            .await
            .expect("far")
            .iter()
            .all(|j| j.company_id != b.company_id())
    );
    assert_eq!(store.pending(b).await.expect("kept").len(), 1);
    store.finish(retried[0].id, &[]).await.expect("finish");
    assert_eq!(store.next_due().await.expect("next"), None);
}

async fn concurrent_workers_never_share_a_job(store: Store) {
    let (a, _) = two_companies(&store).await;
    let now = Utc::now();
    let jobs: Vec<NewJob> = (0..60)
        .map(|n| forward(n, now - TimeDelta::seconds(1)))
        .collect();
    store.enqueue(a, &jobs).await.expect("enqueue");
    let workers: Vec<_> = (0..4)
        .map(|_| {
            let store = store.clone();
            tokio::spawn(async move {
                let mut mine = Vec::new();
                loop {
                    let claimed = store
                        .claim_due(Utc::now(), TimeDelta::seconds(60), 5)
                        .await
                        .expect("claim");
                    if claimed.is_empty() {
                        return mine;
                    }
                    mine.extend(claimed.iter().map(|j| message_of(&j.payload)));
                }
            })
        })
        .collect();
    let mut all = Vec::new();
    for worker in workers {
        all.extend(worker.await.expect("worker"));
    }
    all.sort_unstable();
    assert_eq!(
        all,
        (0..60).collect::<Vec<i64>>(),
        "each job claimed exactly once"
    );
    assert_eq!(store.pending(a).await.expect("pending").len(), 60);
}

async fn settled_jobs_leave_their_follow_ups_for_their_own_company(store: Store) {
    let (a, b) = two_companies(&store).await;
    let now = Utc::now().trunc_subsecs(6);
    let lease = TimeDelta::seconds(60);
    store
        .enqueue(b, &[forward(1, now - TimeDelta::seconds(2))])
        .await
        .expect("B's");
    store
        .enqueue(a, &[forward(2, now - TimeDelta::seconds(1))])
        .await
        .expect("A's");
    let claimed = store.claim_due(now, lease, 10).await.expect("claim");
    assert_eq!(claimed.len(), 2);
    let (of_b, of_a) = (&claimed[0], &claimed[1]);
    assert_eq!(of_b.company_id, b.company_id());

    // Finished: gone, and its follow-up is B's, not the caller's.
    store
        .finish(of_b.id, &[forward(3, now + TimeDelta::seconds(1))])
        .await
        .expect("finish");
    let pending: Vec<i64> = store
        .pending(b)
        .await
        .expect("B's")
        .iter()
        .map(|j| message_of(&j.payload))
        .collect();
    assert_eq!(pending, [3]);
    // Settling it again (another worker's late answer) leaves nothing more.
    store
        .finish(of_b.id, &[forward(4, now)])
        .await
        .expect("again");
    assert_eq!(store.pending(b).await.expect("B's").len(), 1);

    // Failed for good: kept as failed, and its follow-up still runs.
    store
        .give_up(of_a.id, "gone", &[forward(5, now + TimeDelta::seconds(1))])
        .await
        .expect("give up");
    let pending = store.pending(a).await.expect("A's");
    let messages: Vec<i64> = pending.iter().map(|j| message_of(&j.payload)).collect();
    assert_eq!(messages, [2, 5]);
    let due: Vec<i64> = store
        .claim_due(now + TimeDelta::seconds(2), lease, 10)
        .await
        .expect("claim")
        .iter()
        .map(|j| message_of(&j.payload))
        .collect();
    assert_eq!(due, [3, 5], "the failed one is never claimed again");
}
