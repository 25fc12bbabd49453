//! [`SessionStateRepo`] on the store: channel sessions' key state in `channel_session_state`,
//! one row per (connection, namespace, key), values as bytes.
//!
//! - Reads are single statements. A key prefix is read as the byte range
//!   `prefix <= k < prefix_end(prefix)` ([`prefix_end`]), which the primary key answers on both
//!   engines (`BLOB` and `bytea` compare as bytes).
//! - `apply` and `take` run in one transaction that first checks the fence: the connection's
//!   lease row must hold `fence` as its token and an owner. On PostgreSQL that read locks the
//!   lease row (`FOR SHARE`), so an acquisition by another process waits for the write to commit
//!   and every later write with the old token is refused; SQLite's write transaction
//!   (`BEGIN IMMEDIATE`) already excludes the acquisition. Any failing op rolls the whole batch
//!   back.

use async_trait::async_trait;
use chatflow_core::inbox::lease::LeaseToken;
use chatflow_core::inbox::session_state::{
    SessionStateRepo, StateNamespace, StateOp, StateRow, prefix_end,
};
use chatflow_core::{Error, ErrorCode, Result, WhatsappId};

use crate::error::db_error;
use crate::{Backend, Store};

/// A row as read.
#[derive(sqlx::FromRow)]
struct Row {
    k: Vec<u8>,
    v: Vec<u8>,
    aux: i64,
}

impl From<Row> for StateRow {
    fn from(row: Row) -> StateRow {
        StateRow {
            key: row.k,
            value: row.v,
            aux: row.aux,
        }
    }
}

/// How many keys one `get_many` statement binds (far below either engine's parameter limit).
const KEYS_PER_STATEMENT: usize = 500;

/// The fence check of a write: the connection's current token while an owner holds it.
fn fence_sql(backend: Backend) -> &'static str {
    match backend {
        Backend::Postgres => {
            "SELECT token FROM channel_leases WHERE whatsapp_id = $1 AND owner IS NOT NULL \
             FOR SHARE"
        }
        Backend::Sqlite => {
            "SELECT token FROM channel_leases WHERE whatsapp_id = $1 AND owner IS NOT NULL"
        }
    }
}

/// `ERR_CHANNEL_LEASE_LOST` unless `current` (the lease row's token) is `fence`.
fn check_fence(connection: WhatsappId, fence: LeaseToken, current: Option<i64>) -> Result<()> {
    if current == Some(fence.0) {
        return Ok(());
    }
    let now = match current {
        Some(token) => format!("its token is {token}"),
        None => "nobody holds its lease".to_owned(),
    };
    Err(Error::with_detail(
        ErrorCode::ERR_CHANNEL_LEASE_LOST,
        format!("connection {connection}: a write with token {fence} was refused, {now}"),
    ))
}

#[async_trait]
impl SessionStateRepo for Store {
    #[tracing::instrument(level = "debug", name = "SessionStateRepo::get", skip_all, fields(connection = connection.0, ns = ns.name()))]
    async fn get(
        &self,
        connection: WhatsappId,
        ns: StateNamespace,
        key: &[u8],
    ) -> Result<Option<StateRow>> {
        let row: Option<Row> = crate::on_pool!(self.pool(), |p| {
            sqlx::query_as(
                "SELECT k, v, aux FROM channel_session_state \
                 WHERE whatsapp_id = $1 AND ns = $2 AND k = $3",
            )
            .bind(connection.0)
            .bind(ns.code())
            .bind(key)
            .fetch_optional(p)
            .await
            .map_err(db_error)
        })?;
        Ok(row.map(StateRow::from))
    }

