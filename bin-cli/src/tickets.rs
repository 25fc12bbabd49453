//! `chatflow tickets ...`: a company's tickets from a terminal.
//!
//! - `chatflow tickets close-all --company ID --status open|pending [--queue ID]...`: closes
//!   every ticket of that status (in those queues; every queue when none is named) through the
//!   core's close-all use case, the same as `POST /tickets/closeAll`, and prints how many were
//!   closed. The closed logs name the company's first admin, on whose behalf the CLI acts.

use chatflow_core::service::Ports;
use chatflow_core::service::inbox::tickets;
use chatflow_core::ticket::TicketStatus;
use chatflow_core::{CompanyId, QueueId, TenantScope};
use clap::{Args, Subcommand, ValueEnum};
use serde::Serialize;

use crate::cli::Cli;
use crate::commands::Failure;
use crate::output::print_json;

/// `chatflow tickets ...`.
#[derive(Debug, Subcommand)]
pub enum TicketsCommand {
    /// Close every ticket of a status (optionally only in some queues).
    CloseAll(CloseAllArgs),
}

/// The statuses close-all takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OpenStatus {
    Open,
    Pending,
}

impl From<OpenStatus> for TicketStatus {
    fn from(status: OpenStatus) -> Self {
        match status {
            OpenStatus::Open => TicketStatus::Open,
            OpenStatus::Pending => TicketStatus::Pending,
        }
    }
}

/// `chatflow tickets close-all`.
#[derive(Debug, Args)]
pub struct CloseAllArgs {
    /// The company's id.
    #[arg(long, value_parser = parse_id)]
    pub company: i64,
    /// Which tickets to close.
    #[arg(long, value_enum)]
    pub status: OpenStatus,
    /// Only tickets of this queue (repeat for several; default every queue).
    #[arg(long = "queue", value_name = "ID", value_parser = parse_id)]
    pub queues: Vec<i64>,
}

/// The answer of `close-all --json`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Closed {
    company: i64,
    status: TicketStatus,
    closed: u64,
}

/// Runs a `tickets` command.
pub async fn run(cli: &Cli, ports: &Ports, command: &TicketsCommand) -> Result<(), Failure> {
    match command {
        TicketsCommand::CloseAll(args) => {
            let status = TicketStatus::from(args.status);
            let queues: Vec<QueueId> = args.queues.iter().copied().map(QueueId).collect();
            let scope = TenantScope::new(CompanyId(args.company));
            let closed = tickets::close_all_in_company(ports, scope, status, &queues).await?;
            if cli.json {
                print_json(&Closed {
                    company: args.company,
                    status,
                    closed,
                });
            } else {
                let noun = if closed == 1 { "ticket" } else { "tickets" };
                println!("Closed {closed} {noun} of company {}.", args.company);
            }
            Ok(())
        }
    }
}

fn parse_id(text: &str) -> Result<i64, String> {
    match text.trim().parse::<i64>() {
        Ok(id) if id > 0 => Ok(id),
        _ => Err(format!("{text:?} is not a positive id")),
    }
}
