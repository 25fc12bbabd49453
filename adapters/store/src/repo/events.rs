//! [`EventLog`] on the store, and [`append_events!`](crate::append_events): the outbox write
//! every repository uses inside its own transaction.
//!
//! A writer bumps `companies.event_seq` by the number of events (which locks the company's row
//! until commit on PostgreSQL; SQLite has one writer anyway) and inserts the events with the
//! numbers handed out. Sequence numbers are therefore gap-free per company and become visible in
//! order: once `event_seq = N` is visible, every event up to N is.

use async_trait::async_trait;
use chatflow_core::events::{Event, StoredEvent};
use chatflow_core::inbox::ports::{EventLog, Missed};
use chatflow_core::{CompanyId, Error, Result, TenantScope};
use chrono::{DateTime, Utc};

use crate::Store;
use crate::error::db_error;

/// Appends `$events` (a `&[Event]`) for `$scope` on `$conn` (a `&mut SqliteConnection`
/// or `&mut PgConnection`, normally a transaction's), returning the last sequence number (or the
/// current one when there is nothing to append). Use it inside the transaction that writes the
/// data the events describe.
#[macro_export]
macro_rules! append_events {
    ($conn:expr, $scope:expr, $at:expr, $events:expr) => {{
        let at: chrono::DateTime<chrono::Utc> = $at;
        let events: &[chatflow_core::events::Event] = $events;
        let scope: chatflow_core::TenantScope = $scope;
        let conn = $conn;
        async move {
            let count = events.len() as i64;
            let last: i64 = sqlx::query_scalar(
                "UPDATE companies SET event_seq = event_seq + $1 WHERE id = $2 RETURNING event_seq",
            )
            .bind(count)
            .bind(scope.company_id().0)
            .fetch_one(&mut *conn)
            .await
            .map_err($crate::error::db_error)?;
            // One insert for up to 500 events (two parameters each).
            let mut seq = last - count;
            for chunk in events.chunks(500) {
                let rows: Vec<String> = (0..chunk.len())
                    .map(|k| format!("($1, ${}, ${}, $2)", 3 + 2 * k, 4 + 2 * k))
                    .collect();
                let mut query = sqlx::query(sqlx::AssertSqlSafe(format!(
                    "INSERT INTO events (company_id, seq, payload, created_at) VALUES {}",
                    rows.join(", ")
                )))
                .bind(scope.company_id().0)
                .bind(at);
                for event in chunk {
                    let payload = serde_json::to_string(event).map_err(|e| {
                        chatflow_core::Error::internal(format!("cannot serialise event: {e}"))
                    })?;
                    seq += 1;
                    query = query.bind(seq).bind(payload);
                }
                query
                    .execute(&mut *conn)
                    .await
                    .map_err($crate::error::db_error)?;
            }
            Ok::<i64, chatflow_core::Error>(last)
        }
        .await
    }};
}

#[derive(sqlx::FromRow)]
struct EventRow {
    company_id: i64,
    seq: i64,
    payload: String,
    created_at: DateTime<Utc>,
}

impl TryFrom<EventRow> for StoredEvent {
    type Error = Error;
    fn try_from(row: EventRow) -> Result<Self> {
        Ok(StoredEvent {
            company_id: CompanyId(row.company_id),
            seq: row.seq,
            event: serde_json::from_str(&row.payload)
                .map_err(|e| Error::internal(format!("unreadable event {}: {e}", row.seq)))?,
            created_at: row.created_at,
        })
    }
}

const READ: &str = "SELECT company_id, seq, payload, created_at FROM events \
     WHERE company_id = $1 AND seq > $2 ORDER BY seq LIMIT $3";

#[async_trait]
impl EventLog for Store {
    #[tracing::instrument(level = "debug", name = "EventLog::append", skip_all, fields(company = scope.company_id().0))]
    async fn append(&self, scope: TenantScope, events: &[Event]) -> Result<i64> {
        crate::on_pool!(self.pool(), |p| {
            let mut tx = p.begin().await.map_err(db_error)?;
            let last = crate::append_events!(&mut *tx, scope, self.now(), events)?;
            tx.commit().await.map_err(db_error)?;
            Ok(last)
        })
    }

    #[tracing::instrument(level = "debug", name = "EventLog::heads", skip_all)]
    async fn heads(&self) -> Result<Vec<(CompanyId, i64)>> {
        let rows: Vec<(i64, i64)> = crate::on_pool!(self.pool(), |p| {
            sqlx::query_as("SELECT id, event_seq FROM companies ORDER BY id")
                .fetch_all(p)
                .await
                .map_err(db_error)?
        });
        Ok(rows.into_iter().map(|(c, s)| (CompanyId(c), s)).collect())
    }

    #[tracing::instrument(level = "debug", name = "EventLog::read", skip_all, fields(company = scope.company_id().0))]
    async fn read(&self, scope: TenantScope, after: i64, limit: u32) -> Result<Vec<StoredEvent>> {
        let rows: Vec<EventRow> = crate::on_pool!(self.pool(), |p| {
            sqlx::query_as(READ)
                .bind(scope.company_id().0)
                .bind(after)
                .bind(i64::from(limit))
                .fetch_all(p)
                .await
                .map_err(db_error)?
        });
        rows.into_iter().map(StoredEvent::try_from).collect()
    }

    #[tracing::instrument(level = "debug", name = "EventLog::missed", skip_all, fields(company = scope.company_id().0))]
    async fn missed(&self, scope: TenantScope, after: i64, limit: u32) -> Result<Missed> {
        let (head, oldest): (i64, Option<i64>) = crate::on_pool!(self.pool(), |p| {
            sqlx::query_as(
                "SELECT c.event_seq, (SELECT MIN(seq) FROM events e WHERE e.company_id = c.id) \
                 FROM companies c WHERE c.id = $1",
            )
            .bind(scope.company_id().0)
            .fetch_optional(p)
            .await
            .map_err(db_error)?
            .unwrap_or((0, None))
        });
        if after >= head {
            return Ok(Missed::Events(Vec::new()));
        }
        // Events after `after` must all still be in the log, and fit in one answer.
        let first_needed = after + 1;
        let kept_from = oldest.unwrap_or(head + 1);
        if after < 0 || first_needed < kept_from || head - after > i64::from(limit) {
            return Ok(Missed::RefreshRequired);
        }
        Ok(Missed::Events(self.read(scope, after, limit).await?))
    }

    #[tracing::instrument(level = "debug", name = "EventLog::prune", skip_all)]
    async fn prune(&self, before: DateTime<Utc>, keep: u32) -> Result<u64> {
        let done = crate::on_pool!(self.pool(), |p| {
            sqlx::query(
                "DELETE FROM events WHERE created_at < $1 AND seq <= \
                 (SELECT c.event_seq FROM companies c WHERE c.id = events.company_id) - $2",
            )
            .bind(before)
            .bind(i64::from(keep))
            .execute(p)
            .await
            .map_err(db_error)?
            .rows_affected()
        });
        Ok(done)
    }
}
