//! What each command does: open the store, build the use cases' ports, call the core, print.
//!
//! The CLI holds no rules: validation, plan limits, renewal math and the settings catalogue are
//! the core's. It acts for the platform, so it calls the platform-level use cases (no signed-in
//! user) and builds tenant scopes from the company ids it is given.

use std::sync::Arc;

use chatflow_core::identity::User;
use chatflow_core::service::Ports;
use chatflow_core::service::bootstrap::{self, SeedOptions, SeedReport};
use chatflow_core::service::companies::{self, NewCompanyInput, Renewal};
use chatflow_core::service::settings as settings_service;
use chatflow_core::service::users::{self, NewUserInput};
use chatflow_core::settings::{self, Scope, SettingDef};
use chatflow_core::tenancy::{self, Company, Plan, SubscriptionStatus};
use chatflow_core::{CompanyId, Error, ErrorCode, TenantScope, validation};
use chatflow_store::Store;
use chatflow_system::{LocalMediaStore, configured_mailer};
use chatflow_wiring::{HostParts, Wiring};
use chrono::NaiveDate;
use indicatif::{ProgressBar, ProgressStyle};
use serde::Serialize;

use crate::cli::{Cli, Command, CompanyCommand, MigrateArgs, SettingsCommand, UserCommand};
use crate::output::{Table, print_json};

/// Why a command failed, and so which exit code it ends with.
#[derive(Debug)]
pub enum Failure {
    /// The core refused the command (exit code 1).
    Domain(Error),
    /// The database cannot be reached, migrated, or has no schema yet (exit code 3).
    Database(String),
}

impl From<Error> for Failure {
    fn from(error: Error) -> Self {
        Failure::Domain(error)
    }
}

impl From<ErrorCode> for Failure {
    fn from(code: ErrorCode) -> Self {
        Failure::Domain(Error::new(code))
    }
}

type Outcome = Result<(), Failure>;

/// Runs the parsed command line.
pub async fn run(cli: Cli) -> Outcome {
    // Flow files need no database.
    if let Command::Flow(command) = &cli.command
        && crate::flow_admin::admin_command(command).is_none()
    {
        return crate::flow::run(&cli, command);
    }
    let store = wiring()
        .connect(&cli.database_url)
        .await
        .map_err(|e| Failure::Database(e.to_string()))?;
    let outcome = dispatch(&cli, &store).await;
    store.close().await;
    outcome
}

async fn dispatch(cli: &Cli, store: &Store) -> Outcome {
    if let Command::Migrate(args) = &cli.command {
        return migrate(cli, store, args).await;
    }
    // Every other command needs the schema; only `migrate` changes it.
    let pending = store
        .pending_migrations()
        .await
        .map_err(|e| Failure::Database(e.to_string()))?;
    if !pending.is_empty() {
        return Err(Failure::Database(format!(
            "the database has no schema yet, or an older one ({} migration(s) pending): \
             run `chatflow migrate` first",
            pending.len()
        )));
    }
    let ports = ports(cli, store)?;
    match &cli.command {
        Command::Migrate(_) => Ok(()),
        Command::User(command) => user(cli, &ports, command).await,
        Command::Company(command) => company(cli, &ports, command).await,
        Command::Settings(command) => settings_command(cli, &ports, command).await,
        Command::Dev(command) => crate::dev::run(cli, store, &ports, command).await,
        Command::Sandbox(command) => crate::sandbox::run(cli, store, &ports, command).await,
        Command::Contacts(command) => crate::contacts::run(cli, &ports, command).await,
        Command::Tickets(command) => crate::tickets::run(cli, &ports, command).await,
        Command::InboundFailures(command) => {
            crate::inbound_failures::run(cli, &ports, command).await
        }
        Command::Flow(command) => match crate::flow_admin::admin_command(command) {
            Some(admin) => crate::flow_admin::run(cli, &ports, admin).await,
            None => crate::flow::run(cli, command),
        },
    }
}

