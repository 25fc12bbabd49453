//! The automation runtime: flows and queue routing on real conversations.
//!
//! After an inbound message is committed, [`on_inbound`] asks the pure rules of
//! [`crate::automation::trigger`] what runs before a human, then carries it out:
//! - a flow: the interpreter's [`crate::flow::step`] on the ticket's stored run (`flow_runs`,
//!   saved with an optimistic revision check so two messages never step one run twice), its
//!   effects sent as bot messages, its intervals stored as durable [`JobPayload::FlowTimer`] jobs,
//!   its ticket node handing the ticket to a queue through [`routing::flow_moved_to_queue`];
//! - the queue routing: [`routing::decide`] on a [`RoutingInput`] loaded from the ports, its
//!   ticket changes saved as one state-machine transition (optimistic, with their logs), the bot's
//!   memory on the ticket, texts sent, timers stored as [`JobPayload::RoutingTimer`] jobs.
//!
//! Timers come back through the job worker ([`on_flow_timer`], [`on_routing_timer`]); both look at
//! the ticket as it is then, so a timer that fires twice, late, or after a person took the ticket
//! does no harm. A restart loses nothing: runs and timers are rows.

use std::collections::BTreeMap;

use chrono::{DateTime, TimeDelta, Utc};

use crate::automation::{InboundFacts, Trigger, in_bot_hands, run_seed, trigger};
use crate::error::{Error, ErrorCode, Result};
use crate::flow::{self, EndReason, Input, MediaKind, RunState, Step, Waiting};
use crate::flow_ports::{FlowId, FlowRun, NewFlowRun, RunTimer, RunUpdate};
use crate::ids::{QueueId, TenantScope, TicketId};
use crate::inbox::model::{Connection, Contact, MediaType, Ticket};
use crate::inbox::ports::BotMemory;
use crate::jobs::{JobPayload, NewJob};
use crate::routing::{
    self, BotState, MenuLabels, QueueSnapshot, RoutingConnection, RoutingContact, RoutingDecision,
    RoutingEffect, RoutingInput, RoutingSettings, RoutingTicket, TimerKind,
};
use crate::service::Ports;
use crate::service::handoff::{self, HandoffKind};
use crate::service::inbox::messages::{BotMedia, send_bot_media, send_bot_texts};
use crate::service::inbox::tickets::render;
use crate::settings::{SettingsView, to_map};
use crate::ticket::{TicketState, TicketStatus};

/// How often a step of a run is retried when another step won the revision race.
const STEP_ATTEMPTS: usize = 4;

/// An inbound message as stored, for [`on_inbound`].
#[derive(Debug, Clone, Copy)]
pub struct StoredInbound<'a> {
    pub connection: &'a Connection,
    pub ticket_id: TicketId,
    pub ticket_created: bool,
    pub contact_created: bool,
    pub from_me: bool,
    /// The text (a caption for media).
    pub text: &'a str,
    /// The ticket as the ingestion left it, when nothing changed it since (read otherwise).
    pub ticket_now: Option<&'a Ticket>,
    /// The contact as the ingestion left it, likewise.
    pub contact_now: Option<&'a Contact>,
    /// The company-wide values the automation reads, shared by the messages of one batch.
    pub reads: &'a CompanyReads,
    /// The ticket's bot memory and flow runs as the batch read them, when nothing changed
    /// them since (read otherwise).
    pub ticket_reads: Option<&'a TicketReads>,
}

/// What the automation reads of one ticket (its bot memory and flow runs), read for all the
/// tickets of an inbound batch at once ([`TicketReads::of_batch`]) and used for each ticket's
/// first message of the batch: the automation may change them before the next.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TicketReads {
    pub memory: BotMemory,
    pub active_run: Option<FlowRun>,
    pub had_run: bool,
}

