//! `chatflow sandbox ...`: play the simulated phones of the sandbox channel from a terminal.
//!
//! - `chatflow sandbox scan --connection ID`: a phone scans the connection's QR code (the
//!   server connects it within a moment).
//! - `chatflow sandbox pair-code CONNECTION CODE`: a phone types the pair code the connection
//!   shows (after "link with phone number instead"); the server connects it within a moment, with
//!   the number the code was asked for. A wrong code is refused.
//! - `chatflow sandbox send --connection ID --from NUMBER [--name NAME] [--media PATH] TEXT`: a
//!   phone sends a message, text or a file with a caption (the server delivers it to the inbox).
//!   With `--react EXTERNAL_ID EMOJI`, `--edit EXTERNAL_ID` (TEXT is the new text) or
//!   `--delete EXTERNAL_ID` the phone instead reacts to a message of its chat, or edits or
//!   deletes one it sent.
//! - `chatflow sandbox call --connection ID --from NUMBER [--name NAME]`: a call nobody answers
//!   (the ticket shows a call-log line).
//! - `chatflow sandbox inbox --connection ID [--to NUMBER]`: what phones received, with acks,
//!   read marks, reactions and deletions.
//!
//! The CLI writes the sandbox's tables; the server picks the writes up by polling.

use std::path::PathBuf;

use chatflow_core::inbox::model::{Connection, ProviderKind};
use chatflow_core::inbox::sandbox::SandboxRepo;
use chatflow_core::service::Ports;
use chatflow_core::{Error, ErrorCode, TenantScope, WhatsappId};
use chatflow_sandbox::{
    PhoneAct, PhoneFile, PhoneMessage, normalise_pair_code, queue_phone_act, type_pair_code,
};
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
    /// A simulated phone types the pair code the connection shows (linking by phone number).
    PairCode(PairCodeArgs),
    /// A simulated phone sends a message to the connection, or reacts to, edits or deletes one.
    Send(SendArgs),
    /// A simulated phone calls the connection and nobody answers.
    Call(CallArgs),
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

/// `chatflow sandbox pair-code`.
#[derive(Debug, Args)]
pub struct PairCodeArgs {
    /// The connection's id.
    pub connection: i64,
    /// The code the connection shows, as shown (`XXXX-XXXX`) or without the dash, any case.
    pub code: String,
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
    #[arg(long, visible_alias = "media", value_name = "FILE")]
    pub file: Option<PathBuf>,
    /// React to a message of the phone's chat (by its external id) with an emoji ("" removes).
    #[arg(long, num_args = 2, value_names = ["EXTERNAL_ID", "EMOJI"],
          conflicts_with_all = ["file", "edit", "delete"])]
    pub react: Option<Vec<String>>,
    /// Edit a message the phone sent (by its external id); the text is the new text.
    #[arg(long, value_name = "EXTERNAL_ID", conflicts_with_all = ["file", "delete"])]
    pub edit: Option<String>,
    /// Delete a message the phone sent (by its external id), for everyone.
    #[arg(long, value_name = "EXTERNAL_ID", conflicts_with = "file")]
    pub delete: Option<String>,
    /// The network loses the message (as WhatsApp may after an outage): it stays in the
    /// phone's history, which answers the inbox's history requests, but is never delivered.
    #[arg(long, conflicts_with_all = ["react", "edit", "delete"])]
    pub lost: bool,
    /// The text.
    #[arg(default_value = "")]
    pub text: String,
}