/// The use cases' ports: the store, the system adapters, the event bus that appends to the
/// company's event log (a running server emits those events to its sockets on its next poll),
/// and the SMTP mailer
/// when `CHATFLOW_SMTP_URL` is set (else the mailer that sends nothing and says so). A mail
/// configuration the server would refuse is refused here too.
fn ports(cli: &Cli, store: &Store) -> Result<Ports, Failure> {
    let mailer = configured_mailer(cli.smtp_url.as_deref(), &cli.mail_from).map_err(|e| {
        Failure::Domain(Error::with_detail(
            ErrorCode::ERR_MAIL_NOT_CONFIGURED,
            e.to_string(),
        ))
    })?;
    let secrets = LazySecrets {
        key: cli.secret_key.clone(),
        key_file: cli.secret_key_file.clone(),
        database_url: cli.database_url.clone(),
        cipher: std::sync::OnceLock::new(),
    };
    let store = Arc::new(store.clone());
    // The CLI runs no conversations; the clients are there for use cases that may reach them,
    // with the default OpenAI endpoint.
    wiring()
        .ports(
            store.clone(),
            HostParts {
                secrets: Arc::new(secrets),
                media: Arc::new(LocalMediaStore::new(cli.media_dir.clone())),
                mailer,
                channels: chatflow_core::inbox::channel::ChannelRegistry::default(),
                openai_base_url: chatflow_integrations::OPENAI_BASE_URL.to_owned(),
            },
        )
        .map_err(Failure::Domain)
}

/// The clock, ids and hasher the CLI runs on: the system's (the server's defaults).
fn wiring() -> Wiring {
    Wiring::new()
}

/// The server's secret cipher, resolved (the key read, or the key file created) only when a
/// command seals or opens a secret, so commands that do not never touch the key.
struct LazySecrets {
    key: Option<String>,
    key_file: Option<std::path::PathBuf>,
    database_url: String,
    cipher: std::sync::OnceLock<Result<chatflow_system::SealedSecrets, String>>,
}

impl LazySecrets {
    fn cipher(&self) -> chatflow_core::Result<&chatflow_system::SealedSecrets> {
        self.cipher
            .get_or_init(|| {
                chatflow_system::configured_secrets(
                    self.key.as_deref(),
                    self.key_file.as_deref(),
                    &self.database_url,
                )
                .map(|(cipher, _)| cipher)
                .map_err(|e| e.to_string())
            })
            .as_ref()
            .map_err(|e| Error::internal(e.clone()))
    }
}

impl chatflow_core::ports::SecretCipher for LazySecrets {
    fn seal(&self, plain: &str) -> chatflow_core::Result<String> {
        self.cipher()?.seal(plain)
    }

    fn open(&self, sealed: &str) -> chatflow_core::Result<String> {
        self.cipher()?.open(sealed)
    }

    fn is_sealed(&self, stored: &str) -> bool {
        stored.starts_with(chatflow_system::secrets::SEALED_PREFIX)
    }

    fn seal_bytes(&self, plain: &[u8], context: &[u8]) -> chatflow_core::Result<Vec<u8>> {
        self.cipher()?.seal_bytes(plain, context)
    }

    fn open_bytes(&self, sealed: &[u8], context: &[u8]) -> chatflow_core::Result<Vec<u8>> {
        self.cipher()?.open_bytes(sealed, context)
    }
}

fn today(ports: &Ports) -> NaiveDate {
    ports.clock.now().date_naive()
}

