//! `chatflow sandbox ...`: play the simulated phones of the sandbox channel from a terminal.
//!
//! - `chatflow sandbox scan --connection ID`: a phone scans the connection's QR code (the
//!   server connects it within a moment).
//! - `chatflow sandbox send --connection ID --from NUMBER [--name NAME] [--file PATH] TEXT`: a
//!   phone sends a message (the server delivers it to the inbox).
//! - `chatflow sandbox inbox --connection ID [--to NUMBER]`: what phones received, with acks.
//!
//! The CLI writes the sandbox's tables; the server picks the writes up by polling.

use std::path::PathBuf;

use chatflow_core::inbox::channel::InboundEvent;
use chatflow_core::inbox::model::{Connection, ProviderKind};
use chatflow_core::inbox::sandbox::SandboxRepo;
use chatflow_core::service::Ports;
use chatflow_core::{Error, ErrorCode, TenantScope, WhatsappId};
use chatflow_sandbox::{PhoneFile, PhoneMessage, phone_event};
use chatflow_store::Store;
use clap::{Args, Subcommand};
use serde::Serialize;

use crate::cli::Cli;
use crate::commands::Failure;
use crate::output::{Table, print_json};

/// `chatflow sandbox ...`.
#[derive(Debug, Subcommand)]
pub enum SandboxCommand {
    /// A simulated phone scans the connection's QR code (pairing).
    Scan(ScanArgs),
    /// A simulated phone sends a message to the connection.
    Send(SendArgs),
    /// What simulated phones received from the connection, with acks.
    Inbox(InboxArgs),
}

/// `chatflow sandbox scan`.
#[derive(Debug, Args)]
pub struct ScanArgs {
    /// The connection's id.
    #[arg(long)]
    pub connection: i64,
}

/// `chatflow sandbox send`.
#[derive(Debug, Args)]
pub struct SendArgs {
    /// The connection's id.
    #[arg(long)]
    pub connection: i64,
    /// The phone's number.
    #[arg(long)]
    pub from: String,
    /// The contact's name (default: the number).
    #[arg(long)]
    pub name: Option<String>,
    /// A file to attach (the text becomes its caption).
    #[arg(long)]
    pub file: Option<PathBuf>,
    /// The text.
    #[arg(default_value = "")]
    pub text: String,
}

/// `chatflow sandbox inbox`.
#[derive(Debug, Args)]
pub struct InboxArgs {
    /// The connection's id.
    #[arg(long)]
    pub connection: i64,
    /// Only what this number received.
    #[arg(long)]
    pub to: Option<String>,
}

/// The answer of `send --json`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Sent {
    connection: i64,
    external_id: String,
}

/// Runs a `sandbox` command.
pub async fn run(
    cli: &Cli,
    store: &Store,
    ports: &Ports,
    command: &SandboxCommand,
) -> Result<(), Failure> {
    match command {
        SandboxCommand::Scan(args) => {
            let (scope, connection) = sandbox_connection(ports, args.connection).await?;
            if !store.mark_scanned(scope, connection.id).await? {
                return Err(Error::with_detail(
                    ErrorCode::ERR_WAPP_NOT_INITIALIZED,
                    "the connection is not showing a QR code: start its session first",
                )
                .into());
            }
            if cli.json {
                print_json(&serde_json::json!({"connection": connection.id, "scanned": true}));
            } else {
                println!(
                    "Connection {} scanned: it connects within a moment.",
                    connection.id
                );
            }
            Ok(())
        }
        SandboxCommand::Send(args) => {
            let (scope, connection) = sandbox_connection(ports, args.connection).await?;
            let file = match &args.file {
                Some(path) => Some(read_file(path)?),
                None => None,
            };
            let message = PhoneMessage {
                from: args.from.clone(),
                name: args.name.clone().unwrap_or_default(),
                body: args.text.clone(),
                is_group: false,
                file,
            };
            let event = phone_event(ports.ids.as_ref(), &message)?;
            let external_id = match &event {
                InboundEvent::Message(m) => m.external_id.clone(),
                _ => String::new(),
            };
            store
                .push_inbound(scope, connection.id, &event)
                .await?
                .ok_or(ErrorCode::ERR_NO_WAPP_FOUND)?;
            if cli.json {
                print_json(&Sent {
                    connection: connection.id.0,
                    external_id,
                });
            } else {
                println!(
                    "Sent {external_id} from {} to connection {}.",
                    message.from, connection.id
                );
            }
            Ok(())
        }
        SandboxCommand::Inbox(args) => {
            let (scope, connection) = sandbox_connection(ports, args.connection).await?;
            let received = store
                .received(scope, connection.id, args.to.as_deref())
                .await?;
            if cli.json {
                print_json(&received);
            } else {
                let mut table = Table::new(&["ID", "TO", "ACK", "TEXT", "REACTION", "SENT"]);
                for r in &received {
                    let text = if r.deleted {
                        "(deleted)".to_owned()
                    } else {
                        r.body.clone()
                    };
                    table.row(vec![
                        r.external_id.clone(),
                        r.to.clone(),
                        r.ack.to_string(),
                        text,
                        r.reaction.clone(),
                        r.created_at.format("%Y-%m-%d %H:%M:%S").to_string(),
                    ]);
                }
                print!("{}", table.render());
            }
            Ok(())
        }
    }
}

/// The sandbox connection with this id, in whichever company it is (`ERR_NO_WAPP_FOUND` when
/// there is none, or it is not on the sandbox).
async fn sandbox_connection(ports: &Ports, id: i64) -> Result<(TenantScope, Connection), Failure> {
    let connection = ports
        .connections
        .list_all_platform()
        .await?
        .into_iter()
        .find(|c| c.id == WhatsappId(id) && c.provider == ProviderKind::Sandbox)
        .ok_or(ErrorCode::ERR_NO_WAPP_FOUND)?;
    Ok((TenantScope::new(connection.company_id), connection))
}

fn read_file(path: &PathBuf) -> Result<PhoneFile, Failure> {
    let bytes = std::fs::read(path).map_err(|e| {
        Error::with_detail(
            ErrorCode::ERR_BAD_REQUEST,
            format!("cannot read {}: {e}", path.display()),
        )
    })?;
    let file_name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "file".to_owned());
    Ok(PhoneFile {
        file_name,
        mime_type: String::new(),
        bytes,
    })
}
