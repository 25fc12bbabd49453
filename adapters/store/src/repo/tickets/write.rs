//! Ticket writes: create, state transitions, unread reset, the integration flag, delete and
//! close-all, each in one write transaction ([`inbox_write_tx!`](crate::inbox_write_tx)) that
//! appends its ticket events.

use chatflow_core::events::Event;
use chatflow_core::ids::{TicketId, UserId};
use chatflow_core::inbox::channel::ReadMessage;
use chatflow_core::inbox::model::{NewTicket, Ticket, TicketFilter};
use chatflow_core::ticket::{TicketLog, TicketLogType, TicketState};
use chatflow_core::{Error, ErrorCode, Result, TenantScope};

use crate::Store;
use crate::error::db_error;
use crate::repo::to_wire;

use super::list::filter_clause;
use super::load::id_list;

/// Runs `$body` in a write transaction `$tx` (`BEGIN IMMEDIATE` on SQLite), committing when it
/// evaluates to `Ok` and rolling back otherwise.
#[macro_export]
#[doc(hidden)]
macro_rules! inbox_write_tx {
    ($store:expr, |$tx:ident| $body:expr) => {
        match $store.pool() {
            $crate::DbPool::Sqlite(p) => {
                let mut $tx = p
                    .begin_with("BEGIN IMMEDIATE")
                    .await
                    .map_err($crate::error::db_error)?;
                let out = $body;
                if out.is_ok() {
                    $tx.commit().await.map_err($crate::error::db_error)?;
                }
                out
            }
            $crate::DbPool::Postgres(p) => {
                let mut $tx = p.begin().await.map_err($crate::error::db_error)?;
                let out = $body;
                if out.is_ok() {
                    $tx.commit().await.map_err($crate::error::db_error)?;
                }
                out
            }
        }
    };
}

/// A unique violation on tickets is the one-active-ticket-per-contact index.
fn ticket_write_error(error: sqlx::Error) -> Error {
    if let sqlx::Error::Database(db) = &error
        && db.is_unique_violation()
    {
        return Error::new(ErrorCode::ERR_OTHER_OPEN_TICKET);
    }
    crate::error::db_error_missing(error, ErrorCode::ERR_NO_CONTACT_FOUND)
}

pub(super) fn update_event(ticket: &Ticket) -> Event {
    Event::TicketUpdate {
        ticket: Box::new(ticket.clone()),
    }
}

impl Store {
    pub(super) async fn create_ticket(
        &self,
        scope: TenantScope,
        ticket: &NewTicket,
        uuid: uuid::Uuid,
    ) -> Result<Ticket> {
        let company = scope.company_id().0;
        let status = to_wire(&ticket.status)?;
        let channel = to_wire(&ticket.channel)?;
        crate::inbox_write_tx!(self, |tx| {
            async {
                let contact_ok: Option<i64> =
                    sqlx::query_scalar("SELECT id FROM contacts WHERE company_id = $1 AND id = $2")
                        .bind(company)
                        .bind(ticket.contact_id.0)
                        .fetch_optional(&mut *tx)
                        .await
                        .map_err(db_error)?;
                if contact_ok.is_none() {
                    return Err(Error::new(ErrorCode::ERR_NO_CONTACT_FOUND));
                }
                let at = self.now();
                let id: i64 = sqlx::query_scalar(
                    "INSERT INTO tickets (company_id, uuid, status, is_group, channel, user_id, \
                     queue_id, whatsapp_id, contact_id, created_at, updated_at) \
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10) RETURNING id",
                )
                .bind(company)
                .bind(uuid)
                .bind(&status)
                .bind(ticket.is_group)
                .bind(&channel)
                .bind(ticket.user_id.map(|u| u.0))
                .bind(ticket.queue_id.map(|q| q.0))
                .bind(ticket.whatsapp_id.map(|w| w.0))
                .bind(ticket.contact_id.0)
                .bind(at)
                .fetch_one(&mut *tx)
                .await
                .map_err(ticket_write_error)?;
                let log = TicketLog {
                    kind: TicketLogType::Create,
                    user_id: ticket.user_id,
                    queue_id: ticket.queue_id,
                };
                crate::insert_ticket_log!(tx, scope, self.now(), id, &log)?;
                let created = crate::load_ticket!(&mut *tx, scope, TicketId(id))?
                    .ok_or_else(|| Error::internal("ticket vanished after insert"))?;
                crate::append_events!(&mut *tx, scope, self.now(), &[update_event(&created)])?;
                Ok(created)
            }
            .await
        })
    }

