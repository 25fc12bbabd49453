//! Inbound events from providers ([`crate::inbox::channel::InboundSink`] hosts call
//! [`deliver`]): messages are ingested exactly once ([`crate::inbox::ports::MessageRepo::ingest`]
//! with the core's [`crate::inbox::ingest::decide`]); receipts, edits, deletions and reactions
//! update the stored message; session changes update the connection.
//!
//! A message from a contact then goes to the automation runtime
//! ([`crate::service::automation::on_inbound`]: flows and queue routing) after its commit; what
//! the automation fails at is reported in [`Delivery::automation`] and never undoes the message.
//!
//! Every event is first made storable ([`crate::inbox::inbound::clean_event`]: no U+0000 in any
//! text field) and checked ([`crate::inbox::inbound::check_event`]). Providers that queue events
//! deliver through [`deliver_or_set_aside`]: an event that fails for good, or too often, is kept
//! in the company's inbound failures and counts as handled, so nothing behind it waits.
//!
//! A media attachment is stored with the media port before the message's transaction; a
//! replayed delivery of the same message therefore may leave an unreferenced copy of the file
//! (never a second message).

use crate::error::{Error, ErrorCode, Result};
use crate::ids::{TenantScope, WhatsappId};
use crate::inbox::channel::{InboundEvent, InboundMessage};
use crate::inbox::inbound::{self, check_event, clean_event};
use crate::inbox::ingest::decide;
use crate::inbox::model::{Connection, MediaType};
use crate::inbox::ports::IngestOutcome;
use crate::service::Ports;
use crate::service::automation::{self, StoredInbound};

/// What [`deliver`] did.
#[derive(Debug)]
pub struct Delivery {
    /// What ingestion did with a message (`None` for receipts, edits and other events).
    pub outcome: Option<IngestOutcome>,
    /// How the automation that followed went (the message is committed either way).
    pub automation: Result<()>,
}

/// Handles one inbound event of connection `connection_id`; returns once it is committed (or
/// recognised as a duplicate), and after the automation it started. Unknown external ids of
/// receipts, edits and the like are ignored.
pub async fn deliver(
    ports: &Ports,
    scope: TenantScope,
    connection_id: WhatsappId,
    event: InboundEvent,
) -> Result<Delivery> {
    let event = clean_event(event);
    check_event(&event)?;
    if let InboundEvent::Message(message) = &event {
        let connection = ports
            .connections
            .get(scope, connection_id)
            .await?
            .ok_or_else(|| Error::new(ErrorCode::ERR_NO_WAPP_FOUND))?;
        let outcome = store_message(ports, scope, &connection, message).await?;
        let automation = match outcome {
            IngestOutcome::Stored {
                ticket,
                ticket_created,
                contact_created,
                ..
            } => {
                automation::on_inbound(
                    ports,
                    scope,
                    StoredInbound {
                        connection: &connection,
                        ticket_id: ticket,
                        ticket_created,
                        contact_created,
                        from_me: message.from_me,
                        text: &message.body,
                    },
                )
                .await
            }
            IngestOutcome::Duplicate | IngestOutcome::Ignored => Ok(()),
        };
        return Ok(Delivery {
            outcome: Some(outcome),
            automation,
        });
    }
    other_event(ports, scope, connection_id, event)
        .await
        .map(|outcome| Delivery {
            outcome,
            automation: Ok(()),
        })
}

/// What [`deliver_or_set_aside`] did with an event.
#[derive(Debug)]
pub enum Handled {
    /// Delivered (or recognised as a duplicate).
    Delivered(Delivery),
    /// Kept in the inbound failures with this id, with the error that stopped it.
    SetAside { id: i64, error: Error },
}

/// [`deliver`] for providers that retry: `attempts` counts this delivery (1 for the first). When
/// it fails for good, or for the [`inbound::MAX_INBOUND_ATTEMPTS`]th time
/// ([`inbound::set_aside_now`]), the event is kept in the company's inbound failures and the
/// answer is `Ok` (the provider acknowledges it); a failure retrying may fix is returned, for
/// the provider to retry after [`inbound::retry_delay`]. Failing to keep it returns the
/// original error.
pub async fn deliver_or_set_aside(
    ports: &Ports,
    scope: TenantScope,
    connection_id: WhatsappId,
    event: InboundEvent,
    attempts: u32,
) -> Result<Handled> {
    let kept = event.clone();
    match deliver(ports, scope, connection_id, event).await {
        Ok(delivery) => Ok(Handled::Delivered(delivery)),
        Err(error) if inbound::set_aside_now(&error, attempts) => {
            let id = ports
                .inbound_failures
                .set_aside(scope, connection_id, &kept, &error, attempts)
                .await
                .map_err(|_| error.clone())?;
            Ok(Handled::SetAside { id, error })
        }
        Err(error) => Err(error),
    }
}

async fn other_event(
    ports: &Ports,
    scope: TenantScope,
    connection_id: WhatsappId,
    event: InboundEvent,
) -> Result<Option<IngestOutcome>> {
    match event {
        InboundEvent::Message(message) => {
            let connection = ports
                .connections
                .get(scope, connection_id)
                .await?
                .ok_or_else(|| Error::new(ErrorCode::ERR_NO_WAPP_FOUND))?;
            store_message(ports, scope, &connection, &message)
                .await
                .map(Some)
        }
        InboundEvent::MissedCall {
            external_id,
            chat,
            chat_name,
            timestamp,
        } => {
            let message = InboundMessage {
                external_id,
                chat,
                chat_name,
                is_group: false,
                participant: None,
                from_me: false,
                body: String::new(),
                media_type: MediaType::CallLog,
                media: None,
                quoted_external_id: None,
                timestamp,
            };
            let connection = ports
                .connections
                .get(scope, connection_id)
                .await?
                .ok_or_else(|| Error::new(ErrorCode::ERR_NO_WAPP_FOUND))?;
            store_message(ports, scope, &connection, &message)
                .await
                .map(Some)
        }
        InboundEvent::Ack { external_id, ack } => {
            ports
                .messages
                .apply_ack(scope, connection_id, &external_id, ack)
                .await?;
            Ok(None)
        }
        InboundEvent::Edit {
            external_id, body, ..
        } => {
            ports
                .messages
                .apply_edit(scope, connection_id, &external_id, &body)
                .await?;
            Ok(None)
        }
        InboundEvent::Delete { external_id } => {
            ports
                .messages
                .apply_delete(scope, connection_id, &external_id)
                .await?;
            Ok(None)
        }
        InboundEvent::Reaction {
            external_id, emoji, ..
        } => {
            ports
                .messages
                .apply_reaction(scope, connection_id, &external_id, &emoji)
                .await?;
            Ok(None)
        }
        InboundEvent::Session(update) => {
            super::connections::record_session(ports, scope, connection_id, &update).await?;
            Ok(None)
        }
    }
}

async fn store_message(
    ports: &Ports,
    scope: TenantScope,
    connection: &Connection,
    message: &InboundMessage,
) -> Result<IngestOutcome> {
    let media_path = match &message.media {
        Some(media) => Some(
            ports
                .media
                .put(scope, &media.file_name, &media.bytes)
                .await?,
        ),
        None => None,
    };
    ports
        .messages
        .ingest(scope, connection, message, media_path.as_deref(), &|ctx| {
            decide(ctx, message)
        })
        .await
}
