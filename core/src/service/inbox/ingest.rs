//! Inbound events from providers ([`crate::inbox::channel::InboundSink`] hosts call
//! [`deliver`]): messages are ingested exactly once ([`crate::inbox::ports::MessageRepo::ingest`]
//! with the core's [`crate::inbox::ingest::decide`]); receipts, edits, deletions and reactions
//! update the stored message; session changes update the connection.
//!
//! A message from a contact then goes to the automation runtime
//! ([`crate::service::automation::on_inbound`]: flows and queue routing) after its commit; what
//! the automation fails at is logged and never undoes the message. The automation runs on the
//! host's [`AutomationLines`]: one ticket's messages in order, different tickets' at the same
//! time, off the inbound path (the next inbound event does not wait for this one's flow);
//! [`deliver`], [`deliver_or_set_aside`] and [`deliver_batch`] run it inline ([`InlineLines`]).
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
use crate::ids::{TenantScope, TicketId, WhatsappId};

use crate::inbox::channel::{InboundEvent, InboundMessage, Queued};
use crate::inbox::inbound::{self, check_event, clean_event};
use crate::inbox::ingest::decide;
use crate::inbox::model::Connection;
use crate::inbox::ports::{Inbound, IngestBatch, IngestOutcome, Stored};
use crate::service::Ports;
use crate::service::automation::{self, StoredInbound};

/// What [`deliver`] did.
#[derive(Debug)]
pub struct Delivery {
    /// What ingestion did with a message (`None` for receipts, edits and other events).
    pub outcome: Option<IngestOutcome>,
}

/// The automation of one ticket's stored messages, in order; called with whether what the
/// ingestion read of the ticket is still current (see [`AutomationLines::submit`]).
pub type AutomationWork =
    Box<dyn FnOnce(bool) -> std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send>> + Send>;

/// Where the automation after stored inbound messages runs. The rule every implementation
/// keeps: one ticket's work runs in the order it was submitted, one at a time.
#[async_trait::async_trait]
pub trait AutomationLines: Send + Sync {
    /// A mark taken before an ingestion, to pass to [`AutomationLines::submit`] with the work
    /// that reuses what that ingestion read.
    fn mark(&self) -> u64;

    /// Runs each `(ticket, work)` of `works` (at most one per ticket) after every work
    /// submitted before it for that ticket. A work is called with `true` when no work of its
    /// ticket was waiting, running or finished since `mark` (what the ingestion read after
    /// `mark` is still current), `false` otherwise (the work reads the ticket again). Returns
    /// once the works are accepted (a host may make it wait while too much work waits), not
    /// once they are done.
    async fn submit(&self, scope: TenantScope, mark: u64, works: Vec<(TicketId, AutomationWork)>);
}

/// Runs the works at once, different tickets' at the same time, before
/// [`AutomationLines::submit`] returns: the inbound path waits for the automation (tests, and
/// tools that ingest).
#[derive(Debug, Default, Clone, Copy)]
pub struct InlineLines;

#[async_trait::async_trait]
impl AutomationLines for InlineLines {
    fn mark(&self) -> u64 {
        0
    }

    async fn submit(&self, _: TenantScope, _: u64, works: Vec<(TicketId, AutomationWork)>) {
        futures_util::future::join_all(works.into_iter().map(|(_, work)| work(true))).await;
    }
}

/// The automation of one ticket's stored messages (their messages and what ingestion answered),
/// owned so that it can run after the inbound path returned.
fn ticket_work(
    ports: &Ports,
    scope: TenantScope,
    connection: &Connection,
    items: Vec<(InboundMessage, Stored)>,
    company: std::sync::Arc<automation::CompanyReads>,
    ticket_reads: Option<automation::TicketReads>,
    pictures_asked: bool,
) -> AutomationWork {
    let (ports, connection) = (ports.clone(), connection.clone());
    Box::new(move |current| {
        Box::pin(async move {
            for (n, (message, stored)) in items.iter().enumerate() {
                let known = Known {
                    fresh: current && n == 0,
                    company: &company,
                    ticket: ticket_reads.as_ref(),
                    pictures_asked,
                };
                let result = after_stored(&ports, scope, &connection, message, stored, known).await;
                if let Err(error) = result {
                    tracing::warn!(
                        company = scope.company_id().0,
                        connection = connection.id.0,
                        external_id = %message.external_id,
                        "automation after an inbound message failed: {error}"
                    );
                }
            }
        })
    })
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
    deliver_on(ports, scope, connection_id, event, &InlineLines).await
}

