//! The server with its WhatsApp Web sessions on the scripted fake, for the browser tests of
//! WhatsApp Web (`web/e2e/whatsapp-web.e2e.ts`, `web/e2e/whatsapp-web-assurance.e2e.ts`):
//! everything is the real server (same configuration, routes, supervisor, provider, ingestion,
//! jobs) except the library's socket, which a test drives through a small control API instead of
//! a phone, and time: the server runs on a manual clock that only the control API moves, and its
//! durable jobs run when the control API says so (as the API tests' `Time::Manual` does), so a
//! test can make a five-minute outage or a message ten minutes at one tick in a second, and
//! knows when the jobs that follow have run.
//!
//! Configured like `chatflow-server` (its variables and flags), plus
//! `CHATFLOW_FAKE_WHATSAPP_PORT`: the port of the control API on 127.0.0.1 (required). Access
//! tokens expire on the server's clock: since a test moves it by minutes, they last at least a
//! day here. Its routes, per connection id, act on the connection's newest fake session:
//!
//! - `POST /sessions/{id}/qr` `{"code": "..."}`: WhatsApp shows a QR code;
//! - `POST /sessions/{id}/paired` `{"number": "5511..."}`: the phone linked (pair success, then
//!   connected);
//! - `POST /sessions/{id}/drop`: the socket dropped (the run ends; the supervisor rebuilds it);
//! - `POST /sessions/{id}/connect`: the socket of the newest session is up again;
//! - `POST /sessions/{id}/message` `{"from": "5511...", "id": "...", "body": "...", "name": "..."}`:
//!   a contact's text message through the durability hook (answers once committed);
//! - `POST /sessions/{id}/history` `{"messages": [{"chat": "5511...", "id": "...", "body": "...",
//!   "at": "<RFC 3339>", "name": "...", "fromMe": false}], "progress": 0-100}`: a part of the
//!   phone's history as WhatsApp sends it after a link (answers once the session took it; the
//!   server queues it on the connection's ordered lane);
//! - `GET /sessions/{id}`: `{"sessions": n, "calls": ["PairWithCode", ...], "sent": [text...]}`.
//!
//! Answers 404 when the connection has no session yet (the test polls). And for time:
//!
//! - `POST /clock/advance` `{"seconds": n}`: moves the server's clock on; answers `{"now"}`;
//! - `POST /jobs/run`: runs every job due on the server's clock now (and those they queue for
//!   now), as the background worker would; answers `{"ran": [kind...]}`.

use std::sync::Arc;
use std::time::Duration;

use axum::extract::{FromRef, Path, State};
use axum::http::StatusCode;
use axum::routing::{get, post};
use axum::{Json, Router};
use chatflow_server::config::Config;
use chatflow_server::jobs::DueJobs;
use chatflow_server::{JobRunner, build_with_whatsapp};
use chatflow_system::ManualClock;
use chatflow_whatsapp_web::fake::{
    FakeCall, FakeHistory, FakeSessionHandle, FakeWaClientFactory, HistoryMessage, text_from,
};
use chatflow_whatsapp_web::whatsapp_rust::Jid;
use chatflow_whatsapp_web::whatsapp_rust::types::events::{Event, PairSuccess, PairingQrCode};
use chatflow_wiring::Wiring;
use chrono::{DateTime, TimeDelta, Utc};
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
    let mut config = Config::load()?;
    // Access tokens expire on the server's clock, which the tests move by minutes.
    config.access_token_ttl = config.access_token_ttl.max(TOKEN_TTL_SECONDS);
    let control_port: u16 = std::env::var("CHATFLOW_FAKE_WHATSAPP_PORT")
        .map_err(|_| anyhow::anyhow!("CHATFLOW_FAKE_WHATSAPP_PORT is required"))?
        .parse()?;
    let factory = FakeWaClientFactory::new();
    let clock = ManualClock::starting_now();
    let app = build_with_whatsapp(
        config,
        Wiring::new().with_clock(Arc::new(clock.clone())),
        JobRunner::Explicit,
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
        .route("/sessions/{id}/history", post(history))
        .route("/clock/advance", post(advance))
        .route("/jobs/run", post(run_jobs))
        .with_state(Control {
            factory,
            clock,
            due_jobs: app.due_jobs(),
        });
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

/// The shortest access-token lifetime here (a day), in seconds.
const TOKEN_TTL_SECONDS: u64 = 24 * 3600;

/// What the control API acts on: the fake sessions, the server's clock and its due jobs.
#[derive(Clone)]
struct Control {
    factory: FakeWaClientFactory,
    clock: ManualClock,
    due_jobs: DueJobs,
}

impl FromRef<Control> for FakeWaClientFactory {
    fn from_ref(control: &Control) -> Self {
        control.factory.clone()
    }
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

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct HistoryPart {
    messages: Vec<HistoryText>,
    #[serde(default)]
    progress: Option<u32>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct HistoryText {
    /// The chat's number (digits).
    chat: String,
    id: String,
    body: String,
    at: DateTime<Utc>,
    #[serde(default)]
    name: String,
    #[serde(default)]
    from_me: bool,
}

async fn history(
    State(factory): State<FakeWaClientFactory>,
    Path(id): Path<i64>,
    Json(body): Json<HistoryPart>,
) -> Answer {
    let run = newest(&factory, id)?;
    let mut part = FakeHistory::new();
    for text in body.messages {
        let chat = jid(&format!("{}@s.whatsapp.net", text.chat))?;
        let mut message = HistoryMessage::text(&chat, &text.id, &text.body, text.at);
        if !text.name.is_empty() {
            message = message.named(&text.name);
        }
        if text.from_me {
            message = message.from_me();
        }
        part = part.message(message);
    }
    if let Some(progress) = body.progress {
        part = part.progress(progress);
    }
    if !run.emit(part.event()) {
        return Err((
            StatusCode::CONFLICT,
            format!("connection {id}'s session has ended"),
        ));
    }
    Ok(Json(json!({})))
}

#[derive(Deserialize)]
struct Advance {
    seconds: i64,
}

async fn advance(State(control): State<Control>, Json(body): Json<Advance>) -> Answer {
    if body.seconds < 0 {
        return Err((
            StatusCode::UNPROCESSABLE_ENTITY,
            "the clock only moves on".to_owned(),
        ));
    }
    let now = control.clock.advance(TimeDelta::seconds(body.seconds));
    Ok(Json(json!({"now": now})))
}

async fn run_jobs(State(control): State<Control>) -> Answer {
    let ran = control
        .due_jobs
        .run()
        .await
        .map_err(|e| (StatusCode::SERVICE_UNAVAILABLE, e.to_string()))?;
    Ok(Json(json!({"ran": ran})))
}
