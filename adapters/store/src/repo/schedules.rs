//! [`ScheduleRepo`] on the store: the `schedules` table. Every write appends its
//! `company-{id}-schedule` event, and every write that queues a send inserts its
//! `sendSchedule` job (with the schedule's new revision), in the write's transaction: a schedule
//! is never stored without its job, and a job of an older revision finds nothing to do.

use async_trait::async_trait;
use chatflow_core::events::SaveAction;
use chatflow_core::ids::{ContactId, MessageId, QueueId, ScheduleId, UserId, WhatsappId};
use chatflow_core::inbox::model::{Message, NewMessage};
use chatflow_core::jobs::JobPayload;
use chatflow_core::schedule::{
    NewSchedule, Schedule, ScheduleContact, ScheduleFilter, ScheduleRepo, ScheduleStatus,
    SendClaim, SendOutcome, schedule_deleted_event, schedule_event,
};
use chatflow_core::{Error, ErrorCode, Result, TenantScope};
use chrono::{DateTime, Utc};

use crate::Store;
use crate::error::db_error;
use crate::repo::{escape_like, from_wire, to_wire};

#[derive(sqlx::FromRow)]
struct ScheduleRow {
    id: i64,
    contact_id: i64,
    contact_name: String,
    body: String,
    send_at: DateTime<Utc>,
    next_send_at: Option<DateTime<Utc>>,
    sent_at: Option<DateTime<Utc>>,
    status: String,
    open_ticket: String,
    ticket_user_id: Option<i64>,
    queue_id: Option<i64>,
    status_ticket: String,
    whatsapp_id: Option<i64>,
    user_id: Option<i64>,
    media_path: Option<String>,
    media_name: Option<String>,
    assinar: bool,
    intervalo: i64,
    valor_intervalo: i64,
    enviar_quantas_vezes: i64,
    tipo_dias: i64,
    sends: i64,
    revision: i64,
    last_error: Option<String>,
    created_at: DateTime<Utc>,
    updated_at: DateTime<Utc>,
}

impl TryFrom<ScheduleRow> for Schedule {
    type Error = Error;
    fn try_from(row: ScheduleRow) -> Result<Schedule> {
        Ok(Schedule {
            id: ScheduleId(row.id),
            body: row.body,
            contact_id: ContactId(row.contact_id),
            contact: ScheduleContact {
                id: ContactId(row.contact_id),
                name: row.contact_name,
            },
            send_at: row.send_at,
            next_send_at: row.next_send_at,
            sent_at: row.sent_at,
            status: from_wire("status", &row.status)?,
            open_ticket: from_wire("open_ticket", &row.open_ticket)?,
            ticket_user_id: row.ticket_user_id.map(UserId),
            queue_id: row.queue_id.map(QueueId),
            status_ticket: from_wire("status_ticket", &row.status_ticket)?,
            whatsapp_id: row.whatsapp_id.map(WhatsappId),
            user_id: row.user_id.map(UserId),
            media_path: row.media_path,
            media_name: row.media_name,
            assinar: row.assinar,
            intervalo: row.intervalo,
            valor_intervalo: row.valor_intervalo,
            enviar_quantas_vezes: row.enviar_quantas_vezes,
            tipo_dias: row.tipo_dias,
            sends: row.sends,
            revision: row.revision,
            last_error: row.last_error,
            created_at: row.created_at,
            updated_at: row.updated_at,
        })
    }
}

const SELECT: &str = "SELECT s.id, s.contact_id, c.name AS contact_name, s.body, s.send_at, \
     s.next_send_at, s.sent_at, s.status, s.open_ticket, s.ticket_user_id, s.queue_id, \
     s.status_ticket, s.whatsapp_id, s.user_id, s.media_path, s.media_name, s.assinar, \
     s.intervalo, s.valor_intervalo, s.enviar_quantas_vezes, s.tipo_dias, s.sends, s.revision, \
     s.last_error, s.created_at, s.updated_at \
     FROM schedules s JOIN contacts c ON c.id = s.contact_id";

/// The stored spelling of the enum columns of a new schedule.
struct Spelled {
    open_ticket: String,
    status_ticket: String,
    pending: String,
}

fn spelled(new: &NewSchedule) -> Result<Spelled> {
    Ok(Spelled {
        open_ticket: to_wire(&new.open_ticket)?,
        status_ticket: to_wire(&new.status_ticket)?,
        pending: to_wire(&ScheduleStatus::Pendente)?,
    })
}

fn job_text(id: ScheduleId, revision: i64) -> Result<String> {
    serde_json::to_string(&JobPayload::SendSchedule {
        schedule_id: id,
        revision,
    })
    .map_err(|e| Error::internal(format!("cannot serialise job: {e}")))
}

