//! `chatflow contacts ...`: a company's contacts from a terminal.
//!
//! - `chatflow contacts list --company ID [--search S] [--json]`: the contacts, by name.
//! - `chatflow contacts import FILE --company ID [--name-column N --number-column N
//!   --email-column N --tags-column N]`: imports a spreadsheet (xls, xlsx, csv, txt) with a
//!   progress bar, then prints how many rows were imported, ignored (no name or number) and
//!   failed (invalid). Columns default to the header names the web app recognises.
//! - `chatflow contacts export --company ID --output FILE`: writes the contacts as xlsx.
//!
//! The rules (mapping, validation, normalisation, duplicates) are the core's import rules.

use std::path::PathBuf;

use chatflow_core::inbox::import::{self, ImportMapping};
use chatflow_core::inbox::model::{ContactFilter, PageStart};
use chatflow_core::service::Ports;
use chatflow_core::service::inbox::contacts;
use chatflow_core::{CompanyId, Error, ErrorCode, TenantScope};
use chatflow_system::spreadsheet;
use clap::{Args, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use serde::Serialize;

use crate::cli::Cli;
use crate::commands::Failure;
use crate::output::{Table, print_json};

/// `chatflow contacts ...`.
#[derive(Debug, Subcommand)]
pub enum ContactsCommand {
    /// List a company's contacts, optionally matching a search.
    List(ListArgs),
    /// Import contacts from a spreadsheet (xls, xlsx, csv, txt).
    Import(ImportArgs),
    /// Export a company's contacts as an xlsx file.
    Export(ExportArgs),
}

/// `chatflow contacts list`.
#[derive(Debug, Args)]
pub struct ListArgs {
    /// The company's id.
    #[arg(long, value_parser = parse_company)]
    pub company: CompanyId,
    /// Matches name, number or e-mail (accent- and case-insensitive).
    #[arg(long, default_value = "")]
    pub search: String,
}

/// `chatflow contacts import`.
#[derive(Debug, Args)]
pub struct ImportArgs {
    /// The spreadsheet.
    pub file: PathBuf,
    /// The company's id.
    #[arg(long, value_parser = parse_company)]
    pub company: CompanyId,
    /// The header of the name column (default: Nome/Name/...).
    #[arg(long)]
    pub name_column: Option<String>,
    /// The header of the number column (default: Número/Number/Telefone/...).
    #[arg(long)]
    pub number_column: Option<String>,
    /// The header of the e-mail column (default: Email/E-mail, if present).
    #[arg(long)]
    pub email_column: Option<String>,
    /// The header of a column of tag names (default: Tags, if present).
    #[arg(long)]
    pub tags_column: Option<String>,
}

/// `chatflow contacts export`.
#[derive(Debug, Args)]
pub struct ExportArgs {
    /// The company's id.
    #[arg(long, value_parser = parse_company)]
    pub company: CompanyId,
    /// Where to write the xlsx file.
    #[arg(long)]
    pub output: PathBuf,
}

fn parse_company(text: &str) -> Result<CompanyId, String> {
    match text.parse::<i64>() {
        Ok(id) if id > 0 => Ok(CompanyId(id)),
        _ => Err(format!("expected a positive id, got {text:?}")),
    }
}

/// A contact as the list prints it.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Row {
    id: i64,
    name: String,
    number: String,
    email: String,
    active: bool,
    tags: Vec<String>,
}

/// Runs a `contacts` command.
pub async fn run(cli: &Cli, ports: &Ports, command: &ContactsCommand) -> Result<(), Failure> {
    match command {
        ContactsCommand::List(args) => list(cli, ports, args).await,
        ContactsCommand::Import(args) => import_file(cli, ports, args).await,
        ContactsCommand::Export(args) => export(cli, ports, args).await,
    }
}

