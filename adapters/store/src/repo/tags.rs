//! [`TagRepo`] on the store: a company's tags, a contact's tags and a ticket's tags. Creating,
//! editing and deleting a tag append its `company-{id}-tag` event to the company's event log in
//! the same transaction.

use async_trait::async_trait;
use chatflow_core::events::{Event, SaveAction};
use chatflow_core::ids::{ContactId, TagId, TicketId};
use chatflow_core::inbox::model::Tag;
use chatflow_core::inbox::ports::TagRepo;
use chatflow_core::service::inbox::tags::{tag_deleted_event, tag_event};
use chatflow_core::{Error, Result, TenantScope};

use crate::Store;
use crate::error::db_error;

#[derive(sqlx::FromRow)]
struct TagRow {
    id: i64,
    name: String,
    color: String,
    kanban: i64,
}

impl From<TagRow> for Tag {
    fn from(row: TagRow) -> Self {
        Tag {
            id: TagId(row.id),
            name: row.name,
            color: row.color,
            kanban: row.kanban,
        }
    }
}

#[async_trait]
impl TagRepo for Store {
    #[tracing::instrument(level = "debug", name = "TagRepo::list", skip_all, fields(company = scope.company_id().0))]
    async fn list(&self, scope: TenantScope, kanban: Option<bool>) -> Result<Vec<Tag>> {
        let sql = match kanban {
            None => {
                "SELECT id, name, color, kanban FROM tags WHERE company_id = $1 ORDER BY name, id"
            }
            Some(true) => {
                "SELECT id, name, color, kanban FROM tags WHERE company_id = $1 AND kanban = 1 \
                 ORDER BY name, id"
            }
            Some(false) => {
                "SELECT id, name, color, kanban FROM tags WHERE company_id = $1 AND kanban <> 1 \
                 ORDER BY name, id"
            }
        };
        let rows: Vec<TagRow> = crate::on_pool!(self.pool(), |p| {
            sqlx::query_as(sql)
                .bind(scope.company_id().0)
                .fetch_all(p)
                .await
                .map_err(db_error)?
        });
        Ok(rows.into_iter().map(Tag::from).collect())
    }

    #[tracing::instrument(level = "debug", name = "TagRepo::create", skip_all, fields(company = scope.company_id().0))]
    async fn create(
        &self,
        scope: TenantScope,
        name: &str,
        color: &str,
        kanban: i64,
    ) -> Result<Tag> {
        let at = self.now();
        crate::inbox_write_tx!(self, |tx| {
            async {
                let row: TagRow = sqlx::query_as(
                    "INSERT INTO tags (company_id, name, color, kanban, created_at, updated_at) \
                     VALUES ($1, $2, $3, $4, $5, $5) RETURNING id, name, color, kanban",
                )
                .bind(scope.company_id().0)
                .bind(name)
                .bind(color)
                .bind(kanban)
                .bind(at)
                .fetch_one(&mut *tx)
                .await
                .map_err(db_error)?;
                let tag = Tag::from(row);
                crate::append_events!(
                    &mut *tx,
                    scope,
                    self.now(),
                    &[tag_event(SaveAction::Create, &tag)]
                )?;
                Ok(tag)
            }
            .await
        })
    }

    #[tracing::instrument(level = "debug", name = "TagRepo::update", skip_all, fields(company = scope.company_id().0, tag = id.0))]
    async fn update(
        &self,
        scope: TenantScope,
        id: TagId,
        name: &str,
        color: &str,
        kanban: i64,
    ) -> Result<Option<Tag>> {
        let at = self.now();
        crate::inbox_write_tx!(self, |tx| {
            async {
                let row: Option<TagRow> = sqlx::query_as(
                    "UPDATE tags SET name = $3, color = $4, kanban = $5, updated_at = $6 \
                     WHERE company_id = $1 AND id = $2 RETURNING id, name, color, kanban",
                )
                .bind(scope.company_id().0)
                .bind(id.0)
                .bind(name)
                .bind(color)
                .bind(kanban)
                .bind(at)
                .fetch_optional(&mut *tx)
                .await
                .map_err(db_error)?;
                let Some(row) = row else {
                    return Ok(None);
                };
                let tag = Tag::from(row);
                crate::append_events!(
                    &mut *tx,
                    scope,
                    self.now(),
                    &[tag_event(SaveAction::Update, &tag)]
                )?;
                Ok(Some(tag))
            }
            .await
        })
    }

    #[tracing::instrument(level = "debug", name = "TagRepo::delete", skip_all, fields(company = scope.company_id().0, tag = id.0))]
    async fn delete(&self, scope: TenantScope, id: TagId) -> Result<bool> {
        crate::inbox_write_tx!(self, |tx| {
            async {
                let done = sqlx::query("DELETE FROM tags WHERE company_id = $1 AND id = $2")
                    .bind(scope.company_id().0)
                    .bind(id.0)
                    .execute(&mut *tx)
                    .await
                    .map_err(db_error)?
                    .rows_affected();
                if done == 0 {
                    return Ok(false);
                }
                crate::append_events!(&mut *tx, scope, self.now(), &[tag_deleted_event(id)])?;
                Ok(true)
            }
            .await
        })
    }

