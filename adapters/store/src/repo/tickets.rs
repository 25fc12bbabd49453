//! [`TicketRepo`] on the store, and [`load_ticket!`](crate::load_ticket) /
//! [`load_tickets!`](crate::load_tickets): loading tickets with their contact, queue, user,
//! connection and tags inside any transaction (to render events).
//!
//! The database keeps at most one ticket that is not closed per (contact, connection) with a
//! unique partial index, so concurrent inbound messages never open two tickets. The inbox is
//! keyset-paginated by (unread first on the open and pending tabs, `updated_at`, `id`). Every
//! write appends its ticket events in the same transaction.

use async_trait::async_trait;
use chatflow_core::ids::{ContactId, QueueId, TicketId, UserId, WhatsappId};
use chatflow_core::inbox::events::InboxEvent;
use chatflow_core::inbox::model::{
    Cursor, KeysetPage, NewTicket, PageStart, SortOrder, Tag, Ticket, TicketConnection,
    TicketContact, TicketFilter, TicketLogEntry, TicketNote, TicketUser,
};
use chatflow_core::inbox::ports::{BotMemory, TicketRepo, TicketRow};
use chatflow_core::inbox::search;
use chatflow_core::ports::{ChannelKind, QueueSummary};
use chatflow_core::routing::{Candidate, QueueSnapshot};
use chatflow_core::ticket::{TicketLog, TicketLogType, TicketState, TicketStatus};
use chatflow_core::{CompanyId, Error, ErrorCode, Result, TenantScope};
use chrono::{DateTime, Utc};

use crate::error::db_error;
use crate::repo::list_cache::{FirstPage, PageKey};
use crate::repo::{escape_like, from_wire, now, to_wire};
use crate::{Backend, Store};

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
         w.channel AS whatsapp_channel, w.group_as_ticket AS whatsapp_group_as_ticket"
    };
}