impl TicketReads {
    /// The reads of each of `tickets` that is the company's: three statements for the batch.
    pub async fn of_batch(
        ports: &Ports,
        scope: TenantScope,
        tickets: &[TicketId],
    ) -> Result<std::collections::HashMap<TicketId, TicketReads>> {
        let mut reads: std::collections::HashMap<TicketId, TicketReads> = ports
            .tickets
            .bot_memories(scope, tickets)
            .await?
            .into_iter()
            .map(|(id, memory)| {
                let read = TicketReads {
                    memory,
                    ..TicketReads::default()
                };
                (id, read)
            })
            .collect();
        let runs = ports.flows.runs_of_tickets(scope, tickets).await?;
        for ticket in runs.had_run {
            if let Some(read) = reads.get_mut(&ticket) {
                read.had_run = true;
            }
        }
        for run in runs.active {
            if let Some(read) = reads.get_mut(&run.ticket_id) {
                read.had_run = true;
                read.active_run = Some(run);
            }
        }
        Ok(reads)
    }
}

/// The company-wide values the automation reads (settings, queues, working hours, flow
/// campaigns), each loaded on first use and then shared by the messages of one inbound batch:
/// the batch's messages arrived together and are decided together, as the ingestion's one pass
/// decides them from one read. A fresh value (`CompanyReads::default()`) reads everything again.
#[derive(Debug, Default)]
pub struct CompanyReads {
    settings: Memo<Vec<(String, String)>>,
    queues: Memo<Vec<crate::queue::Queue>>,
    schedules: Memo<Vec<crate::queue::ScheduleRow>>,
    campaigns: Memo<Vec<crate::flow_ports::FlowCampaign>>,
}

/// A value loaded once: the first to ask loads it while the others wait for it.
#[derive(Debug)]
struct Memo<T>(futures_util::lock::Mutex<Option<std::sync::Arc<T>>>);

impl<T> Default for Memo<T> {
    fn default() -> Self {
        Self(futures_util::lock::Mutex::new(None))
    }
}

impl<T> Memo<T> {
    async fn get<F, Fut>(&self, load: F) -> Result<std::sync::Arc<T>>
    where
        F: FnOnce() -> Fut,
        Fut: std::future::Future<Output = Result<T>>,
    {
        let mut value = self.0.lock().await;
        if let Some(known) = value.as_ref() {
            return Ok(known.clone());
        }
        let loaded = std::sync::Arc::new(load().await?);
        *value = Some(loaded.clone());
        Ok(loaded)
    }
}

impl CompanyReads {
    async fn settings(
        &self,
        ports: &Ports,
        scope: TenantScope,
    ) -> Result<std::sync::Arc<Vec<(String, String)>>> {
        self.settings
            .get(|| ports.settings.company_settings(scope))
            .await
    }

    async fn queues(
        &self,
        ports: &Ports,
        scope: TenantScope,
    ) -> Result<std::sync::Arc<Vec<crate::queue::Queue>>> {
        self.queues.get(|| ports.queues.list_queues(scope)).await
    }

    async fn schedules(
        &self,
        ports: &Ports,
        scope: TenantScope,
    ) -> Result<std::sync::Arc<Vec<crate::queue::ScheduleRow>>> {
        self.schedules
            .get(|| async { Ok(ports.companies.schedules(scope).await?.unwrap_or_default()) })
            .await
    }

    async fn campaigns(
        &self,
        ports: &Ports,
        scope: TenantScope,
    ) -> Result<std::sync::Arc<Vec<crate::flow_ports::FlowCampaign>>> {
        self.campaigns
            .get(|| ports.flow_campaigns.list(scope))
            .await
    }
}

