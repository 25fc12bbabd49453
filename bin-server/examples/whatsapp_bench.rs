//! The WhatsApp Web numbers of `cargo xtask bench` (`--only whatsapp`): the real server, in this
//! process, with its WhatsApp sessions on the scripted fake, on a fresh SQLite file and (unless
//! `--no-postgres`, or when none answers) a throwaway PostgreSQL database.
//!
//! - **Inbound through the hook**: a connected `beta` connection receives text messages through
//!   the provider's mapping and durability hook (`Ingestor::commit`, what the library calls before
//!   acknowledging to WhatsApp) into the server's ingestion, from 200 contacts in turn. Timed per
//!   commit (the ack waits for it): one message per batch (live traffic), 50 per batch (a backlog
//!   after a reconnection), and 4 connections at once with batches of 50; then the first two
//!   again with each person's LID along (the one-person-one-contact lookup on every message).
//! - **Restoring connections after a restart**: N connections recorded `CONNECTED` (200 by
//!   default), then a server starts on the database: the time until every session was built, and
//!   the most sessions built within any one second (the start stagger keeps WhatsApp from seeing
//!   a thundering herd).
//!
//! Arguments: `--messages N` (per scenario, default 3000), `--connections N` (default 200),
//! `--no-postgres`.

use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use chatflow_core::TenantScope;
use chatflow_core::inbox::model::{ConnectionInput, ConnectionStatus, ProviderKind, SessionUpdate};
use chatflow_server::config::{Config, Secret};
use chatflow_server::{App, JobRunner, build_with_whatsapp};
use chatflow_whatsapp_web::fake::{FakeSessionHandle, FakeWaClientFactory, text_from};
use chatflow_whatsapp_web::whatsapp_rust::Jid;
use chatflow_whatsapp_web::whatsapp_rust::types::events::InboundMessage;
use chatflow_wiring::Wiring;
use serde_json::{Value, json};
use sqlx::Connection as _;

const ADMIN_EMAIL: &str = "bench@chatflow.test";
const ADMIN_PASSWORD: &str = "Bench!Chatflow1";
const CONTACTS: u64 = 200;

struct Args {
    messages: u64,
    connections: u64,
    postgres: bool,
}

fn args() -> Result<Args> {
    let mut args = Args {
        messages: 3000,
        connections: 200,
        postgres: true,
    };
    let mut given = std::env::args().skip(1);
    while let Some(arg) = given.next() {
        match arg.as_str() {
            "--messages" => args.messages = given.next().context("--messages N")?.parse()?,
            "--connections" => {
                args.connections = given.next().context("--connections N")?.parse()?;
            }
            "--no-postgres" => args.postgres = false,
            other => bail!("unknown argument {other}"),
        }
    }
    Ok(args)
}

#[tokio::main]
async fn main() -> Result<()> {
    let args = args()?;
    let dir = tempfile::tempdir()?;
    let sqlite = format!("sqlite://{}", dir.path().join("bench.db").display());
    engine("SQLite", &sqlite, dir.path(), &args).await?;
    if args.postgres {
        let server = std::env::var("CHATFLOW_TEST_POSTGRES_URL")
            .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".to_owned());
        match sqlx::PgConnection::connect(&server).await {
            Ok(mut admin) => {
                let name = format!("chatflow_wa_bench_{}", std::process::id());
                sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
                    .execute(&mut admin)
                    .await?;
                let url = with_database(&server, &name);
                let pg_dir = tempfile::tempdir()?;
                let outcome = engine("PostgreSQL", &url, pg_dir.path(), &args).await;
                sqlx::query(sqlx::AssertSqlSafe(format!(
                    "DROP DATABASE IF EXISTS {name} WITH (FORCE)"
                )))
                .execute(&mut admin)
                .await?;
                outcome?;
            }
            Err(e) => println!("PostgreSQL skipped: {server} does not answer ({e})"),
        }
    }
    Ok(())
}

fn with_database(server: &str, name: &str) -> String {
    let (base, query) = server.split_once('?').map_or((server, ""), |(b, q)| (b, q));
    let base = base.rsplit_once('/').map_or(base, |(b, _)| b);
    if query.is_empty() {
        format!("{base}/{name}")
    } else {
        format!("{base}/{name}?{query}")
    }
}

