//! Failures in the middle of [`WaBackend`] writes, over the real store on SQLite and PostgreSQL
//! (the PostgreSQL runs are skipped without `CHATFLOW_TEST_POSTGRES_URL`); design Part C item 2
//! (a) and (b).
//!
//! - **A refused row in a batch leaves nothing.** A test-only trigger on
//!   `channel_session_state` refuses every row whose key contains `FAIL` (SQLite
//!   `RAISE(ABORT)`, PostgreSQL `RAISE EXCEPTION`). A batch with such a row in its middle
//!   (`put_sessions_batch`, `store_pending_inbound_batch`, `put_lid_mappings` over two
//!   namespaces) answers `Err`, the table is byte for byte what it was (no row of the batch,
//!   the rows it would have overwritten or deleted unchanged), and the backend then writes the
//!   same batch without that row.
//! - **SIGKILL in the middle of writing.** The test binary runs itself again as a child (the
//!   test [`writer_child_process`], which does nothing unless [`DB_ENV`] is set) that opens the
//!   store on the same database and writes numbered rounds through a `WaBackend` as fast as it
//!   can, printing each round it finished. A round is five batches, each one call: sessions and
//!   identities that overwrite the same addresses, and pending inbound messages, LID mappings
//!   (two namespaces) and prekeys that are new rows; every value carries the round. The parent
//!   SIGKILLs the child after some rounds, reopens the store and checks that every batch is
//!   there whole or not at all (an overwritten address set carries one round), that the batches
//!   there are exactly a prefix of the order they were written in, and that every round the
//!   child printed is there.

use std::future::Future;
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::{Duration, Instant, SystemTime};

use chatflow_core::inbox::lease::{ChannelLeaseRepo, LeaseToken};
use chatflow_core::inbox::session_state::{SessionStateRepo, StateNamespace as Ns};
use chatflow_core::ports::{CompanyRepo, NewCompany, NewPlan, PlanRepo, SecretCipher};
use chatflow_core::tenancy::{Money, PlanFlags, Recurrence};
use chatflow_core::{TenantScope, WhatsappId};
use chatflow_store::{DbPool, Stamps, Store, testing};
use chatflow_system::{SealedSecrets, test_engines};
use chatflow_whatsapp_web::WaBackend;
use chatflow_whatsapp_web::whatsapp_rust::bytes::Bytes;
use chatflow_whatsapp_web::whatsapp_rust::wacore::store::traits::{
    LidPnMappingEntry, PendingInboundRow, ProtocolStore, SignalStore,
};
use chrono::{TimeDelta, Utc};

// =============================================================================================
// (a) A refused row in a batch
// =============================================================================================

/// The chat of the pending inbound messages.
const CHAT: &str = "120363@g.us";

/// Every row whose key contains `FAIL` is refused from now on.
async fn refuse_marked_rows(store: &Store) {
    match store.pool() {
        DbPool::Sqlite(pool) => {
            sqlx::raw_sql(
                "CREATE TRIGGER refuse_marked_rows BEFORE INSERT ON channel_session_state \
                 WHEN instr(NEW.k, CAST('FAIL' AS BLOB)) > 0 \
                 BEGIN SELECT RAISE(ABORT, 'the test refuses this row'); END",
            )
            .execute(pool)
            .await
            .expect("trigger created");
        }
        DbPool::Postgres(pool) => {
            sqlx::raw_sql(
                "CREATE FUNCTION refuse_marked_rows() RETURNS trigger LANGUAGE plpgsql AS $$ \
                 BEGIN \
                   IF position(convert_to('FAIL', 'UTF8') IN NEW.k) > 0 THEN \
                     RAISE EXCEPTION 'the test refuses this row'; \
                   END IF; \
                   RETURN NEW; \
                 END $$; \
                 CREATE TRIGGER refuse_marked_rows BEFORE INSERT ON channel_session_state \
                 FOR EACH ROW EXECUTE FUNCTION refuse_marked_rows();",
            )
            .execute(pool)
            .await
            .expect("trigger created");
        }
    }
}

