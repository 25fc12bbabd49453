//! Loading tickets: the joined select that brings a ticket with its contact, queue, user,
//! connection, last message and tags in one row, the row's assembly into a [`Ticket`], the
//! [`load_ticket!`](crate::load_ticket) / [`load_tickets!`](crate::load_tickets) macros (usable
//! inside any transaction, to render events), the bare state row and the single-ticket reads.

use chatflow_core::ids::{ContactId, MessageId, QueueId, TicketId, UserId, WhatsappId};
use chatflow_core::inbox::ingest::{LastMessageSource, last_message_preview};
use chatflow_core::inbox::model::{Tag, Ticket, TicketConnection, TicketContact, TicketUser};
use chatflow_core::inbox::ports::TicketRow;
use chatflow_core::ports::{ChannelKind, QueueSummary};
use chatflow_core::ticket::{TicketState, TicketStatus};
use chatflow_core::{CompanyId, Error, Result, TenantScope};
use chrono::{DateTime, Utc};

use crate::Store;
use crate::error::db_error;
use crate::repo::from_wire;

/// The ticket columns of [`TicketJoinRow`] without the tags.
macro_rules! ticket_columns {
    () => {
        "t.id, t.uuid, t.company_id, t.status, \
         t.unread_messages, t.last_message, t.is_group, t.is_bot, t.channel, t.user_id, t.queue_id, \
         t.whatsapp_id, t.contact_id, t.amount_used_bot_queues, t.use_integration, t.is_transfered, \
         t.created_at, t.updated_at, c.name AS contact_name, c.number AS contact_number, \
         c.url_picture AS contact_url_picture, c.channel AS contact_channel, \
         c.is_group AS contact_is_group, c.active AS contact_active, q.name AS queue_name, \
         q.color AS queue_color, u.name AS user_name, w.name AS whatsapp_name, \
         w.channel AS whatsapp_channel, w.group_as_ticket AS whatsapp_group_as_ticket, \
         t.last_message_id, lm.body AS last_message_body, \
         lm.media_type AS last_message_media_type, lm.is_deleted AS last_message_is_deleted, \
         lm.from_me AS last_message_from_me"
    };
}

/// The joins of [`TicketJoinRow`].
macro_rules! ticket_joins {
    () => {
        " FROM tickets t JOIN contacts c ON c.id = t.contact_id \
         LEFT JOIN queues q ON q.id = t.queue_id LEFT JOIN users u ON u.id = t.user_id \
         LEFT JOIN whatsapps w ON w.id = t.whatsapp_id \
         LEFT JOIN messages lm ON lm.id = t.last_message_id AND lm.company_id = t.company_id"
    };
}

/// `SELECT {select} WHERE ...` for [`TicketJoinRow`] on SQLite: the ticket's and its contact's
/// tags come in the same row as JSON arrays, so loading a page is one round trip.
pub(crate) const TICKET_SELECT_SQLITE: &str = concat!(
    ticket_columns!(),
    ", (SELECT json_group_array(json_object('id', g.id, 'name', g.name, 'color', g.color, \
     'kanban', g.kanban)) FROM ticket_tags tt JOIN tags g ON g.id = tt.tag_id \
     WHERE tt.ticket_id = t.id AND tt.company_id = t.company_id) AS ticket_tags_json, \
     (SELECT json_group_array(json_object('id', g.id, 'name', g.name, 'color', g.color, \
     'kanban', g.kanban)) FROM contact_tags ct JOIN tags g ON g.id = ct.tag_id \
     WHERE ct.contact_id = t.contact_id AND ct.company_id = t.company_id) AS contact_tags_json",
    ticket_joins!()
);

/// The same on PostgreSQL.
pub(crate) const TICKET_SELECT_POSTGRES: &str = concat!(
    ticket_columns!(),
    ", (SELECT json_agg(json_build_object('id', g.id, 'name', g.name, 'color', g.color, \
     'kanban', g.kanban))::text FROM ticket_tags tt JOIN tags g ON g.id = tt.tag_id \
     WHERE tt.ticket_id = t.id AND tt.company_id = t.company_id) AS ticket_tags_json, \
     (SELECT json_agg(json_build_object('id', g.id, 'name', g.name, 'color', g.color, \
     'kanban', g.kanban))::text FROM contact_tags ct JOIN tags g ON g.id = ct.tag_id \
     WHERE ct.contact_id = t.contact_id AND ct.company_id = t.company_id) AS contact_tags_json",
    ticket_joins!()
);

