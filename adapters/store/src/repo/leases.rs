//! [`ChannelLeaseRepo`] on the store: one row per connection in `channel_leases`.
//!
//! Acquiring is one upsert: it inserts the row with token 1, or, when nobody holds the lease at
//! the caller's `now` (released, expired) or the caller does, takes it with the token plus one;
//! otherwise it changes nothing and returns no row. The row is never deleted while the
//! connection exists (a release only clears the owner), so tokens only grow. Renewing and
//! releasing are compare-and-set on (owner, token). Every time is the caller's, kept at
//! microsecond precision (what PostgreSQL keeps), so a time read back equals the time written.

use async_trait::async_trait;
use chatflow_core::inbox::lease::{ChannelLeaseRepo, Lease, LeaseToken};
use chatflow_core::{ErrorCode, Result, WhatsappId};
use chrono::{DateTime, SubsecRound, TimeDelta, Utc};

use crate::Store;
use crate::error::{db_error, db_error_missing};

#[derive(sqlx::FromRow)]
struct LeaseRow {
    whatsapp_id: i64,
    owner: Option<String>,
    token: i64,
    expires_at: DateTime<Utc>,
}

impl From<LeaseRow> for Lease {
    fn from(row: LeaseRow) -> Lease {
        Lease {
            connection: WhatsappId(row.whatsapp_id),
            owner: row.owner,
            token: LeaseToken(row.token),
            expires_at: row.expires_at,
        }
    }
}

/// `at` as stored: microsecond precision.
fn stored(at: DateTime<Utc>) -> DateTime<Utc> {
    at.trunc_subsecs(6)
}

/// The end of a lease taken or renewed at `now` for `ttl`, at most the last second of year 9999
/// (later times are not written with four-digit years, and SQLite compares times as text).
fn until(now: DateTime<Utc>, ttl: TimeDelta) -> DateTime<Utc> {
    /// 9999-12-31T23:59:59Z.
    const LAST_SECOND: i64 = 253_402_300_799;
    let Some(far) = DateTime::from_timestamp(LAST_SECOND, 0) else {
        return stored(now);
    };
    stored(now.checked_add_signed(ttl).map_or(far, |end| end.min(far)))
}

#[async_trait]
impl ChannelLeaseRepo for Store {
    #[tracing::instrument(level = "debug", name = "ChannelLeaseRepo::acquire", skip_all, fields(connection = connection.0, owner = owner))]
    async fn acquire(
        &self,
        connection: WhatsappId,
        owner: &str,
        now: DateTime<Utc>,
        ttl: TimeDelta,
    ) -> Result<Option<LeaseToken>> {
        let token: Option<i64> = crate::on_pool!(self.pool(), |p| {
            sqlx::query_scalar(
                "INSERT INTO channel_leases (whatsapp_id, owner, token, expires_at) \
                 VALUES ($1, $2, 1, $4) \
                 ON CONFLICT (whatsapp_id) DO UPDATE SET owner = excluded.owner, \
                 token = channel_leases.token + 1, expires_at = excluded.expires_at \
                 WHERE channel_leases.owner IS NULL OR channel_leases.expires_at <= $3 \
                 OR channel_leases.owner = excluded.owner \
                 RETURNING token",
            )
            .bind(connection.0)
            .bind(owner)
            .bind(stored(now))
            .bind(until(now, ttl))
            .fetch_optional(p)
            .await
            .map_err(|e| db_error_missing(e, ErrorCode::ERR_NO_WAPP_FOUND))
        })?;
        Ok(token.map(LeaseToken))
    }

    #[tracing::instrument(level = "debug", name = "ChannelLeaseRepo::renew", skip_all, fields(connection = connection.0, owner = owner, token = token.0))]
    async fn renew(
        &self,
        connection: WhatsappId,
        owner: &str,
        token: LeaseToken,
        now: DateTime<Utc>,
        ttl: TimeDelta,
    ) -> Result<bool> {
        crate::on_pool!(self.pool(), |p| {
            sqlx::query(
                "UPDATE channel_leases SET expires_at = $4 \
                 WHERE whatsapp_id = $1 AND owner = $2 AND token = $3",
            )
            .bind(connection.0)
            .bind(owner)
            .bind(token.0)
            .bind(until(now, ttl))
            .execute(p)
            .await
            .map(|done| done.rows_affected() == 1)
            .map_err(db_error)
        })
    }

    #[tracing::instrument(level = "debug", name = "ChannelLeaseRepo::release", skip_all, fields(connection = connection.0, owner = owner, token = token.0))]
    async fn release(
        &self,
        connection: WhatsappId,
        owner: &str,
        token: LeaseToken,
    ) -> Result<bool> {
        crate::on_pool!(self.pool(), |p| {
            sqlx::query(
                "UPDATE channel_leases SET owner = NULL \
                 WHERE whatsapp_id = $1 AND owner = $2 AND token = $3",
            )
            .bind(connection.0)
            .bind(owner)
            .bind(token.0)
            .execute(p)
            .await
            .map(|done| done.rows_affected() == 1)
            .map_err(db_error)
        })
    }

    #[tracing::instrument(level = "debug", name = "ChannelLeaseRepo::lease", skip_all, fields(connection = connection.0))]
    async fn lease(&self, connection: WhatsappId) -> Result<Option<Lease>> {
        let row: Option<LeaseRow> = crate::on_pool!(self.pool(), |p| {
            sqlx::query_as(
                "SELECT whatsapp_id, owner, token, expires_at FROM channel_leases \
                 WHERE whatsapp_id = $1",
            )
            .bind(connection.0)
            .fetch_optional(p)
            .await
            .map_err(db_error)
        })?;
        Ok(row.map(Lease::from))
    }

    #[tracing::instrument(
        level = "debug",
        name = "ChannelLeaseRepo::claimable_across_companies",
        skip_all
    )]
    async fn claimable_across_companies(&self, now: DateTime<Utc>) -> Result<Vec<WhatsappId>> {
        let ids: Vec<i64> = crate::on_pool!(self.pool(), |p| {
            sqlx::query_scalar(
                "SELECT whatsapp_id FROM channel_leases \
                 WHERE owner IS NULL OR expires_at <= $1 ORDER BY whatsapp_id",
            )
            .bind(stored(now))
            .fetch_all(p)
            .await
            .map_err(db_error)
        })?;
        Ok(ids.into_iter().map(WhatsappId).collect())
    }
}