/// Every row of the connection as stored: `(ns, key, value, aux)` in key order.
async fn table(store: &Store, connection: WhatsappId) -> Vec<(i64, Vec<u8>, Vec<u8>, i64)> {
    chatflow_store::on_pool!(store.pool(), |p| {
        sqlx::query_as(
            "SELECT CAST(ns AS BIGINT), k, v, aux FROM channel_session_state \
             WHERE whatsapp_id = $1 ORDER BY ns, k",
        )
        .bind(connection.0)
        .fetch_all(p)
        .await
        .expect("rows read")
    })
}

fn sessions(rows: &[(&str, &'static [u8])]) -> Vec<(Arc<str>, Bytes)> {
    rows.iter()
        .map(|(address, value)| (Arc::from(*address), Bytes::from_static(value)))
        .collect()
}

fn pending<'a>(rows: &[(&'a str, &'a [u8])]) -> Vec<PendingInboundRow<'a>> {
    rows.iter()
        .map(|&(id, message)| PendingInboundRow {
            chat: CHAT,
            sender: "55@s.whatsapp.net",
            id,
            message,
        })
        .collect()
}

async fn a_refused_row_in_a_batch_leaves_nothing(f: Fixture) {
    let b = f.backend();
    b.put_session("1@s.whatsapp.net", b"old one")
        .await
        .expect("put");
    b.store_pending_inbound(CHAT, "55@s.whatsapp.net", "m1", b"old m1")
        .await
        .expect("put");
    b.put_lid_mapping(&mapping("100@lid", "5511@s.whatsapp.net", 1))
        .await
        .expect("put");
    refuse_marked_rows(&f.store).await;
    let before = table(&f.store, f.connection).await;
    assert_eq!(before.len(), 4, "a session, a message, a mapping both ways");

    // The refused row is the third of four: two rows were written in the transaction before it.
    let batch = [
        ("1@s.whatsapp.net", &b"new one"[..]),
        ("2@s.whatsapp.net", b"new two"),
        ("FAIL@s.whatsapp.net", b"refused"),
        ("3@s.whatsapp.net", b"new three"),
    ];
    assert!(b.put_sessions_batch(&sessions(&batch)).await.is_err());
    assert_eq!(table(&f.store, f.connection).await, before);
    assert_eq!(
        b.get_session("1@s.whatsapp.net").await.expect("get"),
        Some(Bytes::from_static(b"old one"))
    );
    for (address, _) in &batch[1..] {
        assert_eq!(b.get_session(address).await.expect("get"), None);
    }

    let messages = [
        ("m1", &b"new m1"[..]),
        ("m2", b"new m2"),
        ("FAIL", b"refused"),
        ("m3", b"new m3"),
    ];
    assert!(
        b.store_pending_inbound_batch(&pending(&messages))
            .await
            .is_err()
    );
    assert_eq!(table(&f.store, f.connection).await, before);
    assert_eq!(
        b.get_pending_inbound(CHAT, "55@s.whatsapp.net", "m1")
            .await
            .expect("get"),
        Some(b"old m1".to_vec())
    );

    // Two namespaces in one batch, and a LID moving to another phone deletes the old phone's
    // reverse-index row before the refused row: the delete is undone too.
    let mappings = [
        mapping("100@lid", "5522@s.whatsapp.net", 2),
        mapping("200@lid", "5533@s.whatsapp.net", 2),
        mapping("FAIL@lid", "5544@s.whatsapp.net", 2),
        mapping("300@lid", "5555@s.whatsapp.net", 2),
    ];
    assert!(b.put_lid_mappings(&mappings).await.is_err());
    assert_eq!(table(&f.store, f.connection).await, before);
    assert_eq!(
        b.get_pn_mapping("5511@s.whatsapp.net")
            .await
            .expect("get")
            .map(|m| m.lid),
        Some("100@lid".to_owned())
    );
    assert_eq!(
        b.get_lid_mapping("100@lid")
            .await
            .expect("get")
            .map(|m| m.phone_number),
        Some("5511@s.whatsapp.net".to_owned())
    );

    // The refusals wedged nothing: the same batches without the refused row go through.
    let unmarked = |i: usize| i != 2;
    let batch: Vec<_> = batch
        .into_iter()
        .enumerate()
        .filter(|(i, _)| unmarked(*i))
        .map(|(_, row)| row)
        .collect();
    b.put_sessions_batch(&sessions(&batch))
        .await
        .expect("written");
    let messages: Vec<_> = messages
        .into_iter()
        .enumerate()
        .filter(|(i, _)| unmarked(*i))
        .map(|(_, row)| row)
        .collect();
    b.store_pending_inbound_batch(&pending(&messages))
        .await
        .expect("written");
    let mappings: Vec<_> = mappings
        .into_iter()
        .enumerate()
        .filter(|(i, _)| unmarked(*i))
        .map(|(_, row)| row)
        .collect();
    b.put_lid_mappings(&mappings).await.expect("written");
    assert_eq!(
        b.get_session("1@s.whatsapp.net").await.expect("get"),
        Some(Bytes::from_static(b"new one"))
    );
    assert_eq!(
        b.get_pending_inbound(CHAT, "55@s.whatsapp.net", "m3")
            .await
            .expect("get"),
        Some(b"new m3".to_vec())
    );
    assert!(
        b.get_pn_mapping("5511@s.whatsapp.net")
            .await
            .expect("get")
            .is_none()
    );
    // 3 sessions, 3 messages, 3 mappings both ways.
    assert_eq!(table(&f.store, f.connection).await.len(), 12);
}

// =============================================================================================
// (b) SIGKILL in the middle of writing
// =============================================================================================

/// The child's database URL (SQLite or PostgreSQL). The child test does nothing without it.
const DB_ENV: &str = "CHATFLOW_WA_CRASH_DB";
/// The connection the child writes, and its lease token.
const CONNECTION_ENV: &str = "CHATFLOW_WA_CRASH_CONNECTION";
const TOKEN_ENV: &str = "CHATFLOW_WA_CRASH_TOKEN";
/// What the child prints, followed by the number, after each round it finished.
const DONE: &str = "round done ";
/// The parent kills the child soon after it prints this round.
const KILL_AFTER: u32 = 30;
/// A child still running after this stops by itself (should its parent be gone).
const CHILD_LIFETIME: Duration = Duration::from_secs(60);
/// How long the parent waits for the child to reach [`KILL_AFTER`].
const PARENT_PATIENCE: Duration = Duration::from_secs(60);

/// The addresses of the overwritten sessions and identities, and of the messages' senders.
const ADDRESSES: u32 = 4;
/// New rows per round: messages, LID mappings (two rows each), prekeys.
const MESSAGES: u32 = 4;
const MAPPINGS: u32 = 3;
const PREKEYS: u32 = 4;
/// The batches of a round, in the order they are written.
const BATCHES: usize = 5;

fn address(i: u32) -> String {
    format!("10{i}@s.whatsapp.net")
}

fn round_value(round: u32) -> String {
    format!("round {round}")
}

fn message_id(round: u32, i: u32) -> String {
    format!("{round}.{i}")
}

fn message_value(round: u32, i: u32) -> Vec<u8> {
    format!("round {round} message {i}").into_bytes()
}

fn lid(round: u32, i: u32) -> String {
    format!("{round}.{i}@lid")
}

fn phone(round: u32, i: u32) -> String {
    format!("{round}.{i}@s.whatsapp.net")
}

fn prekey_id(round: u32, i: u32) -> u32 {
    round * PREKEYS + i + 1
}

/// An identity key that carries the round in its first four bytes.
fn identity(round: u32) -> [u8; 32] {
    let mut key = [0xab; 32];
    key[..4].copy_from_slice(&round.to_be_bytes());
    key
}

/// One round: five batches, one call each.
async fn write_round(b: &WaBackend, round: u32) {
    let sessions: Vec<(Arc<str>, Bytes)> = (0..ADDRESSES)
        .map(|i| (Arc::from(address(i)), Bytes::from(round_value(round))))
        .collect();
    b.put_sessions_batch(&sessions).await.expect("sessions");

    let rows: Vec<(String, String, Vec<u8>)> = (0..MESSAGES)
        .map(|i| (address(i), message_id(round, i), message_value(round, i)))
        .collect();
    let rows: Vec<PendingInboundRow<'_>> = rows
        .iter()
        .map(|(sender, id, message)| PendingInboundRow {
            chat: CHAT,
            sender,
            id,
            message,
        })
        .collect();
    b.store_pending_inbound_batch(&rows)
        .await
        .expect("messages");

    let mappings: Vec<LidPnMappingEntry> = (0..MAPPINGS)
        .map(|i| mapping(&lid(round, i), &phone(round, i), i64::from(round)))
        .collect();
    b.put_lid_mappings(&mappings).await.expect("mappings");

    let prekeys: Vec<(u32, Bytes)> = (0..PREKEYS)
        .map(|i| (prekey_id(round, i), Bytes::from(round_value(round))))
        .collect();
    b.store_prekeys_batch(&prekeys, false)
        .await
        .expect("prekeys");

    let identities: Vec<(Arc<str>, [u8; 32])> = (0..ADDRESSES)
        .map(|i| (Arc::from(address(i)), identity(round)))
        .collect();
    b.put_identities_batch(&identities)
        .await
        .expect("identities");
}

/// The child: writes rounds until it is killed (or [`CHILD_LIFETIME`] passes). A test that
/// does nothing unless [`DB_ENV`] is set.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn writer_child_process() {
    let Ok(db) = std::env::var(DB_ENV) else {
        return;
    };
    let number = |name: &str| -> i64 {
        std::env::var(name)
            .ok()
            .and_then(|value| value.parse().ok())
            .unwrap_or_else(|| panic!("{name} is a number"))
    };
    let connection = WhatsappId(number(CONNECTION_ENV));
    let token = LeaseToken(number(TOKEN_ENV));
    let store = open(&db).await;
    let b = WaBackend::new(Arc::new(store), cipher(), connection, token);
    let started = Instant::now();
    for round in 0.. {
        write_round(&b, round).await;
        println!("{DONE}{round}");
        if started.elapsed() > CHILD_LIFETIME {
            break;
        }
    }
}

/// Runs the child on the database and SIGKILLs it soon after it prints [`KILL_AFTER`]; the
/// last round it printed.
fn run_and_kill_child(db: &str, connection: WhatsappId, token: LeaseToken) -> u32 {
    let mut command = Command::new(std::env::current_exe().expect("the test binary"));
    command
        .args([
            "writer_child_process",
            "--exact",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(DB_ENV, db)
        .env(CONNECTION_ENV, connection.0.to_string())
        .env(TOKEN_ENV, token.0.to_string())
        // The child is not a test run of its own.
        .env_remove(test_engines::ENGINE_LOG_ENV)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    let mut child = command.spawn().expect("the child starts");
    let stdout = child.stdout.take().expect("its output");
    let (sender, rounds) = mpsc::channel();
    let reader = std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if let Some(round) = line.strip_prefix(DONE).and_then(|n| n.parse::<u32>().ok()) {
                let _ = sender.send(round);
            }
        }
    });
    let deadline = Instant::now() + PARENT_PATIENCE;
    let mut last = None;
    while last.is_none_or(|round| round < KILL_AFTER) {
        match rounds.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
            Ok(round) => last = Some(round),
            Err(RecvTimeoutError::Disconnected) => {
                panic!("the child stopped after round {last:?}: {:?}", child.wait())
            }
            Err(RecvTimeoutError::Timeout) => {
                let _ = child.kill();
                let _ = child.wait();
                panic!("the child did not reach round {KILL_AFTER} (last: {last:?})");
            }
        }
    }
    // A little later, at a point of the round that differs from run to run.
    let jitter = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |t| t.subsec_nanos() % 10_000);
    std::thread::sleep(Duration::from_micros(u64::from(jitter)));
    child.kill().expect("SIGKILL sent");
    let status = child.wait().expect("reaped");
    assert!(!status.success(), "the child was killed, not finished");
    reader.join().expect("the reader ends at the pipe's end");
    // What it printed before dying that was not read yet.
    rounds.try_iter().last().or(last).expect("a round printed")
}

