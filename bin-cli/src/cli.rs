//! The command line: every command, flag and value, as clap parses them.

use std::path::PathBuf;

use chatflow_core::identity::Profile;
use chatflow_core::tenancy::Recurrence;
use chatflow_core::{CompanyId, PlanId};
use chrono::NaiveDate;
use clap::{Args, Parser, Subcommand};

/// Chatflow's administration command line.
///
/// Exit codes: 0 success; 1 the command was refused (an ERR_* code and its message are printed);
/// 2 the command line is wrong; 3 the database cannot be reached, migrated, or has no schema yet
/// (run `chatflow migrate`).
#[derive(Debug, Parser)]
#[command(name = "chatflow", version, about, long_about = None)]
pub struct Cli {
    /// The database: `sqlite://path/to/file.db` or `postgres://user@host/db` (as the server).
    #[arg(
        long,
        env = "DATABASE_URL",
        default_value = "sqlite://data/chatflow.db",
        global = true,
        hide_env_values = true
    )]
    pub database_url: String,

    /// Where media files live (as the server's CHATFLOW_MEDIA_DIR).
    #[arg(
        long,
        env = "CHATFLOW_MEDIA_DIR",
        default_value = "data/media",
        global = true
    )]
    pub media_dir: PathBuf,

    /// The key that seals the secrets kept in the database (as the server's
    /// CHATFLOW_SECRET_KEY); without it, the key file.
    #[arg(
        long,
        env = "CHATFLOW_SECRET_KEY",
        global = true,
        hide_env_values = true
    )]
    pub secret_key: Option<String>,

    /// The key file (as the server's CHATFLOW_SECRET_KEY_FILE; by default `secret.key` next to
    /// the SQLite file, else `data/secret.key`).
    #[arg(long, env = "CHATFLOW_SECRET_KEY_FILE", global = true)]
    pub secret_key_file: Option<PathBuf>,

    /// Print JSON instead of tables (errors too, on standard error).
    #[arg(long, global = true)]
    pub json: bool,

    /// The SMTP server for mail the commands send (as the server's CHATFLOW_SMTP_URL); without
    /// it, mail is not sent and says so.
    #[arg(long, env = "CHATFLOW_SMTP_URL", global = true, hide_env_values = true)]
    pub smtp_url: Option<String>,

    /// The sender of that mail (as the server's CHATFLOW_MAIL_FROM).
    #[arg(
        long,
        env = "CHATFLOW_MAIL_FROM",
        default_value = "Chatflow <no-reply@chatflow.local>",
        global = true
    )]
    pub mail_from: String,

    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The top-level commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Apply the database migrations, then seed what a first start needs (company 1, a default
    /// plan and the super admin, printing a generated password once). Safe to run again.
    Migrate(MigrateArgs),
    /// Users of a company.
    #[command(subcommand)]
    User(UserCommand),
    /// Companies (tenants).
    #[command(subcommand)]
    Company(CompanyCommand),
    /// Platform settings, or a company's settings with --company.
    #[command(subcommand)]
    Settings(SettingsCommand),
    /// Development tools (data generator).
    #[command(subcommand)]
    Dev(crate::dev::DevCommand),
    /// The sandbox channel's simulated phones: scan a QR code or type a pair code, send, read
    /// what they received.
    #[command(subcommand)]
    Sandbox(crate::sandbox::SandboxCommand),
    /// A company's contacts: list, import a spreadsheet, export.
    #[command(subcommand)]
    Contacts(crate::contacts::ContactsCommand),
    /// A company's tickets: close all of a status.
    #[command(subcommand)]
    Tickets(crate::tickets::TicketsCommand),
    /// A company's inbound failures: events a channel delivered that could not be stored.
    #[command(subcommand)]
    InboundFailures(crate::inbound_failures::InboundFailuresCommand),
    /// Flow files: validate one, or simulate a contact walking it (no database needed).
    #[command(subcommand)]
    Flow(crate::flow::FlowCommand),
}

/// `chatflow migrate`.
#[derive(Debug, Args)]
pub struct MigrateArgs {
    /// Apply the migrations only; do not seed.
    #[arg(long)]
    pub no_seed: bool,

    /// The super admin's e-mail when seeding creates it (default admin@chatflow.local).
    #[arg(long, env = "CHATFLOW_ADMIN_EMAIL")]
    pub admin_email: Option<String>,

    /// The super admin's password when seeding creates it (default: generated and printed once).
    #[arg(long, env = "CHATFLOW_ADMIN_PASSWORD", hide_env_values = true)]
    pub admin_password: Option<String>,
}

/// `chatflow user ...`.
#[derive(Debug, Subcommand)]
pub enum UserCommand {
    /// Create a user in a company (same rules as the web app, plan limit included).
    Create {
        /// The company's id.
        #[arg(long, value_parser = parse_company)]
        company: CompanyId,
        /// Full name, 2 to 50 characters.
        #[arg(long)]
        name: String,
        /// E-mail, unique across the platform (stored lower-cased).
        #[arg(long)]
        email: String,
        /// Password, 5 to 50 characters.
        #[arg(long)]
        password: String,
        /// Profile: admin or user.
        #[arg(long, value_parser = parse_profile, default_value = "user")]
        profile: Profile,
    },
    /// List a company's users.
    List {
        /// The company's id.
        #[arg(long, value_parser = parse_company)]
        company: CompanyId,
    },
    /// Set a user's password (found by e-mail) and sign out all of the user's sessions.
    SetPassword {
        /// The user's e-mail.
        #[arg(long)]
        email: String,
        /// The new password, 5 to 50 characters.
        #[arg(long)]
        password: String,
    },
}

