//! Bulk loading for development and benchmarks (`chatflow dev seed`): contacts, tickets and
//! messages written with multi-row `INSERT`s, one transaction per call.
//!
//! This path skips the use cases on purpose (no events, no logs, no per-row checks): it exists
//! to fill a company with a realistic volume quickly. Callers pass a few thousand rows per call;
//! each statement carries at most [`ROWS_PER_STATEMENT`] rows so the bind parameters stay well
//! under both engines' limits. Search columns are filled with the core's normalisation, as the
//! repositories do.

use chatflow_core::inbox::search::normalize;
use chatflow_core::{Result, TenantScope};
use chrono::{DateTime, Utc};
// Every dynamic statement below is built from fixed text and numbered placeholders only.
use sqlx::AssertSqlSafe;
use uuid::Uuid;

use crate::Store;
use crate::error::db_error;

/// Rows per `INSERT` statement.
pub const ROWS_PER_STATEMENT: usize = 400;

/// A contact to insert.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BulkContact {
    pub name: String,
    /// Unique per company (the number the channel knows).
    pub number: String,
    pub email: String,
    pub created_at: DateTime<Utc>,
}

/// A ticket to insert. At most one ticket per (contact, connection) may be other than
/// `closed` (the database enforces it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BulkTicket {
    pub uuid: Uuid,
    pub contact_id: i64,
    /// `open`, `pending` or `closed`.
    pub status: String,
    pub unread_messages: i64,
    pub last_message: String,
    pub user_id: Option<i64>,
    pub queue_id: Option<i64>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

/// A message to insert.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BulkMessage {
    pub ticket_id: i64,
    pub contact_id: i64,
    /// The channel's id of the message, unique per connection.
    pub external_id: String,
    pub body: String,
    pub from_me: bool,
    pub read: bool,
    pub created_at: DateTime<Utc>,
}

/// `($1, $2, ...), (...)` for `rows` rows of `columns` values.
fn placeholders(rows: usize, columns: usize) -> String {
    let mut sql = String::with_capacity(rows * columns * 5);
    for row in 0..rows {
        if row > 0 {
            sql.push_str(", ");
        }
        sql.push('(');
        for column in 0..columns {
            if column > 0 {
                sql.push_str(", ");
            }
            sql.push('$');
            sql.push_str(&(row * columns + column + 1).to_string());
        }
        sql.push(')');
    }
    sql
}

/// Begins a write transaction (`BEGIN IMMEDIATE` on SQLite).
macro_rules! begin_write {
    (sqlite, $p:expr) => {
        $p.begin_with("BEGIN IMMEDIATE").await.map_err(db_error)?
    };
    (postgres, $p:expr) => {
        $p.begin().await.map_err(db_error)?
    };
}

/// Runs `$body` with `$tx` a write transaction of the store's engine, then commits.
macro_rules! in_write_tx {
    ($store:expr, |$tx:ident| $body:expr) => {
        match $store.pool() {
            $crate::DbPool::Sqlite(p) => {
                let mut $tx = begin_write!(sqlite, p);
                let out = $body;
                $tx.commit().await.map_err(db_error)?;
                out
            }
            $crate::DbPool::Postgres(p) => {
                let mut $tx = begin_write!(postgres, p);
                let out = $body;
                $tx.commit().await.map_err(db_error)?;
                out
            }
        }
    };
}

impl Store {
    /// The company's connection named `name`, created (sandbox channel, connected) when missing;
    /// seeded tickets and contacts hang on it.
    pub async fn bulk_connection(&self, scope: TenantScope, name: &str) -> Result<i64> {
        let company = scope.company_id().0;
        let found: Option<i64> = crate::on_pool!(self.pool(), |p| {
            sqlx::query_scalar(
                "SELECT id FROM whatsapps WHERE company_id = $1 AND name = $2 ORDER BY id LIMIT 1",
            )
            .bind(company)
            .bind(name)
            .fetch_optional(p)
            .await
            .map_err(db_error)?
        });
        if let Some(id) = found {
            return Ok(id);
        }
        let id: i64 = crate::on_pool!(self.pool(), |p| {
            sqlx::query_scalar(
                "INSERT INTO whatsapps (company_id, name, channel, status, provider, created_at, \
                 updated_at) VALUES ($1, $2, 'whatsapp', 'CONNECTED', 'sandbox', $3, $3) \
                 RETURNING id",
            )
            .bind(company)
            .bind(name)
            .bind(self.now())
            .fetch_one(p)
            .await
            .map_err(db_error)?
        });
        Ok(id)
    }

    /// How many contacts the company has (seeding numbers new contacts after them).
    pub async fn bulk_contact_count(&self, scope: TenantScope) -> Result<i64> {
        let count: i64 = crate::on_pool!(self.pool(), |p| {
            sqlx::query_scalar("SELECT COUNT(*) FROM contacts WHERE company_id = $1")
                .bind(scope.company_id().0)
                .fetch_one(p)
                .await
                .map_err(db_error)?
        });
        Ok(count)
    }