/// The one round all the given values carry (`None` when none is there); panics on a mix (of
/// rounds, or of rows there and missing).
fn one_round(what: &str, rounds: &[Option<u32>]) -> Option<u32> {
    let first = rounds.first().copied().flatten();
    assert!(
        rounds.iter().all(|r| *r == first),
        "{what} of different rounds: {rounds:?}"
    );
    first
}

/// Whether all of a batch's rows are there (`true`) or none (`false`); panics on a part.
fn whole(what: &str, round: u32, there: &[bool]) -> bool {
    let count = there.iter().filter(|t| **t).count();
    assert!(
        count == 0 || count == there.len(),
        "round {round}: {count} of the {} {what} rows",
        there.len()
    );
    count > 0
}

/// The checks after the kill, on a fresh store over the same database.
async fn check_rounds(store: &Store, f: &Fixture, printed: u32) -> usize {
    let b = WaBackend::new(Arc::new(store.clone()), cipher(), f.connection, f.token);
    // The overwritten batches: every address carries the same round.
    let mut session_rounds = Vec::new();
    let mut identity_rounds = Vec::new();
    for i in 0..ADDRESSES {
        session_rounds.push(
            b.get_session(&address(i))
                .await
                .expect("read")
                .map(|value| {
                    let text = std::str::from_utf8(&value).expect("UTF-8").to_owned();
                    text.strip_prefix("round ")
                        .and_then(|n| n.parse().ok())
                        .unwrap_or_else(|| panic!("a session value {text:?}"))
                }),
        );
        identity_rounds.push(
            b.load_identity(&address(i))
                .await
                .expect("read")
                .map(|key| {
                    assert_eq!(key[4..], [0xab; 28]);
                    u32::from_be_bytes(key[..4].try_into().expect("4 bytes"))
                }),
        );
    }
    let session_round = one_round("sessions", &session_rounds);
    let identity_round = one_round("identities", &identity_rounds);

    // Round by round, which of the five batches are there, until a round with none.
    let mut there: Vec<bool> = Vec::new();
    for round in 0.. {
        let mut messages = Vec::new();
        for i in 0..MESSAGES {
            let value = b
                .get_pending_inbound(CHAT, &address(i), &message_id(round, i))
                .await
                .expect("read");
            if let Some(value) = &value {
                assert_eq!(*value, message_value(round, i));
            }
            messages.push(value.is_some());
        }
        let mut mappings = Vec::new();
        for i in 0..MAPPINGS {
            let forward = b.get_lid_mapping(&lid(round, i)).await.expect("read");
            let back = b.get_pn_mapping(&phone(round, i)).await.expect("read");
            for entry in [&forward, &back].into_iter().flatten() {
                assert_eq!(
                    (
                        entry.lid.clone(),
                        entry.phone_number.clone(),
                        entry.updated_at
                    ),
                    (lid(round, i), phone(round, i), i64::from(round))
                );
            }
            mappings.extend([forward.is_some(), back.is_some()]);
        }
        let ids: Vec<u32> = (0..PREKEYS).map(|i| prekey_id(round, i)).collect();
        let prekeys = b.load_prekeys_batch(&ids).await.expect("read");
        for (_, record) in &prekeys {
            assert_eq!(*record, round_value(round).into_bytes());
        }
        let prekeys: Vec<bool> = ids
            .iter()
            .map(|id| prekeys.iter().any(|(found, _)| found == id))
            .collect();
        let batches = [
            session_round.is_some_and(|last| round <= last),
            whole("message", round, &messages),
            whole("LID mapping", round, &mappings),
            whole("prekey", round, &prekeys),
            identity_round.is_some_and(|last| round <= last),
        ];
        if !batches.contains(&true) {
            break;
        }
        there.extend(batches);
    }

    // The batches there are the first ones written: none after the first missing one.
    let committed = there.iter().take_while(|t| **t).count();
    assert!(
        !there[committed..].contains(&true),
        "a batch is missing before later ones: {:?}",
        there.chunks(BATCHES).collect::<Vec<_>>()
    );
    // Every round the child printed is there (and maybe a little more).
    let printed_batches = (printed as usize + 1) * BATCHES;
    assert!(
        committed >= printed_batches,
        "{committed} batches there, {printed_batches} printed"
    );
    // No row of a later round anywhere (the scan above stopped at the first empty round).
    let rounds_with = |batch: usize| {
        there
            .iter()
            .skip(batch)
            .step_by(BATCHES)
            .filter(|t| **t)
            .count()
    };
    let rows = |ns| async move {
        SessionStateRepo::list(store, f.connection, ns, b"")
            .await
            .expect("rows listed")
            .len()
    };
    assert_eq!(
        rows(Ns::Session).await,
        ADDRESSES as usize * rounds_with(0).min(1)
    );
    assert_eq!(
        rows(Ns::PendingInbound).await,
        MESSAGES as usize * rounds_with(1)
    );
    assert_eq!(rows(Ns::LidToPn).await, MAPPINGS as usize * rounds_with(2));
    assert_eq!(rows(Ns::PnToLid).await, MAPPINGS as usize * rounds_with(2));
    assert_eq!(rows(Ns::Prekey).await, PREKEYS as usize * rounds_with(3));
    assert_eq!(
        rows(Ns::Identity).await,
        ADDRESSES as usize * rounds_with(4).min(1)
    );
    committed
}

