//! Channel sessions' key state and leases on both engines: every op of a batch, batches all or
//! nothing, a take handed out once under concurrency, prefix and expiry deletes with their
//! counts, writes fenced by the lease token, acquisition, renewal, expiry and takeover with a
//! greater token, and the state and lease going with their connection (or company).
//!
//! These ports are internal (keyed by connection id; no route or CLI command reaches them), so
//! "another tenant" here is another company's connection: its rows are never seen, written or
//! deleted through the first connection's id.

use chatflow_core::inbox::lease::{ChannelLeaseRepo, LeaseToken};
use chatflow_core::inbox::session_state::{
    SessionStateRepo, StateNamespace as Ns, StateOp, StateRow,
};
use chatflow_core::{ErrorCode, WhatsappId};
use chatflow_store::Store;
use chrono::{DateTime, TimeDelta, TimeZone, Utc};

use crate::store_tests;
use crate::support::{connection, two_companies};

store_tests!(
    every_op_writes_and_reads_what_it_says,
    prefixes_and_expiry_sweeps_delete_what_they_name_and_count_it,
    a_failing_op_rolls_its_whole_batch_back,
    a_take_hands_a_row_out_exactly_once_under_concurrency,
    writes_need_the_current_lease_token,
    a_lease_has_one_owner_until_it_expires_and_tokens_only_grow,
    the_old_owner_is_fenced_out_after_a_takeover,
    a_takeover_lands_between_the_old_owners_writes,
    acquiring_a_missing_connection_says_so,
    deleting_a_connection_or_its_company_removes_its_state_and_lease,
    wiping_removes_every_namespace_of_one_connection_only,
);

/// The lease's time to live in these tests.
const TTL: TimeDelta = TimeDelta::seconds(30);

fn t0() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 30, 9, 0, 0)
        .single()
        .expect("a valid time")
}

fn row(key: &[u8], value: &[u8], aux: i64) -> StateRow {
    StateRow {
        key: key.to_vec(),
        value: value.to_vec(),
        aux,
    }
}

fn put(ns: Ns, key: &[u8], value: &[u8], aux: i64) -> StateOp {
    StateOp::Put {
        ns,
        key: key.to_vec(),
        value: value.to_vec(),
        aux,
    }
}

/// Two connections of two companies, the first leased by "server-a"; with its token.
async fn leased_pair(store: &Store) -> (WhatsappId, WhatsappId, LeaseToken) {
    let (a, b) = two_companies(store).await;
    let first = WhatsappId(connection(store, a, "A's number").await);
    let second = WhatsappId(connection(store, b, "B's number").await);
    let token = store
        .acquire(first, "server-a", t0(), TTL)
        .await
        .expect("acquired")
        .expect("free");
    (first, second, token)
}

