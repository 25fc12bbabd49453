//! [`GapRepo`] on the store: a connection's outage (`whatsapps.down_since`), its gaps
//! (`connection_gaps`) with their `checkGap` jobs, and the connection's `lastGap` (the JSON
//! column `whatsapps.last_gap`, rewritten with every change of its gaps so reading a
//! connection costs no extra query).
//!
//! A submodule of `connections` for its row loader: every change appends the connection's
//! `whatsapp` update in the same transaction.

use async_trait::async_trait;
use chatflow_core::inbox::gaps::{AffectedTicket, Anchor, ConnectionGap, GapRepo, GapState};
use chatflow_core::jobs::JobPayload;
use chatflow_core::{Error, Result, TenantScope, TicketId, WhatsappId};
use chrono::{DateTime, Utc};

use super::{COLUMNS, ConnectionRow, QueueLinkRow, assemble, updates};
use crate::Store;
use crate::error::db_error;

/// A gap's row.
#[derive(sqlx::FromRow)]
struct GapRow {
    id: i64,
    whatsapp_id: i64,
    from_at: DateTime<Utc>,
    to_at: DateTime<Utc>,
    state: String,
    fetched: i64,
    noted: i64,
    answer_by: Option<DateTime<Utc>>,
}

impl GapRow {
    fn into_gap(self) -> Result<(WhatsappId, ConnectionGap)> {
        let state = GapState::parse(&self.state).ok_or_else(|| {
            Error::internal(format!("unexpected value {:?} in column state", self.state))
        })?;
        Ok((
            WhatsappId(self.whatsapp_id),
            ConnectionGap {
                id: self.id,
                from: self.from_at,
                to: self.to_at,
                state,
                fetched: self.fetched,
                noted: self.noted,
                answer_by: self.answer_by,
            },
        ))
    }
}

const GAP_COLUMNS: &str = "id, whatsapp_id, from_at, to_at, state, fetched, noted, answer_by";

/// Rewrites `last_gap` of connection `$id` from its gaps on `$conn`, then appends the
/// connection's `whatsapp` update.
macro_rules! refresh {
    ($conn:expr, $scope:expr, $company:expr, $id:expr, $now:expr) => {{
        let row: Option<GapRow> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "SELECT {GAP_COLUMNS} FROM connection_gaps WHERE company_id = $1 \
             AND whatsapp_id = $2 AND NOT dismissed ORDER BY id DESC LIMIT 1"
        )))
        .bind($company)
        .bind($id)
        .fetch_optional(&mut *$conn)
        .await
        .map_err(db_error)?;
        let json = match row {
            Some(row) => Some(
                serde_json::to_string(&row.into_gap()?.1)
                    .map_err(|e| Error::internal(format!("cannot serialise a gap: {e}")))?,
            ),
            None => None,
        };
        sqlx::query("UPDATE whatsapps SET last_gap = $3 WHERE company_id = $1 AND id = $2")
            .bind($company)
            .bind($id)
            .bind(json)
            .execute(&mut *$conn)
            .await
            .map_err(db_error)?;
        let loaded = load!(&mut *$conn, Some($company), Some(&[$id][..]))?;
        crate::append_events!(&mut *$conn, $scope, $now, &updates(loaded))?;
        Ok::<(), Error>(())
    }};
}

/// Adds the `checkGap` job of gap `$gap` due at `$at` on `$conn`.
macro_rules! check_job {
    ($conn:expr, $company:expr, $gap:expr, $at:expr, $now:expr) => {{
        let payload = JobPayload::CheckGap { gap_id: $gap };
        let text = serde_json::to_string(&payload)
            .map_err(|e| Error::internal(format!("cannot serialise job: {e}")))?;
        sqlx::query(
            "INSERT INTO jobs (company_id, kind, payload, run_at, created_at) \
             VALUES ($1, $2, $3, $4, $5)",
        )
        .bind($company)
        .bind(payload.kind())
        .bind(text)
        .bind($at)
        .bind($now)
        .execute($conn)
        .await
        .map_err(db_error)
        .map(|_| ())
    }};
}

/// The ticket rows [`GapRepo::affected`] reads.
#[derive(sqlx::FromRow)]
struct AffectedRow {
    id: i64,
    number: String,
    name: String,
    is_group: bool,
    anchor_id: Option<String>,
    anchor_from_me: Option<bool>,
    anchor_at: Option<DateTime<Utc>>,
}

