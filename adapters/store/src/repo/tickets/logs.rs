//! A ticket's log (who opened, transferred, closed it, and when) and its notes.

use chatflow_core::ids::{ContactId, QueueId, TicketId, UserId};
use chatflow_core::inbox::model::{TicketLogEntry, TicketNote, TicketUser};
use chatflow_core::ports::QueueSummary;
use chatflow_core::ticket::TicketLog;
use chatflow_core::{Error, ErrorCode, Result, TenantScope};
use chrono::{DateTime, Utc};

use crate::Store;
use crate::error::db_error;
use crate::repo::from_wire;

/// Writes a log entry on `$conn`.
#[macro_export]
#[doc(hidden)]
macro_rules! insert_ticket_log {
    ($conn:expr, $scope:expr, $at:expr, $ticket:expr, $log:expr) => {{
        let at: chrono::DateTime<chrono::Utc> = $at;
        let log: &chatflow_core::ticket::TicketLog = $log;
        let scope: chatflow_core::TenantScope = $scope;
        let ticket: i64 = $ticket;
        sqlx::query(
            "INSERT INTO ticket_logs (company_id, ticket_id, type, user_id, queue_id, created_at) \
             VALUES ($1, $2, $3, $4, $5, $6)",
        )
        .bind(scope.company_id().0)
        .bind(ticket)
        .bind(log.kind.as_str())
        .bind(log.user_id.map(|u| u.0))
        .bind(log.queue_id.map(|q| q.0))
        .bind(at)
        .execute(&mut *$conn)
        .await
        .map_err($crate::error::db_error)
    }};
}

#[derive(sqlx::FromRow)]
struct LogRow {
    id: i64,
    kind: String,
    user_id: Option<i64>,
    user_name: Option<String>,
    queue_id: Option<i64>,
    queue_name: Option<String>,
    queue_color: Option<String>,
    created_at: DateTime<Utc>,
}

#[derive(sqlx::FromRow)]
struct NoteRow {
    id: i64,
    note: String,
    user_id: Option<i64>,
    user_name: Option<String>,
    ticket_id: i64,
    contact_id: i64,
    created_at: DateTime<Utc>,
}

impl From<NoteRow> for TicketNote {
    fn from(row: NoteRow) -> Self {
        TicketNote {
            id: row.id,
            note: row.note,
            user: match (row.user_id, row.user_name) {
                (Some(id), Some(name)) => Some(TicketUser {
                    id: UserId(id),
                    name,
                }),
                _ => None,
            },
            ticket_id: TicketId(row.ticket_id),
            contact_id: ContactId(row.contact_id),
            created_at: row.created_at,
        }
    }
}

const NOTE_SELECT: &str = "SELECT n.id, n.note, n.user_id, u.name AS user_name, n.ticket_id, \
     n.contact_id, n.created_at FROM ticket_notes n LEFT JOIN users u ON u.id = n.user_id";

impl Store {
    pub(super) async fn add_ticket_log(
        &self,
        scope: TenantScope,
        id: TicketId,
        log: &TicketLog,
    ) -> Result<()> {
        crate::on_pool!(self.pool(), |p| {
            let mut conn = p.acquire().await.map_err(db_error)?;
            let exists: Option<i64> =
                sqlx::query_scalar("SELECT id FROM tickets WHERE company_id = $1 AND id = $2")
                    .bind(scope.company_id().0)
                    .bind(id.0)
                    .fetch_optional(&mut *conn)
                    .await
                    .map_err(db_error)?;
            if exists.is_none() {
                return Err(Error::new(ErrorCode::ERR_NO_TICKET_FOUND));
            }
            crate::insert_ticket_log!(conn, scope, self.now(), id.0, log)?;
            Ok(())
        })
    }