    #[tracing::instrument(level = "debug", name = "SessionStateRepo::get_many", skip_all, fields(connection = connection.0, ns = ns.name(), keys = keys.len()))]
    async fn get_many(
        &self,
        connection: WhatsappId,
        ns: StateNamespace,
        keys: &[Vec<u8>],
    ) -> Result<Vec<StateRow>> {
        let mut rows: Vec<StateRow> = Vec::with_capacity(keys.len());
        for chunk in keys.chunks(KEYS_PER_STATEMENT) {
            let placeholders: Vec<String> =
                (0..chunk.len()).map(|i| format!("${}", i + 3)).collect();
            // Only numbered placeholders are formatted into the statement.
            let sql = format!(
                "SELECT k, v, aux FROM channel_session_state \
                 WHERE whatsapp_id = $1 AND ns = $2 AND k IN ({})",
                placeholders.join(", ")
            );
            let found: Vec<Row> = crate::on_pool!(self.pool(), |p| {
                let mut query = sqlx::query_as(sqlx::AssertSqlSafe(sql))
                    .bind(connection.0)
                    .bind(ns.code());
                for key in chunk {
                    query = query.bind(key.as_slice());
                }
                query.fetch_all(p).await.map_err(db_error)
            })?;
            rows.extend(found.into_iter().map(StateRow::from));
        }
        rows.sort_by(|a, b| a.key.cmp(&b.key));
        rows.dedup_by(|a, b| a.key == b.key);
        Ok(rows)
    }

    #[tracing::instrument(level = "debug", name = "SessionStateRepo::list", skip_all, fields(connection = connection.0, ns = ns.name()))]
    async fn list(
        &self,
        connection: WhatsappId,
        ns: StateNamespace,
        prefix: &[u8],
    ) -> Result<Vec<StateRow>> {
        let end = prefix_end(prefix);
        let rows: Vec<Row> = crate::on_pool!(self.pool(), |p| {
            match &end {
                Some(end) => sqlx::query_as(
                    "SELECT k, v, aux FROM channel_session_state \
                     WHERE whatsapp_id = $1 AND ns = $2 AND k >= $3 AND k < $4 ORDER BY k",
                )
                .bind(connection.0)
                .bind(ns.code())
                .bind(prefix)
                .bind(end.as_slice()),
                None => sqlx::query_as(
                    "SELECT k, v, aux FROM channel_session_state \
                     WHERE whatsapp_id = $1 AND ns = $2 AND k >= $3 ORDER BY k",
                )
                .bind(connection.0)
                .bind(ns.code())
                .bind(prefix),
            }
            .fetch_all(p)
            .await
            .map_err(db_error)
        })?;
        Ok(rows.into_iter().map(StateRow::from).collect())
    }

    #[tracing::instrument(level = "debug", name = "SessionStateRepo::max_aux", skip_all, fields(connection = connection.0, ns = ns.name()))]
    async fn max_aux(&self, connection: WhatsappId, ns: StateNamespace) -> Result<Option<i64>> {
        crate::on_pool!(self.pool(), |p| {
            sqlx::query_scalar::<_, Option<i64>>(
                "SELECT MAX(aux) FROM channel_session_state WHERE whatsapp_id = $1 AND ns = $2",
            )
            .bind(connection.0)
            .bind(ns.code())
            .fetch_one(p)
            .await
            .map_err(db_error)
        })
    }

