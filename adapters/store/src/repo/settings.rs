//! [`SettingsRepo`] on the store: platform and company key/value settings.

use async_trait::async_trait;
use chatflow_core::events::Event;
use chatflow_core::ports::SettingsRepo;
use chatflow_core::{ErrorCode, Result, TenantScope};

use crate::Store;
use crate::error::{db_error, db_error_missing};

#[async_trait]
impl SettingsRepo for Store {
    #[tracing::instrument(level = "debug", name = "SettingsRepo::company_settings_at", skip_all, fields(company = scope.company_id().0))]
    async fn company_settings_at(
        &self,
        scope: TenantScope,
        seq: i64,
    ) -> Result<Vec<(String, String)>> {
        let company = scope.company_id().0;
        if let Some(settings) = self.lists().settings_at(company, seq) {
            return Ok(settings.as_ref().clone());
        }
        let settings = self.company_settings(scope).await?;
        self.lists()
            .remember_settings(company, seq, settings.clone());
        Ok(settings)
    }

    #[tracing::instrument(level = "debug", name = "SettingsRepo::company_settings", skip_all, fields(company = scope.company_id().0))]
    async fn company_settings(&self, scope: TenantScope) -> Result<Vec<(String, String)>> {
        crate::on_pool!(self.pool(), |p| {
            sqlx::query_as::<_, (String, String)>(
                "SELECT key, value FROM company_settings WHERE company_id = $1 ORDER BY key",
            )
            .bind(scope.company_id().0)
            .fetch_all(p)
            .await
            .map_err(db_error)
        })
    }

    #[tracing::instrument(level = "debug", name = "SettingsRepo::set_company_setting", skip_all, fields(company = scope.company_id().0))]
    async fn set_company_setting(
        &self,
        scope: TenantScope,
        key: &str,
        value: &str,
        events: &[Event],
    ) -> Result<()> {
        let at = self.now();
        crate::on_pool!(self.pool(), |p| {
            let mut tx = p.begin().await.map_err(db_error)?;
            sqlx::query(
                "INSERT INTO company_settings (company_id, key, value, updated_at) \
                 VALUES ($1, $2, $3, $4) \
                 ON CONFLICT (company_id, key) \
                 DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at",
            )
            .bind(scope.company_id().0)
            .bind(key)
            .bind(value)
            .bind(at)
            .execute(&mut *tx)
            .await
            .map_err(|e| db_error_missing(e, ErrorCode::ERR_NO_COMPANY_FOUND))?;
            if !events.is_empty() {
                crate::append_events!(&mut *tx, scope, at, events)?;
            }
            tx.commit().await.map_err(db_error)
        })?;
        Ok(())
    }

    #[tracing::instrument(level = "debug", name = "SettingsRepo::platform_settings", skip_all)]
    async fn platform_settings(&self) -> Result<Vec<(String, String)>> {
        crate::on_pool!(self.pool(), |p| {
            sqlx::query_as::<_, (String, String)>(
                "SELECT key, value FROM platform_settings ORDER BY key",
            )
            .fetch_all(p)
            .await
            .map_err(db_error)
        })
    }

    #[tracing::instrument(level = "debug", name = "SettingsRepo::set_platform_setting", skip_all)]
    async fn set_platform_setting(
        &self,
        key: &str,
        value: &str,
        announce: Option<(TenantScope, &[Event])>,
    ) -> Result<()> {
        let at = self.now();
        crate::on_pool!(self.pool(), |p| {
            let mut tx = p.begin().await.map_err(db_error)?;
            sqlx::query(
                "INSERT INTO platform_settings (key, value, updated_at) VALUES ($1, $2, $3) \
                 ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at",
            )
            .bind(key)
            .bind(value)
            .bind(at)
            .execute(&mut *tx)
            .await
            .map_err(db_error)?;
            if let Some((scope, events)) = announce.filter(|(_, events)| !events.is_empty()) {
                crate::append_events!(&mut *tx, scope, at, events)?;
            }
            tx.commit().await.map_err(db_error)
        })?;
        Ok(())
    }
}
