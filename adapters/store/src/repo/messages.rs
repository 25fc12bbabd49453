//! [`MessageRepo`] on the store: a ticket's messages (keyset pages by id, newest page first),
//! outbound messages, reactions, and exactly-once inbound ingestion.
//!
//! Ingestion runs in one transaction: the contact is upserted on (company, channel, number),
//! the ticket is reused or created (the unique partial index on not-closed tickets settles
//! races: the loser of `ON CONFLICT DO NOTHING` reuses the winner's ticket), and the message is
//! inserted with `ON CONFLICT DO NOTHING` on (connection, external id): a duplicate rolls the
//! whole transaction back, so a replayed delivery changes nothing.

use std::collections::HashMap;

use async_trait::async_trait;
use chatflow_core::events::{Event, MessageAction};
use chatflow_core::ids::{ContactId, MessageId, ScheduleId, TicketId, UserId, WhatsappId};
use chatflow_core::inbox::channel::InboundMessage;
use chatflow_core::inbox::ingest::{EventIntent, IngestContext, IngestPlan, TicketPlan};
use chatflow_core::inbox::model::{
    Connection, Cursor, KeysetPage, MediaType, Message, NewMessage, PageStart, QuotedMessage,
    Reaction,
};
use chatflow_core::inbox::ports::{Inbound, IngestBatch, IngestOutcome, MessageRepo, Stored};
use chatflow_core::inbox::search;
use chatflow_core::{Error, ErrorCode, Result, TenantScope};
use chrono::{DateTime, Utc};

use crate::Store;
use crate::error::db_error;
use crate::repo::to_wire;

/// What a receipt (ack `$4`) sets on its message: the ack, and a receipt from the phone clears a
/// delivery flag.
const ACK_SET: &str =
    "ack = $4, delivery_issue = CASE WHEN $4 >= 2 THEN NULL ELSE delivery_issue END";

/// What a send the channel took (its id `$3`) sets on its message: the id, and ack 1 unless a
/// receipt came first.
const SENT_SET: &str = "external_id = $3, ack = CASE WHEN ack < 1 THEN 1 ELSE ack END";

/// The select list and joins of [`MessageRow`].
pub(crate) const MESSAGE_SELECT: &str = "m.id, m.ticket_id, m.contact_id, m.whatsapp_id, \
     m.external_id, m.body, m.from_me, m.read, m.is_private, m.is_deleted, m.is_edited, \
     m.is_forwarded, m.media_type, m.media_path, m.media_name, m.participant, m.quoted_msg_id, \
     m.ack, m.user_id, m.media_error, m.delivery_issue, m.created_at, m.updated_at, qm.body AS quoted_body, \
     qm.from_me AS quoted_from_me, qm.media_type AS quoted_media_type, \
     qm.is_deleted AS quoted_is_deleted \
     FROM messages m LEFT JOIN messages qm ON qm.id = m.quoted_msg_id";

/// A message row with its quoted message.
#[derive(sqlx::FromRow)]
pub(crate) struct MessageRow {
    id: i64,
    ticket_id: i64,
    contact_id: Option<i64>,
    whatsapp_id: Option<i64>,
    external_id: Option<String>,
    body: String,
    from_me: bool,
    read: bool,
    is_private: bool,
    is_deleted: bool,
    is_edited: bool,
    is_forwarded: bool,
    media_type: String,
    media_path: Option<String>,
    media_name: Option<String>,
    participant: Option<String>,
    quoted_msg_id: Option<i64>,
    ack: i64,
    user_id: Option<i64>,
    media_error: Option<String>,
    delivery_issue: Option<String>,
    created_at: DateTime<Utc>,
    updated_at: DateTime<Utc>,
    quoted_body: Option<String>,
    quoted_from_me: Option<bool>,
    quoted_media_type: Option<String>,
    quoted_is_deleted: Option<bool>,
}

/// A reaction row.
#[derive(sqlx::FromRow)]
pub(crate) struct ReactionRow {
    message_id: i64,
    from_me: bool,
    emoji: String,
}

/// The file name an inbound message's attachment is stored under: the file's, or the one that
/// could not be downloaded.
pub(crate) fn inbound_media_name(message: &InboundMessage) -> Option<String> {
    message
        .media
        .as_ref()
        .map(|m| m.file_name.clone())
        .or_else(|| message.media_failed.as_ref().map(|f| f.file_name.clone()))
}

/// The error an inbound message shows for an attachment that could not be downloaded.
pub(crate) fn inbound_media_error(message: &InboundMessage) -> Option<&'static str> {
    message
        .media_failed
        .as_ref()
        .map(|_| ErrorCode::ERR_WAPP_DOWNLOAD_MEDIA.as_str())
}

/// What a later download needs (`media_retry`), as JSON; the locator is sealed by the use case.
pub(crate) fn inbound_media_retry(message: &InboundMessage) -> Result<Option<String>> {
    message
        .media_failed
        .as_ref()
        .map(|failed| {
            serde_json::to_string(failed)
                .map_err(|e| Error::internal(format!("a failed attachment as JSON: {e}")))
        })
        .transpose()
}

pub(crate) fn media_type(value: &str) -> MediaType {
    MediaType::parse(value).unwrap_or(MediaType::Chat)
}

/// Builds messages from their rows and reactions, in the rows' order.
pub(crate) fn assemble(rows: Vec<MessageRow>, reactions: Vec<ReactionRow>) -> Vec<Message> {
    let mut by_message: HashMap<i64, Vec<Reaction>> = HashMap::new();
    for r in reactions {
        by_message.entry(r.message_id).or_default().push(Reaction {
            emoji: r.emoji,
            from_me: r.from_me,
        });
    }
    rows.into_iter()
        .map(|row| Message {
            id: MessageId(row.id),
            ticket_id: TicketId(row.ticket_id),
            contact_id: row.contact_id.map(ContactId),
            whatsapp_id: row.whatsapp_id.map(WhatsappId),
            external_id: row.external_id,
            body: row.body,
            from_me: row.from_me,
            read: row.read,
            is_private: row.is_private,
            is_deleted: row.is_deleted,
            is_edited: row.is_edited,
            is_forwarded: row.is_forwarded,
            media_type: media_type(&row.media_type),
            media_url: row
                .media_path
                .as_ref()
                .map(|_| format!("/messages/{}/media", row.id)),
            media_name: row.media_name,
            quoted_msg: row.quoted_msg_id.map(|id| QuotedMessage {
                id: MessageId(id),
                body: row.quoted_body.unwrap_or_default(),
                from_me: row.quoted_from_me.unwrap_or_default(),
                media_type: media_type(row.quoted_media_type.as_deref().unwrap_or("chat")),
                is_deleted: row.quoted_is_deleted.unwrap_or_default(),
            }),
            ack: row.ack,
            media_error: row.media_error,
            delivery_issue: row
                .delivery_issue
                .as_deref()
                .and_then(chatflow_core::inbox::delivery::DeliveryIssue::parse),
            reactions: by_message.remove(&row.id).unwrap_or_default(),
            user_id: row.user_id.map(UserId),
            participant: row.participant,
            created_at: row.created_at,
            updated_at: row.updated_at,
        })
        .collect()
}

