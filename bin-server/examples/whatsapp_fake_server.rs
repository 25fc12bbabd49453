//! The server with its WhatsApp Web sessions on the scripted fake, for the browser tests of the
//! pairing dialogs (`web/e2e/whatsapp-web.e2e.ts`): everything is the real server (same
//! configuration, routes, supervisor, provider, ingestion) except the library's socket, which a
//! test drives through a small control API instead of a phone.
//!
//! Configured like `chatflow-server` (its variables and flags), plus
//! `CHATFLOW_FAKE_WHATSAPP_PORT`: the port of the control API on 127.0.0.1 (required). Its
//! routes, per connection id, act on the connection's newest fake session:
//!
//! - `POST /sessions/{id}/qr` `{"code": "..."}`: WhatsApp shows a QR code;
//! - `POST /sessions/{id}/paired` `{"number": "5511..."}`: the phone linked (pair success, then
//!   connected);
//! - `POST /sessions/{id}/drop`: the socket dropped (the run ends; the supervisor rebuilds it);
//! - `POST /sessions/{id}/connect`: the socket of the newest session is up again;
//! - `POST /sessions/{id}/message` `{"from": "5511...", "id": "...", "body": "...", "name": "..."}`:
//!   a contact's text message through the durability hook (answers once committed);
//! - `GET /sessions/{id}`: `{"sessions": n, "calls": ["PairWithCode", ...], "sent": [text...]}`.
//!
//! Answers 404 when the connection has no session yet (the test polls).

use std::sync::Arc;
use std::time::Duration;

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::routing::{get, post};
use axum::{Json, Router};
use chatflow_server::config::Config;
use chatflow_server::{JobRunner, build_with_whatsapp};
use chatflow_whatsapp_web::fake::{FakeCall, FakeSessionHandle, FakeWaClientFactory, text_from};
use chatflow_whatsapp_web::whatsapp_rust::Jid;
use chatflow_whatsapp_web::whatsapp_rust::types::events::{Event, PairSuccess, PairingQrCode};
use chatflow_wiring::Wiring;
use serde::Deserialize;
use serde_json::{Value, json};

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .init();
    let config = Config::load()?;
    let control_port: u16 = std::env::var("CHATFLOW_FAKE_WHATSAPP_PORT")
        .map_err(|_| anyhow::anyhow!("CHATFLOW_FAKE_WHATSAPP_PORT is required"))?
        .parse()?;
    let factory = FakeWaClientFactory::new();
    let app = build_with_whatsapp(
        config,
        Wiring::new(),
        JobRunner::Background,
        Arc::new(factory.clone()),
    )
    .await?;
    let control = Router::new()
        .route("/sessions/{id}", get(describe))
        .route("/sessions/{id}/qr", post(qr))
        .route("/sessions/{id}/paired", post(paired))
        .route("/sessions/{id}/drop", post(drop_socket))
        .route("/sessions/{id}/connect", post(connect))
        .route("/sessions/{id}/message", post(message))
        .with_state(factory);
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", control_port)).await?;
    tokio::spawn(async move {
        if let Err(e) = axum::serve(listener, control).await {
            eprintln!("the fake's control API stopped: {e}");
        }
    });
    app.serve(async {
        let _ = tokio::signal::ctrl_c().await;
    })
    .await?;
    Ok(())
}

type Answer = Result<Json<Value>, (StatusCode, String)>;

/// The connection's newest session.
fn newest(
    factory: &FakeWaClientFactory,
    id: i64,
) -> Result<FakeSessionHandle, (StatusCode, String)> {
    factory
        .sessions()
        .into_iter()
        .rev()
        .find(|s| s.connection.0 == id)
        .ok_or((
            StatusCode::NOT_FOUND,
            format!("connection {id} has no session yet"),
        ))
}

fn jid(text: &str) -> Result<Jid, (StatusCode, String)> {
    text.parse()
        .map_err(|e| (StatusCode::UNPROCESSABLE_ENTITY, format!("{text}: {e}")))
}

async fn describe(State(factory): State<FakeWaClientFactory>, Path(id): Path<i64>) -> Answer {
    let run = newest(&factory, id)?;
    let sessions = factory
        .sessions()
        .iter()
        .filter(|s| s.connection.0 == id)
        .count();
    let calls: Vec<String> = run
        .client()
        .calls()
        .iter()
        .map(|call| {
            let name = format!("{call:?}");
            name.split([' ', '{', '('])
                .next()
                .unwrap_or_default()
                .to_owned()
        })
        .collect();
    let sent: Vec<Value> = run
        .client()
        .calls()
        .into_iter()
        .filter_map(|call| match call {
            FakeCall::Send { to, message, id } => Some(json!({
                "to": to.to_string(),
                "id": id,
                "text": message.conversation.clone().unwrap_or_default(),
            })),
            _ => None,
        })
        .collect();
    Ok(Json(
        json!({"sessions": sessions, "calls": calls, "sent": sent}),
    ))
}

#[derive(Deserialize)]
struct Code {
    code: String,
}

async fn qr(
    State(factory): State<FakeWaClientFactory>,
    Path(id): Path<i64>,
    Json(body): Json<Code>,
) -> Answer {
    let run = newest(&factory, id)?;
    run.emit(Event::PairingQrCode(
        PairingQrCode::builder()
            .code(body.code)
            .timeout(Duration::from_secs(60))
            .build(),
    ));
    Ok(Json(json!({})))
}

#[derive(Deserialize)]
struct Number {
    number: String,
}

async fn paired(
    State(factory): State<FakeWaClientFactory>,
    Path(id): Path<i64>,
    Json(body): Json<Number>,
) -> Answer {
    let run = newest(&factory, id)?;
    run.emit(Event::PairSuccess(
        PairSuccess::builder()
            .id(jid(&format!("{}:7@s.whatsapp.net", body.number))?)
            .lid(jid("99887766@lid")?)
            .business_name(String::new())
            .platform("android".to_owned())
            .build(),
    ));
    run.connect();
    Ok(Json(json!({})))
}

async fn drop_socket(State(factory): State<FakeWaClientFactory>, Path(id): Path<i64>) -> Answer {
    newest(&factory, id)?.end();
    Ok(Json(json!({})))
}

async fn connect(State(factory): State<FakeWaClientFactory>, Path(id): Path<i64>) -> Answer {
    newest(&factory, id)?.connect();
    Ok(Json(json!({})))
}

#[derive(Deserialize)]
struct Text {
    from: String,
    id: String,
    body: String,
    #[serde(default)]
    name: String,
}

async fn message(
    State(factory): State<FakeWaClientFactory>,
    Path(id): Path<i64>,
    Json(body): Json<Text>,
) -> Answer {
    let run = newest(&factory, id)?;
    let sender = jid(&format!("{}@s.whatsapp.net", body.from))?;
    let inbound = text_from(&sender, &body.id, &body.body, &body.name);
    run.ingestor
        .commit_with_media(&[inbound], run.client().as_ref())
        .await
        .map_err(|e| (StatusCode::SERVICE_UNAVAILABLE, format!("{e:#}")))?;
    Ok(Json(json!({})))
}
