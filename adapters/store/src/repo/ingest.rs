//! One pass over a batch of inbound messages ([`ingest_pass!`](crate::ingest_pass)): the
//! statements a batch needs grow with its chats and its new tickets, not with its messages.
//!
//! The pass reads what the core's decision needs once for the whole batch (which external ids
//! are stored already, the contacts, their active tickets), asks `decide` for each message in
//! the batch's order with the context as the messages before it left it, and then writes with
//! one statement per kind of row: the new contacts, the new tickets and their logs, the
//! messages, the tickets' counters, the events. The events are rendered from the rows as the
//! batch leaves them, so every event of a ticket the batch touched carries that ticket as it
//! stands at the commit.
//!
//! A message whose chat has a ticket planned but not yet written waits for the next round: the
//! decision for it needs that ticket, so the pass writes each round's new tickets (one insert),
//! loads them and goes on with the messages that waited. A backlog from one new contact takes
//! two rounds; a burst of new contacts, one.
//!
//! The caller runs the pass in one transaction and, when anything in it fails, rolls it back and
//! goes message by message, so a failure is narrowed to the message that causes it.

use std::collections::{HashMap, HashSet};

use chatflow_core::inbox::channel::InboundMessage;
use chatflow_core::inbox::ingest::EventIntent;
use chatflow_core::inbox::model::{Contact, Ticket};

/// The most rows one multi-row statement carries (SQLite takes at most 32,766 parameters; a
/// message row has 14).
pub(crate) const ROWS_PER_STATEMENT: usize = 500;

/// `count` rows of a multi-row statement: `row(first)` for each, where `first` is the number of
/// the row's first parameter (rows of `width` parameters, the first row's starting at `from`).
pub(crate) fn row_list(
    count: usize,
    from: usize,
    width: usize,
    row: impl Fn(usize) -> String,
) -> Vec<String> {
    (0..count).map(|k| row(from + k * width)).collect()
}

/// The name a message gives its chat: the chat's display name, else its number.
pub(crate) fn chat_display_name(message: &InboundMessage) -> String {
    if message.chat_name.trim().is_empty() {
        message.chat.clone()
    } else {
        message.chat_name.clone()
    }
}

/// A chat (one contact) of the batch as the pass goes.
pub(crate) struct Chat {
    pub(crate) contact: Contact,
    /// The pass inserted the contact.
    pub(crate) created: bool,
    /// A message of the chat is stored: the contact stays, and later messages did not create it.
    pub(crate) stored: bool,
    /// A message changed the contact's name (written once, after the decisions).
    pub(crate) renamed: bool,
    /// The contact's ticket on the connection that is not closed.
    pub(crate) active: Option<Ticket>,
}

/// A message the pass stores.
pub(crate) struct Planned {
    /// Its place in the batch.
    pub(crate) index: usize,
    /// Its chat in the pass's list.
    pub(crate) chat: usize,
    /// Its ticket (0 while the round that creates it has not written it).
    pub(crate) ticket: i64,
    pub(crate) ticket_created: bool,
    pub(crate) contact_created: bool,
    pub(crate) unread: i64,
    pub(crate) last_message: String,
    pub(crate) events: Vec<EventIntent>,
    /// Its row (0 until the insert).
    pub(crate) message: i64,
    /// From the phone's history: created at its own time.
    pub(crate) history: bool,
}

/// Each ticket the planned messages touch, in the order of their first message: the unread
/// count to add and the last message (text and row).
pub(crate) fn ticket_counters(planned: &[Planned]) -> Vec<(i64, i64, String, i64)> {
    let mut order: Vec<i64> = Vec::new();
    let mut by_ticket: HashMap<i64, (i64, String, i64)> = HashMap::new();
    for p in planned {
        let entry = by_ticket.entry(p.ticket).or_insert_with(|| {
            order.push(p.ticket);
            (0, String::new(), 0)
        });
        entry.0 += p.unread;
        entry.1.clone_from(&p.last_message);
        entry.2 = p.message;
    }
    order
        .into_iter()
        .filter_map(|id| {
            by_ticket
                .remove(&id)
                .map(|(n, text, last)| (id, n, text, last))
        })
        .collect()
}