async fn every_op_writes_and_reads_what_it_says(store: Store) {
    let (conn, other, fence) = leased_pair(&store).await;
    let other_fence = store
        .acquire(other, "server-b", t0(), TTL)
        .await
        .expect("acquired")
        .expect("free");
    assert_eq!(store.max_aux(conn, Ns::Prekey).await.expect("read"), None);
    assert_eq!(store.get(conn, Ns::Prekey, b"1").await.expect("read"), None);

    // Puts: bytes of any value (a NUL, invalid UTF-8), and one key in several namespaces.
    let written = store
        .apply(
            conn,
            fence,
            &[
                put(Ns::Prekey, &[0, 0, 0, 1], &[0x00, 0xFF, 0xC3], 0),
                put(Ns::Prekey, &[0, 0, 0, 2], b"two", 0),
                put(Ns::Prekey, &[0, 0, 0, 3], b"three", 0),
                put(Ns::Session, &[0, 0, 0, 1], b"not a prekey", 7),
            ],
        )
        .await
        .expect("applied");
    assert_eq!(written, 4);
    assert_eq!(
        store
            .get(conn, Ns::Prekey, &[0, 0, 0, 1])
            .await
            .expect("read"),
        Some(row(&[0, 0, 0, 1], &[0x00, 0xFF, 0xC3], 0))
    );
    assert_eq!(
        store
            .get(conn, Ns::Session, &[0, 0, 0, 1])
            .await
            .expect("read"),
        Some(row(&[0, 0, 0, 1], b"not a prekey", 7))
    );

    // A put replaces value and aux; the other connection's row of the same key stays its own.
    store
        .apply(
            other,
            other_fence,
            &[put(Ns::Prekey, &[0, 0, 0, 2], b"B's two", 9)],
        )
        .await
        .expect("applied");
    assert_eq!(
        store
            .apply(conn, fence, &[put(Ns::Prekey, &[0, 0, 0, 2], b"TWO", 5)])
            .await
            .expect("applied"),
        1
    );
    assert_eq!(
        store
            .get(conn, Ns::Prekey, &[0, 0, 0, 2])
            .await
            .expect("read"),
        Some(row(&[0, 0, 0, 2], b"TWO", 5))
    );
    assert_eq!(
        store
            .get(other, Ns::Prekey, &[0, 0, 0, 2])
            .await
            .expect("read"),
        Some(row(&[0, 0, 0, 2], b"B's two", 9))
    );

    // Several keys at once: the present ones, in key order, each once.
    let many = store
        .get_many(
            conn,
            Ns::Prekey,
            &[
                vec![0, 0, 0, 3],
                vec![0, 0, 0, 9],
                vec![0, 0, 0, 1],
                vec![0, 0, 0, 3],
            ],
        )
        .await
        .expect("read");
    assert_eq!(
        many,
        [
            row(&[0, 0, 0, 1], &[0x00, 0xFF, 0xC3], 0),
            row(&[0, 0, 0, 3], b"three", 0)
        ]
    );
    assert!(
        store
            .get_many(conn, Ns::Prekey, &[])
            .await
            .expect("read")
            .is_empty()
    );
    // More keys than one statement binds.
    let keys: Vec<Vec<u8>> = (0u32..1_200).map(|k| k.to_be_bytes().to_vec()).collect();
    assert_eq!(
        store
            .get_many(conn, Ns::Prekey, &keys)
            .await
            .expect("read")
            .len(),
        3
    );

    // SetAux changes a present row and never creates one (a consumed prekey stays consumed).
    let marked = store
        .apply(
            conn,
            fence,
            &[
                StateOp::SetAux {
                    ns: Ns::Prekey,
                    key: vec![0, 0, 0, 1],
                    aux: 1,
                },
                StateOp::SetAux {
                    ns: Ns::Prekey,
                    key: vec![0, 0, 0, 8],
                    aux: 1,
                },
            ],
        )
        .await
        .expect("applied");
    assert_eq!(marked, 1);
    assert_eq!(
        store
            .get(conn, Ns::Prekey, &[0, 0, 0, 1])
            .await
            .expect("read")
            .map(|r| (r.value, r.aux)),
        Some((vec![0x00, 0xFF, 0xC3], 1))
    );
    assert_eq!(
        store
            .get(conn, Ns::Prekey, &[0, 0, 0, 8])
            .await
            .expect("read"),
        None
    );

    // The largest aux of a namespace (ids: the next prekey id).
    assert_eq!(
        store.max_aux(conn, Ns::Prekey).await.expect("read"),
        Some(5)
    );
    assert_eq!(
        store.max_aux(conn, Ns::Session).await.expect("read"),
        Some(7)
    );
    assert_eq!(
        store.max_aux(other, Ns::Prekey).await.expect("read"),
        Some(9)
    );

    // Delete: the row of this connection and namespace only; a missing key counts none.
    let deleted = store
        .apply(
            conn,
            fence,
            &[
                StateOp::Delete {
                    ns: Ns::Prekey,
                    key: vec![0, 0, 0, 2],
                },
                StateOp::Delete {
                    ns: Ns::Prekey,
                    key: vec![0, 0, 0, 2],
                },
            ],
        )
        .await
        .expect("applied");
    assert_eq!(deleted, 1);
    assert_eq!(
        store
            .get(conn, Ns::Prekey, &[0, 0, 0, 2])
            .await
            .expect("read"),
        None
    );
    assert!(
        store
            .get(other, Ns::Prekey, &[0, 0, 0, 2])
            .await
            .expect("read")
            .is_some(),
        "another company's connection keeps its row"
    );
    assert!(
        store
            .get(conn, Ns::Session, &[0, 0, 0, 1])
            .await
            .expect("read")
            .is_some(),
        "another namespace keeps its row"
    );
    // An empty batch writes nothing and is still fenced.
    assert_eq!(store.apply(conn, fence, &[]).await.expect("applied"), 0);
}

