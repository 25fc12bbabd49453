//! The automation scenario of `cargo xtask bench` (`--only automation`), on SQLite and on
//! PostgreSQL.
//!
//! For each engine a server starts on a fresh database (a temporary SQLite file, or a uniquely
//! named PostgreSQL database dropped afterwards) with the sandbox on. Company 1 gets two queues, a
//! published welcome flow (start → message → menu with two options → a ticket node to the chosen
//! queue) and two sandbox connections: a plain one and one whose `flowIdWelcome` is that flow. A
//! socket listens to the company's `appMessage` events all along. Then:
//! - plain ingestion: N new phones send "oi", then "1", to the plain connection; timed until the
//!   socket heard every message's `create` event (the same pipeline as the inbox's ingestion);
//! - one phone at a time (5 of them), the latency from "oi" to the menu on an idle server;
//! - the welcome flow: N other new phones send "oi" to the flow's connection, and each answers
//!   "1" as soon as the socket announces its menu; timed until every ticket is in the chosen
//!   queue (`GET /tickets` filtered by the queue, its `count`, polled, less the tickets without
//!   a queue, which that filter lists too: counted as what the other, unchosen queue lists).
//!   One read of what the phones received (`GET /sandbox/{id}/inbox`) then checks that every
//!   phone got the greeting and the menu, and gives the latency from a phone's "oi" to its menu
//!   arriving on it.
//!
//! Messages per second count the phones' messages (2 per phone) over the time from the first send
//! to the last completion; the flow's run also sends 2 bot messages per phone.

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use anyhow::{Context, Result, bail};
use chrono::{DateTime, Utc};
use futures::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio::sync::{Semaphore, mpsc};
use tokio_tungstenite::tungstenite::Message;

use super::{BenchArgs, print_rss, succeeded};
use xtask::util::{cmd, postgres_test_url, start_server};

/// The company the scenario runs in (the platform's own, where the seeded admin lives).
const COMPANY: i64 = 1;
/// Phone sends in flight at once.
const SENDERS: usize = 16;
/// The flow's greeting (`{nome}` is the contact's name) and the start of its menu.
const GREETING: &str = "Olá {nome}, bem-vindo!";
const MENU: &str = "Como podemos ajudar?";
/// How long one phase may take before it is reported as incomplete.
const PHASE_LIMIT: Duration = Duration::from_secs(120);

/// Runs the scenario on SQLite, then on PostgreSQL when one answers.
pub async fn run(server: &Path, args: &BenchArgs) -> Result<()> {
    let phones = args.automation_phones.max(1);
    println!(
        "\nAutomation: welcome flow (start → message → menu → ticket), {phones} new phones × 2 \
         messages (\"oi\", then \"1\" once the menu arrives), company {COMPANY}, fresh databases"
    );
    engine(server, "sqlite", None, phones).await?;
    statements(server, "sqlite", None).await?;
    match (args.no_postgres, postgres_test_url()) {
        (false, Some(url)) => {
            let db = PgDatabase::create(&url)?;
            engine(server, "postgres", Some(&db.url), phones).await?;
            drop(db);
            let db = PgDatabase::create(&url)?;
            statements(server, "postgres", Some(&db.url)).await?;
        }
        (true, _) => println!("\n(PostgreSQL skipped: --no-postgres)"),
        (false, None) => println!(
            "\n(PostgreSQL skipped: set CHATFLOW_TEST_POSTGRES_URL or run one on 127.0.0.1:5432)"
        ),
    }
    Ok(())
}