/// The distinct values of `values`, in first-seen order.
pub(crate) fn distinct<'a>(values: impl Iterator<Item = &'a str>) -> Vec<&'a str> {
    let mut seen = HashSet::new();
    values.filter(|v| seen.insert(*v)).collect()
}

/// Runs the pass for `$messages` (a `&[Inbound]` of `$connection`, a `&Connection` of
/// `$scope`'s company) on `$conn` (a transaction's connection), with the core's `$decide`:
/// evaluates to `Result<Vec<Stored>>`, one per message in order. `$store` stamps the time and
/// the tickets' uuids.
#[macro_export]
#[doc(hidden)]
macro_rules! ingest_pass {
    ($store:expr, $conn:expr, $scope:expr, $connection:expr, $messages:expr, $decide:expr) => {{
        use std::collections::{HashMap, HashSet};

        use chatflow_core::events::{Event, MessageAction};
        use chatflow_core::ids::{MessageId, TicketId};
        use chatflow_core::inbox::ingest::{EventIntent, IngestContext, IngestPlan, TicketPlan};
        use chatflow_core::inbox::model::Connection;
        use chatflow_core::inbox::ports::{Inbound, IngestOutcome, Stored};
        use chatflow_core::inbox::search;
        use chatflow_core::{Error, TenantScope};
        use sqlx::AssertSqlSafe;
        use $crate::error::db_error;
        use $crate::repo::ingest::{
            Chat, Planned, ROWS_PER_STATEMENT, chat_display_name, distinct, row_list,
            ticket_counters,
        };

        let store = $store;
        let conn = $conn;
        let scope: TenantScope = $scope;
        let connection: &Connection = $connection;
        let messages: &[Inbound<'_>] = $messages;
        let decide = $decide;
        async move {
            let company = scope.company_id().0;
            let whatsapp = connection.id.0;
            let channel = $crate::repo::to_wire(&connection.channel)?;
            let at = store.now();
            let mut outcomes: Vec<Option<Stored>> = messages.iter().map(|_| None).collect();

            // 1. Duplicates: an external id stored before, or repeated in the batch.
            let mut stored_before: HashSet<String> = HashSet::new();
            let external: Vec<&str> =
                distinct(messages.iter().map(|m| m.message.external_id.as_str()));
            if !external.is_empty() {
                let sql = format!(
                    "SELECT external_id FROM messages WHERE whatsapp_id = $1 AND {}",
                    $crate::repo::lists::any(&*conn, "external_id", 2)
                );
                let query = sqlx::query_scalar::<_, String>(AssertSqlSafe(sql))
                    .bind(whatsapp)
                    .bind($crate::repo::lists::texts(&*conn, &external));
                stored_before.extend(query.fetch_all(&mut *conn).await.map_err(db_error)?);
            }
            let mut seen: HashSet<&str> = HashSet::new();
            let mut live: Vec<usize> = Vec::new();
            for (i, item) in messages.iter().enumerate() {
                let id = item.message.external_id.as_str();
                if stored_before.contains(id) || !seen.insert(id) {
                    outcomes[i] = Some(Stored::nothing(IngestOutcome::Duplicate));
                } else {
                    live.push(i);
                }
            }

            // 2. The chats' contacts: one insert of those new to the company, one read of the
            // others' ids, one load of them all.
            let numbers: Vec<&str> =
                distinct(live.iter().map(|&i| messages[i].message.chat.as_str()));
            let first_of: HashMap<&str, usize> = live
                .iter()
                .rev()
                .map(|&i| (messages[i].message.chat.as_str(), i))
                .collect();
            let mut contact_ids: HashMap<String, i64> = HashMap::new();
            let mut created_contacts: HashSet<i64> = HashSet::new();
            for chunk in numbers.chunks(ROWS_PER_STATEMENT) {
                let rows = row_list(chunk.len(), 5, 4, |p| {
                    format!(
                        "($1, ${p}, ${}, $2, ${}, $3, ${}, $4, $4)",
                        p + 1,
                        p + 2,
                        p + 3
                    )
                });
                let sql = format!(
                    "INSERT INTO contacts (company_id, name, number, channel, is_group, \
                     whatsapp_id, search_text, created_at, updated_at) VALUES {} \
                     ON CONFLICT (company_id, channel, number) DO NOTHING RETURNING id, number",
                    rows.join(", ")
                );
                let mut query = sqlx::query_as::<_, (i64, String)>(AssertSqlSafe(sql))
                    .bind(company)
                    .bind(&channel)
                    .bind(whatsapp)
                    .bind(at);
                for number in chunk {
                    let message = messages[first_of[number]].message;
                    let name = chat_display_name(message);
                    let text = $crate::repo::contacts::search_text(&name, number, "");
                    query = query
                        .bind(name)
                        .bind(*number)
                        .bind(message.is_group)
                        .bind(text);
                }
                for (id, number) in query.fetch_all(&mut *conn).await.map_err(db_error)? {
                    created_contacts.insert(id);
                    contact_ids.insert(number, id);
                }
            }
            let known: Vec<&str> = numbers
                .iter()
                .copied()
                .filter(|n| !contact_ids.contains_key(*n))
                .collect();
            if !known.is_empty() {
                let sql = format!(
                    "SELECT id, number FROM contacts WHERE company_id = $1 AND channel = $2 \
                     AND {}",
                    $crate::repo::lists::any(&*conn, "number", 3)
                );
                let query = sqlx::query_as::<_, (i64, String)>(AssertSqlSafe(sql))
                    .bind(company)
                    .bind(&channel)
                    .bind($crate::repo::lists::texts(&*conn, &known));
                for (id, number) in query.fetch_all(&mut *conn).await.map_err(db_error)? {
                    contact_ids.insert(number, id);
                }
            }
            let ids: Vec<i64> = numbers
                .iter()
                .map(|n| {
                    contact_ids
                        .get(*n)
                        .copied()
                        .ok_or_else(|| Error::internal("contact vanished after upsert"))
                })
                .collect::<Result<_, Error>>()?;
            let mut loaded: HashMap<i64, chatflow_core::inbox::model::Contact> =
                $crate::load_contacts!(&mut *conn, scope, &ids)?
                    .into_iter()
                    .map(|c| (c.id.0, c))
                    .collect();

            // 3. Their active tickets: one read.
            let active: Vec<(i64, i64)> = if ids.is_empty() {
                Vec::new()
            } else {
                sqlx::query_as(AssertSqlSafe(format!(
                    "SELECT contact_id, MAX(id) FROM tickets WHERE company_id = $1 \
                     AND whatsapp_id = $2 AND status <> 'closed' AND {} \
                     GROUP BY contact_id",
                    $crate::repo::lists::any(&*conn, "contact_id", 3)
                )))
                .bind(company)
                .bind(whatsapp)
                .bind($crate::repo::lists::ints(&*conn, &ids))
                .fetch_all(&mut *conn)
                .await
                .map_err(db_error)?
            };
            let active_ids: Vec<i64> = active.iter().map(|(_, t)| *t).collect();
            let mut tickets: HashMap<i64, chatflow_core::inbox::model::Ticket> =
                $crate::load_tickets!(&mut *conn, scope, &active_ids)?
                    .into_iter()
                    .map(|t| (t.contact_id.0, t))
                    .collect();
            let mut chats: Vec<Chat> = Vec::with_capacity(ids.len());
            for id in &ids {
                let contact = loaded
                    .remove(id)
                    .ok_or_else(|| Error::internal("contact vanished after upsert"))?;
                chats.push(Chat {
                    contact,
                    created: created_contacts.contains(id),
                    stored: false,
                    renamed: false,
                    active: tickets.remove(id),
                });
            }
            let chat_of: HashMap<&str, usize> =
                numbers.iter().enumerate().map(|(k, n)| (*n, k)).collect();
            let chat_by_contact: HashMap<i64, usize> =
                ids.iter().enumerate().map(|(k, id)| (*id, k)).collect();

            // 4. The decisions, in the batch's order; a round ends where a chat waits for the
            // ticket planned for it.
            let mut planned: Vec<Planned> = Vec::with_capacity(live.len());
            let mut pending = live;
            while !pending.is_empty() {
                let mut waiting: HashSet<usize> = HashSet::new();
                let mut later: Vec<usize> = Vec::new();
                // (chat, status, is_group, logs) of the tickets this round creates.
                let mut creates = Vec::new();
                for i in pending {
                    let message = messages[i].message;
                    let c = chat_of[message.chat.as_str()];
                    if waiting.contains(&c) {
                        later.push(i);
                        continue;
                    }
                    let chat = &mut chats[c];
                    let ctx = IngestContext {
                        connection: connection.clone(),
                        contact: chat.contact.clone(),
                        contact_created: chat.created && !chat.stored,
                        active_ticket: chat.active.clone(),
                    };
                    let IngestPlan::Store {
                        ticket,
                        unread_increment,
                        last_message,
                        logs,
                        events,
                        history,
                    } = decide(&ctx, message)
                    else {
                        outcomes[i] = Some(Stored::nothing(IngestOutcome::Ignored));
                        continue;
                    };
                    chat.stored = true;
                    if events.contains(&EventIntent::ContactUpdate) && !ctx.contact_created {
                        chat.contact.name = chat_display_name(message);
                        chat.contact.updated_at = at;
                        chat.renamed = true;
                    }
                    let ticket = match (ticket, &chat.active) {
                        (TicketPlan::Reuse, Some(active)) => active.id.0,
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
                            creates.push((c, status, is_group, queue, imported, logs));
                            waiting.insert(c);
                            0
                        }
                    };
                    planned.push(Planned {
                        index: i,
                        chat: c,
                        ticket,
                        ticket_created: false,
                        contact_created: ctx.contact_created,
                        unread: unread_increment.max(0),
                        last_message,
                        events,
                        message: 0,
                        history,
                    });
                }
                if !creates.is_empty() {
                    // The round's tickets: one insert; where another writer's ticket won the
                    // unique index on not-closed tickets, that one is reused.
                    let mut made: HashMap<i64, i64> = HashMap::new();
                    for chunk in creates.chunks(ROWS_PER_STATEMENT) {
                        let rows = row_list(chunk.len(), 5, 6, |p| {
                            format!(
                                "($1, ${p}, ${}, ${}, $2, $3, ${}, ${}, ${}, $4, $4)",
                                p + 1,
                                p + 2,
                                p + 3,
                                p + 4,
                                p + 5
                            )
                        });
                        let sql = format!(
                            "INSERT INTO tickets (company_id, uuid, status, is_group, channel, \
                             whatsapp_id, contact_id, queue_id, imported, created_at, \
                             updated_at) VALUES {} \
                             ON CONFLICT DO NOTHING RETURNING id, contact_id",
                            rows.join(", ")
                        );
                        let mut query = sqlx::query_as::<_, (i64, i64)>(AssertSqlSafe(sql))
                            .bind(company)
                            .bind(&channel)
                            .bind(whatsapp)
                            .bind(at);
                        for (c, status, is_group, queue, imported, _) in chunk {
                            query = query
                                .bind(store.new_uuid())
                                .bind($crate::repo::to_wire(status)?)
                                .bind(*is_group)
                                .bind(chats[*c].contact.id.0)
                                .bind(queue.map(|q| q.0))
                                .bind(*imported);
                        }
                        for (ticket, contact) in
                            query.fetch_all(&mut *conn).await.map_err(db_error)?
                        {
                            made.insert(contact, ticket);
                        }
                    }
                    let lost: Vec<i64> = creates
                        .iter()
                        .map(|(c, ..)| chats[*c].contact.id.0)
                        .filter(|contact| !made.contains_key(contact))
                        .collect();
                    let mut winners: HashMap<i64, i64> = HashMap::new();
                    if !lost.is_empty() {
                        let rows: Vec<(i64, i64)> = sqlx::query_as(AssertSqlSafe(format!(
                            "SELECT contact_id, id FROM tickets WHERE company_id = $1 \
                             AND whatsapp_id = $2 AND status <> 'closed' AND {}",
                            $crate::repo::lists::any(&*conn, "contact_id", 3)
                        )))
                        .bind(company)
                        .bind(whatsapp)
                        .bind($crate::repo::lists::ints(&*conn, &lost))
                        .fetch_all(&mut *conn)
                        .await
                        .map_err(db_error)?;
                        winners.extend(rows);
                    }
                    // The new tickets' logs: one insert.
                    let logs: Vec<(i64, &chatflow_core::ticket::TicketLog)> = creates
                        .iter()
                        .filter_map(|(c, _, _, _, _, logs)| {
                            made.get(&chats[*c].contact.id.0).map(|t| (*t, logs))
                        })
                        .flat_map(|(t, logs)| logs.iter().map(move |log| (t, log)))
                        .collect();
                    for chunk in logs.chunks(ROWS_PER_STATEMENT) {
                        let rows = row_list(chunk.len(), 3, 4, |p| {
                            format!("($1, ${p}, ${}, ${}, ${}, $2)", p + 1, p + 2, p + 3)
                        });
                        let sql = format!(
                            "INSERT INTO ticket_logs (company_id, ticket_id, type, user_id, \
                             queue_id, created_at) VALUES {}",
                            rows.join(", ")
                        );
                        let mut query = sqlx::query(AssertSqlSafe(sql)).bind(company).bind(at);
                        for (ticket, log) in chunk {
                            query = query
                                .bind(*ticket)
                                .bind(log.kind.as_str())
                                .bind(log.user_id.map(|u| u.0))
                                .bind(log.queue_id.map(|q| q.0));
                        }
                        query.execute(&mut *conn).await.map_err(db_error)?;
                    }
                    let ids: Vec<i64> = made.values().chain(winners.values()).copied().collect();
                    for ticket in $crate::load_tickets!(&mut *conn, scope, &ids)? {
                        if let Some(&c) = chat_by_contact.get(&ticket.contact_id.0) {
                            chats[c].active = Some(ticket);
                        }
                    }
                    for p in planned.iter_mut().filter(|p| p.ticket == 0) {
                        let contact = chats[p.chat].contact.id.0;
                        match (made.get(&contact), winners.get(&contact)) {
                            (Some(ticket), _) => {
                                p.ticket = *ticket;
                                p.ticket_created = true;
                            }
                            (None, Some(ticket)) => p.ticket = *ticket,
                            (None, None) => return Err(Error::internal("ticket vanished")),
                        }
                    }
                }
                pending = later;
            }
            planned.sort_by_key(|p| p.index);

            // 5. The messages: one insert, in the batch's order.
            let kinds: Vec<String> = planned
                .iter()
                .map(|p| $crate::repo::to_wire(&messages[p.index].message.media_type))
                .collect::<Result<_, Error>>()?;
            let mut rows_of: HashMap<String, i64> = HashMap::new();
            for (chunk, kinds) in planned
                .chunks(ROWS_PER_STATEMENT)
                .zip(kinds.chunks(ROWS_PER_STATEMENT))
            {
                let rows = row_list(chunk.len(), 4, 15, |p| {
                    let n = |d: usize| p + d;
                    format!(
                        "($1, ${}, ${}, $2, ${}, ${}, ${}, ${}, ${}, ${}, ${}, ${}, ${}, \
                         (SELECT id FROM messages WHERE whatsapp_id = $2 AND external_id = ${}), \
                         ${}, ${}, ${}, ${}, $3)",
                        n(0),
                        n(1),
                        n(2),
                        n(3),
                        n(4),
                        n(5),
                        n(5),
                        n(6),
                        n(7),
                        n(8),
                        n(9),
                        n(10),
                        n(11),
                        n(12),
                        n(13),
                        n(14)
                    )
                });
                let sql = format!(
                    "INSERT INTO messages (company_id, ticket_id, contact_id, whatsapp_id, \
                     external_id, body, search_text, from_me, read, media_type, media_path, \
                     media_name, participant, quoted_msg_id, ack, media_error, media_retry, \
                     created_at, updated_at) \
                     VALUES {} ON CONFLICT DO NOTHING RETURNING id, external_id",
                    rows.join(", ")
                );
                let mut query = sqlx::query_as::<_, (i64, String)>(AssertSqlSafe(sql))
                    .bind(company)
                    .bind(whatsapp)
                    .bind(at);
                for (p, kind) in chunk.iter().zip(kinds) {
                    let Inbound {
                        message,
                        media_path,
                    } = messages[p.index];
                    query = query
                        .bind(p.ticket)
                        .bind(chats[p.chat].contact.id.0)
                        .bind(&message.external_id)
                        .bind(&message.body)
                        .bind(search::normalize(&message.body))
                        .bind(message.from_me)
                        .bind(kind)
                        .bind(media_path)
                        .bind($crate::repo::messages::inbound_media_name(message))
                        .bind(message.participant.as_deref())
                        .bind(message.quoted_external_id.as_deref())
                        .bind(i64::from(message.from_me))
                        .bind($crate::repo::messages::inbound_media_error(message))
                        .bind($crate::repo::messages::inbound_media_retry(message)?)
                        .bind(if p.history { message.timestamp } else { at });
                }
                rows_of.extend(
                    query
                        .fetch_all(&mut *conn)
                        .await
                        .map_err(db_error)?
                        .into_iter()
                        .map(|(id, external)| (external, id)),
                );
            }
            // A row another writer stored meanwhile is a duplicate here.
            planned.retain(|p| {
                let external = &messages[p.index].message.external_id;
                if rows_of.contains_key(external) {
                    true
                } else {
                    outcomes[p.index] = Some(Stored::nothing(IngestOutcome::Duplicate));
                    false
                }
            });
            for p in &mut planned {
                p.message = rows_of[&messages[p.index].message.external_id];
            }
            // A reply to a message of the same batch: the insert's lookup may not see its row.
            for p in &planned {
                let Some(quoted) = messages[p.index].message.quoted_external_id.as_deref() else {
                    continue;
                };
                if let Some(&target) = rows_of.get(quoted) {
                    sqlx::query(
                        "UPDATE messages SET quoted_msg_id = $1 WHERE company_id = $2 AND id = $3",
                    )
                    .bind(target)
                    .bind(company)
                    .bind(p.message)
                    .execute(&mut *conn)
                    .await
                    .map_err(db_error)?;
                }
            }

            // 6. The tickets' counters and last messages: one update.
            let counters = ticket_counters(&planned);
            for chunk in counters.chunks(ROWS_PER_STATEMENT) {
                let rows = row_list(chunk.len(), 3, 4, |p| {
                    format!(
                        "SELECT ${p} AS id, ${} AS n, ${} AS lm, ${} AS mid",
                        p + 1,
                        p + 2,
                        p + 3
                    )
                });
                // A live message makes an imported ticket a live one; history leaves it
                // marked, and takes the ticket's last message only when it is not older than
                // the one there (a live message may have come first).
                let set = if planned.iter().any(|p| p.history) {
                    "last_message = CASE WHEN newer THEN v.lm ELSE tickets.last_message END, \
                     last_message_id = CASE WHEN newer THEN v.mid \
                     ELSE tickets.last_message_id END"
                        .replace(
                            "newer",
                            "(tickets.last_message_id IS NULL OR (SELECT m.created_at FROM \
                             messages m WHERE m.id = tickets.last_message_id) <= (SELECT \
                             m.created_at FROM messages m WHERE m.id = v.mid))",
                        )
                } else {
                    "last_message = v.lm, last_message_id = v.mid, imported = FALSE".to_owned()
                };
                let sql = format!(
                    "UPDATE tickets SET unread_messages = unread_messages + v.n, {set}, \
                     updated_at = $2 \
                     FROM ({}) AS v WHERE tickets.company_id = $1 AND tickets.id = v.id",
                    rows.join(" UNION ALL ")
                );
                let mut query = sqlx::query(AssertSqlSafe(sql)).bind(company).bind(at);
                for (ticket, unread, text, last) in chunk {
                    query = query.bind(*ticket).bind(*unread).bind(text).bind(*last);
                }
                query.execute(&mut *conn).await.map_err(db_error)?;
            }

            // 7. The names the batch changed; the contacts it inserted for nothing (every
            // message of their chat ignored or a duplicate) taken out again.
            for chat in chats.iter().filter(|c| c.renamed) {
                let contact = &chat.contact;
                sqlx::query(
                    "UPDATE contacts SET name = $1, search_text = $2, updated_at = $3 \
                     WHERE company_id = $4 AND id = $5",
                )
                .bind(&contact.name)
                .bind($crate::repo::contacts::search_text(
                    &contact.name,
                    &contact.number,
                    &contact.email,
                ))
                .bind(at)
                .bind(company)
                .bind(contact.id.0)
                .execute(&mut *conn)
                .await
                .map_err(db_error)?;
            }
            let unused: Vec<i64> = chats
                .iter()
                .filter(|c| c.created && !c.stored)
                .map(|c| c.contact.id.0)
                .collect();
            if !unused.is_empty() {
                sqlx::query(AssertSqlSafe(format!(
                    "DELETE FROM contacts WHERE company_id = $1 AND {}",
                    $crate::repo::lists::any(&*conn, "id", 2)
                )))
                .bind(company)
                .bind($crate::repo::lists::ints(&*conn, &unused))
                .execute(&mut *conn)
                .await
                .map_err(db_error)?;
            }

            // 8. The events, rendered from the rows as the batch leaves them, in its order.
            let touched: Vec<i64> = counters.iter().map(|(t, ..)| *t).collect();
            let rendered: HashMap<i64, chatflow_core::inbox::model::Ticket> =
                $crate::load_tickets!(&mut *conn, scope, &touched)?
                    .into_iter()
                    .map(|t| (t.id.0, t))
                    .collect();
            let message_ids: Vec<i64> = planned.iter().map(|p| p.message).collect();
            let mut written: HashMap<i64, chatflow_core::inbox::model::Message> =
                $crate::load_messages!(&mut *conn, scope, &message_ids)?
                    .into_iter()
                    .map(|m| (m.id.0, m))
                    .collect();
            let mut events = Vec::new();
            for p in &planned {
                let ticket = rendered
                    .get(&p.ticket)
                    .ok_or_else(|| Error::internal("ticket vanished"))?;
                let message = written
                    .remove(&p.message)
                    .ok_or_else(|| Error::internal("message vanished"))?;
                let contact = &chats[p.chat].contact;
                for intent in &p.events {
                    events.push(match intent {
                        EventIntent::TicketUpdate => Event::TicketUpdate {
                            ticket: Box::new(ticket.clone()),
                        },
                        EventIntent::MessageCreate => Event::AppMessage {
                            action: MessageAction::Create,
                            message: Box::new(message.clone()),
                            ticket: Box::new(ticket.clone()),
                        },
                        EventIntent::ContactUpdate => Event::ContactUpdate {
                            action: if p.contact_created {
                                "create"
                            } else {
                                "update"
                            }
                            .into(),
                            contact: Box::new(contact.clone()),
                        },
                    });
                }
                outcomes[p.index] = Some(Stored {
                    outcome: IngestOutcome::Stored {
                        ticket: TicketId(p.ticket),
                        message: MessageId(p.message),
                        ticket_created: p.ticket_created,
                        contact_created: p.contact_created,
                    },
                    ticket: Some(Box::new(ticket.clone())),
                    contact: Some(Box::new(contact.clone())),
                });
            }
            $crate::append_events!(&mut *conn, scope, at, &events)?;
            outcomes
                .into_iter()
                .map(|o| o.ok_or_else(|| Error::internal("a message of the batch was not decided")))
                .collect::<Result<Vec<Stored>, Error>>()
        }
        .await
    }};
}