async fn prefixes_and_expiry_sweeps_delete_what_they_name_and_count_it(store: Store) {
    let (conn, other, fence) = leased_pair(&store).await;
    let other_fence = store
        .acquire(other, "server-b", t0(), TTL)
        .await
        .expect("acquired")
        .expect("free");
    // Sender keys per (group, sender); keys at the edges of the byte order.
    let keys: [&[u8]; 7] = [
        b"group1\x00alice",
        b"group1\x00bob",
        b"group1\xFF",
        b"group1\xFF\xFF\x01",
        b"group2\x00alice",
        b"group",
        b"\xFF\xFF",
    ];
    let ops: Vec<StateOp> = keys
        .iter()
        .enumerate()
        .map(|(i, key)| put(Ns::SenderKey, key, b"key", i64::try_from(i).expect("small")))
        .collect();
    assert_eq!(store.apply(conn, fence, &ops).await.expect("applied"), 7);
    store
        .apply(other, other_fence, &ops)
        .await
        .expect("applied");

    let listed = |prefix: &'static [u8]| {
        let store = store.clone();
        async move {
            store
                .list(conn, Ns::SenderKey, prefix)
                .await
                .expect("listed")
                .into_iter()
                .map(|r| r.key)
                .collect::<Vec<_>>()
        }
    };
    assert_eq!(
        listed(b"group1").await,
        [
            b"group1\x00alice".to_vec(),
            b"group1\x00bob".to_vec(),
            b"group1\xFF".to_vec(),
            b"group1\xFF\xFF\x01".to_vec(),
        ]
    );
    assert_eq!(
        listed(b"group1\xFF").await,
        [b"group1\xFF".to_vec(), b"group1\xFF\xFF\x01".to_vec()]
    );
    assert_eq!(listed(b"\xFF").await, [b"\xFF\xFF".to_vec()]);
    assert_eq!(listed(b"").await.len(), 7, "an empty prefix lists them all");
    assert!(listed(b"group3").await.is_empty());

    // A prefix delete counts the rows it removed, in this connection and namespace only.
    let removed = store
        .apply(
            conn,
            fence,
            &[StateOp::DeletePrefix {
                ns: Ns::SenderKey,
                prefix: b"group1".to_vec(),
            }],
        )
        .await
        .expect("applied");
    assert_eq!(removed, 4);
    assert_eq!(
        listed(b"").await,
        [
            b"group".to_vec(),
            b"group2\x00alice".to_vec(),
            b"\xFF\xFF".to_vec()
        ]
    );
    assert_eq!(
        store
            .list(other, Ns::SenderKey, b"group1")
            .await
            .expect("listed")
            .len(),
        4,
        "the other connection keeps its rows"
    );
    // A prefix of 0xFF bytes reaches the end of the key space.
    assert_eq!(
        store
            .apply(
                conn,
                fence,
                &[StateOp::DeletePrefix {
                    ns: Ns::SenderKey,
                    prefix: b"\xFF".to_vec(),
                }],
            )
            .await
            .expect("applied"),
        1
    );

    // Expiry sweeps: rows whose aux is below the cutoff, counted.
    let pending: Vec<StateOp> = (0..10)
        .map(|i: i64| put(Ns::PendingInbound, &i.to_be_bytes(), b"msg", 1_000 + i))
        .collect();
    store.apply(conn, fence, &pending).await.expect("applied");
    let swept = store
        .apply(
            conn,
            fence,
            &[StateOp::DeleteAuxBelow {
                ns: Ns::PendingInbound,
                cutoff: 1_004,
            }],
        )
        .await
        .expect("applied");
    assert_eq!(swept, 4, "aux 1000 to 1003");
    let left: Vec<i64> = store
        .list(conn, Ns::PendingInbound, b"")
        .await
        .expect("listed")
        .into_iter()
        .map(|r| r.aux)
        .collect();
    assert_eq!(left, (1_004..1_010).collect::<Vec<_>>());
    assert_eq!(
        store
            .list(conn, Ns::SenderKey, b"")
            .await
            .expect("listed")
            .len(),
        2,
        "another namespace is not swept"
    );
    // An empty prefix deletes the whole namespace.
    assert_eq!(
        store
            .apply(
                conn,
                fence,
                &[StateOp::DeletePrefix {
                    ns: Ns::PendingInbound,
                    prefix: Vec::new(),
                }],
            )
            .await
            .expect("applied"),
        6
    );
}