/// The joins of [`TicketJoinRow`].
macro_rules! ticket_joins {
    () => {
        " FROM tickets t JOIN contacts c ON c.id = t.contact_id \
         LEFT JOIN queues q ON q.id = t.queue_id LEFT JOIN users u ON u.id = t.user_id \
         LEFT JOIN whatsapps w ON w.id = t.whatsapp_id"
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
            Ok(Ticket {
                id: TicketId(row.id),
                uuid: row.uuid,
                company_id: CompanyId(row.company_id),
                status: from_wire::<TicketStatus>("tickets.status", &row.status)?,
                unread_messages: row.unread_messages,
                last_message: row.last_message,
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
            let list = $crate::repo::tickets::id_list(ids);
            let select = $crate::repo::tickets::ticket_select(&*conn);
            let rows: Vec<$crate::repo::tickets::TicketJoinRow> =
                sqlx::query_as(sqlx::AssertSqlSafe(format!(
                    "SELECT {select} WHERE t.company_id = $1 AND t.id IN ({list})"
                )))
                .bind(company)
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

/// Runs `$body` in a write transaction `$tx` (`BEGIN IMMEDIATE` on SQLite), committing when it
/// evaluates to `Ok` and rolling back otherwise.
#[macro_export]
#[doc(hidden)]
macro_rules! inbox_write_tx {
    ($store:expr, |$tx:ident| $body:expr) => {
        match $store.pool() {
            $crate::DbPool::Sqlite(p) => {
                let mut $tx = p
                    .begin_with("BEGIN IMMEDIATE")
                    .await
                    .map_err($crate::error::db_error)?;
                let out = $body;
                if out.is_ok() {
                    $tx.commit().await.map_err($crate::error::db_error)?;
                }
                out
            }
            $crate::DbPool::Postgres(p) => {
                let mut $tx = p.begin().await.map_err($crate::error::db_error)?;
                let out = $body;
                if out.is_ok() {
                    $tx.commit().await.map_err($crate::error::db_error)?;
                }
                out
            }
        }
    };
}

/// A bound parameter of a dynamic query.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum Bind {
    Int(i64),
    Text(String),
    Time(DateTime<Utc>),
    Bool(bool),
}

/// Binds `$binds` (a `&[Bind]`) in order onto the query `$q`.
#[macro_export]
#[doc(hidden)]
macro_rules! bind_all {
    ($q:expr, $binds:expr) => {{
        let mut q = $q;
        for b in $binds {
            q = match b {
                $crate::repo::tickets::Bind::Int(v) => q.bind(*v),
                $crate::repo::tickets::Bind::Text(v) => q.bind(v.clone()),
                $crate::repo::tickets::Bind::Time(v) => q.bind(*v),
                $crate::repo::tickets::Bind::Bool(v) => q.bind(*v),
            };
        }
        q
    }};
}

/// A dynamic WHERE clause under construction: `$1` is the company.
pub(crate) struct Clause {
    pub(crate) sql: String,
    pub(crate) binds: Vec<Bind>,
}

impl Clause {
    pub(crate) fn new(company: CompanyId) -> Self {
        Self {
            sql: "t.company_id = $1".into(),
            binds: vec![Bind::Int(company.0)],
        }
    }

    /// The placeholder for `bind`.
    pub(crate) fn mark(&mut self, bind: Bind) -> String {
        self.binds.push(bind);
        format!("${}", self.binds.len())
    }

    pub(crate) fn and(&mut self, sql: impl AsRef<str>) {
        self.sql.push_str(" AND ");
        self.sql.push_str(sql.as_ref());
    }
}

/// Where a text search of messages goes on each engine (`m` is the messages alias).
pub(crate) fn message_match(backend: Backend, clause: &mut Clause, term: &str) -> String {
    if backend == Backend::Sqlite && term.chars().count() >= 3 {
        let mark = clause.mark(Bind::Text(format!("\"{}\"", term.replace('"', "\"\""))));
        format!("m.id IN (SELECT rowid FROM messages_fts WHERE messages_fts MATCH {mark})")
    } else {
        let mark = clause.mark(Bind::Text(format!("%{}%", escape_like(term))));
        format!("m.search_text LIKE {mark} ESCAPE '\\'")
    }
}

/// The WHERE clause of an inbox filter (without the keyset part), with or without its text
/// search.
fn filter_clause(
    backend: Backend,
    company: CompanyId,
    filter: &TicketFilter,
    with_search: bool,
) -> Result<Clause> {
    let mut c = Clause::new(company);
    if !filter.statuses.is_empty() {
        let marks: Vec<String> = filter
            .statuses
            .iter()
            .map(|s| to_wire(s).map(|w| c.mark(Bind::Text(w))))
            .collect::<Result<_>>()?;
        c.and(format!("t.status IN ({})", marks.join(", ")));
    }
    // Queue and group restrictions; one's own tickets always pass them.
    let mut visibility: Vec<String> = Vec::new();
    if !filter.all_queues {
        let ids: Vec<i64> = filter.queue_ids.iter().map(|q| q.0).collect();
        let mut parts = Vec::new();
        if !ids.is_empty() {
            parts.push(format!("t.queue_id IN ({})", id_list(&ids)));
        }
        if filter.include_no_queue {
            parts.push("t.queue_id IS NULL".into());
        }
        if parts.is_empty() {
            parts.push("1 = 0".into());
        }
        visibility.push(format!("({})", parts.join(" OR ")));
    }
    if !filter.user_ids.is_empty() {
        let ids: Vec<i64> = filter.user_ids.iter().map(|u| u.0).collect();
        let unassigned = if filter.include_unassigned {
            " OR t.user_id IS NULL"
        } else {
            ""
        };
        c.and(format!("(t.user_id IN ({}){unassigned})", id_list(&ids)));
    }
    if let Some(group) = filter.is_group {
        let mark = c.mark(Bind::Bool(group));
        visibility.push(format!("t.is_group = {mark}"));
    }
    if !visibility.is_empty() {
        let restricted = visibility.join(" AND ");
        match filter.own_user {
            Some(me) => {
                let mark = c.mark(Bind::Int(me.0));
                c.and(format!("(t.user_id = {mark} OR ({restricted}))"));
            }
            None => c.and(format!("({restricted})")),
        }
    }
    if !filter.tag_ids.is_empty() {
        let ids: Vec<i64> = filter.tag_ids.iter().map(|t| t.0).collect();
        c.and(format!(
            "EXISTS (SELECT 1 FROM ticket_tags tt WHERE tt.ticket_id = t.id \
             AND tt.tag_id IN ({}))",
            id_list(&ids)
        ));
    }
    if !filter.whatsapp_ids.is_empty() {
        let ids: Vec<i64> = filter.whatsapp_ids.iter().map(|w| w.0).collect();
        c.and(format!("t.whatsapp_id IN ({})", id_list(&ids)));
    }
    if filter.with_unread_messages {
        c.and("t.unread_messages > 0");
    }
    if let Some(day) = filter.updated_on {
        let start = day.and_hms_opt(0, 0, 0).map(|d| d.and_utc());
        if let Some(start) = start {
            let from = c.mark(Bind::Time(start));
            let to = c.mark(Bind::Time(start + chrono::TimeDelta::days(1)));
            c.and(format!("t.updated_at >= {from} AND t.updated_at < {to}"));
        }
    }
    if let Some(term) = search::query(&filter.search).filter(|_| with_search) {
        let mut parts = Vec::new();
        if backend == Backend::Sqlite && term.chars().count() >= 3 {
            let mark = c.mark(Bind::Text(format!("\"{}\"", term.replace('"', "\"\""))));
            parts.push(format!(
                "t.contact_id IN (SELECT rowid FROM contacts_fts WHERE contacts_fts MATCH {mark})"
            ));
        } else {
            let mark = c.mark(Bind::Text(format!("%{}%", escape_like(&term))));
            parts.push(format!("c.search_text LIKE {mark} ESCAPE '\\'"));
        }
        if let Ok(id) = term.parse::<i64>() {
            let mark = c.mark(Bind::Int(id));
            parts.push(format!("t.id = {mark}"));
        }
        if filter.search_on_messages {
            // Driven by the text index: the matching messages' tickets are computed once, not
            // looked up per ticket.
            let m = message_match(backend, &mut c, &term);
            parts.push(format!(
                "t.id IN (SELECT m.ticket_id FROM messages m WHERE m.company_id = $1 AND {m})"
            ));
        }
        c.and(format!("({})", parts.join(" OR ")));
    }
    Ok(c)
}

/// The keyset key of a ticket in a list: `{unread flag}|{updated_at}` with unread first, or
/// just `updated_at`.
fn cursor_of(ticket: &Ticket, unread_first: bool) -> Cursor {
    cursor_at(
        ticket.id.0,
        ticket.unread_messages,
        ticket.updated_at,
        unread_first,
    )
}

fn cursor_at(id: i64, unread: i64, updated_at: DateTime<Utc>, unread_first: bool) -> Cursor {
    let at = updated_at.to_rfc3339_opts(chrono::SecondsFormat::Micros, true);
    let key = if unread_first {
        format!("{}|{at}", i64::from(unread > 0))
    } else {
        at
    };
    Cursor { key, id }
}

/// Adds the keyset condition for `cursor` (rows after it in the list's order).
fn after_cursor(c: &mut Clause, filter: &TicketFilter, cursor: &Cursor) -> Result<()> {
    let bad = || Error::with_detail(ErrorCode::ERR_BAD_REQUEST, "invalid cursor");
    let (flag, at) = if filter.unread_first {
        let (flag, at) = cursor.key.split_once('|').ok_or_else(bad)?;
        (Some(flag.parse::<i64>().map_err(|_| bad())?), at)
    } else {
        (None, cursor.key.as_str())
    };
    let at: DateTime<Utc> = DateTime::parse_from_rfc3339(at)
        .map_err(|_| bad())?
        .with_timezone(&Utc);
    let cmp = match filter.sort {
        SortOrder::Desc => "<",
        SortOrder::Asc => ">",
    };
    let t1 = c.mark(Bind::Time(at));
    let t2 = c.mark(Bind::Time(at));
    let id = c.mark(Bind::Int(cursor.id));
    let within = format!("(t.updated_at {cmp} {t1} OR (t.updated_at = {t2} AND t.id {cmp} {id}))");
    match flag {
        Some(flag) => {
            let f1 = c.mark(Bind::Int(flag));
            let f2 = c.mark(Bind::Int(flag));
            c.and(format!(
                "({UNREAD_FLAG} < {f1} OR ({UNREAD_FLAG} = {f2} AND {within}))"
            ));
        }
        None => c.and(within),
    }
    Ok(())
}

const UNREAD_FLAG: &str = "(CASE WHEN t.unread_messages > 0 THEN 1 ELSE 0 END)";

fn order_by(filter: &TicketFilter) -> String {
    let dir = match filter.sort {
        SortOrder::Desc => "DESC",
        SortOrder::Asc => "ASC",
    };
    if filter.unread_first {
        format!("{UNREAD_FLAG} DESC, t.updated_at {dir}, t.id {dir}")
    } else {
        format!("t.updated_at {dir}, t.id {dir}")
    }
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

/// Writes a log entry on `$conn`.
#[macro_export]
#[doc(hidden)]
macro_rules! insert_ticket_log {
    ($conn:expr, $scope:expr, $ticket:expr, $log:expr) => {{
        let log: &chatflow_core::ticket::TicketLog = $log;
        let scope: chatflow_core::TenantScope = $scope;
        let ticket: i64 = $ticket;
        sqlx::query(
            "INSERT INTO ticket_logs (company_id, ticket_id, type, user_id, queue_id, created_at) \
             VALUES ($1, $2, $3, $4, $5, $6)",
        )
        .bind(scope.company_id().0)
        .bind(ticket)
        .bind(log.kind.as_str())
        .bind(log.user_id.map(|u| u.0))
        .bind(log.queue_id.map(|q| q.0))
        .bind($crate::repo::now())
        .execute(&mut *$conn)
        .await
        .map_err($crate::error::db_error)
    }};
}

/// A unique violation on tickets is the one-active-ticket-per-contact index.
fn ticket_write_error(error: sqlx::Error) -> Error {
    if let sqlx::Error::Database(db) = &error
        && db.is_unique_violation()
    {
        return Error::new(ErrorCode::ERR_OTHER_OPEN_TICKET);
    }
    crate::error::db_error_missing(error, ErrorCode::ERR_NO_CONTACT_FOUND)
}

fn update_event(ticket: &Ticket) -> InboxEvent {
    InboxEvent::TicketUpdate {
        ticket: Box::new(ticket.clone()),
    }
}

#[derive(sqlx::FromRow)]
struct LogRow {
    id: i64,
    kind: String,
    user_id: Option<i64>,
    user_name: Option<String>,
    queue_id: Option<i64>,
    queue_name: Option<String>,
    queue_color: Option<String>,
    created_at: DateTime<Utc>,
}

#[derive(sqlx::FromRow)]
struct NoteRow {
    id: i64,
    note: String,
    user_id: Option<i64>,
    user_name: Option<String>,
    ticket_id: i64,
    contact_id: i64,
    created_at: DateTime<Utc>,
}

impl From<NoteRow> for TicketNote {
    fn from(row: NoteRow) -> Self {
        TicketNote {
            id: row.id,
            note: row.note,
            user: match (row.user_id, row.user_name) {
                (Some(id), Some(name)) => Some(TicketUser {
                    id: UserId(id),
                    name,
                }),
                _ => None,
            },
            ticket_id: TicketId(row.ticket_id),
            contact_id: ContactId(row.contact_id),
            created_at: row.created_at,
        }
    }
}

#[derive(sqlx::FromRow)]
struct BotMemoryRow {
    bot_state: String,
    last_bot_message_at: Option<DateTime<Utc>>,
    is_bot: bool,
    use_integration: bool,
    integration_session: String,
}

impl From<BotMemoryRow> for BotMemory {
    fn from(row: BotMemoryRow) -> Self {
        BotMemory {
            bot_state: row.bot_state,
            last_bot_message_at: row.last_bot_message_at,
            is_bot: row.is_bot,
            use_integration: row.use_integration,
            integration: row.integration_session,
        }
    }
}

/// An attendant of a queue with their presence and open tickets.
#[derive(sqlx::FromRow)]
struct AttendantRow {
    id: i64,
    online: bool,
    open_tickets: i64,
}

const NOTE_SELECT: &str = "SELECT n.id, n.note, n.user_id, u.name AS user_name, n.ticket_id, \
     n.contact_id, n.created_at FROM ticket_notes n LEFT JOIN users u ON u.id = n.user_id";

/// The batches in which a search walks the list (in list order), at most 40 000 tickets in all
/// before the text index answers instead.
const WALK_BATCHES: [i64; 13] = [
    60, 340, 1600, 3000, 5000, 5000, 5000, 5000, 5000, 5000, 5000, 5000, 5000,
];

/// A term found in at least this many messages is frequent: its page is walked for.
const FREQUENT_MATCHES: i64 = 2000;

impl Store {
    /// Whether `term` is in at least [`FREQUENT_MATCHES`] messages: a probe of the text index
    /// that stops at that many (a few milliseconds even for the most common words). On SQLite
    /// the FTS table spans companies; it only chooses a strategy, it selects no rows.
    async fn frequent_in_messages(&self, company: CompanyId, term: &str) -> Result<bool> {
        if self.backend() == Backend::Sqlite && term.chars().count() < 3 {
            // Shorter than a trigram: no index to ask, and such terms are everywhere.
            return Ok(true);
        }
        let n: i64 = match self.pool() {
            crate::DbPool::Sqlite(p) => sqlx::query_scalar(
                "SELECT COUNT(*) FROM (SELECT 1 FROM messages_fts WHERE messages_fts MATCH $1 \
                 LIMIT $2) probe",
            )
            .bind(format!("\"{}\"", term.replace('"', "\"\"")))
            .bind(FREQUENT_MATCHES)
            .fetch_one(p)
            .await
            .map_err(db_error)?,
            crate::DbPool::Postgres(p) => sqlx::query_scalar(
                "SELECT COUNT(*) FROM (SELECT 1 FROM messages WHERE company_id = $1 \
                 AND search_text LIKE $2 ESCAPE '\\' LIMIT $3) probe",
            )
            .bind(company.0)
            .bind(format!("%{}%", escape_like(term)))
            .bind(FREQUENT_MATCHES)
            .fetch_one(p)
            .await
            .map_err(db_error)?,
        };
        Ok(n >= FREQUENT_MATCHES)
    }

    /// A `searchOnMessages` page found by walking the list in its own order and checking each
    /// ticket (contact name/number, ticket id, and the ticket's own messages through
    /// `messages (ticket_id)`). A frequent term fills a page within the first tickets, where the
    /// text index would first have to gather every match in the company (hundreds of
    /// milliseconds). A rare term (see [`Store::frequent_in_messages`]) is not walked: `None`,
    /// and the caller asks the text index, whose match set is small for such a term; so is a
    /// frequent term whose page is not filled within the [`WALK_BATCHES`].
    ///
    /// The page's count is known only when the walk reached the end of the list.
    async fn search_walk(
        &self,
        scope: TenantScope,
        filter: &TicketFilter,
        start: &PageStart,
        size: i64,
        term: &str,
    ) -> Result<Option<KeysetPage<Ticket>>> {
        let company = scope.company_id();
        let like = format!("%{}%", escape_like(term));
        let id_term = term.parse::<i64>().ok();
        let messages = if filter.search_on_messages {
            " OR EXISTS (SELECT 1 FROM messages m WHERE m.company_id = $1 \
             AND m.ticket_id = t.id AND m.search_text LIKE $2 ESCAPE '\\')"
        } else {
            ""
        };
        let by_id = if id_term.is_some() {
            " OR t.id = $3"
        } else {
            ""
        };
        if !self.frequent_in_messages(company, term).await? {
            return Ok(None);
        }
        let mut cursor = match start {
            PageStart::After(cursor) => Some(cursor.clone()),
            _ => None,
        };
        crate::on_pool!(self.pool(), |p| {
            let mut conn = p.acquire().await.map_err(db_error)?;
            let mut found: Vec<i64> = Vec::new();
            let mut reached_end = false;
            for batch in WALK_BATCHES {
                let mut c = filter_clause(self.backend(), company, filter, false)?;
                if let Some(cursor) = &cursor {
                    after_cursor(&mut c, filter, cursor)?;
                }
                let sql = format!(
                    "SELECT t.id, t.unread_messages, t.updated_at FROM tickets t WHERE {} \
                     ORDER BY {} LIMIT {batch}",
                    c.sql,
                    order_by(filter)
                );
                let rows: Vec<(i64, i64, DateTime<Utc>)> =
                    crate::bind_all!(sqlx::query_as(sqlx::AssertSqlSafe(sql)), &c.binds)
                        .fetch_all(&mut *conn)
                        .await
                        .map_err(db_error)?;
                let Some(last) = rows.last() else {
                    reached_end = true;
                    break;
                };
                cursor = Some(cursor_at(last.0, last.1, last.2, filter.unread_first));
                let candidates: Vec<i64> = rows.iter().map(|r| r.0).collect();
                let check = format!(
                    "SELECT t.id FROM tickets t JOIN contacts c ON c.id = t.contact_id \
                     WHERE t.company_id = $1 AND t.id IN ({}) \
                     AND (c.search_text LIKE $2 ESCAPE '\\'{by_id}{messages})",
                    id_list(&candidates)
                );
                let mut query = sqlx::query_scalar(sqlx::AssertSqlSafe(check))
                    .bind(company.0)
                    .bind(&like);
                if let Some(id) = id_term {
                    query = query.bind(id);
                }
                let matched: std::collections::HashSet<i64> = query
                    .fetch_all(&mut *conn)
                    .await
                    .map_err(db_error)?
                    .into_iter()
                    .collect();
                found.extend(candidates.iter().filter(|id| matched.contains(id)));
                if found.len() as i64 > size {
                    break;
                }
                if (rows.len() as i64) < batch {
                    reached_end = true;
                    break;
                }
            }
            let has_more = found.len() as i64 > size;
            if !has_more && !reached_end {
                return Ok(None);
            }
            let first = matches!(start, PageStart::First | PageStart::PageNumber(1));
            let count = (first && !has_more).then_some(found.len() as i64);
            found.truncate(size as usize);
            let items = crate::load_tickets!(&mut *conn, scope, &found)?;
            let next_cursor = if has_more {
                items.last().map(|t| cursor_of(t, filter.unread_first))
            } else {
                None
            };
            Ok(Some(KeysetPage {
                items,
                has_more,
                next_cursor,
                count,
                seq: None,
            }))
        })
    }
}

#[async_trait]
impl TicketRepo for Store {
    async fn list(
        &self,
        scope: TenantScope,
        filter: &TicketFilter,
        start: &PageStart,
        page_size: u32,
    ) -> Result<KeysetPage<Ticket>> {
        let size = i64::from(page_size.clamp(1, 200));
        let term = search::query(&filter.search);
        // Message bodies are where a frequent term matches a large part of the company; contact
        // names and numbers match few tickets each, and their index answers directly.
        if let Some(term) = &term
            && filter.search_on_messages
            && !matches!(start, PageStart::PageNumber(n) if *n > 1)
            && let Some(page) = self.search_walk(scope, filter, start, size, term).await?
        {
            return Ok(page);
        }
        let base = filter_clause(self.backend(), scope.company_id(), filter, true)?;
        let first = matches!(start, PageStart::First | PageStart::PageNumber(1));
        let cacheable = first && term.is_none();
        let mut paged = Clause {
            sql: base.sql.clone(),
            binds: base.binds.clone(),
        };
        let mut offset = 0i64;
        match start {
            PageStart::First => {}
            PageStart::After(cursor) => after_cursor(&mut paged, filter, cursor)?,
            PageStart::PageNumber(n) => offset = i64::from(n.saturating_sub(1)) * size,
        }
        // Contacts are joined only when the search reads them, so a tab's page and count stay
        // on the tickets' indexes.
        let from = if term.is_some() {
            "FROM tickets t JOIN contacts c ON c.id = t.contact_id"
        } else {
            "FROM tickets t"
        };
        let sql = format!(
            "SELECT t.id {from} WHERE {} ORDER BY {} LIMIT {} OFFSET {offset}",
            paged.sql,
            order_by(filter),
            size + 1
        );
        let count_sql = format!("SELECT COUNT(*) {from} WHERE {}", base.sql);
        crate::on_pool!(self.pool(), |p| {
            let mut conn = p.acquire().await.map_err(db_error)?;
            // The sequence is read before the page: see `list_cache`.
            let key = if cacheable {
                let seq: i64 = sqlx::query_scalar("SELECT event_seq FROM companies WHERE id = $1")
                    .bind(scope.company_id().0)
                    .fetch_one(&mut *conn)
                    .await
                    .map_err(db_error)?;
                Some(PageKey {
                    company: scope.company_id().0,
                    seq,
                    sql: sql.clone(),
                    binds: paged.binds.clone(),
                })
            } else {
                None
            };
            if let Some(page) = key.as_ref().and_then(|k| self.lists().get(k)) {
                let items = page.items.clone();
                let next_cursor = if page.has_more {
                    items.last().map(|t| cursor_of(t, filter.unread_first))
                } else {
                    None
                };
                return Ok(KeysetPage {
                    items,
                    has_more: page.has_more,
                    next_cursor,
                    count: Some(page.count),
                    seq: key.as_ref().map(|k| k.seq),
                });
            }
            let mut ids: Vec<i64> =
                crate::bind_all!(sqlx::query_scalar(sqlx::AssertSqlSafe(sql)), &paged.binds)
                    .fetch_all(&mut *conn)
                    .await
                    .map_err(db_error)?;
            let has_more = ids.len() as i64 > size;
            ids.truncate(size as usize);
            let count = if first {
                let n: i64 = crate::bind_all!(
                    sqlx::query_scalar(sqlx::AssertSqlSafe(count_sql)),
                    &base.binds
                )
                .fetch_one(&mut *conn)
                .await
                .map_err(db_error)?;
                Some(n)
            } else {
                None
            };
            let items = crate::load_tickets!(&mut *conn, scope, &ids)?;
            let seq = key.as_ref().map(|k| k.seq);
            if let (Some(key), Some(count)) = (key, count) {
                self.lists().insert(
                    key,
                    FirstPage {
                        items: items.clone(),
                        has_more,
                        count,
                    },
                );
            }
            let next_cursor = if has_more {
                items.last().map(|t| cursor_of(t, filter.unread_first))
            } else {
                None
            };
            Ok(KeysetPage {
                items,
                has_more,
                next_cursor,
                count,
                seq,
            })
        })
    }

    async fn get(&self, scope: TenantScope, id: TicketId) -> Result<Option<Ticket>> {
        crate::on_pool!(self.pool(), |p| {
            let mut conn = p.acquire().await.map_err(db_error)?;
            crate::load_ticket!(&mut *conn, scope, id)
        })
    }

    async fn get_by_uuid(&self, scope: TenantScope, uuid: uuid::Uuid) -> Result<Option<Ticket>> {
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

    async fn row(&self, scope: TenantScope, id: TicketId) -> Result<Option<TicketRow>> {
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

    async fn active_for_contact(
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

    async fn create(
        &self,
        scope: TenantScope,
        ticket: &NewTicket,
        uuid: uuid::Uuid,
    ) -> Result<Ticket> {
        let company = scope.company_id().0;
        let status = to_wire(&ticket.status)?;
        let channel = to_wire(&ticket.channel)?;
        crate::inbox_write_tx!(self, |tx| {
            async {
                let contact_ok: Option<i64> =
                    sqlx::query_scalar("SELECT id FROM contacts WHERE company_id = $1 AND id = $2")
                        .bind(company)
                        .bind(ticket.contact_id.0)
                        .fetch_optional(&mut *tx)
                        .await
                        .map_err(db_error)?;
                if contact_ok.is_none() {
                    return Err(Error::new(ErrorCode::ERR_NO_CONTACT_FOUND));
                }
                let at = now();
                let id: i64 = sqlx::query_scalar(
                    "INSERT INTO tickets (company_id, uuid, status, is_group, channel, user_id, \
                     queue_id, whatsapp_id, contact_id, created_at, updated_at) \
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10) RETURNING id",
                )
                .bind(company)
                .bind(uuid)
                .bind(&status)
                .bind(ticket.is_group)
                .bind(&channel)
                .bind(ticket.user_id.map(|u| u.0))
                .bind(ticket.queue_id.map(|q| q.0))
                .bind(ticket.whatsapp_id.map(|w| w.0))
                .bind(ticket.contact_id.0)
                .bind(at)
                .fetch_one(&mut *tx)
                .await
                .map_err(ticket_write_error)?;
                let log = TicketLog {
                    kind: TicketLogType::Create,
                    user_id: ticket.user_id,
                    queue_id: ticket.queue_id,
                };
                crate::insert_ticket_log!(tx, scope, id, &log)?;
                let created = crate::load_ticket!(&mut *tx, scope, TicketId(id))?
                    .ok_or_else(|| Error::internal("ticket vanished after insert"))?;
                crate::append_events!(&mut *tx, scope, &[update_event(&created)])?;
                Ok(created)
            }
            .await
        })
    }

    async fn save_transition(
        &self,
        scope: TenantScope,
        id: TicketId,
        expected: &TicketState,
        new: &TicketState,
        logs: &[TicketLog],
        actor: Option<UserId>,
    ) -> Result<Option<Ticket>> {
        let _ = actor;
        let company = scope.company_id().0;
        let old_status = to_wire(&expected.status)?;
        let new_status = to_wire(&new.status)?;
        crate::inbox_write_tx!(self, |tx| {
            async {
                // The optimistic check: every field of the state as it was read.
                let done = sqlx::query(
                    "UPDATE tickets SET status = $1, user_id = $2, queue_id = $3, is_group = $4, \
                     amount_used_bot_queues = $5, is_transfered = $6, updated_at = $7 \
                     WHERE company_id = $8 AND id = $9 AND status = $10 \
                     AND ((user_id IS NULL AND $11 IS NULL) OR user_id = $11) \
                     AND ((queue_id IS NULL AND $12 IS NULL) OR queue_id = $12) \
                     AND amount_used_bot_queues = $13 AND is_transfered = $14",
                )
                .bind(&new_status)
                .bind(new.user_id.map(|u| u.0))
                .bind(new.queue_id.map(|q| q.0))
                .bind(new.is_group)
                .bind(i64::from(new.amount_used_bot_queues))
                .bind(new.is_transferred)
                .bind(now())
                .bind(company)
                .bind(id.0)
                .bind(&old_status)
                .bind(expected.user_id.map(|u| u.0))
                .bind(expected.queue_id.map(|q| q.0))
                .bind(i64::from(expected.amount_used_bot_queues))
                .bind(expected.is_transferred)
                .execute(&mut *tx)
                .await
                .map_err(ticket_write_error)?;
                if done.rows_affected() == 0 {
                    return Ok(None);
                }
                for log in logs {
                    crate::insert_ticket_log!(tx, scope, id.0, log)?;
                }
                let ticket = crate::load_ticket!(&mut *tx, scope, id)?
                    .ok_or_else(|| Error::internal("ticket vanished after update"))?;
                crate::append_events!(&mut *tx, scope, &[update_event(&ticket)])?;
                Ok(Some(ticket))
            }
            .await
        })
    }

    async fn reset_unread(&self, scope: TenantScope, id: TicketId) -> Result<bool> {
        let company = scope.company_id().0;
        crate::inbox_write_tx!(self, |tx| {
            async {
                let done = sqlx::query(
                    "UPDATE tickets SET unread_messages = 0 WHERE company_id = $1 AND id = $2",
                )
                .bind(company)
                .bind(id.0)
                .execute(&mut *tx)
                .await
                .map_err(db_error)?;
                if done.rows_affected() == 0 {
                    return Ok(false);
                }
                sqlx::query(
                    "UPDATE messages SET read = TRUE WHERE company_id = $1 AND ticket_id = $2 \
                     AND read = FALSE",
                )
                .bind(company)
                .bind(id.0)
                .execute(&mut *tx)
                .await
                .map_err(db_error)?;
                let ticket = crate::load_ticket!(&mut *tx, scope, id)?
                    .ok_or_else(|| Error::internal("ticket vanished"))?;
                crate::append_events!(
                    &mut *tx,
                    scope,
                    &[InboxEvent::TicketUnreadReset {
                        ticket: Box::new(ticket)
                    }]
                )?;
                Ok(true)
            }
            .await
        })
    }

    async fn set_use_integration(
        &self,
        scope: TenantScope,
        id: TicketId,
        on: bool,
    ) -> Result<Option<Ticket>> {
        let company = scope.company_id().0;
        crate::inbox_write_tx!(self, |tx| {
            async {
                let done = sqlx::query(
                    "UPDATE tickets SET use_integration = $1, updated_at = $2 \
                     WHERE company_id = $3 AND id = $4",
                )
                .bind(on)
                .bind(now())
                .bind(company)
                .bind(id.0)
                .execute(&mut *tx)
                .await
                .map_err(db_error)?;
                if done.rows_affected() == 0 {
                    return Ok(None);
                }
                let ticket = crate::load_ticket!(&mut *tx, scope, id)?
                    .ok_or_else(|| Error::internal("ticket vanished"))?;
                crate::append_events!(&mut *tx, scope, &[update_event(&ticket)])?;
                Ok(Some(ticket))
            }
            .await
        })
    }

    async fn delete(&self, scope: TenantScope, id: TicketId) -> Result<bool> {
        let company = scope.company_id().0;
        crate::inbox_write_tx!(self, |tx| {
            async {
                let Some(ticket) = crate::load_ticket!(&mut *tx, scope, id)? else {
                    return Ok(false);
                };
                sqlx::query("DELETE FROM tickets WHERE company_id = $1 AND id = $2")
                    .bind(company)
                    .bind(id.0)
                    .execute(&mut *tx)
                    .await
                    .map_err(db_error)?;
                crate::append_events!(
                    &mut *tx,
                    scope,
                    &[InboxEvent::TicketDelete {
                        ticket: Box::new(ticket)
                    }]
                )?;
                Ok(true)
            }
            .await
        })
    }

    async fn close_all(
        &self,
        scope: TenantScope,
        filter: &TicketFilter,
        actor: UserId,
    ) -> Result<u64> {
        let base = filter_clause(self.backend(), scope.company_id(), filter, true)?;
        let select = format!(
            "SELECT t.id FROM tickets t JOIN contacts c ON c.id = t.contact_id \
             WHERE {} AND t.status <> 'closed' ORDER BY t.id",
            base.sql
        );
        crate::inbox_write_tx!(self, |tx| {
            async {
                let ids: Vec<i64> =
                    crate::bind_all!(sqlx::query_scalar(sqlx::AssertSqlSafe(select)), &base.binds)
                        .fetch_all(&mut *tx)
                        .await
                        .map_err(db_error)?;
                if ids.is_empty() {
                    return Ok(0);
                }
                let at = now();
                sqlx::query(sqlx::AssertSqlSafe(format!(
                    "UPDATE tickets SET status = 'closed', amount_used_bot_queues = 0, \
                     updated_at = $1 WHERE company_id = $2 AND id IN ({})",
                    id_list(&ids)
                )))
                .bind(at)
                .bind(scope.company_id().0)
                .execute(&mut *tx)
                .await
                .map_err(db_error)?;
                let closed = crate::load_tickets!(&mut *tx, scope, &ids)?;
                for t in &closed {
                    let log = TicketLog {
                        kind: TicketLogType::Closed,
                        user_id: Some(actor),
                        queue_id: t.queue_id,
                    };
                    crate::insert_ticket_log!(tx, scope, t.id.0, &log)?;
                }
                let events: Vec<InboxEvent> = closed.iter().map(update_event).collect();
                crate::append_events!(&mut *tx, scope, &events)?;
                Ok(ids.len() as u64)
            }
            .await
        })
    }

    async fn add_log(&self, scope: TenantScope, id: TicketId, log: &TicketLog) -> Result<()> {
        crate::on_pool!(self.pool(), |p| {
            let mut conn = p.acquire().await.map_err(db_error)?;
            let exists: Option<i64> =
                sqlx::query_scalar("SELECT id FROM tickets WHERE company_id = $1 AND id = $2")
                    .bind(scope.company_id().0)
                    .bind(id.0)
                    .fetch_optional(&mut *conn)
                    .await
                    .map_err(db_error)?;
            if exists.is_none() {
                return Err(Error::new(ErrorCode::ERR_NO_TICKET_FOUND));
            }
            crate::insert_ticket_log!(conn, scope, id.0, log)?;
            Ok(())
        })
    }

    async fn logs(&self, scope: TenantScope, id: TicketId) -> Result<Vec<TicketLogEntry>> {
        let rows: Vec<LogRow> = crate::on_pool!(self.pool(), |p| {
            sqlx::query_as(
                "SELECT l.id, l.type AS kind, l.user_id, u.name AS user_name, l.queue_id, \
                 q.name AS queue_name, q.color AS queue_color, l.created_at \
                 FROM ticket_logs l LEFT JOIN users u ON u.id = l.user_id \
                 LEFT JOIN queues q ON q.id = l.queue_id \
                 WHERE l.company_id = $1 AND l.ticket_id = $2 ORDER BY l.created_at, l.id",
            )
            .bind(scope.company_id().0)
            .bind(id.0)
            .fetch_all(p)
            .await
            .map_err(db_error)?
        });
        rows.into_iter()
            .map(|row| {
                Ok(TicketLogEntry {
                    id: row.id,
                    kind: from_wire("ticket_logs.type", &row.kind)?,
                    user: match (row.user_id, row.user_name) {
                        (Some(id), Some(name)) => Some(TicketUser {
                            id: UserId(id),
                            name,
                        }),
                        _ => None,
                    },
                    queue: match (row.queue_id, row.queue_name) {
                        (Some(id), Some(name)) => Some(QueueSummary {
                            id: QueueId(id),
                            name,
                            color: row.queue_color.unwrap_or_default(),
                        }),
                        _ => None,
                    },
                    created_at: row.created_at,
                })
            })
            .collect()
    }

    async fn notes(
        &self,
        scope: TenantScope,
        ticket: Option<TicketId>,
        contact: Option<ContactId>,
    ) -> Result<Vec<TicketNote>> {
        let rows: Vec<NoteRow> = crate::on_pool!(self.pool(), |p| {
            sqlx::query_as(sqlx::AssertSqlSafe(format!(
                "{NOTE_SELECT} WHERE n.company_id = $1 \
                 AND ($2 IS NULL OR n.ticket_id = $2) AND ($3 IS NULL OR n.contact_id = $3) \
                 ORDER BY n.created_at DESC, n.id DESC"
            )))
            .bind(scope.company_id().0)
            .bind(ticket.map(|t| t.0))
            .bind(contact.map(|c| c.0))
            .fetch_all(p)
            .await
            .map_err(db_error)?
        });
        Ok(rows.into_iter().map(TicketNote::from).collect())
    }

    async fn add_note(
        &self,
        scope: TenantScope,
        ticket: TicketId,
        user: UserId,
        note: &str,
    ) -> Result<Option<TicketNote>> {
        let company = scope.company_id().0;
        crate::inbox_write_tx!(self, |tx| {
            async {
                let contact: Option<i64> = sqlx::query_scalar(
                    "SELECT contact_id FROM tickets WHERE company_id = $1 AND id = $2",
                )
                .bind(company)
                .bind(ticket.0)
                .fetch_optional(&mut *tx)
                .await
                .map_err(db_error)?;
                let Some(contact) = contact else {
                    return Ok(None);
                };
                let at = now();
                let id: i64 = sqlx::query_scalar(
                    "INSERT INTO ticket_notes (company_id, note, user_id, ticket_id, contact_id, \
                     created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $6) RETURNING id",
                )
                .bind(company)
                .bind(note)
                .bind(user.0)
                .bind(ticket.0)
                .bind(contact)
                .bind(at)
                .fetch_one(&mut *tx)
                .await
                .map_err(db_error)?;
                let row: NoteRow = sqlx::query_as(sqlx::AssertSqlSafe(format!(
                    "{NOTE_SELECT} WHERE n.company_id = $1 AND n.id = $2"
                )))
                .bind(company)
                .bind(id)
                .fetch_one(&mut *tx)
                .await
                .map_err(db_error)?;
                Ok(Some(TicketNote::from(row)))
            }
            .await
        })
    }

    async fn delete_note(&self, scope: TenantScope, id: i64) -> Result<bool> {
        let done = crate::on_pool!(self.pool(), |p| {
            sqlx::query("DELETE FROM ticket_notes WHERE company_id = $1 AND id = $2")
                .bind(scope.company_id().0)
                .bind(id)
                .execute(p)
                .await
                .map_err(db_error)?
                .rows_affected()
        });
        Ok(done > 0)
    }

    async fn bot_memory(&self, scope: TenantScope, id: TicketId) -> Result<Option<BotMemory>> {
        let row: Option<BotMemoryRow> = crate::on_pool!(self.pool(), |p| {
            sqlx::query_as(
                "SELECT bot_state, last_bot_message_at, is_bot, use_integration, \
                 integration_session FROM tickets WHERE company_id = $1 AND id = $2",
            )
            .bind(scope.company_id().0)
            .bind(id.0)
            .fetch_optional(p)
            .await
            .map_err(db_error)?
        });
        Ok(row.map(BotMemory::from))
    }

    async fn set_bot_memory(
        &self,
        scope: TenantScope,
        id: TicketId,
        memory: &BotMemory,
    ) -> Result<bool> {
        let company = scope.company_id().0;
        crate::inbox_write_tx!(self, |tx| {
            async {
                // Touch the row first (it stays locked until commit on PostgreSQL) and read the
                // flags as they are now.
                let before: Option<(bool, bool)> = sqlx::query_as(
                    "UPDATE tickets SET is_bot = is_bot WHERE company_id = $1 AND id = $2 \
                     RETURNING is_bot, use_integration",
                )
                .bind(company)
                .bind(id.0)
                .fetch_optional(&mut *tx)
                .await
                .map_err(db_error)?;
                let Some((is_bot, use_integration)) = before else {
                    return Ok(false);
                };
                // The inbox shows the flags, not the bot's state: only a flag change moves the
                // ticket's `updated_at` and tells the clients.
                let shown = is_bot != memory.is_bot || use_integration != memory.use_integration;
                sqlx::query(
                    "UPDATE tickets SET bot_state = $3, last_bot_message_at = $4, is_bot = $5, \
                     use_integration = $6, integration_session = $9, \
                     updated_at = CASE WHEN $7 THEN $8 ELSE updated_at END \
                     WHERE company_id = $1 AND id = $2",
                )
                .bind(company)
                .bind(id.0)
                .bind(&memory.bot_state)
                .bind(memory.last_bot_message_at)
                .bind(memory.is_bot)
                .bind(memory.use_integration)
                .bind(shown)
                .bind(now())
                .bind(&memory.integration)
                .execute(&mut *tx)
                .await
                .map_err(db_error)?;
                if shown {
                    let ticket = crate::load_ticket!(&mut *tx, scope, id)?
                        .ok_or_else(|| Error::internal("ticket vanished"))?;
                    crate::append_events!(&mut *tx, scope, &[update_event(&ticket)])?;
                }
                Ok(true)
            }
            .await
        })
    }

    async fn queue_snapshot(
        &self,
        scope: TenantScope,
        queue: QueueId,
        ticket: TicketId,
    ) -> Result<QueueSnapshot> {
        let company = scope.company_id().0;
        let (waiting, attendants, last_assigned): (i64, Vec<AttendantRow>, Option<i64>) =
            crate::on_pool!(self.pool(), |p| {
                let mut conn = p.acquire().await.map_err(db_error)?;
                let waiting: i64 = sqlx::query_scalar(
                    "SELECT COUNT(*) FROM tickets WHERE company_id = $1 AND queue_id = $2 \
                     AND status = 'pending' AND user_id IS NULL AND id < $3",
                )
                .bind(company)
                .bind(queue.0)
                .bind(ticket.0)
                .fetch_one(&mut *conn)
                .await
                .map_err(db_error)?;
                let attendants: Vec<AttendantRow> = sqlx::query_as(
                    "SELECT u.id, u.online, \
                     (SELECT COUNT(*) FROM tickets t WHERE t.company_id = $1 \
                       AND t.user_id = u.id AND t.status = 'open') AS open_tickets \
                     FROM user_queues uq JOIN users u ON u.id = uq.user_id \
                     WHERE uq.company_id = $1 AND uq.queue_id = $2 AND u.company_id = $1 \
                     ORDER BY u.id",
                )
                .bind(company)
                .bind(queue.0)
                .fetch_all(&mut *conn)
                .await
                .map_err(db_error)?;
                let last: Option<Option<i64>> = sqlx::query_scalar(
                    "SELECT user_id FROM ticket_logs WHERE company_id = $1 AND queue_id = $2 \
                     AND type = $3 AND user_id IS NOT NULL ORDER BY id DESC LIMIT 1",
                )
                .bind(company)
                .bind(queue.0)
                .bind(TicketLogType::Open.as_str())
                .fetch_optional(&mut *conn)
                .await
                .map_err(db_error)?;
                (waiting, attendants, last.flatten())
            });
        Ok(QueueSnapshot {
            queue_id: queue,
            waiting: u32::try_from(waiting).unwrap_or(u32::MAX),
            attendants: attendants
                .into_iter()
                .map(|a| Candidate {
                    user_id: UserId(a.id),
                    online: a.online,
                    open_tickets: u32::try_from(a.open_tickets).unwrap_or(u32::MAX),
                })
                .collect(),
            last_assigned: last_assigned.map(UserId),
        })
    }
}