// ------------------------------------------------------------------ migrate

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct MigrateReport {
    backend: String,
    applied_migrations: Vec<i64>,
    seed: Option<SeedJson>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SeedJson {
    plan_created: bool,
    company_created: bool,
    admin_created: bool,
    admin_email: String,
    generated_password: Option<String>,
}

impl From<SeedReport> for SeedJson {
    fn from(r: SeedReport) -> Self {
        Self {
            plan_created: r.plan_created,
            company_created: r.company_created,
            admin_created: r.admin_created,
            admin_email: r.admin_email,
            generated_password: r.generated_password,
        }
    }
}

async fn migrate(cli: &Cli, store: &Store, args: &MigrateArgs) -> Outcome {
    let database = |e: chatflow_store::Error| Failure::Database(e.to_string());
    let pending = store.pending_migrations().await.map_err(database)?;
    store.migrate().await.map_err(database)?;
    let seed = if args.no_seed {
        None
    } else {
        let options = SeedOptions {
            admin_email: args.admin_email.clone(),
            admin_password: args.admin_password.clone(),
        };
        Some(bootstrap::ensure_seeded(&ports(cli, store)?, &options).await?)
    };
    if cli.json {
        print_json(&MigrateReport {
            backend: store.backend().to_string(),
            applied_migrations: pending,
            seed: seed.map(SeedJson::from),
        });
        return Ok(());
    }
    if pending.is_empty() {
        println!("The {} database schema is up to date.", store.backend());
    } else {
        println!(
            "Applied {} migration(s) to the {} database.",
            pending.len(),
            store.backend()
        );
    }
    if let Some(seed) = seed {
        if seed.plan_created {
            println!("Created the default plan.");
        }
        if seed.company_created {
            println!("Created company 1 ({}).", bootstrap::PLATFORM_COMPANY_NAME);
        }
        if seed.admin_created {
            println!("Created the super admin {}.", seed.admin_email);
        } else {
            println!("Super admin: {}.", seed.admin_email);
        }
        if let Some(password) = &seed.generated_password {
            println!("Its generated password, shown only this once: {password}");
        }
    }
    Ok(())
}

// ------------------------------------------------------------------ users

fn user_table(users: &[User]) -> Table {
    let mut table = Table::new(&[
        "ID", "NAME", "EMAIL", "PROFILE", "SUPER", "ONLINE", "QUEUES",
    ]);
    for u in users {
        let profile = serde_json::to_value(u.profile)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_default();
        let queues: Vec<String> = u.queue_ids.iter().map(ToString::to_string).collect();
        table.row(vec![
            u.id.to_string(),
            u.name.clone(),
            u.email.clone(),
            profile,
            yes_no(u.is_super),
            yes_no(u.online),
            queues.join(","),
        ]);
    }
    table
}

fn yes_no(value: bool) -> String {
    if value { "yes" } else { "no" }.to_owned()
}

async fn existing_company(ports: &Ports, id: CompanyId) -> Result<Company, Failure> {
    Ok(ports
        .companies
        .get(TenantScope::new(id))
        .await?
        .ok_or(ErrorCode::ERR_NO_COMPANY_FOUND)?)
}

async fn user(cli: &Cli, ports: &Ports, command: &UserCommand) -> Outcome {
    match command {
        UserCommand::Create {
            company,
            name,
            email,
            password,
            profile,
        } => {
            existing_company(ports, *company).await?;
            let input = NewUserInput {
                name: name.clone(),
                email: email.clone(),
                password: password.clone(),
                profile: Some(*profile),
                ..NewUserInput::default()
            };
            let created =
                users::create_in_company(ports, TenantScope::new(*company), input).await?;
            if cli.json {
                print_json(&created);
            } else {
                print!("{}", user_table(std::slice::from_ref(&created)).render());
            }
        }
        UserCommand::List { company } => {
            existing_company(ports, *company).await?;
            let listed = ports.users.list_all(TenantScope::new(*company)).await?;
            if cli.json {
                print_json(&listed);
            } else {
                print!("{}", user_table(&listed).render());
            }
        }
        UserCommand::SetPassword { email, password } => {
            let email = validation::normalize_email(email);
            let found = ports
                .users
                .find_for_login(&email)
                .await?
                .ok_or(ErrorCode::ERR_NO_USER_FOUND)?;
            let scope = TenantScope::new(found.user.company_id);
            let changed = users::set_password(ports, scope, found.user.id, password).await?;
            if cli.json {
                print_json(&serde_json::json!({
                    "id": changed.id,
                    "companyId": changed.company_id,
                    "email": changed.email,
                    "sessionsRevoked": true,
                }));
            } else {
                println!(
                    "Changed the password of {} (user {} of company {}); their sessions were signed out.",
                    changed.email, changed.id, changed.company_id
                );
            }
        }
    }
    Ok(())
}

// ------------------------------------------------------------------ companies

/// A company as the CLI lists it: the record, its plan's name and its subscription today.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct CompanyLine {
    #[serde(flatten)]
    company: Company,
    plan_name: Option<String>,
    subscription: SubscriptionStatus,
}

