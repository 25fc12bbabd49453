//! A server killed while scheduled messages fall due loses none and sends none twice.
//!
//! The real `chatflow-server` binary runs with the sandbox on, on a SQLite file and (when
//! `CHATFLOW_TEST_POSTGRES_URL` is set) on a fresh PostgreSQL database, with a short job lease
//! (`CHATFLOW_JOB_LEASE`) so a job the dead server held is run again within seconds. Each round
//! makes 60 schedules for 60 new phones due at the same instant, SIGKILLs the server a little
//! after that instant (a different offset each round), and starts a new server on the same
//! database. Then every schedule of the round is `ENVIADA` with one send, each phone received
//! its message exactly once, no outbound message is left unsent, and no send job is left. At
//! least one round must have been killed with a send claimed and not recorded (the window that
//! used to lose a send), or the test did not exercise anything.

mod process;

use std::path::Path;
use std::time::{Duration, Instant};

use chrono::Utc;
use futures::StreamExt;
use process::{Server, call};
use reqwest::{Client, Method, StatusCode};
use serde_json::{Value, json};
use sqlx::sqlite::SqliteConnectOptions;

const ADMIN_EMAIL: &str = "schedules@chatflow.test";
const ADMIN_PASSWORD: &str = "Schedules-password-1";
const SECRET: (&str, &str) = (
    "CHATFLOW_JWT_SECRET",
    "schedule-crash-secret-schedule-crash-secret",
);
const LEASE: (&str, &str) = ("CHATFLOW_JOB_LEASE", "2");
const PER_ROUND: usize = 60;
/// How long after the common due instant each round's server is killed.
const KILL_OFFSETS_MS: [u64; 4] = [30, 90, 200, 450];

/// The database as the server leaves it, read beside the server.
enum Db {
    Sqlite(sqlx::SqlitePool),
    Postgres(sqlx::PgPool),
}

impl Db {
    async fn open(dir: &Path, url: &str) -> Db {
        if url.starts_with("sqlite:") {
            let options = SqliteConnectOptions::new()
                .filename(dir.join("chatflow.db"))
                .read_only(true);
            Db::Sqlite(
                sqlx::SqlitePool::connect_with(options)
                    .await
                    .expect("the file opens"),
            )
        } else {
            Db::Postgres(
                sqlx::PgPool::connect(url)
                    .await
                    .expect("PostgreSQL answers"),
            )
        }
    }

    /// One integer (a count) from `sql`, which binds nothing.
    async fn count(&self, sql: String) -> i64 {
        match self {
            Db::Sqlite(pool) => {
                sqlx::query_scalar::<_, i64>(sqlx::AssertSqlSafe(sql))
                    .fetch_one(pool)
                    .await
            }
            Db::Postgres(pool) => {
                sqlx::query_scalar::<_, i64>(sqlx::AssertSqlSafe(sql))
                    .fetch_one(pool)
                    .await
            }
        }
        .expect("counted")
    }
}

