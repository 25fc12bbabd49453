//! Project commands: `cargo xtask run`, `cargo xtask test`, `cargo xtask bench`, `cargo xtask types`.
//!
//! `run` builds what is missing (the web app) and starts the server on SQLite.
//! `test` runs every check the project promises, in the order a failure is cheapest to find.
//! `bench` starts a release server on a fresh database and prints the numbers we report; it and
//! the API fuzz run live in the `xtask-bench` crate, which this one runs with cargo.

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};

use xtask::util::{self, cmd, project_root, run_step};
use xtask::{
    budget, build_app, dist, engines, first_run, prepare, types, wasm, web_dir, web_is_stale,
};

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
    /// interpreter's transcript with the CLI's)/build, the first-load budget of the built app
    /// and the end-to-end tests in Chromium.
    Test {
        /// Skip the browser end-to-end tests.
        #[arg(long)]
        no_e2e: bool,
        /// Skip everything in web/ (typecheck, lint, unit tests, build, e2e).
        #[arg(long)]
        no_web: bool,
        /// Skip the check that `cargo xtask run` works from a clean clone of HEAD.
        #[arg(long)]
        no_first_run: bool,
        /// Fail unless PostgreSQL answers (CHATFLOW_TEST_POSTGRES_URL or 127.0.0.1:5432) and
        /// every PostgreSQL test runs on it, none skipped. Also on when CI or
        /// CHATFLOW_REQUIRE_POSTGRES is set (not to `false` or `0`).
        #[arg(long)]
        require_postgres: bool,
    },
    /// Measure throughput, latency, memory and start-up time of a release server, and the
    /// inbox on seeded SQLite and PostgreSQL databases (`cargo xtask bench --help` lists the
    /// options of `xtask-bench`).
    Bench {
        /// The benchmark's options, passed to `xtask-bench bench`.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// Check that the built web app's first load of the inbox at /tickets (web/dist: the entry
    /// script, the shell's and tickets page's route chunks, and their static imports) is at
    /// most 300 KB of gzipped JavaScript, naming the largest chunks.
    Budget,
    /// Build the core for the browser (web/wasm → web/src/wasm-pkg) with wasm-bindgen.
    Wasm,
    /// Write the TypeScript declarations of the types the web app shares with the core
    /// (web/src/lib/core-types/generated.ts) from their Rust definitions; `test` fails while
    /// the committed file differs.
    Types,
    /// Run the API fuzz check of `test` alone: schemathesis against a fresh debug server.
    Fuzz,
    /// Run the first-run check of `test` alone: `cargo xtask run` in a clean clone of HEAD.
    FirstRun,
    /// Build the release archive: dist/chatflow-<version>-<target>.tar.gz (server with the web
    /// app embedded, CLI, README, sample configuration and systemd unit).
    Dist {
        /// Embed the web app already built in this folder instead of building web/.
        #[arg(long, value_name = "DIR")]
        web_dist: Option<PathBuf>,
        /// Then unpack the archive and check its server as `cargo xtask test` does.
        #[arg(long)]
        check: bool,
    },
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
            no_first_run,
            require_postgres,
        } => test(!no_web, !no_e2e && !no_web, !no_first_run, require_postgres),
        Command::Bench { args } => bench(&args),
        Command::Budget => budget::check(&web_dir()),
        Command::Wasm => wasm::build(&project_root(), &mut util::Steps::new(0)),
        Command::Types => types::write(&project_root(), &mut util::Steps::new(0)),
        Command::Fuzz => fuzz(),
        Command::FirstRun => first_run::check(&project_root()),
        Command::Dist { web_dist, check } => dist::run(&project_root(), web_dist.as_deref(), check),
    }
}

/// Runs `xtask-bench` (built in the same profile as xtask) with `args`.
fn xtask_bench(args: &[&str]) -> Result<()> {
    let mut command = cmd(
        "cargo",
        &["run", "--quiet", "--package", "xtask-bench", "--"],
    );
    command.args(args).current_dir(project_root());
    let status = command.status().context("starting xtask-bench")?;
    anyhow::ensure!(status.success(), "xtask-bench {args:?} failed ({status})");
    Ok(())
}

