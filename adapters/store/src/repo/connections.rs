//! [`ConnectionRepo`] on the store: the `whatsapps` table and its queues (`whatsapp_queues`).
//!
//! Every write runs in one transaction that also appends the realtime events describing it
//! (`whatsapp` updates of every row whose fields or default flag changed, `whatsappSession` for
//! session changes, `whatsapp` delete), so sockets never hear of a change that was rolled back.

use std::collections::HashMap;

use async_trait::async_trait;
use chatflow_core::events::Event;
use chatflow_core::flow_ports::FlowId;
use chatflow_core::inbox::connection_rules::{SessionDetails, session_details_after};
use chatflow_core::inbox::model::{
    Connection, ConnectionInput, ConnectionStatus, ProviderKind, SessionReason, SessionUpdate,
};
use chatflow_core::inbox::ports::ConnectionRepo;
use chatflow_core::ports::{ChannelKind, QueueSummary};
use chatflow_core::queue::ScheduleRow;
use chatflow_core::{CompanyId, Error, QueueId, Result, TenantScope, WhatsappId};
use chrono::{DateTime, NaiveDate, Utc};
use sqlx::types::Json;

use crate::error::db_error;
use crate::repo::{from_wire, to_wire};
use crate::{Backend, Store};

/// The columns a [`ConnectionRow`] reads.
const COLUMNS: &str = "id, company_id, name, number, channel, provider, status, qrcode, retries, \
     is_default, token, greeting_message, complation_message, out_of_hours_message, \
     rating_message, allow_group, group_as_ticket, max_use_bot_queues, time_use_bot_queues, \
     time_send_queue, send_id_queue, expires_ticket, expires_inactive_message, \
     time_create_new_ticket, max_use_bot_queues_nps, expires_ticket_nps, flow_id_welcome, \
     flow_id_not_phrase, collective_vacation_start, collective_vacation_end, \
     collective_vacation_message, schedules, time_inactive_message, inactive_message, \
     when_expires_ticket, pairing_code, session_reason, session_until, updated_at, \
     enable_import_message, import_old_messages, import_recent_messages, \
     import_old_messages_groups, closed_tickets_post_imported, queue_id_import_messages, \
     status_import_messages, down_since, last_gap";

/// Writes the import settings of a connection (`$1` company, `$2` connection; the import queue
/// only when it is one of the company's).
const WRITE_IMPORT: &str = "UPDATE whatsapps SET enable_import_message = $3, \
     import_old_messages = $4, import_recent_messages = $5, import_old_messages_groups = $6, \
     closed_tickets_post_imported = $7, \
     queue_id_import_messages = (SELECT q.id FROM queues q WHERE q.id = $8 AND q.company_id = $1) \
     WHERE company_id = $1 AND id = $2";

#[derive(sqlx::FromRow)]
struct ConnectionRow {
    id: i64,
    company_id: i64,
    name: String,
    number: String,
    channel: String,
    provider: String,
    status: String,
    qrcode: String,
    retries: i64,
    is_default: bool,
    token: Option<String>,
    greeting_message: String,
    complation_message: String,
    out_of_hours_message: String,
    rating_message: String,
    allow_group: bool,
    group_as_ticket: String,
    max_use_bot_queues: i64,
    time_use_bot_queues: i64,
    time_send_queue: i64,
    send_id_queue: Option<i64>,
    expires_ticket: i64,
    expires_inactive_message: String,
    time_create_new_ticket: i64,
    max_use_bot_queues_nps: i64,
    expires_ticket_nps: i64,
    flow_id_welcome: Option<i64>,
    flow_id_not_phrase: Option<i64>,
    collective_vacation_start: Option<NaiveDate>,
    collective_vacation_end: Option<NaiveDate>,
    collective_vacation_message: String,
    schedules: Json<Vec<ScheduleRow>>,
    time_inactive_message: i64,
    inactive_message: String,
    when_expires_ticket: i64,
    pairing_code: Option<String>,
    session_reason: Option<String>,
    session_until: Option<DateTime<Utc>>,
    updated_at: DateTime<Utc>,
    enable_import_message: bool,
    import_old_messages: Option<DateTime<Utc>>,
    import_recent_messages: Option<DateTime<Utc>>,
    import_old_messages_groups: bool,
    closed_tickets_post_imported: bool,
    queue_id_import_messages: Option<i64>,
    status_import_messages: Option<String>,
    down_since: Option<DateTime<Utc>>,
    last_gap: Option<String>,
}