/// Runs what comes before a human for a message just stored: a flow or the queue routing.
/// Errors are the first failure met; what was done before it stays done.
#[tracing::instrument(level = "debug", name = "automation::on_inbound", skip_all, fields(company = scope.company_id().0))]
pub async fn on_inbound(
    ports: &Ports,
    scope: TenantScope,
    inbound: StoredInbound<'_>,
) -> Result<()> {
    if inbound.from_me {
        return Ok(());
    }
    let ticket = match inbound.ticket_now {
        Some(ticket) => ticket.clone(),
        None => match ports.tickets.get(scope, inbound.ticket_id).await? {
            Some(ticket) => ticket,
            None => return Ok(()),
        },
    };
    if !in_bot_hands(ticket.status, ticket.user_id) {
        return Ok(());
    }
    let contact = match inbound.contact_now {
        Some(contact) => Some(contact.clone()),
        None => ports.contacts.get(scope, ticket.contact.id).await?,
    };
    let disable_bot = contact.as_ref().is_some_and(|c| c.disable_bot);
    let (memory, active, had_run) = match inbound.ticket_reads {
        Some(read) => (
            read.memory.clone(),
            read.active_run.clone(),
            Some(read.had_run),
        ),
        None => (
            ports
                .tickets
                .bot_memory(scope, ticket.id)
                .await?
                .unwrap_or_default(),
            ports.flows.active_run(scope, ticket.id).await?,
            None,
        ),
    };
    let campaigns = inbound.reads.campaigns(ports, scope).await?;
    let flow_ran = match (&active, had_run) {
        (Some(_), _) => true,
        (None, _) if inbound.ticket_created => false,
        (None, Some(had_run)) => had_run,
        (None, None) => ports.flows.ticket_had_run(scope, ticket.id).await?,
    };
    let facts = InboundFacts {
        from_me: inbound.from_me,
        ticket_status: ticket.status,
        ticket_user: ticket.user_id,
        is_group: ticket.is_group,
        group_as_ticket: inbound.connection.group_as_ticket,
        disable_bot,
        ticket_created: inbound.ticket_created,
        contact_created: inbound.contact_created,
        flow_running: active.is_some(),
        flow_ran,
        use_integration: memory.use_integration,
        integration_session: !memory.integration.is_empty(),
        text: inbound.text,
        connection: inbound.connection.id,
        welcome_flow: inbound.connection.flow_id_welcome,
        fallback_flow: inbound.connection.flow_id_not_phrase,
        campaigns: &campaigns,
    };
    match trigger(&facts) {
        Trigger::Nothing => Ok(()),
        Trigger::StartFlow { flow_id, .. } => {
            start_flow(ports, scope, &ticket, contact.as_ref(), flow_id, &memory).await
        }
        Trigger::ContinueFlow => match active {
            Some(run) => {
                let input = Input::Message {
                    text: inbound.text.to_owned(),
                };
                step_run(ports, scope, &ticket, run, input, Some(&memory)).await
            }
            None => Ok(()),
        },
        Trigger::Integration => {
            handoff::on_message(ports, scope, &ticket, &memory, inbound.text).await
        }
        Trigger::Route => {
            let mut input = routing_input(
                ports,
                scope,
                inbound.reads,
                &ticket,
                &memory,
                inbound.connection,
                disable_bot,
            )
            .await?;
            input.message = inbound.text.to_owned();
            input.ticket.is_new = inbound.ticket_created;
            let decision =
                decide_with_snapshots(ports, scope, &ticket, &mut input, routing::decide).await?;
            apply_routing(ports, scope, &ticket, memory, &decision).await
        }
    }
}

/// A flow's interval ran out ([`JobPayload::FlowTimer`]). A run that ended or moved on ignores
/// it; a run whose ticket a person took meanwhile ends without a word.
#[tracing::instrument(level = "debug", name = "automation::on_flow_timer", skip_all, fields(company = scope.company_id().0, ticket = ticket_id.0, run_id = run_id))]
pub async fn on_flow_timer(
    ports: &Ports,
    scope: TenantScope,
    ticket_id: TicketId,
    run_id: i64,
    timer: u64,
) -> Result<()> {
    let Some(run) = ports.flows.run(scope, run_id).await? else {
        return Ok(());
    };
    if run.status == "ended" || run.ticket_id != ticket_id {
        return Ok(());
    }
    let Some(ticket) = ports.tickets.get(scope, ticket_id).await? else {
        return Ok(());
    };
    step_run(
        ports,
        scope,
        &ticket,
        run,
        Input::TimerFired { timer: Some(timer) },
        None,
    )
    .await
}