/// [`deliver`] with the automation on `lines`: returns once the event is committed and its
/// automation accepted by `lines`.
#[tracing::instrument(level = "debug", name = "inbox.ingest::deliver", skip_all, fields(company = scope.company_id().0, connection = connection_id.0))]
pub async fn deliver_on(
    ports: &Ports,
    scope: TenantScope,
    connection_id: WhatsappId,
    event: InboundEvent,
    lines: &dyn AutomationLines,
) -> Result<Delivery> {
    let event = clean_event(event);
    check_event(&event)?;
    if let InboundEvent::Message(message) = event {
        let connection = connection_of(ports, scope, connection_id).await?;
        let mark = lines.mark();
        let stored = store_message(ports, scope, &connection, &message).await?;
        let outcome = stored.outcome.clone();
        if let IngestOutcome::Stored { ticket, .. } = outcome {
            let work = ticket_work(
                ports,
                scope,
                &connection,
                vec![(message, stored)],
                std::sync::Arc::default(),
                None,
                false,
            );
            lines.submit(scope, mark, vec![(ticket, work)]).await;
        }
        return Ok(Delivery {
            outcome: Some(outcome),
        });
    }
    other_event(ports, scope, connection_id, event)
        .await
        .map(|outcome| Delivery { outcome })
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
    deliver_or_set_aside_on(ports, scope, connection_id, event, attempts, &InlineLines).await
}

/// [`deliver_or_set_aside`] with the automation on `lines`.
#[tracing::instrument(level = "debug", name = "inbox.ingest::deliver_or_set_aside", skip_all, fields(company = scope.company_id().0, connection = connection_id.0))]
pub async fn deliver_or_set_aside_on(
    ports: &Ports,
    scope: TenantScope,
    connection_id: WhatsappId,
    event: InboundEvent,
    attempts: u32,
    lines: &dyn AutomationLines,
) -> Result<Handled> {
    let kept = event.clone();
    match deliver_on(ports, scope, connection_id, event, lines).await {
        Ok(delivery) => Ok(Handled::Delivered(delivery)),
        Err(error) => set_aside_or_fail(ports, scope, connection_id, &kept, error, attempts).await,
    }
}

/// After `event` failed with `error` on its `attempts`th delivery: keeps it in the company's
/// inbound failures when [`inbound::set_aside_now`] says so; otherwise (or when it cannot be
/// kept) the error, for the provider to retry.
async fn set_aside_or_fail(
    ports: &Ports,
    scope: TenantScope,
    connection_id: WhatsappId,
    event: &InboundEvent,
    error: Error,
    attempts: u32,
) -> Result<Handled> {
    if !inbound::set_aside_now(&error, attempts) {
        return Err(error);
    }
    match ports
        .inbound_failures
        .set_aside(scope, connection_id, event, &error, attempts)
        .await
    {
        Ok(id) => Ok(Handled::SetAside { id, error }),
        Err(_) => Err(error),
    }
}

/// The connection an event came in on, `ERR_NO_WAPP_FOUND` when it is gone.
async fn connection_of(
    ports: &Ports,
    scope: TenantScope,
    connection_id: WhatsappId,
) -> Result<Connection> {
    ports
        .connections
        .get(scope, connection_id)
        .await?
        .ok_or_else(|| Error::new(ErrorCode::ERR_NO_WAPP_FOUND))
}