/// Loads the messages of `$scope` with ids `$ids` (a `&[i64]`) on `$conn`, in ascending id
/// order: evaluates to `Result<Vec<Message>>`.
#[macro_export]
macro_rules! load_messages {
    ($conn:expr, $scope:expr, $ids:expr) => {{
        let scope: chatflow_core::TenantScope = $scope;
        let ids: &[i64] = $ids;
        let conn = $conn;
        async move {
            if ids.is_empty() {
                return Ok::<_, chatflow_core::Error>(Vec::new());
            }
            let rows: Vec<$crate::repo::messages::MessageRow> =
                sqlx::query_as(sqlx::AssertSqlSafe(format!(
                    "SELECT {} WHERE m.company_id = $1 AND {} ORDER BY m.id",
                    $crate::repo::messages::MESSAGE_SELECT,
                    $crate::repo::lists::any(&*conn, "m.id", 2)
                )))
                .bind(scope.company_id().0)
                .bind($crate::repo::lists::ints(&*conn, ids))
                .fetch_all(&mut *conn)
                .await
                .map_err($crate::error::db_error)?;
            let reactions: Vec<$crate::repo::messages::ReactionRow> =
                sqlx::query_as(sqlx::AssertSqlSafe(format!(
                    "SELECT message_id, from_me, emoji FROM message_reactions \
                     WHERE company_id = $1 AND {} ORDER BY from_me",
                    $crate::repo::lists::any(&*conn, "message_id", 2)
                )))
                .bind(scope.company_id().0)
                .bind($crate::repo::lists::ints(&*conn, ids))
                .fetch_all(&mut *conn)
                .await
                .map_err($crate::error::db_error)?;
            Ok($crate::repo::messages::assemble(rows, reactions))
        }
        .await
    }};
}

/// What an outbound message copies from its ticket `$ticket` (an id):
/// `(contact_id, whatsapp_id, queue_id)`, `ERR_NO_TICKET_FOUND` when it is not the company's.
/// Evaluates to `Result<(i64, Option<i64>, Option<i64>)>`.
macro_rules! outbound_ticket {
    ($conn:expr, $company:expr, $ticket:expr) => {{
        let found: Option<(i64, Option<i64>, Option<i64>)> = sqlx::query_as(
            "SELECT contact_id, whatsapp_id, queue_id FROM tickets \
             WHERE company_id = $1 AND id = $2",
        )
        .bind($company)
        .bind($ticket)
        .fetch_optional(&mut *$conn)
        .await
        .map_err(db_error)?;
        found.ok_or_else(|| Error::new(ErrorCode::ERR_NO_TICKET_FOUND))
    }};
}

/// Inserts the outbound message `$message` (`$kind` its wire media type) on its ticket, whose
/// `(contact_id, whatsapp_id, queue_id)` are `$ticket`, stamped `$at`, and makes it the ticket's
/// last message unless it is a note: evaluates to `Result<i64>` (the new id). No event.
macro_rules! insert_outbound {
    ($conn:expr, $company:expr, $message:expr, $kind:expr, $ticket:expr, $at:expr) => {{
        let company: i64 = $company;
        let message: &NewMessage = $message;
        let kind: &str = $kind;
        let (contact, whatsapp, queue): (i64, Option<i64>, Option<i64>) = $ticket;
        let at = $at;
        async {
            let id: i64 = sqlx::query_scalar(
                "INSERT INTO messages (company_id, ticket_id, contact_id, whatsapp_id, \
                 external_id, user_id, queue_id, body, search_text, from_me, read, \
                 is_private, is_forwarded, media_type, media_path, media_name, \
                 quoted_msg_id, ack, created_at, updated_at) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, TRUE, $11, $12, $13, $14, \
                 $15, (SELECT id FROM messages WHERE company_id = $1 AND id = $16), $17, \
                 $18, $18) RETURNING id",
            )
            .bind(company)
            .bind(message.ticket_id.0)
            .bind(contact)
            .bind(whatsapp)
            .bind(message.external_id.as_deref())
            .bind(message.user_id.map(|u| u.0))
            .bind(queue)
            .bind(&message.body)
            .bind(search::normalize(&message.body))
            .bind(message.from_me)
            .bind(message.is_private)
            .bind(message.is_forwarded)
            .bind(&kind)
            .bind(message.media_path.as_deref())
            .bind(message.media_name.as_deref())
            .bind(message.quoted_msg_id.map(|q| q.0))
            .bind(message.ack)
            .bind(at)
            .fetch_one(&mut *$conn)
            .await
            .map_err(|e| crate::error::db_error_missing(e, ErrorCode::ERR_CREATING_MESSAGE))?;
            if !message.is_private {
                let last = chatflow_core::inbox::ingest::last_message_text(
                    &message.body,
                    message.media_type,
                );
                sqlx::query(
                    "UPDATE tickets SET last_message = $1, last_message_id = $5, \
                     updated_at = $2 WHERE company_id = $3 AND id = $4",
                )
                .bind(last)
                .bind(at)
                .bind(company)
                .bind(message.ticket_id.0)
                .bind(id)
                .execute(&mut *$conn)
                .await
                .map_err(db_error)?;
            }
            Ok::<i64, Error>(id)
        }
        .await
    }};
}