/// Reads one schedule of the scope on `$conn` (inside a transaction).
macro_rules! read_schedule {
    ($conn:expr, $scope:expr, $id:expr) => {{
        let row: Option<ScheduleRow> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "{SELECT} WHERE s.company_id = $1 AND s.id = $2"
        )))
        .bind($scope.company_id().0)
        .bind($id.0)
        .fetch_optional($conn)
        .await
        .map_err(db_error)?;
        row.map(Schedule::try_from).transpose()
    }};
}

/// Reads the schedule `$id` changed in `$tx` and appends its `update` event; answers it.
macro_rules! updated {
    ($tx:ident, $now:expr, $scope:expr, $id:expr) => {{
        let schedule = read_schedule!(&mut *$tx, $scope, $id)?;
        if let Some(schedule) = &schedule {
            crate::append_events!(
                &mut *$tx,
                $scope,
                $now,
                &[schedule_event(SaveAction::Update, schedule)]
            )?;
        }
        Ok(schedule)
    }};
}

/// Queues the `sendSchedule` job of `$id` at `$revision`, due at `$at`, on `$conn`.
macro_rules! queue_send {
    ($conn:expr, $now:expr, $scope:expr, $id:expr, $revision:expr, $at:expr) => {{
        let payload = job_text($id, $revision)?;
        sqlx::query(
            "INSERT INTO jobs (company_id, kind, payload, run_at, created_at) \
             VALUES ($1, 'sendSchedule', $2, $3, $4)",
        )
        .bind($scope.company_id().0)
        .bind(payload)
        .bind($at)
        .bind($now)
        .execute($conn)
        .await
        .map_err(db_error)
    }};
}

#[async_trait]
impl ScheduleRepo for Store {
    #[tracing::instrument(level = "debug", name = "ScheduleRepo::list", skip_all, fields(company = scope.company_id().0))]
    async fn list(
        &self,
        scope: TenantScope,
        filter: &ScheduleFilter,
        offset: u32,
        limit: u32,
    ) -> Result<(Vec<Schedule>, i64)> {
        let term = filter.search.trim().to_lowercase();
        let pattern = format!("%{}%", escape_like(&term));
        let contact = filter.contact_id.map(|c| c.0);
        let condition = "s.company_id = $1 AND ($2 = '' OR LOWER(s.body) LIKE $3 ESCAPE '\\' \
             OR LOWER(c.name) LIKE $3 ESCAPE '\\') AND ($4 IS NULL OR s.contact_id = $4)";
        let page_sql = format!(
            "{SELECT} WHERE {condition} ORDER BY COALESCE(s.next_send_at, s.send_at), s.id \
             LIMIT $5 OFFSET $6"
        );
        let count_sql = format!(
            "SELECT COUNT(*) FROM schedules s JOIN contacts c ON c.id = s.contact_id \
             WHERE {condition}"
        );
        let (rows, count): (Vec<ScheduleRow>, i64) = crate::on_pool!(self.pool(), |p| {
            let rows = sqlx::query_as(sqlx::AssertSqlSafe(page_sql))
                .bind(scope.company_id().0)
                .bind(&term)
                .bind(&pattern)
                .bind(contact)
                .bind(i64::from(limit))
                .bind(i64::from(offset))
                .fetch_all(p)
                .await
                .map_err(db_error)?;
            let count = sqlx::query_scalar(sqlx::AssertSqlSafe(count_sql))
                .bind(scope.company_id().0)
                .bind(&term)
                .bind(&pattern)
                .bind(contact)
                .fetch_one(p)
                .await
                .map_err(db_error)?;
            (rows, count)
        });
        let schedules = rows
            .into_iter()
            .map(Schedule::try_from)
            .collect::<Result<Vec<_>>>()?;
        Ok((schedules, count))
    }

    #[tracing::instrument(level = "debug", name = "ScheduleRepo::get", skip_all, fields(company = scope.company_id().0, schedule = id.0))]
    async fn get(&self, scope: TenantScope, id: ScheduleId) -> Result<Option<Schedule>> {
        crate::on_pool!(self.pool(), |p| read_schedule!(p, scope, id))
    }