async fn engine(binary: &Path, engine: &str, database: Option<&str>, phones: u64) -> Result<()> {
    println!("\n--- {engine} ---");
    let mut env = vec![
        ("CHATFLOW_LOGIN_RATE_PER_MINUTE", "100000000"),
        ("CHATFLOW_SANDBOX", "true"),
    ];
    if let Some(url) = database {
        env.push(("DATABASE_URL", url));
    }
    // Without DATABASE_URL, `start_server` gives the server a fresh SQLite file of its own.
    // `CHATFLOW_BENCH_SQL_LOG=DIR` logs every statement of this server (with its time) to
    // `DIR/{engine}.log`, to read where a phase spends its statements; the numbers printed
    // then include the logging's cost.
    let sql_log = std::env::var("CHATFLOW_BENCH_SQL_LOG").ok();
    let (server, _) = match &sql_log {
        Some(dir) => {
            env.push(("RUST_LOG", "warn,sqlx::query=debug"));
            let path = std::path::Path::new(dir).join(format!("{engine}.log"));
            xtask::util::start_server_logging(binary, &env, &path)?
        }
        None => start_server(binary, &env)?,
    };
    let api = Api::sign_in(
        format!("http://127.0.0.1:{}", server.port),
        &server.admin_email,
        &server.admin_password,
    )
    .await?;

    // The phones choose Vendas, which has no greeting (a second queue needs one).
    let sales = api.queue("Vendas", "#2e7d32", "").await?;
    let support = api
        .queue("Suporte", "#1565c0", "Suporte: já vamos atender.")
        .await?;
    let flow = api.published_flow(welcome_graph(sales, support)).await?;
    let plain = api.sandbox_connection("Bench plain").await?;
    let welcome = api.sandbox_connection("Bench welcome").await?;
    api.send_json(
        reqwest::Method::PUT,
        &format!("/whatsapp/{welcome}"),
        &json!({"name": "Bench welcome", "isDefault": true, "flowIdWelcome": flow}),
    )
    .await
    .context("PUT /whatsapp/{id} (flowIdWelcome)")?;

    let (listener, heard, menus) = listen(server.port, &api.token).await?;

    let baseline = plain_ingestion(&api, plain, &heard, phones).await?;
    // Nothing answers on the plain connection (no flow, no queue menu): checked, not assumed.
    let replies = api
        .get(&format!("/sandbox/{plain}/inbox"))
        .await?
        .as_array()
        .map_or(0, Vec::len);
    println!(
        "{:<38} c={SENDERS:<3} {:>9.0} msg/s   ({} sent, {} refused, socket heard {} in {:.1} s, \
         {replies} bot replies{})",
        format!("{engine} inbound, plain connection"),
        baseline.per_second(),
        baseline.sent,
        baseline.refused,
        baseline.done,
        baseline.elapsed.as_secs_f64(),
        if baseline.complete {
            ""
        } else {
            ": INCOMPLETE"
        },
    );

    // The database began empty and is a few seconds old: PostgreSQL has no statistics of its
    // tables yet (autovacuum analyzes a table once it has changed enough, checking every
    // minute), so the plans its connections keep fit empty tables (a company's tickets scanned
    // to find two by id). An installation that has run for a minute has them; take them now.
    if let Some(url) = database {
        psql(url, "ANALYZE")?;
        println!("  (PostgreSQL: ANALYZE after the plain phase, as autovacuum would by now)");
    }
    let drained = backlog(&api, &heard, phones).await?;
    println!(
        "{:<38} c=1   {:>9.0} msg/s   ({} queued while down, {} refused, socket heard {} in {:.2} \
         s from the scan{})",
        format!("{engine} inbound, backlog after reconnect"),
        drained.per_second(),
        drained.sent,
        drained.refused,
        drained.done,
        drained.elapsed.as_secs_f64(),
        if drained.complete { "" } else { ": INCOMPLETE" },
    );

    let alone = solo_latencies(&api, welcome).await?;
    println!(
        "{:<38} c=1   {:>9}         p50 {:>7.2} ms   max {:>7.2} ms   ({} phones one after another)",
        format!("{engine} \"oi\" → menu, idle server"),
        "",
        millis(percentile(&alone, 50.0)),
        millis(percentile(&alone, 100.0)),
        alone.len(),
    );

    let flowed = welcome_flow(&api, welcome, (sales, support), menus, phones).await?;
    let ratio = if baseline.per_second() > 0.0 {
        flowed.run.per_second() / baseline.per_second()
    } else {
        0.0
    };
    println!(
        "{:<38} c={SENDERS:<3} {:>9.0} msg/s   p50 {:>7.2} ms   p99 {:>7.2} ms   (\"oi\" → menu on \
         the phone; {} sent, {} refused, {}/{phones} got greeting + menu, {}/{phones} tickets in \
         the queue in {:.1} s{}; {ratio:.2}× the plain rate)",
        format!("{engine} inbound, welcome flow"),
        flowed.run.per_second(),
        millis(percentile(&flowed.latencies, 50.0)),
        millis(percentile(&flowed.latencies, 99.0)),
        flowed.run.sent,
        flowed.run.refused,
        flowed.greeted,
        flowed.run.done,
        flowed.run.elapsed.as_secs_f64(),
        if flowed.run.complete {
            ""
        } else {
            ": INCOMPLETE"
        },
    );
    listener.abort();
    print_rss(server.pid());
    drop(server);
    Ok(())
}

