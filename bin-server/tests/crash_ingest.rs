//! A server killed mid-ingest loses nothing and duplicates nothing.
//!
//! The real `chatflow-server` binary runs on a SQLite file with the sandbox on. Simulated phones
//! queue 200 messages through `POST /sandbox/{id}/send` while the connection is still pairing, so
//! the whole batch is waiting when the QR code is scanned; the server is SIGKILLed while it
//! works through them, restarted on the same file, killed again mid-way when there is still
//! work, and restarted once more. Then every message is stored exactly once (by external id),
//! each phone has one contact and one open ticket whose unread count equals its messages, and
//! the sandbox's queue is empty.

mod process;

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::time::{Duration, Instant};

use futures::StreamExt;
use process::{Server, call};
use reqwest::{Client, StatusCode};
use serde_json::{Value, json};
use sqlx::SqlitePool;
use sqlx::sqlite::SqliteConnectOptions;

const ADMIN_EMAIL: &str = "crash@chatflow.test";
const ADMIN_PASSWORD: &str = "Crash-password-1";
const MESSAGES: usize = 200;
const PHONES: usize = 5;

async fn wait_for_status(client: &Client, server: &Server, token: &str, id: i64, status: &str) {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let connection = call(
            client,
            reqwest::Method::GET,
            format!("{}/whatsapp/{id}", server.base),
            token,
            Value::Null,
        )
        .await;
        if connection["status"] == status {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "connection {id} never reached {status}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// A read-only view of the database file, as the server leaves it.
async fn reader(dir: &Path) -> SqlitePool {
    let options = SqliteConnectOptions::new()
        .filename(dir.join("chatflow.db"))
        .read_only(true);
    SqlitePool::connect_with(options)
        .await
        .expect("the file opens")
}

async fn stored(db: &SqlitePool, connection: i64) -> i64 {
    sqlx::query_scalar("SELECT COUNT(*) FROM messages WHERE whatsapp_id = $1")
        .bind(connection)
        .fetch_one(db)
        .await
        .expect("counted")
}

/// Waits until some, but not all, of the batch is stored, and returns how many; `None` when the
/// server finished the batch before that could be seen.
async fn partly_stored(db: &SqlitePool, connection: i64, at_least: i64) -> Option<i64> {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let count = stored(db, connection).await;
        if count >= MESSAGES as i64 {
            return None;
        }
        if count >= at_least {
            return Some(count);
        }
        assert!(
            Instant::now() < deadline,
            "ingestion never started ({count} stored)"
        );
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_killed_mid_ingest_loses_and_duplicates_nothing() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let database_url = process::sqlite_url(dir.path());
    let client = process::client();
    let server = Server::start(
        dir.path(),
        &database_url,
        (ADMIN_EMAIL, ADMIN_PASSWORD),
        &[],
    )
    .await;
    let token = server.login(&client).await;
    let created = call(
        &client,
        reqwest::Method::POST,
        format!("{}/whatsapp", server.base),
        &token,
        json!({"name": "Line"}),
    )
    .await;
    let connection = created["id"].as_i64().expect("the connection's id");
    call(
        &client,
        reqwest::Method::POST,
        format!("{}/whatsappsession/{connection}", server.base),
        &token,
        json!({}),
    )
    .await;
    wait_for_status(&client, &server, &token, connection, "qrcode").await;

    // The phones write while the connection is pairing: the batch waits in the sandbox's queue.
    let phones: Vec<String> = (1..=PHONES).map(|i| format!("551198880000{i}")).collect();
    let sends = (0..MESSAGES).map(|i| {
        let (client, token, base) = (client.clone(), token.clone(), server.base.clone());
        let from = phones[i % PHONES].clone();
        async move {
            let sent = call(
                &client,
                reqwest::Method::POST,
                format!("{base}/sandbox/{connection}/send"),
                &token,
                json!({"from": from, "name": format!("Phone {from}"), "body": format!("mensagem {i}")}),
            )
            .await;
            (from, sent["externalId"].as_str().expect("externalId").to_owned())
        }
    });
    let sent: Vec<(String, String)> = futures::stream::iter(sends)
        .buffer_unordered(8)
        .collect()
        .await;
    let expected: HashSet<&str> = sent.iter().map(|(_, id)| id.as_str()).collect();
    assert_eq!(expected.len(), MESSAGES, "every send got its own id");

    // Scanning connects the session; the server starts on the batch and is killed mid-way.
    let db = reader(dir.path()).await;
    assert_eq!(
        stored(&db, connection).await,
        0,
        "nothing is delivered while pairing"
    );
    let scanned = client
        .post(format!("{}/sandbox/{connection}/scan", server.base))
        .bearer_auth(&token)
        .send()
        .await
        .expect("scan answers");
    assert_eq!(scanned.status(), StatusCode::NO_CONTENT);
    let at_kill = partly_stored(&db, connection, 10)
        .await
        .expect("the server was still ingesting when killed");
    server.kill();
    assert!(at_kill < MESSAGES as i64);
    eprintln!("killed with {at_kill} of {MESSAGES} messages stored");

    // Restarted on the same file, it resumes; killed once more if there is work left.
    let server = Server::start(
        dir.path(),
        &database_url,
        (ADMIN_EMAIL, ADMIN_PASSWORD),
        &[],
    )
    .await;
    if let Some(again) = partly_stored(&db, connection, at_kill + 10).await {
        server.kill();
        eprintln!("killed again with {again} stored");
        let _server = Server::start(
            dir.path(),
            &database_url,
            (ADMIN_EMAIL, ADMIN_PASSWORD),
            &[],
        )
        .await;
        wait_until_drained(&db, connection).await;
    } else {
        wait_until_drained(&db, connection).await;
    }

    // Every message exactly once, nothing else.
    let rows: Vec<(String, i64)> = sqlx::query_as(
        "SELECT external_id, COUNT(*) FROM messages WHERE whatsapp_id = $1 GROUP BY external_id",
    )
    .bind(connection)
    .fetch_all(&db)
    .await
    .expect("read");
    let duplicated: Vec<&(String, i64)> = rows.iter().filter(|(_, n)| *n != 1).collect();
    assert!(
        duplicated.is_empty(),
        "stored more than once: {duplicated:?}"
    );
    let stored_ids: HashSet<&str> = rows.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(stored_ids, expected);

    // One contact and one open ticket per phone, unread = that phone's messages.
    let tickets: Vec<(String, i64, i64)> = sqlx::query_as(
        "SELECT c.number, COUNT(*), SUM(t.unread_messages) FROM tickets t \
         JOIN contacts c ON c.id = t.contact_id \
         WHERE t.whatsapp_id = $1 AND t.status <> 'closed' GROUP BY c.number",
    )
    .bind(connection)
    .fetch_all(&db)
    .await
    .expect("read");
    let per_phone: HashMap<&str, usize> = sent.iter().fold(HashMap::new(), |mut map, (from, _)| {
        *map.entry(from.as_str()).or_default() += 1;
        map
    });
    assert_eq!(tickets.len(), PHONES, "{tickets:?}");
    for (number, open, unread) in &tickets {
        assert_eq!(*open, 1, "{number} has {open} open tickets");
        assert_eq!(
            *unread as usize,
            per_phone[number.as_str()],
            "{number}'s unread count"
        );
    }
    let contacts: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM contacts")
        .fetch_one(&db)
        .await
        .expect("read");
    assert_eq!(contacts, PHONES as i64);
    db.close().await;
}

/// Waits until the sandbox's queue is empty and the whole batch is stored.
async fn wait_until_drained(db: &SqlitePool, connection: i64) {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let waiting: i64 = sqlx::query_scalar(
            "SELECT COUNT(*) FROM sandbox_inbound WHERE whatsapp_id = $1 AND delivered_at IS NULL",
        )
        .bind(connection)
        .fetch_one(db)
        .await
        .expect("counted");
        let count = stored(db, connection).await;
        if waiting == 0 && count >= MESSAGES as i64 {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "still {waiting} queued and {count} stored after a minute"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