/// What [`ConnectionRepo::set_session`] reads of the row before writing.
#[derive(sqlx::FromRow)]
struct SessionRow {
    status: String,
    pairing_code: Option<String>,
    session_reason: Option<String>,
    session_until: Option<DateTime<Utc>>,
}

impl SessionRow {
    fn details(self, connection: i64) -> Result<(ConnectionStatus, SessionDetails)> {
        let status = ConnectionStatus::parse(&self.status).ok_or_else(|| {
            Error::internal(format!(
                "unexpected value {:?} in column status",
                self.status
            ))
        })?;
        Ok((
            status,
            SessionDetails {
                pairing_code: self.pairing_code,
                reason: reason_of(connection, self.session_reason.as_deref()),
                until: self.session_until,
            },
        ))
    }
}

/// The stored reason (JSON text). One this version cannot read (written by a newer one) is
/// shown as none rather than hiding the connection.
fn reason_of(connection: i64, text: Option<&str>) -> Option<SessionReason> {
    let text = text?;
    match serde_json::from_str(text) {
        Ok(reason) => Some(reason),
        Err(e) => {
            tracing::warn!(connection, reason = text, error = %e, "unreadable session reason");
            None
        }
    }
}

/// The stored last gap (JSON text); one this version cannot read is shown as none.
fn gap_of(
    connection: i64,
    text: Option<&str>,
) -> Option<chatflow_core::inbox::gaps::ConnectionGap> {
    let text = text?;
    match serde_json::from_str(text) {
        Ok(gap) => Some(gap),
        Err(e) => {
            tracing::warn!(connection, gap = text, error = %e, "unreadable last gap");
            None
        }
    }
}

/// The JSON text a reason is stored as.
fn reason_text(reason: Option<&SessionReason>) -> Result<Option<String>> {
    reason
        .map(|r| {
            serde_json::to_string(r)
                .map_err(|e| Error::internal(format!("cannot serialise a session reason: {e}")))
        })
        .transpose()
}

#[derive(sqlx::FromRow)]
struct QueueLinkRow {
    whatsapp_id: i64,
    id: i64,
    name: String,
    color: String,
}