/// `chatflow sandbox call`.
#[derive(Debug, Args)]
pub struct CallArgs {
    /// The connection's id.
    #[arg(long)]
    pub connection: i64,
    /// The phone's number.
    #[arg(long)]
    pub from: String,
    /// The contact's name (default: the number).
    #[arg(long)]
    pub name: Option<String>,
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
        SandboxCommand::PairCode(args) => {
            let (scope, connection) = sandbox_connection(ports, args.connection).await?;
            type_pair_code(store, scope, connection.id, &args.code).await?;
            let code = normalise_pair_code(&args.code).unwrap_or_default();
            if cli.json {
                print_json(&serde_json::json!({"connection": connection.id, "paired": true}));
            } else {
                println!(
                    "Code {} typed on connection {}: it connects within a moment.",
                    chatflow_sandbox::display_pair_code(&code),
                    connection.id
                );
            }
            Ok(())
        }
        SandboxCommand::Send(args) => {
            let (scope, connection) = sandbox_connection(ports, args.connection).await?;
            let act = send_act(args)?;
            let external_id = queue(store, ports, scope, connection.id, &act).await?;
            let what = match &act {
                PhoneAct::Message(m) if m.lost => "Lost on the way",
                PhoneAct::Message(_) => "Sent",
                PhoneAct::React { .. } => "Reacted to",
                PhoneAct::Edit { .. } => "Edited",
                PhoneAct::Delete { .. } => "Deleted",
                PhoneAct::Call { .. } => "Called",
            };
            report(cli, what, &act, connection.id, external_id);
            Ok(())
        }
        SandboxCommand::Call(args) => {
            let (scope, connection) = sandbox_connection(ports, args.connection).await?;
            let act = PhoneAct::Call {
                from: args.from.clone(),
                name: args.name.clone().unwrap_or_default(),
            };
            let external_id = queue(store, ports, scope, connection.id, &act).await?;
            report(cli, "Missed call", &act, connection.id, external_id);
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
                let mut table =
                    Table::new(&["ID", "TO", "ACK", "TEXT", "REACTION", "READ", "SENT"]);
                for r in &received {
                    let text = if r.deleted {
                        "(deleted)".to_owned()
                    } else {
                        r.body.clone()
                    };
                    table.row(vec![
                        r.external_id.clone(),
                        r.to.clone(),
                        format!("{} {}", r.ack, ack_name(r.ack)),
                        text,
                        r.reaction.clone(),
                        r.read_at
                            .map(|at| at.format("%H:%M:%S").to_string())
                            .unwrap_or_default(),
                        r.created_at.format("%Y-%m-%d %H:%M:%S").to_string(),
                    ]);
                }
                print!("{}", table.render());
            }
            Ok(())
        }
    }
}

/// What `send`'s flags ask the phone to do.
fn send_act(args: &SendArgs) -> Result<PhoneAct, Failure> {
    let from = args.from.clone();
    if let Some(react) = &args.react {
        let (external_id, emoji) = match react.as_slice() {
            [id, emoji] => (id.clone(), emoji.clone()),
            _ => return Err(ErrorCode::ERR_BAD_REQUEST.into()),
        };
        return Ok(PhoneAct::React {
            from,
            external_id,
            emoji,
        });
    }
    if let Some(external_id) = &args.edit {
        return Ok(PhoneAct::Edit {
            from,
            external_id: external_id.clone(),
            body: args.text.clone(),
        });
    }
    if let Some(external_id) = &args.delete {
        return Ok(PhoneAct::Delete {
            from,
            external_id: external_id.clone(),
        });
    }
    let file = match &args.file {
        Some(path) => Some(read_file(path)?),
        None => None,
    };
    Ok(PhoneAct::Message(PhoneMessage {
        from,
        name: args.name.clone().unwrap_or_default(),
        body: args.text.clone(),
        is_group: false,
        file,
        lost: args.lost,
    }))
}

/// Queues a phone's act on the connection, stamped with the ports' clock.
async fn queue(
    store: &Store,
    ports: &Ports,
    scope: TenantScope,
    connection: WhatsappId,
    act: &PhoneAct,
) -> Result<String, Failure> {
    Ok(queue_phone_act(
        store,
        ports.ids.as_ref(),
        ports.clock.now(),
        scope,
        connection,
        act,
    )
    .await?)
}

fn report(cli: &Cli, what: &str, act: &PhoneAct, connection: WhatsappId, external_id: String) {
    if cli.json {
        print_json(&Sent {
            connection: connection.0,
            external_id,
        });
    } else {
        println!(
            "{what} {external_id} from {} to connection {connection}.",
            act.from()
        );
    }
}

/// How a phone shows an ack.
fn ack_name(ack: i64) -> &'static str {
    match ack {
        i64::MIN..=1 => "sent",
        2 => "delivered",
        _ => "read",
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
