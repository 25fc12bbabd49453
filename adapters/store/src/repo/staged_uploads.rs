//! [`StagedUploadRepo`] on the store: contact spreadsheets waiting for their import, per company.
//!
//! Staging runs in one transaction: it touches the company's row (locking it on PostgreSQL, so
//! two uploads of one company take turns), deletes every expired upload, inserts the new one and
//! deletes the company's oldest beyond the limit; other companies' uploads are never dropped
//! for room. Reads and the take filter by company, token and expiry; the take is one
//! `DELETE ... RETURNING`, so a token is imported at most once.

use async_trait::async_trait;
use chatflow_core::inbox::import::Sheet;
use chatflow_core::inbox::ports::StagedUploadRepo;
use chatflow_core::{Error, ErrorCode, Result, TenantScope};
use chrono::{DateTime, Utc};

use crate::Store;
use crate::error::db_error;

fn encode(sheet: &Sheet) -> Result<String> {
    serde_json::to_string(sheet).map_err(|e| Error::internal(format!("staged sheet: {e}")))
}

fn decode(text: &str) -> Result<Sheet> {
    serde_json::from_str(text).map_err(|e| Error::internal(format!("staged sheet: {e}")))
}

#[async_trait]
impl StagedUploadRepo for Store {
    #[tracing::instrument(level = "debug", name = "StagedUploadRepo::stage", skip_all, fields(company = scope.company_id().0))]
    async fn stage(
        &self,
        scope: TenantScope,
        token: &str,
        sheet: &Sheet,
        now: DateTime<Utc>,
        expires_at: DateTime<Utc>,
        keep: u32,
    ) -> Result<()> {
        let company = scope.company_id().0;
        let text = encode(sheet)?;
        let rows = i64::try_from(sheet.len()).unwrap_or(i64::MAX);
        crate::on_pool!(self.pool(), |p| {
            let mut tx = p.begin().await.map_err(db_error)?;
            let touched = sqlx::query("UPDATE companies SET id = id WHERE id = $1")
                .bind(company)
                .execute(&mut *tx)
                .await
                .map_err(db_error)?;
            if touched.rows_affected() == 0 {
                tx.rollback().await.map_err(db_error)?;
                return Err(Error::new(ErrorCode::ERR_NO_COMPANY_FOUND));
            }
            sqlx::query("DELETE FROM staged_uploads WHERE expires_at_ms <= $1")
                .bind(now.timestamp_millis())
                .execute(&mut *tx)
                .await
                .map_err(db_error)?;
            sqlx::query(
                "INSERT INTO staged_uploads \
                 (company_id, token, sheet, row_count, created_at_ms, expires_at_ms) \
                 VALUES ($1, $2, $3, $4, $5, $6)",
            )
            .bind(company)
            .bind(token)
            .bind(&text)
            .bind(rows)
            .bind(now.timestamp_millis())
            .bind(expires_at.timestamp_millis())
            .execute(&mut *tx)
            .await
            .map_err(db_error)?;
            sqlx::query(
                "DELETE FROM staged_uploads WHERE company_id = $1 AND id NOT IN \
                 (SELECT id FROM staged_uploads WHERE company_id = $1 ORDER BY id DESC LIMIT $2)",
            )
            .bind(company)
            .bind(i64::from(keep))
            .execute(&mut *tx)
            .await
            .map_err(db_error)?;
            tx.commit().await.map_err(db_error)
        })
    }

    #[tracing::instrument(level = "debug", name = "StagedUploadRepo::staged", skip_all, fields(company = scope.company_id().0))]
    async fn staged(
        &self,
        scope: TenantScope,
        token: &str,
        now: DateTime<Utc>,
    ) -> Result<Option<Sheet>> {
        let text: Option<String> = crate::on_pool!(self.pool(), |p| {
            sqlx::query_scalar(
                "SELECT sheet FROM staged_uploads \
                 WHERE company_id = $1 AND token = $2 AND expires_at_ms > $3",
            )
            .bind(scope.company_id().0)
            .bind(token)
            .bind(now.timestamp_millis())
            .fetch_optional(p)
            .await
            .map_err(db_error)
        })?;
        text.as_deref().map(decode).transpose()
    }

    #[tracing::instrument(level = "debug", name = "StagedUploadRepo::take", skip_all, fields(company = scope.company_id().0))]
    async fn take(
        &self,
        scope: TenantScope,
        token: &str,
        now: DateTime<Utc>,
    ) -> Result<Option<Sheet>> {
        let text: Option<String> = crate::on_pool!(self.pool(), |p| {
            sqlx::query_scalar(
                "DELETE FROM staged_uploads \
                 WHERE company_id = $1 AND token = $2 AND expires_at_ms > $3 RETURNING sheet",
            )
            .bind(scope.company_id().0)
            .bind(token)
            .bind(now.timestamp_millis())
            .fetch_optional(p)
            .await
            .map_err(db_error)
        })?;
        text.as_deref().map(decode).transpose()
    }

    #[tracing::instrument(
        level = "debug",
        name = "StagedUploadRepo::prune_expired_across_companies",
        skip_all
    )]
    async fn prune_expired_across_companies(&self, now: DateTime<Utc>) -> Result<u64> {
        crate::on_pool!(self.pool(), |p| {
            sqlx::query("DELETE FROM staged_uploads WHERE expires_at_ms <= $1")
                .bind(now.timestamp_millis())
                .execute(p)
                .await
                .map(|done| done.rows_affected())
                .map_err(db_error)
        })
    }
}