    pub(super) async fn ticket_logs(
        &self,
        scope: TenantScope,
        id: TicketId,
    ) -> Result<Vec<TicketLogEntry>> {
        let rows: Vec<LogRow> = crate::on_pool!(self.pool(), |p| {
            sqlx::query_as(
                "SELECT l.id, l.type AS kind, l.user_id, u.name AS user_name, l.queue_id, \
                 q.name AS queue_name, q.color AS queue_color, l.created_at \
                 FROM ticket_logs l LEFT JOIN users u ON u.id = l.user_id \
                 LEFT JOIN queues q ON q.id = l.queue_id \
                 WHERE l.company_id = $1 AND l.ticket_id = $2 ORDER BY l.created_at, l.id",
            )
            .bind(scope.company_id().0)
            .bind(id.0)
            .fetch_all(p)
            .await
            .map_err(db_error)?
        });
        rows.into_iter()
            .map(|row| {
                Ok(TicketLogEntry {
                    id: row.id,
                    kind: from_wire("ticket_logs.type", &row.kind)?,
                    user: match (row.user_id, row.user_name) {
                        (Some(id), Some(name)) => Some(TicketUser {
                            id: UserId(id),
                            name,
                        }),
                        _ => None,
                    },
                    queue: match (row.queue_id, row.queue_name) {
                        (Some(id), Some(name)) => Some(QueueSummary {
                            id: QueueId(id),
                            name,
                            color: row.queue_color.unwrap_or_default(),
                        }),
                        _ => None,
                    },
                    created_at: row.created_at,
                })
            })
            .collect()
    }

    pub(super) async fn ticket_notes(
        &self,
        scope: TenantScope,
        ticket: Option<TicketId>,
        contact: Option<ContactId>,
    ) -> Result<Vec<TicketNote>> {
        let rows: Vec<NoteRow> = crate::on_pool!(self.pool(), |p| {
            sqlx::query_as(sqlx::AssertSqlSafe(format!(
                "{NOTE_SELECT} WHERE n.company_id = $1 \
                 AND ($2 IS NULL OR n.ticket_id = $2) AND ($3 IS NULL OR n.contact_id = $3) \
                 ORDER BY n.created_at DESC, n.id DESC"
            )))
            .bind(scope.company_id().0)
            .bind(ticket.map(|t| t.0))
            .bind(contact.map(|c| c.0))
            .fetch_all(p)
            .await
            .map_err(db_error)?
        });
        Ok(rows.into_iter().map(TicketNote::from).collect())
    }

    pub(super) async fn add_ticket_note(
        &self,
        scope: TenantScope,
        ticket: TicketId,
        user: UserId,
        note: &str,
    ) -> Result<Option<TicketNote>> {
        let company = scope.company_id().0;
        crate::inbox_write_tx!(self, |tx| {
            async {
                let contact: Option<i64> = sqlx::query_scalar(
                    "SELECT contact_id FROM tickets WHERE company_id = $1 AND id = $2",
                )
                .bind(company)
                .bind(ticket.0)
                .fetch_optional(&mut *tx)
                .await
                .map_err(db_error)?;
                let Some(contact) = contact else {
                    return Ok(None);
                };
                let at = self.now();
                let id: i64 = sqlx::query_scalar(
                    "INSERT INTO ticket_notes (company_id, note, user_id, ticket_id, contact_id, \
                     created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $6) RETURNING id",
                )
                .bind(company)
                .bind(note)
                .bind(user.0)
                .bind(ticket.0)
                .bind(contact)
                .bind(at)
                .fetch_one(&mut *tx)
                .await
                .map_err(db_error)?;
                let row: NoteRow = sqlx::query_as(sqlx::AssertSqlSafe(format!(
                    "{NOTE_SELECT} WHERE n.company_id = $1 AND n.id = $2"
                )))
                .bind(company)
                .bind(id)
                .fetch_one(&mut *tx)
                .await
                .map_err(db_error)?;
                Ok(Some(TicketNote::from(row)))
            }
            .await
        })
    }

    pub(super) async fn delete_ticket_note(&self, scope: TenantScope, id: i64) -> Result<bool> {
        let done = crate::on_pool!(self.pool(), |p| {
            sqlx::query("DELETE FROM ticket_notes WHERE company_id = $1 AND id = $2")
                .bind(scope.company_id().0)
                .bind(id)
                .execute(p)
                .await
                .map_err(db_error)?
                .rows_affected()
        });
        Ok(done > 0)
    }
}