/// Installs a test-only trigger that makes writing the key `0xDEAD` fail, as a crash or a
/// refused row in the middle of a batch would (the store has no op that fails by itself).
async fn poison_key_dead(store: &Store) {
    match store.pool() {
        chatflow_store::DbPool::Sqlite(p) => {
            sqlx::query(
                "CREATE TRIGGER test_poison BEFORE INSERT ON channel_session_state \
                 WHEN NEW.k = x'DEAD' BEGIN SELECT RAISE(ABORT, 'poisoned row'); END",
            )
            .execute(p)
            .await
            .expect("trigger created");
        }
        chatflow_store::DbPool::Postgres(p) => {
            sqlx::query(
                "CREATE FUNCTION test_poison() RETURNS trigger LANGUAGE plpgsql AS $$ \
                 BEGIN IF NEW.k = '\\xdead'::bytea THEN RAISE EXCEPTION 'poisoned row'; END IF; \
                 RETURN NEW; END $$",
            )
            .execute(p)
            .await
            .expect("function created");
            sqlx::query(
                "CREATE TRIGGER test_poison BEFORE INSERT ON channel_session_state \
                 FOR EACH ROW EXECUTE FUNCTION test_poison()",
            )
            .execute(p)
            .await
            .expect("trigger created");
        }
    }
}

async fn a_failing_op_rolls_its_whole_batch_back(store: Store) {
    let (conn, _other, fence) = leased_pair(&store).await;
    store
        .apply(
            conn,
            fence,
            &[
                put(Ns::Session, b"kept", b"old", 1),
                put(Ns::Prekey, b"marked", b"p", 0),
                put(Ns::PendingInbound, b"swept", b"m", 10),
            ],
        )
        .await
        .expect("applied");
    poison_key_dead(&store).await;
    let before = store.list(conn, Ns::Session, b"").await.expect("listed");

    // Every kind of op before the failing one, and a put after it.
    let batch = [
        put(Ns::Session, b"new", b"first", 2),
        put(Ns::Session, b"kept", b"overwritten", 3),
        StateOp::SetAux {
            ns: Ns::Prekey,
            key: b"marked".to_vec(),
            aux: 1,
        },
        StateOp::Delete {
            ns: Ns::Session,
            key: b"kept".to_vec(),
        },
        StateOp::DeleteAuxBelow {
            ns: Ns::PendingInbound,
            cutoff: 100,
        },
        put(Ns::Session, &[0xDE, 0xAD], b"fails", 4),
        put(Ns::Session, b"after", b"never", 5),
    ];
    let failed = store
        .apply(conn, fence, &batch)
        .await
        .expect_err("the sixth op fails");
    assert_ne!(failed.code, ErrorCode::ERR_CHANNEL_LEASE_LOST, "{failed}");

    // Nothing of the batch is visible.
    assert_eq!(
        store.list(conn, Ns::Session, b"").await.expect("listed"),
        before
    );
    assert_eq!(
        store.get(conn, Ns::Session, b"new").await.expect("read"),
        None
    );
    assert_eq!(
        store.get(conn, Ns::Session, b"kept").await.expect("read"),
        Some(row(b"kept", b"old", 1))
    );
    assert_eq!(
        store.get(conn, Ns::Prekey, b"marked").await.expect("read"),
        Some(row(b"marked", b"p", 0))
    );
    assert_eq!(
        store
            .get(conn, Ns::PendingInbound, b"swept")
            .await
            .expect("read"),
        Some(row(b"swept", b"m", 10))
    );

    // The same batch without the failing op applies whole.
    let mut healthy = batch.to_vec();
    healthy.remove(5);
    assert_eq!(
        store.apply(conn, fence, &healthy).await.expect("applied"),
        6
    );
    assert_eq!(
        store
            .list(conn, Ns::Session, b"")
            .await
            .expect("listed")
            .into_iter()
            .map(|r| r.key)
            .collect::<Vec<_>>(),
        [b"after".to_vec(), b"new".to_vec()]
    );
}

