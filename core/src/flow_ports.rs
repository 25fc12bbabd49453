//! Ports of the flow builder's storage: flows with their draft and published versions
//! ([`FlowRepo`]) and phrase campaigns ([`FlowCampaignRepo`]).
//!
//! A flow has at most one draft (the graph being edited) and a numbered list of published
//! versions; `published_version` names the live one. Publishing inserts the next version and
//! points the flow at it in one transaction, so a reader sees the old version or the new one,
//! never half of either; conversations already running keep the version they started on (their
//! `flow_runs` row names it). Every write appends its realtime event
//! (`company-{id}-flowbuilder` / `company-{id}-flowcampaign`) in the write's transaction.

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::error::Result;
use crate::flow::Flow;
use crate::ids::{TenantScope, UserId, WhatsappId};

/// A flow's id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(transparent)]
pub struct FlowId(pub i64);

/// A phrase campaign's id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(transparent)]
pub struct FlowCampaignId(pub i64);

/// A flow as lists show it: `{id, name, active, updatedAt, publishedVersion, hasDraft}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct FlowSummary {
    /// The flow's id.
    pub id: FlowId,
    /// Its name (2 to 50 characters).
    pub name: String,
    /// Whether it is active.
    pub active: bool,
    /// When the flow (name, draft or publication) last changed.
    pub updated_at: DateTime<Utc>,
    /// The live version's number, `None` while never published.
    pub published_version: Option<i64>,
    /// Whether a draft (unpublished edits) exists.
    pub has_draft: bool,
}

/// A flow with its draft and live graphs.
#[derive(Debug, Clone, PartialEq)]
pub struct FlowRecord {
    /// The flow as lists show it.
    pub summary: FlowSummary,
    /// The draft graph, when there is one.
    pub draft: Option<Flow>,
    /// The live (published) graph, when the flow was published.
    pub published: Option<Flow>,
}

/// Who published a version.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Publisher {
    /// The user's id.
    pub id: UserId,
    /// The user's name.
    pub name: String,
}

/// One published version of a flow: `{version, publishedAt, publishedBy}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct FlowVersion {
    /// The version's number, from 1.
    pub version: i64,
    /// When it was published.
    pub published_at: DateTime<Utc>,
    /// Who published it; `None` for the CLI or a deleted user.
    pub published_by: Option<Publisher>,
}

/// What publishing did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PublishOutcome {
    /// The graph is now this live version.
    Published(FlowVersion),
    /// The flow is not the company's.
    NotFound,
}

/// What deleting a flow did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FlowDeleteOutcome {
    /// The flow, its versions and its run records are gone.
    Deleted,
    /// The flow is not the company's.
    NotFound,
    /// A connection (welcome or fallback flow) or a phrase campaign uses it; nothing changed.
    InUse,
}

/// One run of a flow on a ticket, as the stats read it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FlowRunRecord {
    /// The node the run is at (or ended on).
    pub current_node: Option<String>,
    /// `running`, `waiting` or `ended`.
    pub status: String,
    /// The run's state as stored (the interpreter's `RunState` JSON).
    pub state: String,
}

/// A run of a flow on a ticket to record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewFlowRun {
    /// The ticket the flow runs on (the company's).
    pub ticket_id: crate::ids::TicketId,
    /// The flow.
    pub flow_id: FlowId,
    /// The version the run started on; it keeps it.
    pub version: i64,
    /// The run's state (the interpreter's `RunState` JSON).
    pub state: String,
    /// The node the run is at.
    pub current_node: Option<String>,
    /// `running`, `waiting` or `ended`.
    pub status: String,
    /// The run's timer to store with it (its first step may end waiting for an interval).
    pub timer: Option<RunTimer>,
    /// The ticket's bot memory as the step leaves it, written in the same transaction
    /// ([`crate::inbox::ports::TicketRepo::set_bot_memory`]'s write); `None` leaves it.
    pub memory: Option<crate::inbox::ports::BotMemory>,
}

