//! Inbound events from providers ([`crate::inbox::channel::InboundSink`] hosts call
//! [`deliver`]): messages are ingested exactly once ([`crate::inbox::ports::MessageRepo::ingest`]
//! with the core's [`crate::inbox::ingest::decide`]); receipts, edits, deletions and reactions
//! update the stored message; session changes update the connection.
//!
//! A media attachment is stored with the media port before the message's transaction; a
//! replayed delivery of the same message therefore may leave an unreferenced copy of the file
//! (never a second message).

use crate::error::{Error, ErrorCode, Result};
use crate::ids::{TenantScope, WhatsappId};
use crate::inbox::channel::{InboundEvent, InboundMessage};
use crate::inbox::ingest::decide;
use crate::inbox::model::MediaType;
use crate::inbox::ports::IngestOutcome;
use crate::service::Ports;

/// Handles one inbound event of connection `connection_id`; returns once it is committed (or
/// recognised as a duplicate). Unknown external ids of receipts, edits and the like are ignored.
pub async fn deliver(
    ports: &Ports,
    scope: TenantScope,
    connection_id: WhatsappId,
    event: InboundEvent,
) -> Result<Option<IngestOutcome>> {
    match event {
        InboundEvent::Message(message) => message_in(ports, scope, connection_id, message)
            .await
            .map(Some),
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
            message_in(ports, scope, connection_id, message)
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

async fn message_in(
    ports: &Ports,
    scope: TenantScope,
    connection_id: WhatsappId,
    message: InboundMessage,
) -> Result<IngestOutcome> {
    let connection = ports
        .connections
        .get(scope, connection_id)
        .await?
        .ok_or_else(|| Error::new(ErrorCode::ERR_NO_WAPP_FOUND))?;
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
        .ingest(
            scope,
            &connection,
            &message,
            media_path.as_deref(),
            &|ctx| decide(ctx, &message),
        )
        .await
}