/// A routing timer fell due ([`JobPayload::RoutingTimer`]): [`routing::on_timer`] on the ticket
/// as it is now.
#[tracing::instrument(level = "debug", name = "automation::on_routing_timer", skip_all, fields(company = scope.company_id().0, ticket = ticket_id.0))]
pub async fn on_routing_timer(
    ports: &Ports,
    scope: TenantScope,
    ticket_id: TicketId,
    timer: TimerKind,
) -> Result<()> {
    let Some(ticket) = ports.tickets.get(scope, ticket_id).await? else {
        return Ok(());
    };
    if ticket.status != TicketStatus::Pending || ticket.user_id.is_some() {
        return Ok(());
    }
    let Some(connection_id) = ticket.whatsapp_id else {
        return Ok(());
    };
    let Some(connection) = ports.connections.get(scope, connection_id).await? else {
        return Ok(());
    };
    let memory = ports
        .tickets
        .bot_memory(scope, ticket.id)
        .await?
        .unwrap_or_default();
    let disable_bot = ports
        .contacts
        .get(scope, ticket.contact.id)
        .await?
        .is_some_and(|c| c.disable_bot);
    let reads = CompanyReads::default();
    let mut input = routing_input(
        ports,
        scope,
        &reads,
        &ticket,
        &memory,
        &connection,
        disable_bot,
    )
    .await?;
    let decision = decide_with_snapshots(ports, scope, &ticket, &mut input, |i| {
        routing::on_timer(timer, i)
    })
    .await?;
    apply_routing(ports, scope, &ticket, memory, &decision).await
}

// ---------------------------------------------------------------------------------------------
// Flows

/// Starts the live version of `flow_id` on the ticket (an inactive or never published flow does
/// not run). `memory` is the ticket's bot memory as read before; the run is stored with the
/// memory its first step leaves, in one write.
async fn start_flow(
    ports: &Ports,
    scope: TenantScope,
    ticket: &Ticket,
    contact: Option<&Contact>,
    flow_id: FlowId,
    memory: &BotMemory,
) -> Result<()> {
    let Some(record) = ports.flows.get(scope, flow_id).await? else {
        return Ok(());
    };
    let (Some(version), Some(graph)) = (record.summary.published_version, record.published) else {
        return Ok(());
    };
    if !record.summary.active {
        return Ok(());
    }
    let now = ports.clock.now();
    let seed = run_seed(ticket.uuid, now.timestamp_millis().unsigned_abs());
    let step = flow::start(&graph, seed, contact_vars(ticket, contact));
    let state = state_json(&step.state)?;
    let after = flow_memory(memory, &step);
    ports
        .flows
        .insert_run(
            scope,
            &NewFlowRun {
                ticket_id: ticket.id,
                flow_id,
                version,
                state,
                current_node: step.state.node.clone(),
                status: run_status(&step.state).to_owned(),
                timer: run_timer(&step, now),
                memory: (after != *memory).then(|| after.clone()),
            },
        )
        .await?;
    apply_flow(ports, scope, ticket, (flow_id, version), &step, after, true).await
}

