//! `cargo xtask bench` (`xtask-bench bench`): numbers for the closing notes, measured in one run on this machine.
//!
//! Each scenario starts from a release server on a fresh database. The load generator runs in
//! this process on the same machine, so absolute numbers include its own CPU use; ratios between
//! scenarios of one run are the fair comparison.
//!
//! Four groups: the basic one (cold start, idle memory, sign-in, `/auth/me`) on SQLite, the
//! flows one ([`flow`]: the flow interpreter natively and as WASM under Node, routing decisions;
//! CPU only), the inbox one ([`inbox`]), which seeds a database with `chatflow dev seed` (default 100 000
//! tickets x 10 messages; `--quick` 10 000 x 5) on SQLite and on a throwaway PostgreSQL
//! database, then measures the ticket list, contact and message-body search, a ticket's first
//! message page and inbound ingestion through the sandbox with sockets listening, and the
//! automation one ([`automation`]): new phones walking a welcome flow (greeting, menu, ticket to
//! a queue) on fresh SQLite and PostgreSQL databases, against the same ingestion without a flow,
//! and the WhatsApp Web one (`bin-server/examples/whatsapp_bench.rs`): inbound messages through
//! the provider's durability hook into ingestion, and connections restored after a restart, on
//! the provider's fake.

use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use serde_json::json;

use xtask::util::{cmd, project_root, run_step, start_server, target_dir};

mod automation;
mod flow;
mod inbox;

/// Latency and throughput of one scenario.
struct Measured {
    requests: usize,
    errors: usize,
    elapsed: Duration,
    latencies: Vec<Duration>,
}

impl Measured {
    fn per_second(&self) -> f64 {
        self.requests as f64 / self.elapsed.as_secs_f64()
    }

    fn percentile(&self, p: f64) -> Duration {
        if self.latencies.is_empty() {
            return Duration::ZERO;
        }
        let mut sorted = self.latencies.clone();
        sorted.sort_unstable();
        let rank = ((p / 100.0) * (sorted.len() - 1) as f64).round() as usize;
        sorted[rank.min(sorted.len() - 1)]
    }

    fn print(&self, name: &str, concurrency: usize) {
        println!(
            "{name:<38} c={concurrency:<3} {:>9.0} req/s   p50 {:>7.2} ms   p99 {:>7.2} ms   ({} requests, {} errors)",
            self.per_second(),
            self.percentile(50.0).as_secs_f64() * 1000.0,
            self.percentile(99.0).as_secs_f64() * 1000.0,
            self.requests,
            self.errors,
        );
    }
}

/// Runs `make_request` from `concurrency` workers for `duration`.
async fn load<F, Fut>(concurrency: usize, duration: Duration, make_request: F) -> Measured
where
    F: Fn(reqwest::Client) -> Fut + Send + Sync + 'static,
    Fut: std::future::Future<Output = bool> + Send,
{
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(concurrency)
        .build()
        .unwrap_or_default();
    let make_request = Arc::new(make_request);
    let started = Instant::now();
    let deadline = started + duration;
    let mut workers = Vec::with_capacity(concurrency);
    for _ in 0..concurrency {
        let client = client.clone();
        let make_request = Arc::clone(&make_request);
        workers.push(tokio::spawn(async move {
            let mut latencies = Vec::new();
            let mut errors = 0usize;
            while Instant::now() < deadline {
                let sent = Instant::now();
                if make_request(client.clone()).await {
                    latencies.push(sent.elapsed());
                } else {
                    errors += 1;
                }
            }
            (latencies, errors)
        }));
    }
    let mut measured = Measured {
        requests: 0,
        errors: 0,
        elapsed: Duration::ZERO,
        latencies: Vec::new(),
    };
    for worker in workers {
        if let Ok((latencies, errors)) = worker.await {
            measured.requests += latencies.len();
            measured.errors += errors;
            measured.latencies.extend(latencies);
        }
    }
    measured.elapsed = started.elapsed();
    measured
}

/// True for a 2xx response whose body was read whole (so the connection is reused).
async fn succeeded(response: reqwest::Result<reqwest::Response>) -> bool {
    match response {
        Ok(response) if response.status().is_success() => response.bytes().await.is_ok(),
        _ => false,
    }
}

