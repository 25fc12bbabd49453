//! The API fuzz check of `cargo xtask test`: schemathesis generates requests from the server's
//! own OpenAPI document (valid and invalid bodies, parameters and headers) and sends them to a
//! real server on a fresh SQLite database, signed in as its admin. The run fails on any 5xx
//! answer and on any answer that does not match the documented schema.
//!
//! It is bounded: a fixed seed, a number of cases per operation and a time budget. Schemathesis
//! is installed once into a virtual environment in the cache directory (`CHATFLOW_CACHE_DIR`,
//! default `~/.cache/chatflow`), outside the clone.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use chatflow_system::fake_smtp::FakeSmtpServer;

use xtask::util::{cmd, env_or, run_step, start_server, target_dir};

/// The schemathesis release the check is written against.
const SCHEMATHESIS_VERSION: &str = "4.32.5";
/// Cases generated per operation and phase.
const MAX_EXAMPLES: &str = "20";
/// The whole run's time budget, in seconds.
const MAX_SECONDS: &str = "75";
/// A fixed seed, so a failure can be replayed.
const SEED: &str = "13";

/// Where caches outside the clone live.
fn cache_dir() -> PathBuf {
    match std::env::var_os("CHATFLOW_CACHE_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(env_or("HOME", "/tmp"))
            .join(".cache")
            .join("chatflow"),
    }
}

/// The `st` command, installed into its own virtual environment when missing.
fn schemathesis() -> Result<PathBuf> {
    let venv = cache_dir().join(format!("schemathesis-{SCHEMATHESIS_VERSION}"));
    let st = venv.join("bin").join("st");
    if st.exists() {
        return Ok(st);
    }
    println!(
        "Installing schemathesis {SCHEMATHESIS_VERSION} into {} (once, about a minute)",
        venv.display()
    );
    let python = env_or("PYTHON", "python3");
    run_step(
        "fuzz: python virtual environment",
        cmd(&python, &["-m", "venv"]).arg(&venv),
    )
    .context("python3 with the venv module is needed for the API fuzz check")?;
    run_step(
        "fuzz: install schemathesis",
        &mut cmd(
            &venv.join("bin").join("pip").to_string_lossy(),
            &[
                "install",
                "--quiet",
                &format!("schemathesis=={SCHEMATHESIS_VERSION}"),
            ],
        ),
    )?;
    Ok(st)
}

/// Signs in on the server and returns the access token.
fn sign_in(
    runtime: &tokio::runtime::Runtime,
    port: u16,
    email: &str,
    password: &str,
) -> Result<String> {
    runtime.block_on(async {
        let answer: serde_json::Value = reqwest::Client::new()
            .post(format!("http://127.0.0.1:{port}/auth/login"))
            .json(&serde_json::json!({"email": email, "password": password}))
            .send()
            .await?
            .error_for_status()?
            .json()
            .await?;
        match answer.get("token").and_then(|t| t.as_str()) {
            Some(token) => Ok(token.to_owned()),
            None => bail!("the sign-in answer has no token: {answer}"),
        }
    })
}

/// Runs schemathesis against a fresh server built by the test step.
pub fn run(root: &Path) -> Result<()> {
    let st = schemathesis()?;
    let binary = target_dir(root).join("debug").join("chatflow-server");
    if !binary.exists() {
        run_step(
            "fuzz: build server",
            cmd("cargo", &["build", "--package", "chatflow-server"]).current_dir(root),
        )?;
    }
    // A mail server that accepts everything, so the password-reset routes are fuzzed as a
    // configured server runs them (without one they answer 503 by design).
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()?;
    let smtp = runtime.block_on(FakeSmtpServer::start())?;
    let smtp_url = format!("{}?tls=none", smtp.url());
    let (server, _) = start_server(
        &binary,
        &[
            ("CHATFLOW_LOGIN_RATE_PER_MINUTE", "600"),
            ("CHATFLOW_SMTP_URL", &smtp_url),
        ],
    )?;
    let token = sign_in(
        &runtime,
        server.port,
        &server.admin_email,
        &server.admin_password,
    )?;
    let base = format!("http://127.0.0.1:{}", server.port);
    let report = xtask::util::TempDir::new("chatflow-fuzz")?;
    let mut command = cmd(&st.to_string_lossy(), &["run"]);
    command
        .arg(format!("{base}/api-docs/openapi.json"))
        .args(["--url", &base])
        .args(["--header", &format!("Authorization: Bearer {token}")])
        .args([
            "--checks",
            "not_a_server_error,response_schema_conformance",
            "--phases",
            "examples,coverage,fuzzing",
            "--max-examples",
            MAX_EXAMPLES,
            "--max-time",
            MAX_SECONDS,
            "--seed",
            SEED,
            "--workers",
            "2",
            "--request-timeout",
            "20",
            "--suppress-health-check",
            "all",
            "--warnings",
            "off",
            "--no-color",
        ])
        // Signing out or rotating the session would end the run's own access; sign-in routes
        // are covered by the server's tests.
        .args(["--exclude-path-regex", "^/auth/"])
        .args(["--report", "junit"])
        .arg("--report-dir")
        .arg(&report.0)
        .args(["--generation-database", "none"])
        // Anything schemathesis writes stays out of the clone.
        .current_dir(&report.0);
    let outcome = run_step("api fuzz (schemathesis, signed in)", &mut command);
    drop(server);
    drop(smtp);
    outcome
}
