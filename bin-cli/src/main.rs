//! `chatflow`: the administration command line (migrate, users, companies, settings, contacts,
//! tickets, the sandbox's phones, development data).
//!
//! Same database as the server (`DATABASE_URL`, default `sqlite://data/chatflow.db`). Only
//! `chatflow migrate` changes the schema (and seeds a first start); every other command refuses
//! to run on a database whose migrations are not all applied, with exit code 3, rather than
//! migrating behind the operator's back.
//!
//! Exit codes: 0 success, 1 refused by the core (an `ERR_*` code is printed), 2 usage error
//! (clap), 3 the database cannot be reached, migrated, or lacks the schema.

use std::process::ExitCode;

use clap::Parser;

mod cli;
mod commands;
mod contacts;
mod dev;
mod flow;
mod flow_admin;
mod inbound_failures;
mod output;
mod sandbox;
mod tickets;

/// Exit code of a command the core refused.
const EXIT_DOMAIN: u8 = 1;
/// Exit code when the database cannot be reached, migrated, or lacks the schema.
const EXIT_DATABASE: u8 = 3;

#[tokio::main]
async fn main() -> ExitCode {
    // Usage errors exit with clap's code 2; --help and --version with 0.
    let cli = cli::Cli::parse();
    let json = cli.json;
    match commands::run(cli).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(commands::Failure::Domain(error)) => {
            output::print_domain_error(&error, json);
            ExitCode::from(EXIT_DOMAIN)
        }
        Err(commands::Failure::Database(message)) => {
            output::print_database_error(&message, json);
            ExitCode::from(EXIT_DATABASE)
        }
    }
}
