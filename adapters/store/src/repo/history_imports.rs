//! [`HistoryImportRepo`] on the store: the queue of each connection's import of old messages
//! (`history_imports`, one row per queued message, and `history_import_runs`, one row per
//! import under way), the connection's `statusImportMessages` and the import's job.
//!
//! A submodule of `connections` for its row loader: every change of the status appends the
//! connection's `whatsapp` update in the same transaction.

use async_trait::async_trait;
use chatflow_core::events::Event;
use chatflow_core::inbox::channel::InboundMessage;
use chatflow_core::inbox::history::ImportState;
use chatflow_core::inbox::ports::HistoryImportRepo;
use chatflow_core::jobs::JobPayload;
use chatflow_core::{Error, ErrorCode, Result, TenantScope, WhatsappId};
use chrono::{DateTime, Utc};
use sqlx::AssertSqlSafe;

use super::{COLUMNS, ConnectionRow, QueueLinkRow, assemble, updates};
use crate::Store;
use crate::error::db_error;
use crate::repo::ingest::{ROWS_PER_STATEMENT, row_list};

/// The import's counts and run, as [`state!`] reads them.
#[derive(sqlx::FromRow)]
struct StateRow {
    total: i64,
    written: i64,
    last_part_at: DateTime<Utc>,
    progress: i64,
}

impl From<StateRow> for ImportState {
    fn from(row: StateRow) -> Self {
        ImportState {
            total: u64::try_from(row.total).unwrap_or(0),
            written: u64::try_from(row.written).unwrap_or(0),
            last_part_at: row.last_part_at,
            progress: u32::try_from(row.progress.clamp(0, 100)).unwrap_or(0),
        }
    }
}

/// The state of connection `$id` of `$company` on `$conn`: `Result<Option<ImportState>>`.
macro_rules! state {
    ($conn:expr, $company:expr, $id:expr) => {{
        let row: Option<StateRow> = sqlx::query_as(
            "SELECT (SELECT COUNT(*) FROM history_imports h WHERE h.whatsapp_id = r.whatsapp_id) \
             AS total, \
             (SELECT COUNT(*) FROM history_imports h WHERE h.whatsapp_id = r.whatsapp_id \
             AND h.written) AS written, r.last_part_at, r.progress \
             FROM history_import_runs r WHERE r.company_id = $1 AND r.whatsapp_id = $2",
        )
        .bind($company)
        .bind($id)
        .fetch_optional($conn)
        .await
        .map_err(db_error)?;
        Ok::<Option<ImportState>, Error>(row.map(ImportState::from))
    }};
}

/// Adds the import job of connection `$id` due at `$at` on `$conn`, unless one waits unclaimed
/// and due by then.
macro_rules! wake {
    ($conn:expr, $company:expr, $id:expr, $at:expr, $now:expr) => {{
        let payload = serde_json::to_string(&JobPayload::ImportHistory {
            whatsapp_id: WhatsappId($id),
        })
        .map_err(|e| Error::internal(format!("cannot serialise job: {e}")))?;
        let kind = JobPayload::ImportHistory {
            whatsapp_id: WhatsappId($id),
        }
        .kind();
        let at: DateTime<Utc> = $at;
        let now: DateTime<Utc> = $now;
        sqlx::query(
            "INSERT INTO jobs (company_id, kind, payload, run_at, created_at) \
             SELECT $1, $2, $3, $4, $5 WHERE NOT EXISTS (SELECT 1 FROM jobs \
             WHERE kind = $2 AND payload = $3 AND failed_at IS NULL AND run_at <= $4 \
             AND (locked_until IS NULL OR locked_until <= $5))",
        )
        .bind($company)
        .bind(kind)
        .bind(payload)
        .bind(at)
        .bind(now)
        .execute($conn)
        .await
        .map_err(db_error)?;
        Ok::<(), Error>(())
    }};
}

/// Sets `statusImportMessages` of connection `$id` to `$status` on `$conn`.
macro_rules! set_status {
    ($conn:expr, $company:expr, $id:expr, $status:expr) => {{
        sqlx::query(
            "UPDATE whatsapps SET status_import_messages = $3 WHERE company_id = $1 AND id = $2",
        )
        .bind($company)
        .bind($id)
        .bind($status)
        .execute($conn)
        .await
        .map_err(db_error)
        .map(|_| ())
    }};
}

/// Closes the imported tickets of connection `$id` still pending on `$conn` (no messages go to
/// the contacts): `Result<u64>`, how many.
macro_rules! close_pending {
    ($conn:expr, $company:expr, $id:expr, $now:expr) => {{
        let done = sqlx::query(
            "UPDATE tickets SET status = 'closed', updated_at = $3 WHERE company_id = $1 \
             AND whatsapp_id = $2 AND imported AND status = 'pending'",
        )
        .bind($company)
        .bind($id)
        .bind($now)
        .execute($conn)
        .await
        .map_err(db_error)?;
        Ok::<u64, Error>(done.rows_affected())
    }};
}