/// Which [`TicketJoinRow`] select a connection type speaks.
pub trait TicketDialect {
    const TICKET_SELECT: &'static str;
}

impl TicketDialect for sqlx::SqliteConnection {
    const TICKET_SELECT: &'static str = TICKET_SELECT_SQLITE;
}

impl TicketDialect for sqlx::PgConnection {
    const TICKET_SELECT: &'static str = TICKET_SELECT_POSTGRES;
}

/// The ticket select for `conn`'s engine.
pub fn ticket_select<C: TicketDialect + ?Sized>(_conn: &C) -> &'static str {
    C::TICKET_SELECT
}

/// A ticket with what its joins bring.
#[derive(sqlx::FromRow)]
pub(crate) struct TicketJoinRow {
    id: i64,
    uuid: uuid::Uuid,
    company_id: i64,
    status: String,
    unread_messages: i64,
    last_message: String,
    is_group: bool,
    is_bot: bool,
    channel: String,
    user_id: Option<i64>,
    queue_id: Option<i64>,
    whatsapp_id: Option<i64>,
    contact_id: i64,
    amount_used_bot_queues: i64,
    use_integration: bool,
    is_transfered: bool,
    created_at: DateTime<Utc>,
    updated_at: DateTime<Utc>,
    contact_name: String,
    contact_number: String,
    contact_url_picture: Option<String>,
    contact_channel: String,
    contact_is_group: bool,
    contact_active: bool,
    queue_name: Option<String>,
    queue_color: Option<String>,
    user_name: Option<String>,
    whatsapp_name: Option<String>,
    whatsapp_channel: Option<String>,
    whatsapp_group_as_ticket: Option<String>,
    last_message_id: Option<i64>,
    last_message_body: Option<String>,
    last_message_media_type: Option<String>,
    last_message_is_deleted: Option<bool>,
    last_message_from_me: Option<bool>,
    /// The ticket's tags as a JSON array (`NULL` or `[]` when none).
    ticket_tags_json: Option<String>,
    /// The contact's tags as a JSON array.
    contact_tags_json: Option<String>,
}

/// Tags from a JSON array of `{id, name, color, kanban}`, by name then id.
fn tags_of(json: Option<&str>) -> Result<Vec<Tag>> {
    let mut tags: Vec<Tag> = match json {
        None | Some("") => Vec::new(),
        Some(text) => serde_json::from_str(text)
            .map_err(|e| Error::internal(format!("unreadable tags {text:?}: {e}")))?,
    };
    tags.sort_by(|x, y| x.name.cmp(&y.name).then(x.id.0.cmp(&y.id.0)));
    Ok(tags)
}

/// A comma-separated list of integers for an `IN (...)` (ids are numbers, never text).
pub(crate) fn id_list(ids: &[i64]) -> String {
    let list: Vec<String> = ids.iter().map(i64::to_string).collect();
    if list.is_empty() {
        "NULL".into()
    } else {
        list.join(", ")
    }
}