/// Feeds `input` to a stored run, retrying on a lost revision race, then applies the effects.
/// `memory` is the ticket's bot memory when the caller read it (read here otherwise); the run
/// is saved with the memory its step leaves, in one write.
async fn step_run(
    ports: &Ports,
    scope: TenantScope,
    ticket: &Ticket,
    mut run: FlowRun,
    input: Input,
    memory: Option<&BotMemory>,
) -> Result<()> {
    let person_took_it = ticket.status != TicketStatus::Pending || ticket.user_id.is_some();
    let memory = match memory {
        Some(memory) => memory.clone(),
        // Ending the run leaves the memory as it is: nothing to read.
        None if person_took_it => BotMemory::default(),
        None => ports
            .tickets
            .bot_memory(scope, ticket.id)
            .await?
            .unwrap_or_default(),
    };
    for _ in 0..STEP_ATTEMPTS {
        let state: RunState = serde_json::from_str(&run.state)
            .map_err(|e| Error::internal(format!("flow run {} state: {e}", run.id)))?;
        if person_took_it {
            // The conversation is a person's now: the run ends where it is.
            let mut ended = state;
            ended.waiting = Waiting::Nothing;
            ended.finished.get_or_insert(EndReason::Completed);
            let saved = ports
                .flows
                .save_run(
                    scope,
                    run.id,
                    run.revision,
                    &RunUpdate {
                        state: &state_json(&ended)?,
                        current_node: ended.node.as_deref(),
                        status: "ended",
                        timer: None,
                        memory: None,
                    },
                )
                .await?;
            if saved {
                return Ok(());
            }
        } else {
            let Some(graph) = ports
                .flows
                .version_graph(scope, run.flow_id, run.version)
                .await?
            else {
                return Ok(());
            };
            let step = flow::step(&graph, state, input.clone());
            let after = flow_memory(&memory, &step);
            let saved = ports
                .flows
                .save_run(
                    scope,
                    run.id,
                    run.revision,
                    &RunUpdate {
                        state: &state_json(&step.state)?,
                        current_node: step.state.node.as_deref(),
                        status: run_status(&step.state),
                        timer: run_timer(&step, ports.clock.now()),
                        memory: (after != memory).then_some(&after),
                    },
                )
                .await?;
            if saved {
                let by_message = matches!(input, Input::Message { .. });
                return apply_flow(
                    ports,
                    scope,
                    ticket,
                    (run.flow_id, run.version),
                    &step,
                    after,
                    by_message,
                )
                .await;
            }
        }
        match ports.flows.run(scope, run.id).await? {
            Some(fresh) if fresh.status != "ended" => run = fresh,
            _ => return Ok(()),
        }
    }
    Err(Error::with_detail(
        ErrorCode::ERR_INTERNAL,
        "a flow run kept changing under its step",
    ))
}

/// The ticket's bot memory after a flow's step: the flow holds the conversation while its run
/// goes on (`useIntegration`), the bot waits while the run waits for a reply (`isBot`), an
/// integration the flow replaced lets go, and an integration the step starts holds it.
fn flow_memory(before: &BotMemory, step: &Step) -> BotMemory {
    let mut memory = before.clone();
    memory.use_integration = !step.state.is_finished()
        || step.effects.iter().any(|e| {
            matches!(
                e,
                flow::Effect::StartTypebot { .. } | flow::Effect::StartOpenAi { .. }
            )
        });
    memory.is_bot = matches!(step.state.waiting, Waiting::Reply { .. });
    memory.integration.clear();
    memory
}

/// The timer a step asks for (its `Wait`), due `seconds` after `now`; stored with the run.
fn run_timer(step: &Step, now: DateTime<Utc>) -> Option<RunTimer> {
    step.effects.iter().find_map(|e| match e {
        flow::Effect::Wait { seconds, timer } => Some(RunTimer {
            at: now + TimeDelta::seconds(i64::from(*seconds)),
            timer: *timer,
        }),
        _ => None,
    })
}

/// Carries out a saved step's effects in order (its timer and the ticket's bot memory `memory`
/// were stored with the run); keeps going after a failed send and answers the first error.
/// A `typebot` or `openai` node hands the conversation to its integration
/// ([`handoff::start`]).
async fn apply_flow(
    ports: &Ports,
    scope: TenantScope,
    ticket: &Ticket,
    origin: (FlowId, i64),
    step: &Step,
    memory: BotMemory,
    by_message: bool,
) -> Result<()> {
    let mut first_error = None;
    let mut keep = |r: Result<()>| {
        if let Err(e) = r {
            first_error.get_or_insert(e);
        }
    };
    let mut queue = None;
    let mut handoff = None;
    // The step's texts go out together (one write to store them, one to record them sent),
    // also across the nodes they come from (a greeting, then a menu's question): only a file
    // between them sends the texts before it first, so the contact sees them in order.
    let mut texts: Vec<String> = Vec::new();
    for effect in &step.effects {
        match effect {
            flow::Effect::SendText { text } => texts.push(text.clone()),
            flow::Effect::SendMedia {
                kind, url, name, ..
            } => {
                if !texts.is_empty() {
                    keep(send_bot_texts(ports, scope, ticket, &std::mem::take(&mut texts)).await);
                }
                keep(send_flow_media(ports, scope, ticket, *kind, url, name.as_deref()).await);
            }
            flow::Effect::MoveToQueue { queue_id, .. } => queue = Some(*queue_id),
            flow::Effect::StartTypebot { node_id, .. } => {
                handoff = Some((node_id.as_str(), HandoffKind::Typebot));
            }
            flow::Effect::StartOpenAi { node_id, .. } => {
                handoff = Some((node_id.as_str(), HandoffKind::Assistant));
            }
            flow::Effect::EnterNode { .. }
            | flow::Effect::Ask { .. }
            | flow::Effect::InvalidReply { .. }
            | flow::Effect::SetVariable { .. }
            | flow::Effect::Ignored { .. }
            | flow::Effect::Wait { .. }
            | flow::Effect::End { .. } => {}
        }
    }
    if !texts.is_empty() {
        keep(send_bot_texts(ports, scope, ticket, &texts).await);
    }
    if let Some(queue_id) = queue {
        keep(flow_to_queue(ports, scope, ticket.id, queue_id, memory).await);
    } else if let Some((node_id, kind)) = handoff {
        keep(handoff::start(ports, scope, ticket, origin, node_id, kind, by_message).await);
    }
    first_error.map_or(Ok(()), Err)
}