    #[tracing::instrument(level = "debug", name = "TagRepo::contact_tags", skip_all, fields(company = scope.company_id().0, contact = contact.0))]
    async fn contact_tags(&self, scope: TenantScope, contact: ContactId) -> Result<Vec<Tag>> {
        let rows: Vec<TagRow> = crate::on_pool!(self.pool(), |p| {
            sqlx::query_as(
                "SELECT t.id, t.name, t.color, t.kanban FROM contact_tags ct \
                 JOIN tags t ON t.id = ct.tag_id AND t.company_id = ct.company_id \
                 WHERE ct.company_id = $1 AND ct.contact_id = $2 ORDER BY t.name, t.id",
            )
            .bind(scope.company_id().0)
            .bind(contact.0)
            .fetch_all(p)
            .await
            .map_err(db_error)?
        });
        Ok(rows.into_iter().map(Tag::from).collect())
    }

    #[tracing::instrument(level = "debug", name = "TagRepo::set_ticket_tag", skip_all, fields(company = scope.company_id().0, ticket = ticket.0, tag = tag.0))]
    async fn set_ticket_tag(
        &self,
        scope: TenantScope,
        ticket: TicketId,
        tag: TagId,
    ) -> Result<bool> {
        // Both the ticket and the tag must be the company's: the SELECT yields no row otherwise.
        // A new link changes the ticket as lists show it, so the ticket's update event goes out
        // (and moves the company's event sequence) in the same transaction.
        crate::inbox_write_tx!(self, |tx| {
            async {
                let done = sqlx::query(
                    "INSERT INTO ticket_tags (company_id, ticket_id, tag_id) \
                     SELECT $1, tk.id, t.id FROM tickets tk JOIN tags t ON t.company_id = tk.company_id \
                     WHERE tk.company_id = $1 AND tk.id = $2 AND t.id = $3 \
                     ON CONFLICT DO NOTHING",
                )
                .bind(scope.company_id().0)
                .bind(ticket.0)
                .bind(tag.0)
                .execute(&mut *tx)
                .await
                .map_err(db_error)?
                .rows_affected();
                if done > 0 {
                    let loaded = crate::load_ticket!(&mut *tx, scope, ticket)?
                        .ok_or_else(|| Error::internal("ticket vanished while tagging"))?;
                    crate::append_events!(
                        &mut *tx,
                        scope,
                        self.now(),
                        &[Event::TicketUpdate {
                            ticket: Box::new(loaded)
                        }]
                    )?;
                    return Ok(true);
                }
                // Already linked counts as done; anything else (foreign ticket or tag) does not.
                let linked: i64 = sqlx::query_scalar(
                    "SELECT COUNT(*) FROM ticket_tags WHERE company_id = $1 AND ticket_id = $2 \
                     AND tag_id = $3",
                )
                .bind(scope.company_id().0)
                .bind(ticket.0)
                .bind(tag.0)
                .fetch_one(&mut *tx)
                .await
                .map_err(db_error)?;
                Ok(linked > 0)
            }
            .await
        })
    }

    #[tracing::instrument(level = "debug", name = "TagRepo::clear_ticket_tags", skip_all, fields(company = scope.company_id().0, ticket = ticket.0))]
    async fn clear_ticket_tags(&self, scope: TenantScope, ticket: TicketId) -> Result<bool> {
        crate::inbox_write_tx!(self, |tx| {
            async {
                let exists: i64 = sqlx::query_scalar(
                    "SELECT COUNT(*) FROM tickets WHERE company_id = $1 AND id = $2",
                )
                .bind(scope.company_id().0)
                .bind(ticket.0)
                .fetch_one(&mut *tx)
                .await
                .map_err(db_error)?;
                if exists == 0 {
                    return Ok(false);
                }
                let removed =
                    sqlx::query("DELETE FROM ticket_tags WHERE company_id = $1 AND ticket_id = $2")
                        .bind(scope.company_id().0)
                        .bind(ticket.0)
                        .execute(&mut *tx)
                        .await
                        .map_err(db_error)?
                        .rows_affected();
                if removed > 0 {
                    let loaded = crate::load_ticket!(&mut *tx, scope, ticket)?
                        .ok_or_else(|| Error::internal("ticket vanished while tagging"))?;
                    crate::append_events!(
                        &mut *tx,
                        scope,
                        self.now(),
                        &[Event::TicketUpdate {
                            ticket: Box::new(loaded)
                        }]
                    )?;
                }
                Ok(true)
            }
            .await
        })
    }
}