impl ConnectionRow {
    fn into_connection(self, queues: Vec<QueueSummary>) -> Result<Connection> {
        let status = ConnectionStatus::parse(&self.status).ok_or_else(|| {
            Error::internal(format!(
                "unexpected value {:?} in column status",
                self.status
            ))
        })?;
        Ok(Connection {
            id: WhatsappId(self.id),
            company_id: CompanyId(self.company_id),
            name: self.name,
            number: self.number,
            channel: from_wire::<ChannelKind>("channel", &self.channel)?,
            provider: from_wire::<ProviderKind>("provider", &self.provider)?,
            status,
            qrcode: self.qrcode,
            retries: self.retries,
            is_default: self.is_default,
            token: self.token.unwrap_or_default(),
            greeting_message: self.greeting_message,
            complation_message: self.complation_message,
            out_of_hours_message: self.out_of_hours_message,
            rating_message: self.rating_message,
            allow_group: self.allow_group,
            group_as_ticket: self.group_as_ticket == "enabled",
            max_use_bot_queues: self.max_use_bot_queues,
            time_use_bot_queues: self.time_use_bot_queues,
            time_send_queue: self.time_send_queue,
            send_id_queue: self.send_id_queue.map(QueueId),
            expires_ticket: self.expires_ticket,
            expires_inactive_message: self.expires_inactive_message,
            time_create_new_ticket: self.time_create_new_ticket,
            queue_ids: queues.iter().map(|q| q.id).collect(),
            queues,
            updated_at: self.updated_at,
            max_use_bot_queues_nps: self.max_use_bot_queues_nps,
            expires_ticket_nps: self.expires_ticket_nps,
            flow_id_welcome: self.flow_id_welcome.map(FlowId),
            flow_id_not_phrase: self.flow_id_not_phrase.map(FlowId),
            collective_vacation_start: self.collective_vacation_start,
            collective_vacation_end: self.collective_vacation_end,
            collective_vacation_message: self.collective_vacation_message,
            schedules: self.schedules.0,
            time_inactive_message: self.time_inactive_message,
            inactive_message: self.inactive_message,
            when_expires_ticket: self.when_expires_ticket,
            session_reason: reason_of(self.id, self.session_reason.as_deref()),
            pairing_code: self.pairing_code,
            session_until: self.session_until,
            enable_import_message: self.enable_import_message,
            import_old_messages: self.import_old_messages,
            import_recent_messages: self.import_recent_messages,
            import_old_messages_groups: self.import_old_messages_groups,
            closed_tickets_post_imported: self.closed_tickets_post_imported,
            queue_id_import_messages: self.queue_id_import_messages.map(QueueId),
            status_import_messages: self.status_import_messages,
            down_since: self.down_since,
            last_gap: gap_of(self.id, self.last_gap.as_deref()),
        })
    }
}

/// Joins rows with their queues.
fn assemble(rows: Vec<ConnectionRow>, links: Vec<QueueLinkRow>) -> Result<Vec<Connection>> {
    let mut by_connection: HashMap<i64, Vec<QueueSummary>> = HashMap::new();
    for link in links {
        by_connection
            .entry(link.whatsapp_id)
            .or_default()
            .push(QueueSummary {
                id: QueueId(link.id),
                name: link.name,
                color: link.color,
            });
    }
    rows.into_iter()
        .map(|row| {
            let queues = by_connection.remove(&row.id).unwrap_or_default();
            row.into_connection(queues)
        })
        .collect()
}

/// Loads connections on `$conn` (a pool or a transaction): `$filter` is `None` for every
/// connection of company `$company` (or of every company when `$company` is `None`), or
/// `Some(ids)` for those ids of the company.
macro_rules! load {
    ($conn:expr, $company:expr, $ids:expr) => {{
        let company: Option<i64> = $company;
        let ids: Option<&[i64]> = $ids;
        let conn = $conn;
        async move {
            // The company's connections, or only those of `ids` (the list bound as one
            // parameter, after the company's).
            let mut rows_where: Vec<String> = Vec::new();
            let mut links_where: Vec<String> = Vec::new();
            if company.is_some() {
                rows_where.push("company_id = $1".to_owned());
                links_where.push("wq.company_id = $1".to_owned());
            }
            if ids.is_some() {
                let param = rows_where.len() + 1;
                rows_where.push($crate::repo::lists::any(&*conn, "id", param));
                links_where.push($crate::repo::lists::any(&*conn, "wq.whatsapp_id", param));
            }
            let clause = |terms: &[String]| {
                if terms.is_empty() {
                    String::new()
                } else {
                    format!("WHERE {}", terms.join(" AND "))
                }
            };
            let (where_rows, where_links) = (clause(&rows_where), clause(&links_where));
            let rows_sql = format!("SELECT {COLUMNS} FROM whatsapps {where_rows} ORDER BY id");
            let mut rows_query = sqlx::query_as::<_, ConnectionRow>(sqlx::AssertSqlSafe(rows_sql));
            let links_sql = format!(
                "SELECT wq.whatsapp_id, q.id, q.name, q.color FROM whatsapp_queues wq \
                 JOIN queues q ON q.id = wq.queue_id {where_links} \
                 ORDER BY wq.whatsapp_id, q.name, q.id"
            );
            let mut links_query = sqlx::query_as::<_, QueueLinkRow>(sqlx::AssertSqlSafe(links_sql));
            if let Some(company) = company {
                rows_query = rows_query.bind(company);
                links_query = links_query.bind(company);
            }
            if let Some(ids) = ids {
                rows_query = rows_query.bind($crate::repo::lists::ints(&*conn, ids));
                links_query = links_query.bind($crate::repo::lists::ints(&*conn, ids));
            }
            let rows = rows_query.fetch_all(&mut *conn).await.map_err(db_error)?;
            let links = links_query.fetch_all(&mut *conn).await.map_err(db_error)?;
            assemble(rows, links)
        }
        .await
    }};
}

