//! [`TicketRepo`] on the store, and [`load_ticket!`](crate::load_ticket) /
//! [`load_tickets!`](crate::load_tickets): loading tickets with their contact, queue, user,
//! connection and tags inside any transaction (to render events).
//!
//! The database keeps at most one ticket that is not closed per (contact, connection) with a
//! unique partial index, so concurrent inbound messages never open two tickets. The inbox is
//! keyset-paginated by (unread first on the open and pending tabs, `updated_at`, `id`). Every
//! write appends its ticket events in the same transaction.
//!
//! One file per seam: [`load`] (the joined select, its assembly and the load macros, single
//! reads), [`query`] (dynamic SQL), [`list`] (the inbox list and its search),
//! [`write`](mod@write) (the writes and their events), [`logs`] (log and notes), [`bot`] (bot
//! memory) and [`routing`] (the queue snapshot). The [`TicketRepo`] implementation below hands
//! each call to them.

mod bot;
mod list;
mod load;
mod logs;
mod query;
mod routing;
mod write;

use async_trait::async_trait;
use chatflow_core::ids::{ContactId, QueueId, TicketId, UserId, WhatsappId};
use chatflow_core::inbox::channel::ReadMessage;
use chatflow_core::inbox::model::{
    KeysetPage, NewTicket, PageStart, Ticket, TicketFilter, TicketLogEntry, TicketNote,
};
use chatflow_core::inbox::ports::{BotMemory, TicketRepo, TicketRow};
use chatflow_core::routing::QueueSnapshot;
use chatflow_core::ticket::{TicketLog, TicketState};
use chatflow_core::{Result, TenantScope};

use crate::Store;

pub use load::ticket_select;
pub(crate) use load::{TicketJoinRow, assemble};
pub(crate) use query::Bind;

#[async_trait]
impl TicketRepo for Store {
    #[tracing::instrument(level = "debug", name = "TicketRepo::list", skip_all, fields(company = scope.company_id().0))]
    async fn list(
        &self,
        scope: TenantScope,
        filter: &TicketFilter,
        start: &PageStart,
        page_size: u32,
    ) -> Result<KeysetPage<Ticket>> {
        self.ticket_list(scope, filter, start, page_size).await
    }

    #[tracing::instrument(level = "debug", name = "TicketRepo::get", skip_all, fields(company = scope.company_id().0, ticket = id.0))]
    async fn get(&self, scope: TenantScope, id: TicketId) -> Result<Option<Ticket>> {
        self.ticket_get(scope, id).await
    }

    #[tracing::instrument(level = "debug", name = "TicketRepo::get_by_uuid", skip_all, fields(company = scope.company_id().0))]
    async fn get_by_uuid(&self, scope: TenantScope, uuid: uuid::Uuid) -> Result<Option<Ticket>> {
        self.ticket_by_uuid(scope, uuid).await
    }

    #[tracing::instrument(level = "debug", name = "TicketRepo::row", skip_all, fields(company = scope.company_id().0, ticket = id.0))]
    async fn row(&self, scope: TenantScope, id: TicketId) -> Result<Option<TicketRow>> {
        self.ticket_row(scope, id).await
    }

    #[tracing::instrument(level = "debug", name = "TicketRepo::active_for_contact", skip_all, fields(company = scope.company_id().0, contact = contact.0))]
    async fn active_for_contact(
        &self,
        scope: TenantScope,
        contact: ContactId,
        whatsapp: Option<WhatsappId>,
    ) -> Result<Option<Ticket>> {
        self.active_ticket_for_contact(scope, contact, whatsapp)
            .await
    }

    #[tracing::instrument(level = "debug", name = "TicketRepo::create", skip_all, fields(company = scope.company_id().0))]
    async fn create(
        &self,
        scope: TenantScope,
        ticket: &NewTicket,
        uuid: uuid::Uuid,
    ) -> Result<Ticket> {
        self.create_ticket(scope, ticket, uuid).await
    }

    #[tracing::instrument(level = "debug", name = "TicketRepo::save_transition", skip_all, fields(company = scope.company_id().0, ticket = id.0))]
    async fn save_transition(
        &self,
        scope: TenantScope,
        id: TicketId,
        expected: &TicketState,
        new: &TicketState,
        logs: &[TicketLog],
        actor: Option<UserId>,
    ) -> Result<Option<Ticket>> {
        self.save_ticket_transition(scope, id, expected, new, logs, actor)
            .await
    }

