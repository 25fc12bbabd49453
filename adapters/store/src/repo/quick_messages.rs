//! [`QuickMessageRepo`] on the store: a company's quick messages. Creating, editing (the file
//! too) and deleting append their `company-{id}-quickmessage` events to the company's event log in
//! the same transaction.

use async_trait::async_trait;
use chatflow_core::ids::UserId;
use chatflow_core::quick_message::{
    QuickMessage, QuickMessageFields, QuickMessageId, QuickMessageRepo, created_events,
    deleted_events, updated_events,
};
use chatflow_core::{Result, TenantScope};

use crate::Store;
use crate::error::db_error;

/// The columns every query returns, for `concat!` (queries stay `&'static str`).
macro_rules! columns {
    () => {
        "id, user_id, shortcode, message, geral, visao, status, media_file, media_name"
    };
}

#[derive(sqlx::FromRow)]
struct QuickMessageRow {
    id: i64,
    user_id: i64,
    shortcode: String,
    message: String,
    geral: bool,
    visao: bool,
    status: bool,
    media_file: Option<String>,
    media_name: Option<String>,
}

impl From<QuickMessageRow> for QuickMessage {
    fn from(row: QuickMessageRow) -> Self {
        QuickMessage {
            id: QuickMessageId(row.id),
            shortcode: row.shortcode,
            message: row.message,
            geral: row.geral,
            visao: row.visao,
            status: row.status,
            user_id: UserId(row.user_id),
            media_path: None,
            media_name: None,
            is_media: false,
            media_file: None,
        }
        .with_media(row.media_file, row.media_name)
    }
}

#[async_trait]
impl QuickMessageRepo for Store {
    #[tracing::instrument(level = "debug", name = "QuickMessageRepo::list", skip_all, fields(company = scope.company_id().0))]
    async fn list(&self, scope: TenantScope) -> Result<Vec<QuickMessage>> {
        let sql = concat!(
            "SELECT ",
            columns!(),
            " FROM quick_messages WHERE company_id = $1 ORDER BY shortcode, id"
        );
        let rows: Vec<QuickMessageRow> = crate::on_pool!(self.pool(), |p| {
            sqlx::query_as(sql)
                .bind(scope.company_id().0)
                .fetch_all(p)
                .await
                .map_err(db_error)?
        });
        Ok(rows.into_iter().map(QuickMessage::from).collect())
    }

    #[tracing::instrument(level = "debug", name = "QuickMessageRepo::get", skip_all, fields(company = scope.company_id().0, quick_message = id.0))]
    async fn get(&self, scope: TenantScope, id: QuickMessageId) -> Result<Option<QuickMessage>> {
        let sql = concat!(
            "SELECT ",
            columns!(),
            " FROM quick_messages WHERE company_id = $1 AND id = $2"
        );
        let row: Option<QuickMessageRow> = crate::on_pool!(self.pool(), |p| {
            sqlx::query_as(sql)
                .bind(scope.company_id().0)
                .bind(id.0)
                .fetch_optional(p)
                .await
                .map_err(db_error)?
        });
        Ok(row.map(QuickMessage::from))
    }

    #[tracing::instrument(level = "debug", name = "QuickMessageRepo::create", skip_all, fields(company = scope.company_id().0, user = owner.0))]
    async fn create(
        &self,
        scope: TenantScope,
        owner: UserId,
        fields: &QuickMessageFields,
    ) -> Result<QuickMessage> {
        let at = self.now();
        let sql = concat!(
            "INSERT INTO quick_messages (company_id, user_id, shortcode, message, geral, visao, \
             status, created_at, updated_at) \
             SELECT $1, u.id, $3, $4, $5, $6, $7, $8, $8 FROM users u \
             WHERE u.company_id = $1 AND u.id = $2 RETURNING ",
            columns!(),
            ""
        );
        crate::inbox_write_tx!(self, |tx| {
            async {
                let row: Option<QuickMessageRow> = sqlx::query_as(sql)
                    .bind(scope.company_id().0)
                    .bind(owner.0)
                    .bind(&fields.shortcode)
                    .bind(&fields.message)
                    .bind(fields.geral)
                    .bind(fields.visao)
                    .bind(fields.status)
                    .bind(at)
                    .fetch_optional(&mut *tx)
                    .await
                    .map_err(db_error)?;
                let created =
                    QuickMessage::from(row.ok_or(chatflow_core::ErrorCode::ERR_NO_USER_FOUND)?);
                crate::append_events!(&mut *tx, scope, self.now(), &created_events(&created))?;
                Ok(created)
            }
            .await
        })
    }