/// Loads messages `$ids` (a `&[i64]`) of `$scope` and their tickets on `$conn`, and makes each
/// message's `appMessage` event (`$action`) with its ticket as it stands: evaluates to
/// `Result<(Vec<Message>, Vec<Ticket>, Vec<Event>)>`, nothing appended yet.
macro_rules! message_events {
    ($conn:expr, $scope:expr, $ids:expr, $action:expr) => {{
        let scope: TenantScope = $scope;
        async {
            let messages = crate::load_messages!(&mut *$conn, scope, $ids)?;
            let mut ticket_ids: Vec<i64> = messages.iter().map(|m| m.ticket_id.0).collect();
            ticket_ids.sort_unstable();
            ticket_ids.dedup();
            let tickets = crate::load_tickets!(&mut *$conn, scope, &ticket_ids)?;
            let mut events = Vec::with_capacity(messages.len() + tickets.len());
            for message in &messages {
                let ticket = tickets
                    .iter()
                    .find(|t| t.id == message.ticket_id)
                    .ok_or_else(|| Error::internal("message without ticket"))?;
                events.push(Event::AppMessage {
                    action: $action,
                    message: Box::new(message.clone()),
                    ticket: Box::new(ticket.clone()),
                });
            }
            Ok::<_, Error>((messages, tickets, events))
        }
        .await
    }};
}

/// Appends the `appMessage` event of message `$id` (with its ticket) on `$conn`, returning the
/// message: evaluates to `Result<Option<Message>>`.
macro_rules! message_event {
    ($conn:expr, $at:expr, $scope:expr, $id:expr, $action:expr) => {{
        let scope: TenantScope = $scope;
        let id: i64 = $id;
        async {
            let (mut messages, _, events) = message_events!($conn, scope, &[id], $action)?;
            if !events.is_empty() {
                crate::append_events!(&mut *$conn, scope, $at, &events)?;
            }
            Ok::<_, Error>(messages.pop())
        }
        .await
    }};
}

/// Appends the `appMessage create` events of the new messages `$ids` and one `update` of each of
/// their tickets on `$conn`, returning the messages: evaluates to `Result<Vec<Message>>`.
macro_rules! created_events {
    ($conn:expr, $at:expr, $scope:expr, $ids:expr) => {{
        let scope: TenantScope = $scope;
        async {
            let (created, tickets, mut events) =
                message_events!($conn, scope, $ids, MessageAction::Create)?;
            events.extend(tickets.into_iter().map(|ticket| Event::TicketUpdate {
                ticket: Box::new(ticket),
            }));
            crate::append_events!(&mut *$conn, scope, $at, &events)?;
            Ok::<_, Error>(created)
        }
        .await
    }};
}

/// Runs `$one` (a `Result<(Stored, bool)>` for the message `$item`, on the connection `$tx`)
/// for each message of `$items` in one write transaction, as [`MessageRepo::ingest_batch`]
/// says: each message of a batch of several in a savepoint, released when `$one` says to keep
/// it (`true`) and rolled back otherwise; a lone message uses the transaction itself. Evaluates
/// to `Result<IngestBatch>`.
macro_rules! batch_tx {
    ($store:expr, $items:expr, |$tx:ident, $item:ident| $one:expr) => {
        match $store.pool() {
            $crate::DbPool::Sqlite(p) => {
                let outer = p.begin_with("BEGIN IMMEDIATE").await.map_err(db_error)?;
                batch_tx!(@run outer, $items, |$tx, $item| $one)
            }
            $crate::DbPool::Postgres(p) => {
                let outer = p.begin().await.map_err(db_error)?;
                batch_tx!(@run outer, $items, |$tx, $item| $one)
            }
        }
    };
    (@run $outer:ident, $items:expr, |$tx:ident, $item:ident| $one:expr) => {{
        let mut outer = $outer;
        let items = $items;
        let mut outcomes = Vec::with_capacity(items.len());
        let mut failed = None;
        if let [$item] = items {
            let result = {
                let $tx = &mut *outer;
                $one
            };
            match result {
                Ok((stored, keep)) => {
                    if keep {
                        outer.commit().await.map_err(db_error)?;
                    }
                    outcomes.push(stored);
                }
                // Dropping the transaction rolls it back.
                Err(e) => failed = Some(e),
            }
        } else {
            for $item in items {
                let mut savepoint = sqlx::Connection::begin(&mut *outer)
                    .await
                    .map_err(db_error)?;
                let result = {
                    let $tx = &mut *savepoint;
                    $one
                };
                match result {
                    Ok((stored, keep)) => {
                        if keep {
                            savepoint.commit().await.map_err(db_error)?;
                        } else {
                            savepoint.rollback().await.map_err(db_error)?;
                        }
                        outcomes.push(stored);
                    }
                    Err(e) => {
                        savepoint.rollback().await.map_err(db_error)?;
                        failed = Some(e);
                        break;
                    }
                }
            }
            if !outcomes.is_empty() {
                outer.commit().await.map_err(db_error)?;
            }
        }
        Ok(IngestBatch { outcomes, failed })
    }};
}

/// Sets one side's reaction on `$conn` (an empty emoji removes it).
macro_rules! set_reaction {
    ($conn:expr, $company:expr, $id:expr, $emoji:expr, $from_me:expr) => {{
        let emoji: &str = $emoji;
        if emoji.is_empty() {
            sqlx::query(
                "DELETE FROM message_reactions WHERE company_id = $1 AND message_id = $2 \
                 AND from_me = $3",
            )
            .bind($company)
            .bind($id)
            .bind($from_me)
            .execute(&mut *$conn)
            .await
            .map_err(db_error)
        } else {
            sqlx::query(
                "INSERT INTO message_reactions (message_id, company_id, from_me, emoji) \
                 VALUES ($1, $2, $3, $4) \
                 ON CONFLICT (message_id, from_me) DO UPDATE SET emoji = excluded.emoji",
            )
            .bind($id)
            .bind($company)
            .bind($from_me)
            .bind(emoji)
            .execute(&mut *$conn)
            .await
            .map_err(db_error)
        }
    }};
}

