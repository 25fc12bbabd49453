//! What routing reads of a queue for a ticket: the tickets waiting before it, the queue's
//! attendants with their presence and open tickets, and who was assigned last.

use chatflow_core::ids::{QueueId, TicketId, UserId};
use chatflow_core::routing::{Candidate, QueueSnapshot};
use chatflow_core::ticket::TicketLogType;
use chatflow_core::{Result, TenantScope};

use crate::Store;
use crate::error::db_error;

/// An attendant of a queue with their presence and open tickets.
#[derive(sqlx::FromRow)]
struct AttendantRow {
    id: i64,
    online: bool,
    open_tickets: i64,
}

impl Store {
    pub(super) async fn ticket_queue_snapshot(
        &self,
        scope: TenantScope,
        queue: QueueId,
        ticket: TicketId,
    ) -> Result<QueueSnapshot> {
        let company = scope.company_id().0;
        let (waiting, attendants, last_assigned): (i64, Vec<AttendantRow>, Option<i64>) =
            crate::on_pool!(self.pool(), |p| {
                let mut conn = p.acquire().await.map_err(db_error)?;
                let waiting: i64 = sqlx::query_scalar(
                    "SELECT COUNT(*) FROM tickets WHERE company_id = $1 AND queue_id = $2 \
                     AND status = 'pending' AND user_id IS NULL AND id < $3",
                )
                .bind(company)
                .bind(queue.0)
                .bind(ticket.0)
                .fetch_one(&mut *conn)
                .await
                .map_err(db_error)?;
                let attendants: Vec<AttendantRow> = sqlx::query_as(
                    "SELECT u.id, u.online, \
                     (SELECT COUNT(*) FROM tickets t WHERE t.company_id = $1 \
                       AND t.user_id = u.id AND t.status = 'open') AS open_tickets \
                     FROM user_queues uq JOIN users u ON u.id = uq.user_id \
                     WHERE uq.company_id = $1 AND uq.queue_id = $2 AND u.company_id = $1 \
                     ORDER BY u.id",
                )
                .bind(company)
                .bind(queue.0)
                .fetch_all(&mut *conn)
                .await
                .map_err(db_error)?;
                let last: Option<Option<i64>> = sqlx::query_scalar(
                    "SELECT user_id FROM ticket_logs WHERE company_id = $1 AND queue_id = $2 \
                     AND type = $3 AND user_id IS NOT NULL ORDER BY id DESC LIMIT 1",
                )
                .bind(company)
                .bind(queue.0)
                .bind(TicketLogType::Open.as_str())
                .fetch_optional(&mut *conn)
                .await
                .map_err(db_error)?;
                (waiting, attendants, last.flatten())
            });
        Ok(QueueSnapshot {
            queue_id: queue,
            waiting: u32::try_from(waiting).unwrap_or(u32::MAX),
            attendants: attendants
                .into_iter()
                .map(|a| Candidate {
                    user_id: UserId(a.id),
                    online: a.online,
                    open_tickets: u32::try_from(a.open_tickets).unwrap_or(u32::MAX),
                })
                .collect(),
            last_assigned: last_assigned.map(UserId),
        })
    }
}