fn config(database_url: &str, dir: &std::path::Path) -> Config {
    let mut config = Config::defaults();
    config.database_url = Secret::new(database_url);
    config.host = [127, 0, 0, 1].into();
    config.port = 0;
    config.admin_email = Some(ADMIN_EMAIL.to_owned());
    config.admin_password = Some(Secret::new(ADMIN_PASSWORD));
    config.web_dir = Some(dir.join("no-web"));
    config.media_dir = dir.join("media");
    config.secret_key_file = Some(dir.join("secret.key"));
    config.sandbox = Some(false);
    config.login_rate_per_minute = 1000;
    config
}

/// A server being served, and how to stop it.
struct Served {
    base: String,
    app_state: chatflow_server::state::AppState,
    stop: tokio::sync::oneshot::Sender<()>,
    server: tokio::task::JoinHandle<std::io::Result<()>>,
}

impl Served {
    async fn stop(self) {
        let _ = self.stop.send(());
        let _ = self.server.await;
    }
}

fn serve(app: App) -> Result<Served> {
    let base = format!("http://{}", app.local_addr()?);
    let app_state = app.state().clone();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(app.serve(async move {
        let _ = stopped.await;
    }));
    Ok(Served {
        base,
        app_state,
        stop,
        server,
    })
}

async fn engine(label: &str, url: &str, dir: &std::path::Path, args: &Args) -> Result<()> {
    println!("\nWhatsApp Web on the fake, {label}");
    let factory = FakeWaClientFactory::new();
    let app = build_with_whatsapp(
        config(url, dir),
        Wiring::new(),
        JobRunner::Background,
        Arc::new(factory.clone()),
    )
    .await?;
    let served = serve(app)?;
    let http = reqwest::Client::new();
    let token = login(&http, &served.base).await?;

    // Four connected connections.
    let mut runs = Vec::new();
    for n in 0..4 {
        let id = create(&http, &served.base, &token, &format!("Line {n}")).await?;
        let response = http
            .post(format!("{}/whatsappsession/{id}", served.base))
            .bearer_auth(&token)
            .send()
            .await?;
        anyhow::ensure!(
            response.status().is_success(),
            "start: {}",
            response.status()
        );
        let run = tokio::time::timeout(Duration::from_secs(30), factory.next_session())
            .await
            .context("the session starts")?;
        run.connect();
        runs.push(run);
    }

    let n = args.messages;
    measure("inbound through the hook, batches of 1", n, || {
        commit_all(&runs[0], "A", n, 1)
    })
    .await?;
    measure("inbound through the hook, batches of 50", n, || {
        commit_all(&runs[1], "B", n, 50)
    })
    .await?;
    // The same with the person's LID along (new contacts, then lookups by every identity).
    measure("inbound with the LID along, batches of 1", n, || {
        commit_all(&runs[2], "LA", n, 1)
    })
    .await?;
    measure("inbound with the LID along, batches of 50", n, || {
        commit_all(&runs[3], "LB", n, 50)
    })
    .await?;
    let parallel = n / 4;
    measure(
        "inbound, 4 connections at once, batches of 50",
        parallel * 4,
        || async {
            let mut tasks = Vec::new();
            for (i, run) in runs[..4].iter().enumerate() {
                let run = run.clone();
                tasks.push(tokio::spawn(async move {
                    commit_all(&run, &format!("C{i}"), parallel, 50).await
                }));
            }
            let mut latencies = Vec::new();
            for task in tasks {
                latencies.extend(task.await??);
            }
            Ok(latencies)
        },
    )
    .await?;

    // Connections recorded CONNECTED, brought back by a new server.
    let ports = served.app_state.ports.clone();
    let scope = TenantScope::new(chatflow_core::CompanyId(1));
    for n in 0..args.connections {
        let input = ConnectionInput {
            name: format!("Restored {n}"),
            provider: Some(ProviderKind::Beta),
            ..Default::default()
        };
        let token = format!("{n:030}");
        let connection = ports.connections.create(scope, &input, &token, &[]).await?;
        ports
            .connections
            .set_session(
                scope,
                connection.id,
                &SessionUpdate {
                    status: ConnectionStatus::Connected,
                    ..Default::default()
                },
            )
            .await?;
    }
    // The four live connections stay CONNECTED too and are restored with the others.
    let expected = args.connections + 4;
    served.stop().await;
    let restored = FakeWaClientFactory::new();
    let started = Instant::now();
    let app = build_with_whatsapp(
        config(url, dir),
        Wiring::new(),
        JobRunner::Background,
        Arc::new(restored.clone()),
    )
    .await?;
    let second = serve(app)?;
    let mut at = Vec::new();
    while (at.len() as u64) < expected {
        tokio::time::timeout(Duration::from_secs(30), restored.next_session())
            .await
            .context("every restored connection starts")?;
        at.push(started.elapsed());
    }
    let busiest = at
        .iter()
        .map(|t| {
            at.iter()
                .filter(|u| **u >= *t && **u < *t + Duration::from_secs(1))
                .count()
        })
        .max()
        .unwrap_or(0);
    println!(
        "{:<48} {:>9.1} s for {expected} sessions (first after {:.0} ms, at most {busiest} started in any 1 s)",
        "connections restored after a restart",
        at.last().map_or(0.0, Duration::as_secs_f64),
        at.first().map_or(0.0, |d| d.as_secs_f64() * 1000.0),
    );
    second.stop().await;
    Ok(())
}