/// Prints the server's resident memory after a scenario.
fn print_rss(pid: u32) {
    let rss = rss_kib(pid).unwrap_or_default();
    println!(
        "{:<38}       {:>9.1} MiB",
        "  memory after it (RSS)",
        rss as f64 / 1024.0
    );
}

/// Resident memory of a process in KiB, from /proc.
fn rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|kib| kib.parse().ok())
}

/// `cargo xtask bench` flags.
#[derive(Debug, Clone, clap::Args)]
pub struct BenchArgs {
    /// Seconds per throughput scenario.
    #[arg(long, default_value_t = 5)]
    pub seconds: u64,
    /// Tickets the inbox scenarios seed.
    #[arg(long, default_value_t = 100_000)]
    pub tickets: u64,
    /// Messages of each seeded ticket.
    #[arg(long, default_value_t = 10)]
    pub messages_per_ticket: u32,
    /// A small run to try the wiring: 10 000 tickets x 5 messages, 2 s per scenario.
    #[arg(long)]
    pub quick: bool,
    /// Use debug builds instead of release ones (checks the wiring; the numbers mean little).
    #[arg(long)]
    pub debug: bool,
    /// Which scenarios: all, basic (sign-in and /auth/me), flows (the flow interpreter and
    /// routing decisions, no server), inbox (seeded lists, search, messages and ingestion on
    /// SQLite and PostgreSQL) or automation (new phones through a welcome flow on SQLite and
    /// PostgreSQL, against the same ingestion without a flow), or whatsapp (inbound through the
    /// WhatsApp Web hook and connections restored after a restart, on the provider's fake).
    #[arg(long, default_value = "all")]
    pub only: Only,
    /// Use the server and CLI binaries already built for the profile instead of building them.
    #[arg(long)]
    pub no_build: bool,
    /// Skip PostgreSQL even when one answers (CHATFLOW_TEST_POSTGRES_URL or 127.0.0.1:5432).
    #[arg(long)]
    pub no_postgres: bool,
    /// Run the inbox scenarios on this already seeded SQLite file (`chatflow dev seed`) instead
    /// of seeding fresh databases; PostgreSQL is skipped. The file is written to (ingestion).
    #[arg(long, value_name = "FILE")]
    pub sqlite_db: Option<std::path::PathBuf>,
    /// Inbound messages sent through the sandbox in the ingestion scenario.
    #[arg(long, default_value_t = 2000)]
    pub ingest_messages: u64,
    /// New phones in the automation scenario (each sends "oi", then "1" once its menu arrived).
    #[arg(long, default_value_t = 300)]
    pub automation_phones: u64,
}

/// The scenario groups.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Only {
    All,
    Basic,
    Flows,
    Inbox,
    Automation,
    Whatsapp,
}

pub fn bench(mut args: BenchArgs) -> Result<()> {
    if args.quick {
        args.tickets = 10_000;
        args.messages_per_ticket = 5;
        args.seconds = args.seconds.min(2);
        args.ingest_messages = args.ingest_messages.min(500);
        args.automation_phones = args.automation_phones.min(100);
    }
    let root = project_root();
    if args.only == Only::Flows {
        return flow::run(Duration::from_secs(args.seconds));
    }
    let profile = if args.debug { "debug" } else { "release" };
    let mut build = vec!["build", "--package", "chatflow-server"];
    // The CLI seeds the inbox scenarios' databases.
    if matches!(args.only, Only::All | Only::Inbox) {
        build.extend(["--package", "chatflow-cli"]);
    }
    if !args.debug {
        build.push("--release");
    }
    if !args.no_build {
        run_step(
            &format!("build {profile} server and CLI"),
            cmd("cargo", &build).current_dir(&root),
        )?;
    }
    let binary = target_dir(&root).join(profile).join("chatflow-server");
    let cli = target_dir(&root).join(profile).join("chatflow");
    let duration = Duration::from_secs(args.seconds);
    let runtime = tokio::runtime::Runtime::new().context("starting tokio")?;
    runtime.block_on(async {
        if matches!(args.only, Only::All | Only::Basic) {
            scenarios(&binary, duration).await?;
        }
        if args.only == Only::All {
            flow::run(duration)?;
        }
        if matches!(args.only, Only::All | Only::Inbox) {
            inbox::run(&binary, &cli, &args, duration).await?;
        }
        if matches!(args.only, Only::All | Only::Automation) {
            automation::run(&binary, &args).await?;
        }
        if matches!(args.only, Only::All | Only::Whatsapp) {
            whatsapp(&root, &args)?;
        }
        Ok(())
    })
}

