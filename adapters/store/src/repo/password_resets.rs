//! [`PasswordResetRepo`] on the store: one live password-reset code per user, counted attempts,
//! single use.
//!
//! A user has at most one row per creation: [`PasswordResetRepo::create`] deletes the user's
//! earlier rows in the same transaction. Reads take the user's newest row only and judge it
//! (unused, not expired), so an older row can never come back to life, even one left by two
//! requests racing each other. Attempt counting and use are conditional updates, so concurrent
//! requests cannot exceed the attempt limit or use a code twice.

use async_trait::async_trait;
use chatflow_core::ports::{NewPasswordReset, PasswordReset, PasswordResetRepo};
use chatflow_core::{CompanyId, Error, ErrorCode, Result, TenantScope, UserId};
use chrono::{DateTime, Utc};

use crate::Store;
use crate::error::db_error;

#[derive(sqlx::FromRow)]
struct ResetRow {
    id: i64,
    company_id: i64,
    user_id: i64,
    code_hash: String,
    expires_at: DateTime<Utc>,
    attempts: i64,
    used_at: Option<DateTime<Utc>>,
    created_at: DateTime<Utc>,
}

impl TryFrom<ResetRow> for PasswordReset {
    type Error = Error;

    fn try_from(row: ResetRow) -> Result<Self> {
        let attempts = u32::try_from(row.attempts).map_err(|_| {
            Error::internal(format!(
                "unexpected value {} in column password_resets.attempts",
                row.attempts
            ))
        })?;
        Ok(PasswordReset {
            id: row.id,
            company_id: CompanyId(row.company_id),
            user_id: UserId(row.user_id),
            code_hash: row.code_hash,
            expires_at: row.expires_at,
            attempts,
            used_at: row.used_at,
            created_at: row.created_at,
        })
    }
}

/// Inserts a code only when its user belongs to the scope's company; binds are company, user,
/// code hash, expiry, issue time.
const INSERT_SCOPED: &str = "INSERT INTO password_resets \
     (company_id, user_id, code_hash, expires_at, attempts, created_at) \
     SELECT u.company_id, u.id, $3, $4, 0, $5 FROM users u \
     WHERE u.id = $2 AND u.company_id = $1 \
     RETURNING id, company_id, user_id, code_hash, expires_at, attempts, used_at, created_at";

/// The newest code of a user; binds are company, user.
const SELECT_NEWEST: &str = "SELECT id, company_id, user_id, code_hash, expires_at, attempts, \
     used_at, created_at FROM password_resets \
     WHERE company_id = $1 AND user_id = $2 ORDER BY id DESC LIMIT 1";

#[async_trait]
impl PasswordResetRepo for Store {
    #[tracing::instrument(level = "debug", name = "PasswordResetRepo::create", skip_all, fields(company = scope.company_id().0))]
    async fn create(
        &self,
        scope: TenantScope,
        reset: &NewPasswordReset,
        at: DateTime<Utc>,
    ) -> Result<PasswordReset> {
        let company = scope.company_id().0;
        let row = crate::on_pool!(self.pool(), |p| {
            let mut tx = p.begin().await.map_err(db_error)?;
            sqlx::query("DELETE FROM password_resets WHERE company_id = $1 AND user_id = $2")
                .bind(company)
                .bind(reset.user_id.0)
                .execute(&mut *tx)
                .await
                .map_err(db_error)?;
            let row = sqlx::query_as::<_, ResetRow>(INSERT_SCOPED)
                .bind(company)
                .bind(reset.user_id.0)
                .bind(&reset.code_hash)
                .bind(reset.expires_at)
                .bind(at)
                .fetch_optional(&mut *tx)
                .await
                .map_err(db_error)?;
            match row {
                Some(row) => {
                    tx.commit().await.map_err(db_error)?;
                    Ok(row)
                }
                None => {
                    tx.rollback().await.map_err(db_error)?;
                    Err(Error::new(ErrorCode::ERR_NO_USER_FOUND))
                }
            }
        })?;
        row.try_into()
    }

    #[tracing::instrument(level = "debug", name = "PasswordResetRepo::latest_live", skip_all, fields(company = scope.company_id().0, user = user.0))]
    async fn latest_live(
        &self,
        scope: TenantScope,
        user: UserId,
        now: DateTime<Utc>,
    ) -> Result<Option<PasswordReset>> {
        let row = crate::on_pool!(self.pool(), |p| {
            sqlx::query_as::<_, ResetRow>(SELECT_NEWEST)
                .bind(scope.company_id().0)
                .bind(user.0)
                .fetch_optional(p)
                .await
                .map_err(db_error)
        })?;
        // Judged here rather than in SQL: SQLite compares timestamps as text.
        match row {
            Some(row) if row.used_at.is_none() && row.expires_at > now => Ok(Some(row.try_into()?)),
            _ => Ok(None),
        }
    }

    #[tracing::instrument(level = "debug", name = "PasswordResetRepo::count_attempt", skip_all, fields(company = scope.company_id().0, id = id))]
    async fn count_attempt(
        &self,
        scope: TenantScope,
        id: i64,
        max_attempts: u32,
    ) -> Result<Option<u32>> {
        let counted = crate::on_pool!(self.pool(), |p| {
            sqlx::query_scalar::<_, i64>(
                "UPDATE password_resets SET attempts = attempts + 1 \
                 WHERE id = $1 AND company_id = $2 AND used_at IS NULL AND attempts < $3 \
                 RETURNING attempts",
            )
            .bind(id)
            .bind(scope.company_id().0)
            .bind(i64::from(max_attempts))
            .fetch_optional(p)
            .await
            .map_err(db_error)
        })?;
        counted
            .map(|n| {
                u32::try_from(n).map_err(|_| {
                    Error::internal(format!(
                        "unexpected value {n} in column password_resets.attempts"
                    ))
                })
            })
            .transpose()
    }

    #[tracing::instrument(level = "debug", name = "PasswordResetRepo::mark_used", skip_all, fields(company = scope.company_id().0, id = id))]
    async fn mark_used(&self, scope: TenantScope, id: i64, at: DateTime<Utc>) -> Result<bool> {
        let marked = crate::on_pool!(self.pool(), |p| {
            sqlx::query(
                "UPDATE password_resets SET used_at = $1 \
                 WHERE id = $2 AND company_id = $3 AND used_at IS NULL",
            )
            .bind(at)
            .bind(id)
            .bind(scope.company_id().0)
            .execute(p)
            .await
            .map_err(db_error)?
            .rows_affected()
        });
        Ok(marked == 1)
    }
}