/// Appends the `whatsapp` update of connection `$id` and `$events` on `$conn`.
macro_rules! announce {
    ($conn:expr, $scope:expr, $company:expr, $id:expr, $now:expr, $events:expr) => {{
        let loaded = load!(&mut *$conn, Some($company), Some(&[$id][..]))?;
        let mut all = updates(loaded);
        all.extend_from_slice($events);
        crate::append_events!(&mut *$conn, $scope, $now, &all)?;
        Ok::<(), Error>(())
    }};
}

#[async_trait]
impl HistoryImportRepo for Store {
    #[tracing::instrument(level = "debug", name = "HistoryImportRepo::queue", skip_all, fields(company = scope.company_id().0, connection = connection.0, messages = messages.len()))]
    async fn queue(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        messages: &[InboundMessage],
        at: DateTime<Utc>,
        progress: Option<u32>,
        status: &str,
    ) -> Result<ImportState> {
        let company = scope.company_id().0;
        let id = connection.0;
        let mut payloads = Vec::with_capacity(messages.len());
        for message in messages {
            payloads.push(
                serde_json::to_string(message)
                    .map_err(|e| Error::internal(format!("cannot serialise a message: {e}")))?,
            );
        }
        let now = self.now();
        crate::inbox_write_tx!(self, |tx| {
            async {
                let known: Option<i64> = sqlx::query_scalar(
                    "SELECT id FROM whatsapps WHERE company_id = $1 AND id = $2",
                )
                .bind(company)
                .bind(id)
                .fetch_optional(&mut *tx)
                .await
                .map_err(db_error)?;
                if known.is_none() {
                    return Err(Error::new(ErrorCode::ERR_NO_WAPP_FOUND));
                }
                let rows: Vec<(&InboundMessage, &String)> =
                    messages.iter().zip(&payloads).collect();
                for chunk in rows.chunks(ROWS_PER_STATEMENT) {
                    let values = row_list(chunk.len(), 3, 3, |p| {
                        format!("($1, $2, ${p}, ${}, ${})", p + 1, p + 2)
                    });
                    let sql = format!(
                        "INSERT INTO history_imports (company_id, whatsapp_id, external_id, \
                         sent_at, payload) VALUES {} ON CONFLICT DO NOTHING",
                        values.join(", ")
                    );
                    let mut query = sqlx::query(AssertSqlSafe(sql)).bind(company).bind(id);
                    for (message, payload) in chunk {
                        query = query
                            .bind(&message.external_id)
                            .bind(message.timestamp)
                            .bind(payload.as_str());
                    }
                    query.execute(&mut *tx).await.map_err(db_error)?;
                }
                sqlx::query(
                    "INSERT INTO history_import_runs (whatsapp_id, company_id, last_part_at, \
                     progress, started_at) VALUES ($1, $2, $3, $4, $3) \
                     ON CONFLICT (whatsapp_id) DO UPDATE SET last_part_at = excluded.last_part_at, \
                     progress = CASE WHEN excluded.progress > history_import_runs.progress \
                     THEN excluded.progress ELSE history_import_runs.progress END",
                )
                .bind(id)
                .bind(company)
                .bind(at)
                .bind(i64::from(progress.unwrap_or(0).min(100)))
                .execute(&mut *tx)
                .await
                .map_err(db_error)?;
                set_status!(&mut *tx, company, id, status)?;
                wake!(&mut *tx, company, id, at, now)?;
                announce!(tx, scope, company, id, now, &[])?;
                state!(&mut *tx, company, id)?
                    .ok_or_else(|| Error::internal("the import's run vanished"))
            }
            .await
        })
    }

    #[tracing::instrument(level = "debug", name = "HistoryImportRepo::state", skip_all, fields(company = scope.company_id().0, connection = connection.0))]
    async fn state(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
    ) -> Result<Option<ImportState>> {
        let company = scope.company_id().0;
        crate::on_pool!(self.pool(), |p| { state!(p, company, connection.0) })
    }

    #[tracing::instrument(level = "debug", name = "HistoryImportRepo::unwritten", skip_all, fields(company = scope.company_id().0, connection = connection.0))]
    async fn unwritten(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        limit: u32,
    ) -> Result<Vec<(i64, InboundMessage)>> {
        let company = scope.company_id().0;
        let rows: Vec<(i64, String)> = crate::on_pool!(self.pool(), |p| {
            sqlx::query_as(
                "SELECT id, payload FROM history_imports WHERE company_id = $1 \
                 AND whatsapp_id = $2 AND NOT written ORDER BY sent_at, id LIMIT $3",
            )
            .bind(company)
            .bind(connection.0)
            .bind(i64::from(limit))
            .fetch_all(p)
            .await
            .map_err(db_error)?
        });
        rows.into_iter()
            .map(|(id, payload)| {
                serde_json::from_str(&payload)
                    .map(|message| (id, message))
                    .map_err(|e| Error::internal(format!("a queued message does not read: {e}")))
            })
            .collect()
    }