async fn scenarios(binary: &std::path::Path, duration: Duration) -> Result<()> {
    println!(
        "\nChatflow benchmark ({} s per scenario, {} cores)",
        duration.as_secs(),
        num_cpus()
    );

    // Cold start: spawn to first 200 on a fresh database (migrations and seeding included).
    let mut cold = Vec::new();
    for _ in 0..3 {
        let (server, took) = start_server(binary, &[])?;
        cold.push(took);
        drop(server);
    }
    cold.sort_unstable();
    println!(
        "{:<38}       {:>9.1} ms median of 3 (min {:.1}, max {:.1})",
        "cold start to first 200",
        cold[1].as_secs_f64() * 1000.0,
        cold[0].as_secs_f64() * 1000.0,
        cold[2].as_secs_f64() * 1000.0
    );

    let (server, _) = start_server(binary, &[("CHATFLOW_LOGIN_RATE_PER_MINUTE", "100000000")])?;
    tokio::time::sleep(Duration::from_secs(1)).await;
    let idle = rss_kib(server.pid()).unwrap_or_default();
    println!(
        "{:<38}       {:>9.1} MiB",
        "idle memory (RSS)",
        idle as f64 / 1024.0
    );

    let base = format!("http://127.0.0.1:{}", server.port);
    let credentials = json!({"email": server.admin_email, "password": server.admin_password});
    let login_url = format!("{base}/auth/login");

    let client = reqwest::Client::new();
    let response = client.post(&login_url).json(&credentials).send().await?;
    if !response.status().is_success() {
        bail!("login failed: {}", response.status());
    }
    let body: serde_json::Value = response.json().await?;
    let token = body["token"]
        .as_str()
        .context("login response without token")?
        .to_owned();

    for concurrency in [1usize, 8] {
        let url = login_url.clone();
        let credentials = credentials.clone();
        let measured = load(concurrency, duration, move |client| {
            let url = url.clone();
            let credentials = credentials.clone();
            async move { succeeded(client.post(&url).json(&credentials).send().await).await }
        })
        .await;
        measured.print("POST /auth/login (argon2id)", concurrency);
        print_rss(server.pid());
    }

    let me_url = format!("{base}/auth/me");
    for concurrency in [1usize, 32] {
        let url = me_url.clone();
        let bearer = format!("Bearer {token}");
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
        measured.print("GET /auth/me", concurrency);
        print_rss(server.pid());
    }

    drop(server);
    Ok(())
}

/// The WhatsApp Web scenarios: the server's `whatsapp_bench` example (the server in-process on
/// the provider's fake; see its documentation), built in the same profile.
fn whatsapp(root: &std::path::Path, args: &BenchArgs) -> Result<()> {
    let mut build = vec![
        "build",
        "--package",
        "chatflow-server",
        "--example",
        "whatsapp_bench",
    ];
    if !args.debug {
        build.push("--release");
    }
    if !args.no_build {
        run_step(
            "build the WhatsApp Web bench",
            cmd("cargo", &build).current_dir(root),
        )?;
    }
    let profile = if args.debug { "debug" } else { "release" };
    let binary = target_dir(root)
        .join(profile)
        .join("examples")
        .join("whatsapp_bench");
    let messages = args.ingest_messages.to_string();
    let connections = if args.quick { "40" } else { "200" };
    let mut bench = vec!["--messages", &messages, "--connections", connections];
    if args.no_postgres || args.sqlite_db.is_some() {
        bench.push("--no-postgres");
    }
    run_step(
        "WhatsApp Web bench",
        &mut cmd(&binary.to_string_lossy(), &bench),
    )
}

fn num_cpus() -> usize {
    std::thread::available_parallelism()
        .map(usize::from)
        .unwrap_or(1)
}