#[async_trait]
impl MessageRepo for Store {
    #[tracing::instrument(level = "debug", name = "MessageRepo::list", skip_all, fields(company = scope.company_id().0, ticket = ticket.0))]
    async fn list(
        &self,
        scope: TenantScope,
        ticket: TicketId,
        start: &PageStart,
        page_size: u32,
    ) -> Result<KeysetPage<Message>> {
        let size = i64::from(page_size.clamp(1, 200));
        let (before, offset) = match start {
            PageStart::First => (i64::MAX, 0),
            PageStart::After(cursor) => (cursor.id, 0),
            PageStart::PageNumber(n) => (i64::MAX, i64::from(n.saturating_sub(1)) * size),
        };
        let first = matches!(start, PageStart::First | PageStart::PageNumber(1));
        let company = scope.company_id().0;
        crate::on_pool!(self.pool(), |p| {
            let mut conn = p.acquire().await.map_err(db_error)?;
            // A conversation reads by the messages' time (imported history keeps its own),
            // the id breaking ties; a page after a cursor starts below the cursor's message.
            let mut ids: Vec<i64> = sqlx::query_scalar(if before == i64::MAX {
                "SELECT id FROM messages WHERE company_id = $1 AND ticket_id = $2 \
                 AND $3 = $3 ORDER BY created_at DESC, id DESC LIMIT $4 OFFSET $5"
            } else {
                "SELECT id FROM messages m WHERE company_id = $1 AND ticket_id = $2 \
                 AND EXISTS (SELECT 1 FROM messages c WHERE c.id = $3 \
                 AND (m.created_at < c.created_at \
                 OR (m.created_at = c.created_at AND m.id < c.id))) \
                 ORDER BY created_at DESC, id DESC LIMIT $4 OFFSET $5"
            })
            .bind(company)
            .bind(ticket.0)
            .bind(before)
            .bind(size + 1)
            .bind(offset)
            .fetch_all(&mut *conn)
            .await
            .map_err(db_error)?;
            let has_more = ids.len() as i64 > size;
            ids.truncate(size as usize);
            let count = if first {
                let n: i64 = sqlx::query_scalar(
                    "SELECT COUNT(*) FROM messages WHERE company_id = $1 AND ticket_id = $2",
                )
                .bind(company)
                .bind(ticket.0)
                .fetch_one(&mut *conn)
                .await
                .map_err(db_error)?;
                Some(n)
            } else {
                None
            };
            let next_cursor = if has_more {
                ids.last().map(|id| Cursor {
                    key: String::new(),
                    id: *id,
                })
            } else {
                None
            };
            let mut items = crate::load_messages!(&mut *conn, scope, &ids)?;
            items.sort_by_key(|m| (m.created_at, m.id.0));
            Ok(KeysetPage {
                items,
                has_more,
                next_cursor,
                count,
                seq: None,
            })
        })
    }

    #[tracing::instrument(level = "debug", name = "MessageRepo::get", skip_all, fields(company = scope.company_id().0, message = id.0))]
    async fn get(&self, scope: TenantScope, id: MessageId) -> Result<Option<Message>> {
        crate::on_pool!(self.pool(), |p| {
            let mut conn = p.acquire().await.map_err(db_error)?;
            Ok(crate::load_messages!(&mut *conn, scope, &[id.0])?.pop())
        })
    }

    #[tracing::instrument(level = "debug", name = "MessageRepo::media_path", skip_all, fields(company = scope.company_id().0, message = id.0))]
    async fn media_path(&self, scope: TenantScope, id: MessageId) -> Result<Option<String>> {
        let path: Option<Option<String>> = crate::on_pool!(self.pool(), |p| {
            sqlx::query_scalar("SELECT media_path FROM messages WHERE company_id = $1 AND id = $2")
                .bind(scope.company_id().0)
                .bind(id.0)
                .fetch_optional(p)
                .await
                .map_err(db_error)?
        });
        Ok(path.flatten())
    }

    #[tracing::instrument(level = "debug", name = "MessageRepo::create", skip_all, fields(company = scope.company_id().0))]
    async fn create(&self, scope: TenantScope, message: &NewMessage) -> Result<Message> {
        self.create_message_guarded(scope, message, None)
            .await?
            .ok_or_else(|| Error::internal("message not stored"))
    }

    #[tracing::instrument(level = "debug", name = "MessageRepo::create_many", skip_all, fields(company = scope.company_id().0, messages = messages.len()))]
    async fn create_many(
        &self,
        scope: TenantScope,
        messages: &[NewMessage],
    ) -> Result<Vec<Message>> {
        if messages.is_empty() {
            return Ok(Vec::new());
        }
        let company = scope.company_id().0;
        let kinds = messages
            .iter()
            .map(|m| to_wire(&m.media_type))
            .collect::<Result<Vec<_>>>()?;
        crate::inbox_write_tx!(self, |tx| {
            async {
                let at = self.now();
                let mut ids = Vec::with_capacity(messages.len());
                // What each ticket gives its messages, read once per ticket.
                let mut tickets: Vec<(i64, (i64, Option<i64>, Option<i64>))> = Vec::new();
                for (message, kind) in messages.iter().zip(&kinds) {
                    let ticket_id = message.ticket_id.0;
                    let ticket = match tickets.iter().find(|(id, _)| *id == ticket_id) {
                        Some((_, ticket)) => *ticket,
                        None => {
                            let ticket = outbound_ticket!(&mut *tx, company, ticket_id)?;
                            tickets.push((ticket_id, ticket));
                            ticket
                        }
                    };
                    ids.push(insert_outbound!(
                        &mut *tx, company, message, kind, ticket, at
                    )?);
                }
                // The messages and their tickets as written, read once; one sequence bump.
                created_events!(&mut *tx, at, scope, &ids)
            }
            .await
        })
    }

    #[tracing::instrument(level = "debug", name = "MessageRepo::set_sent_many", skip_all, fields(company = scope.company_id().0, messages = sent.len()))]
    async fn set_sent_many(
        &self,
        scope: TenantScope,
        sent: &[(MessageId, String)],
    ) -> Result<Vec<Message>> {
        if sent.is_empty() {
            return Ok(Vec::new());
        }
        let company = scope.company_id().0;
        let at = self.now();
        crate::inbox_write_tx!(self, |tx| {
            async {
                let mut changed: Vec<i64> = Vec::with_capacity(sent.len());
                for (id, external_id) in sent {
                    let done = sqlx::query(sqlx::AssertSqlSafe(format!(
                        "UPDATE messages SET {SENT_SET}, updated_at = $4 \
                         WHERE company_id = $1 AND id = $2"
                    )))
                    .bind(company)
                    .bind(id.0)
                    .bind(external_id)
                    .bind(at)
                    .execute(&mut *tx)
                    .await
                    .map_err(db_error)?;
                    if done.rows_affected() > 0 {
                        changed.push(id.0);
                    }
                }
                let (messages, _, events) =
                    message_events!(&mut *tx, scope, &changed, MessageAction::Update)?;
                if !events.is_empty() {
                    crate::append_events!(&mut *tx, scope, at, &events)?;
                }
                Ok(messages)
            }
            .await
        })
    }