/// A flow's ticket node: the ticket enters the queue and is handed over there.
pub(crate) async fn flow_to_queue(
    ports: &Ports,
    scope: TenantScope,
    ticket_id: TicketId,
    queue_id: QueueId,
    memory: BotMemory,
) -> Result<()> {
    let Some(ticket) = ports.tickets.get(scope, ticket_id).await? else {
        return Ok(());
    };
    let Some(connection_id) = ticket.whatsapp_id else {
        return Ok(());
    };
    let Some(connection) = ports.connections.get(scope, connection_id).await? else {
        return Ok(());
    };
    let reads = CompanyReads::default();
    let mut input =
        routing_input(ports, scope, &reads, &ticket, &memory, &connection, false).await?;
    let decision = decide_with_snapshots(ports, scope, &ticket, &mut input, |i| {
        routing::flow_moved_to_queue(queue_id, i)
    })
    .await?;
    apply_routing(ports, scope, &ticket, memory, &decision).await
}

async fn send_flow_media(
    ports: &Ports,
    scope: TenantScope,
    ticket: &Ticket,
    kind: MediaKind,
    stored_name: &str,
    name: Option<&str>,
) -> Result<()> {
    let bytes = ports
        .media
        .get(scope, stored_name)
        .await?
        .ok_or_else(|| Error::with_detail(ErrorCode::ERR_NOT_FOUND, "a flow's file is gone"))?;
    let file_name = name
        .filter(|n| !n.trim().is_empty())
        .unwrap_or(stored_name)
        .to_owned();
    let media_type = match kind {
        MediaKind::Image => MediaType::Image,
        MediaKind::Audio => MediaType::Audio,
        MediaKind::Video => MediaType::Video,
    };
    send_bot_media(
        ports,
        scope,
        ticket,
        BotMedia {
            media_type,
            stored_name: stored_name.to_owned(),
            mime_type: mime_of(&file_name, kind).to_owned(),
            file_name,
            bytes,
        },
    )
    .await
    .map(|_| ())
}

/// The content type of a flow's file, by its name (flows accept png, jpg, ogg, mp3, opus, mp4),
/// or by the node's kind when the name says nothing known.
fn mime_of(file_name: &str, kind: MediaKind) -> &'static str {
    match crate::media::mime_of(file_name) {
        crate::media::UNKNOWN => match kind {
            MediaKind::Image => "image/jpeg",
            MediaKind::Audio => "audio/ogg",
            MediaKind::Video => "video/mp4",
        },
        known => known,
    }
}

/// The contact's fields a run starts with: `name`, `number`, `email`, the ticket's `protocol`
/// and every extra field by its name (the core adds the Portuguese aliases).
fn contact_vars(ticket: &Ticket, contact: Option<&Contact>) -> BTreeMap<String, String> {
    let mut vars = BTreeMap::new();
    vars.insert("name".to_owned(), ticket.contact.name.clone());
    vars.insert("number".to_owned(), ticket.contact.number.clone());
    vars.insert("protocol".to_owned(), ticket.id.to_string());
    if let Some(contact) = contact {
        vars.insert("email".to_owned(), contact.email.clone());
        for extra in &contact.extra_info {
            vars.entry(extra.name.clone())
                .or_insert_with(|| extra.value.clone());
        }
    }
    vars
}