/// Runs `$body` in a write transaction `$tx` (`BEGIN IMMEDIATE` on SQLite), committing when it
/// returns Ok.
macro_rules! write_tx {
    ($store:expr, |$tx:ident| $body:expr) => {
        match $store.pool() {
            $crate::DbPool::Sqlite(p) => {
                let mut $tx = p.begin_with("BEGIN IMMEDIATE").await.map_err(db_error)?;
                let out = $body;
                $tx.commit().await.map_err(db_error)?;
                out
            }
            $crate::DbPool::Postgres(p) => {
                let mut $tx = p.begin().await.map_err(db_error)?;
                let out = $body;
                $tx.commit().await.map_err(db_error)?;
                out
            }
        }
    };
}

/// Text forms of an input's enum fields.
struct InputText {
    channel: String,
    provider: String,
    group_as_ticket: &'static str,
}

impl InputText {
    fn of(input: &ConnectionInput) -> Result<Self> {
        Ok(Self {
            channel: to_wire(&input.channel.unwrap_or(ChannelKind::Whatsapp))?,
            provider: to_wire(&input.provider.unwrap_or(ProviderKind::Beta))?,
            group_as_ticket: if input.group_as_ticket {
                "enabled"
            } else {
                "disabled"
            },
        })
    }
}

fn updates(connections: Vec<Connection>) -> Vec<Event> {
    connections
        .into_iter()
        .map(|c| Event::WhatsappUpdate {
            whatsapp: Box::new(c),
        })
        .collect()
}

#[async_trait]
impl ConnectionRepo for Store {
    #[tracing::instrument(level = "debug", name = "ConnectionRepo::list", skip_all, fields(company = scope.company_id().0))]
    async fn list(&self, scope: TenantScope) -> Result<Vec<Connection>> {
        let company = scope.company_id().0;
        crate::on_pool!(self.pool(), |p| {
            let mut conn = p.acquire().await.map_err(db_error)?;
            load!(&mut *conn, Some(company), None)
        })
    }

    #[tracing::instrument(level = "debug", name = "ConnectionRepo::get", skip_all, fields(company = scope.company_id().0, connection = id.0))]
    async fn get(&self, scope: TenantScope, id: WhatsappId) -> Result<Option<Connection>> {
        let company = scope.company_id().0;
        let found = crate::on_pool!(self.pool(), |p| {
            let mut conn = p.acquire().await.map_err(db_error)?;
            load!(&mut *conn, Some(company), Some(&[id.0][..]))
        })?;
        Ok(found.into_iter().next())
    }

    #[tracing::instrument(level = "debug", name = "ConnectionRepo::count", skip_all, fields(company = scope.company_id().0))]
    async fn count(&self, scope: TenantScope) -> Result<i64> {
        crate::on_pool!(self.pool(), |p| {
            sqlx::query_scalar::<_, i64>("SELECT COUNT(*) FROM whatsapps WHERE company_id = $1")
                .bind(scope.company_id().0)
                .fetch_one(p)
                .await
                .map_err(db_error)
        })
    }

