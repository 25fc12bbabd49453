//! The transport under attack: half-sent requests, many connections from one address, and the
//! security headers on every answer. The listener does not depend on the database engine, so
//! these run on SQLite only.

use std::net::SocketAddr;
use std::time::Duration;

use reqwest::StatusCode;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};

use crate::helpers::{Backend, TestApp, run};

/// Where the attacking connections come from: another loopback address than the test's client,
/// so the per-address cap can be seen refusing the one and serving the other.
const ATTACKER: [u8; 4] = [127, 0, 0, 2];

async fn connect_from(source: [u8; 4], app: &TestApp) -> TcpStream {
    let server: SocketAddr = app.host.parse().expect("the server's address");
    let socket = TcpSocket::new_v4().expect("a socket");
    socket
        .bind(SocketAddr::from((source, 0)))
        .expect("bind to a loopback address");
    socket.connect(server).await.expect("connected")
}

/// Reads until the server closes the connection; `false` if it is still open after `wait`.
async fn closed_within(stream: &mut TcpStream, wait: Duration) -> bool {
    let mut buf = [0u8; 1024];
    let deadline = tokio::time::Instant::now() + wait;
    loop {
        match tokio::time::timeout_at(deadline, stream.read(&mut buf)).await {
            Err(_) => return false,
            Ok(Ok(0) | Err(_)) => return true,
            Ok(Ok(_)) => {}
        }
    }
}

async fn health(app: &TestApp) -> StatusCode {
    app.client
        .get(app.url("/health"))
        .send()
        .await
        .expect("health answered")
        .status()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn half_sent_requests_are_cut_and_do_not_block_others() {
    run(
        Backend::Sqlite,
        |config| {
            config.read_timeout = 1;
            config.max_connections_per_address = 100;
        },
        |app| async move {
            let mut slow = Vec::new();
            for _ in 0..40 {
                let mut stream = connect_from(ATTACKER, &app).await;
                stream
                    .write_all(b"GET /health HTTP/1.1\r\nHost: chatflow\r\nX-Slow: ")
                    .await
                    .expect("a partial request");
                slow.push(stream);
            }
            assert_eq!(health(&app).await, StatusCode::OK);
            for (i, stream) in slow.iter_mut().enumerate() {
                assert!(
                    closed_within(stream, Duration::from_secs(10)).await,
                    "half-sent request {i} still holds its connection"
                );
            }
            // An idle keep-alive connection is closed too.
            let mut idle = connect_from(ATTACKER, &app).await;
            assert!(closed_within(&mut idle, Duration::from_secs(10)).await);
            assert_eq!(health(&app).await, StatusCode::OK);
        },
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_address_cannot_hold_more_than_its_share_of_connections() {
    run(
        Backend::Sqlite,
        |config| {
            config.read_timeout = 60;
            config.max_connections_per_address = 20;
        },
        |app| async move {
            let mut held = Vec::new();
            for _ in 0..20 {
                held.push(connect_from(ATTACKER, &app).await);
            }
            // Each held connection is served: a request on one of them answers.
            let first = held.first_mut().expect("a connection");
            first
                .write_all(b"GET /health HTTP/1.1\r\nHost: chatflow\r\n\r\n")
                .await
                .expect("request");
            let mut answer = [0u8; 12];
            first.read_exact(&mut answer).await.expect("an answer");
            assert_eq!(&answer, b"HTTP/1.1 200");

            let mut extra = connect_from(ATTACKER, &app).await;
            assert!(
                closed_within(&mut extra, Duration::from_secs(5)).await,
                "the 21st connection from one address is refused"
            );
            // Another address is still served.
            assert_eq!(health(&app).await, StatusCode::OK);

            // A freed place can be taken again.
            drop(held.pop());
            let mut again = None;
            for _ in 0..50 {
                let mut stream = connect_from(ATTACKER, &app).await;
                stream
                    .write_all(b"GET /health HTTP/1.1\r\nHost: chatflow\r\n\r\n")
                    .await
                    .expect("request");
                let mut answer = [0u8; 12];
                if stream.read_exact(&mut answer).await.is_ok() {
                    again = Some(answer);
                    break;
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            assert_eq!(again.as_ref().map(|a| &a[..]), Some(&b"HTTP/1.1 200"[..]));
        },
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_answer_carries_the_security_headers() {
    run(
        Backend::Sqlite,
        |_| {},
        |app| async move {
            for path in ["/health", "/no-such-route", "/api-docs/openapi.json"] {
                let response = app
                    .client
                    .get(app.url(path))
                    .send()
                    .await
                    .expect("answered");
                let header = |name: &str| {
                    response
                        .headers()
                        .get(name)
                        .and_then(|v| v.to_str().ok())
                        .map(str::to_owned)
                };
                assert_eq!(header("x-content-type-options").as_deref(), Some("nosniff"));
                assert_eq!(header("x-frame-options").as_deref(), Some("DENY"));
                assert_eq!(header("referrer-policy").as_deref(), Some("same-origin"));
                let csp = header("content-security-policy").expect("a CSP");
                assert!(csp.contains("frame-ancestors 'none'"), "{path}: {csp}");
                assert!(csp.contains("object-src 'none'"), "{path}: {csp}");
            }
        },
    )
    .await;
}
