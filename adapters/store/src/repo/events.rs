//! [`EventLog`] on the store, and [`append_events!`](crate::append_events): the outbox write
//! every repository uses inside its own transaction.
//!
//! Each company's events carry gap-free sequence numbers in commit order, and become visible in
//! order: once the company's head (`event_heads.seq`, the last number handed out) is N, every
//! event up to N is visible.
//!
//! - **SQLite** has one writer at a time: a writer bumps the head by the number of events and
//!   inserts them with the numbers handed out.
//! - **PostgreSQL** numbers them at commit: a writer inserts its events with placeholder numbers
//!   (negative, from `events_pending_seq`), and a deferred trigger (migration `event_heads`)
//!   bumps the head and numbers each pending event, in the order they were inserted, when the
//!   transaction commits. The head's row is locked from there until the commit ends, so
//!   concurrent writers of one company wait on each other only for the commit itself, not for
//!   every statement (and round trip) after their first append, as they did when the bump came
//!   first.

use async_trait::async_trait;
use chatflow_core::events::{Event, StoredEvent};
use chatflow_core::inbox::ports::{EventLog, Missed};
use chatflow_core::{CompanyId, Error, Result, TenantScope};
use chrono::{DateTime, Utc};

use crate::Store;
use crate::error::db_error;

/// Whether a connection's engine numbers appended events when the transaction commits
/// (PostgreSQL) or as they are appended (SQLite); see the module's documentation.
pub trait EventNumbering {
    const AT_COMMIT: bool;
}

impl EventNumbering for sqlx::SqliteConnection {
    const AT_COMMIT: bool = false;
}

impl EventNumbering for sqlx::PgConnection {
    const AT_COMMIT: bool = true;
}

/// [`EventNumbering::AT_COMMIT`] of the connection `_conn`.
pub fn numbered_at_commit<C: EventNumbering + ?Sized>(_conn: &C) -> bool {
    C::AT_COMMIT
}

/// Appends `$events` (a `&[Event]`) for `$scope` on `$conn` (a `&mut SqliteConnection`
/// or `&mut PgConnection`, normally a transaction's). Use it inside the transaction that writes
/// the data the events describe. Evaluates to `Result<Option<i64>>`: the company's last sequence
/// number where the engine numbers events as they are appended (SQLite), `None` where they are
/// numbered at commit (PostgreSQL) or there was nothing to append.
///
/// `append_events!(@now ...)` numbers them at once on both engines and evaluates to
/// `Result<i64>`, the company's head after the append (the current one for no events): for
/// [`EventLog::append`], which answers it.
#[macro_export]
macro_rules! append_events {
    (@now $conn:expr, $scope:expr, $at:expr, $events:expr) => {{
        let conn = $conn;
        $crate::append_events!(@run conn, $scope, $at, $events, false)
            .map(|last| last.unwrap_or_default())
    }};
    (@run $conn:ident, $scope:expr, $at:expr, $events:expr, $at_commit:expr) => {{
        let at: chrono::DateTime<chrono::Utc> = $at;
        let events: &[chatflow_core::events::Event] = $events;
        let scope: chatflow_core::TenantScope = $scope;
        let at_commit: bool = $at_commit;
        async move {
            let count = events.len() as i64;
            if at_commit && count == 0 {
                return Ok::<Option<i64>, chatflow_core::Error>(None);
            }
            let last: Option<i64> = if at_commit {
                None
            } else {
                Some(
                    sqlx::query_scalar(
                        "INSERT INTO event_heads (company_id, seq) VALUES ($2, $1) \
                         ON CONFLICT (company_id) DO UPDATE SET seq = event_heads.seq + $1 \
                         RETURNING seq",
                    )
                    .bind(count)
                    .bind(scope.company_id().0)
                    .fetch_one(&mut *$conn)
                    .await
                    .map_err($crate::error::db_error)?,
                )
            };
            // One insert for up to 500 events (two parameters each, or one with placeholders:
            // a multi-row VALUES hands them out in row order).
            let mut seq = last.unwrap_or_default() - count;
            for chunk in events.chunks(500) {
                let rows: Vec<String> = (0..chunk.len())
                    .map(|k| {
                        if at_commit {
                            format!("($1, -nextval('events_pending_seq'), ${}, $2)", 3 + k)
                        } else {
                            format!("($1, ${}, ${}, $2)", 3 + 2 * k, 4 + 2 * k)
                        }
                    })
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
                    if !at_commit {
                        seq += 1;
                        query = query.bind(seq);
                    }
                    query = query.bind(payload);
                }
                query
                    .execute(&mut *$conn)
                    .await
                    .map_err($crate::error::db_error)?;
            }
            Ok(last)
        }
        .await
    }};
    ($conn:expr, $scope:expr, $at:expr, $events:expr) => {{
        let conn = $conn;
        let at_commit = $crate::repo::events::numbered_at_commit(&*conn);
        $crate::append_events!(@run conn, $scope, $at, $events, at_commit)
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
            let last = crate::append_events!(@now &mut *tx, scope, self.now(), events)?;
            tx.commit().await.map_err(db_error)?;
            Ok(last)
        })
    }

    #[tracing::instrument(level = "debug", name = "EventLog::heads", skip_all)]
    async fn heads(&self) -> Result<Vec<(CompanyId, i64)>> {
        let rows: Vec<(i64, i64)> = crate::on_pool!(self.pool(), |p| {
            sqlx::query_as(
                "SELECT c.id, COALESCE(h.seq, 0) FROM companies c \
                 LEFT JOIN event_heads h ON h.company_id = c.id ORDER BY c.id",
            )
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
                "SELECT COALESCE((SELECT h.seq FROM event_heads h WHERE h.company_id = c.id), 0), \
                 (SELECT MIN(seq) FROM events e WHERE e.company_id = c.id) \
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
                 (SELECT h.seq FROM event_heads h WHERE h.company_id = events.company_id) - $2",
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