    #[tracing::instrument(level = "debug", name = "ConnectionRepo::create", skip_all, fields(company = scope.company_id().0))]
    async fn create(
        &self,
        scope: TenantScope,
        input: &ConnectionInput,
        token: &str,
        events: &[Event],
    ) -> Result<Connection> {
        let company = scope.company_id().0;
        let text = InputText::of(input)?;
        let at = self.now();
        write_tx!(self, |tx| {
            let mut changed: Vec<i64> = Vec::new();
            if input.is_default {
                changed = sqlx::query_scalar(
                    "UPDATE whatsapps SET is_default = FALSE, updated_at = $2 \
                     WHERE company_id = $1 AND is_default RETURNING id",
                )
                .bind(company)
                .bind(at)
                .fetch_all(&mut *tx)
                .await
                .map_err(db_error)?;
            }
            let id: i64 = sqlx::query_scalar(
                "INSERT INTO whatsapps (company_id, name, channel, provider, status, is_default, \
                 token, greeting_message, complation_message, out_of_hours_message, \
                 rating_message, allow_group, group_as_ticket, max_use_bot_queues, \
                 time_use_bot_queues, time_send_queue, send_id_queue, expires_ticket, \
                 expires_inactive_message, time_create_new_ticket, max_use_bot_queues_nps, \
                 expires_ticket_nps, flow_id_welcome, flow_id_not_phrase, \
                 collective_vacation_start, collective_vacation_end, \
                 collective_vacation_message, schedules, time_inactive_message, \
                 inactive_message, when_expires_ticket, created_at, updated_at) \
                 VALUES ($1, $2, $3, $4, 'DISCONNECTED', $5, $6, $7, $8, $9, $10, $11, $12, $13, \
                 $14, $15, (SELECT q.id FROM queues q WHERE q.id = $16 AND q.company_id = $1), \
                 $17, $18, $19, $20, $21, \
                 (SELECT f.id FROM flows f WHERE f.id = $23 AND f.company_id = $1), \
                 (SELECT f.id FROM flows f WHERE f.id = $24 AND f.company_id = $1), \
                 $25, $26, $27, $28, $29, $30, $31, $22, $22) RETURNING id",
            )
            .bind(company)
            .bind(&input.name)
            .bind(&text.channel)
            .bind(&text.provider)
            .bind(input.is_default)
            .bind(token)
            .bind(&input.greeting_message)
            .bind(&input.complation_message)
            .bind(&input.out_of_hours_message)
            .bind(&input.rating_message)
            .bind(input.allow_group)
            .bind(text.group_as_ticket)
            .bind(input.max_use_bot_queues)
            .bind(input.time_use_bot_queues)
            .bind(input.time_send_queue)
            .bind(input.send_id_queue.map(|q| q.0))
            .bind(input.expires_ticket)
            .bind(&input.expires_inactive_message)
            .bind(input.time_create_new_ticket)
            .bind(input.max_use_bot_queues_nps)
            .bind(input.expires_ticket_nps)
            .bind(at)
            .bind(input.flow_id_welcome.map(|f| f.0))
            .bind(input.flow_id_not_phrase.map(|f| f.0))
            .bind(input.collective_vacation_start)
            .bind(input.collective_vacation_end)
            .bind(&input.collective_vacation_message)
            .bind(Json(&input.schedules))
            .bind(input.time_inactive_message)
            .bind(&input.inactive_message)
            .bind(input.when_expires_ticket)
            .fetch_one(&mut *tx)
            .await
            .map_err(db_error)?;
            sqlx::query(WRITE_IMPORT)
                .bind(company)
                .bind(id)
                .bind(input.enable_import_message)
                .bind(input.import_old_messages)
                .bind(input.import_recent_messages)
                .bind(input.import_old_messages_groups)
                .bind(input.closed_tickets_post_imported)
                .bind(input.queue_id_import_messages.map(|q| q.0))
                .execute(&mut *tx)
                .await
                .map_err(db_error)?;
            for queue in &input.queue_ids {
                sqlx::query(
                    "INSERT INTO whatsapp_queues (company_id, whatsapp_id, queue_id) \
                     SELECT $1, $2, q.id FROM queues q WHERE q.id = $3 AND q.company_id = $1 \
                     ON CONFLICT DO NOTHING",
                )
                .bind(company)
                .bind(id)
                .bind(queue.0)
                .execute(&mut *tx)
                .await
                .map_err(db_error)?;
            }
            changed.push(id);
            let loaded = load!(&mut *tx, Some(company), Some(&changed[..]))?;
            let created = loaded
                .iter()
                .find(|c| c.id.0 == id)
                .cloned()
                .ok_or_else(|| Error::internal("created connection not found"))?;
            let mut all = updates(loaded);
            all.extend_from_slice(events);
            crate::append_events!(&mut *tx, scope, self.now(), &all)?;
            Ok::<Connection, Error>(created)
        })
    }