    pub(super) async fn save_ticket_transition(
        &self,
        scope: TenantScope,
        id: TicketId,
        expected: &TicketState,
        new: &TicketState,
        logs: &[TicketLog],
        actor: Option<UserId>,
    ) -> Result<Option<Ticket>> {
        let _ = actor;
        let company = scope.company_id().0;
        let old_status = to_wire(&expected.status)?;
        let new_status = to_wire(&new.status)?;
        crate::inbox_write_tx!(self, |tx| {
            async {
                // The optimistic check: every field of the state as it was read.
                let done = sqlx::query(
                    "UPDATE tickets SET status = $1, user_id = $2, queue_id = $3, is_group = $4, \
                     amount_used_bot_queues = $5, is_transfered = $6, updated_at = $7 \
                     WHERE company_id = $8 AND id = $9 AND status = $10 \
                     AND ((user_id IS NULL AND $11 IS NULL) OR user_id = $11) \
                     AND ((queue_id IS NULL AND $12 IS NULL) OR queue_id = $12) \
                     AND amount_used_bot_queues = $13 AND is_transfered = $14",
                )
                .bind(&new_status)
                .bind(new.user_id.map(|u| u.0))
                .bind(new.queue_id.map(|q| q.0))
                .bind(new.is_group)
                .bind(i64::from(new.amount_used_bot_queues))
                .bind(new.is_transferred)
                .bind(self.now())
                .bind(company)
                .bind(id.0)
                .bind(&old_status)
                .bind(expected.user_id.map(|u| u.0))
                .bind(expected.queue_id.map(|q| q.0))
                .bind(i64::from(expected.amount_used_bot_queues))
                .bind(expected.is_transferred)
                .execute(&mut *tx)
                .await
                .map_err(ticket_write_error)?;
                if done.rows_affected() == 0 {
                    return Ok(None);
                }
                for log in logs {
                    crate::insert_ticket_log!(tx, scope, self.now(), id.0, log)?;
                }
                let ticket = crate::load_ticket!(&mut *tx, scope, id)?
                    .ok_or_else(|| Error::internal("ticket vanished after update"))?;
                crate::append_events!(&mut *tx, scope, self.now(), &[update_event(&ticket)])?;
                Ok(Some(ticket))
            }
            .await
        })
    }

    pub(super) async fn reset_ticket_unread(
        &self,
        scope: TenantScope,
        id: TicketId,
    ) -> Result<Option<Vec<ReadMessage>>> {
        let company = scope.company_id().0;
        crate::inbox_write_tx!(self, |tx| {
            async {
                let done = sqlx::query(
                    "UPDATE tickets SET unread_messages = 0 WHERE company_id = $1 AND id = $2",
                )
                .bind(company)
                .bind(id.0)
                .execute(&mut *tx)
                .await
                .map_err(db_error)?;
                if done.rows_affected() == 0 {
                    return Ok(None);
                }
                let marked: Vec<Marked> = sqlx::query_as(
                    "UPDATE messages SET read = TRUE WHERE company_id = $1 AND ticket_id = $2 \
                     AND read = FALSE RETURNING id, from_me, external_id, participant",
                )
                .bind(company)
                .bind(id.0)
                .fetch_all(&mut *tx)
                .await
                .map_err(db_error)?;
                let ticket = crate::load_ticket!(&mut *tx, scope, id)?
                    .ok_or_else(|| Error::internal("ticket vanished"))?;
                crate::append_events!(
                    &mut *tx,
                    scope,
                    self.now(),
                    &[Event::TicketUnreadReset {
                        ticket: Box::new(ticket)
                    }]
                )?;
                Ok(Some(contact_reads(marked)))
            }
            .await
        })
    }