    #[tracing::instrument(level = "debug", name = "MessageRepo::set_sent", skip_all, fields(company = scope.company_id().0, message = id.0))]
    async fn set_sent(
        &self,
        scope: TenantScope,
        id: MessageId,
        external_id: &str,
    ) -> Result<Option<Message>> {
        self.update_message(scope, id.0, SENT_SET, Some(external_id.to_owned()))
            .await
    }

    #[tracing::instrument(level = "debug", name = "MessageRepo::edit", skip_all, fields(company = scope.company_id().0, message = id.0))]
    async fn edit(&self, scope: TenantScope, id: MessageId, body: &str) -> Result<Option<Message>> {
        self.update_message(
            scope,
            id.0,
            "body = $3, search_text = $4, is_edited = TRUE",
            Some(body.to_owned()),
        )
        .await
    }

    #[tracing::instrument(level = "debug", name = "MessageRepo::mark_deleted", skip_all, fields(company = scope.company_id().0, message = id.0))]
    async fn mark_deleted(&self, scope: TenantScope, id: MessageId) -> Result<Option<Message>> {
        self.update_message(scope, id.0, "is_deleted = TRUE", None)
            .await
    }

    #[tracing::instrument(level = "debug", name = "MessageRepo::failed_media", skip_all, fields(company = scope.company_id().0, message = id.0))]
    async fn failed_media(
        &self,
        scope: TenantScope,
        id: MessageId,
    ) -> Result<Option<chatflow_core::inbox::channel::FailedMedia>> {
        let retry: Option<Option<String>> = crate::on_pool!(self.pool(), |p| {
            sqlx::query_scalar("SELECT media_retry FROM messages WHERE company_id = $1 AND id = $2")
                .bind(scope.company_id().0)
                .bind(id.0)
                .fetch_optional(p)
                .await
                .map_err(db_error)
        })?;
        retry
            .flatten()
            .map(|json| {
                serde_json::from_str(&json)
                    .map_err(|e| Error::internal(format!("a stored failed attachment: {e}")))
            })
            .transpose()
    }

    #[tracing::instrument(level = "debug", name = "MessageRepo::media_recovered", skip_all, fields(company = scope.company_id().0, message = id.0))]
    async fn media_recovered(
        &self,
        scope: TenantScope,
        id: MessageId,
        media_path: &str,
    ) -> Result<Option<Message>> {
        self.update_message(
            scope,
            id.0,
            "media_path = $3, media_error = NULL, media_retry = NULL",
            Some(media_path.to_owned()),
        )
        .await
    }

    #[tracing::instrument(level = "debug", name = "MessageRepo::react", skip_all, fields(company = scope.company_id().0, message = id.0))]
    async fn react(
        &self,
        scope: TenantScope,
        id: MessageId,
        emoji: &str,
        from_me: bool,
    ) -> Result<Option<Message>> {
        let company = scope.company_id().0;
        crate::inbox_write_tx!(self, |tx| {
            async {
                let exists: Option<i64> =
                    sqlx::query_scalar("SELECT id FROM messages WHERE company_id = $1 AND id = $2")
                        .bind(company)
                        .bind(id.0)
                        .fetch_optional(&mut *tx)
                        .await
                        .map_err(db_error)?;
                if exists.is_none() {
                    return Ok(None);
                }
                set_reaction!(tx, company, id.0, emoji, from_me)?;
                message_event!(tx, self.now(), scope, id.0, MessageAction::Update)
            }
            .await
        })
    }

    #[tracing::instrument(level = "debug", name = "MessageRepo::count", skip_all, fields(company = scope.company_id().0))]
    async fn count(
        &self,
        scope: TenantScope,
        from_me: Option<bool>,
        from: Option<DateTime<Utc>>,
        to: Option<DateTime<Utc>>,
    ) -> Result<i64> {
        crate::on_pool!(self.pool(), |p| {
            sqlx::query_scalar(
                "SELECT COUNT(*) FROM messages WHERE company_id = $1 \
                 AND ($2 IS NULL OR from_me = $2) AND ($3 IS NULL OR created_at >= $3) \
                 AND ($4 IS NULL OR created_at <= $4)",
            )
            .bind(scope.company_id().0)
            .bind(from_me)
            .bind(from)
            .bind(to)
            .fetch_one(p)
            .await
            .map_err(db_error)
        })
    }