async fn a_take_hands_a_row_out_exactly_once_under_concurrency(store: Store) {
    let (conn, _other, fence) = leased_pair(&store).await;
    let keys: Vec<Vec<u8>> = (0u16..40).map(|k| k.to_be_bytes().to_vec()).collect();
    let ops: Vec<StateOp> = keys
        .iter()
        .map(|key| put(Ns::SentMessage, key, b"payload", 0))
        .collect();
    store.apply(conn, fence, &ops).await.expect("applied");

    // Two tasks take every key, in opposite orders.
    let racer = |keys: Vec<Vec<u8>>| {
        let store = store.clone();
        tokio::spawn(async move {
            let mut won = Vec::new();
            for key in keys {
                if let Some(taken) = store
                    .take(conn, fence, Ns::SentMessage, &key)
                    .await
                    .expect("take")
                {
                    assert_eq!(taken.key, key);
                    assert_eq!(taken.value, b"payload");
                    won.push(key);
                }
            }
            won
        })
    };
    let first = racer(keys.clone());
    let second = racer(keys.iter().rev().cloned().collect());
    let (first, second) = (
        first.await.expect("first task"),
        second.await.expect("second task"),
    );
    let mut all: Vec<Vec<u8>> = first.iter().chain(&second).cloned().collect();
    all.sort();
    assert_eq!(
        all, keys,
        "each row was handed out once: {first:?} {second:?}"
    );
    assert!(
        store
            .list(conn, Ns::SentMessage, b"")
            .await
            .expect("listed")
            .is_empty()
    );
    assert_eq!(
        store
            .take(conn, fence, Ns::SentMessage, &keys[0])
            .await
            .expect("take"),
        None
    );
}

async fn writes_need_the_current_lease_token(store: Store) {
    let (a, _b) = two_companies(&store).await;
    let conn = WhatsappId(connection(&store, a, "Number").await);
    let write = [put(Ns::Device, b"device", b"identity", 0)];

    // Nobody holds the lease yet: refused.
    let refused = store
        .apply(conn, LeaseToken(1), &write)
        .await
        .expect_err("no lease");
    assert_eq!(refused.code, ErrorCode::ERR_CHANNEL_LEASE_LOST);

    let token = store
        .acquire(conn, "server-a", t0(), TTL)
        .await
        .expect("acquired")
        .expect("free");
    for wrong in [LeaseToken(token.0 - 1), LeaseToken(token.0 + 1)] {
        let refused = store
            .apply(conn, wrong, &write)
            .await
            .expect_err("not the current token");
        assert_eq!(refused.code, ErrorCode::ERR_CHANNEL_LEASE_LOST);
        let refused = store
            .take(conn, wrong, Ns::Device, b"device")
            .await
            .expect_err("not the current token");
        assert_eq!(refused.code, ErrorCode::ERR_CHANNEL_LEASE_LOST);
    }
    assert_eq!(
        store.get(conn, Ns::Device, b"device").await.expect("read"),
        None
    );
    assert_eq!(store.apply(conn, token, &write).await.expect("applied"), 1);

    // The fence is the token, not the time: the holder writes until another process has
    // acquired the lease (after its expiry), whatever its own clock says.
    let late = store
        .apply(conn, token, &[put(Ns::Device, b"device", b"later", 1)])
        .await;
    assert_eq!(late.expect("applied"), 1);

    // Released: the token no longer writes.
    assert!(
        store
            .release(conn, "server-a", token)
            .await
            .expect("released")
    );
    let refused = store
        .apply(conn, token, &write)
        .await
        .expect_err("released");
    assert_eq!(refused.code, ErrorCode::ERR_CHANNEL_LEASE_LOST);
    let refused = store
        .take(conn, token, Ns::Device, b"device")
        .await
        .expect_err("released");
    assert_eq!(refused.code, ErrorCode::ERR_CHANNEL_LEASE_LOST);
    assert_eq!(
        store.get(conn, Ns::Device, b"device").await.expect("read"),
        Some(row(b"device", b"later", 1)),
        "the refused take left the row"
    );
}

