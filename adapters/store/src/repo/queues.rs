//! [`QueueRepo`] on the store: the read side of a company's queues.

use async_trait::async_trait;
use chatflow_core::ports::{QueueRepo, QueueSummary};
use chatflow_core::{QueueId, Result, TenantScope};

use crate::Store;
use crate::error::db_error;

#[derive(sqlx::FromRow)]
struct QueueSummaryRow {
    id: i64,
    name: String,
    color: String,
}

impl From<QueueSummaryRow> for QueueSummary {
    fn from(row: QueueSummaryRow) -> Self {
        QueueSummary {
            id: QueueId(row.id),
            name: row.name,
            color: row.color,
        }
    }
}

#[async_trait]
impl QueueRepo for Store {
    async fn list(&self, scope: TenantScope) -> Result<Vec<QueueSummary>> {
        let rows = crate::on_pool!(self.pool(), |p| {
            // Queues with an order come first, in that order; the rest by name.
            sqlx::query_as::<_, QueueSummaryRow>(
                "SELECT id, name, color FROM queues WHERE company_id = $1 \
                 ORDER BY CASE WHEN order_queue IS NULL THEN 1 ELSE 0 END, order_queue, name, id",
            )
            .bind(scope.company_id().0)
            .fetch_all(p)
            .await
            .map_err(db_error)
        })?;
        Ok(rows.into_iter().map(QueueSummary::from).collect())
    }

    async fn create(&self, scope: TenantScope, name: &str, color: &str) -> Result<QueueSummary> {
        let at = crate::repo::now();
        let row = crate::on_pool!(self.pool(), |p| {
            sqlx::query_as::<_, QueueSummaryRow>(
                "INSERT INTO queues (company_id, name, color, created_at, updated_at) \
                 VALUES ($1, $2, $3, $4, $4) RETURNING id, name, color",
            )
            .bind(scope.company_id().0)
            .bind(name)
            .bind(color)
            .bind(at)
            .fetch_one(p)
            .await
            .map_err(db_error)
        })?;
        Ok(row.into())
    }
}
