//! `chatflow flow export|import`: a company's flows to and from files, in the format of the web
//! app's export (`{format: "chatflow-flow", version: 1, name, flow}`). Unlike `flow validate` and
//! `flow simulate`, these need the database.
//!
//! - `chatflow flow export --company N --flow ID [FILE]`: writes the flow's draft (else its live
//!   graph) to FILE, or to standard output without one.
//! - `chatflow flow import --company N FILE [--name NAME]`: creates an unpublished flow whose
//!   draft is the file's graph, named NAME or as in the file; prints its id (or, with `--json`,
//!   the flow).
//!
//! The rules are the core's (`chatflow_core::service::flows::checked_import`); the write emits
//! the same realtime event as the web app's import.

use std::path::PathBuf;

use chatflow_core::flow_ports::FlowId;
use chatflow_core::service::Ports;
use chatflow_core::service::flows::{self, FlowFile};
use chatflow_core::{CompanyId, Error, ErrorCode, TenantScope};
use clap::Args;

use crate::cli::Cli;
use crate::commands::Failure;
use crate::flow::FlowCommand;
use crate::output::print_json;

/// `chatflow flow export`.
#[derive(Debug, Args)]
pub struct ExportArgs {
    /// The company's id.
    #[arg(long, value_parser = parse_id)]
    pub company: i64,
    /// The flow's id.
    #[arg(long, value_parser = parse_id)]
    pub flow: i64,
    /// Where to write the file (standard output when absent).
    pub file: Option<PathBuf>,
}

/// `chatflow flow import`.
#[derive(Debug, Args)]
pub struct ImportArgs {
    /// The company's id.
    #[arg(long, value_parser = parse_id)]
    pub company: i64,
    /// The exported flow file.
    pub file: PathBuf,
    /// The new flow's name (default: the name in the file).
    #[arg(long)]
    pub name: Option<String>,
}

fn parse_id(text: &str) -> Result<i64, String> {
    match text.parse::<i64>() {
        Ok(id) if id > 0 => Ok(id),
        _ => Err(format!("expected a positive id, got {text:?}")),
    }
}

/// The database command among `flow` commands, if `command` is one.
pub enum AdminCommand<'a> {
    /// `flow export`.
    Export(&'a ExportArgs),
    /// `flow import`.
    Import(&'a ImportArgs),
}

/// Whether a `flow` command is one of these (it needs the database).
pub fn admin_command(command: &FlowCommand) -> Option<AdminCommand<'_>> {
    match command {
        FlowCommand::Export(args) => Some(AdminCommand::Export(args)),
        FlowCommand::Import(args) => Some(AdminCommand::Import(args)),
        _ => None,
    }
}

/// Checks the company exists, so a wrong id is a clear error rather than an empty answer.
async fn company_scope(ports: &Ports, company: i64) -> Result<TenantScope, Failure> {
    let scope = TenantScope::new(CompanyId(company));
    ports
        .companies
        .get(scope)
        .await?
        .ok_or(ErrorCode::ERR_NO_COMPANY_FOUND)?;
    Ok(scope)
}

/// Runs `flow export` or `flow import`.
pub async fn run(cli: &Cli, ports: &Ports, command: AdminCommand<'_>) -> Result<(), Failure> {
    match command {
        AdminCommand::Export(args) => export(ports, args).await,
        AdminCommand::Import(args) => import(cli, ports, args).await,
    }
}

async fn export(ports: &Ports, args: &ExportArgs) -> Result<(), Failure> {
    let scope = company_scope(ports, args.company).await?;
    let record = ports
        .flows
        .get(scope, FlowId(args.flow))
        .await?
        .ok_or(ErrorCode::ERR_NO_FLOW_FOUND)?;
    let text = serde_json::to_string_pretty(&flows::file_of(record))
        .map_err(|e| Error::internal(format!("cannot serialise the flow: {e}")))?;
    match &args.file {
        Some(path) => std::fs::write(path, format!("{text}\n")).map_err(|e| {
            Failure::Domain(Error::with_detail(
                ErrorCode::ERR_BAD_REQUEST,
                format!("cannot write {}: {e}", path.display()),
            ))
        })?,
        None => println!("{text}"),
    }
    Ok(())
}

async fn import(cli: &Cli, ports: &Ports, args: &ImportArgs) -> Result<(), Failure> {
    let scope = company_scope(ports, args.company).await?;
    let text = std::fs::read_to_string(&args.file).map_err(|e| {
        Failure::Domain(Error::with_detail(
            ErrorCode::ERR_BAD_REQUEST,
            format!("cannot read {}: {e}", args.file.display()),
        ))
    })?;
    let file: FlowFile = serde_json::from_str(&text).map_err(|e| {
        Failure::Domain(Error::with_detail(
            ErrorCode::ERR_BAD_REQUEST,
            format!("{} is not a flow file: {e}", args.file.display()),
        ))
    })?;
    let name = flows::checked_import(args.name.as_deref(), &file)?;
    let flow = ports.flows.create(scope, &name, Some(&file.flow)).await?;
    if cli.json {
        print_json(&flow);
    } else {
        println!("Imported flow {} ({}) as a draft.", flow.id.0, flow.name);
    }
    Ok(())
}
