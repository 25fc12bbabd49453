//! [`DeliveryRepo`] on the store: flags on outbound messages left at one tick
//! (`messages.delivery_issue`, each change with its message update event), the connection's
//! `checkDelivery` job and its health view.
//!
//! A submodule of `messages` for its event helper.

use async_trait::async_trait;
use chatflow_core::events::{Event, MessageAction};
use chatflow_core::inbox::delivery::{
    DeliveryHealth, DeliveryIssue, DeliveryRepo, FLAG_LIMIT, HEALTH_LIST, UndeliveredMessage,
};
use chatflow_core::jobs::JobPayload;
use chatflow_core::{Error, MessageId, Result, TenantScope, TicketId, WhatsappId};
use chrono::{DateTime, Utc};

use crate::Store;
use crate::error::db_error;

#[derive(sqlx::FromRow)]
struct UndeliveredRow {
    id: i64,
    ticket_id: i64,
    contact_name: Option<String>,
    body: String,
    created_at: DateTime<Utc>,
}

#[async_trait]
impl DeliveryRepo for Store {
    #[tracing::instrument(level = "debug", name = "DeliveryRepo::flag_undelivered", skip_all, fields(company = scope.company_id().0, connection = connection.0))]
    async fn flag_undelivered(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        since: DateTime<Utc>,
        before: DateTime<Utc>,
    ) -> Result<u64> {
        let company = scope.company_id().0;
        let now = self.now();
        crate::inbox_write_tx!(self, |tx| {
            async {
                let ids: Vec<i64> = sqlx::query_scalar(
                    "UPDATE messages SET delivery_issue = $5, updated_at = $6 WHERE id IN \
                     (SELECT id FROM messages WHERE whatsapp_id = $2 AND from_me AND ack = 1 \
                     AND delivery_issue IS NULL AND created_at >= $3 AND created_at < $4 \
                     AND company_id = $1 AND NOT is_deleted AND NOT is_private \
                     ORDER BY created_at LIMIT $7) RETURNING id",
                )
                .bind(company)
                .bind(connection.0)
                .bind(since)
                .bind(before)
                .bind(DeliveryIssue::NotDelivered.as_str())
                .bind(now)
                .bind(i64::from(FLAG_LIMIT))
                .fetch_all(&mut *tx)
                .await
                .map_err(db_error)?;
                for id in &ids {
                    message_event!(tx, now, scope, *id, MessageAction::Update)?;
                }
                Ok::<u64, Error>(ids.len() as u64)
            }
            .await
        })
    }

    #[tracing::instrument(level = "debug", name = "DeliveryRepo::schedule", skip_all, fields(company = scope.company_id().0, connection = connection.0))]
    async fn schedule(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        at: DateTime<Utc>,
    ) -> Result<()> {
        let company = scope.company_id().0;
        let now = self.now();
        let payload = JobPayload::CheckDelivery {
            whatsapp_id: connection,
        };
        let text = serde_json::to_string(&payload)
            .map_err(|e| Error::internal(format!("cannot serialise job: {e}")))?;
        crate::on_pool!(self.pool(), |p| {
            sqlx::query(
                "INSERT INTO jobs (company_id, kind, payload, run_at, created_at) \
                 SELECT $1, $2, $3, $4, $5 WHERE NOT EXISTS (SELECT 1 FROM jobs \
                 WHERE kind = $2 AND payload = $3 AND failed_at IS NULL \
                 AND (locked_until IS NULL OR locked_until <= $5))",
            )
            .bind(company)
            .bind(payload.kind())
            .bind(text.as_str())
            .bind(at)
            .bind(now)
            .execute(p)
            .await
            .map_err(db_error)?;
        });
        Ok(())
    }

    #[tracing::instrument(level = "debug", name = "DeliveryRepo::health", skip_all, fields(company = scope.company_id().0, connection = connection.0))]
    async fn health(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        since: DateTime<Utc>,
    ) -> Result<DeliveryHealth> {
        let company = scope.company_id().0;
        let (undelivered, rows): (i64, Vec<UndeliveredRow>) = crate::on_pool!(self.pool(), |p| {
            let count: i64 = sqlx::query_scalar(
                "SELECT COUNT(*) FROM messages WHERE company_id = $1 AND whatsapp_id = $2 \
                 AND delivery_issue IS NOT NULL AND created_at >= $3",
            )
            .bind(company)
            .bind(connection.0)
            .bind(since)
            .fetch_one(p)
            .await
            .map_err(db_error)?;
            let rows: Vec<UndeliveredRow> = sqlx::query_as(
                "SELECT m.id, m.ticket_id, c.name AS contact_name, m.body, m.created_at \
                 FROM messages m JOIN tickets t ON t.id = m.ticket_id \
                 LEFT JOIN contacts c ON c.id = t.contact_id \
                 WHERE m.company_id = $1 AND m.whatsapp_id = $2 \
                 AND m.delivery_issue IS NOT NULL AND m.created_at >= $3 \
                 ORDER BY m.created_at DESC, m.id DESC LIMIT $4",
            )
            .bind(company)
            .bind(connection.0)
            .bind(since)
            .bind(i64::from(HEALTH_LIST))
            .fetch_all(p)
            .await
            .map_err(db_error)?;
            (count, rows)
        });
        Ok(DeliveryHealth {
            undelivered,
            messages: rows
                .into_iter()
                .map(|r| UndeliveredMessage {
                    id: MessageId(r.id),
                    ticket_id: TicketId(r.ticket_id),
                    contact_name: r.contact_name.unwrap_or_default(),
                    body: r.body,
                    created_at: r.created_at,
                })
                .collect(),
        })
    }
}