#[async_trait]
impl GapRepo for Store {
    #[tracing::instrument(level = "debug", name = "GapRepo::began", skip_all, fields(company = scope.company_id().0, connection = connection.0))]
    async fn began(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        since: DateTime<Utc>,
    ) -> Result<bool> {
        let company = scope.company_id().0;
        let id = connection.0;
        let now = self.now();
        crate::inbox_write_tx!(self, |tx| {
            async {
                let done = sqlx::query(
                    "UPDATE whatsapps SET down_since = $3 WHERE company_id = $1 AND id = $2 \
                     AND down_since IS NULL",
                )
                .bind(company)
                .bind(id)
                .bind(since)
                .execute(&mut *tx)
                .await
                .map_err(db_error)?;
                if done.rows_affected() == 0 {
                    return Ok(false);
                }
                let loaded = load!(&mut *tx, Some(company), Some(&[id][..]))?;
                crate::append_events!(&mut *tx, scope, now, &updates(loaded))?;
                Ok::<bool, Error>(true)
            }
            .await
        })
    }

    #[tracing::instrument(level = "debug", name = "GapRepo::ended", skip_all, fields(company = scope.company_id().0, connection = connection.0))]
    async fn ended(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        from: DateTime<Utc>,
        to: DateTime<Utc>,
        gap: bool,
        check_at: DateTime<Utc>,
    ) -> Result<()> {
        let company = scope.company_id().0;
        let id = connection.0;
        let now = self.now();
        crate::inbox_write_tx!(self, |tx| {
            async {
                sqlx::query(
                    "UPDATE whatsapps SET down_since = NULL WHERE company_id = $1 AND id = $2",
                )
                .bind(company)
                .bind(id)
                .execute(&mut *tx)
                .await
                .map_err(db_error)?;
                if gap {
                    let gap_id: i64 = sqlx::query_scalar(
                        "INSERT INTO connection_gaps (company_id, whatsapp_id, from_at, to_at, \
                         state) VALUES ($1, $2, $3, $4, $5) RETURNING id",
                    )
                    .bind(company)
                    .bind(id)
                    .bind(from)
                    .bind(to)
                    .bind(GapState::Waiting.as_str())
                    .fetch_one(&mut *tx)
                    .await
                    .map_err(db_error)?;
                    // The check at the latest, should the channel never say it caught up.
                    check_job!(&mut *tx, company, gap_id, check_at, now)?;
                }
                refresh!(tx, scope, company, id, now)
            }
            .await
        })
    }

    #[tracing::instrument(level = "debug", name = "GapRepo::caught_up", skip_all, fields(company = scope.company_id().0, connection = connection.0))]
    async fn caught_up(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        at: DateTime<Utc>,
    ) -> Result<u64> {
        let company = scope.company_id().0;
        let id = connection.0;
        let now = self.now();
        crate::inbox_write_tx!(self, |tx| {
            async {
                let waiting: Vec<i64> = sqlx::query_scalar(
                    "UPDATE connection_gaps SET state = $3 WHERE company_id = $1 \
                     AND whatsapp_id = $2 AND state = $4 RETURNING id",
                )
                .bind(company)
                .bind(id)
                .bind(GapState::Checking.as_str())
                .bind(GapState::Waiting.as_str())
                .fetch_all(&mut *tx)
                .await
                .map_err(db_error)?;
                if waiting.is_empty() {
                    return Ok(0);
                }
                for gap_id in &waiting {
                    // Now rather than at the latest: the check that was waiting finds the gap
                    // checked and does nothing.
                    check_job!(&mut *tx, company, *gap_id, at, now)?;
                }
                refresh!(tx, scope, company, id, now)?;
                Ok::<u64, Error>(waiting.len() as u64)
            }
            .await
        })
    }

    #[tracing::instrument(level = "debug", name = "GapRepo::get", skip_all, fields(company = scope.company_id().0, gap))]
    async fn get(
        &self,
        scope: TenantScope,
        gap: i64,
    ) -> Result<Option<(WhatsappId, ConnectionGap)>> {
        let company = scope.company_id().0;
        let row: Option<GapRow> = crate::on_pool!(self.pool(), |p| {
            sqlx::query_as(sqlx::AssertSqlSafe(format!(
                "SELECT {GAP_COLUMNS} FROM connection_gaps WHERE company_id = $1 AND id = $2"
            )))
            .bind(company)
            .bind(gap)
            .fetch_optional(p)
            .await
            .map_err(db_error)?
        });
        row.map(GapRow::into_gap).transpose()
    }