    #[tracing::instrument(level = "debug", name = "ConnectionRepo::update", skip_all, fields(company = scope.company_id().0, connection = id.0))]
    async fn update(
        &self,
        scope: TenantScope,
        id: WhatsappId,
        input: &ConnectionInput,
    ) -> Result<Option<Connection>> {
        let company = scope.company_id().0;
        let text = InputText::of(input)?;
        let at = self.now();
        write_tx!(self, |tx| {
            let done = sqlx::query(
                "UPDATE whatsapps SET name = $3, channel = $4, provider = $5, \
                 greeting_message = $6, complation_message = $7, out_of_hours_message = $8, \
                 rating_message = $9, allow_group = $10, group_as_ticket = $11, \
                 max_use_bot_queues = $12, time_use_bot_queues = $13, time_send_queue = $14, \
                 send_id_queue = (SELECT q.id FROM queues q WHERE q.id = $15 AND q.company_id = $1), \
                 expires_ticket = $16, expires_inactive_message = $17, \
                 time_create_new_ticket = $18, max_use_bot_queues_nps = $19, \
                 expires_ticket_nps = $20, updated_at = $21, \
                 flow_id_welcome = (SELECT f.id FROM flows f WHERE f.id = $22 AND f.company_id = $1), \
                 flow_id_not_phrase = (SELECT f.id FROM flows f WHERE f.id = $23 AND f.company_id = $1), \
                 collective_vacation_start = $24, collective_vacation_end = $25, \
                 collective_vacation_message = $26, schedules = $27, \
                 time_inactive_message = $28, inactive_message = $29, when_expires_ticket = $30 \
                 WHERE company_id = $1 AND id = $2",
            )
            .bind(company)
            .bind(id.0)
            .bind(&input.name)
            .bind(&text.channel)
            .bind(&text.provider)
            .bind(&input.greeting_message)
            .bind(&input.complation_message)
            .bind(&input.out_of_hours_message)
            .bind(&input.rating_message)
            .bind(input.allow_group)
            .bind(text.group_as_ticket)
            .bind(input.max_use_bot_queues)
            .bind(input.time_use_bot_queues)
            .bind(input.time_send_queue)
            .bind(input.send_id_queue.map(|q| q.0))
            .bind(input.expires_ticket)
            .bind(&input.expires_inactive_message)
            .bind(input.time_create_new_ticket)
            .bind(input.max_use_bot_queues_nps)
            .bind(input.expires_ticket_nps)
            .bind(at)
            .bind(input.flow_id_welcome.map(|f| f.0))
            .bind(input.flow_id_not_phrase.map(|f| f.0))
            .bind(input.collective_vacation_start)
            .bind(input.collective_vacation_end)
            .bind(&input.collective_vacation_message)
            .bind(Json(&input.schedules))
            .bind(input.time_inactive_message)
            .bind(&input.inactive_message)
            .bind(input.when_expires_ticket)
            .execute(&mut *tx)
            .await
            .map_err(db_error)?;
            if done.rows_affected() == 0 {
                return Ok(None);
            }
            sqlx::query(WRITE_IMPORT)
                .bind(company)
                .bind(id.0)
                .bind(input.enable_import_message)
                .bind(input.import_old_messages)
                .bind(input.import_recent_messages)
                .bind(input.import_old_messages_groups)
                .bind(input.closed_tickets_post_imported)
                .bind(input.queue_id_import_messages.map(|q| q.0))
                .execute(&mut *tx)
                .await
                .map_err(db_error)?;
            let mut changed: Vec<i64> = Vec::new();
            if input.is_default {
                changed = sqlx::query_scalar(
                    "UPDATE whatsapps SET is_default = (id = $2), updated_at = $3 \
                     WHERE company_id = $1 AND (is_default OR id = $2) RETURNING id",
                )
                .bind(company)
                .bind(id.0)
                .bind(at)
                .fetch_all(&mut *tx)
                .await
                .map_err(db_error)?;
            } else {
                sqlx::query(
                    "UPDATE whatsapps SET is_default = FALSE WHERE company_id = $1 AND id = $2",
                )
                .bind(company)
                .bind(id.0)
                .execute(&mut *tx)
                .await
                .map_err(db_error)?;
            }
            sqlx::query("DELETE FROM whatsapp_queues WHERE company_id = $1 AND whatsapp_id = $2")
                .bind(company)
                .bind(id.0)
                .execute(&mut *tx)
                .await
                .map_err(db_error)?;
            for queue in &input.queue_ids {
                sqlx::query(
                    "INSERT INTO whatsapp_queues (company_id, whatsapp_id, queue_id) \
                     SELECT $1, $2, q.id FROM queues q WHERE q.id = $3 AND q.company_id = $1 \
                     ON CONFLICT DO NOTHING",
                )
                .bind(company)
                .bind(id.0)
                .bind(queue.0)
                .execute(&mut *tx)
                .await
                .map_err(db_error)?;
            }
            if !changed.contains(&id.0) {
                changed.push(id.0);
            }
            let loaded = load!(&mut *tx, Some(company), Some(&changed[..]))?;
            let updated = loaded.iter().find(|c| c.id == id).cloned();
            crate::append_events!(&mut *tx, scope, self.now(), &updates(loaded))?;
            Ok::<Option<Connection>, Error>(updated)
        })
    }