async fn a_sigkill_while_writing_leaves_every_batch_whole(f: Fixture) {
    // The child gets the database, not this process's pool, which is closed first: the checks
    // run on a store opened after the kill, as a restarted server would open it.
    f.store.close().await;
    let db = f.url.clone();
    let started = Instant::now();
    let printed = {
        let db = db.clone();
        let (connection, token) = (f.connection, f.token);
        tokio::task::spawn_blocking(move || run_and_kill_child(&db, connection, token))
            .await
            .expect("the child ran")
    };
    let killed_after = started.elapsed();
    let store = open(&db).await;
    let committed = check_rounds(&store, &f, printed).await;
    store.close().await;
    eprintln!(
        "killed after {killed_after:?}: round {printed} printed, {committed} batches there \
         ({} rounds and {} batches)",
        committed / BATCHES,
        committed % BATCHES
    );
}

// =============================================================================================
// Engines
// =============================================================================================

/// A store with one company and one connection, leased; and how another process opens the same
/// database (its URL).
struct Fixture {
    store: Store,
    connection: WhatsappId,
    token: LeaseToken,
    url: String,
}

impl Fixture {
    fn backend(&self) -> WaBackend {
        WaBackend::new(
            Arc::new(self.store.clone()),
            cipher(),
            self.connection,
            self.token,
        )
    }
}