async fn login(http: &reqwest::Client, base: &str) -> Result<String> {
    let answer: Value = http
        .post(format!("{base}/auth/login"))
        .json(&json!({"email": ADMIN_EMAIL, "password": ADMIN_PASSWORD}))
        .send()
        .await?
        .error_for_status()?
        .json()
        .await?;
    Ok(answer["token"].as_str().context("a token")?.to_owned())
}

async fn create(http: &reqwest::Client, base: &str, token: &str, name: &str) -> Result<i64> {
    let created: Value = http
        .post(format!("{base}/whatsapp"))
        .bearer_auth(token)
        .json(&json!({"name": name, "provider": "beta"}))
        .send()
        .await?
        .error_for_status()?
        .json()
        .await?;
    created["id"].as_i64().context("an id")
}

/// The `i`th message: from one of [`CONTACTS`] phone numbers; for a prefix starting with `L`,
/// from other numbers with the person's LID along (WhatsApp's usual addressing today), so each
/// message takes the one-person-one-contact lookup.
fn message(prefix: &str, i: u64) -> InboundMessage {
    let with_lid = prefix.starts_with('L');
    let base = if with_lid {
        5_511_800_000_000
    } else {
        5_511_900_000_000
    };
    let number = base + (i % CONTACTS);
    let sender: Jid = format!("{number}@s.whatsapp.net")
        .parse()
        .expect("an address");
    let mut message = text_from(
        &sender,
        &format!("3A{prefix}{i:018}"),
        &format!("mensagem {i} do banco de provas"),
        &format!("Contato {}", i % CONTACTS),
    );
    if with_lid {
        let lid: Jid = format!("{}@lid", 100_000_000_000 + (i % CONTACTS))
            .parse()
            .expect("a LID");
        Arc::make_mut(&mut message.info).source.sender_alt = Some(lid);
    }
    message
}

/// Commits `count` messages in batches of `batch` through the run's hook path; the latency of
/// each commit (what the ack waits for).
async fn commit_all(
    run: &FakeSessionHandle,
    prefix: &str,
    count: u64,
    batch: u64,
) -> Result<Vec<Duration>> {
    let mut latencies = Vec::new();
    let mut i = 0;
    while i < count {
        let messages: Vec<InboundMessage> = (i..(i + batch).min(count))
            .map(|k| message(prefix, k))
            .collect();
        let started = Instant::now();
        run.ingestor.commit(&messages).await?;
        latencies.push(started.elapsed());
        i += batch;
    }
    Ok(latencies)
}

async fn measure<F, Fut>(name: &str, messages: u64, work: F) -> Result<()>
where
    F: FnOnce() -> Fut,
    Fut: std::future::Future<Output = Result<Vec<Duration>>>,
{
    let started = Instant::now();
    let mut latencies = work().await?;
    let elapsed = started.elapsed();
    latencies.sort_unstable();
    let pick = |p: f64| {
        let index = ((latencies.len() as f64 - 1.0) * p).round() as usize;
        latencies.get(index).copied().unwrap_or_default()
    };
    println!(
        "{name:<48} {:>9.0} msg/s   commit p50 {:.1} ms, p99 {:.1} ms",
        messages as f64 / elapsed.as_secs_f64(),
        pick(0.5).as_secs_f64() * 1000.0,
        pick(0.99).as_secs_f64() * 1000.0,
    );
    Ok(())
}