    #[tracing::instrument(level = "debug", name = "ScheduleRepo::create", skip_all, fields(company = scope.company_id().0))]
    async fn create(&self, scope: TenantScope, new: &NewSchedule) -> Result<Schedule> {
        let text = spelled(new)?;
        let at = self.now();
        crate::inbox_write_tx!(self, |tx| {
            async {
                let contact: Option<i64> =
                    sqlx::query_scalar("SELECT id FROM contacts WHERE company_id = $1 AND id = $2")
                        .bind(scope.company_id().0)
                        .bind(new.contact_id.0)
                        .fetch_optional(&mut *tx)
                        .await
                        .map_err(db_error)?;
                if contact.is_none() {
                    return Err(Error::new(ErrorCode::ERR_NO_CONTACT_FOUND));
                }
                let id: i64 = sqlx::query_scalar(
                    "INSERT INTO schedules (company_id, contact_id, body, send_at, next_send_at, \
                     status, open_ticket, ticket_user_id, queue_id, status_ticket, whatsapp_id, \
                     user_id, assinar, intervalo, valor_intervalo, enviar_quantas_vezes, \
                     tipo_dias, created_at, updated_at) VALUES ($1, $2, $3, $4, $4, $5, $6, $7, \
                     $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $17) RETURNING id",
                )
                .bind(scope.company_id().0)
                .bind(new.contact_id.0)
                .bind(&new.body)
                .bind(new.send_at)
                .bind(&text.pending)
                .bind(&text.open_ticket)
                .bind(new.ticket_user_id.map(|u| u.0))
                .bind(new.queue_id.map(|q| q.0))
                .bind(&text.status_ticket)
                .bind(new.whatsapp_id.map(|w| w.0))
                .bind(new.user_id.0)
                .bind(new.assinar)
                .bind(new.recurrence.interval.code())
                .bind(i64::from(new.recurrence.every))
                .bind(i64::from(new.recurrence.times))
                .bind(new.recurrence.day_rule.code())
                .bind(at)
                .fetch_one(&mut *tx)
                .await
                .map_err(db_error)?;
                let id = ScheduleId(id);
                queue_send!(&mut *tx, self.now(), scope, id, 0, new.send_at)?;
                let schedule = read_schedule!(&mut *tx, scope, id)?
                    .ok_or_else(|| Error::internal("a stored schedule vanished"))?;
                crate::append_events!(
                    &mut *tx,
                    scope,
                    self.now(),
                    &[schedule_event(SaveAction::Create, &schedule)]
                )?;
                Ok(schedule)
            }
            .await
        })
    }

    #[tracing::instrument(level = "debug", name = "ScheduleRepo::update", skip_all, fields(company = scope.company_id().0, schedule = id.0))]
    async fn update(
        &self,
        scope: TenantScope,
        id: ScheduleId,
        new: &NewSchedule,
    ) -> Result<Option<Schedule>> {
        let text = spelled(new)?;
        let at = self.now();
        crate::inbox_write_tx!(self, |tx| {
            async {
                let revision: Option<i64> = sqlx::query_scalar(
                    "UPDATE schedules SET contact_id = $3, body = $4, send_at = $5, \
                     next_send_at = $5, open_ticket = $6, ticket_user_id = $7, queue_id = $8, \
                     status_ticket = $9, whatsapp_id = $10, assinar = $11, intervalo = $12, \
                     valor_intervalo = $13, enviar_quantas_vezes = $14, tipo_dias = $15, \
                     updated_at = $16, revision = revision + 1 \
                     WHERE company_id = $1 AND id = $2 AND status = $17 \
                     AND contact_id IN (SELECT id FROM contacts WHERE company_id = $1) \
                     RETURNING revision",
                )
                .bind(scope.company_id().0)
                .bind(id.0)
                .bind(new.contact_id.0)
                .bind(&new.body)
                .bind(new.send_at)
                .bind(&text.open_ticket)
                .bind(new.ticket_user_id.map(|u| u.0))
                .bind(new.queue_id.map(|q| q.0))
                .bind(&text.status_ticket)
                .bind(new.whatsapp_id.map(|w| w.0))
                .bind(new.assinar)
                .bind(new.recurrence.interval.code())
                .bind(i64::from(new.recurrence.every))
                .bind(i64::from(new.recurrence.times))
                .bind(new.recurrence.day_rule.code())
                .bind(at)
                .bind(&text.pending)
                .fetch_optional(&mut *tx)
                .await
                .map_err(db_error)?;
                let Some(revision) = revision else {
                    return Ok(None);
                };
                queue_send!(&mut *tx, self.now(), scope, id, revision, new.send_at)?;
                updated!(tx, self.now(), scope, id)
            }
            .await
        })
    }

    #[tracing::instrument(level = "debug", name = "ScheduleRepo::delete", skip_all, fields(company = scope.company_id().0, schedule = id.0))]
    async fn delete(&self, scope: TenantScope, id: ScheduleId) -> Result<bool> {
        crate::inbox_write_tx!(self, |tx| {
            async {
                let done = sqlx::query("DELETE FROM schedules WHERE company_id = $1 AND id = $2")
                    .bind(scope.company_id().0)
                    .bind(id.0)
                    .execute(&mut *tx)
                    .await
                    .map_err(db_error)?
                    .rows_affected();
                if done == 0 {
                    return Ok(false);
                }
                crate::append_events!(&mut *tx, scope, self.now(), &[schedule_deleted_event(id)])?;
                Ok(true)
            }
            .await
        })
    }

