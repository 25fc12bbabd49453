//! The inbox scenarios of `cargo xtask bench`, on SQLite and on PostgreSQL.
//!
//! For each engine: a fresh database (a temporary SQLite file, or a uniquely named PostgreSQL
//! database dropped afterwards) is migrated and filled by `chatflow dev seed`; a server is
//! started on it and measured at concurrency 1 and 32:
//! - `GET /tickets` first page (open tab, showAll),
//! - the same with `searchParam` (a contact name, with an accent),
//! - the same with `searchOnMessages=true` (words of message bodies),
//! - `GET /messages/{uuid}` first page of a seeded ticket;
//!
//! then inbound ingestion: messages sent through the sandbox's HTTP route while sockets listen,
//! timed until every socket has received every `appMessage` event (the whole pipeline: queue,
//! ingest transaction, event log, dispatcher, socket). The server's memory is printed last.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use futures::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;

use super::{BenchArgs, load, print_rss, succeeded};
use xtask::util::{TempDir, cmd, postgres_test_url, run_step, start_server};

/// The admin `start_server` signs in with; `chatflow migrate` seeds the same one.
const ADMIN_EMAIL: &str = "admin@chatflow.test";
const ADMIN_PASSWORD: &str = "Adm1n!Chatflow";
/// The company the data goes to (the platform's own, where the admin lives).
const COMPANY: i64 = 1;
/// Sockets listening during ingestion.
const SOCKETS: usize = 2;

/// A throwaway database.
enum BenchDb {
    Sqlite {
        _dir: TempDir,
        url: String,
    },
    Postgres {
        server: String,
        name: String,
        url: String,
    },
    /// A seeded SQLite file named with `--sqlite-db` (kept).
    Existing {
        url: String,
    },
}

impl BenchDb {
    fn sqlite() -> Result<Self> {
        let dir = TempDir::new("chatflow-bench")?;
        let url = format!("sqlite://{}/chatflow.db", dir.0.display());
        Ok(Self::Sqlite { _dir: dir, url })
    }

    fn postgres(server: &str) -> Result<Self> {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or_default();
        let name = format!("chatflow_bench_{}_{nanos}", std::process::id());
        psql(server, &format!("CREATE DATABASE {name}"))?;
        Ok(Self::Postgres {
            server: server.to_owned(),
            url: with_database(server, &name),
            name,
        })
    }

    fn url(&self) -> &str {
        match self {
            BenchDb::Sqlite { url, .. }
            | BenchDb::Postgres { url, .. }
            | BenchDb::Existing { url } => url,
        }
    }

    fn engine(&self) -> &'static str {
        match self {
            BenchDb::Sqlite { .. } | BenchDb::Existing { .. } => "sqlite",
            BenchDb::Postgres { .. } => "postgres",
        }
    }
}

impl Drop for BenchDb {
    fn drop(&mut self) {
        if let BenchDb::Postgres { server, name, .. } = self
            && let Err(e) = psql(
                server,
                &format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"),
            )
        {
            eprintln!("could not drop the benchmark database {name}: {e:#}");
        }
    }
}

/// Runs one SQL statement with `psql` against `server`.
fn psql(server: &str, sql: &str) -> Result<()> {
    let status = cmd("psql", &[server, "-v", "ON_ERROR_STOP=1", "-q", "-c", sql])
        .stdout(std::process::Stdio::null())
        .status()
        .context("running psql")?;
    if !status.success() {
        bail!("psql failed on {sql:?} ({status})");
    }
    Ok(())
}

/// `server`'s URL with another database name.
fn with_database(server: &str, name: &str) -> String {
    let (base, query) = match server.split_once('?') {
        Some((base, query)) => (base, Some(query)),
        None => (server, None),
    };
    let scheme_end = base.find("://").map_or(0, |i| i + 3);
    let base = match base[scheme_end..].find('/') {
        Some(slash) => &base[..scheme_end + slash],
        None => base,
    };
    match query {
        Some(query) => format!("{base}/{name}?{query}"),
        None => format!("{base}/{name}"),
    }
}