    #[tracing::instrument(level = "debug", name = "QuickMessageRepo::update", skip_all, fields(company = scope.company_id().0, quick_message = id.0))]
    async fn update(
        &self,
        scope: TenantScope,
        id: QuickMessageId,
        fields: &QuickMessageFields,
        was_shared: bool,
    ) -> Result<Option<QuickMessage>> {
        let at = self.now();
        let sql = concat!(
            "UPDATE quick_messages SET shortcode = $3, message = $4, geral = $5, visao = $6, \
             status = $7, updated_at = $8 WHERE company_id = $1 AND id = $2 RETURNING ",
            columns!(),
            ""
        );
        crate::inbox_write_tx!(self, |tx| {
            async {
                let row: Option<QuickMessageRow> = sqlx::query_as(sql)
                    .bind(scope.company_id().0)
                    .bind(id.0)
                    .bind(&fields.shortcode)
                    .bind(&fields.message)
                    .bind(fields.geral)
                    .bind(fields.visao)
                    .bind(fields.status)
                    .bind(at)
                    .fetch_optional(&mut *tx)
                    .await
                    .map_err(db_error)?;
                let Some(row) = row else {
                    return Ok(None);
                };
                let updated = QuickMessage::from(row);
                crate::append_events!(
                    &mut *tx,
                    scope,
                    self.now(),
                    &updated_events(was_shared, &updated)
                )?;
                Ok(Some(updated))
            }
            .await
        })
    }

    #[tracing::instrument(level = "debug", name = "QuickMessageRepo::set_media", skip_all, fields(company = scope.company_id().0, quick_message = id.0))]
    async fn set_media(
        &self,
        scope: TenantScope,
        id: QuickMessageId,
        media: Option<(&str, &str)>,
    ) -> Result<Option<QuickMessage>> {
        let at = self.now();
        let sql = concat!(
            "UPDATE quick_messages SET media_file = $3, media_name = $4, updated_at = $5 \
             WHERE company_id = $1 AND id = $2 RETURNING ",
            columns!(),
            ""
        );
        crate::inbox_write_tx!(self, |tx| {
            async {
                let row: Option<QuickMessageRow> = sqlx::query_as(sql)
                    .bind(scope.company_id().0)
                    .bind(id.0)
                    .bind(media.map(|(file, _)| file))
                    .bind(media.map(|(_, name)| name))
                    .bind(at)
                    .fetch_optional(&mut *tx)
                    .await
                    .map_err(db_error)?;
                let Some(row) = row else {
                    return Ok(None);
                };
                let updated = QuickMessage::from(row);
                let events = updated_events(updated.geral, &updated);
                crate::append_events!(&mut *tx, scope, self.now(), &events)?;
                Ok(Some(updated))
            }
            .await
        })
    }

    #[tracing::instrument(level = "debug", name = "QuickMessageRepo::delete", skip_all, fields(company = scope.company_id().0, quick_message = id.0))]
    async fn delete(&self, scope: TenantScope, id: QuickMessageId) -> Result<Option<QuickMessage>> {
        let sql = concat!(
            "DELETE FROM quick_messages WHERE company_id = $1 AND id = $2 RETURNING ",
            columns!(),
            ""
        );
        crate::inbox_write_tx!(self, |tx| {
            async {
                let row: Option<QuickMessageRow> = sqlx::query_as(sql)
                    .bind(scope.company_id().0)
                    .bind(id.0)
                    .fetch_optional(&mut *tx)
                    .await
                    .map_err(db_error)?;
                let Some(row) = row else {
                    return Ok(None);
                };
                let deleted = QuickMessage::from(row);
                crate::append_events!(&mut *tx, scope, self.now(), &deleted_events(&deleted))?;
                Ok(Some(deleted))
            }
            .await
        })
    }
}