fn cipher() -> Arc<dyn SecretCipher> {
    Arc::new(
        SealedSecrets::from_key_text("a test key of at least thirty-two characters")
            .expect("a key"),
    )
}

fn stamps() -> Stamps {
    Stamps::new(
        Arc::new(chatflow_system::SystemClock),
        Arc::new(chatflow_system::RandomIds),
    )
}

fn mapping(lid: &str, phone: &str, at: i64) -> LidPnMappingEntry {
    LidPnMappingEntry {
        lid: lid.to_owned(),
        phone_number: phone.to_owned(),
        created_at: at,
        updated_at: at,
        learning_source: "usync".to_owned(),
    }
}

/// Another store over the database at `url`.
async fn open(url: &str) -> Store {
    Store::connect(url, stamps())
        .await
        .expect("the database opens")
}

async fn fixture(store: Store, url: String) -> Fixture {
    let plan = PlanRepo::create(
        &store,
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
        &store,
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
    let connection = WhatsappId(chatflow_store::on_pool!(store.pool(), |p| {
        sqlx::query_scalar::<_, i64>(
            "INSERT INTO whatsapps (company_id, name) VALUES ($1, $2) RETURNING id",
        )
        .bind(scope.company_id().0)
        .bind("A's number")
        .fetch_one(p)
        .await
        .expect("connection inserted")
    }));
    let token = store
        .acquire(connection, "server-a", Utc::now(), TimeDelta::hours(1))
        .await
        .expect("acquired")
        .expect("free");
    Fixture {
        store,
        connection,
        token,
        url,
    }
}

/// Runs `test` on a migrated store over a new SQLite file, with the fixture's company and
/// connection.
async fn on_sqlite<F, Fut>(test: F)
where
    F: FnOnce(Fixture) -> Fut + Send + 'static,
    Fut: Future<Output = ()> + Send + 'static,
{
    testing::on_sqlite(stamps(), true, |store, url| async move {
        test(fixture(store, url).await).await;
    })
    .await;
}

/// Runs `test` on a migrated store over a new PostgreSQL database, dropped afterwards.
async fn on_postgres<F, Fut>(test: F)
where
    F: FnOnce(Fixture) -> Fut + Send + 'static,
    Fut: Future<Output = ()> + Send + 'static,
{
    testing::on_postgres(stamps(), true, |store, url| async move {
        test(fixture(store, url).await).await;
    })
    .await;
}

/// One test per engine for each listed `async fn(Fixture)`.
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

engine_tests!(
    a_refused_row_in_a_batch_leaves_nothing,
    a_sigkill_while_writing_leaves_every_batch_whole,
);