/// Builds tickets from their rows, in the rows' order.
pub(crate) fn assemble(rows: Vec<TicketJoinRow>) -> Result<Vec<Ticket>> {
    rows.into_iter()
        .map(|row| {
            let queue = match (row.queue_id, row.queue_name) {
                (Some(id), Some(name)) => Some(QueueSummary {
                    id: QueueId(id),
                    name,
                    color: row.queue_color.unwrap_or_default(),
                }),
                _ => None,
            };
            let user = match (row.user_id, row.user_name) {
                (Some(id), Some(name)) => Some(TicketUser {
                    id: UserId(id),
                    name,
                }),
                _ => None,
            };
            let whatsapp = match (row.whatsapp_id, row.whatsapp_name) {
                (Some(id), Some(name)) => Some(TicketConnection {
                    id: WhatsappId(id),
                    name,
                    channel: from_wire::<ChannelKind>(
                        "whatsapps.channel",
                        row.whatsapp_channel.as_deref().unwrap_or("whatsapp"),
                    )?,
                    group_as_ticket: row.whatsapp_group_as_ticket.as_deref() == Some("enabled"),
                }),
                _ => None,
            };
            let source = match (row.last_message_body, row.last_message_media_type) {
                (Some(body), Some(kind)) => Some(LastMessageSource {
                    body,
                    media_type: crate::repo::messages::media_type(&kind),
                    is_deleted: row.last_message_is_deleted.unwrap_or(false),
                    from_me: row.last_message_from_me.unwrap_or(false),
                }),
                _ => None,
            };
            let preview = last_message_preview(&row.last_message, source.as_ref());
            Ok(Ticket {
                id: TicketId(row.id),
                uuid: row.uuid,
                company_id: CompanyId(row.company_id),
                status: from_wire::<TicketStatus>("tickets.status", &row.status)?,
                unread_messages: row.unread_messages,
                last_message: preview.text,
                last_message_id: source.as_ref().and(row.last_message_id.map(MessageId)),
                last_message_deleted: preview.deleted,
                last_message_from_me: preview.from_me,
                last_message_media: preview.media,
                is_group: row.is_group,
                is_bot: row.is_bot,
                channel: from_wire::<ChannelKind>("tickets.channel", &row.channel)?,
                user_id: row.user_id.map(UserId),
                queue_id: row.queue_id.map(QueueId),
                whatsapp_id: row.whatsapp_id.map(WhatsappId),
                contact_id: ContactId(row.contact_id),
                amount_used_bot_queues: row.amount_used_bot_queues,
                use_integration: row.use_integration,
                is_transferred: row.is_transfered,
                contact: TicketContact {
                    id: ContactId(row.contact_id),
                    name: row.contact_name,
                    number: row.contact_number,
                    url_picture: row.contact_url_picture,
                    channel: from_wire::<ChannelKind>("contacts.channel", &row.contact_channel)?,
                    is_group: row.contact_is_group,
                    active: row.contact_active,
                    tags: tags_of(row.contact_tags_json.as_deref())?,
                },
                queue,
                user,
                whatsapp,
                tags: tags_of(row.ticket_tags_json.as_deref())?,
                created_at: row.created_at,
                updated_at: row.updated_at,
            })
        })
        .collect()
}

/// Loads the tickets of `$scope` with the ids `$ids` (a `&[i64]`) on `$conn`, in that order:
/// evaluates to `Result<Vec<Ticket>>`.
#[macro_export]
macro_rules! load_tickets {
    ($conn:expr, $scope:expr, $ids:expr) => {{
        let scope: chatflow_core::TenantScope = $scope;
        let ids: &[i64] = $ids;
        let conn = $conn;
        async move {
            if ids.is_empty() {
                return Ok::<_, chatflow_core::Error>(Vec::new());
            }
            let company = scope.company_id().0;
            let select = $crate::repo::tickets::ticket_select(&*conn);
            let any = $crate::repo::lists::any(&*conn, "t.id", 2);
            let rows: Vec<$crate::repo::tickets::TicketJoinRow> = sqlx::query_as(
                sqlx::AssertSqlSafe(format!("SELECT {select} WHERE t.company_id = $1 AND {any}")),
            )
            .bind(company)
            .bind($crate::repo::lists::ints(&*conn, ids))
            .fetch_all(&mut *conn)
            .await
            .map_err($crate::error::db_error)?;
            let mut tickets = $crate::repo::tickets::assemble(rows)?;
            tickets.sort_by_key(|t| ids.iter().position(|i| *i == t.id.0));
            Ok(tickets)
        }
        .await
    }};
}

/// Loads one ticket of `$scope` on `$conn`: evaluates to `Result<Option<Ticket>>`.
#[macro_export]
macro_rules! load_ticket {
    ($conn:expr, $scope:expr, $id:expr) => {{
        let id: chatflow_core::ids::TicketId = $id;
        $crate::load_tickets!($conn, $scope, &[id.0]).map(|mut v| v.pop())
    }};
}