    #[tracing::instrument(level = "debug", name = "MessageRepo::ingest_batch", skip_all, fields(company = scope.company_id().0))]
    async fn ingest_batch(
        &self,
        scope: TenantScope,
        connection: &Connection,
        messages: &[Inbound<'_>],
        decide: &(
             dyn for<'c, 'm> Fn(&'c IngestContext, &'m InboundMessage) -> IngestPlan + Send + Sync
         ),
    ) -> Result<IngestBatch> {
        if connection.company_id != scope.company_id() {
            return Err(Error::new(ErrorCode::ERR_NO_WAPP_FOUND));
        }
        if messages.is_empty() {
            return Ok(IngestBatch {
                outcomes: Vec::new(),
                failed: None,
            });
        }
        // The whole batch in one pass (crate::repo::ingest); when anything in it fails, it is
        // rolled back and the batch goes message by message below, which narrows the failure
        // to its message and commits those before it.
        let pass: Result<Vec<Stored>> = async {
            crate::inbox_write_tx!(self, |tx| {
                crate::ingest_pass!(self, &mut *tx, scope, connection, messages, decide)
            })
        }
        .await;
        match pass {
            Ok(outcomes) => {
                return Ok(IngestBatch {
                    outcomes,
                    failed: None,
                });
            }
            Err(error) => {
                tracing::debug!(%error, "the batch's one pass failed; ingesting message by message");
            }
        }
        let company = scope.company_id().0;
        let channel = to_wire(&connection.channel)?;
        batch_tx!(self, messages, |tx, item| {
            async {
                let Inbound {
                    message,
                    media_path,
                } = *item;
                let kind = to_wire(&message.media_type)?;
                let name = if message.chat_name.trim().is_empty() {
                    message.chat.clone()
                } else {
                    message.chat_name.clone()
                };
                // 1. The contact, created on first contact.
                let at = self.now();
                let inserted: Option<i64> = sqlx::query_scalar(
                    "INSERT INTO contacts (company_id, name, number, channel, is_group, \
                     whatsapp_id, search_text, created_at, updated_at) \
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8) \
                     ON CONFLICT (company_id, channel, number) DO NOTHING RETURNING id",
                )
                .bind(company)
                .bind(&name)
                .bind(&message.chat)
                .bind(&channel)
                .bind(message.is_group)
                .bind(connection.id.0)
                .bind(crate::repo::contacts::search_text(&name, &message.chat, ""))
                .bind(at)
                .fetch_optional(&mut *tx)
                .await
                .map_err(db_error)?;
                let contact_created = inserted.is_some();
                let contact_id = match inserted {
                    Some(id) => id,
                    None => sqlx::query_scalar(
                        "SELECT id FROM contacts WHERE company_id = $1 AND channel = $2 \
                         AND number = $3",
                    )
                    .bind(company)
                    .bind(&channel)
                    .bind(&message.chat)
                    .fetch_one(&mut *tx)
                    .await
                    .map_err(db_error)?,
                };
                let contact = crate::load_contact!(&mut *tx, scope, ContactId(contact_id))?
                    .ok_or_else(|| Error::internal("contact vanished after upsert"))?;

                // 2. The active ticket and the core's decision.
                let active_id: Option<i64> = sqlx::query_scalar(
                    "SELECT id FROM tickets WHERE company_id = $1 AND contact_id = $2 \
                     AND whatsapp_id = $3 AND status <> 'closed' ORDER BY id DESC LIMIT 1",
                )
                .bind(company)
                .bind(contact_id)
                .bind(connection.id.0)
                .fetch_optional(&mut *tx)
                .await
                .map_err(db_error)?;
                let active_ticket = match active_id {
                    Some(id) => crate::load_ticket!(&mut *tx, scope, TicketId(id))?,
                    None => None,
                };
                let ctx = IngestContext {
                    connection: connection.clone(),
                    contact,
                    contact_created,
                    active_ticket,
                };
                let IngestPlan::Store {
                    ticket: plan,
                    unread_increment,
                    last_message,
                    logs,
                    events,
                    history,
                } = decide(&ctx, message)
                else {
                    return Ok((Stored::nothing(IngestOutcome::Ignored), false));
                };

                // 3. The ticket: reuse, or create (the loser of a race reuses the winner's).
                let (ticket_id, ticket_created) = match (plan, &ctx.active_ticket) {
                    (TicketPlan::Reuse, Some(active)) => (active.id.0, false),
                    (TicketPlan::Reuse, None) => {
                        return Err(Error::internal("reuse planned without an active ticket"));
                    }
                    (
                        TicketPlan::Create {
                            status,
                            is_group,
                            queue,
                            imported,
                        },
                        _,
                    ) => {
                        let created: Option<i64> = sqlx::query_scalar(
                            "INSERT INTO tickets (company_id, uuid, status, is_group, channel, \
                             whatsapp_id, contact_id, created_at, updated_at, queue_id, \
                             imported) \
                             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8, $9, $10) \
                             ON CONFLICT DO NOTHING RETURNING id",
                        )
                        .bind(company)
                        .bind(self.new_uuid())
                        .bind(to_wire(&status)?)
                        .bind(is_group)
                        .bind(&channel)
                        .bind(connection.id.0)
                        .bind(contact_id)
                        .bind(at)
                        .bind(queue.map(|q| q.0))
                        .bind(imported)
                        .fetch_optional(&mut *tx)
                        .await
                        .map_err(db_error)?;
                        match created {
                            Some(id) => (id, true),
                            None => {
                                let id: i64 = sqlx::query_scalar(
                                    "SELECT id FROM tickets WHERE company_id = $1 \
                                     AND contact_id = $2 AND whatsapp_id = $3 \
                                     AND status <> 'closed'",
                                )
                                .bind(company)
                                .bind(contact_id)
                                .bind(connection.id.0)
                                .fetch_one(&mut *tx)
                                .await
                                .map_err(db_error)?;
                                (id, false)
                            }
                        }
                    }
                };

                // 4. The message, once per (connection, external id).
                let message_id: Option<i64> = sqlx::query_scalar(
                    "INSERT INTO messages (company_id, ticket_id, contact_id, whatsapp_id, \
                     external_id, body, search_text, from_me, read, media_type, media_path, \
                     media_name, participant, quoted_msg_id, ack, created_at, updated_at, \
                     media_error, media_retry) \
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8, $9, $10, $11, $12, \
                     (SELECT id FROM messages WHERE whatsapp_id = $4 AND external_id = $13), \
                     $14, $15, $15, $16, $17) ON CONFLICT DO NOTHING RETURNING id",
                )
                .bind(company)
                .bind(ticket_id)
                .bind(contact_id)
                .bind(connection.id.0)
                .bind(&message.external_id)
                .bind(&message.body)
                .bind(search::normalize(&message.body))
                .bind(message.from_me)
                .bind(&kind)
                .bind(media_path)
                .bind(inbound_media_name(message))
                .bind(message.participant.as_deref())
                .bind(message.quoted_external_id.as_deref())
                .bind(i64::from(message.from_me))
                .bind(if history { message.timestamp } else { at })
                .bind(inbound_media_error(message))
                .bind(inbound_media_retry(message)?)
                .fetch_optional(&mut *tx)
                .await
                .map_err(db_error)?;
                let Some(message_id) = message_id else {
                    return Ok((Stored::nothing(IngestOutcome::Duplicate), false));
                };

                // 5. The ticket's counters, logs, the contact's name.
                // As in the batch pass: a live message unmarks an imported ticket; history
                // takes the last message only when it is not older than the one there.
                sqlx::query(if history {
                    "UPDATE tickets SET unread_messages = unread_messages + $1, \
                     last_message = CASE WHEN (last_message_id IS NULL OR (SELECT \
                     m.created_at FROM messages m WHERE m.id = last_message_id) <= (SELECT \
                     m.created_at FROM messages m WHERE m.id = $6)) THEN $2 ELSE last_message END, \
                     last_message_id = CASE WHEN (last_message_id IS NULL OR (SELECT \
                     m.created_at FROM messages m WHERE m.id = last_message_id) <= (SELECT \
                     m.created_at FROM messages m WHERE m.id = $6)) THEN $6 \
                     ELSE last_message_id END, \
                     updated_at = $3 WHERE company_id = $4 AND id = $5"
                } else {
                    "UPDATE tickets SET unread_messages = unread_messages + $1, \
                     last_message = $2, last_message_id = $6, updated_at = $3, imported = FALSE \
                     WHERE company_id = $4 AND id = $5"
                })
                .bind(unread_increment.max(0))
                .bind(&last_message)
                .bind(at)
                .bind(company)
                .bind(ticket_id)
                .bind(message_id)
                .execute(&mut *tx)
                .await
                .map_err(db_error)?;
                if ticket_created {
                    for log in &logs {
                        crate::insert_ticket_log!(tx, scope, self.now(), ticket_id, log)?;
                    }
                }
                let contact_event = events.contains(&EventIntent::ContactUpdate);
                if contact_event && !contact_created {
                    sqlx::query(
                        "UPDATE contacts SET name = $1, search_text = $2, updated_at = $3 \
                         WHERE company_id = $4 AND id = $5",
                    )
                    .bind(&name)
                    .bind(crate::repo::contacts::search_text(
                        &name,
                        &ctx.contact.number,
                        &ctx.contact.email,
                    ))
                    .bind(at)
                    .bind(company)
                    .bind(contact_id)
                    .execute(&mut *tx)
                    .await
                    .map_err(db_error)?;
                }

                // 6. The events, rendered from the rows as written (the contact as loaded
                // above unless this message renamed it).
                let ticket = crate::load_ticket!(&mut *tx, scope, TicketId(ticket_id))?
                    .ok_or_else(|| Error::internal("ticket vanished"))?;
                let stored = crate::load_messages!(&mut *tx, scope, &[message_id])?
                    .pop()
                    .ok_or_else(|| Error::internal("message vanished"))?;
                let contact = if contact_event && !contact_created {
                    crate::load_contact!(&mut *tx, scope, ContactId(contact_id))?
                        .ok_or_else(|| Error::internal("contact vanished"))?
                } else {
                    ctx.contact
                };
                let mut out = Vec::new();
                for intent in &events {
                    match intent {
                        EventIntent::TicketUpdate => out.push(Event::TicketUpdate {
                            ticket: Box::new(ticket.clone()),
                        }),
                        EventIntent::MessageCreate => out.push(Event::AppMessage {
                            action: MessageAction::Create,
                            message: Box::new(stored.clone()),
                            ticket: Box::new(ticket.clone()),
                        }),
                        EventIntent::ContactUpdate => out.push(Event::ContactUpdate {
                            action: if contact_created { "create" } else { "update" }.into(),
                            contact: Box::new(contact.clone()),
                        }),
                    }
                }
                crate::append_events!(&mut *tx, scope, self.now(), &out)?;
                Ok::<_, Error>((
                    Stored {
                        outcome: IngestOutcome::Stored {
                            ticket: TicketId(ticket_id),
                            message: MessageId(message_id),
                            ticket_created,
                            contact_created,
                        },
                        ticket: Some(Box::new(ticket)),
                        contact: Some(Box::new(contact)),
                    },
                    true,
                ))
            }
            .await
        })
    }

    #[tracing::instrument(level = "debug", name = "MessageRepo::apply_ack", skip_all, fields(company = scope.company_id().0, connection = connection.0))]
    async fn apply_ack(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        external_id: &str,
        ack: i64,
    ) -> Result<Option<Message>> {
        self.update_inbound(
            scope,
            connection,
            external_id,
            ACK_SET,
            InboundChange::Ack(ack),
        )
        .await
    }

    #[tracing::instrument(level = "debug", name = "MessageRepo::apply_acks", skip_all, fields(company = scope.company_id().0, connection = connection.0, acks = acks.len()))]
    async fn apply_acks(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        acks: &[(String, i64)],
    ) -> Result<usize> {
        if acks.is_empty() {
            return Ok(0);
        }
        let company = scope.company_id().0;
        let at = self.now();
        crate::inbox_write_tx!(self, |tx| {
            async {
                // Each receipt in order (a later one for the same message moves it further);
                // then one render of the messages that moved and of their tickets.
                let mut moved: Vec<i64> = Vec::with_capacity(acks.len());
                for (external_id, ack) in acks {
                    let id: Option<i64> = sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
                        "UPDATE messages SET {ACK_SET}, updated_at = $5 WHERE company_id = $1 \
                         AND whatsapp_id = $2 AND external_id = $3 AND ack < $4 RETURNING id"
                    )))
                    .bind(company)
                    .bind(connection.0)
                    .bind(external_id)
                    .bind(*ack)
                    .bind(at)
                    .fetch_optional(&mut *tx)
                    .await
                    .map_err(db_error)?;
                    if let Some(id) = id
                        && !moved.contains(&id)
                    {
                        moved.push(id);
                    }
                }
                moved.sort_unstable();
                let (_, _, events) =
                    message_events!(&mut *tx, scope, &moved, MessageAction::Update)?;
                if !events.is_empty() {
                    crate::append_events!(&mut *tx, scope, at, &events)?;
                }
                Ok(events.len())
            }
            .await
        })
    }

    #[tracing::instrument(level = "debug", name = "MessageRepo::apply_edit", skip_all, fields(company = scope.company_id().0, connection = connection.0))]
    async fn apply_edit(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        external_id: &str,
        body: &str,
    ) -> Result<Option<Message>> {
        self.update_inbound(
            scope,
            connection,
            external_id,
            "body = $4, search_text = $5, is_edited = TRUE",
            InboundChange::Body(body.to_owned()),
        )
        .await
    }

    #[tracing::instrument(level = "debug", name = "MessageRepo::apply_delete", skip_all, fields(company = scope.company_id().0, connection = connection.0))]
    async fn apply_delete(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        external_id: &str,
    ) -> Result<Option<Message>> {
        self.update_inbound(
            scope,
            connection,
            external_id,
            "is_deleted = TRUE",
            InboundChange::None,
        )
        .await
    }

    #[tracing::instrument(level = "debug", name = "MessageRepo::apply_reaction", skip_all, fields(company = scope.company_id().0, connection = connection.0))]
    async fn apply_reaction(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        external_id: &str,
        emoji: &str,
    ) -> Result<Option<Message>> {
        let company = scope.company_id().0;
        crate::inbox_write_tx!(self, |tx| {
            async {
                let id: Option<i64> = sqlx::query_scalar(
                    "SELECT id FROM messages WHERE company_id = $1 AND whatsapp_id = $2 \
                     AND external_id = $3",
                )
                .bind(company)
                .bind(connection.0)
                .bind(external_id)
                .fetch_optional(&mut *tx)
                .await
                .map_err(db_error)?;
                let Some(id) = id else {
                    return Ok(None);
                };
                set_reaction!(tx, company, id, emoji, false)?;
                message_event!(tx, self.now(), scope, id, MessageAction::Update)
            }
            .await
        })
    }
}