async fn other_event(
    ports: &Ports,
    scope: TenantScope,
    connection_id: WhatsappId,
    event: InboundEvent,
) -> Result<Option<IngestOutcome>> {
    match event {
        InboundEvent::Message(message) => {
            let connection = connection_of(ports, scope, connection_id).await?;
            store_message(ports, scope, &connection, &message)
                .await
                .map(|stored| Some(stored.outcome))
        }
        InboundEvent::MissedCall {
            external_id,
            chat,
            chat_name,
            timestamp,
        } => {
            let message = InboundMessage::call_log(external_id, chat, chat_name, timestamp);
            let connection = connection_of(ports, scope, connection_id).await?;
            store_message(ports, scope, &connection, &message)
                .await
                .map(|stored| Some(stored.outcome))
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
        InboundEvent::IncomingCall {
            external_id,
            chat,
            chat_name,
            timestamp,
            ..
        } => {
            let connection = connection_of(ports, scope, connection_id).await?;
            let call = super::calls::IncomingCall {
                external_id,
                chat,
                chat_name,
                timestamp,
            };
            super::calls::on_incoming(ports, scope, &connection, call).await
        }
        InboundEvent::Identities { chat, aliases } => {
            let connection = connection_of(ports, scope, connection_id).await?;
            super::identities::one_person(ports, scope, &connection, &chat, &aliases).await?;
            Ok(None)
        }
        InboundEvent::History(chunk) if chunk.on_demand => {
            let connection = connection_of(ports, scope, connection_id).await?;
            super::gaps::receive(ports, scope, &connection, chunk.messages).await?;
            Ok(None)
        }
        InboundEvent::History(chunk) => {
            let connection = connection_of(ports, scope, connection_id).await?;
            super::history::receive(ports, scope, &connection, chunk).await?;
            Ok(None)
        }
        InboundEvent::CaughtUp => {
            super::gaps::caught_up(ports, scope, connection_id).await?;
            Ok(None)
        }
        InboundEvent::Session(update) => {
            super::connections::record_session(ports, scope, connection_id, &update).await?;
            Ok(None)
        }
    }
}

/// Stores one message (no automation): what ingestion did with it.
pub(super) async fn store_one(
    ports: &Ports,
    scope: TenantScope,
    connection: &Connection,
    message: &InboundMessage,
) -> Result<Stored> {
    store_message(ports, scope, connection, message).await
}

async fn store_message(
    ports: &Ports,
    scope: TenantScope,
    connection: &Connection,
    message: &InboundMessage,
) -> Result<Stored> {
    let mut batch = store_messages(ports, scope, connection, &[message], &decide).await?;
    match batch.failed {
        Some(error) => Err(error),
        None => batch
            .outcomes
            .pop()
            .ok_or_else(|| Error::internal("a batch of one stored nothing")),
    }
}

/// Resolves the messages' identities ([`super::identities`]), stores their attachments with the
/// media port, then ingests them in one transaction
/// ([`crate::inbox::ports::MessageRepo::ingest_batch`]).
async fn store_messages(
    ports: &Ports,
    scope: TenantScope,
    connection: &Connection,
    messages: &[&InboundMessage],
    decide: &(
         dyn for<'c, 'm> Fn(
        &'c crate::inbox::ingest::IngestContext,
        &'m InboundMessage,
    ) -> crate::inbox::ingest::IngestPlan
             + Send
             + Sync
     ),
) -> Result<IngestBatch> {
    // One person, one contact: chats rewritten to their contact's number, contacts merged.
    let mut resolved = super::identities::resolve(ports, scope, connection, messages).await?;
    // What a later download of a missing attachment needs is sealed before it is stored.
    for message in &mut resolved.messages {
        if let Some(failed) = &message.media_failed {
            let sealed = ports.secrets.seal(&failed.locator)?;
            if let Some(failed) = &mut message.to_mut().media_failed {
                failed.locator = sealed;
            }
        }
    }
    let messages: Vec<&InboundMessage> = resolved.messages.iter().map(|m| &**m).collect();
    let mut media_paths = Vec::with_capacity(messages.len());
    for message in &messages {
        media_paths.push(match &message.media {
            Some(media) => Some(
                ports
                    .media
                    .put(scope, &media.file_name, &media.bytes)
                    .await?,
            ),
            None => None,
        });
    }
    let items: Vec<Inbound<'_>> = messages
        .iter()
        .zip(&media_paths)
        .map(|(message, media_path)| Inbound {
            message,
            media_path: media_path.as_deref(),
        })
        .collect();
    let batch = ports
        .messages
        .ingest_batch(scope, connection, &items, decide)
        .await?;
    // Best effort: the messages are committed; a person's next message records them again.
    if let Err(error) =
        super::identities::record_new(ports, scope, connection, &resolved, &batch.outcomes).await
    {
        tracing::warn!(%error, "the aliases of new contacts were not recorded");
    }
    Ok(batch)
}

/// Stores messages of the phone's history as the import does
/// ([`crate::inbox::history::decide_imported`]: new tickets in the import `queue`, nothing
/// unread, no events per message, each message at its own time), with the same identity
/// resolution and attachment storage as live messages, and no automation. A message that can
/// never be stored is skipped with a warning (the rest of the batch is kept); a failure that
/// may pass is returned, for the job to try again.
pub(super) async fn store_history(
    ports: &Ports,
    scope: TenantScope,
    connection: &Connection,
    messages: &[InboundMessage],
    queue: Option<crate::ids::QueueId>,
) -> Result<()> {
    let decide = crate::inbox::history::decide_imported(queue);
    store_history_with(ports, scope, connection, messages, &decide).await
}

/// [`store_history`] with another decision: the phone's answer to a history request and the
/// gap notices ([`crate::inbox::gaps::decide_backfilled`]).
pub(super) async fn store_history_with(
    ports: &Ports,
    scope: TenantScope,
    connection: &Connection,
    messages: &[InboundMessage],
    decide: &(
         dyn for<'c, 'm> Fn(
        &'c crate::inbox::ingest::IngestContext,
        &'m InboundMessage,
    ) -> crate::inbox::ingest::IngestPlan
             + Send
             + Sync
     ),
) -> Result<()> {
    let mut rest: Vec<&InboundMessage> = messages.iter().collect();
    while !rest.is_empty() {
        let batch = store_messages(ports, scope, connection, &rest, decide).await?;
        let handled = batch.outcomes.len();
        let Some(error) = batch.failed else {
            break;
        };
        // The message after the stored ones failed: the job tries again later when that may
        // help, else goes on without it.
        if inbound::retry_can_fix(&error) {
            return Err(error);
        }
        if let Some(message) = rest.get(handled) {
            tracing::warn!(%error, external_id = %message.external_id, "an imported message was not stored");
        }
        rest.drain(..=handled.min(rest.len() - 1));
    }
    Ok(())
}

/// What the automation of one stored message may take as read instead of reading it.
struct Known<'a> {
    /// The ticket and contact the ingestion returned are still current (no automation ran on
    /// that ticket since), so they need not be read again; so are `ticket`'s reads.
    fresh: bool,
    /// The company-wide values, shared by the batch.
    company: &'a automation::CompanyReads,
    /// The ticket's bot memory and flow runs as the batch read them.
    ticket: Option<&'a automation::TicketReads>,
    /// The batch already asked for the pictures of its new tickets' contacts.
    pictures_asked: bool,
}

