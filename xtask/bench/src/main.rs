//! `xtask-bench`: the project commands that need a runtime, an HTTP client and the core, kept
//! apart from `xtask` so a first `cargo xtask run` does not compile them. `cargo xtask bench`
//! and `cargo xtask fuzz` (and the fuzz step of `cargo xtask test`) run it.

mod bench;
mod fuzz;

use anyhow::Result;
use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "xtask-bench",
    about = "Chatflow benchmarks and the API fuzz run"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Measure throughput, latency, memory and start-up time of a release server, and the
    /// inbox on seeded SQLite and PostgreSQL databases.
    Bench(bench::BenchArgs),
    /// The API fuzz check: schemathesis against a fresh debug server.
    Fuzz,
}

fn main() -> Result<()> {
    // The TLS provider reqwest's clients need (see Cargo.toml); the bench speaks plain HTTP.
    let _ = rustls::crypto::ring::default_provider().install_default();
    match Cli::parse().command {
        Command::Bench(args) => bench::bench(args),
        Command::Fuzz => fuzz::run(&xtask::project_root()),
    }
}