    #[tracing::instrument(level = "debug", name = "ConnectionRepo::set_token", skip_all, fields(company = scope.company_id().0, connection = id.0))]
    async fn set_token(&self, scope: TenantScope, id: WhatsappId, token: &str) -> Result<bool> {
        let company = scope.company_id().0;
        let at = self.now();
        write_tx!(self, |tx| {
            let done = sqlx::query(
                "UPDATE whatsapps SET token = $3, updated_at = $4 WHERE company_id = $1 AND id = $2",
            )
            .bind(company)
            .bind(id.0)
            .bind(token)
            .bind(at)
            .execute(&mut *tx)
            .await
            .map_err(db_error)?;
            if done.rows_affected() == 0 {
                return Ok(false);
            }
            let loaded = load!(&mut *tx, Some(company), Some(&[id.0][..]))?;
            crate::append_events!(&mut *tx, scope, self.now(), &updates(loaded))?;
            Ok::<bool, Error>(true)
        })
    }

    #[tracing::instrument(level = "debug", name = "ConnectionRepo::set_session", skip_all, fields(company = scope.company_id().0, connection = id.0))]
    async fn set_session(
        &self,
        scope: TenantScope,
        id: WhatsappId,
        update: &SessionUpdate,
    ) -> Result<Option<Connection>> {
        let company = scope.company_id().0;
        let at = self.now();
        // The previous status and details decide what the update keeps; PostgreSQL locks the
        // row so two reports of one session apply one after the other (SQLite's write
        // transaction already does).
        let lock = match self.backend() {
            Backend::Postgres => " FOR UPDATE",
            Backend::Sqlite => "",
        };
        let read = format!(
            "SELECT status, pairing_code, session_reason, session_until FROM whatsapps \
             WHERE company_id = $1 AND id = $2{lock}"
        );
        write_tx!(self, |tx| {
            let previous: Option<SessionRow> = sqlx::query_as(sqlx::AssertSqlSafe(read.clone()))
                .bind(company)
                .bind(id.0)
                .fetch_optional(&mut *tx)
                .await
                .map_err(db_error)?;
            let Some(previous) = previous else {
                return Ok(None);
            };
            let (status, details) = previous.details(id.0)?;
            let details = session_details_after(status, details, update);
            let done = sqlx::query(
                "UPDATE whatsapps SET status = $3, qrcode = $4, retries = $5, \
                 number = COALESCE($6, number), updated_at = $7, pairing_code = $8, \
                 session_reason = $9, session_until = $10 \
                 WHERE company_id = $1 AND id = $2",
            )
            .bind(company)
            .bind(id.0)
            .bind(update.status.as_str())
            .bind(&update.qrcode)
            .bind(update.retries)
            .bind(update.number.as_deref())
            .bind(at)
            .bind(details.pairing_code.as_deref())
            .bind(reason_text(details.reason.as_ref())?)
            .bind(details.until)
            .execute(&mut *tx)
            .await
            .map_err(db_error)?;
            if done.rows_affected() == 0 {
                return Ok(None);
            }
            let loaded = load!(&mut *tx, Some(company), Some(&[id.0][..]))?;
            let Some(connection) = loaded.into_iter().next() else {
                return Ok(None);
            };
            crate::append_events!(
                &mut *tx,
                scope,
                self.now(),
                &[Event::WhatsappSession {
                    session: Box::new(connection.clone())
                }]
            )?;
            Ok::<Option<Connection>, Error>(Some(connection))
        })
    }