/// A flow run's interval: stored as a [`crate::jobs::JobPayload::FlowTimer`] job for the run, in
/// the transaction that saves the run's state, so a crash never leaves a run waiting for a timer
/// nobody will fire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunTimer {
    /// When it fires.
    pub at: DateTime<Utc>,
    /// The interpreter's timer number (`Effect::Wait`).
    pub timer: u64,
}

/// A run's new state, for [`FlowRepo::save_run`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunUpdate<'a> {
    /// The interpreter's `RunState` as JSON.
    pub state: &'a str,
    /// The node the run is at.
    pub current_node: Option<&'a str>,
    /// `running`, `waiting` or `ended`.
    pub status: &'a str,
    /// The run's next timer, if the step ended waiting for one.
    pub timer: Option<RunTimer>,
    /// The ticket's bot memory as the step leaves it, written in the same transaction when the
    /// run is saved; `None` leaves it.
    pub memory: Option<&'a crate::inbox::ports::BotMemory>,
}

/// What [`FlowRepo::runs_of_tickets`] found: the runs that have not ended, and every ticket
/// (of those asked about) that ever had a run.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TicketRuns {
    pub active: Vec<FlowRun>,
    pub had_run: Vec<crate::ids::TicketId>,
}

/// A run of a flow on a ticket, as the flow runtime reads and writes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FlowRun {
    /// The run's id.
    pub id: i64,
    /// The ticket it runs on.
    pub ticket_id: crate::ids::TicketId,
    /// The flow.
    pub flow_id: FlowId,
    /// The version it started on (it keeps it).
    pub version: i64,
    /// The interpreter's `RunState` as JSON.
    pub state: String,
    /// `running`, `waiting` or `ended`.
    pub status: String,
    /// Bumped by every [`FlowRepo::save_run`]; the optimistic check of concurrent steps.
    pub revision: i64,
}

/// Flows of a company, their versions and their runs.
#[async_trait]
pub trait FlowRepo: Send + Sync {
    /// The company's flows, ordered by name then id.
    async fn list(&self, scope: TenantScope) -> Result<Vec<FlowSummary>>;
    /// One flow with its draft and live graphs; `None` when it is not the company's.
    async fn get(&self, scope: TenantScope, id: FlowId) -> Result<Option<FlowRecord>>;
    /// Creates an active, unpublished flow with `draft` as its draft (emits `create`).
    async fn create(
        &self,
        scope: TenantScope,
        name: &str,
        draft: Option<&Flow>,
    ) -> Result<FlowSummary>;
    /// Renames a flow (emits `update`); `None` when it is not the company's.
    async fn rename(
        &self,
        scope: TenantScope,
        id: FlowId,
        name: &str,
    ) -> Result<Option<FlowSummary>>;
    /// Replaces the draft (emits `update`); `None` when the flow is not the company's.
    async fn save_draft(
        &self,
        scope: TenantScope,
        id: FlowId,
        draft: &Flow,
    ) -> Result<Option<FlowSummary>>;
    /// In one transaction: stores `graph` as the next version, makes it live and, when the
    /// stored draft still equals `graph`, clears the draft (a draft saved meanwhile stays).
    /// Emits `update`.
    async fn publish(
        &self,
        scope: TenantScope,
        id: FlowId,
        graph: &Flow,
        by: Option<UserId>,
    ) -> Result<PublishOutcome>;
    /// The flow's versions, newest first (empty when the flow is not the company's).
    async fn versions(&self, scope: TenantScope, id: FlowId) -> Result<Vec<FlowVersion>>;
    /// The graph of one version; `None` when the flow or the version does not exist.
    async fn version_graph(
        &self,
        scope: TenantScope,
        id: FlowId,
        version: i64,
    ) -> Result<Option<Flow>>;
    /// Deletes a flow with its versions and runs unless something uses it (emits `delete`).
    async fn delete(&self, scope: TenantScope, id: FlowId) -> Result<FlowDeleteOutcome>;
    /// Records a run of a flow on a ticket and answers its id (the flow runtime's write). In the
    /// same transaction any other run of that ticket that has not ended is marked `ended` (a
    /// ticket runs at most one flow at a time; the database enforces it with a unique partial
    /// index). `ERR_NOT_FOUND` when the ticket or the flow is not the company's.
    async fn insert_run(&self, scope: TenantScope, run: &NewFlowRun) -> Result<i64>;
    /// The ticket's run that has not ended (status `running` or `waiting`), if any.
    async fn active_run(
        &self,
        scope: TenantScope,
        ticket: crate::ids::TicketId,
    ) -> Result<Option<FlowRun>>;
    /// One run by id (any status); `None` when it is not the company's.
    async fn run(&self, scope: TenantScope, id: i64) -> Result<Option<FlowRun>>;
    /// For each of `tickets` (an inbound batch's) that is the company's: its run that has not
    /// ended, if any, and whether any flow ever ran on it; two reads for the whole list.
    async fn runs_of_tickets(
        &self,
        scope: TenantScope,
        tickets: &[crate::ids::TicketId],
    ) -> Result<TicketRuns>;
    /// Whether any flow ever ran on the ticket (ended runs included).
    async fn ticket_had_run(
        &self,
        scope: TenantScope,
        ticket: crate::ids::TicketId,
    ) -> Result<bool>;
    /// Stores a run's new state only if its revision is still `expected_revision` (then bumps
    /// it and `updated_at`), with the run's timer job when `update.timer` says so, in one
    /// transaction; false when another step won meanwhile or the run is not the company's.
    async fn save_run(
        &self,
        scope: TenantScope,
        id: i64,
        expected_revision: i64,
        update: &RunUpdate<'_>,
    ) -> Result<bool>;
    /// The runs of one version of a flow.
    async fn runs(
        &self,
        scope: TenantScope,
        id: FlowId,
        version: i64,
    ) -> Result<Vec<FlowRunRecord>>;
}