#[derive(sqlx::FromRow)]
struct StateRow {
    id: i64,
    company_id: i64,
    status: String,
    user_id: Option<i64>,
    queue_id: Option<i64>,
    is_group: bool,
    amount_used_bot_queues: i64,
    is_transfered: bool,
    contact_id: i64,
    whatsapp_id: Option<i64>,
    updated_at: DateTime<Utc>,
}

impl StateRow {
    fn into_row(self) -> Result<TicketRow> {
        Ok(TicketRow {
            id: TicketId(self.id),
            state: TicketState {
                company_id: CompanyId(self.company_id),
                status: from_wire("tickets.status", &self.status)?,
                user_id: self.user_id.map(UserId),
                queue_id: self.queue_id.map(QueueId),
                is_group: self.is_group,
                amount_used_bot_queues: u32::try_from(self.amount_used_bot_queues).unwrap_or(0),
                is_transferred: self.is_transfered,
            },
            contact_id: ContactId(self.contact_id),
            whatsapp_id: self.whatsapp_id.map(WhatsappId),
            updated_at: self.updated_at,
        })
    }
}

const STATE_COLUMNS: &str = "id, company_id, status, user_id, queue_id, is_group, \
     amount_used_bot_queues, is_transfered, contact_id, whatsapp_id, updated_at";

impl Store {
    pub(super) async fn ticket_get(
        &self,
        scope: TenantScope,
        id: TicketId,
    ) -> Result<Option<Ticket>> {
        crate::on_pool!(self.pool(), |p| {
            let mut conn = p.acquire().await.map_err(db_error)?;
            crate::load_ticket!(&mut *conn, scope, id)
        })
    }

    pub(super) async fn ticket_by_uuid(
        &self,
        scope: TenantScope,
        uuid: uuid::Uuid,
    ) -> Result<Option<Ticket>> {
        crate::on_pool!(self.pool(), |p| {
            let mut conn = p.acquire().await.map_err(db_error)?;
            let id: Option<i64> =
                sqlx::query_scalar("SELECT id FROM tickets WHERE company_id = $1 AND uuid = $2")
                    .bind(scope.company_id().0)
                    .bind(uuid)
                    .fetch_optional(&mut *conn)
                    .await
                    .map_err(db_error)?;
            match id {
                Some(id) => crate::load_ticket!(&mut *conn, scope, TicketId(id)),
                None => Ok(None),
            }
        })
    }

    pub(super) async fn ticket_row(
        &self,
        scope: TenantScope,
        id: TicketId,
    ) -> Result<Option<TicketRow>> {
        let row: Option<StateRow> = crate::on_pool!(self.pool(), |p| {
            sqlx::query_as(sqlx::AssertSqlSafe(format!(
                "SELECT {STATE_COLUMNS} FROM tickets WHERE company_id = $1 AND id = $2"
            )))
            .bind(scope.company_id().0)
            .bind(id.0)
            .fetch_optional(p)
            .await
            .map_err(db_error)?
        });
        row.map(StateRow::into_row).transpose()
    }

    pub(super) async fn active_ticket_for_contact(
        &self,
        scope: TenantScope,
        contact: ContactId,
        whatsapp: Option<WhatsappId>,
    ) -> Result<Option<Ticket>> {
        crate::on_pool!(self.pool(), |p| {
            let mut conn = p.acquire().await.map_err(db_error)?;
            let id: Option<i64> = sqlx::query_scalar(
                "SELECT id FROM tickets WHERE company_id = $1 AND contact_id = $2 \
                 AND ((whatsapp_id IS NULL AND $3 IS NULL) OR whatsapp_id = $3) \
                 AND status <> 'closed' ORDER BY id DESC LIMIT 1",
            )
            .bind(scope.company_id().0)
            .bind(contact.0)
            .bind(whatsapp.map(|w| w.0))
            .fetch_optional(&mut *conn)
            .await
            .map_err(db_error)?;
            match id {
                Some(id) => crate::load_ticket!(&mut *conn, scope, TicketId(id)),
                None => Ok(None),
            }
        })
    }
}
