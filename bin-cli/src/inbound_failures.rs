//! `chatflow inbound-failures ...`: the inbound events of a company that could not be stored
//! and were set aside (what admins see at `GET /inbound-failures`).
//!
//! - `list --company ID [--page N]`: newest first, 20 a page.
//! - `retry --company ID --id N`: delivers the event again; stored, it leaves the list.
//! - `discard --company ID --id N`: forgets it.

use chatflow_core::inbox::channel::InboundEvent;
use chatflow_core::service::Ports;
use chatflow_core::service::inbox::inbound_failures;
use chatflow_core::{CompanyId, TenantScope};
use clap::Subcommand;

use crate::cli::Cli;
use crate::commands::Failure;
use crate::output::{Table, print_json};

/// `chatflow inbound-failures ...`.
#[derive(Debug, Subcommand)]
pub enum InboundFailuresCommand {
    /// List a company's inbound failures, newest first.
    List {
        /// The company's id.
        #[arg(long, value_parser = parse_id)]
        company: i64,
        /// The page, from 1 (20 per page).
        #[arg(long, default_value_t = 1)]
        page: u32,
    },
    /// Deliver a kept event again.
    Retry {
        /// The company's id.
        #[arg(long, value_parser = parse_id)]
        company: i64,
        /// The failure's id.
        #[arg(long, value_parser = parse_id)]
        id: i64,
    },
    /// Forget a kept event.
    Discard {
        /// The company's id.
        #[arg(long, value_parser = parse_id)]
        company: i64,
        /// The failure's id.
        #[arg(long, value_parser = parse_id)]
        id: i64,
    },
}

fn summary(event: &InboundEvent) -> (String, String) {
    let clip = |text: &str| {
        let text: String = text.chars().take(40).collect();
        text.replace(['\n', '\0'], " ")
    };
    match event {
        InboundEvent::Message(m) => ("message".into(), format!("{}: {}", m.chat, clip(&m.body))),
        InboundEvent::Edit { body, .. } => ("edit".into(), clip(body)),
        InboundEvent::Reaction { chat, emoji, .. } => {
            ("reaction".into(), format!("{chat}: {emoji}"))
        }
        InboundEvent::MissedCall { chat, .. } => ("call".into(), chat.clone()),
        InboundEvent::IncomingCall { chat, .. } => ("incoming call".into(), chat.clone()),
        InboundEvent::Ack { external_id, .. } => ("ack".into(), external_id.clone()),
        InboundEvent::Delete { external_id } => ("delete".into(), external_id.clone()),
        InboundEvent::Identities { chat, aliases } => (
            "identities".into(),
            format!("{chat} = {}", aliases.join(", ")),
        ),
        InboundEvent::History(chunk) => (
            "history".into(),
            format!("{} messages", chunk.messages.len()),
        ),
        InboundEvent::Session(_) => ("session".into(), String::new()),
        InboundEvent::CaughtUp => ("caught up".into(), String::new()),
    }
}

/// Runs an `inbound-failures` command.
pub async fn run(
    cli: &Cli,
    ports: &Ports,
    command: &InboundFailuresCommand,
) -> Result<(), Failure> {
    match command {
        InboundFailuresCommand::List { company, page } => {
            let scope = TenantScope::new(CompanyId(*company));
            let page = inbound_failures::page_in_company(ports, scope, *page).await?;
            if cli.json {
                print_json(&page);
                return Ok(());
            }
            let mut table = Table::new(&[
                "ID",
                "CONNECTION",
                "EVENT",
                "WHAT",
                "ERROR",
                "ATTEMPTS",
                "FAILED AT",
            ]);
            for failure in &page.failures {
                let (kind, what) = summary(&failure.event);
                table.row(vec![
                    failure.id.to_string(),
                    failure.whatsapp_id.0.to_string(),
                    kind,
                    what,
                    format!("{} {}", failure.error, failure.detail),
                    failure.attempts.to_string(),
                    failure.updated_at.to_rfc3339(),
                ]);
            }
            print!("{}", table.render());
            println!(
                "{} inbound failure(s){}",
                page.count,
                if page.has_more {
                    "; more on the next page"
                } else {
                    ""
                }
            );
            Ok(())
        }
        InboundFailuresCommand::Retry { company, id } => {
            let scope = TenantScope::new(CompanyId(*company));
            let failure = inbound_failures::retry_in_company(ports, scope, *id).await?;
            if cli.json {
                print_json(&serde_json::json!({
                    "delivered": failure.is_none(),
                    "failure": failure,
                }));
            } else {
                match failure {
                    None => println!("Inbound failure {id} delivered."),
                    Some(f) => println!(
                        "Inbound failure {id} failed again: {} {}",
                        f.error, f.detail
                    ),
                }
            }
            Ok(())
        }
        InboundFailuresCommand::Discard { company, id } => {
            let scope = TenantScope::new(CompanyId(*company));
            inbound_failures::discard_in_company(ports, scope, *id).await?;
            if cli.json {
                print_json(&serde_json::json!({ "discarded": id }));
            } else {
                println!("Inbound failure {id} discarded.");
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
