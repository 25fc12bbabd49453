//! The import of old messages (spec 2, connections; rules in [`crate::inbox::history`]): the
//! parts of a phone's history queued durably as they arrive ([`receive`]), written oldest first
//! by a job a batch at a time ([`step`]), and the imported tickets closed by the button
//! ([`close_imported`], `POST /closedimported/{id}`).
//!
//! Progress goes out as `importMessages-{companyId}` events after each commit; the connection's
//! `statusImportMessages` says where the import stands for a page loaded later.

use crate::error::{ErrorCode, Result};
use crate::events::Event;
use crate::identity::Actor;
use crate::ids::{TenantScope, WhatsappId};
use crate::inbox::channel::{HistoryChunk, InboundMessage};
use crate::inbox::history::{self, ImportState, Next};
use crate::inbox::inbound::INBOUND_TEXT_MAX_BYTES;
use crate::inbox::model::Connection;
use crate::policy::{self, Action};
use crate::service::Ports;

/// Keeps a part of the phone's history for the connection's import
/// ([`crate::inbox::channel::InboundEvent::History`]): nothing when the import is off; else the
/// messages inside its window are queued (their attachments' locators sealed) and a job writes
/// them. Returns once the part is committed.
#[tracing::instrument(level = "debug", name = "inbox.history::receive", skip_all, fields(company = scope.company_id().0, connection = connection.id.0, messages = chunk.messages.len()))]
pub async fn receive(
    ports: &Ports,
    scope: TenantScope,
    connection: &Connection,
    chunk: HistoryChunk,
) -> Result<()> {
    let Some(window) = history::window_of(connection) else {
        return Ok(());
    };
    let mut kept = Vec::with_capacity(chunk.messages.len());
    for mut message in chunk.messages {
        // A message too long to store is left out of the history rather than the whole part.
        if message.body.len() > INBOUND_TEXT_MAX_BYTES || !history::keeps(&window, &message) {
            continue;
        }
        if let Some(failed) = &mut message.media_failed {
            failed.locator = ports.secrets.seal(&failed.locator)?;
        }
        kept.push(message);
    }
    let now = ports.clock.now();
    let state = ports
        .history
        .queue(
            scope,
            connection.id,
            &kept,
            now,
            chunk.progress,
            &history::receiving_status(now),
        )
        .await?;
    report(ports, scope, connection.id, &state, None).await;
    Ok(())
}

/// One step of a connection's import (the `ImportHistory` job): writes the next batch of its
/// queue, or waits for more history, or finishes it ([`history::next_step`]). A connection that
/// is gone, or has no import under way, needs nothing.
#[tracing::instrument(level = "debug", name = "inbox.history::step", skip_all, fields(company = scope.company_id().0, connection = id.0))]
pub async fn step(ports: &Ports, scope: TenantScope, id: WhatsappId) -> Result<()> {
    let Some(connection) = ports.connections.get(scope, id).await? else {
        return Ok(());
    };
    let Some(state) = ports.history.state(scope, id).await? else {
        return Ok(());
    };
    let window = history::window_of(&connection);
    let now = ports.clock.now();
    // An import turned off meanwhile ends with what it wrote.
    let next = if window.is_some() {
        history::next_step(&state, now)
    } else {
        Next::Finish
    };
    match next {
        Next::Write => {
            let rows = ports
                .history
                .unwritten(scope, id, history::BATCH as u32)
                .await?;
            let queue = window.and_then(|w| w.queue);
            let last = rows.iter().map(|(_, m)| m.timestamp).max();
            let ids: Vec<i64> = rows.iter().map(|(row, _)| *row).collect();
            let messages = download(ports, scope, &connection, rows).await?;
            super::ingest::store_history(ports, scope, &connection, &messages, queue).await?;
            if let Some(state) = ports
                .history
                .written(scope, id, &ids, history::STATUS_RUNNING)
                .await?
            {
                report(ports, scope, id, &state, last).await;
            }
            ports.history.wake(scope, id, now).await
        }
        Next::WaitUntil(at) => ports.history.wake(scope, id, at).await,
        Next::Finish => {
            let close = window.is_some_and(|w| w.close_after);
            let status = history::finished_status(&state, close || window.is_none());
            let finished = ports
                .history
                .finish(
                    scope,
                    id,
                    close,
                    status,
                    &[Event::ImportFinished { whatsapp_id: id }],
                )
                .await?;
            match finished {
                Some(closed) => {
                    tracing::info!(
                        written = state.written,
                        closed,
                        "the import of old messages finished"
                    );
                    Ok(())
                }
                // More history arrived meanwhile: write it.
                None => ports.history.wake(scope, id, now).await,
            }
        }
    }
}

/// The queued messages with their attachments downloaded where the provider can (a file it
/// cannot get stays a failed download the user may try again); locators opened for ingestion,
/// which seals them again.
async fn download(
    ports: &Ports,
    scope: TenantScope,
    connection: &Connection,
    rows: Vec<(i64, InboundMessage)>,
) -> Result<Vec<InboundMessage>> {
    let mut messages = Vec::with_capacity(rows.len());
    for (_, mut message) in rows {
        if let Some(failed) = &mut message.media_failed {
            failed.locator = ports.secrets.open(&failed.locator)?;
        }
        messages.push(message);
    }
    download_attachments(ports, scope, connection, &mut messages).await;
    Ok(messages)
}

/// Downloads the attachments history left with their locators (opened), where the provider
/// can; a file it cannot get stays a failed download the user may try again.
pub(super) async fn download_attachments(
    ports: &Ports,
    scope: TenantScope,
    connection: &Connection,
    messages: &mut [InboundMessage],
) {
    let Ok(provider) = ports.channels.get(connection.provider) else {
        return;
    };
    for message in messages {
        let Some(failed) = &message.media_failed else {
            continue;
        };
        match provider.download_media(scope, connection.id, failed).await {
            Ok(media) => {
                message.media = Some(media);
                message.media_failed = None;
            }
            Err(error) => {
                tracing::debug!(%error, "an attachment from history was not downloaded");
            }
        }
    }
}

/// Sends the import's progress (`importMessages` update); best effort, the state is committed.
async fn report(
    ports: &Ports,
    scope: TenantScope,
    id: WhatsappId,
    state: &ImportState,
    date: Option<chrono::DateTime<chrono::Utc>>,
) {
    let event = Event::ImportProgress {
        whatsapp_id: id,
        this: history::progress_count(state),
        all: i64::try_from(state.total).unwrap_or(i64::MAX),
        date,
    };
    if let Err(error) = ports.event_log.append(scope, &[event]).await {
        tracing::warn!(%error, "the import's progress was not reported");
    }
}

/// Closes the connection's imported tickets that are still pending (`POST
/// /closedimported/{id}`), without messages to the contacts; answers how many. Needs
/// `ManageConnections`; `ERR_NO_WAPP_FOUND` for a connection not of the company.
#[tracing::instrument(level = "debug", name = "inbox.history::close_imported", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0, connection = id.0))]
pub async fn close_imported(ports: &Ports, actor: &Actor, id: WhatsappId) -> Result<u64> {
    policy::authorize(actor, &Action::ManageConnections(actor.company_id))?;
    let scope = actor.scope();
    ports
        .history
        .close_imported(scope, id, &[Event::ImportFinished { whatsapp_id: id }])
        .await?
        .ok_or_else(|| ErrorCode::ERR_NO_WAPP_FOUND.into())
}