/// Phones of the statement count (each sends "oi", then "1": a new contact and ticket, then a
/// message on that ticket).
const COUNTED_PHONES: u64 = 100;

/// SQL statements per inbound message on the plain connection, everything included (the
/// sandbox's accepting and queueing, ingestion, the automation's reads, the realtime
/// dispatcher's reads): a server of its own logs every statement (`sqlx::query` at debug, to a
/// file), the phones of [`plain_ingestion`] send, and the lines logged meanwhile are counted,
/// less what the same server logs idle (its pollers) over as long.
async fn statements(binary: &Path, engine: &str, database: Option<&str>) -> Result<()> {
    let log = std::env::temp_dir().join(format!(
        "chatflow-bench-statements-{}-{engine}.log",
        std::process::id()
    ));
    let mut env = vec![
        ("CHATFLOW_LOGIN_RATE_PER_MINUTE", "100000000"),
        ("CHATFLOW_SANDBOX", "true"),
        ("RUST_LOG", "warn,sqlx::query=debug"),
    ];
    if let Some(url) = database {
        env.push(("DATABASE_URL", url));
    }
    let (server, _) = xtask::util::start_server_logging(binary, &env, &log)?;
    let api = Api::sign_in(
        format!("http://127.0.0.1:{}", server.port),
        &server.admin_email,
        &server.admin_password,
    )
    .await?;
    let plain = api.sandbox_connection("Bench statements").await?;
    let (listener, heard, _menus) = listen(server.port, &api.token).await?;
    let logged = || -> Result<u64> {
        let text = std::fs::read_to_string(&log).context("reading the statement log")?;
        Ok(text.lines().filter(|l| l.contains("sqlx::query")).count() as u64)
    };
    tokio::time::sleep(Duration::from_millis(500)).await;
    let idle_from = logged()?;
    let idle_started = Instant::now();
    tokio::time::sleep(Duration::from_secs(2)).await;
    let idle_per_second = (logged()? - idle_from) as f64 / idle_started.elapsed().as_secs_f64();

    let before = logged()?;
    let started = Instant::now();
    let phase = plain_ingestion(&api, plain, &heard, COUNTED_PHONES).await?;
    // Let the last automation and emission finish.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let during = (logged()? - before) as f64;
    let idle = idle_per_second * started.elapsed().as_secs_f64();
    let messages = (phase.sent - phase.refused).max(1) as f64;
    println!(
        "{:<38}       {:>9.1} stmt/msg  ({} messages, {during:.0} statements logged, {idle:.0} of          them idle polling taken off{})",
        format!("{engine} SQL statements per inbound"),
        (during - idle).max(0.0) / messages,
        phase.sent - phase.refused,
        if phase.complete { "" } else { "; INCOMPLETE" },
    );
    listener.abort();
    drop(server);
    // `CHATFLOW_BENCH_KEEP_STATEMENTS=1` keeps the log, to read which statements they were.
    if std::env::var_os("CHATFLOW_BENCH_KEEP_STATEMENTS").is_some() {
        println!("  statement log kept: {}", log.display());
    } else {
        let _ = std::fs::remove_file(&log);
    }
    Ok(())
}

/// One timed phase.
struct Phase {
    /// Messages the phones sent, and how many the server refused.
    sent: u64,
    refused: u64,
    /// What completion counts (events heard, tickets queued) when the phase ended.
    done: u64,
    /// Whether everything completed before [`PHASE_LIMIT`].
    complete: bool,
    elapsed: Duration,
}

impl Phase {
    fn per_second(&self) -> f64 {
        (self.sent - self.refused) as f64 / self.elapsed.as_secs_f64()
    }
}

