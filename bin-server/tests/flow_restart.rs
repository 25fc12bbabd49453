//! A flow waiting in an interval survives a killed server.
//!
//! The real `chatflow-server` binary runs with the sandbox on, on a SQLite file and (when
//! `CHATFLOW_TEST_POSTGRES_URL` is set) on a fresh PostgreSQL database. A connection's welcome
//! flow says "Um momento", waits 3 seconds and says "Voltei". A simulated phone writes; as soon
//! as the first text reaches the phone the server is SIGKILLed, in the middle of the interval.
//! A new server process on the same database resumes the run from its stored state and its
//! durable timer: the phone receives "Voltei" exactly once, and the run has ended.
//!
//! This is also the proof that the real background worker picks up due work by itself (the
//! in-process API tests run due jobs explicitly on a manual clock). "Exactly once" is not
//! proven by waiting: once the job queue is empty (the timer's job is settled) nothing is left
//! that could send, and the phone holds the two texts.

mod process;

use std::path::Path;
use std::time::{Duration, Instant};

use chatflow_core::jobs::JobQueue;
use process::{Server, call};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

const ADMIN_EMAIL: &str = "restart@chatflow.test";
const ADMIN_PASSWORD: &str = "Restart-password-1";
const PHONE: &str = "5511987790001";

/// Polls `what` until `ready` holds (20 s at most).
async fn until<F, Fut>(label: &str, what: F, ready: impl Fn(&Value) -> bool) -> Value
where
    F: Fn() -> Fut,
    Fut: std::future::Future<Output = Value>,
{
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let value = what().await;
        if ready(&value) {
            return value;
        }
        assert!(Instant::now() < deadline, "{label} never happened: {value}");
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}

fn bodies(received: &Value) -> Vec<String> {
    received
        .as_array()
        .map(|items| {
            items
                .iter()
                .map(|m| m["body"].as_str().unwrap_or_default().to_owned())
                .collect()
        })
        .unwrap_or_default()
}