fn state_json(state: &RunState) -> Result<String> {
    serde_json::to_string(state).map_err(|e| Error::internal(format!("flow state: {e}")))
}

/// The `flow_runs.status` of a state.
fn run_status(state: &RunState) -> &'static str {
    if state.is_finished() {
        "ended"
    } else if state.waiting == Waiting::Nothing {
        "running"
    } else {
        "waiting"
    }
}

// ---------------------------------------------------------------------------------------------
// Queue routing

/// Everything routing reads, loaded from the ports (queue snapshots are added by
/// [`decide_with_snapshots`] only where the decision needs them).
async fn routing_input(
    ports: &Ports,
    scope: TenantScope,
    reads: &CompanyReads,
    ticket: &Ticket,
    memory: &BotMemory,
    connection: &Connection,
    disable_bot: bool,
) -> Result<RoutingInput> {
    let stored = reads.settings(ports, scope).await?;
    let map = to_map(&stored);
    let view = SettingsView::new(&map);
    let time_zone = view.time_zone();
    let queues = reads.queues(ports, scope).await?.as_ref().clone();
    let company_schedules = reads.schedules(ports, scope).await?.as_ref().clone();
    let bot = if memory.bot_state.trim().is_empty() {
        BotState::default()
    } else {
        serde_json::from_str(&memory.bot_state).unwrap_or_default()
    };
    Ok(RoutingInput {
        ticket: RoutingTicket {
            status: ticket.status,
            queue_id: ticket.queue_id,
            user_id: ticket.user_id,
            is_group: ticket.is_group,
            amount_used_bot_queues: u32::try_from(ticket.amount_used_bot_queues.max(0))
                .unwrap_or(u32::MAX),
            bot,
            is_new: false,
            last_bot_message_at: memory.last_bot_message_at,
            using_integration: memory.use_integration,
        },
        contact: RoutingContact {
            disable_bot,
            wallet_owner: None,
        },
        connection: RoutingConnection::from_connection(connection),
        queues,
        settings: RoutingSettings::from_view(&view),
        company_schedules,
        time_zone,
        message: String::new(),
        from_me: false,
        now: ports.clock.now(),
        snapshots: Vec::new(),
        labels: MenuLabels::default(),
    })
}

/// Decides once without snapshots; when the decision hands the ticket to a queue that rotates
/// or tells positions, loads those queues' snapshots and decides again (the rules are pure, so
/// the second answer is the one that counts).
async fn decide_with_snapshots(
    ports: &Ports,
    scope: TenantScope,
    ticket: &Ticket,
    input: &mut RoutingInput,
    decide: impl Fn(&RoutingInput) -> RoutingDecision,
) -> Result<RoutingDecision> {
    let first = decide(input);
    let mut wanted: Vec<QueueId> = first
        .effects
        .iter()
        .filter_map(|e| match e {
            RoutingEffect::SetQueue { queue_id } => Some(*queue_id),
            RoutingEffect::ScheduleTimer {
                kind: TimerKind::Rotation { queue_id },
                ..
            } => Some(*queue_id),
            _ => None,
        })
        .chain(input.ticket.queue_id)
        .collect();
    wanted.sort();
    wanted.dedup();
    let settings = &input.settings;
    wanted.retain(|id| {
        settings.user_random
            || settings.send_queue_position
            || input.queue(*id).is_some_and(|q| q.ativar_roteador)
    });
    if wanted.is_empty() {
        return Ok(first);
    }
    let mut snapshots: Vec<QueueSnapshot> = Vec::with_capacity(wanted.len());
    for queue_id in wanted {
        snapshots.push(
            ports
                .tickets
                .queue_snapshot(scope, queue_id, ticket.id)
                .await?,
        );
    }
    input.snapshots = snapshots;
    Ok(decide(input))
}

