//! Project commands: `cargo xtask run`, `cargo xtask test`, `cargo xtask bench`.
//!
//! `run` builds what is missing (the web app) and starts the server on SQLite.
//! `test` runs every check the project promises, in the order a failure is cheapest to find.
//! `bench` starts a release server on a fresh database and prints the numbers we report.

mod bench;
mod engines;
mod fuzz;
mod util;
mod wasm;

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};

use util::{cmd, project_root, run_step};

#[derive(Parser)]
#[command(name = "xtask", about = "Chatflow project commands")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Build what is missing and start the server on SQLite at http://localhost:8080.
    Run {
        /// Build and run the optimised binary.
        #[arg(long)]
        release: bool,
        /// Rebuild the web app even when web/dist exists.
        #[arg(long)]
        rebuild_web: bool,
    },
    /// Run every check: fmt, clippy, Rust tests (SQLite and PostgreSQL), the core built for the
    /// browser (WASM), the examples, web typecheck/lint/unit tests (one compares the WASM
    /// interpreter's transcript with the CLI's)/build and the end-to-end tests in Chromium.
    Test {
        /// Skip the browser end-to-end tests.
        #[arg(long)]
        no_e2e: bool,
        /// Skip everything in web/ (typecheck, lint, unit tests, build, e2e).
        #[arg(long)]
        no_web: bool,
        /// Fail unless PostgreSQL answers (CHATFLOW_TEST_POSTGRES_URL or 127.0.0.1:5432) and
        /// every PostgreSQL test runs on it, none skipped. Also on when CI or
        /// CHATFLOW_REQUIRE_POSTGRES is set (not to `false` or `0`).
        #[arg(long)]
        require_postgres: bool,
    },
    /// Measure throughput, latency, memory and start-up time of a release server, and the
    /// inbox on seeded SQLite and PostgreSQL databases.
    Bench(bench::BenchArgs),
    /// Build the core for the browser (web/wasm → web/src/wasm-pkg) with wasm-bindgen.
    Wasm,
    /// Run the API fuzz check of `test` alone: schemathesis against a fresh debug server.
    Fuzz,
}

fn main() -> Result<()> {
    let cli = Cli::parse();
    match cli.command {
        Command::Run {
            release,
            rebuild_web,
        } => run(release, rebuild_web),
        Command::Test {
            no_e2e,
            no_web,
            require_postgres,
        } => test(!no_web, !no_e2e && !no_web, require_postgres),
        Command::Bench(args) => bench::bench(args),
        Command::Wasm => wasm::build(&project_root()),
        Command::Fuzz => fuzz::run(&project_root()),
    }
}

fn web_dir() -> PathBuf {
    project_root().join("web")
}

/// Installs the web app's packages when `node_modules` is missing or older than the lockfile.
fn ensure_node_modules() -> Result<()> {
    let web = web_dir();
    let modules = web.join("node_modules");
    let lock = web.join("package-lock.json");
    let stale = match (modules.metadata(), lock.metadata()) {
        (Ok(m), Ok(l)) => match (m.modified(), l.modified()) {
            (Ok(m), Ok(l)) => l > m,
            _ => false,
        },
        (Err(_), _) => true,
        _ => false,
    };
    if stale {
        run_step(
            "web: npm ci",
            cmd("npm", &["ci", "--no-audit", "--no-fund"]).current_dir(&web),
        )?;
    }
    Ok(())
}

fn build_web(force: bool) -> Result<()> {
    let web = web_dir();
    if force || !web.join("dist").join("index.html").exists() {
        if force
            || !wasm::pkg_dir(&project_root())
                .join("chatflow_wasm.js")
                .exists()
        {
            wasm::build(&project_root())?;
        }
        ensure_node_modules()?;
        run_step(
            "web: build",
            cmd("npm", &["run", "build"]).current_dir(&web),
        )?;
    }
    Ok(())
}

fn run(release: bool, rebuild_web: bool) -> Result<()> {
    build_web(rebuild_web)?;
    let root = project_root();
    let mut args = vec!["run", "--package", "chatflow-server"];
    if release {
        args.push("--release");
    }
    let mut command = cmd("cargo", &args);
    command.current_dir(&root);
    if std::env::var_os("CHATFLOW_WEB_DIR").is_none() {
        command.env("CHATFLOW_WEB_DIR", web_dir().join("dist"));
    }
    println!(
        "Starting Chatflow on http://localhost:{} (Ctrl-C to stop)",
        util::env_or("PORT", "8080")
    );
    let status = command.status().context("starting cargo run")?;
    anyhow::ensure!(status.success(), "the server exited with {status}");
    Ok(())
}

fn test(web: bool, e2e: bool, require_postgres: bool) -> Result<()> {
    let root = project_root();
    let engines = engines::Engines::prepare(require_postgres, &root)?;

    run_step(
        "fmt",
        cmd("cargo", &["fmt", "--all", "--", "--check"]).current_dir(&root),
    )?;
    run_step(
        "clippy",
        cmd(
            "cargo",
            &[
                "clippy",
                "--workspace",
                "--all-targets",
                "--",
                "-D",
                "warnings",
            ],
        )
        .current_dir(&root),
    )?;
    let mut tests = cmd("cargo", &["test", "--workspace"]);
    tests.current_dir(&root);
    engines.configure(&mut tests)?;
    let engine_count = engines.report(run_step("rust tests", &mut tests))?;
    wasm::build(&root)?;
    for example in ["example-ticket-lifecycle", "example-flow-run"] {
        run_step(
            &format!("example runs: {example}"),
            cmd("cargo", &["run", "--quiet", "--package", example]).current_dir(&root),
        )?;
    }
    wasm::cli_transcript(
        &root,
        &util::target_dir(&root).join("debug").join("chatflow"),
    )?;
    fuzz::run(&root)?;

    if web {
        ensure_node_modules()?;
        let dir = web_dir();
        run_step(
            "web: typecheck",
            cmd("npm", &["run", "typecheck"]).current_dir(&dir),
        )?;
        run_step("web: lint", cmd("npm", &["run", "lint"]).current_dir(&dir))?;
        run_step("web: unit tests", cmd("npm", &["test"]).current_dir(&dir))?;
        run_step(
            "web: build",
            cmd("npm", &["run", "build"]).current_dir(&dir),
        )?;
    }
    if e2e {
        util::e2e(&root)?;
    }
    println!("\nAll checks passed.\n{engine_count}");
    Ok(())
}