#[cfg(test)]
mod tests {
    use super::*;

    fn planned(index: usize, ticket: i64, unread: i64, text: &str, message: i64) -> Planned {
        Planned {
            index,
            chat: 0,
            ticket,
            ticket_created: false,
            contact_created: false,
            unread,
            last_message: text.into(),
            events: Vec::new(),
            message,
            history: false,
        }
    }

    #[test]
    fn counters_sum_unread_and_keep_each_tickets_last_message() {
        let batch = [
            planned(0, 7, 1, "oi", 100),
            planned(1, 9, 1, "olá", 101),
            planned(2, 7, 0, "resposta do celular", 102),
            planned(3, 7, 1, "tudo bem?", 103),
        ];
        assert_eq!(
            ticket_counters(&batch),
            vec![
                (7, 2, "tudo bem?".to_owned(), 103),
                (9, 1, "olá".to_owned(), 101)
            ]
        );
    }

    #[test]
    fn row_list_numbers_each_rows_parameters_after_the_last() {
        assert_eq!(
            row_list(3, 5, 4, |p| format!("(${p}, ${})", p + 3)),
            ["($5, $8)", "($9, $12)", "($13, $16)"]
        );
    }

    #[test]
    fn distinct_keeps_the_first_of_each_in_order() {
        assert_eq!(
            distinct(["b", "a", "b", "c", "a"].into_iter()),
            ["b", "a", "c"]
        );
    }
}