    #[tracing::instrument(level = "debug", name = "GapRepo::affected", skip_all, fields(company = scope.company_id().0, connection = connection.0))]
    async fn affected(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        gap: &ConnectionGap,
    ) -> Result<Vec<AffectedTicket>> {
        let company = scope.company_id().0;
        // The anchor, among the conversation's messages since the gap began that the channel
        // knows (notices left out): the oldest one stored once the connection was back (the
        // phone's messages before it cover the whole gap), else the newest one stored meanwhile
        // (an answer sent during a deaf session's silence).
        let anchor = |column: &str| {
            format!(
                "(SELECT m.{column} FROM messages m WHERE m.ticket_id = t.id \
                 AND m.created_at >= $3 AND m.external_id IS NOT NULL \
                 AND m.media_type <> 'gap' \
                 ORDER BY CASE WHEN m.created_at >= $4 THEN 0 ELSE 1 END, \
                 CASE WHEN m.created_at >= $4 THEN m.created_at END, \
                 m.created_at DESC, m.id LIMIT 1)"
            )
        };
        let sql = format!(
            "SELECT t.id, c.number, c.name, t.is_group, {} AS anchor_id, \
             {} AS anchor_from_me, {} AS anchor_at \
             FROM tickets t JOIN contacts c ON c.id = t.contact_id \
             WHERE t.company_id = $1 AND t.whatsapp_id = $2 \
             AND (t.status IN ('open', 'pending') OR t.updated_at >= $3) ORDER BY t.id",
            anchor("external_id"),
            anchor("from_me"),
            anchor("created_at"),
        );
        let rows: Vec<AffectedRow> = crate::on_pool!(self.pool(), |p| {
            sqlx::query_as(sqlx::AssertSqlSafe(sql.clone()))
                .bind(company)
                .bind(connection.0)
                .bind(gap.from)
                .bind(gap.to)
                .fetch_all(p)
                .await
                .map_err(db_error)?
        });
        Ok(rows
            .into_iter()
            .map(|row| AffectedTicket {
                ticket_id: TicketId(row.id),
                chat: row.number,
                chat_name: row.name,
                is_group: row.is_group,
                anchor: match (row.anchor_id, row.anchor_from_me, row.anchor_at) {
                    (Some(external_id), Some(from_me), Some(at)) => Some(Anchor {
                        external_id,
                        from_me,
                        at,
                    }),
                    _ => None,
                },
            })
            .collect())
    }

    #[tracing::instrument(level = "debug", name = "GapRepo::checked", skip_all, fields(company = scope.company_id().0, gap))]
    async fn checked(&self, scope: TenantScope, gap: i64, fetched: i64, noted: i64) -> Result<()> {
        let company = scope.company_id().0;
        let now = self.now();
        crate::inbox_write_tx!(self, |tx| {
            async {
                let connection: Option<i64> = sqlx::query_scalar(
                    "UPDATE connection_gaps SET state = $3, fetched = $4, noted = $5, \
                     answer_by = NULL WHERE company_id = $1 AND id = $2 RETURNING whatsapp_id",
                )
                .bind(company)
                .bind(gap)
                .bind(GapState::Checked.as_str())
                .bind(fetched)
                .bind(noted)
                .fetch_optional(&mut *tx)
                .await
                .map_err(db_error)?;
                match connection {
                    Some(id) => refresh!(tx, scope, company, id, now),
                    None => Ok(()),
                }
            }
            .await
        })
    }

    #[tracing::instrument(level = "debug", name = "GapRepo::asked", skip_all, fields(company = scope.company_id().0, gap, tickets = tickets.len()))]
    async fn asked(
        &self,
        scope: TenantScope,
        gap: i64,
        tickets: &[TicketId],
        counts: (i64, i64),
        answer_by: DateTime<Utc>,
    ) -> Result<()> {
        let company = scope.company_id().0;
        let now = self.now();
        let ids: Vec<i64> = tickets.iter().map(|t| t.0).collect();
        crate::inbox_write_tx!(self, |tx| {
            async {
                let connection: Option<i64> = sqlx::query_scalar(
                    "UPDATE connection_gaps SET state = $3, fetched = $4, noted = $5, \
                     answer_by = $6 WHERE company_id = $1 AND id = $2 RETURNING whatsapp_id",
                )
                .bind(company)
                .bind(gap)
                .bind(GapState::Asked.as_str())
                .bind(counts.0)
                .bind(counts.1)
                .bind(answer_by)
                .fetch_optional(&mut *tx)
                .await
                .map_err(db_error)?;
                let Some(id) = connection else {
                    return Ok(());
                };
                // Only the company's tickets; a request recorded already stays as it is.
                sqlx::query(sqlx::AssertSqlSafe(format!(
                    "INSERT INTO gap_requests (gap_id, company_id, ticket_id, contact_id) \
                     SELECT $2, company_id, id, contact_id FROM tickets \
                     WHERE company_id = $1 AND {} ON CONFLICT DO NOTHING",
                    crate::repo::lists::any(&*tx, "id", 3)
                )))
                .bind(company)
                .bind(gap)
                .bind(crate::repo::lists::ints(&*tx, &ids))
                .execute(&mut *tx)
                .await
                .map_err(db_error)?;
                check_job!(&mut *tx, company, gap, answer_by, now)?;
                refresh!(tx, scope, company, id, now)
            }
            .await
        })
    }