/// Checks the company exists, so a wrong id is a clear error rather than an empty answer.
async fn company_scope(ports: &Ports, company: CompanyId) -> Result<TenantScope, Failure> {
    let scope = TenantScope::new(company);
    ports
        .companies
        .get(scope)
        .await?
        .ok_or(ErrorCode::ERR_NO_COMPANY_FOUND)?;
    Ok(scope)
}

async fn list(cli: &Cli, ports: &Ports, args: &ListArgs) -> Result<(), Failure> {
    let scope = company_scope(ports, args.company).await?;
    let filter = ContactFilter {
        search: args.search.clone(),
        ..ContactFilter::default()
    };
    let mut rows = Vec::new();
    let mut start = PageStart::First;
    loop {
        let page = ports.contacts.search(scope, &filter, &start, 500).await?;
        rows.extend(page.items.into_iter().map(|c| Row {
            id: c.id.0,
            name: c.name,
            number: c.number,
            email: c.email,
            active: c.active,
            tags: c.tags.into_iter().map(|t| t.name).collect(),
        }));
        match page.next_cursor {
            Some(cursor) if page.has_more => start = PageStart::After(cursor),
            _ => break,
        }
    }
    if cli.json {
        print_json(&rows);
    } else {
        let mut table = Table::new(&["ID", "NAME", "NUMBER", "EMAIL", "ACTIVE", "TAGS"]);
        for row in &rows {
            table.row(vec![
                row.id.to_string(),
                row.name.clone(),
                row.number.clone(),
                row.email.clone(),
                if row.active { "yes" } else { "blocked" }.to_owned(),
                row.tags.join(", "),
            ]);
        }
        print!("{}", table.render());
    }
    Ok(())
}

async fn import_file(cli: &Cli, ports: &Ports, args: &ImportArgs) -> Result<(), Failure> {
    let scope = company_scope(ports, args.company).await?;
    let bytes = std::fs::read(&args.file).map_err(|e| {
        Failure::Domain(Error::with_detail(
            ErrorCode::ERR_INVALID_FILE,
            format!("cannot read {}: {e}", args.file.display()),
        ))
    })?;
    let name = args.file.to_string_lossy().into_owned();
    let sheet = spreadsheet::read(&name, &bytes)?;
    let guessed = import::guess_mapping(&sheet.header);
    let mapping = ImportMapping {
        name: args.name_column.clone().unwrap_or(guessed.name),
        number: args.number_column.clone().unwrap_or(guessed.number),
        email: args.email_column.clone().or(guessed.email),
        tags: args.tags_column.clone().or(guessed.tags),
    };
    let bar = if cli.json {
        ProgressBar::hidden()
    } else {
        let bar = ProgressBar::new(sheet.len() as u64);
        bar.set_style(
            ProgressStyle::with_template("{bar:40} {pos}/{len} contacts ({eta})")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        bar
    };
    let mut progress = |done: usize, total: usize| {
        bar.set_length(total as u64);
        bar.set_position(done as u64);
    };
    let report = contacts::import_rows(ports, scope, &sheet, &mapping, &mut progress).await;
    bar.finish_and_clear();
    let report = report?;
    if cli.json {
        print_json(&report);
    } else {
        println!(
            "imported {}, ignored {} (no name or number), failed {}",
            report.imported, report.ignored, report.failed
        );
        for error in &report.errors {
            println!("  row {}: {}", error.row, error.error);
        }
    }
    Ok(())
}

async fn export(cli: &Cli, ports: &Ports, args: &ExportArgs) -> Result<(), Failure> {
    let scope = company_scope(ports, args.company).await?;
    let all = contacts::export_all(ports, scope).await?;
    let bytes = spreadsheet::contacts_xlsx(&all)?;
    std::fs::write(&args.output, bytes).map_err(|e| {
        Failure::Domain(Error::internal(format!(
            "cannot write {}: {e}",
            args.output.display()
        )))
    })?;
    if cli.json {
        print_json(&serde_json::json!({"exported": all.len(), "file": args.output}));
    } else {
        println!(
            "exported {} contacts to {}",
            all.len(),
            args.output.display()
        );
    }
    Ok(())
}