    #[tracing::instrument(level = "debug", name = "ConnectionRepo::delete", skip_all, fields(company = scope.company_id().0, connection = id.0))]
    async fn delete(&self, scope: TenantScope, id: WhatsappId) -> Result<bool> {
        let company = scope.company_id().0;
        write_tx!(self, |tx| {
            let done = sqlx::query("DELETE FROM whatsapps WHERE company_id = $1 AND id = $2")
                .bind(company)
                .bind(id.0)
                .execute(&mut *tx)
                .await
                .map_err(db_error)?;
            if done.rows_affected() == 0 {
                return Ok(false);
            }
            crate::append_events!(
                &mut *tx,
                scope,
                self.now(),
                &[Event::WhatsappDelete { whatsapp_id: id.0 }]
            )?;
            Ok::<bool, Error>(true)
        })
    }

    #[tracing::instrument(level = "debug", name = "ConnectionRepo::list_all_platform", skip_all)]
    async fn list_all_platform(&self) -> Result<Vec<Connection>> {
        crate::on_pool!(self.pool(), |p| {
            let mut conn = p.acquire().await.map_err(db_error)?;
            load!(&mut *conn, None, None)
        })
    }

    #[tracing::instrument(level = "debug", name = "ConnectionRepo::set_default", skip_all, fields(company = scope.company_id().0, connection = id.0))]
    async fn set_default(&self, scope: TenantScope, id: WhatsappId) -> Result<bool> {
        let company = scope.company_id().0;
        let at = self.now();
        write_tx!(self, |tx| {
            let exists: Option<i64> =
                sqlx::query_scalar("SELECT id FROM whatsapps WHERE company_id = $1 AND id = $2")
                    .bind(company)
                    .bind(id.0)
                    .fetch_optional(&mut *tx)
                    .await
                    .map_err(db_error)?;
            if exists.is_none() {
                return Ok(false);
            }
            let changed: Vec<i64> = sqlx::query_scalar(
                "UPDATE whatsapps SET is_default = (id = $2), updated_at = $3 \
                 WHERE company_id = $1 AND (is_default OR id = $2) RETURNING id",
            )
            .bind(company)
            .bind(id.0)
            .bind(at)
            .fetch_all(&mut *tx)
            .await
            .map_err(db_error)?;
            let loaded = load!(&mut *tx, Some(company), Some(&changed[..]))?;
            crate::append_events!(&mut *tx, scope, self.now(), &updates(loaded))?;
            Ok::<bool, Error>(true)
        })
    }
}

#[path = "history_imports.rs"]
mod history_imports;

#[path = "gaps.rs"]
mod gaps;