async fn a_lease_has_one_owner_until_it_expires_and_tokens_only_grow(store: Store) {
    let (a, b) = two_companies(&store).await;
    let conn = WhatsappId(connection(&store, a, "Number").await);
    let other = WhatsappId(connection(&store, b, "Other").await);
    let at = |seconds: i64| t0() + TimeDelta::seconds(seconds);
    assert_eq!(store.lease(conn).await.expect("read"), None);

    let first = store
        .acquire(conn, "server-a", at(0), TTL)
        .await
        .expect("acquired")
        .expect("free");
    assert_eq!(first, LeaseToken(1));
    let lease = store.lease(conn).await.expect("read").expect("a lease");
    assert_eq!(lease.owner.as_deref(), Some("server-a"));
    assert_eq!(lease.token, first);
    assert_eq!(lease.expires_at, at(30));
    assert!(lease.is_held_at(at(29)) && !lease.is_held_at(at(30)));

    // Held: another owner gets nothing, on this connection; the other connection is free.
    assert_eq!(
        store
            .acquire(conn, "server-b", at(10), TTL)
            .await
            .expect("asked"),
        None
    );
    assert_eq!(
        store
            .acquire(other, "server-b", at(10), TTL)
            .await
            .expect("asked"),
        Some(LeaseToken(1)),
        "tokens are per connection"
    );

    // The holder acquiring again gets a fresh token, which fences its older one out.
    let second = store
        .acquire(conn, "server-a", at(10), TTL)
        .await
        .expect("acquired")
        .expect("ours");
    assert!(second > first);
    assert!(
        !store
            .renew(conn, "server-a", first, at(11), TTL)
            .await
            .expect("asked"),
        "the older token does not renew"
    );

    // Renewing moves the expiry; expiry is what frees it for others.
    assert!(
        store
            .renew(conn, "server-a", second, at(20), TTL)
            .await
            .expect("renewed")
    );
    assert_eq!(
        store.lease(conn).await.expect("read").map(|l| l.expires_at),
        Some(at(50))
    );
    assert!(
        !store
            .renew(conn, "server-b", second, at(20), TTL)
            .await
            .expect("asked"),
        "only the owner renews"
    );
    assert_eq!(
        store
            .acquire(conn, "server-b", at(49), TTL)
            .await
            .expect("asked"),
        None
    );
    // The other connection's lease (taken at 10 s) expires at 40 s, this one's at 50 s.
    assert!(
        store
            .claimable_across_companies(at(39))
            .await
            .expect("scanned")
            .is_empty()
    );
    assert_eq!(
        store
            .claimable_across_companies(at(49))
            .await
            .expect("scanned"),
        [other],
        "expired at its expiry"
    );
    assert_eq!(
        store
            .claimable_across_companies(at(50))
            .await
            .expect("scanned"),
        [conn, other],
        "across companies, in id order"
    );

    // Released: free at once (before its expiry), and the token is not reused.
    assert!(
        store
            .release(conn, "server-a", second)
            .await
            .expect("released")
    );
    assert!(
        !store
            .release(conn, "server-a", second)
            .await
            .expect("asked"),
        "a second release changes nothing"
    );
    let lease = store.lease(conn).await.expect("read").expect("kept");
    assert_eq!((lease.owner, lease.token), (None, second));
    assert_eq!(
        store
            .claimable_across_companies(at(21))
            .await
            .expect("scanned"),
        [conn]
    );
    assert!(
        !store
            .renew(conn, "server-a", second, at(21), TTL)
            .await
            .expect("asked"),
        "a released lease is not renewed"
    );
    let third = store
        .acquire(conn, "server-b", at(21), TTL)
        .await
        .expect("acquired")
        .expect("released");
    assert!(third > second);
    assert!(
        store
            .release(conn, "server-b", third)
            .await
            .expect("released")
    );
    let fourth = store
        .acquire(conn, "server-a", at(22), TTL)
        .await
        .expect("acquired")
        .expect("released");
    assert!(fourth > third, "never reused after a release");
    assert_eq!(
        [first, second, third, fourth].map(|t| t.0),
        [1, 2, 3, 4],
        "each acquisition counts one"
    );
}