/// Asks, in one write, for the pictures of the contacts (or groups) whose ticket `stored`
/// created on `connection`, when theirs is due: looked up off the messages' path, all of them
/// by one job ([`crate::jobs::JobPayload::RefreshPictures`]). Best effort: the messages are
/// committed.
async fn look_up_pictures(
    ports: &Ports,
    scope: TenantScope,
    connection: WhatsappId,
    stored: &[Stored],
) {
    let now = ports.clock.now();
    let mut contacts: Vec<crate::jobs::PictureLookup> = Vec::new();
    let mut jobs: Vec<crate::jobs::NewJob> = Vec::new();
    for one in stored {
        let IngestOutcome::Stored {
            ticket,
            ticket_created: true,
            ..
        } = one.outcome
        else {
            continue;
        };
        match one.contact.as_deref() {
            Some(contact) if !contact.picture_due(now) => {}
            Some(contact) => {
                if !contacts.iter().any(|c| c.contact_id == contact.id) {
                    contacts.push(crate::jobs::PictureLookup {
                        contact_id: contact.id,
                        number: contact.number.clone(),
                    });
                }
            }
            // The store did not answer the contact: the ticket's job reads it.
            None => jobs.push(crate::jobs::NewJob {
                payload: crate::jobs::JobPayload::RefreshPicture { ticket_id: ticket },
                run_at: now,
            }),
        }
    }
    if !contacts.is_empty() {
        jobs.push(crate::jobs::NewJob {
            payload: crate::jobs::JobPayload::RefreshPictures {
                whatsapp_id: connection,
                contacts,
            },
            run_at: now,
        });
    }
    if jobs.is_empty() {
        return;
    }
    if let Err(error) = ports.jobs.enqueue(scope, &jobs).await {
        tracing::warn!(%error, "the contacts' pictures will not be looked up");
    }
}