/// Percent-encodes a query value.
fn encode(value: &str) -> String {
    value
        .bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// Runs the inbox scenarios on SQLite, then on PostgreSQL when one answers.
pub async fn run(server: &Path, cli: &Path, args: &BenchArgs, duration: Duration) -> Result<()> {
    println!(
        "\nInbox: {} tickets x {} messages, company {COMPANY}",
        args.tickets, args.messages_per_ticket
    );
    if let Some(file) = &args.sqlite_db {
        let db = BenchDb::Existing {
            url: format!("sqlite://{}", file.display()),
        };
        return engine(server, cli, args, duration, db).await;
    }
    engine(server, cli, args, duration, BenchDb::sqlite()?).await?;
    match (args.no_postgres, postgres_test_url()) {
        (false, Some(url)) => {
            engine(server, cli, args, duration, BenchDb::postgres(&url)?).await?;
        }
        (true, _) => println!("\n(PostgreSQL skipped: --no-postgres)"),
        (false, None) => println!(
            "\n(PostgreSQL skipped: set CHATFLOW_TEST_POSTGRES_URL or run one on 127.0.0.1:5432)"
        ),
    }
    Ok(())
}

async fn engine(
    server_bin: &Path,
    cli: &Path,
    args: &BenchArgs,
    duration: Duration,
    db: BenchDb,
) -> Result<()> {
    let engine = db.engine();
    println!("\n--- {engine} ---");
    // An existing file is migrated too: it may predate the binaries' latest migrations.
    run_step(
        &format!("{engine}: chatflow migrate"),
        cmd(cli.to_str().unwrap_or("chatflow"), &["migrate"])
            .env("DATABASE_URL", db.url())
            .env("CHATFLOW_ADMIN_EMAIL", ADMIN_EMAIL)
            .env("CHATFLOW_ADMIN_PASSWORD", ADMIN_PASSWORD)
            .stdout(std::process::Stdio::null()),
    )?;
    if !matches!(db, BenchDb::Existing { .. }) {
        let tickets = args.tickets.to_string();
        let messages = args.messages_per_ticket.to_string();
        let company = COMPANY.to_string();
        let started = Instant::now();
        run_step(
            &format!("{engine}: chatflow dev seed"),
            cmd(
                cli.to_str().unwrap_or("chatflow"),
                &[
                    "dev",
                    "seed",
                    "--company",
                    &company,
                    "--tickets",
                    &tickets,
                    "--messages-per-ticket",
                    &messages,
                ],
            )
            .env("DATABASE_URL", db.url()),
        )?;
        let seeded = started.elapsed();
        let rows = args.tickets * (2 + u64::from(args.messages_per_ticket));
        println!(
            "{:<38}       {:>9.1} s ({:.0} rows/s)",
            format!("{engine} seed"),
            seeded.as_secs_f64(),
            rows as f64 / seeded.as_secs_f64()
        );
    }

    let (server, _) = start_server(
        server_bin,
        &[
            ("DATABASE_URL", db.url()),
            ("CHATFLOW_LOGIN_RATE_PER_MINUTE", "100000000"),
            ("CHATFLOW_SANDBOX", "true"),
        ],
    )?;
    let base = format!("http://127.0.0.1:{}", server.port);
    let client = reqwest::Client::new();
    let token = login(&client, &base).await?;
    let bearer = format!("Bearer {token}");

    let list = format!("{base}/tickets?status=open&showAll=true");
    let first: Value = client
        .get(&list)
        .header("authorization", &bearer)
        .send()
        .await?
        .error_for_status()
        .context("GET /tickets")?
        .json()
        .await?;
    let uuid = first["tickets"][0]["uuid"]
        .as_str()
        .context("no open ticket in the first page: was the database seeded?")?
        .to_owned();
    println!(
        "{:<38}       {:>9} open tickets (count of the first page)",
        format!("{engine} inbox"),
        first["count"]
    );

    let scenarios = [
        ("GET /tickets open, showAll", list.clone()),
        (
            "GET /tickets searchParam (contact)",
            format!(
                "{base}/tickets?showAll=true&searchParam={}",
                encode("Gonçalves")
            ),
        ),
        (
            "GET /tickets searchOnMessages (body)",
            format!(
                "{base}/tickets?showAll=true&searchOnMessages=true&searchParam={}",
                encode("segunda via")
            ),
        ),
        (
            "GET /messages/{uuid} first page",
            format!("{base}/messages/{uuid}"),
        ),
    ];
    for (name, url) in scenarios {
        for concurrency in [1usize, 32] {
            let url = url.clone();
            let bearer = bearer.clone();
            let measured = load(concurrency, duration, move |client| {
                let url = url.clone();
                let bearer = bearer.clone();
                async move {
                    succeeded(
                        client
                            .get(&url)
                            .header("authorization", bearer)
                            .send()
                            .await,
                    )
                    .await
                }
            })
            .await;
            measured.print(&format!("{engine} {name}"), concurrency);
        }
    }
    print_rss(server.pid());

    if let Err(e) = ingestion(&client, &base, &bearer, server.port, &token, args, engine).await {
        println!("{engine} ingestion: skipped ({e:#})");
    }
    print_rss(server.pid());
    drop(server);
    Ok(())
}

async fn login(client: &reqwest::Client, base: &str) -> Result<String> {
    let response = client
        .post(format!("{base}/auth/login"))
        .json(&json!({"email": ADMIN_EMAIL, "password": ADMIN_PASSWORD}))
        .send()
        .await?;
    if !response.status().is_success() {
        bail!("login failed: {}", response.status());
    }
    let body: Value = response.json().await?;
    Ok(body["token"]
        .as_str()
        .context("login response without token")?
        .to_owned())
}

/// Inbound messages through the sandbox, timed until every listening socket heard them all.
async fn ingestion(
    client: &reqwest::Client,
    base: &str,
    bearer: &str,
    port: u16,
    token: &str,
    args: &BenchArgs,
    engine: &str,
) -> Result<()> {
    let connection: Value = client
        .post(format!("{base}/whatsapp"))
        .header("authorization", bearer)
        .json(&json!({"name": "Bench sandbox", "channel": "whatsapp", "provider": "sandbox"}))
        .send()
        .await?
        .error_for_status()
        .context("POST /whatsapp (sandbox connection)")?
        .json()
        .await?;
    let id = connection["id"].as_i64().context("connection id")?;
    // Start the session (shows a QR code), then pair it as a phone would.
    let _ = client
        .post(format!("{base}/whatsappsession/{id}"))
        .header("authorization", bearer)
        .send()
        .await;
    client
        .post(format!("{base}/sandbox/{id}/scan"))
        .header("authorization", bearer)
        .json(&json!({}))
        .send()
        .await?
        .error_for_status()
        .context("POST /sandbox/{id}/scan")?;

    let heard: Vec<Arc<AtomicU64>> = (0..SOCKETS).map(|_| Arc::new(AtomicU64::new(0))).collect();
    let mut listeners = Vec::new();
    for counter in &heard {
        listeners.push(listen(port, token, counter.clone()).await?);
    }

    let total = args.ingest_messages;
    let next = Arc::new(AtomicU64::new(0));
    let started = Instant::now();
    let mut senders = Vec::new();
    let errors = Arc::new(AtomicU64::new(0));
    for _ in 0..16 {
        let (client, next, errors) = (client.clone(), next.clone(), errors.clone());
        let url = format!("{base}/sandbox/{id}/send");
        let bearer = bearer.to_owned();
        senders.push(tokio::spawn(async move {
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= total {
                    break;
                }
                let phone = 1000 + i % 500;
                let body = json!({
                    "from": format!("55119{:08}", 70_000_000 + phone),
                    "name": format!("Cliente de carga {phone}"),
                    "body": format!("Mensagem de carga número {i}: olá, preciso de ajuda com o pedido."),
                });
                let sent = client
                    .post(&url)
                    .header("authorization", &bearer)
                    .json(&body)
                    .send()
                    .await;
                if !succeeded(sent).await {
                    errors.fetch_add(1, Ordering::Relaxed);
                }
            }
        }));
    }
    for sender in senders {
        let _ = sender.await;
    }
    let accepted = started.elapsed();
    let errors = errors.load(Ordering::Relaxed);
    let expected = total - errors;
    let deadline = Instant::now() + Duration::from_secs(300);
    while heard.iter().any(|h| h.load(Ordering::Relaxed) < expected) {
        if Instant::now() > deadline {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let done = started.elapsed();
    let received: Vec<u64> = heard.iter().map(|h| h.load(Ordering::Relaxed)).collect();
    for listener in listeners {
        listener.abort();
    }
    println!(
        "{:<38}       {:>9.0} msg/s   ({total} sent, {errors} refused, accepted at {:.0}/s, \
         sockets heard {received:?} in {:.1} s)",
        format!("{engine} inbound ingestion, {SOCKETS} sockets"),
        expected as f64 / done.as_secs_f64(),
        total as f64 / accepted.as_secs_f64(),
        done.as_secs_f64(),
    );
    Ok(())
}

/// A socket.io client (engine.io 4 over websocket) counting `appMessage` create events.
async fn listen(
    port: u16,
    token: &str,
    heard: Arc<AtomicU64>,
) -> Result<tokio::task::JoinHandle<()>> {
    let url = format!("ws://127.0.0.1:{port}/socket.io/?EIO=4&transport=websocket");
    let (mut ws, _) = tokio_tungstenite::connect_async(url)
        .await
        .context("socket connect")?;
    ws.send(Message::text(format!("40{}", json!({ "token": token }))))
        .await?;
    let name = format!("42[\"company-{COMPANY}-appMessage\"");
    // Wait for the namespace to confirm the connection.
    loop {
        match tokio::time::timeout(Duration::from_secs(10), ws.next()).await {
            Ok(Some(Ok(Message::Text(text)))) if text.starts_with("40") => break,
            Ok(Some(Ok(Message::Text(text)))) if text.starts_with("44") => {
                bail!("socket refused: {text}")
            }
            Ok(Some(Ok(_))) => continue,
            _ => bail!("the socket did not connect"),
        }
    }
    Ok(tokio::spawn(async move {
        while let Some(Ok(message)) = ws.next().await {
            if let Message::Text(text) = message {
                if text.as_str() == "2" {
                    let _ = ws.send(Message::text("3")).await;
                } else if text.starts_with(&name) && text.contains("\"action\":\"create\"") {
                    heard.fetch_add(1, Ordering::Relaxed);
                }
            }
        }
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn database_urls_keep_server_and_options() {
        assert_eq!(
            with_database("postgres://postgres@127.0.0.1:5432/postgres", "b1"),
            "postgres://postgres@127.0.0.1:5432/b1"
        );
        assert_eq!(
            with_database("postgres://u@h/db?sslmode=disable", "b2"),
            "postgres://u@h/b2?sslmode=disable"
        );
        assert_eq!(with_database("postgres://u@h", "b3"), "postgres://u@h/b3");
        assert_eq!(encode("segunda via"), "segunda%20via");
        assert_eq!(encode("ç"), "%C3%A7");
    }
}
