//! [`HelpRepo`] on the store: platform-level help entries.

use async_trait::async_trait;
use chatflow_core::Result;
use chatflow_core::ports::HelpRepo;

use crate::Store;
use crate::error::db_error;

#[async_trait]
impl HelpRepo for Store {
    #[tracing::instrument(level = "debug", name = "HelpRepo::count", skip_all)]
    async fn count(&self) -> Result<i64> {
        crate::on_pool!(self.pool(), |p| {
            sqlx::query_scalar::<_, i64>("SELECT COUNT(*) FROM helps")
                .fetch_one(p)
                .await
                .map_err(db_error)
        })
    }
}