/// A phrase campaign: a phrase that, written by a contact on a connection, starts a flow.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct FlowCampaign {
    /// The campaign's id.
    pub id: FlowCampaignId,
    /// Its name.
    pub name: String,
    /// The flow it starts.
    pub flow_id: FlowId,
    /// The connection it listens on; `None` for every connection.
    pub whatsapp_id: Option<WhatsappId>,
    /// The phrase that starts the flow.
    pub phrase: String,
    /// Whether it is on.
    pub status: bool,
}

/// The stored fields of a phrase campaign.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FlowCampaignInput {
    /// Its name.
    pub name: String,
    /// The flow it starts (the company's).
    pub flow_id: FlowId,
    /// The connection it listens on (the company's), or every connection.
    pub whatsapp_id: Option<WhatsappId>,
    /// The phrase.
    pub phrase: String,
    /// Whether it is on.
    pub status: bool,
}

/// Phrase campaigns of a company.
#[async_trait]
pub trait FlowCampaignRepo: Send + Sync {
    /// The company's campaigns, ordered by name then id.
    async fn list(&self, scope: TenantScope) -> Result<Vec<FlowCampaign>>;
    /// One campaign; `None` when it is not the company's.
    async fn get(&self, scope: TenantScope, id: FlowCampaignId) -> Result<Option<FlowCampaign>>;
    /// Creates a campaign (emits `create`).
    async fn create(&self, scope: TenantScope, input: &FlowCampaignInput) -> Result<FlowCampaign>;
    /// Replaces a campaign's fields (emits `update`); `None` when it is not the company's.
    async fn update(
        &self,
        scope: TenantScope,
        id: FlowCampaignId,
        input: &FlowCampaignInput,
    ) -> Result<Option<FlowCampaign>>;
    /// Deletes a campaign (emits `delete`); false when it is not the company's.
    async fn delete(&self, scope: TenantScope, id: FlowCampaignId) -> Result<bool>;
}