    #[tracing::instrument(level = "debug", name = "TicketRepo::reset_unread", skip_all, fields(company = scope.company_id().0, ticket = id.0))]
    async fn reset_unread(
        &self,
        scope: TenantScope,
        id: TicketId,
    ) -> Result<Option<Vec<ReadMessage>>> {
        self.reset_ticket_unread(scope, id).await
    }

    #[tracing::instrument(level = "debug", name = "TicketRepo::set_use_integration", skip_all, fields(company = scope.company_id().0, ticket = id.0))]
    async fn set_use_integration(
        &self,
        scope: TenantScope,
        id: TicketId,
        on: bool,
    ) -> Result<Option<Ticket>> {
        self.set_ticket_use_integration(scope, id, on).await
    }

    #[tracing::instrument(level = "debug", name = "TicketRepo::delete", skip_all, fields(company = scope.company_id().0, ticket = id.0))]
    async fn delete(&self, scope: TenantScope, id: TicketId) -> Result<bool> {
        self.delete_ticket(scope, id).await
    }

    #[tracing::instrument(level = "debug", name = "TicketRepo::close_all", skip_all, fields(company = scope.company_id().0, user = actor.0))]
    async fn close_all(
        &self,
        scope: TenantScope,
        filter: &TicketFilter,
        actor: UserId,
    ) -> Result<u64> {
        self.close_all_tickets(scope, filter, actor).await
    }

    #[tracing::instrument(level = "debug", name = "TicketRepo::add_log", skip_all, fields(company = scope.company_id().0, ticket = id.0))]
    async fn add_log(&self, scope: TenantScope, id: TicketId, log: &TicketLog) -> Result<()> {
        self.add_ticket_log(scope, id, log).await
    }

    #[tracing::instrument(level = "debug", name = "TicketRepo::logs", skip_all, fields(company = scope.company_id().0, ticket = id.0))]
    async fn logs(&self, scope: TenantScope, id: TicketId) -> Result<Vec<TicketLogEntry>> {
        self.ticket_logs(scope, id).await
    }

    #[tracing::instrument(level = "debug", name = "TicketRepo::notes", skip_all, fields(company = scope.company_id().0))]
    async fn notes(
        &self,
        scope: TenantScope,
        ticket: Option<TicketId>,
        contact: Option<ContactId>,
    ) -> Result<Vec<TicketNote>> {
        self.ticket_notes(scope, ticket, contact).await
    }

    #[tracing::instrument(level = "debug", name = "TicketRepo::add_note", skip_all, fields(company = scope.company_id().0, ticket = ticket.0, user = user.0))]
    async fn add_note(
        &self,
        scope: TenantScope,
        ticket: TicketId,
        user: UserId,
        note: &str,
    ) -> Result<Option<TicketNote>> {
        self.add_ticket_note(scope, ticket, user, note).await
    }

    #[tracing::instrument(level = "debug", name = "TicketRepo::delete_note", skip_all, fields(company = scope.company_id().0, id = id))]
    async fn delete_note(&self, scope: TenantScope, id: i64) -> Result<bool> {
        self.delete_ticket_note(scope, id).await
    }

    #[tracing::instrument(level = "debug", name = "TicketRepo::bot_memory", skip_all, fields(company = scope.company_id().0, ticket = id.0))]
    async fn bot_memory(&self, scope: TenantScope, id: TicketId) -> Result<Option<BotMemory>> {
        self.ticket_bot_memory(scope, id).await
    }

    #[tracing::instrument(level = "debug", name = "TicketRepo::bot_memories", skip_all, fields(company = scope.company_id().0, tickets = ids.len()))]
    async fn bot_memories(
        &self,
        scope: TenantScope,
        ids: &[TicketId],
    ) -> Result<Vec<(TicketId, BotMemory)>> {
        self.ticket_bot_memories(scope, ids).await
    }

    #[tracing::instrument(level = "debug", name = "TicketRepo::set_bot_memory", skip_all, fields(company = scope.company_id().0, ticket = id.0))]
    async fn set_bot_memory(
        &self,
        scope: TenantScope,
        id: TicketId,
        memory: &BotMemory,
    ) -> Result<bool> {
        self.set_ticket_bot_memory(scope, id, memory).await
    }

    #[tracing::instrument(level = "debug", name = "TicketRepo::queue_snapshot", skip_all, fields(company = scope.company_id().0, queue = queue.0, ticket = ticket.0))]
    async fn queue_snapshot(
        &self,
        scope: TenantScope,
        queue: QueueId,
        ticket: TicketId,
    ) -> Result<QueueSnapshot> {
        self.ticket_queue_snapshot(scope, queue, ticket).await
    }
}