    pub(super) async fn set_ticket_use_integration(
        &self,
        scope: TenantScope,
        id: TicketId,
        on: bool,
    ) -> Result<Option<Ticket>> {
        let company = scope.company_id().0;
        crate::inbox_write_tx!(self, |tx| {
            async {
                let done = sqlx::query(
                    "UPDATE tickets SET use_integration = $1, updated_at = $2 \
                     WHERE company_id = $3 AND id = $4",
                )
                .bind(on)
                .bind(self.now())
                .bind(company)
                .bind(id.0)
                .execute(&mut *tx)
                .await
                .map_err(db_error)?;
                if done.rows_affected() == 0 {
                    return Ok(None);
                }
                let ticket = crate::load_ticket!(&mut *tx, scope, id)?
                    .ok_or_else(|| Error::internal("ticket vanished"))?;
                crate::append_events!(&mut *tx, scope, self.now(), &[update_event(&ticket)])?;
                Ok(Some(ticket))
            }
            .await
        })
    }

    pub(super) async fn delete_ticket(&self, scope: TenantScope, id: TicketId) -> Result<bool> {
        let company = scope.company_id().0;
        crate::inbox_write_tx!(self, |tx| {
            async {
                let Some(ticket) = crate::load_ticket!(&mut *tx, scope, id)? else {
                    return Ok(false);
                };
                sqlx::query("DELETE FROM tickets WHERE company_id = $1 AND id = $2")
                    .bind(company)
                    .bind(id.0)
                    .execute(&mut *tx)
                    .await
                    .map_err(db_error)?;
                crate::append_events!(
                    &mut *tx,
                    scope,
                    self.now(),
                    &[Event::TicketDelete {
                        ticket: Box::new(ticket)
                    }]
                )?;
                Ok(true)
            }
            .await
        })
    }

    pub(super) async fn close_all_tickets(
        &self,
        scope: TenantScope,
        filter: &TicketFilter,
        actor: UserId,
    ) -> Result<u64> {
        let base = filter_clause(self.backend(), scope.company_id(), filter, true)?;
        let select = format!(
            "SELECT t.id FROM tickets t JOIN contacts c ON c.id = t.contact_id \
             WHERE {} AND t.status <> 'closed' ORDER BY t.id",
            base.sql
        );
        crate::inbox_write_tx!(self, |tx| {
            async {
                let ids: Vec<i64> =
                    crate::bind_all!(sqlx::query_scalar(sqlx::AssertSqlSafe(select)), &base.binds)
                        .fetch_all(&mut *tx)
                        .await
                        .map_err(db_error)?;
                if ids.is_empty() {
                    return Ok(0);
                }
                let at = self.now();
                sqlx::query(sqlx::AssertSqlSafe(format!(
                    "UPDATE tickets SET status = 'closed', amount_used_bot_queues = 0, \
                     updated_at = $1 WHERE company_id = $2 AND id IN ({})",
                    id_list(&ids)
                )))
                .bind(at)
                .bind(scope.company_id().0)
                .execute(&mut *tx)
                .await
                .map_err(db_error)?;
                let closed = crate::load_tickets!(&mut *tx, scope, &ids)?;
                for t in &closed {
                    let log = TicketLog {
                        kind: TicketLogType::Closed,
                        user_id: Some(actor),
                        queue_id: t.queue_id,
                    };
                    crate::insert_ticket_log!(tx, scope, self.now(), t.id.0, &log)?;
                }
                let events: Vec<Event> = closed.iter().map(update_event).collect();
                crate::append_events!(&mut *tx, scope, self.now(), &events)?;
                Ok(ids.len() as u64)
            }
            .await
        })
    }
}

/// A message just marked read: its row id, whether we sent it, its channel id and its writer.
type Marked = (i64, bool, Option<String>, Option<String>);

/// The contact's messages among those just marked read (channel id and, in a group, writer),
/// newest first, at most [`READ_RECEIPT_LIMIT`] (what the channel is told was read).
fn contact_reads(mut marked: Vec<Marked>) -> Vec<ReadMessage> {
    marked.sort_unstable_by_key(|m| std::cmp::Reverse(m.0));
    marked
        .into_iter()
        .filter(|(_, from_me, _, _)| !from_me)
        .filter_map(|(_, _, external_id, participant)| {
            Some(ReadMessage {
                external_id: external_id.filter(|id| !id.is_empty())?,
                participant: participant.filter(|p| !p.trim().is_empty()),
            })
        })
        .take(READ_RECEIPT_LIMIT)
        .collect()
}

/// The most message ids one read receipt names.
const READ_RECEIPT_LIMIT: usize = 100;