/// The automation after a message was stored ([`automation::on_inbound`]); nothing for a
/// duplicate or an ignored message. The picture of a new ticket's contact is asked for first,
/// unless the batch did (`known.pictures_asked`).
async fn after_stored(
    ports: &Ports,
    scope: TenantScope,
    connection: &Connection,
    message: &InboundMessage,
    stored: &Stored,
    known: Known<'_>,
) -> Result<()> {
    let Known {
        fresh,
        company: reads,
        ticket: ticket_reads,
        pictures_asked,
    } = known;
    let IngestOutcome::Stored {
        ticket,
        ticket_created,
        contact_created,
        ..
    } = stored.outcome
    else {
        return Ok(());
    };
    if !pictures_asked {
        look_up_pictures(ports, scope, connection.id, std::slice::from_ref(stored)).await;
    }
    automation::on_inbound(
        ports,
        scope,
        StoredInbound {
            connection,
            ticket_id: ticket,
            ticket_created,
            contact_created,
            from_me: message.from_me,
            text: &message.body,
            ticket_now: stored.ticket.as_deref().filter(|_| fresh),
            contact_now: stored.contact.as_deref().filter(|_| fresh),
            reads,
            ticket_reads: ticket_reads.filter(|_| fresh),
        },
    )
    .await
}

/// Hands the automation of a batch's stored messages to `lines`: one work per ticket with that
/// ticket's messages in the batch's order. The ticket and contact the ingestion left, and the
/// ticket's reads, are reused only for a ticket's first message, and only while nothing else
/// ran on that ticket since `mark` (the automation may change them).
async fn automate(
    ports: &Ports,
    scope: TenantScope,
    connection: &Connection,
    messages: Vec<&InboundMessage>,
    stored: Vec<Stored>,
    lines: &dyn AutomationLines,
    mark: u64,
) {
    look_up_pictures(ports, scope, connection.id, &stored).await;
    // Only stored messages have automation; duplicates and the like have none.
    let mut groups: Vec<(TicketId, Vec<(InboundMessage, Stored)>)> = Vec::new();
    for (message, one) in messages.into_iter().zip(stored) {
        let IngestOutcome::Stored { ticket, .. } = one.outcome else {
            continue;
        };
        let item = (message.clone(), one);
        match groups.iter_mut().find(|(t, _)| *t == ticket) {
            Some((_, items)) => items.push(item),
            None => groups.push((ticket, vec![item])),
        }
    }
    if groups.is_empty() {
        return;
    }
    // The company-wide values the automation reads, once for the batch, and what it reads of
    // each ticket, for all of them at once (each ticket's automation reads its own again
    // should that fail).
    let company = std::sync::Arc::new(automation::CompanyReads::default());
    let tickets: Vec<TicketId> = groups.iter().map(|(ticket, _)| *ticket).collect();
    let mut ticket_reads = automation::TicketReads::of_batch(ports, scope, &tickets)
        .await
        .unwrap_or_default();
    let works = groups
        .into_iter()
        .map(|(ticket, items)| {
            let reads = ticket_reads.remove(&ticket);
            let work = ticket_work(
                ports,
                scope,
                connection,
                items,
                company.clone(),
                reads,
                true,
            );
            (ticket, work)
        })
        .collect();
    lines.submit(scope, mark, works).await;
}

/// What [`deliver_batch`] did with a batch.
#[derive(Debug, Default)]
pub struct BatchOutcome {
    /// What happened to each handled event, in order: the first `handled.len()` events are
    /// handled (stored, duplicates, or set aside) and may be acknowledged.
    pub handled: Vec<Handled>,
    /// Why the event after them failed (retrying may help); the events after it were not
    /// tried.
    pub failed: Option<Error>,
}