    #[tracing::instrument(level = "debug", name = "HistoryImportRepo::written", skip_all, fields(company = scope.company_id().0, connection = connection.0, rows = ids.len()))]
    async fn written(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        ids: &[i64],
        status: &str,
    ) -> Result<Option<ImportState>> {
        let company = scope.company_id().0;
        let id = connection.0;
        crate::inbox_write_tx!(self, |tx| {
            async {
                for chunk in ids.chunks(ROWS_PER_STATEMENT) {
                    let sql = format!(
                        "UPDATE history_imports SET written = TRUE WHERE company_id = $1 \
                         AND whatsapp_id = $2 AND {}",
                        crate::repo::lists::any(&*tx, "id", 3)
                    );
                    sqlx::query(AssertSqlSafe(sql))
                        .bind(company)
                        .bind(id)
                        .bind(crate::repo::lists::ints(&*tx, chunk))
                        .execute(&mut *tx)
                        .await
                        .map_err(db_error)?;
                }
                set_status!(&mut *tx, company, id, status)?;
                state!(&mut *tx, company, id)
            }
            .await
        })
    }

    #[tracing::instrument(level = "debug", name = "HistoryImportRepo::wake", skip_all, fields(company = scope.company_id().0, connection = connection.0))]
    async fn wake(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        at: DateTime<Utc>,
    ) -> Result<()> {
        let company = scope.company_id().0;
        let now = self.now();
        crate::on_pool!(self.pool(), |p| {
            wake!(p, company, connection.0, at, now)
        })
    }

    #[tracing::instrument(level = "debug", name = "HistoryImportRepo::finish", skip_all, fields(company = scope.company_id().0, connection = connection.0))]
    async fn finish(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        close: bool,
        status: Option<&str>,
        events: &[Event],
    ) -> Result<Option<u64>> {
        let company = scope.company_id().0;
        let id = connection.0;
        let now = self.now();
        crate::inbox_write_tx!(self, |tx| {
            async {
                let waiting: i64 = sqlx::query_scalar(
                    "SELECT COUNT(*) FROM history_imports WHERE company_id = $1 \
                     AND whatsapp_id = $2 AND NOT written",
                )
                .bind(company)
                .bind(id)
                .fetch_one(&mut *tx)
                .await
                .map_err(db_error)?;
                if waiting > 0 {
                    return Ok(None);
                }
                let closed = if close {
                    close_pending!(&mut *tx, company, id, now)?
                } else {
                    0
                };
                for sql in [
                    "DELETE FROM history_imports WHERE company_id = $1 AND whatsapp_id = $2",
                    "DELETE FROM history_import_runs WHERE company_id = $1 AND whatsapp_id = $2",
                ] {
                    sqlx::query(sql)
                        .bind(company)
                        .bind(id)
                        .execute(&mut *tx)
                        .await
                        .map_err(db_error)?;
                }
                set_status!(&mut *tx, company, id, status)?;
                announce!(tx, scope, company, id, now, events)?;
                Ok(Some(closed))
            }
            .await
        })
    }

    #[tracing::instrument(level = "debug", name = "HistoryImportRepo::close_imported", skip_all, fields(company = scope.company_id().0, connection = connection.0))]
    async fn close_imported(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        events: &[Event],
    ) -> Result<Option<u64>> {
        let company = scope.company_id().0;
        let id = connection.0;
        let now = self.now();
        crate::inbox_write_tx!(self, |tx| {
            async {
                let known: Option<i64> = sqlx::query_scalar(
                    "SELECT id FROM whatsapps WHERE company_id = $1 AND id = $2",
                )
                .bind(company)
                .bind(id)
                .fetch_optional(&mut *tx)
                .await
                .map_err(db_error)?;
                if known.is_none() {
                    return Ok(None);
                }
                let closed = close_pending!(&mut *tx, company, id, now)?;
                // An import still under way keeps its status; a finished one is done with.
                sqlx::query(
                    "UPDATE whatsapps SET status_import_messages = NULL \
                     WHERE company_id = $1 AND id = $2 AND NOT EXISTS \
                     (SELECT 1 FROM history_import_runs r WHERE r.whatsapp_id = $2)",
                )
                .bind(company)
                .bind(id)
                .execute(&mut *tx)
                .await
                .map_err(db_error)?;
                announce!(tx, scope, company, id, now, events)?;
                Ok(Some(closed))
            }
            .await
        })
    }
}