    #[tracing::instrument(level = "debug", name = "GapRepo::answered", skip_all, fields(company = scope.company_id().0, connection = connection.0, messages = external_ids.len()))]
    async fn answered(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        external_ids: &[&str],
    ) -> Result<Vec<i64>> {
        let company = scope.company_id().0;
        crate::on_pool!(self.pool(), |p| {
            let mut conn = p.acquire().await.map_err(db_error)?;
            let sql = format!(
                "UPDATE gap_requests SET answered = TRUE WHERE company_id = $1 AND NOT answered \
                 AND gap_id IN (SELECT id FROM connection_gaps WHERE company_id = $1 \
                 AND whatsapp_id = $2 AND state = $3) \
                 AND contact_id IN (SELECT t.contact_id FROM messages m \
                 JOIN tickets t ON t.id = m.ticket_id \
                 WHERE m.whatsapp_id = $2 AND m.company_id = $1 AND {}) RETURNING gap_id",
                crate::repo::lists::any(&*conn, "m.external_id", 4)
            );
            let mut gaps: Vec<i64> = sqlx::query_scalar(sqlx::AssertSqlSafe(sql))
                .bind(company)
                .bind(connection.0)
                .bind(GapState::Asked.as_str())
                .bind(crate::repo::lists::texts(&*conn, external_ids))
                .fetch_all(&mut *conn)
                .await
                .map_err(db_error)?;
            gaps.sort_unstable();
            gaps.dedup();
            Ok(gaps)
        })
    }

    #[tracing::instrument(level = "debug", name = "GapRepo::unanswered", skip_all, fields(company = scope.company_id().0, gap))]
    async fn unanswered(&self, scope: TenantScope, gap: i64) -> Result<Vec<TicketId>> {
        let company = scope.company_id().0;
        let ids: Vec<i64> = crate::on_pool!(self.pool(), |p| {
            sqlx::query_scalar(
                "SELECT ticket_id FROM gap_requests WHERE company_id = $1 AND gap_id = $2 \
                 AND NOT answered ORDER BY ticket_id",
            )
            .bind(company)
            .bind(gap)
            .fetch_all(p)
            .await
            .map_err(db_error)?
        });
        Ok(ids.into_iter().map(TicketId).collect())
    }

    #[tracing::instrument(level = "debug", name = "GapRepo::dismiss", skip_all, fields(company = scope.company_id().0, connection = connection.0))]
    async fn dismiss(&self, scope: TenantScope, connection: WhatsappId) -> Result<bool> {
        let company = scope.company_id().0;
        let id = connection.0;
        let now = self.now();
        crate::inbox_write_tx!(self, |tx| {
            async {
                let done = sqlx::query(
                    "UPDATE connection_gaps SET dismissed = TRUE WHERE company_id = $1 \
                     AND whatsapp_id = $2 AND NOT dismissed",
                )
                .bind(company)
                .bind(id)
                .execute(&mut *tx)
                .await
                .map_err(db_error)?;
                if done.rows_affected() == 0 {
                    return Ok(false);
                }
                refresh!(tx, scope, company, id, now)?;
                Ok::<bool, Error>(true)
            }
            .await
        })
    }

    #[tracing::instrument(level = "debug", name = "GapRepo::last_inbound", skip_all, fields(company = scope.company_id().0, connection = connection.0))]
    async fn last_inbound(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
    ) -> Result<Option<DateTime<Utc>>> {
        let company = scope.company_id().0;
        let at: Option<Option<DateTime<Utc>>> = crate::on_pool!(self.pool(), |p| {
            sqlx::query_scalar(
                "SELECT created_at FROM messages WHERE company_id = $1 AND whatsapp_id = $2 \
                 AND NOT from_me ORDER BY created_at DESC LIMIT 1",
            )
            .bind(company)
            .bind(connection.0)
            .fetch_optional(p)
            .await
            .map_err(db_error)?
        });
        Ok(at.flatten())
    }
}