fn bench(args: &[String]) -> Result<()> {
    let wants_help = args.iter().any(|a| a == "--help" || a == "-h");
    let no_build = args.iter().any(|a| a == "--no-build");
    if !wants_help && !no_build {
        // The servers serve the web app and the flow bench runs the WASM module.
        build_app(false, &mut util::Steps::new(0))?;
    }
    let mut all = vec!["bench"];
    all.extend(args.iter().map(String::as_str));
    xtask_bench(&all)
}

fn fuzz() -> Result<()> {
    xtask_bench(&["fuzz"])
}

fn run(release: bool, rebuild_web: bool) -> Result<()> {
    let root = project_root();
    // prepare (0 to 2 installs) + wasm (build, bind) + web build (when stale) + server build.
    let mut steps = util::Steps::new(if rebuild_web || web_is_stale(&web_dir()) {
        4
    } else {
        3
    });
    build_app(rebuild_web, &mut steps)?;
    let profile = if release { "release" } else { "debug" };
    let mut build = vec!["build", "--package", "chatflow-server"];
    if release {
        build.push("--release");
    }
    steps.run(
        &format!("server: cargo build ({profile}; a first build takes several minutes)"),
        cmd("cargo", &build).current_dir(&root),
    )?;
    let binary = util::target_dir(&root)
        .join(profile)
        .join("chatflow-server");
    let mut command = std::process::Command::new(&binary);
    command.current_dir(&root);
    if std::env::var_os("CHATFLOW_WEB_DIR").is_none() {
        command.env("CHATFLOW_WEB_DIR", web_dir().join("dist"));
    }
    println!(
        "\nStarting Chatflow on http://localhost:{} (Ctrl-C to stop)",
        util::env_or("PORT", "8080")
    );
    let status = command
        .status()
        .with_context(|| format!("starting {}", binary.display()))?;
    anyhow::ensure!(status.success(), "the server exited with {status}");
    Ok(())
}

fn test(web: bool, e2e: bool, first_run: bool, require_postgres: bool) -> Result<()> {
    let root = project_root();
    // First, before anything slow: a required PostgreSQL that does not answer fails at once.
    let engines = engines::Engines::prepare(require_postgres, &root)?;
    // The prepare step comes where it is needed: the wasm32 target with the WASM build, the
    // web app's packages before the web checks.
    let mut steps = util::Steps::new(0);

    run_step(
        "fmt",
        cmd("cargo", &["fmt", "--all", "--", "--check"]).current_dir(&root),
    )?;
    steps.timed("one feature set per crate (workspace-hack)", || {
        xtask::features::check(&root)
    })?;
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
    wasm::build(&root, &mut steps)?;
    // Every binary of the workspace in the tests' build: the same features, so nothing but the
    // binaries themselves is compiled (a `cargo run --package` of one of them would resolve
    // features for that package alone and build the crates it shares again).
    run_step(
        "binaries",
        cmd("cargo", &["build", "--workspace", "--bins"]).current_dir(&root),
    )?;
    let bins = util::target_dir(&root).join("debug");
    for example in ["example-ticket-lifecycle", "example-flow-run"] {
        run_step(
            &format!("example runs: {example}"),
            std::process::Command::new(bins.join(example)).current_dir(&root),
        )?;
    }
    // The Rust tests above wrote the rules' cases (web/wasm/tests/rules_cases.rs).
    wasm::rules_cases(&root)?;
    wasm::cli_transcript(
        &root,
        &util::target_dir(&root).join("debug").join("chatflow"),
    )?;
    run_step(
        "fuzz: the HTTP API with generated requests",
        std::process::Command::new(bins.join("xtask-bench"))
            .arg("fuzz")
            .current_dir(&root),
    )?;

    if web {
        prepare::prepare(
            &root,
            prepare::Needs {
                wasm: false,
                web: true,
            },
            &mut steps,
        )?;
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
        budget::check(&dir)?;
    }
    if e2e {
        util::e2e(&root)?;
    }
    // After the end-to-end tests: the archive's dev build of the server (the app embedded)
    // takes the place of the plain one in the target directory.
    if web {
        dist::check(&root)?;
    }
    if first_run {
        first_run::check(&root)?;
    }
    println!("\nAll checks passed.\n{engine_count}");
    Ok(())
}