/// Carries out a routing decision: the ticket's changes as one transition (with its logs), the
/// bot's memory, then the texts, then the timers. Nothing is sent when someone changed the
/// ticket meanwhile (the transition's optimistic check failed).
async fn apply_routing(
    ports: &Ports,
    scope: TenantScope,
    ticket: &Ticket,
    mut memory: BotMemory,
    decision: &RoutingDecision,
) -> Result<()> {
    if decision.is_nothing() {
        return Ok(());
    }
    let now = ports.clock.now();
    let Some(row) = ports.tickets.row(scope, ticket.id).await? else {
        return Ok(());
    };
    let mut state: TicketState = row.state.clone();
    let mut logs = Vec::new();
    let mut texts = Vec::new();
    let mut timers: Vec<(DateTime<Utc>, TimerKind)> = Vec::new();
    let before = memory.clone();
    for effect in &decision.effects {
        match effect {
            RoutingEffect::SendText { body } => texts.push(body.clone()),
            RoutingEffect::SendFileList { .. } => {
                // File lists are not stored by the product yet: nothing to send.
            }
            RoutingEffect::SetQueue { queue_id } => state.queue_id = Some(*queue_id),
            RoutingEffect::AssignUser { user_id } => {
                state.user_id = Some(*user_id);
                state.status = if state.is_group {
                    TicketStatus::Group
                } else {
                    TicketStatus::Open
                };
            }
            RoutingEffect::CloseTicket => state.status = TicketStatus::Closed,
            RoutingEffect::StartIntegration { .. } => memory.use_integration = true,
            RoutingEffect::SetBotState { state: bot } => {
                memory.bot_state = serde_json::to_string(bot)
                    .map_err(|e| Error::internal(format!("bot state: {e}")))?;
                memory.is_bot = bot.awaits_reply();
            }
            RoutingEffect::IncrementBotCounter => {
                state.amount_used_bot_queues = state.amount_used_bot_queues.saturating_add(1);
                memory.last_bot_message_at = Some(now);
            }
            RoutingEffect::ResetBotCounter => state.amount_used_bot_queues = 0,
            RoutingEffect::ScheduleTimer { at, kind } => timers.push((*at, *kind)),
            RoutingEffect::Log { log } => logs.push(*log),
            RoutingEffect::Nothing => {}
        }
    }
    // Timers first: a crash after this point leaves a timer that finds the ticket as it is
    // (`on_timer` checks), never a ticket waiting for a timer that was never stored.
    if !timers.is_empty() {
        let jobs: Vec<NewJob> = timers
            .into_iter()
            .map(|(at, timer)| NewJob {
                payload: JobPayload::RoutingTimer {
                    ticket_id: ticket.id,
                    timer,
                },
                run_at: at,
            })
            .collect();
        ports.jobs.enqueue(scope, &jobs).await?;
    }
    let mut current = ticket.clone();
    if state != row.state || !logs.is_empty() {
        match ports
            .tickets
            .save_transition(scope, ticket.id, &row.state, &state, &logs, None)
            .await?
        {
            Some(saved) => current = saved,
            None => return Ok(()),
        }
    }
    if state.status != TicketStatus::Pending {
        memory.is_bot = false;
    }
    if memory != before {
        ports
            .tickets
            .set_bot_memory(scope, ticket.id, &memory)
            .await?;
    }
    let bodies: Vec<String> = texts
        .iter()
        .map(|text| render(text, &current, None))
        .collect();
    send_bot_texts(ports, scope, &current, &bodies).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_status_follows_the_state() {
        let mut state = RunState::default();
        assert_eq!(run_status(&state), "running");
        state.waiting = Waiting::Reply {
            kind: flow::ReplyKind::Menu,
            variable: None,
        };
        assert_eq!(run_status(&state), "waiting");
        state.finished = Some(EndReason::MovedToQueue);
        assert_eq!(run_status(&state), "ended");
    }

    #[test]
    fn flow_files_get_their_content_type() {
        assert_eq!(mime_of("a.PNG", MediaKind::Image), "image/png");
        assert_eq!(mime_of("voz.opus", MediaKind::Audio), "audio/ogg");
        assert_eq!(mime_of("x", MediaKind::Video), "video/mp4");
    }
}
