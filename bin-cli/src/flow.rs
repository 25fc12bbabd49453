//! `chatflow flow ...`: check and try a flow file (the JSON the flow editor saves or exports)
//! with the core's validation and interpreter. These commands need no database.
//!
//! - `chatflow flow validate FILE`: prints every issue (errors and warnings); exits 1 with
//!   `ERR_VALIDATION` when there is an error.
//! - `chatflow flow simulate FILE [--input TEXT]... [--seed N] [--var key=value]...`: runs the
//!   flow as a contact would walk it: each `--input` answers the next menu or question, timers
//!   fire at once, and the transcript is printed (the same one the browser's simulation panel
//!   shows). Validation issues are printed on standard error first, and the flow runs anyway.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use chatflow_core::flow::{self, Flow, FlowIssue};
use chatflow_core::{Error, ErrorCode};
use clap::{Args, Subcommand};
use serde::Serialize;

use crate::cli::Cli;
use crate::commands::Failure;
use crate::output::{Table, print_json};

/// `chatflow flow ...`.
#[derive(Debug, Subcommand)]
pub enum FlowCommand {
    /// Check a flow file: one start node, reachable nodes, each node's rules, size limits.
    Validate {
        /// The flow's JSON file ({"nodes": [...], "connections": [...]}).
        file: PathBuf,
    },
    /// Run a flow file as a contact would, printing the transcript.
    Simulate(SimulateArgs),
    /// Write a company's flow to a file (needs the database; see `flow_admin`).
    Export(crate::flow_admin::ExportArgs),
    /// Create a company's flow from an exported file (needs the database; see `flow_admin`).
    Import(crate::flow_admin::ImportArgs),
}

/// `chatflow flow simulate`.
#[derive(Debug, Args)]
pub struct SimulateArgs {
    /// The flow's JSON file.
    pub file: PathBuf,
    /// The contact's next reply to a menu or question (repeat, in order).
    #[arg(long = "input", value_name = "TEXT")]
    pub inputs: Vec<String>,
    /// The seed of the randomizer's draws: the same seed and inputs give the same transcript.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// A starting variable, e.g. `--var name=Maria --var number=5511999990001` (repeat).
    #[arg(long = "var", value_name = "KEY=VALUE", value_parser = parse_var)]
    pub vars: Vec<(String, String)>,
}

fn parse_var(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((key, value)) if !key.trim().is_empty() => {
            Ok((key.trim().to_owned(), value.to_owned()))
        }
        _ => Err(format!("{text:?} is not written KEY=VALUE")),
    }
}

/// The answer of `flow validate --json`.
#[derive(Debug, Serialize)]
struct Validation<'a> {
    valid: bool,
    issues: &'a [FlowIssue],
}

/// Runs a `chatflow flow` command.
pub fn run(cli: &Cli, command: &FlowCommand) -> Result<(), Failure> {
    match command {
        FlowCommand::Validate { file } => validate(cli, file),
        FlowCommand::Simulate(args) => simulate(cli, args),
        // Dispatched with the database by `commands::dispatch` (`crate::flow_admin`).
        FlowCommand::Export(_) | FlowCommand::Import(_) => Err(Failure::Database(
            "flow export and import need the database".to_owned(),
        )),
    }
}

fn load(file: &Path) -> Result<Flow, Failure> {
    let text = std::fs::read_to_string(file).map_err(|e| {
        Failure::Domain(Error::with_detail(
            ErrorCode::ERR_BAD_REQUEST,
            format!("cannot read {}: {e}", file.display()),
        ))
    })?;
    Ok(Flow::from_json(&text)?)
}

fn issue_table(issues: &[FlowIssue]) -> String {
    let mut table = Table::new(&["SEVERITY", "NODE", "CODE", "MESSAGE"]);
    for issue in issues {
        table.row(vec![
            if issue.is_error() { "error" } else { "warning" }.to_owned(),
            issue.node_id.clone().unwrap_or_else(|| "-".to_owned()),
            serde_json::to_value(issue.code)
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_default(),
            issue.message_pt.clone(),
        ]);
    }
    table.render()
}

fn validate(cli: &Cli, file: &Path) -> Result<(), Failure> {
    let flow = load(file)?;
    let issues = flow::check(&flow);
    let errors = issues.iter().filter(|i| i.is_error()).count();
    if cli.json {
        print_json(&Validation {
            valid: errors == 0,
            issues: &issues,
        });
    } else if issues.is_empty() {
        println!("The flow is valid.");
    } else {
        print!("{}", issue_table(&issues));
        if errors == 0 {
            println!("The flow is valid (with warnings).");
        }
    }
    if errors > 0 {
        return Err(Failure::Domain(Error::with_detail(
            ErrorCode::ERR_VALIDATION,
            format!("the flow has {errors} error(s)"),
        )));
    }
    Ok(())
}

fn simulate(cli: &Cli, args: &SimulateArgs) -> Result<(), Failure> {
    let flow = load(&args.file)?;
    let issues = flow::check(&flow);
    let vars: BTreeMap<String, String> = args.vars.iter().cloned().collect();
    let transcript = flow::simulate(&flow, args.seed, vars, &args.inputs);
    if cli.json {
        print_json(&transcript);
        return Ok(());
    }
    for issue in &issues {
        let kind = if issue.is_error() { "error" } else { "warning" };
        let node = issue.node_id.as_deref().unwrap_or("-");
        eprintln!("{kind}: node {node}: {}", issue.message_pt);
    }
    print!("{}", transcript.to_text());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variables_are_written_key_equals_value() {
        assert_eq!(parse_var("name=Maria"), Ok(("name".into(), "Maria".into())));
        assert_eq!(parse_var("x=a=b"), Ok(("x".into(), "a=b".into())));
        assert_eq!(parse_var("empty="), Ok(("empty".into(), String::new())));
        assert!(parse_var("=v").is_err());
        assert!(parse_var("novalue").is_err());
    }
}