    #[tracing::instrument(level = "debug", name = "SessionStateRepo::apply", skip_all, fields(connection = connection.0, fence = fence.0, ops = ops.len()))]
    async fn apply(
        &self,
        connection: WhatsappId,
        fence: LeaseToken,
        ops: &[StateOp],
    ) -> Result<u64> {
        let fence_sql = fence_sql(self.backend());
        // The ends of the prefix deletes' ranges, computed before the transaction opens.
        let ends: Vec<Option<Vec<u8>>> = ops
            .iter()
            .map(|op| match op {
                StateOp::DeletePrefix { prefix, .. } => prefix_end(prefix),
                _ => None,
            })
            .collect();
        crate::inbox_write_tx!(self, |tx| {
            async {
                let current: Option<i64> = sqlx::query_scalar(fence_sql)
                    .bind(connection.0)
                    .fetch_optional(&mut *tx)
                    .await
                    .map_err(db_error)?;
                check_fence(connection, fence, current)?;
                let mut affected = 0u64;
                for (op, end) in ops.iter().zip(&ends) {
                    let query = match op {
                        StateOp::Put {
                            ns,
                            key,
                            value,
                            aux,
                        } => sqlx::query(
                            "INSERT INTO channel_session_state (whatsapp_id, ns, k, v, aux) \
                             VALUES ($1, $2, $3, $4, $5) \
                             ON CONFLICT (whatsapp_id, ns, k) \
                             DO UPDATE SET v = excluded.v, aux = excluded.aux",
                        )
                        .bind(connection.0)
                        .bind(ns.code())
                        .bind(key.as_slice())
                        .bind(value.as_slice())
                        .bind(*aux),
                        StateOp::SetAux { ns, key, aux } => sqlx::query(
                            "UPDATE channel_session_state SET aux = $4 \
                             WHERE whatsapp_id = $1 AND ns = $2 AND k = $3",
                        )
                        .bind(connection.0)
                        .bind(ns.code())
                        .bind(key.as_slice())
                        .bind(*aux),
                        StateOp::Delete { ns, key } => sqlx::query(
                            "DELETE FROM channel_session_state \
                             WHERE whatsapp_id = $1 AND ns = $2 AND k = $3",
                        )
                        .bind(connection.0)
                        .bind(ns.code())
                        .bind(key.as_slice()),
                        StateOp::DeletePrefix { ns, prefix } => match end {
                            Some(end) => sqlx::query(
                                "DELETE FROM channel_session_state \
                                 WHERE whatsapp_id = $1 AND ns = $2 AND k >= $3 AND k < $4",
                            )
                            .bind(connection.0)
                            .bind(ns.code())
                            .bind(prefix.as_slice())
                            .bind(end.as_slice()),
                            None => sqlx::query(
                                "DELETE FROM channel_session_state \
                                 WHERE whatsapp_id = $1 AND ns = $2 AND k >= $3",
                            )
                            .bind(connection.0)
                            .bind(ns.code())
                            .bind(prefix.as_slice()),
                        },
                        StateOp::DeleteAuxBelow { ns, cutoff } => sqlx::query(
                            "DELETE FROM channel_session_state \
                             WHERE whatsapp_id = $1 AND ns = $2 AND aux < $3",
                        )
                        .bind(connection.0)
                        .bind(ns.code())
                        .bind(*cutoff),
                    };
                    affected += query
                        .execute(&mut *tx)
                        .await
                        .map_err(db_error)?
                        .rows_affected();
                }
                Ok(affected)
            }
            .await
        })
    }

    #[tracing::instrument(level = "debug", name = "SessionStateRepo::take", skip_all, fields(connection = connection.0, fence = fence.0, ns = ns.name()))]
    async fn take(
        &self,
        connection: WhatsappId,
        fence: LeaseToken,
        ns: StateNamespace,
        key: &[u8],
    ) -> Result<Option<StateRow>> {
        let fence_sql = fence_sql(self.backend());
        let row: Option<Row> = crate::inbox_write_tx!(self, |tx| {
            async {
                let current: Option<i64> = sqlx::query_scalar(fence_sql)
                    .bind(connection.0)
                    .fetch_optional(&mut *tx)
                    .await
                    .map_err(db_error)?;
                check_fence(connection, fence, current)?;
                sqlx::query_as(
                    "DELETE FROM channel_session_state \
                     WHERE whatsapp_id = $1 AND ns = $2 AND k = $3 RETURNING k, v, aux",
                )
                .bind(connection.0)
                .bind(ns.code())
                .bind(key)
                .fetch_optional(&mut *tx)
                .await
                .map_err(db_error)
            }
            .await
        })?;
        Ok(row.map(StateRow::from))
    }

    #[tracing::instrument(level = "debug", name = "SessionStateRepo::wipe", skip_all, fields(connection = connection.0))]
    async fn wipe(&self, connection: WhatsappId) -> Result<u64> {
        crate::on_pool!(self.pool(), |p| {
            sqlx::query("DELETE FROM channel_session_state WHERE whatsapp_id = $1")
                .bind(connection.0)
                .execute(p)
                .await
                .map(|done| done.rows_affected())
                .map_err(db_error)
        })
    }
}