    #[tracing::instrument(level = "debug", name = "ScheduleRepo::set_media", skip_all, fields(company = scope.company_id().0, schedule = id.0))]
    async fn set_media(
        &self,
        scope: TenantScope,
        id: ScheduleId,
        media: Option<(&str, &str)>,
    ) -> Result<Option<Schedule>> {
        let (path, name) = media.unzip();
        crate::inbox_write_tx!(self, |tx| {
            async {
                let done = sqlx::query(
                    "UPDATE schedules SET media_path = $3, media_name = $4, updated_at = $5 \
                     WHERE company_id = $1 AND id = $2",
                )
                .bind(scope.company_id().0)
                .bind(id.0)
                .bind(path)
                .bind(name)
                .bind(self.now())
                .execute(&mut *tx)
                .await
                .map_err(db_error)?
                .rows_affected();
                if done == 0 {
                    return Ok(None);
                }
                updated!(tx, self.now(), scope, id)
            }
            .await
        })
    }

    #[tracing::instrument(level = "debug", name = "ScheduleRepo::claim_send", skip_all, fields(company = scope.company_id().0, schedule = id.0))]
    async fn claim_send(&self, scope: TenantScope, id: ScheduleId, revision: i64) -> Result<bool> {
        let waiting = [
            to_wire(&ScheduleStatus::Pendente)?,
            to_wire(&ScheduleStatus::Agendada)?,
        ];
        let done = crate::on_pool!(self.pool(), |p| {
            sqlx::query(
                "UPDATE schedules SET revision = revision + 1, claimed_revision = revision + 1, \
                 claimed_message_id = NULL \
                 WHERE company_id = $1 AND id = $2 AND revision = $3 AND status IN ($4, $5)",
            )
            .bind(scope.company_id().0)
            .bind(id.0)
            .bind(revision)
            .bind(&waiting[0])
            .bind(&waiting[1])
            .execute(p)
            .await
            .map_err(db_error)?
            .rows_affected()
        });
        Ok(done == 1)
    }

    #[tracing::instrument(level = "debug", name = "ScheduleRepo::send_claim", skip_all, fields(company = scope.company_id().0, schedule = id.0))]
    async fn send_claim(&self, scope: TenantScope, id: ScheduleId) -> Result<Option<SendClaim>> {
        let row: Option<(Option<i64>, Option<i64>)> = crate::on_pool!(self.pool(), |p| {
            sqlx::query_as(
                "SELECT claimed_revision, claimed_message_id FROM schedules \
                 WHERE company_id = $1 AND id = $2",
            )
            .bind(scope.company_id().0)
            .bind(id.0)
            .fetch_optional(p)
            .await
            .map_err(db_error)?
        });
        Ok(row.and_then(|(revision, message)| {
            revision.map(|revision| SendClaim {
                revision,
                message_id: message.map(MessageId),
            })
        }))
    }

    #[tracing::instrument(level = "debug", name = "ScheduleRepo::attach_send_message", skip_all, fields(company = scope.company_id().0, schedule = id.0))]
    async fn attach_send_message(
        &self,
        scope: TenantScope,
        id: ScheduleId,
        revision: i64,
        message: &NewMessage,
    ) -> Result<Option<Message>> {
        self.create_message_guarded(scope, message, Some((id, revision)))
            .await
    }

    #[tracing::instrument(level = "debug", name = "ScheduleRepo::record_send", skip_all, fields(company = scope.company_id().0, schedule = id.0))]
    async fn record_send(
        &self,
        scope: TenantScope,
        id: ScheduleId,
        revision: i64,
        outcome: &SendOutcome,
    ) -> Result<Option<Schedule>> {
        let status = to_wire(&outcome.status)?;
        crate::inbox_write_tx!(self, |tx| {
            async {
                let done = sqlx::query(
                    "UPDATE schedules SET status = $4, sent_at = $5, sends = $6, \
                     next_send_at = $7, last_error = $8, updated_at = $9, revision = revision + 1, \
                     claimed_revision = NULL, claimed_message_id = NULL \
                     WHERE company_id = $1 AND id = $2 AND revision = $3",
                )
                .bind(scope.company_id().0)
                .bind(id.0)
                .bind(revision)
                .bind(&status)
                .bind(outcome.sent_at)
                .bind(outcome.sends)
                .bind(outcome.next_send_at)
                .bind(&outcome.error)
                .bind(self.now())
                .execute(&mut *tx)
                .await
                .map_err(db_error)?
                .rows_affected();
                if done == 0 {
                    return Ok(None);
                }
                if let Some(at) = outcome.next_send_at {
                    queue_send!(&mut *tx, self.now(), scope, id, revision + 1, at)?;
                }
                updated!(tx, self.now(), scope, id)
            }
            .await
        })
    }
}