/// `chatflow company ...`.
#[derive(Debug, Subcommand)]
pub enum CompanyCommand {
    /// List every company with its plan and subscription.
    List,
    /// Create a company.
    Create {
        /// Name, 2 to 50 characters.
        #[arg(long)]
        name: String,
        /// The plan's id.
        #[arg(long, value_parser = parse_plan)]
        plan: PlanId,
        /// Billing e-mail.
        #[arg(long)]
        email: Option<String>,
        /// Phone number.
        #[arg(long)]
        phone: Option<String>,
        /// Billing recurrence: MENSAL, BIMESTRAL, TRIMESTRAL, SEMESTRAL or ANUAL.
        #[arg(long, value_parser = parse_recurrence, default_value = "MENSAL")]
        recurrence: Recurrence,
        /// First due date, YYYY-MM-DD (default: seven days from today, as signup).
        #[arg(long, value_parser = parse_date)]
        due_date: Option<NaiveDate>,
        /// CPF or CNPJ.
        #[arg(long)]
        document: Option<String>,
    },
    /// Renew a company (its due date moves by its recurrence), or every company past its due
    /// date with --all-due (never company 1).
    #[command(group(clap::ArgGroup::new("target").required(true).args(["id", "all_due"])))]
    Renew {
        /// The company's id.
        #[arg(value_parser = parse_company)]
        id: Option<CompanyId>,
        /// Renew, once each, every company whose due date has passed.
        #[arg(long)]
        all_due: bool,
    },
}

/// `chatflow settings ...`.
#[derive(Debug, Subcommand)]
pub enum SettingsCommand {
    /// Show a setting's value (its default when never set).
    Get {
        /// The setting's key, e.g. allowSignup or userRating.
        key: String,
        /// Read the company setting of this company instead of a platform setting.
        #[arg(long, value_parser = parse_company)]
        company: Option<CompanyId>,
    },
    /// Change a setting; the settings catalogue checks the value.
    Set {
        /// The setting's key.
        key: String,
        /// The new value.
        value: String,
        /// Change the company setting of this company instead of a platform setting.
        #[arg(long, value_parser = parse_company)]
        company: Option<CompanyId>,
    },
}

fn positive_id(text: &str) -> Result<i64, String> {
    match text.trim().parse::<i64>() {
        Ok(id) if id > 0 => Ok(id),
        _ => Err(format!("{text:?} is not a positive id")),
    }
}

fn parse_company(text: &str) -> Result<CompanyId, String> {
    positive_id(text).map(CompanyId)
}

fn parse_plan(text: &str) -> Result<PlanId, String> {
    positive_id(text).map(PlanId)
}

fn parse_profile(text: &str) -> Result<Profile, String> {
    match text.trim().to_ascii_lowercase().as_str() {
        "admin" => Ok(Profile::Admin),
        "user" => Ok(Profile::User),
        _ => Err(format!("{text:?} is not a profile (admin or user)")),
    }
}

fn parse_recurrence(text: &str) -> Result<Recurrence, String> {
    Recurrence::ALL
        .into_iter()
        .find(|r| {
            serde_json::to_value(r)
                .ok()
                .and_then(|v| {
                    v.as_str()
                        .map(|name| name.eq_ignore_ascii_case(text.trim()))
                })
                .unwrap_or(false)
        })
        .ok_or_else(|| {
            format!(
                "{text:?} is not a recurrence (MENSAL, BIMESTRAL, TRIMESTRAL, SEMESTRAL, ANUAL)"
            )
        })
}

fn parse_date(text: &str) -> Result<NaiveDate, String> {
    NaiveDate::parse_from_str(text.trim(), "%Y-%m-%d")
        .map_err(|_| format!("{text:?} is not a date written YYYY-MM-DD"))
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::*;

    #[test]
    fn the_command_line_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn values_parse_as_documented() {
        assert_eq!(parse_recurrence("anual"), Ok(Recurrence::Anual));
        assert_eq!(parse_recurrence("TRIMESTRAL"), Ok(Recurrence::Trimestral));
        assert!(parse_recurrence("WEEKLY").is_err());
        assert_eq!(parse_profile("Admin"), Ok(Profile::Admin));
        assert!(parse_profile("root").is_err());
        assert_eq!(parse_company("7"), Ok(CompanyId(7)));
        assert!(parse_company("0").is_err());
        assert!(parse_company("x").is_err());
        assert_eq!(
            parse_date("2027-02-28"),
            Ok(NaiveDate::from_ymd_opt(2027, 2, 28).expect("valid"))
        );
        assert!(parse_date("2027-02-30").is_err());
    }
}
