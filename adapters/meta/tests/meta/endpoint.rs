//! The signed-webhook driver against a minimal endpoint built from the crate's pieces, as the
//! server's route will be: challenge, signature over the raw body, parse.

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::routing::get;
use chatflow_core::inbox::channel::InboundEvent;
use chatflow_meta::fake::WebhookDriver;
use chatflow_meta::verify::{SIGNATURE_HEADER, check_challenge, check_signature};
use chatflow_meta::webhook::{ParseOptions, parse};
use serde_json::json;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::received_at;

const SECRET: &str = "endpoint-secret";
const VERIFY_TOKEN: &str = "endpoint-verify";

type Seen = Arc<Mutex<Vec<InboundEvent>>>;

async fn challenge(Query(query): Query<HashMap<String, String>>) -> (StatusCode, String) {
    match check_challenge(
        query.iter().map(|(k, v)| (k.as_str(), v.as_str())),
        VERIFY_TOKEN,
    ) {
        Ok(challenge) => (StatusCode::OK, challenge),
        Err(e) => (StatusCode::FORBIDDEN, e.to_string()),
    }
}

async fn delivery(State(seen): State<Seen>, headers: HeaderMap, body: Bytes) -> StatusCode {
    let signature = headers.get(SIGNATURE_HEADER).and_then(|v| v.to_str().ok());
    if check_signature(signature, &body, &[SECRET]).is_err() {
        return StatusCode::UNAUTHORIZED;
    }
    match parse(&body, &ParseOptions::default(), received_at()) {
        Ok(parsed) => {
            let mut seen = seen.lock().expect("lock");
            seen.extend(parsed.items.into_iter().map(|i| i.event));
            StatusCode::OK
        }
        Err(_) => StatusCode::BAD_REQUEST,
    }
}

#[tokio::test]
async fn signed_deliveries_pass_and_others_are_refused_before_parsing() {
    let seen: Seen = Arc::default();
    let router = Router::new()
        .route("/webhooks/meta", get(challenge).post(delivery))
        .with_state(seen.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a port");
    let url = format!(
        "http://{}/webhooks/meta",
        listener.local_addr().expect("address")
    );
    let server = tokio::spawn(async move { axum::serve(listener, router).await });

    let driver = WebhookDriver::new(SECRET);
    let text = json!({
        "contacts": [{ "profile": { "name": "Pablo" }, "wa_id": "5511999990000" }],
        "messages": [{ "from": "5511999990000", "id": "wamid.E2E", "timestamp": "1749416400",
                       "type": "text", "text": { "body": "olá" } }],
    });
    let signed = driver.cloud("waba", "106540352242922", text);
    assert_eq!(driver.post(&url, &signed).await.expect("posted").0, 200);
    // A redelivery is accepted and yields the same event (ingestion deduplicates by id).
    assert_eq!(driver.post(&url, &signed).await.expect("posted").0, 200);
    // Signed with another secret, or tampered with: refused, nothing parsed.
    let forged = WebhookDriver::new("not-our-secret").cloud("waba", "106540352242922", json!({
        "messages": [{ "from": "1", "id": "wamid.FORGED", "type": "text", "text": { "body": "x" } }],
    }));
    assert_eq!(driver.post(&url, &forged).await.expect("posted").0, 401);
    let mut tampered = signed.clone();
    tampered.body = String::from_utf8(tampered.body)
        .expect("utf-8")
        .replace("olá", "olé")
        .into_bytes();
    assert_eq!(driver.post(&url, &tampered).await.expect("posted").0, 401);

    let events = seen.lock().expect("lock").clone();
    assert_eq!(events.len(), 2);
    assert_eq!(events[0], events[1]);
    let InboundEvent::Message(message) = &events[0] else {
        panic!("{:?}", events[0])
    };
    assert_eq!(
        (message.external_id.as_str(), message.body.as_str()),
        ("wamid.E2E", "olá")
    );

    // The subscription check.
    chatflow_meta::graph::install_crypto_provider();
    let with_query = |token: &str| {
        let mut with = reqwest::Url::parse(&url).expect("a URL");
        with.query_pairs_mut()
            .extend_pairs(WebhookDriver::challenge_query(token, "8471"));
        with
    };
    let answer = reqwest::Client::new()
        .get(with_query(VERIFY_TOKEN))
        .send()
        .await
        .expect("answered");
    assert_eq!(answer.status().as_u16(), 200);
    assert_eq!(answer.text().await.expect("text"), "8471");
    let answer = reqwest::Client::new()
        .get(with_query("guess"))
        .send()
        .await
        .expect("answered");
    assert_eq!(answer.status().as_u16(), 403);
    server.abort();
}