/// [`deliver_or_set_aside`] for a provider's queued events of one connection, in order, with
/// group commit: each run of consecutive messages is ingested in one transaction
/// ([`crate::inbox::ports::MessageRepo::ingest_batch`]), then the automation runs for each
/// stored message in order; each run of consecutive receipts is applied in one transaction
/// ([`crate::inbox::ports::MessageRepo::apply_acks`]; should that fail, one at a time); other
/// events go one at a time. Stops at the first event that
/// fails and is not set aside, so the order per connection is kept.
pub async fn deliver_batch(
    ports: &Ports,
    scope: TenantScope,
    connection_id: WhatsappId,
    events: Vec<Queued>,
) -> BatchOutcome {
    deliver_batch_on(ports, scope, connection_id, events, &InlineLines).await
}

/// [`deliver_batch`] with the automation on `lines`: returns once the batch is committed and
/// its automation accepted by `lines`, so the connection's next events are ingested while
/// this batch's flows still run.
#[tracing::instrument(level = "debug", name = "inbox.ingest::deliver_batch", skip_all, fields(company = scope.company_id().0, connection = connection_id.0))]
pub async fn deliver_batch_on(
    ports: &Ports,
    scope: TenantScope,
    connection_id: WhatsappId,
    events: Vec<Queued>,
    lines: &dyn AutomationLines,
) -> BatchOutcome {
    let events: Vec<Queued> = events
        .into_iter()
        .map(|queued| Queued {
            event: clean_event(queued.event),
            attempts: queued.attempts,
        })
        .collect();
    let mut out = BatchOutcome::default();
    let mut next = 0;
    while next < events.len() {
        let run: Vec<&InboundMessage> = events[next..]
            .iter()
            .map_while(|queued| match &queued.event {
                InboundEvent::Message(message) if check_event(&queued.event).is_ok() => {
                    Some(message)
                }
                _ => None,
            })
            .collect();
        if run.is_empty() {
            // Receipts in a row: one transaction for all of them.
            let acks: Vec<(String, i64)> = events[next..]
                .iter()
                .map_while(|queued| match &queued.event {
                    InboundEvent::Ack { external_id, ack }
                        if check_event(&queued.event).is_ok() =>
                    {
                        Some((external_id.clone(), *ack))
                    }
                    _ => None,
                })
                .collect();
            if acks.len() > 1 {
                match ports.messages.apply_acks(scope, connection_id, &acks).await {
                    Ok(_) => {
                        out.handled.extend(
                            acks.iter()
                                .map(|_| Handled::Delivered(Delivery { outcome: None })),
                        );
                        next += acks.len();
                        continue;
                    }
                    // One at a time below, each with its own attempts.
                    Err(error) => {
                        tracing::debug!(%error, acks = acks.len(), "receipts applied one at a time");
                    }
                }
            }
            // Not a message, or a message that fails its checks: one at a time.
            let Queued { event, attempts } = events[next].clone();
            match deliver_or_set_aside_on(ports, scope, connection_id, event, attempts, lines).await
            {
                Ok(handled) => out.handled.push(handled),
                Err(error) => {
                    out.failed = Some(error);
                    return out;
                }
            }
            next += 1;
            continue;
        }
        let mark = lines.mark();
        let batch = async {
            let connection = connection_of(ports, scope, connection_id).await?;
            let batch = store_messages(ports, scope, &connection, &run, &decide).await?;
            Ok::<_, Error>((connection, batch))
        }
        .await;
        let failed = match batch {
            Ok((connection, batch)) => {
                for stored in &batch.outcomes {
                    out.handled.push(Handled::Delivered(Delivery {
                        outcome: Some(stored.outcome.clone()),
                    }));
                    next += 1;
                }
                let messages = run.iter().copied().take(batch.outcomes.len()).collect();
                automate(
                    ports,
                    scope,
                    &connection,
                    messages,
                    batch.outcomes,
                    lines,
                    mark,
                )
                .await;
                batch.failed
            }
            Err(error) => Some(error),
        };
        let Some(error) = failed else {
            continue;
        };
        // The message at `next` failed: set it aside, or stop for a retry.
        let Queued { event, attempts } = &events[next];
        match set_aside_or_fail(ports, scope, connection_id, event, error, *attempts).await {
            Ok(handled) => {
                out.handled.push(handled);
                next += 1;
            }
            Err(error) => {
                out.failed = Some(error);
                return out;
            }
        }
    }
    out
}
