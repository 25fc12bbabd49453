//! [`SessionRepo`] on the store: refresh-token sessions and their atomic rotation.

use async_trait::async_trait;
use chatflow_core::events::Event;
use chatflow_core::ports::{RefreshSession, SessionRepo};
use chatflow_core::{CompanyId, Error, ErrorCode, Result, TenantScope, UserId};
use chrono::{DateTime, Utc};
use uuid::Uuid;

use crate::Store;
use crate::error::db_error;

#[derive(sqlx::FromRow)]
struct SessionRow {
    id: Uuid,
    family: Uuid,
    company_id: i64,
    user_id: i64,
    token_hash: String,
    expires_at: DateTime<Utc>,
    used_at: Option<DateTime<Utc>>,
    revoked: bool,
}

impl From<SessionRow> for RefreshSession {
    fn from(row: SessionRow) -> Self {
        RefreshSession {
            id: row.id,
            family: row.family,
            company_id: CompanyId(row.company_id),
            user_id: UserId(row.user_id),
            token_hash: row.token_hash,
            expires_at: row.expires_at,
            used_at: row.used_at,
            revoked: row.revoked,
        }
    }
}

/// Inserts a session only when its user belongs to the scope's company; binds are
/// id, family, user, token hash, expiry, used-at, revoked, created-at, company.
const INSERT_SCOPED: &str = "INSERT INTO refresh_sessions \
     (id, family, company_id, user_id, token_hash, expires_at, used_at, revoked, created_at) \
     SELECT $1, $2, u.company_id, u.id, $4, $5, $6, $7, $8 FROM users u \
     WHERE u.id = $3 AND u.company_id = $9";

/// A session must name the company it is stored under.
fn check_scope(scope: TenantScope, session: &RefreshSession) -> Result<()> {
    if session.company_id == scope.company_id() {
        Ok(())
    } else {
        Err(Error::internal(format!(
            "refresh session of company {} stored under company {}",
            session.company_id,
            scope.company_id()
        )))
    }
}

#[async_trait]
impl SessionRepo for Store {
    #[tracing::instrument(level = "debug", name = "SessionRepo::create", skip_all, fields(company = scope.company_id().0))]
    async fn create(
        &self,
        scope: TenantScope,
        session: &RefreshSession,
        events: &[Event],
    ) -> Result<()> {
        check_scope(scope, session)?;
        let at = self.now();
        crate::on_pool!(self.pool(), |p| {
            let mut tx = p.begin().await.map_err(db_error)?;
            let inserted = sqlx::query(INSERT_SCOPED)
                .bind(session.id)
                .bind(session.family)
                .bind(session.user_id.0)
                .bind(&session.token_hash)
                .bind(session.expires_at)
                .bind(session.used_at)
                .bind(session.revoked)
                .bind(at)
                .bind(scope.company_id().0)
                .execute(&mut *tx)
                .await
                .map_err(db_error)?
                .rows_affected();
            if inserted == 0 {
                tx.rollback().await.map_err(db_error)?;
                return Err(Error::new(ErrorCode::ERR_NO_USER_FOUND));
            }
            if !events.is_empty() {
                crate::append_events!(&mut *tx, scope, at, events)?;
            }
            tx.commit().await.map_err(db_error)
        })?;
        Ok(())
    }

    #[tracing::instrument(level = "debug", name = "SessionRepo::find_by_token_hash", skip_all)]
    async fn find_by_token_hash(&self, token_hash: &str) -> Result<Option<RefreshSession>> {
        let row = crate::on_pool!(self.pool(), |p| {
            sqlx::query_as::<_, SessionRow>(
                "SELECT id, family, company_id, user_id, token_hash, expires_at, used_at, revoked \
                 FROM refresh_sessions WHERE token_hash = $1",
            )
            .bind(token_hash)
            .fetch_optional(p)
            .await
            .map_err(db_error)
        })?;
        Ok(row.map(RefreshSession::from))
    }

    #[tracing::instrument(level = "debug", name = "SessionRepo::rotate", skip_all, fields(company = scope.company_id().0))]
    async fn rotate(
        &self,
        scope: TenantScope,
        old: Uuid,
        new: &RefreshSession,
        at: DateTime<Utc>,
    ) -> Result<bool> {
        check_scope(scope, new)?;
        // The new session is created at the time the caller rotated the old one.
        let created = at;
        crate::on_pool!(self.pool(), |p| {
            let mut tx = p.begin().await.map_err(db_error)?;
            // The conditional update is the lock: of two concurrent rotations of the same token,
            // the second waits for the first and then matches no row.
            let marked = sqlx::query(
                "UPDATE refresh_sessions SET used_at = $1 \
                 WHERE id = $2 AND company_id = $3 AND used_at IS NULL AND NOT revoked",
            )
            .bind(at)
            .bind(old)
            .bind(scope.company_id().0)
            .execute(&mut *tx)
            .await
            .map_err(db_error)?
            .rows_affected();
            if marked == 0 {
                tx.rollback().await.map_err(db_error)?;
                return Ok(false);
            }
            let inserted = sqlx::query(INSERT_SCOPED)
                .bind(new.id)
                .bind(new.family)
                .bind(new.user_id.0)
                .bind(&new.token_hash)
                .bind(new.expires_at)
                .bind(new.used_at)
                .bind(new.revoked)
                .bind(created)
                .bind(scope.company_id().0)
                .execute(&mut *tx)
                .await
                .map_err(db_error)?
                .rows_affected();
            if inserted == 0 {
                tx.rollback().await.map_err(db_error)?;
                return Err(Error::new(ErrorCode::ERR_NO_USER_FOUND));
            }
            tx.commit().await.map_err(db_error)?;
            Ok(true)
        })
    }

    #[tracing::instrument(level = "debug", name = "SessionRepo::revoke_family", skip_all, fields(company = scope.company_id().0))]
    async fn revoke_family(&self, scope: TenantScope, family: Uuid) -> Result<()> {
        crate::on_pool!(self.pool(), |p| {
            sqlx::query(
                "UPDATE refresh_sessions SET revoked = TRUE WHERE family = $1 AND company_id = $2",
            )
            .bind(family)
            .bind(scope.company_id().0)
            .execute(p)
            .await
            .map_err(db_error)
            .map(|_| ())
        })?;
        Ok(())
    }

    #[tracing::instrument(level = "debug", name = "SessionRepo::revoke_user", skip_all, fields(company = scope.company_id().0, user = user.0))]
    async fn revoke_user(&self, scope: TenantScope, user: UserId) -> Result<()> {
        crate::on_pool!(self.pool(), |p| {
            sqlx::query(
                "UPDATE refresh_sessions SET revoked = TRUE WHERE user_id = $1 AND company_id = $2",
            )
            .bind(user.0)
            .bind(scope.company_id().0)
            .execute(p)
            .await
            .map_err(db_error)
            .map(|_| ())
        })?;
        Ok(())
    }

    #[tracing::instrument(level = "debug", name = "SessionRepo::revoke_user_except", skip_all, fields(company = scope.company_id().0, user = user.0))]
    async fn revoke_user_except(&self, scope: TenantScope, user: UserId, keep: Uuid) -> Result<()> {
        crate::on_pool!(self.pool(), |p| {
            sqlx::query(
                "UPDATE refresh_sessions SET revoked = TRUE \
                 WHERE user_id = $1 AND company_id = $2 AND family <> $3",
            )
            .bind(user.0)
            .bind(scope.company_id().0)
            .bind(keep)
            .execute(p)
            .await
            .map_err(db_error)
            .map(|_| ())
        })?;
        Ok(())
    }
}