async fn the_old_owner_is_fenced_out_after_a_takeover(store: Store) {
    let (conn, _other, old) = leased_pair(&store).await;
    store
        .apply(conn, old, &[put(Ns::Session, b"alice", b"v1", 1)])
        .await
        .expect("the owner writes");

    // server-a stops renewing (it died, or froze); after the expiry server-b takes over.
    let expired = t0() + TTL;
    assert_eq!(
        store
            .claimable_across_companies(expired)
            .await
            .expect("scanned"),
        [conn]
    );
    let new = store
        .acquire(conn, "server-b", expired, TTL)
        .await
        .expect("acquired")
        .expect("expired");
    assert!(new > old, "the takeover's token is greater");
    assert!(
        store
            .claimable_across_companies(expired)
            .await
            .expect("scanned")
            .is_empty()
    );

    // server-a wakes up: its renewal, writes, takes and release are all refused.
    assert!(
        !store
            .renew(conn, "server-a", old, expired, TTL)
            .await
            .expect("asked")
    );
    let refused = store
        .apply(conn, old, &[put(Ns::Session, b"alice", b"stale", 2)])
        .await
        .expect_err("fenced");
    assert_eq!(refused.code, ErrorCode::ERR_CHANNEL_LEASE_LOST);
    let refused = store
        .take(conn, old, Ns::Session, b"alice")
        .await
        .expect_err("fenced");
    assert_eq!(refused.code, ErrorCode::ERR_CHANNEL_LEASE_LOST);
    assert!(
        !store.release(conn, "server-a", old).await.expect("asked"),
        "the old owner cannot release the new owner's lease"
    );
    assert_eq!(
        store
            .acquire(conn, "server-a", expired, TTL)
            .await
            .expect("asked"),
        None,
        "nor take it back while it is held"
    );
    assert_eq!(
        store.get(conn, Ns::Session, b"alice").await.expect("read"),
        Some(row(b"alice", b"v1", 1)),
        "the state is as the old owner last wrote it with its lease"
    );

    // The new owner writes with its token.
    store
        .apply(conn, new, &[put(Ns::Session, b"alice", b"v2", 3)])
        .await
        .expect("the new owner writes");
    let lease = store.lease(conn).await.expect("read").expect("a lease");
    assert_eq!(lease.owner.as_deref(), Some("server-b"));
    assert_eq!(lease.token, new);
}

/// The old owner keeps writing while another process takes the lease over: every write of the
/// old owner either commits before the takeover returns (and the new owner reads it) or is
/// refused. The fence check and the write are one transaction, and the takeover waits for a
/// write in flight (PostgreSQL: the write holds the lease row `FOR SHARE`).
async fn a_takeover_lands_between_the_old_owners_writes(store: Store) {
    let (conn, _other, old) = leased_pair(&store).await;
    // Warm the pool, so that the takeover does not wait for a connection the writer frees (and
    // so land only between two of its writes, whatever the store does).
    let read = || store.get(conn, Ns::Session, b"counter");
    let warm = tokio::join!(read(), read(), read(), read());
    assert!(warm.0.is_ok() && warm.1.is_ok() && warm.2.is_ok() && warm.3.is_ok());
    let writer = {
        let store = store.clone();
        tokio::spawn(async move {
            let mut last_committed = 0i64;
            loop {
                let next = last_committed + 1;
                // A long batch keeps the write's transaction open a while: the counter first,
                // then a hundred more rows.
                let mut write = vec![put(Ns::Session, b"counter", &next.to_be_bytes(), next)];
                write.extend((0u8..100).map(|k| put(Ns::Identity, &[k], &next.to_be_bytes(), 0)));
                match store.apply(conn, old, &write).await {
                    Ok(_) => last_committed = next,
                    Err(refused) => {
                        assert_eq!(refused.code, ErrorCode::ERR_CHANNEL_LEASE_LOST);
                        return last_committed;
                    }
                }
            }
        })
    };
    // Let the old owner write for a while.
    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    let new = store
        .acquire(conn, "server-b", t0() + TTL, TTL)
        .await
        .expect("acquired")
        .expect("expired");
    assert!(new > old);
    let seen = store
        .get(conn, Ns::Session, b"counter")
        .await
        .expect("read")
        .expect("the old owner wrote")
        .aux;
    let last_committed = writer.await.expect("the writer stops at its first refusal");
    assert!(
        last_committed > 0,
        "the old owner wrote before the takeover"
    );
    assert_eq!(
        seen, last_committed,
        "nothing of the old owner committed after the takeover returned"
    );
}

async fn acquiring_a_missing_connection_says_so(store: Store) {
    let missing = store
        .acquire(WhatsappId(424_242), "server-a", t0(), TTL)
        .await
        .expect_err("no such connection");
    assert_eq!(missing.code, ErrorCode::ERR_NO_WAPP_FOUND);
    assert_eq!(store.lease(WhatsappId(424_242)).await.expect("read"), None);
    let refused = store
        .apply(WhatsappId(424_242), LeaseToken(1), &[])
        .await
        .expect_err("no lease");
    assert_eq!(refused.code, ErrorCode::ERR_CHANNEL_LEASE_LOST);
}