/// The welcome flow's phase and what the phones received.
struct Flowed {
    run: Phase,
    /// Phones that received both the greeting and the menu.
    greeted: u64,
    /// From each phone's "oi" to its menu arriving on it.
    latencies: Vec<Duration>,
}

/// A phone's number: `base` + `i`, in the Brazilian mobile format the sandbox takes.
fn number(base: u64, i: u64) -> String {
    format!("55119{:08}", base + i)
}

/// N new phones (numbers from `base`) send "oi" to `connection`, then "1", `SENDERS` at a
/// time; answers how many the server refused.
async fn send_oi_then_one(api: &Api, connection: i64, base: u64, phones: u64) -> u64 {
    let total = phones * 2;
    let next = Arc::new(AtomicU64::new(0));
    let refused = Arc::new(AtomicU64::new(0));
    let mut senders = Vec::new();
    for _ in 0..SENDERS {
        let (api, next, refused) = (api.clone(), next.clone(), refused.clone());
        senders.push(tokio::spawn(async move {
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= total {
                    break;
                }
                // Every phone's "oi" first, then every "1".
                let (phone, body) = if i < phones {
                    (i, "oi")
                } else {
                    (i - phones, "1")
                };
                if !api
                    .phone_send(connection, &number(base, phone), phone, body)
                    .await
                {
                    refused.fetch_add(1, Ordering::Relaxed);
                }
            }
        }));
    }
    for sender in senders {
        let _ = sender.await;
    }
    refused.load(Ordering::Relaxed)
}

