//! [`InboundFailureRepo`] on the store: inbound events set aside because they could not be
//! stored (`inbound_failures`), per company.

use async_trait::async_trait;
use chatflow_core::inbox::channel::InboundEvent;
use chatflow_core::inbox::inbound::{
    InboundFailure, InboundFailurePage, InboundFailureRepo, storable_text,
};
use chatflow_core::{Error, ErrorCode, Result, TenantScope, WhatsappId};
use chrono::{DateTime, Utc};

use crate::Store;
use crate::error::db_error;
use crate::repo::{from_wire, to_wire};

#[derive(sqlx::FromRow)]
struct FailureRow {
    id: i64,
    whatsapp_id: i64,
    event: String,
    error_code: String,
    error_detail: String,
    attempts: i64,
    created_at: DateTime<Utc>,
    updated_at: DateTime<Utc>,
}

impl TryFrom<FailureRow> for InboundFailure {
    type Error = Error;
    fn try_from(row: FailureRow) -> Result<Self> {
        Ok(InboundFailure {
            id: row.id,
            whatsapp_id: WhatsappId(row.whatsapp_id),
            event: serde_json::from_str(&row.event).map_err(|e| {
                Error::internal(format!("unreadable inbound failure {}: {e}", row.id))
            })?,
            error: from_wire::<ErrorCode>("inbound_failures.error_code", &row.error_code)?,
            detail: row.error_detail,
            attempts: row.attempts,
            created_at: row.created_at,
            updated_at: row.updated_at,
        })
    }
}

const COLUMNS: &str =
    "id, whatsapp_id, event, error_code, error_detail, attempts, created_at, updated_at";

/// The error's code and its detail as kept (storable, never empty).
fn error_columns(error: &Error) -> Result<(String, String)> {
    let detail = error
        .detail
        .as_deref()
        .map(storable_text)
        .unwrap_or_default();
    Ok((to_wire(&error.code)?, detail))
}

#[async_trait]
impl InboundFailureRepo for Store {
    #[tracing::instrument(level = "debug", name = "InboundFailureRepo::set_aside", skip_all, fields(company = scope.company_id().0, connection = connection.0))]
    async fn set_aside(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        event: &InboundEvent,
        error: &Error,
        attempts: u32,
    ) -> Result<i64> {
        // JSON escapes U+0000, so the event is kept exactly as the channel delivered it.
        let payload = serde_json::to_string(event)
            .map_err(|e| Error::internal(format!("cannot serialise an inbound event: {e}")))?;
        let (code, detail) = error_columns(error)?;
        let at = self.now();
        crate::on_pool!(self.pool(), |p| {
            sqlx::query_scalar::<_, i64>(
                "INSERT INTO inbound_failures (company_id, whatsapp_id, event, error_code, \
                 error_detail, attempts, created_at, updated_at) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $7) RETURNING id",
            )
            .bind(scope.company_id().0)
            .bind(connection.0)
            .bind(&payload)
            .bind(&code)
            .bind(&detail)
            .bind(i64::from(attempts))
            .bind(at)
            .fetch_one(p)
            .await
            .map_err(db_error)
        })
    }

    #[tracing::instrument(level = "debug", name = "InboundFailureRepo::list", skip_all, fields(company = scope.company_id().0))]
    async fn list(
        &self,
        scope: TenantScope,
        offset: u32,
        limit: u32,
    ) -> Result<InboundFailurePage> {
        let company = scope.company_id().0;
        let sql = format!(
            "SELECT {COLUMNS} FROM inbound_failures WHERE company_id = $1 \
             ORDER BY id DESC LIMIT $2 OFFSET $3"
        );
        let (rows, count): (Vec<FailureRow>, i64) = crate::on_pool!(self.pool(), |p| {
            let rows = sqlx::query_as(sqlx::AssertSqlSafe(sql.clone()))
                .bind(company)
                .bind(i64::from(limit) + 1)
                .bind(i64::from(offset))
                .fetch_all(p)
                .await
                .map_err(db_error)?;
            let count =
                sqlx::query_scalar("SELECT COUNT(*) FROM inbound_failures WHERE company_id = $1")
                    .bind(company)
                    .fetch_one(p)
                    .await
                    .map_err(db_error)?;
            (rows, count)
        });
        let has_more = rows.len() > limit as usize;
        let failures = rows
            .into_iter()
            .take(limit as usize)
            .map(InboundFailure::try_from)
            .collect::<Result<Vec<_>>>()?;
        Ok(InboundFailurePage {
            failures,
            count,
            has_more,
        })
    }

    #[tracing::instrument(level = "debug", name = "InboundFailureRepo::get", skip_all, fields(company = scope.company_id().0, id = id))]
    async fn get(&self, scope: TenantScope, id: i64) -> Result<Option<InboundFailure>> {
        let sql =
            format!("SELECT {COLUMNS} FROM inbound_failures WHERE company_id = $1 AND id = $2");
        let row: Option<FailureRow> = crate::on_pool!(self.pool(), |p| {
            sqlx::query_as(sqlx::AssertSqlSafe(sql.clone()))
                .bind(scope.company_id().0)
                .bind(id)
                .fetch_optional(p)
                .await
                .map_err(db_error)?
        });
        row.map(InboundFailure::try_from).transpose()
    }

    #[tracing::instrument(level = "debug", name = "InboundFailureRepo::record_attempt", skip_all, fields(company = scope.company_id().0, id = id))]
    async fn record_attempt(&self, scope: TenantScope, id: i64, error: &Error) -> Result<()> {
        let (code, detail) = error_columns(error)?;
        crate::on_pool!(self.pool(), |p| {
            sqlx::query(
                "UPDATE inbound_failures SET attempts = attempts + 1, error_code = $3, \
                 error_detail = $4, updated_at = $5 WHERE company_id = $1 AND id = $2",
            )
            .bind(scope.company_id().0)
            .bind(id)
            .bind(&code)
            .bind(&detail)
            .bind(self.now())
            .execute(p)
            .await
            .map_err(db_error)?
            .rows_affected()
        });
        Ok(())
    }

    #[tracing::instrument(level = "debug", name = "InboundFailureRepo::delete", skip_all, fields(company = scope.company_id().0, id = id))]
    async fn delete(&self, scope: TenantScope, id: i64) -> Result<bool> {
        let done = crate::on_pool!(self.pool(), |p| {
            sqlx::query("DELETE FROM inbound_failures WHERE company_id = $1 AND id = $2")
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