/// What an inbound change binds after `$1..$3`.
enum InboundChange {
    None,
    Ack(i64),
    Body(String),
}

impl Store {
    /// Stores an outbound message (see [`MessageRepo::create`]). With `claim` (a schedule and
    /// its open send claim's revision) the message is tied to that claim in the same
    /// transaction; `None`, with nothing stored, when the claim is gone or has its message.
    pub(crate) async fn create_message_guarded(
        &self,
        scope: TenantScope,
        message: &NewMessage,
        claim: Option<(ScheduleId, i64)>,
    ) -> Result<Option<Message>> {
        let company = scope.company_id().0;
        let kind = to_wire(&message.media_type)?;
        crate::inbox_write_tx!(self, |tx| {
            async {
                let (contact, whatsapp, queue) =
                    outbound_ticket!(&mut *tx, company, message.ticket_id.0)?;
                if let Some((schedule, revision)) = claim {
                    // Touching the row locks it on PostgreSQL (SQLite has one writer).
                    let open = sqlx::query(
                        "UPDATE schedules SET claimed_message_id = NULL \
                         WHERE company_id = $1 AND id = $2 AND revision = $3 \
                         AND claimed_revision = $3 AND claimed_message_id IS NULL",
                    )
                    .bind(company)
                    .bind(schedule.0)
                    .bind(revision)
                    .execute(&mut *tx)
                    .await
                    .map_err(db_error)?
                    .rows_affected();
                    if open == 0 {
                        return Ok(None);
                    }
                }
                let at = self.now();
                let id = insert_outbound!(
                    &mut *tx,
                    company,
                    message,
                    &kind,
                    (contact, whatsapp, queue),
                    at
                )?;
                if let Some((schedule, _)) = claim {
                    sqlx::query(
                        "UPDATE schedules SET claimed_message_id = $3 \
                         WHERE company_id = $1 AND id = $2",
                    )
                    .bind(company)
                    .bind(schedule.0)
                    .bind(id)
                    .execute(&mut *tx)
                    .await
                    .map_err(db_error)?;
                }
                // The message and its ticket as written, read once for both events, which are
                // appended together (one bump of the company's sequence).
                let created = created_events!(&mut *tx, self.now(), scope, &[id])?
                    .pop()
                    .ok_or_else(|| Error::internal("message vanished after insert"))?;
                Ok(Some(created))
            }
            .await
        })
    }