/// Waits (at most [`PHASE_LIMIT`] from `started`) until the socket heard `expected` more
/// inbound messages than `before`; the phase as it ended.
async fn until_heard(
    heard: &Counters,
    before: u64,
    sent: u64,
    refused: u64,
    started: Instant,
) -> Phase {
    let expected = sent - refused;
    let heard_now = || heard.inbound.load(Ordering::Relaxed) - before;
    while heard_now() < expected && started.elapsed() < PHASE_LIMIT {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    Phase {
        sent,
        refused,
        done: heard_now(),
        complete: heard_now() >= expected,
        elapsed: started.elapsed(),
    }
}

/// N new phones send "oi" to the plain connection, then "1"; timed until the socket heard all.
async fn plain_ingestion(
    api: &Api,
    connection: i64,
    heard: &Counters,
    phones: u64,
) -> Result<Phase> {
    let before = heard.inbound.load(Ordering::Relaxed);
    let started = Instant::now();
    let refused = send_oi_then_one(api, connection, 60_000_000, phones).await;
    Ok(until_heard(heard, before, phones * 2, refused, started).await)
}

/// A connection's backlog after a reconnect: while a new plain connection waits for its QR code
/// to be scanned, N new phones send "oi" and "1" (queued by the sandbox, nothing delivered);
/// then it is scanned, and the phase is timed from the scan until the socket heard every
/// message: the pipeline alone (queue drain, ingestion, events, socket), without the HTTP sends.
async fn backlog(api: &Api, heard: &Counters, phones: u64) -> Result<Phase> {
    let id = api
        .post(
            "/whatsapp",
            &json!({"name": "Bench backlog", "channel": "whatsapp", "provider": "sandbox"}),
        )
        .await?["id"]
        .as_i64()
        .context("connection id")?;
    api.post(&format!("/whatsappsession/{id}"), &json!({}))
        .await?;
    api.status_reached(id, "qrcode").await?;
    let refused = send_oi_then_one(api, id, 90_000_000, phones).await;
    let before = heard.inbound.load(Ordering::Relaxed);
    let started = Instant::now();
    api.post(&format!("/sandbox/{id}/scan"), &json!({})).await?;
    Ok(until_heard(heard, before, phones * 2, refused, started).await)
}

/// N new phones send "oi" to the flow's connection and "1" when their menu is announced; timed
/// until `queue` holds N more tickets than when the phase began.
async fn welcome_flow(
    api: &Api,
    connection: i64,
    (queue, unused): (i64, i64),
    mut menus: mpsc::UnboundedReceiver<String>,
    phones: u64,
) -> Result<Flowed> {
    const BASE: u64 = 70_000_000;
    let slots = Arc::new(Semaphore::new(SENDERS));
    let refused = Arc::new(AtomicU64::new(0));
    let said_hi: Arc<Mutex<HashMap<String, SystemTime>>> = Arc::default();
    // Tickets already in the queue (earlier phases' phones) are not this phase's.
    let before = in_queue(api, queue, unused).await?;
    let started = Instant::now();

    // Answers "1" to each menu, once per phone of this phase.
    let answers = {
        let (api, slots, refused) = (api.clone(), slots.clone(), refused.clone());
        let ours: HashMap<String, u64> = (0..phones).map(|i| (number(BASE, i), i)).collect();
        tokio::spawn(async move {
            let mut answered = HashSet::new();
            let mut sends = Vec::new();
            while let Some(to) = menus.recv().await {
                let Some(&phone) = ours.get(&to) else {
                    continue;
                };
                if !answered.insert(phone) {
                    continue;
                }
                let (api, slots, refused) = (api.clone(), slots.clone(), refused.clone());
                sends.push(tokio::spawn(async move {
                    let _slot = slots.acquire().await;
                    if !api.phone_send(connection, &to, phone, "1").await {
                        refused.fetch_add(1, Ordering::Relaxed);
                    }
                }));
                if answered.len() as u64 == phones {
                    break;
                }
            }
            for send in sends {
                let _ = send.await;
            }
        })
    };

    let mut greetings = Vec::new();
    for phone in 0..phones {
        let (api, slots, refused, said_hi) =
            (api.clone(), slots.clone(), refused.clone(), said_hi.clone());
        greetings.push(tokio::spawn(async move {
            let _slot = slots.acquire().await;
            let to = number(BASE, phone);
            if let Ok(mut said) = said_hi.lock() {
                said.insert(to.clone(), SystemTime::now());
            }
            if !api.phone_send(connection, &to, phone, "oi").await {
                refused.fetch_add(1, Ordering::Relaxed);
            }
        }));
    }
    for greeting in greetings {
        let _ = greeting.await;
    }

    let mut queued = 0;
    while started.elapsed() < PHASE_LIMIT {
        queued = in_queue(api, queue, unused).await?.saturating_sub(before);
        if queued >= phones {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let elapsed = started.elapsed();
    answers.abort();

    // What the phones received: greeting and menu per phone, and the menu's arrival. A menu is
    // stored (and announced) before its send job hands it to the phone, so the phones' inboxes
    // are read until every phone of the phase has both, or the phase's time is up; a phone
    // counted late would otherwise be left out of the latencies.
    let said_hi = said_hi.lock().map(|s| s.clone()).unwrap_or_default();
    let (greeted, latencies) = loop {
        let received = api.get(&format!("/sandbox/{connection}/inbox")).await?;
        let mut got: HashMap<&str, (bool, Option<DateTime<Utc>>)> = HashMap::new();
        for item in received.as_array().into_iter().flatten() {
            let (Some(to), Some(body)) = (item["to"].as_str(), item["body"].as_str()) else {
                continue;
            };
            let entry = got.entry(to).or_default();
            if body.ends_with(", bem-vindo!") {
                entry.0 = true;
            } else if body.starts_with(MENU) {
                entry.1 = item["createdAt"]
                    .as_str()
                    .and_then(|at| at.parse::<DateTime<Utc>>().ok());
            }
        }
        let mut greeted: u64 = 0;
        let mut latencies = Vec::new();
        for (to, (greeting, menu)) in got {
            // Only this phase's phones (the idle-latency ones share the connection).
            if greeting && menu.is_some() && said_hi.contains_key(to) {
                greeted += 1;
            }
            if let (Some(menu), Some(hi)) = (menu, said_hi.get(to)) {
                let hi = DateTime::<Utc>::from(*hi);
                latencies.push((menu - hi).to_std().unwrap_or_default());
            }
        }
        if greeted >= said_hi.len() as u64 || started.elapsed() >= PHASE_LIMIT {
            break (greeted, latencies);
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let refused = refused.load(Ordering::Relaxed);
    Ok(Flowed {
        run: Phase {
            sent: phones * 2,
            refused,
            done: queued,
            complete: queued >= phones,
            elapsed,
        },
        greeted,
        latencies,
    })
}

/// How many tickets are in `queue`. A queue filter lists the tickets without a queue too (a
/// new contact's ticket before its flow moved it), so what `unused` (a queue no ticket enters)
/// lists, those alone, is taken off: read first, so a ticket that moves from no queue to
/// `queue` between the two reads is not counted twice.
async fn in_queue(api: &Api, queue: i64, unused: i64) -> Result<u64> {
    let count = |id: i64| async move {
        Ok::<u64, anyhow::Error>(
            api.get(&format!("/tickets?showAll=true&queueIds=%5B{id}%5D"))
                .await?["count"]
                .as_u64()
                .unwrap_or_default(),
        )
    };
    let without = count(unused).await?;
    Ok(count(queue).await?.saturating_sub(without))
}

/// Phones that walk to the menu one at a time (nothing else running): from "oi" to the menu
/// arriving on the phone, polled on the phone's own inbox.
async fn solo_latencies(api: &Api, connection: i64) -> Result<Vec<Duration>> {
    const SOLO: u64 = 5;
    let mut latencies = Vec::new();
    for phone in 0..SOLO {
        let to = number(80_000_000, phone);
        let hi = DateTime::<Utc>::from(SystemTime::now());
        if !api.phone_send(connection, &to, phone, "oi").await {
            bail!("the server refused a phone's \"oi\"");
        }
        let started = Instant::now();
        let menu = loop {
            let received = api
                .get(&format!("/sandbox/{connection}/inbox?to={to}"))
                .await?;
            let menu = received.as_array().into_iter().flatten().find_map(|item| {
                item["body"]
                    .as_str()
                    .is_some_and(|b| b.starts_with(MENU))
                    .then(|| item["createdAt"].as_str()?.parse::<DateTime<Utc>>().ok())
                    .flatten()
            });
            if let Some(menu) = menu {
                break menu;
            }
            if started.elapsed() > Duration::from_secs(10) {
                bail!("phone {to} got no menu within 10 s");
            }
            tokio::time::sleep(Duration::from_millis(2)).await;
        };
        latencies.push((menu - hi).to_std().unwrap_or_default());
    }
    Ok(latencies)
}

/// The welcome flow: start → greeting → menu (1 Vendas → ticket to `sales`, 2 Suporte → ticket
/// to `support`).
fn welcome_graph(sales: i64, support: i64) -> Value {
    json!({
        "nodes": [
            {"id": "start", "type": "start", "position": {"x": 0, "y": 0}, "data": {"label": "Início"}},
            {"id": "hi", "type": "message", "position": {"x": 0, "y": 100},
             "data": {"label": GREETING}},
            {"id": "menu", "type": "menu", "position": {"x": 0, "y": 200},
             "data": {"message": MENU,
                      "arrayOption": [{"number": 1, "value": "Vendas"}, {"number": 2, "value": "Suporte"}]}},
            {"id": "sales", "type": "ticket", "position": {"x": 0, "y": 300}, "data": {"queue": sales}},
            {"id": "support", "type": "ticket", "position": {"x": 200, "y": 300}, "data": {"queue": support}}
        ],
        "connections": [
            {"id": "e1", "source": "start", "target": "hi"},
            {"id": "e2", "source": "hi", "target": "menu"},
            {"id": "e3", "source": "menu", "sourceHandle": "a1", "target": "sales"},
            {"id": "e4", "source": "menu", "sourceHandle": "a2", "target": "support"}
        ]
    })
}

fn percentile(latencies: &[Duration], p: f64) -> Duration {
    if latencies.is_empty() {
        return Duration::ZERO;
    }
    let mut sorted = latencies.to_vec();
    sorted.sort_unstable();
    let rank = ((p / 100.0) * (sorted.len() - 1) as f64).round() as usize;
    sorted[rank.min(sorted.len() - 1)]
}

fn millis(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// The API as the company's admin.
#[derive(Clone)]
struct Api {
    client: reqwest::Client,
    base: String,
    token: String,
    bearer: String,
}

impl Api {
    async fn sign_in(base: String, email: &str, password: &str) -> Result<Self> {
        let client = reqwest::Client::builder()
            .pool_max_idle_per_host(SENDERS * 2)
            .build()
            .context("building the HTTP client")?;
        let response = client
            .post(format!("{base}/auth/login"))
            .json(&json!({"email": email, "password": password}))
            .send()
            .await?;
        if !response.status().is_success() {
            bail!("login failed: {}", response.status());
        }
        let body: Value = response.json().await?;
        let token = body["token"]
            .as_str()
            .context("login response without token")?
            .to_owned();
        Ok(Self {
            client,
            base,
            bearer: format!("Bearer {token}"),
            token,
        })
    }

    async fn get(&self, path: &str) -> Result<Value> {
        Ok(self
            .client
            .get(format!("{}{path}", self.base))
            .header("authorization", &self.bearer)
            .send()
            .await?
            .error_for_status()
            .with_context(|| format!("GET {path}"))?
            .json()
            .await?)
    }

    async fn send_json(&self, method: reqwest::Method, path: &str, body: &Value) -> Result<Value> {
        let response = self
            .client
            .request(method.clone(), format!("{}{path}", self.base))
            .header("authorization", &self.bearer)
            .json(body)
            .send()
            .await?;
        let status = response.status();
        let text = response.text().await.unwrap_or_default();
        if !status.is_success() {
            bail!("{method} {path}: {status} {text}");
        }
        Ok(serde_json::from_str(&text).unwrap_or(Value::Null))
    }

    async fn post(&self, path: &str, body: &Value) -> Result<Value> {
        self.send_json(reqwest::Method::POST, path, body).await
    }

    /// Creates a queue; answers its id.
    async fn queue(&self, name: &str, color: &str, greeting: &str) -> Result<i64> {
        self.post(
            "/queue",
            &json!({"name": name, "color": color, "greetingMessage": greeting}),
        )
        .await?["id"]
            .as_i64()
            .context("queue id")
    }

    /// Creates a flow with `graph` as its draft and publishes it; answers its id.
    async fn published_flow(&self, graph: Value) -> Result<i64> {
        let id = self
            .post("/flowbuilder", &json!({"name": "Boas-vindas (bench)"}))
            .await?["id"]
            .as_i64()
            .context("flow id")?;
        let mut draft = graph;
        draft["idFlow"] = json!(id);
        self.post("/flowbuilder/flow", &draft).await?;
        self.post(&format!("/flowbuilder/{id}/publish"), &json!({}))
            .await?;
        Ok(id)
    }

    /// Creates a sandbox connection and pairs it as a phone would; answers its id once CONNECTED.
    async fn sandbox_connection(&self, name: &str) -> Result<i64> {
        let id = self
            .post(
                "/whatsapp",
                &json!({"name": name, "channel": "whatsapp", "provider": "sandbox"}),
            )
            .await?["id"]
            .as_i64()
            .context("connection id")?;
        self.post(&format!("/whatsappsession/{id}"), &json!({}))
            .await?;
        self.status_reached(id, "qrcode").await?;
        self.post(&format!("/sandbox/{id}/scan"), &json!({}))
            .await?;
        self.status_reached(id, "CONNECTED").await?;
        Ok(id)
    }

    async fn status_reached(&self, id: i64, status: &str) -> Result<()> {
        for _ in 0..100 {
            if self.get(&format!("/whatsapp/{id}")).await?["status"] == status {
                return Ok(());
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        bail!("connection {id} never reached {status}")
    }

    /// Phone `from` (contact `Cliente {phone}`) sends `body`; false when the server refused it.
    async fn phone_send(&self, connection: i64, from: &str, phone: u64, body: &str) -> bool {
        let sent = self
            .client
            .post(format!("{}/sandbox/{connection}/send", self.base))
            .header("authorization", &self.bearer)
            .json(&json!({"from": from, "name": format!("Cliente {phone}"), "body": body}))
            .send()
            .await;
        succeeded(sent).await
    }
}

/// What the socket heard.
#[derive(Default)]
struct Counters {
    /// `appMessage` `create` events of messages from phones.
    inbound: AtomicU64,
}

/// A socket.io client (engine.io 4 over websocket) on the company's `appMessage` events: counts
/// the phones' messages and sends the number of each phone whose menu was stored and sent.
async fn listen(
    port: u16,
    token: &str,
) -> Result<(
    tokio::task::JoinHandle<()>,
    Arc<Counters>,
    mpsc::UnboundedReceiver<String>,
)> {
    let url = format!("ws://127.0.0.1:{port}/socket.io/?EIO=4&transport=websocket");
    let (mut ws, _) = tokio_tungstenite::connect_async(url)
        .await
        .context("socket connect")?;
    ws.send(Message::text(format!("40{}", json!({ "token": token }))))
        .await?;
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
    let counters = Arc::new(Counters::default());
    let (menus, received) = mpsc::unbounded_channel();
    let heard = counters.clone();
    let event = format!("company-{COMPANY}-appMessage");
    let task = tokio::spawn(async move {
        while let Some(Ok(message)) = ws.next().await {
            let Message::Text(text) = message else {
                continue;
            };
            if text.as_str() == "2" {
                let _ = ws.send(Message::text("3")).await;
                continue;
            }
            let Some(frame) = text.strip_prefix("42") else {
                continue;
            };
            let Ok(Value::Array(parts)) = serde_json::from_str::<Value>(frame) else {
                continue;
            };
            let (Some(name), Some(payload)) = (parts.first(), parts.get(1)) else {
                continue;
            };
            if name.as_str() != Some(event.as_str()) || payload["action"] != "create" {
                continue;
            }
            let message = &payload["message"];
            if message["fromMe"] == true {
                let body = message["body"].as_str().unwrap_or_default();
                if body.starts_with(MENU)
                    && let Some(to) = payload["ticket"]["contact"]["number"].as_str()
                {
                    let _ = menus.send(to.to_owned());
                }
            } else {
                heard.inbound.fetch_add(1, Ordering::Relaxed);
            }
        }
    });
    Ok((task, counters, received))
}

/// A throwaway PostgreSQL database, dropped with this value.
struct PgDatabase {
    server: String,
    name: String,
    url: String,
}

impl PgDatabase {
    fn create(server: &str) -> Result<Self> {
        let nanos = SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or_default();
        let name = format!("chatflow_bench_automation_{}_{nanos}", std::process::id());
        psql(server, &format!("CREATE DATABASE {name}"))?;
        Ok(Self {
            server: server.to_owned(),
            url: with_database(server, &name),
            name,
        })
    }
}

impl Drop for PgDatabase {
    fn drop(&mut self) {
        let sql = format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.name);
        if let Err(e) = psql(&self.server, &sql) {
            eprintln!("could not drop the benchmark database {}: {e:#}", self.name);
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

/// `server`'s URL with another database name (its options kept).
fn with_database(server: &str, name: &str) -> String {
    let (base, query) = server
        .split_once('?')
        .map_or((server, None), |(b, q)| (b, Some(q)));
    let scheme_end = base.find("://").map_or(0, |i| i + 3);
    let base = base[scheme_end..]
        .find('/')
        .map_or(base, |slash| &base[..scheme_end + slash]);
    match query {
        Some(query) => format!("{base}/{name}?{query}"),
        None => format!("{base}/{name}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn database_urls_percentiles_and_numbers() {
        assert_eq!(
            with_database("postgres://postgres@127.0.0.1:5432/postgres", "b1"),
            "postgres://postgres@127.0.0.1:5432/b1"
        );
        assert_eq!(
            with_database("postgres://u@h/db?sslmode=disable", "b2"),
            "postgres://u@h/b2?sslmode=disable"
        );
        let ms = |n| Duration::from_millis(n);
        let latencies: Vec<Duration> = (1..=100).map(ms).collect();
        assert_eq!(percentile(&latencies, 50.0), ms(51));
        assert_eq!(percentile(&latencies, 99.0), ms(99));
        assert_eq!(percentile(&[], 99.0), Duration::ZERO);
        assert_eq!(number(70_000_000, 7), "5511970000007");
        let graph = welcome_graph(3, 4);
        assert_eq!(graph["nodes"][3]["data"]["queue"], 3);
        assert_eq!(graph["connections"][3]["target"], "support");
    }
}