fn company_lines(companies: Vec<Company>, plans: &[Plan], today: NaiveDate) -> Vec<CompanyLine> {
    companies
        .into_iter()
        .map(|company| CompanyLine {
            plan_name: plans
                .iter()
                .find(|p| p.id == company.plan_id)
                .map(|p| p.name.clone()),
            subscription: tenancy::subscription(company.id, company.due_date, today).status,
            company,
        })
        .collect()
}

fn wire<T: Serialize>(value: &T) -> String {
    serde_json::to_value(value)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

fn company_table(lines: &[CompanyLine]) -> Table {
    let mut table = Table::new(&[
        "ID",
        "NAME",
        "PLAN",
        "ACTIVE",
        "DUE DATE",
        "RECURRENCE",
        "SUBSCRIPTION",
        "EMAIL",
    ]);
    for line in lines {
        let c = &line.company;
        table.row(vec![
            c.id.to_string(),
            c.name.clone(),
            line.plan_name
                .clone()
                .unwrap_or_else(|| c.plan_id.to_string()),
            yes_no(c.status),
            c.due_date.to_string(),
            wire(&c.recurrence),
            wire(&line.subscription),
            c.email.clone().unwrap_or_default(),
        ]);
    }
    table
}

fn renewal_table(renewals: &[Renewal]) -> Table {
    let mut table = Table::new(&["ID", "OLD DUE DATE", "NEW DUE DATE"]);
    for r in renewals {
        table.row(vec![
            r.company_id.to_string(),
            r.old_due_date.to_string(),
            r.new_due_date.to_string(),
        ]);
    }
    table
}

async fn company(cli: &Cli, ports: &Ports, command: &CompanyCommand) -> Outcome {
    match command {
        CompanyCommand::List => {
            let plans = ports.plans.list(false).await?;
            let lines = company_lines(
                companies::list_companies(ports).await?,
                &plans,
                today(ports),
            );
            if cli.json {
                print_json(&lines);
            } else {
                print!("{}", company_table(&lines).render());
            }
        }
        CompanyCommand::Create {
            name,
            plan,
            email,
            phone,
            recurrence,
            due_date,
            document,
        } => {
            let input = NewCompanyInput {
                name: name.clone(),
                email: email.clone(),
                phone: phone.clone(),
                plan_id: Some(*plan),
                recurrence: Some(*recurrence),
                due_date: *due_date,
                status: Some(true),
                document: document.clone(),
            };
            let created = companies::create_company(ports, input).await?;
            let plans = ports.plans.list(false).await?;
            let lines = company_lines(vec![created], &plans, today(ports));
            if cli.json {
                print_json(&lines[0]);
            } else {
                print!("{}", company_table(&lines).render());
            }
        }
        CompanyCommand::Renew { id: Some(id), .. } => {
            let renewal = companies::renew(ports, *id).await?;
            if cli.json {
                print_json(&renewal);
            } else if *id == CompanyId::PLATFORM {
                println!("Company 1 never expires: nothing to renew.");
            } else {
                println!(
                    "Renewed company {}: due date {} -> {}.",
                    renewal.company_id, renewal.old_due_date, renewal.new_due_date
                );
            }
        }
        CompanyCommand::Renew { id: None, .. } => {
            let due = companies::due_for_renewal(ports, today(ports)).await?;
            let progress = if cli.json {
                ProgressBar::hidden()
            } else {
                let style = ProgressStyle::with_template("{bar:40} {pos}/{len} companies renewed")
                    .unwrap_or_else(|_| ProgressStyle::default_bar());
                ProgressBar::new(u64::try_from(due.len()).unwrap_or(u64::MAX)).with_style(style)
            };
            let mut renewals = Vec::with_capacity(due.len());
            for company in &due {
                renewals.push(companies::renew(ports, company.id).await?);
                progress.inc(1);
            }
            progress.finish_and_clear();
            if cli.json {
                print_json(&renewals);
            } else if renewals.is_empty() {
                println!("No company is past its due date.");
            } else {
                print!("{}", renewal_table(&renewals).render());
            }
        }
    }
    Ok(())
}

// ------------------------------------------------------------------ settings

#[derive(Serialize)]
struct SettingLine<'a> {
    key: &'a str,
    value: String,
    #[serde(rename = "companyId", skip_serializing_if = "Option::is_none")]
    company_id: Option<CompanyId>,
}