async fn the_interval_resumes_after_a_kill(dir: &Path, database_url: &str) {
    let client = process::client();
    let server = Server::start(
        dir,
        database_url,
        (ADMIN_EMAIL, ADMIN_PASSWORD),
        &[(
            "CHATFLOW_JWT_SECRET",
            "restart-test-secret-restart-test-secret",
        )],
    )
    .await;
    let token = server.login(&client).await;
    let base = server.base.clone();
    let line = call(
        &client,
        Method::POST,
        format!("{base}/whatsapp"),
        &token,
        json!({"name": "Line"}),
    )
    .await["id"]
        .as_i64()
        .expect("the connection's id");
    call(
        &client,
        Method::POST,
        format!("{base}/whatsappsession/{line}"),
        &token,
        json!({}),
    )
    .await;
    until(
        "the QR code",
        || {
            call(
                &client,
                Method::GET,
                format!("{base}/whatsapp/{line}"),
                &token,
                Value::Null,
            )
        },
        |c| c["status"] == "qrcode",
    )
    .await;
    let scanned = client
        .post(format!("{base}/sandbox/{line}/scan"))
        .bearer_auth(&token)
        .json(&json!({}))
        .send()
        .await
        .expect("scanned");
    assert_eq!(scanned.status(), StatusCode::NO_CONTENT);
    until(
        "the pairing",
        || {
            call(
                &client,
                Method::GET,
                format!("{base}/whatsapp/{line}"),
                &token,
                Value::Null,
            )
        },
        |c| c["status"] == "CONNECTED",
    )
    .await;

    let flow = call(
        &client,
        Method::POST,
        format!("{base}/flowbuilder"),
        &token,
        json!({"name": "Espera"}),
    )
    .await["id"]
        .as_i64()
        .expect("the flow's id");
    call(
        &client,
        Method::POST,
        format!("{base}/flowbuilder/flow"),
        &token,
        json!({
            "idFlow": flow,
            "nodes": [
                {"id": "1", "type": "start", "position": {"x": 0, "y": 0}, "data": {"label": "Início"}},
                {"id": "a", "type": "message", "position": {"x": 0, "y": 100}, "data": {"label": "Um momento"}},
                {"id": "w", "type": "interval", "position": {"x": 0, "y": 200}, "data": {"sec": 3}},
                {"id": "b", "type": "message", "position": {"x": 0, "y": 300}, "data": {"label": "Voltei"}}
            ],
            "connections": [
                {"id": "e1", "source": "1", "target": "a"},
                {"id": "e2", "source": "a", "target": "w"},
                {"id": "e3", "source": "w", "target": "b"}
            ]
        }),
    )
    .await;
    call(
        &client,
        Method::POST,
        format!("{base}/flowbuilder/{flow}/publish"),
        &token,
        json!({}),
    )
    .await;
    call(
        &client,
        Method::PUT,
        format!("{base}/whatsapp/{line}"),
        &token,
        json!({"name": "Line", "isDefault": true, "flowIdWelcome": flow}),
    )
    .await;

    call(
        &client,
        Method::POST,
        format!("{base}/sandbox/{line}/send"),
        &token,
        json!({"from": PHONE, "name": "Maria", "body": "oi"}),
    )
    .await;
    let inbox = format!("{base}/sandbox/{line}/inbox?to={PHONE}");
    let first = until(
        "the first text",
        || call(&client, Method::GET, inbox.clone(), &token, Value::Null),
        |r| !bodies(r).is_empty(),
    )
    .await;
    assert_eq!(bodies(&first), vec!["Um momento"]);
    let killed_at = Instant::now();
    server.kill();

    let server = Server::start(
        dir,
        database_url,
        (ADMIN_EMAIL, ADMIN_PASSWORD),
        &[(
            "CHATFLOW_JWT_SECRET",
            "restart-test-secret-restart-test-secret",
        )],
    )
    .await;
    let token = server.login(&client).await;
    let inbox = format!("{}/sandbox/{line}/inbox?to={PHONE}", server.base);
    let after = until(
        "the text after the interval",
        || call(&client, Method::GET, inbox.clone(), &token, Value::Null),
        |r| bodies(r).len() >= 2,
    )
    .await;
    assert!(
        killed_at.elapsed() >= Duration::from_secs(2),
        "the interval was not waited for"
    );
    // Nothing more can come: the timer's job is settled and none is left (the connection's
    // delivery look, due minutes later, is upkeep and stays).
    let store = chatflow_wiring::Wiring::new()
        .connect(database_url)
        .await
        .expect("the database opens");
    let deadline = Instant::now() + Duration::from_secs(20);
    let soon = || chrono::Utc::now() + chrono::TimeDelta::seconds(60);
    while JobQueue::next_due(&store)
        .await
        .expect("the job queue")
        .is_some_and(|at| at <= soon())
    {
        assert!(
            Instant::now() < deadline,
            "the timer's job was never settled"
        );
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    store.close().await;
    let settled = call(&client, Method::GET, inbox, &token, Value::Null).await;
    assert_eq!(bodies(&after), vec!["Um momento", "Voltei"]);
    assert_eq!(bodies(&settled), vec!["Um momento", "Voltei"]);
    let stats = call(
        &client,
        Method::GET,
        format!("{}/flowbuilder/{flow}/stats", server.base),
        &token,
        Value::Null,
    )
    .await;
    assert!(stats.to_string().contains("\"b\""), "{stats}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flow_interval_resumes_after_a_kill_on_sqlite() {
    process::on_sqlite(
        |dir, url| async move { the_interval_resumes_after_a_kill(&dir, &url).await },
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flow_interval_resumes_after_a_kill_on_postgres() {
    process::on_postgres("chatflow_restart", |dir, url| async move {
        the_interval_resumes_after_a_kill(&dir, &url).await
    })
    .await;
}