async fn until<F, Fut>(label: &str, seconds: u64, what: F, ready: impl Fn(&Value) -> bool) -> Value
where
    F: Fn() -> Fut,
    Fut: std::future::Future<Output = Value>,
{
    let deadline = Instant::now() + Duration::from_secs(seconds);
    loop {
        let value = what().await;
        if ready(&value) {
            return value;
        }
        assert!(Instant::now() < deadline, "{label} never happened: {value}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

async fn start(dir: &Path, url: &str) -> Server {
    Server::start(dir, url, (ADMIN_EMAIL, ADMIN_PASSWORD), &[SECRET, LEASE]).await
}

/// A connected sandbox line; its id.
async fn connected_line(client: &Client, server: &Server, token: &str) -> i64 {
    let base = &server.base;
    let line = call(
        client,
        Method::POST,
        format!("{base}/whatsapp"),
        token,
        json!({"name": "Line", "isDefault": true}),
    )
    .await["id"]
        .as_i64()
        .expect("the connection's id");
    call(
        client,
        Method::POST,
        format!("{base}/whatsappsession/{line}"),
        token,
        json!({}),
    )
    .await;
    let status = |wanted: &'static str| {
        until(
            wanted,
            20,
            move || {
                call(
                    client,
                    Method::GET,
                    format!("{base}/whatsapp/{line}"),
                    token,
                    Value::Null,
                )
            },
            move |c| c["status"] == wanted,
        )
    };
    status("qrcode").await;
    let scanned = client
        .post(format!("{base}/sandbox/{line}/scan"))
        .bearer_auth(token)
        .json(&json!({}))
        .send()
        .await
        .expect("scanned");
    assert_eq!(scanned.status(), StatusCode::NO_CONTENT);
    status("CONNECTED").await;
    line
}

/// One round: 60 schedules due at once, a kill `offset` after the due instant, a restart.
/// Answers the restarted server and whether the kill left a send claimed and not recorded.
#[allow(clippy::too_many_arguments)]
async fn round(
    dir: &Path,
    url: &str,
    db: &Db,
    server: Server,
    line: i64,
    number: usize,
    offset: Duration,
) -> (Server, bool) {
    let client = process::client();
    let token = server.login(&client).await;
    let base = server.base.clone();
    let phones: Vec<String> = (0..PER_ROUND)
        .map(|i| format!("55119{number:02}77{i:04}"))
        .collect();
    let due = Utc::now() + chrono::TimeDelta::milliseconds(3500);
    let made = phones.iter().map(|phone| {
        let (client, token, base) = (client.clone(), token.clone(), base.clone());
        let phone = phone.clone();
        async move {
            let contact = call(
                &client,
                Method::POST,
                format!("{base}/contacts"),
                &token,
                json!({"name": format!("Phone {phone}"), "number": phone}),
            )
            .await["id"]
                .as_i64()
                .expect("the contact's id");
            call(
                &client,
                Method::POST,
                format!("{base}/schedules"),
                &token,
                json!({
                    "body": format!("Lembrete para {phone}"),
                    "contactId": contact,
                    "whatsappId": line,
                    "sendAt": due.to_rfc3339(),
                }),
            )
            .await["id"]
                .as_i64()
                .expect("the schedule's id")
        }
    });
    let schedules: Vec<i64> = futures::stream::iter(made)
        .buffer_unordered(8)
        .collect()
        .await;
    let wait = (due - Utc::now()).to_std().unwrap_or_default() + offset;
    assert!(
        wait > offset,
        "round {number}: making the schedules took past their due time"
    );
    tokio::time::sleep(wait).await;
    server.kill();

    let ids = schedules
        .iter()
        .map(i64::to_string)
        .collect::<Vec<_>>()
        .join(", ");
    let open_claims = db
        .count(format!(
            "SELECT COUNT(*) FROM schedules WHERE id IN ({ids}) AND claimed_revision IS NOT NULL"
        ))
        .await;
    let sent_at_kill = db
        .count(format!(
            "SELECT COUNT(*) FROM schedules WHERE id IN ({ids}) AND status = 'ENVIADA'"
        ))
        .await;
    eprintln!(
        "round {number}: killed {} ms after the due time with {sent_at_kill} of {PER_ROUND} \
         sent and {open_claims} claimed mid-send",
        offset.as_millis()
    );

    let server = start(dir, url).await;
    let token = server.login(&client).await;
    let base = server.base.clone();
    for id in &schedules {
        let done = until(
            "the send",
            40,
            || {
                call(
                    &client,
                    Method::GET,
                    format!("{base}/schedules/{id}"),
                    &token,
                    Value::Null,
                )
            },
            |s| s["status"] != "PENDENTE" && s["status"] != "AGENDADA",
        )
        .await;
        assert_eq!(done["status"], "ENVIADA", "round {number}: {done}");
        assert_eq!(done["sends"], 1, "round {number}: {done}");
    }
    // Every send job is settled (none waits to run again), so nothing more can be sent.
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let left = db
            .count("SELECT COUNT(*) FROM jobs WHERE kind = 'sendSchedule'".to_owned())
            .await;
        if left == 0 {
            break;
        }
        assert!(Instant::now() < deadline, "{left} send jobs never settled");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let received = call(
        &client,
        Method::GET,
        format!("{base}/sandbox/{line}/inbox"),
        &token,
        Value::Null,
    )
    .await;
    let received = received.as_array().expect("a list");
    for phone in &phones {
        let bodies: Vec<&str> = received
            .iter()
            .filter(|m| m["to"] == phone.as_str())
            .map(|m| m["body"].as_str().unwrap_or_default())
            .collect();
        assert_eq!(
            bodies,
            [format!("Lembrete para {phone}").as_str()],
            "round {number}: what {phone} received"
        );
    }
    let unsent = db
        .count(format!(
            "SELECT COUNT(*) FROM messages WHERE whatsapp_id = {line} AND from_me \
             AND external_id IS NULL"
        ))
        .await;
    assert_eq!(unsent, 0, "round {number}: outbound messages left unsent");
    (server, open_claims > 0)
}

async fn due_schedules_survive_kills(dir: &Path, url: &str) {
    let client = process::client();
    let server = start(dir, url).await;
    let token = server.login(&client).await;
    let line = connected_line(&client, &server, &token).await;
    let db = Db::open(dir, url).await;
    let mut server = server;
    let mut mid_send = 0;
    for (number, offset) in KILL_OFFSETS_MS.into_iter().enumerate() {
        let (next, claimed) = round(
            dir,
            url,
            &db,
            server,
            line,
            number,
            Duration::from_millis(offset),
        )
        .await;
        server = next;
        mid_send += usize::from(claimed);
    }
    assert!(
        mid_send > 0,
        "no round was killed in the middle of a send; the test exercised nothing"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn due_schedules_survive_kills_on_sqlite() {
    process::on_sqlite(|dir, url| async move { due_schedules_survive_kills(&dir, &url).await })
        .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn due_schedules_survive_kills_on_postgres() {
    process::on_postgres("chatflow_schedules", |dir, url| async move {
        due_schedules_survive_kills(&dir, &url).await
    })
    .await;
}