/// Rows of `connection` in the state table, counted directly.
async fn state_rows(store: &Store, connection: WhatsappId) -> i64 {
    chatflow_store::on_pool!(store.pool(), |p| {
        sqlx::query_scalar::<_, i64>(
            "SELECT COUNT(*) FROM channel_session_state WHERE whatsapp_id = $1",
        )
        .bind(connection.0)
        .fetch_one(p)
        .await
        .expect("counted")
    })
}

async fn deleting_a_connection_or_its_company_removes_its_state_and_lease(store: Store) {
    let (a, b) = two_companies(&store).await;
    let first = WhatsappId(connection(&store, a, "First").await);
    let second = WhatsappId(connection(&store, a, "Second").await);
    let kept = WhatsappId(connection(&store, b, "B's").await);
    for conn in [first, second, kept] {
        let token = store
            .acquire(conn, "server-a", t0(), TTL)
            .await
            .expect("acquired")
            .expect("free");
        store
            .apply(
                conn,
                token,
                &[
                    put(Ns::Device, b"device", b"identity", 0),
                    put(Ns::Session, b"alice", b"session", 0),
                ],
            )
            .await
            .expect("applied");
    }

    assert!(
        chatflow_core::inbox::ports::ConnectionRepo::delete(&store, a, first)
            .await
            .expect("deleted")
    );
    assert_eq!(state_rows(&store, first).await, 0);
    assert_eq!(store.lease(first).await.expect("read"), None);
    assert_eq!(
        store.get(first, Ns::Device, b"device").await.expect("read"),
        None
    );
    assert_eq!(state_rows(&store, second).await, 2);
    assert_eq!(state_rows(&store, kept).await, 2);

    // Deleting the company takes its connections and so their keys and leases.
    let company = a.company_id().0;
    chatflow_store::on_pool!(store.pool(), |p| {
        sqlx::query("DELETE FROM companies WHERE id = $1")
            .bind(company)
            .execute(p)
            .await
            .map(|_| ())
            .expect("company deleted")
    });
    assert_eq!(state_rows(&store, second).await, 0);
    assert_eq!(store.lease(second).await.expect("read"), None);
    assert_eq!(state_rows(&store, kept).await, 2, "another company's stay");
    assert!(store.lease(kept).await.expect("read").is_some());
    assert_eq!(
        store
            .claimable_across_companies(t0() + TimeDelta::days(1))
            .await
            .expect("scanned"),
        [kept]
    );
}

async fn wiping_removes_every_namespace_of_one_connection_only(store: Store) {
    let (conn, other, fence) = leased_pair(&store).await;
    let other_fence = store
        .acquire(other, "server-b", t0(), TTL)
        .await
        .expect("acquired")
        .expect("free");
    let everything: Vec<StateOp> = Ns::ALL
        .iter()
        .map(|&ns| put(ns, b"key", ns.name().as_bytes(), 1))
        .collect();
    store
        .apply(conn, fence, &everything)
        .await
        .expect("applied");
    store
        .apply(other, other_fence, &everything)
        .await
        .expect("applied");
    let rows = i64::try_from(Ns::ALL.len()).expect("small");
    assert_eq!(state_rows(&store, conn).await, rows);
    for &ns in Ns::ALL {
        assert_eq!(
            store
                .get(conn, ns, b"key")
                .await
                .expect("read")
                .map(|r| r.value),
            Some(ns.name().as_bytes().to_vec()),
            "{ns} kept apart"
        );
    }

    assert_eq!(
        store.wipe(conn).await.expect("wiped"),
        u64::try_from(rows).expect("small")
    );
    assert_eq!(state_rows(&store, conn).await, 0);
    assert_eq!(state_rows(&store, other).await, rows, "the other stays");
    assert_eq!(store.wipe(conn).await.expect("wiped"), 0);
    // The lease is left as it was: the owner goes on (a new pairing) with its token.
    let lease = store.lease(conn).await.expect("read").expect("kept");
    assert_eq!(
        (lease.owner.as_deref(), lease.token),
        (Some("server-a"), fence)
    );
    assert_eq!(
        store
            .apply(conn, fence, &[put(Ns::Device, b"device", b"new", 0)])
            .await
            .expect("applied"),
        1
    );
    // Wiping a connection that never had state, or does not exist, is no error.
    assert_eq!(store.wipe(WhatsappId(424_242)).await.expect("wiped"), 0);
}