/// The catalogue entry of `key`, checked against where the command points: a company key needs
/// `--company`, a platform key must not have it.
fn setting_def(key: &str, company: Option<CompanyId>) -> Result<&'static SettingDef, Failure> {
    let def = settings::lookup(key).ok_or_else(|| {
        Error::with_detail(
            ErrorCode::ERR_NO_SETTING_FOUND,
            format!("unknown setting {key}"),
        )
    })?;
    match (def.scope, company) {
        (Scope::Company, None) => Err(Error::with_detail(
            ErrorCode::ERR_INVALID_SETTING,
            format!("{key} is a company setting: add --company ID"),
        )
        .into()),
        (Scope::Platform, Some(_)) => Err(Error::with_detail(
            ErrorCode::ERR_INVALID_SETTING,
            format!("{key} is a platform setting: remove --company"),
        )
        .into()),
        _ => Ok(def),
    }
}

async fn stored_settings(
    ports: &Ports,
    company: Option<CompanyId>,
) -> Result<Vec<(String, String)>, Failure> {
    Ok(match company {
        Some(id) => {
            existing_company(ports, id).await?;
            ports
                .settings
                .company_settings(TenantScope::new(id))
                .await?
        }
        None => ports.settings.platform_settings().await?,
    })
}

fn print_setting(cli: &Cli, line: &SettingLine<'_>) {
    if cli.json {
        print_json(line);
    } else {
        let mut table = Table::new(&["KEY", "VALUE"]);
        table.row(vec![line.key.to_owned(), line.value.clone()]);
        print!("{}", table.render());
    }
}

async fn settings_command(cli: &Cli, ports: &Ports, command: &SettingsCommand) -> Outcome {
    match command {
        SettingsCommand::Get { key, company } => {
            let def = setting_def(key, *company)?;
            let stored = stored_settings(ports, *company).await?;
            let value = settings::with_defaults(def.scope, &stored)
                .into_iter()
                .find(|(k, _)| k == def.key)
                .map_or_else(|| def.default.to_owned(), |(_, v)| v);
            print_setting(
                cli,
                &SettingLine {
                    key: def.key,
                    // A secret (payment key) is shown as set or not, never printed.
                    value: settings_service::shown(def.key, value),
                    company_id: *company,
                },
            );
        }
        SettingsCommand::Set {
            key,
            value,
            company,
        } => {
            let def = setting_def(key, *company)?;
            let stored = stored_settings(ports, *company).await?;
            settings::check_change(&settings::to_map(&stored), def.key, value)?;
            match company {
                Some(id) => {
                    // The company's sockets (and caches keyed by its event sequence) hear of
                    // the change, as after a change in the web app; secrets are never announced.
                    let setting = settings_service::Setting {
                        key: def.key.to_owned(),
                        value: settings_service::shown(def.key, value.clone()),
                    };
                    let events = if def.secret {
                        Vec::new()
                    } else {
                        vec![settings_service::settings_event(&setting)]
                    };
                    ports
                        .settings
                        .set_company_setting(TenantScope::new(*id), def.key, value, &events)
                        .await?
                }
                None => {
                    let stored = settings_service::stored_form(ports, def, value)?;
                    ports
                        .settings
                        .set_platform_setting(def.key, &stored, None)
                        .await?
                }
            }
            print_setting(
                cli,
                &SettingLine {
                    key: def.key,
                    value: settings_service::shown(def.key, value.clone()),
                    company_id: *company,
                },
            );
        }
    }
    Ok(())
}