    /// Inserts contacts on `whatsapp` in one transaction; returns their ids in input order.
    pub async fn bulk_contacts(
        &self,
        scope: TenantScope,
        whatsapp: i64,
        rows: &[BulkContact],
    ) -> Result<Vec<i64>> {
        let company = scope.company_id().0;
        let mut ids = Vec::with_capacity(rows.len());
        in_write_tx!(self, |tx| {
            for chunk in rows.chunks(ROWS_PER_STATEMENT) {
                let sql = format!(
                    "INSERT INTO contacts (company_id, name, number, email, whatsapp_id, \
                     search_text, created_at, updated_at) VALUES {} RETURNING id, number",
                    placeholders(chunk.len(), 8)
                );
                let mut query = sqlx::query_as::<_, (i64, String)>(AssertSqlSafe(sql));
                for row in chunk {
                    query = query
                        .bind(company)
                        .bind(&row.name)
                        .bind(&row.number)
                        .bind(&row.email)
                        .bind(whatsapp)
                        .bind(normalize(&format!(
                            "{} {} {}",
                            row.name, row.number, row.email
                        )))
                        .bind(row.created_at)
                        .bind(row.created_at);
                }
                let returned = query.fetch_all(&mut *tx).await.map_err(db_error)?;
                ids.extend(in_order(chunk, returned, |row| row.number.clone())?);
            }
        });
        Ok(ids)
    }

    /// Inserts tickets on `whatsapp` in one transaction; returns their ids in input order.
    pub async fn bulk_tickets(
        &self,
        scope: TenantScope,
        whatsapp: i64,
        rows: &[BulkTicket],
    ) -> Result<Vec<i64>> {
        let company = scope.company_id().0;
        let mut ids = Vec::with_capacity(rows.len());
        in_write_tx!(self, |tx| {
            for chunk in rows.chunks(ROWS_PER_STATEMENT) {
                let sql = format!(
                    "INSERT INTO tickets (company_id, uuid, status, unread_messages, \
                     last_message, channel, user_id, queue_id, whatsapp_id, contact_id, \
                     created_at, updated_at) VALUES {} RETURNING id, uuid",
                    placeholders(chunk.len(), 12)
                );
                let mut query = sqlx::query_as::<_, (i64, Uuid)>(AssertSqlSafe(sql));
                for row in chunk {
                    query = query
                        .bind(company)
                        .bind(row.uuid)
                        .bind(&row.status)
                        .bind(row.unread_messages)
                        .bind(&row.last_message)
                        .bind("whatsapp")
                        .bind(row.user_id)
                        .bind(row.queue_id)
                        .bind(whatsapp)
                        .bind(row.contact_id)
                        .bind(row.created_at)
                        .bind(row.updated_at);
                }
                let returned = query.fetch_all(&mut *tx).await.map_err(db_error)?;
                ids.extend(in_order(chunk, returned, |row| row.uuid)?);
            }
        });
        Ok(ids)
    }

    /// Inserts messages on `whatsapp` in one transaction; returns how many were written.
    pub async fn bulk_messages(
        &self,
        scope: TenantScope,
        whatsapp: i64,
        rows: &[BulkMessage],
    ) -> Result<u64> {
        let company = scope.company_id().0;
        let mut written = 0;
        in_write_tx!(self, |tx| {
            for chunk in rows.chunks(ROWS_PER_STATEMENT) {
                let sql = format!(
                    "INSERT INTO messages (company_id, ticket_id, contact_id, whatsapp_id, \
                     external_id, body, search_text, from_me, read, ack, created_at, \
                     updated_at) VALUES {}",
                    placeholders(chunk.len(), 12)
                );
                let mut query = sqlx::query(AssertSqlSafe(sql));
                for row in chunk {
                    query = query
                        .bind(company)
                        .bind(row.ticket_id)
                        .bind(row.contact_id)
                        .bind(whatsapp)
                        .bind(&row.external_id)
                        .bind(&row.body)
                        .bind(normalize(&row.body))
                        .bind(row.from_me)
                        .bind(row.read)
                        .bind(if row.from_me { 3_i64 } else { 0 })
                        .bind(row.created_at)
                        .bind(row.created_at);
                }
                written += query
                    .execute(&mut *tx)
                    .await
                    .map_err(db_error)?
                    .rows_affected();
            }
        });
        Ok(written)
    }

    /// Refreshes the planner's statistics after a bulk load (`ANALYZE`).
    pub async fn bulk_analyze(&self) -> Result<()> {
        crate::on_pool!(self.pool(), |p| {
            sqlx::query("ANALYZE")
                .execute(p)
                .await
                .map(|_| ())
                .map_err(db_error)?
        });
        Ok(())
    }
}

/// The returned `(id, key)` pairs in the order of `rows` (RETURNING does not promise order).
fn in_order<R, K: Eq + std::hash::Hash>(
    rows: &[R],
    returned: Vec<(i64, K)>,
    key: impl Fn(&R) -> K,
) -> Result<Vec<i64>> {
    let by_key: std::collections::HashMap<K, i64> =
        returned.into_iter().map(|(id, k)| (k, id)).collect();
    rows.iter()
        .map(|row| {
            by_key.get(&key(row)).copied().ok_or_else(|| {
                chatflow_core::Error::internal("a bulk-inserted row was not returned")
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_number_every_value() {
        assert_eq!(placeholders(2, 3), "($1, $2, $3), ($4, $5, $6)");
        assert_eq!(placeholders(1, 1), "($1)");
    }
}