    /// Updates one message (`set` may use `$3` for `text` and `$4` for its normalised form) and
    /// appends its `update` event.
    async fn update_message(
        &self,
        scope: TenantScope,
        id: i64,
        set: &str,
        text: Option<String>,
    ) -> Result<Option<Message>> {
        let company = scope.company_id().0;
        let sql = format!(
            "UPDATE messages SET {set}, updated_at = $5 WHERE company_id = $1 AND id = $2 \
             AND ($3 IS NULL OR $3 = $3) AND ($4 IS NULL OR $4 = $4)"
        );
        let normalized = text.as_deref().map(search::normalize);
        crate::inbox_write_tx!(self, |tx| {
            async {
                let done = sqlx::query(sqlx::AssertSqlSafe(sql))
                    .bind(company)
                    .bind(id)
                    .bind(text.clone())
                    .bind(normalized.clone())
                    .bind(self.now())
                    .execute(&mut *tx)
                    .await
                    .map_err(db_error)?;
                if done.rows_affected() == 0 {
                    return Ok(None);
                }
                message_event!(tx, self.now(), scope, id, MessageAction::Update)
            }
            .await
        })
    }

    /// Applies an inbound change to the message with that external id; acks only move forward.
    async fn update_inbound(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        external_id: &str,
        set: &str,
        change: InboundChange,
    ) -> Result<Option<Message>> {
        let company = scope.company_id().0;
        let (ack, body) = match &change {
            InboundChange::None => (None, None),
            InboundChange::Ack(a) => (Some(*a), None),
            InboundChange::Body(b) => (None, Some(b.clone())),
        };
        let forward_only = if ack.is_some() { " AND ack < $4" } else { "" };
        let set = if body.is_some() {
            set.replace("$4", "$6").replace("$5", "$7")
        } else {
            set.to_owned()
        };
        let sql = format!(
            "UPDATE messages SET {set}, updated_at = $5 WHERE company_id = $1 \
             AND whatsapp_id = $2 AND external_id = $3{forward_only} RETURNING id"
        );
        let normalized = body.as_deref().map(search::normalize);
        crate::inbox_write_tx!(self, |tx| {
            async {
                let mut q = sqlx::query_scalar::<_, i64>(sqlx::AssertSqlSafe(sql))
                    .bind(company)
                    .bind(connection.0)
                    .bind(external_id)
                    .bind(ack.unwrap_or(0))
                    .bind(self.now());
                if body.is_some() {
                    q = q.bind(body.clone()).bind(normalized.clone());
                }
                let id: Option<i64> = q.fetch_optional(&mut *tx).await.map_err(db_error)?;
                let Some(id) = id else {
                    return Ok(None);
                };
                message_event!(tx, self.now(), scope, id, MessageAction::Update)
            }
            .await
        })
    }
}

#[path = "delivery.rs"]
mod delivery;
