//! Tickets and messages on both engines: exactly-once ingestion (duplicates, 64 concurrent
//! first messages of one contact), keyset pages, accent-insensitive message search, transitions
//! with the optimistic check, the one-active-ticket rule, and company isolation.

use std::collections::HashSet;

use chatflow_core::events::Event;
use chatflow_core::identity::{Actor, UserFlags};
use chatflow_core::ids::{ContactId, MessageId, TicketId, UserId, WhatsappId};
use chatflow_core::inbox::channel::InboundMessage;
use chatflow_core::inbox::ingest::decide;
use chatflow_core::inbox::model::{
    Connection, MediaType, NewMessage, NewTicket, PageStart, TicketQuery,
};
use chatflow_core::inbox::ports::{
    ConnectionRepo, ContactRepo, EventLog, Inbound, IngestBatch, IngestOutcome, MessageRepo,
    TicketRepo,
};
use chatflow_core::inbox::visibility::ticket_filter;
use chatflow_core::ports::ChannelKind;
use chatflow_core::ticket::{TicketLog, TicketLogType, TicketStatus};
use chatflow_core::{ErrorCode, TenantScope};
use chatflow_store::Store;
use chrono::Utc;

use crate::store_tests;
use crate::support::{connection, two_companies};

async fn conn(store: &Store, scope: TenantScope) -> Connection {
    let id = connection(store, scope, "main").await;
    ConnectionRepo::get(store, scope, WhatsappId(id))
        .await
        .expect("get")
        .expect("exists")
}

pub(crate) fn inbound(external: &str, from: &str, body: &str) -> InboundMessage {
    InboundMessage {
        external_id: external.to_owned(),
        chat: from.to_owned(),
        chat_name: format!("Contact {from}"),
        is_group: false,
        participant: None,
        from_me: false,
        body: body.to_owned(),
        media_type: MediaType::Chat,
        media: None,
        quoted_external_id: None,
        timestamp: Utc::now(),
        aliases: Vec::new(),
        media_failed: None,
    }
}

/// Ingests one message (a batch of one) with the core's decision.
pub(crate) async fn ingest(
    store: &Store,
    scope: TenantScope,
    c: &Connection,
    m: &InboundMessage,
) -> IngestOutcome {
    let mut batch = ingest_batch(store, scope, c, &[m]).await;
    if let Some(e) = batch.failed {
        panic!("ingest failed: {e}");
    }
    batch.outcomes.pop().expect("one outcome").outcome
}

/// Ingests `messages` in one batch with the core's decision.
async fn ingest_batch(
    store: &Store,
    scope: TenantScope,
    c: &Connection,
    messages: &[&InboundMessage],
) -> IngestBatch {
    let items: Vec<Inbound<'_>> = messages
        .iter()
        .map(|message| Inbound {
            message,
            media_path: None,
        })
        .collect();
    MessageRepo::ingest_batch(store, scope, c, &items, &decide)
        .await
        .expect("the batch runs")
}

fn admin(scope: TenantScope) -> Actor {
    Actor {
        user_id: UserId(1),
        company_id: scope.company_id(),
        profile: chatflow_core::identity::Profile::Admin,
        is_super: false,
        flags: UserFlags::default(),
        queue_ids: vec![],
    }
}

/// Ticket `id` of `scope` as the store reads it now (it must exist).
async fn reread(
    store: &Store,
    scope: TenantScope,
    id: TicketId,
) -> chatflow_core::inbox::model::Ticket {
    TicketRepo::get(store, scope, id)
        .await
        .expect("get")
        .expect("ticket")
}

async fn tickets_of(store: &Store, scope: TenantScope) -> Vec<chatflow_core::inbox::model::Ticket> {
    let filter = ticket_filter(
        &admin(scope),
        &TicketQuery {
            show_all: true,
            ..TicketQuery::default()
        },
    );
    TicketRepo::list(store, scope, &filter, &PageStart::First, 200)
        .await
        .expect("list")
        .items
}

/// A user of `scope`'s company (inserted directly: only its id matters here).
pub(crate) async fn user(store: &Store, scope: TenantScope, email: &str) -> UserId {
    let sql = "INSERT INTO users (company_id, name, email, password_hash) VALUES ($1, 'Ana', $2, 'x') RETURNING id";
    let id: i64 = match store.pool() {
        chatflow_store::DbPool::Sqlite(p) => {
            sqlx::query_scalar(sql)
                .bind(scope.company_id().0)
                .bind(email)
                .fetch_one(p)
                .await
        }
        chatflow_store::DbPool::Postgres(p) => {
            sqlx::query_scalar(sql)
                .bind(scope.company_id().0)
                .bind(email)
                .fetch_one(p)
                .await
        }
    }
    .expect("user");
    UserId(id)
}

async fn duplicate_delivery_stores_once(store: Store) {
    let (a, _) = two_companies(&store).await;
    let c = conn(&store, a).await;
    let m = inbound("wamid-1", "5511900000001", "Olá");
    let IngestOutcome::Stored {
        ticket,
        ticket_created,
        ..
    } = ingest(&store, a, &c, &m).await
    else {
        panic!("stored")
    };
    assert!(ticket_created);
    let head = EventLog::heads(&store).await.expect("heads");
    assert_eq!(ingest(&store, a, &c, &m).await, IngestOutcome::Duplicate);
    assert_eq!(
        EventLog::heads(&store).await.expect("heads"),
        head,
        "a duplicate appends nothing"
    );
    let page = MessageRepo::list(&store, a, ticket, &PageStart::First, 20)
        .await
        .expect("list");
    assert_eq!(page.items.len(), 1);
    assert_eq!(page.count, Some(1));
    let t = TicketRepo::get(&store, a, ticket)
        .await
        .expect("get")
        .expect("ticket");
    assert_eq!(t.unread_messages, 1);
    assert_eq!(t.last_message, "Olá");
    assert_eq!(t.status, TicketStatus::Pending);
    assert_eq!(t.contact.name, "Contact 5511900000001");
    let logs = TicketRepo::logs(&store, a, ticket).await.expect("logs");
    assert_eq!(logs.len(), 1);
    assert_eq!(logs[0].kind, TicketLogType::Create);
    // A second message reuses the ticket and adds to unread; one from the phone adds nothing.
    ingest(
        &store,
        a,
        &c,
        &inbound("wamid-2", "5511900000001", "tudo bem?"),
    )
    .await;
    let mut mine = inbound("wamid-3", "5511900000001", "sim");
    mine.from_me = true;
    ingest(&store, a, &c, &mine).await;
    let t = TicketRepo::get(&store, a, ticket)
        .await
        .expect("get")
        .expect("ticket");
    assert_eq!(t.unread_messages, 2);
    assert_eq!(tickets_of(&store, a).await.len(), 1);
    // Events: ticket update + message create (+ contact create on the first).
    let events = EventLog::read(&store, a, 0, 100).await.expect("read");
    assert!(
        events
            .iter()
            .any(|e| matches!(&e.event, Event::ContactUpdate { action, .. } if action == "create"))
    );
    assert!(
        events
            .iter()
            .any(|e| matches!(&e.event, Event::AppMessage { .. }))
    );
}

async fn concurrent_first_messages_make_one_ticket(store: Store) {
    let (a, _) = two_companies(&store).await;
    let c = conn(&store, a).await;
    let mut tasks = Vec::new();
    for i in 0..64 {
        let store = store.clone();
        let c = c.clone();
        tasks.push(tokio::spawn(async move {
            let m = inbound(&format!("burst-{i}"), "5511900000002", "oi");
            ingest(&store, a, &c, &m).await
        }));
    }
    let mut tickets = HashSet::new();
    let mut created = 0;
    for t in tasks {
        match t.await.expect("task") {
            IngestOutcome::Stored {
                ticket,
                ticket_created,
                ..
            } => {
                tickets.insert(ticket);
                created += usize::from(ticket_created);
            }
            other => panic!("unexpected {other:?}"),
        }
    }
    assert_eq!(tickets.len(), 1);
    assert_eq!(created, 1);
    let ticket = *tickets.iter().next().expect("one");
    let t = TicketRepo::get(&store, a, ticket)
        .await
        .expect("get")
        .expect("ticket");
    assert_eq!(t.unread_messages, 64);
    let page = MessageRepo::list(&store, a, ticket, &PageStart::First, 100)
        .await
        .expect("list");
    assert_eq!(page.items.len(), 64);
}

async fn closed_tickets_are_not_reused_and_one_stays_active(store: Store) {
    let (a, _) = two_companies(&store).await;
    let c = conn(&store, a).await;
    let IngestOutcome::Stored { ticket, .. } =
        ingest(&store, a, &c, &inbound("x1", "5511900000003", "a")).await
    else {
        panic!("stored")
    };
    let row = TicketRepo::row(&store, a, ticket)
        .await
        .expect("row")
        .expect("exists");
    let mut closed = row.state.clone();
    closed.status = TicketStatus::Closed;
    let log = TicketLog {
        kind: TicketLogType::Closed,
        user_id: None,
        queue_id: None,
    };
    let saved = TicketRepo::save_transition(&store, a, ticket, &row.state, &closed, &[log], None)
        .await
        .expect("save");
    assert_eq!(saved.expect("saved").status, TicketStatus::Closed);
    // The same expected state again: someone changed it meanwhile.
    let stale = TicketRepo::save_transition(&store, a, ticket, &row.state, &closed, &[], None)
        .await
        .expect("save");
    assert!(stale.is_none());
    let IngestOutcome::Stored {
        ticket: second,
        ticket_created,
        ..
    } = ingest(&store, a, &c, &inbound("x2", "5511900000003", "b")).await
    else {
        panic!("stored")
    };
    assert!(ticket_created);
    assert_ne!(second, ticket);
    // A hand-made ticket for the same contact and connection conflicts.
    let t = TicketRepo::get(&store, a, second)
        .await
        .expect("get")
        .expect("ticket");
    let err = TicketRepo::create(
        &store,
        a,
        &NewTicket {
            contact_id: t.contact_id,
            whatsapp_id: Some(c.id),
            queue_id: None,
            user_id: None,
            status: TicketStatus::Pending,
            is_group: false,
            channel: ChannelKind::Whatsapp,
        },
        uuid::Uuid::new_v4(),
    )
    .await
    .expect_err("one active ticket");
    assert_eq!(err.code, ErrorCode::ERR_OTHER_OPEN_TICKET);
}

async fn keyset_pages_and_unread_first(store: Store) {
    let (a, _) = two_companies(&store).await;
    let c = conn(&store, a).await;
    for i in 0..25 {
        let mut m = inbound(&format!("k{i}"), &format!("55119100000{i:02}"), "hi");
        m.from_me = i % 3 == 0;
        ingest(&store, a, &c, &m).await;
    }
    let query = TicketQuery {
        show_all: true,
        statuses: vec![TicketStatus::Pending],
        ..TicketQuery::default()
    };
    let filter = ticket_filter(&admin(a), &query);
    assert!(filter.unread_first);
    let mut seen = Vec::new();
    let mut start = PageStart::First;
    let mut pages = 0;
    loop {
        let page = TicketRepo::list(&store, a, &filter, &start, 10)
            .await
            .expect("page");
        assert_eq!(page.count.is_some(), pages == 0);
        if pages == 0 {
            assert_eq!(page.count, Some(25));
        }
        seen.extend(page.items.iter().map(|t| (t.id, t.unread_messages)));
        pages += 1;
        match page.next_cursor {
            Some(cursor) => start = PageStart::After(cursor),
            None => break,
        }
    }
    assert_eq!(pages, 3);
    let ids: HashSet<TicketId> = seen.iter().map(|(id, _)| *id).collect();
    assert_eq!(ids.len(), 25, "no gaps or repeats");
    let first_read = seen.iter().position(|(_, u)| *u == 0).expect("some read");
    assert!(
        seen[first_read..].iter().all(|(_, u)| *u == 0),
        "unread first"
    );
    // Messages: newest page first, each page oldest first.
    let IngestOutcome::Stored { ticket, .. } =
        ingest(&store, a, &c, &inbound("m0", "5511920000000", "0")).await
    else {
        panic!("stored")
    };
    for i in 1..45 {
        ingest(
            &store,
            a,
            &c,
            &inbound(&format!("m{i}"), "5511920000000", &i.to_string()),
        )
        .await;
    }
    let first = MessageRepo::list(&store, a, ticket, &PageStart::First, 20)
        .await
        .expect("page");
    assert_eq!(first.items.first().map(|m| m.body.as_str()), Some("25"));
    assert_eq!(first.items.last().map(|m| m.body.as_str()), Some("44"));
    let second = MessageRepo::list(
        &store,
        a,
        ticket,
        &PageStart::After(first.next_cursor.expect("more")),
        20,
    )
    .await
    .expect("page");
    assert_eq!(second.items.last().map(|m| m.body.as_str()), Some("24"));
    assert_eq!(second.count, None);
}

async fn search_is_accent_insensitive_on_bodies(store: Store) {
    let (a, _) = two_companies(&store).await;
    let c = conn(&store, a).await;
    ingest(
        &store,
        a,
        &c,
        &inbound("s1", "5511930000001", "Quero uma AÇÃO promocional"),
    )
    .await;
    ingest(&store, a, &c, &inbound("s2", "5511930000002", "nada a ver")).await;
    let find = |text: &str| TicketQuery {
        show_all: true,
        search: text.to_owned(),
        search_on_messages: true,
        ..TicketQuery::default()
    };
    for term in ["acao", "AÇÃO promo", "promocional"] {
        let filter = ticket_filter(&admin(a), &find(term));
        let page = TicketRepo::list(&store, a, &filter, &PageStart::First, 20)
            .await
            .expect("search");
        assert_eq!(page.items.len(), 1, "{term}");
        assert_eq!(page.items[0].contact.number, "5511930000001");
    }
    let filter = ticket_filter(&admin(a), &find("5511930000002"));
    let page = TicketRepo::list(&store, a, &filter, &PageStart::First, 20)
        .await
        .expect("search");
    assert_eq!(page.items.len(), 1, "by contact number");
}

async fn outbound_messages_reactions_and_receipts(store: Store) {
    let (a, _) = two_companies(&store).await;
    let c = conn(&store, a).await;
    let IngestOutcome::Stored {
        ticket, message, ..
    } = ingest(&store, a, &c, &inbound("r1", "5511940000001", "oi")).await
    else {
        panic!("stored")
    };
    let sent = MessageRepo::create(
        &store,
        a,
        &NewMessage {
            quoted_msg_id: Some(message),
            ..NewMessage::text(ticket, "Olá!")
        },
    )
    .await
    .expect("create");
    assert_eq!(sent.ack, 0);
    assert_eq!(
        sent.quoted_msg.as_ref().map(|q| q.body.as_str()),
        Some("oi")
    );
    let sent = MessageRepo::set_sent(&store, a, sent.id, "out-1")
        .await
        .expect("sent")
        .expect("exists");
    assert_eq!(sent.ack, 1);
    let acked = MessageRepo::apply_ack(&store, a, c.id, "out-1", 3)
        .await
        .expect("ack")
        .expect("exists");
    assert_eq!(acked.ack, 3);
    assert!(
        MessageRepo::apply_ack(&store, a, c.id, "out-1", 2)
            .await
            .expect("ack")
            .is_none(),
        "acks only move forward"
    );
    let reacted = MessageRepo::react(&store, a, message, "👍", true)
        .await
        .expect("react")
        .expect("exists");
    assert_eq!(reacted.reactions.len(), 1);
    let reacted = MessageRepo::apply_reaction(&store, a, c.id, "r1", "❤")
        .await
        .expect("react")
        .expect("exists");
    assert_eq!(reacted.reactions.len(), 2);
    let reacted = MessageRepo::react(&store, a, message, "", true)
        .await
        .expect("react")
        .expect("exists");
    assert_eq!(reacted.reactions.len(), 1);
    let edited = MessageRepo::apply_edit(&store, a, c.id, "r1", "oi, tudo bem")
        .await
        .expect("edit")
        .expect("exists");
    assert!(edited.is_edited);
    assert_eq!(edited.body, "oi, tudo bem");
    let deleted = MessageRepo::mark_deleted(&store, a, sent.id)
        .await
        .expect("delete")
        .expect("exists");
    assert!(deleted.is_deleted);
    let t = TicketRepo::get(&store, a, ticket)
        .await
        .expect("get")
        .expect("ticket");
    assert_eq!(t.last_message, "", "a deleted last message shows no text");
    assert!(t.last_message_deleted && t.last_message_from_me);
    assert_eq!(t.last_message_id, Some(sent.id));
    assert!(
        TicketRepo::reset_unread(&store, a, ticket)
            .await
            .expect("reset")
            .is_some()
    );
    let t = TicketRepo::get(&store, a, ticket)
        .await
        .expect("get")
        .expect("ticket");
    assert_eq!(t.unread_messages, 0);
    assert_eq!(
        MessageRepo::count(&store, a, Some(true), None, None)
            .await
            .expect("count"),
        1
    );
}

async fn another_company_sees_and_changes_nothing(store: Store) {
    let (a, b) = two_companies(&store).await;
    let c = conn(&store, a).await;
    let IngestOutcome::Stored {
        ticket, message, ..
    } = ingest(&store, a, &c, &inbound("c1", "5511950000001", "oi")).await
    else {
        panic!("stored")
    };
    let foreign = inbound("c2", "5511950000001", "x");
    let item = Inbound {
        message: &foreign,
        media_path: None,
    };
    let err = MessageRepo::ingest_batch(&store, b, &c, &[item], &decide)
        .await
        .expect_err("another company's connection");
    assert_eq!(err.code, ErrorCode::ERR_NO_WAPP_FOUND);
    assert!(
        TicketRepo::get(&store, b, ticket)
            .await
            .expect("get")
            .is_none()
    );
    assert!(
        TicketRepo::row(&store, b, ticket)
            .await
            .expect("row")
            .is_none()
    );
    assert!(tickets_of(&store, b).await.is_empty());
    assert!(
        MessageRepo::get(&store, b, message)
            .await
            .expect("get")
            .is_none()
    );
    assert!(
        MessageRepo::list(&store, b, ticket, &PageStart::First, 20)
            .await
            .expect("list")
            .items
            .is_empty()
    );
    assert!(
        MessageRepo::edit(&store, b, message, "hacked")
            .await
            .expect("edit")
            .is_none()
    );
    assert!(
        MessageRepo::mark_deleted(&store, b, message)
            .await
            .expect("delete")
            .is_none()
    );
    assert!(
        MessageRepo::react(&store, b, message, "👎", true)
            .await
            .expect("react")
            .is_none()
    );
    assert!(
        MessageRepo::apply_ack(&store, b, c.id, "c1", 5)
            .await
            .expect("ack")
            .is_none()
    );
    assert!(
        TicketRepo::reset_unread(&store, b, ticket)
            .await
            .expect("reset")
            .is_none()
    );
    assert!(!TicketRepo::delete(&store, b, ticket).await.expect("delete"));
    assert!(
        TicketRepo::add_note(
            &store,
            b,
            ticket,
            user(&store, b, "carl@example.com").await,
            "x"
        )
        .await
        .expect("note")
        .is_none()
    );
    assert!(
        TicketRepo::logs(&store, b, ticket)
            .await
            .expect("logs")
            .is_empty()
    );
    assert!(
        MessageRepo::create(&store, b, &NewMessage::text(ticket, "x"),)
            .await
            .is_err()
    );
    let filter = ticket_filter(
        &admin(b),
        &TicketQuery {
            show_all: true,
            ..TicketQuery::default()
        },
    );
    let other = user(&store, b, "bob@example.com").await;
    assert_eq!(
        TicketRepo::close_all(&store, b, &filter, other)
            .await
            .expect("close"),
        0
    );
    let t = TicketRepo::get(&store, a, ticket)
        .await
        .expect("get")
        .expect("still there");
    assert_eq!(t.status, TicketStatus::Pending);
    let m = MessageRepo::get(&store, a, message)
        .await
        .expect("get")
        .expect("still there");
    assert_eq!(m.body, "oi");
    assert!(m.reactions.is_empty());
    let _ = (ContactId(0), MessageId(0));
}

async fn notes_delete_and_close_all(store: Store) {
    let (a, _) = two_companies(&store).await;
    let c = conn(&store, a).await;
    let IngestOutcome::Stored { ticket, .. } =
        ingest(&store, a, &c, &inbound("n1", "5511960000001", "oi")).await
    else {
        panic!("stored")
    };
    ingest(&store, a, &c, &inbound("n2", "5511960000002", "oi")).await;
    let user = user(&store, a, "ana@example.com").await;
    let note = TicketRepo::add_note(&store, a, ticket, user, "ligar amanhã")
        .await
        .expect("note")
        .expect("ticket exists");
    assert_eq!(note.user.as_ref().map(|u| u.id), Some(user));
    assert_eq!(
        TicketRepo::notes(&store, a, Some(ticket), None)
            .await
            .expect("notes")
            .len(),
        1
    );
    assert!(
        TicketRepo::delete_note(&store, a, note.id)
            .await
            .expect("delete")
    );
    let filter = ticket_filter(
        &admin(a),
        &TicketQuery {
            show_all: true,
            statuses: vec![TicketStatus::Pending],
            ..TicketQuery::default()
        },
    );
    assert_eq!(
        TicketRepo::close_all(&store, a, &filter, user)
            .await
            .expect("close all"),
        2
    );
    let logs = TicketRepo::logs(&store, a, ticket).await.expect("logs");
    assert_eq!(logs.last().map(|l| l.kind), Some(TicketLogType::Closed));
    assert!(
        tickets_of(&store, a)
            .await
            .iter()
            .all(|t| t.status == TicketStatus::Closed)
    );
    assert!(TicketRepo::delete(&store, a, ticket).await.expect("delete"));
    assert!(
        TicketRepo::get(&store, a, ticket)
            .await
            .expect("get")
            .is_none()
    );
}

/// The list preview follows the message it came from: the contact's edit shows the new text,
/// the contact's deletion flags it (and hides the text), a private note never becomes the
/// preview, and another company cannot delete it.
async fn preview_follows_the_last_message(store: Store) {
    let (a, b) = two_companies(&store).await;
    let c = conn(&store, a).await;
    let IngestOutcome::Stored {
        ticket, message, ..
    } = ingest(&store, a, &c, &inbound("p1", "5511940000002", "*primeira*")).await
    else {
        panic!("stored")
    };
    let t = reread(&store, a, ticket).await;
    assert_eq!(t.last_message, "*primeira*");
    assert_eq!(t.last_message_id, Some(message));
    assert!(!t.last_message_deleted && !t.last_message_from_me);

    MessageRepo::apply_edit(&store, a, c.id, "p1", "primeira, corrigida")
        .await
        .expect("edit")
        .expect("exists");
    let t = reread(&store, a, ticket).await;
    assert_eq!(t.last_message, "primeira, corrigida");
    assert!(!t.last_message_deleted);

    // A private note is not the preview.
    MessageRepo::create(
        &store,
        a,
        &NewMessage {
            is_private: true,
            ..NewMessage::text(ticket, "nota interna")
        },
    )
    .await
    .expect("note");
    let t = reread(&store, a, ticket).await;
    assert_eq!(t.last_message_id, Some(message));

    // The contact deletes it: another company's delete of the same external id changes nothing.
    assert!(
        MessageRepo::apply_delete(&store, b, c.id, "p1")
            .await
            .expect("delete")
            .is_none()
    );
    let t = reread(&store, a, ticket).await;
    assert!(!t.last_message_deleted);
    MessageRepo::apply_delete(&store, a, c.id, "p1")
        .await
        .expect("delete")
        .expect("exists");
    let t = reread(&store, a, ticket).await;
    assert!(t.last_message_deleted);
    assert!(!t.last_message_from_me);
    assert_eq!(t.last_message, "");
    let json = serde_json::to_value(&t).expect("json");
    assert_eq!(json["lastMessageDeleted"], serde_json::json!(true));
    assert_eq!(json["lastMessageFromMe"], serde_json::json!(false));

    // A newer message becomes the preview again.
    let IngestOutcome::Stored { message: next, .. } =
        ingest(&store, a, &c, &inbound("p2", "5511940000002", "de novo")).await
    else {
        panic!("stored")
    };
    let t = reread(&store, a, ticket).await;
    assert_eq!(
        (t.last_message.as_str(), t.last_message_deleted),
        ("de novo", false)
    );
    assert_eq!(t.last_message_id, Some(next));
}

/// Receipts in a row: applied in one transaction, in order, acks only forward, each message
/// that moved announced once with its last ack; another company's connection moves nothing.
async fn receipts_in_a_row_apply_together(store: Store) {
    let (a, b) = two_companies(&store).await;
    let c = conn(&store, a).await;
    let IngestOutcome::Stored { ticket, .. } =
        ingest(&store, a, &c, &inbound("r1", "5511940000002", "oi")).await
    else {
        panic!("stored")
    };
    let mut sent = Vec::new();
    for (n, external) in ["out-1", "out-2", "out-3"].iter().enumerate() {
        let message = MessageRepo::create(&store, a, &NewMessage::text(ticket, format!("m{n}")))
            .await
            .expect("create");
        MessageRepo::set_sent(&store, a, message.id, external)
            .await
            .expect("sent");
        sent.push(message.id);
    }
    MessageRepo::apply_ack(&store, a, c.id, "out-3", 3)
        .await
        .expect("ack");
    let head = EventLog::heads(&store).await.expect("heads");
    let acks: Vec<(String, i64)> = [
        ("out-1", 2),
        ("out-2", 2),
        ("out-1", 3),
        ("out-3", 2),
        ("unknown", 2),
    ]
    .iter()
    .map(|(id, ack)| ((*id).to_owned(), *ack))
    .collect();
    let moved = MessageRepo::apply_acks(&store, b, c.id, &acks)
        .await
        .expect("other company");
    assert_eq!(moved, 0, "another company's connection moves nothing");
    let moved = MessageRepo::apply_acks(&store, a, c.id, &acks)
        .await
        .expect("acks");
    assert_eq!(
        moved, 2,
        "out-1 and out-2 moved; out-3 was ahead, unknown is skipped"
    );
    let acked: Vec<i64> = {
        let mut v = Vec::new();
        for id in &sent {
            v.push(
                MessageRepo::get(&store, a, *id)
                    .await
                    .expect("get")
                    .expect("exists")
                    .ack,
            );
        }
        v
    };
    assert_eq!(acked, vec![3, 2, 3]);
    let events: Vec<(MessageId, i64)> = EventLog::read(&store, a, head_of(&head, a), 100)
        .await
        .expect("read")
        .into_iter()
        .filter_map(|e| match e.event {
            Event::AppMessage { message, .. } => Some((message.id, message.ack)),
            _ => None,
        })
        .collect();
    assert_eq!(events, vec![(sent[0], 3), (sent[1], 2)]);
}

/// Several outbound messages stored in one write, in order, each announced (and the ticket once),
/// then their channel ids recorded in one write; another company's ticket or message is refused
/// or left as it was.
async fn outbound_messages_are_stored_and_marked_sent_together(store: Store) {
    let (a, b) = two_companies(&store).await;
    let c = conn(&store, a).await;
    let IngestOutcome::Stored { ticket, .. } =
        ingest(&store, a, &c, &inbound("o1", "5511940000003", "oi")).await
    else {
        panic!("stored")
    };
    let texts = [
        NewMessage::text(ticket, "um"),
        NewMessage::text(ticket, "dois"),
    ];
    let refused = MessageRepo::create_many(&store, b, &texts)
        .await
        .expect_err("another company's ticket");
    assert_eq!(refused.code, ErrorCode::ERR_NO_TICKET_FOUND);
    let head = EventLog::heads(&store).await.expect("heads");
    let created = MessageRepo::create_many(&store, a, &texts)
        .await
        .expect("create_many");
    let bodies: Vec<&str> = created.iter().map(|m| m.body.as_str()).collect();
    assert_eq!(bodies, ["um", "dois"]);
    assert!(created[0].id.0 < created[1].id.0, "stored in order");
    let t = TicketRepo::get(&store, a, ticket)
        .await
        .expect("get")
        .expect("ticket");
    assert_eq!(t.last_message, "dois");
    let events = EventLog::read(&store, a, head_of(&head, a), 100)
        .await
        .expect("read");
    let kinds: Vec<String> = events
        .iter()
        .map(|e| match &e.event {
            Event::AppMessage { message, .. } => format!("create {}", message.body),
            Event::TicketUpdate { .. } => "ticket".to_owned(),
            _ => "other".to_owned(),
        })
        .collect();
    assert_eq!(kinds, ["create um", "create dois", "ticket"]);

    let sent = [
        (created[0].id, "ext-um".to_owned()),
        (created[1].id, "ext-dois".to_owned()),
    ];
    let none = MessageRepo::set_sent_many(&store, b, &sent)
        .await
        .expect("other company");
    assert!(
        none.is_empty(),
        "another company's messages are not changed"
    );
    let marked = MessageRepo::set_sent_many(&store, a, &sent)
        .await
        .expect("set_sent_many");
    let marked: Vec<(Option<String>, i64)> =
        marked.into_iter().map(|m| (m.external_id, m.ack)).collect();
    assert_eq!(
        marked,
        [
            (Some("ext-um".to_owned()), 1),
            (Some("ext-dois".to_owned()), 1)
        ]
    );
}

store_tests!(
    preview_follows_the_last_message,
    duplicate_delivery_stores_once,
    concurrent_first_messages_make_one_ticket,
    closed_tickets_are_not_reused_and_one_stays_active,
    keyset_pages_and_unread_first,
    search_is_accent_insensitive_on_bodies,
    outbound_messages_reactions_and_receipts,
    another_company_sees_and_changes_nothing,
    notes_delete_and_close_all,
    a_batch_commits_its_messages_together_in_order,
    a_failing_message_stops_its_batch_after_committing_those_before,
    a_batch_of_many_chats_is_decided_and_written_in_one_pass,
    receipts_in_a_row_apply_together,
    outbound_messages_are_stored_and_marked_sent_together,
    concurrent_writers_number_their_events_gap_free_in_commit_order,
);

/// Writers of one company at the same time (8 tickets, 10 writes of two texts each, three events
/// per write): the company's events are numbered without a gap, the head is the last number, and
/// each write's events are together and in the order it appended them. On PostgreSQL they are
/// numbered when each transaction commits; a write refused midway leaves no number behind.
async fn concurrent_writers_number_their_events_gap_free_in_commit_order(store: Store) {
    let (a, b) = two_companies(&store).await;
    let c = conn(&store, a).await;
    let mut tickets = Vec::new();
    for k in 0..8 {
        let from = format!("55119400001{k:02}");
        let IngestOutcome::Stored { ticket, .. } =
            ingest(&store, a, &c, &inbound(&format!("cw-{k}"), &from, "oi")).await
        else {
            panic!("stored")
        };
        tickets.push(ticket);
    }
    let head = head_of(&EventLog::heads(&store).await.expect("heads"), a);
    let writers = tickets.iter().enumerate().map(|(w, ticket)| {
        let store = store.clone();
        let ticket = *ticket;
        tokio::spawn(async move {
            for k in 0..10 {
                let texts = [
                    NewMessage::text(ticket, format!("{w}.{k}.1")),
                    NewMessage::text(ticket, format!("{w}.{k}.2")),
                ];
                MessageRepo::create_many(&store, a, &texts)
                    .await
                    .expect("create_many");
                // Another company's ticket: refused, its transaction rolled back.
                let refused = MessageRepo::create_many(&store, b, &texts).await;
                assert!(refused.is_err(), "another company's ticket");
            }
        })
    });
    for writer in writers.collect::<Vec<_>>() {
        writer.await.expect("writer");
    }
    let after = head_of(&EventLog::heads(&store).await.expect("heads"), a);
    assert_eq!(after - head, 8 * 10 * 3, "three events per write, no more");
    let events = EventLog::read(&store, a, head, 1000).await.expect("read");
    let seqs: Vec<i64> = events.iter().map(|e| e.seq).collect();
    let expected: Vec<i64> = (head + 1..=after).collect();
    assert_eq!(seqs, expected, "gap-free, in order");
    let mut next_of_writer = [0usize; 8];
    for write in events.chunks(3) {
        let bodies: Vec<String> = write
            .iter()
            .map(|e| match &e.event {
                Event::AppMessage { message, .. } => message.body.clone(),
                Event::TicketUpdate { .. } => "ticket".to_owned(),
                other => panic!("unexpected event {other:?}"),
            })
            .collect();
        let (w, k) = bodies[0]
            .split_once('.')
            .map(|(w, rest)| (w.parse::<usize>().expect("writer"), rest))
            .expect("a text of a writer");
        let k: usize = k.split('.').next().and_then(|k| k.parse().ok()).expect("k");
        assert_eq!(k, next_of_writer[w], "a writer's writes in its order");
        next_of_writer[w] += 1;
        assert_eq!(
            bodies,
            [
                format!("{w}.{k}.1"),
                format!("{w}.{k}.2"),
                "ticket".to_owned()
            ],
            "one write's events together, in the order appended"
        );
    }
    assert_eq!(next_of_writer, [10; 8]);
}

/// Kinds of outcome, for comparing a batch's answer.
fn kinds(batch: &IngestBatch) -> Vec<(&'static str, Option<i64>, bool)> {
    batch
        .outcomes
        .iter()
        .map(|stored| match stored.outcome {
            IngestOutcome::Stored {
                ticket,
                ticket_created,
                ..
            } => ("stored", Some(ticket.0), ticket_created),
            IngestOutcome::Duplicate => ("duplicate", None, false),
            IngestOutcome::Ignored => ("ignored", None, false),
        })
        .collect()
}

async fn a_batch_commits_its_messages_together_in_order(store: Store) {
    let (a, _) = two_companies(&store).await;
    let c = conn(&store, a).await;
    let first = inbound("b-1", "5511900000021", "oi");
    let second = inbound("b-2", "5511900000021", "tudo bem?");
    let other = inbound("b-3", "5511900000022", "olá");
    let head = EventLog::heads(&store).await.expect("heads");
    let batch = ingest_batch(&store, a, &c, &[&first, &second, &first, &other]).await;
    assert!(batch.failed.is_none(), "{:?}", batch.failed);
    let got = kinds(&batch);
    let (t1, t2) = (got[0].1.expect("ticket"), got[3].1.expect("ticket"));
    assert_eq!(
        got,
        vec![
            ("stored", Some(t1), true),
            // The second message finds the ticket the first created in the same transaction.
            ("stored", Some(t1), false),
            // A duplicate inside the batch undoes only its own writes.
            ("duplicate", None, false),
            ("stored", Some(t2), true),
        ]
    );
    assert_ne!(t1, t2);
    // What the automation gets: the ticket and contact as the transaction left them.
    let stored = &batch.outcomes[1];
    let ticket = stored.ticket.as_deref().expect("the ticket");
    assert_eq!((ticket.id.0, ticket.unread_messages), (t1, 2));
    assert_eq!(ticket.last_message, "tudo bem?");
    assert_eq!(
        stored.contact.as_deref().expect("the contact").number,
        "5511900000021"
    );
    assert!(batch.outcomes[2].ticket.is_none());
    let page = MessageRepo::list(&store, a, TicketId(t1), &PageStart::First, 10)
        .await
        .expect("list");
    let bodies: Vec<&str> = page.items.iter().map(|m| m.body.as_str()).collect();
    assert_eq!(bodies, ["oi", "tudo bem?"]);
    // Every stored message's events, in the batch's order.
    let events = EventLog::read(&store, a, head_of(&head, a), 100)
        .await
        .expect("read");
    let created = created_bodies(&events);
    assert_eq!(created, ["oi", "tudo bem?", "olá"]);
}

/// The bodies of the messages whose `appMessage` events `events` hold, in order.
fn created_bodies(events: &[chatflow_core::events::StoredEvent]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match &e.event {
            Event::AppMessage { message, .. } => Some(message.body.clone()),
            _ => None,
        })
        .collect()
}

/// The company's head in `heads` (0 when it has none yet).
fn head_of(heads: &[(chatflow_core::CompanyId, i64)], scope: TenantScope) -> i64 {
    heads
        .iter()
        .find(|(company, _)| *company == scope.company_id())
        .map_or(0, |(_, seq)| *seq)
}

/// A database trigger that refuses inserting a message whose body is `boom`: a real failure in
/// the middle of a batch, on either engine.
async fn refuse_boom(store: &Store) {
    match store.pool() {
        chatflow_store::DbPool::Sqlite(p) => {
            sqlx::query(
                "CREATE TRIGGER refuse_boom BEFORE INSERT ON messages WHEN NEW.body = 'boom' \
                 BEGIN SELECT RAISE(ABORT, 'refused'); END",
            )
            .execute(p)
            .await
            .expect("trigger");
        }
        chatflow_store::DbPool::Postgres(p) => {
            sqlx::query(
                "CREATE FUNCTION refuse_boom() RETURNS trigger AS $$ BEGIN \
                 IF NEW.body = 'boom' THEN RAISE EXCEPTION 'refused'; END IF; RETURN NEW; \
                 END $$ LANGUAGE plpgsql",
            )
            .execute(p)
            .await
            .expect("function");
            sqlx::query(
                "CREATE TRIGGER refuse_boom BEFORE INSERT ON messages FOR EACH ROW \
                 EXECUTE FUNCTION refuse_boom()",
            )
            .execute(p)
            .await
            .expect("trigger");
        }
    }
}

async fn a_failing_message_stops_its_batch_after_committing_those_before(store: Store) {
    let (a, _) = two_companies(&store).await;
    let c = conn(&store, a).await;
    refuse_boom(&store).await;
    let before = inbound("f-1", "5511900000031", "antes");
    let boom = inbound("f-2", "5511900000032", "boom");
    let after = inbound("f-3", "5511900000031", "depois");
    let batch = ingest_batch(&store, a, &c, &[&before, &boom, &after]).await;
    let got = kinds(&batch);
    assert_eq!(got.len(), 1, "only the message before the failure: {got:?}");
    assert!(batch.failed.is_some());
    let ticket = TicketId(got[0].1.expect("ticket"));
    let page = MessageRepo::list(&store, a, ticket, &PageStart::First, 10)
        .await
        .expect("list");
    let bodies: Vec<&str> = page.items.iter().map(|m| m.body.as_str()).collect();
    // Committed, and nothing after the failure was tried.
    assert_eq!(bodies, ["antes"]);
    // The failed message left nothing behind: not even its new contact.
    let contacts = ContactRepo::search(&store, a, &Default::default(), &PageStart::First, 50)
        .await
        .expect("contacts");
    assert!(
        contacts.items.iter().all(|c| c.number != "5511900000032"),
        "the failed message's contact was rolled back"
    );
    // Retried alone, the message after it goes in.
    let batch = ingest_batch(&store, a, &c, &[&after]).await;
    assert_eq!(kinds(&batch), vec![("stored", Some(ticket.0), false)]);
}

/// Thirty new phones, two of them writing again, a reply to a message of the same batch, a new
/// display name, and a group chat the connection does not take: every decision is the one the
/// messages would get one at a time, and every event of a ticket carries the ticket as the
/// batch left it (which only the one pass does: message by message, the first event would show
/// one unread message).
async fn a_batch_of_many_chats_is_decided_and_written_in_one_pass(store: Store) {
    let (a, _) = two_companies(&store).await;
    let c = conn(&store, a).await;
    assert!(!c.allow_group, "the test's connection takes no groups");
    let head = EventLog::heads(&store).await.expect("heads");
    let phone = |k: usize| format!("55119000{k:05}");
    let mut batch: Vec<InboundMessage> = (0..30)
        .map(|k| inbound(&format!("p-{k}"), &phone(k), &format!("oi {k}")))
        .collect();
    let mut again = inbound("p-again", &phone(3), "sou eu de novo");
    again.chat_name = "Nome Novo".into();
    batch.push(again);
    let mut reply = inbound("p-reply", &phone(7), "respondendo");
    reply.quoted_external_id = Some("p-7".into());
    batch.push(reply);
    let mut group = inbound("p-group", "120363000000000001", "no grupo");
    group.is_group = true;
    batch.push(group);
    let refs: Vec<&InboundMessage> = batch.iter().collect();
    let result = ingest_batch(&store, a, &c, &refs).await;
    assert!(result.failed.is_none(), "{:?}", result.failed);
    let got = kinds(&result);
    assert_eq!(got.len(), 33);
    let tickets: HashSet<i64> = got[..30]
        .iter()
        .map(|(_, t, _)| t.expect("stored"))
        .collect();
    assert_eq!(tickets.len(), 30, "one new ticket per phone");
    assert!(
        got[..30]
            .iter()
            .all(|(kind, _, created)| *kind == "stored" && *created)
    );
    assert_eq!(got[30], ("stored", got[3].1, false));
    assert_eq!(got[31], ("stored", got[7].1, false));
    assert_eq!(got[32], ("ignored", None, false));
    for (k, stored) in result.outcomes[..30].iter().enumerate() {
        let IngestOutcome::Stored {
            contact_created, ..
        } = stored.outcome
        else {
            panic!("stored");
        };
        assert!(contact_created, "phone {k} is new to the company");
    }
    // The ticket as the batch left it, in the first message's outcome too.
    let first = result.outcomes[3].ticket.as_deref().expect("ticket");
    assert_eq!(
        (first.unread_messages, first.last_message.as_str()),
        (2, "sou eu de novo")
    );
    let stored = reread(&store, a, TicketId(got[3].1.expect("ticket"))).await;
    assert_eq!(stored.unread_messages, 2);
    assert_eq!(stored.contact.name, "Nome Novo");
    // Each new ticket has its one creation log.
    let logs = TicketRepo::logs(&store, a, TicketId(got[0].1.expect("ticket")))
        .await
        .expect("logs");
    assert_eq!(logs.len(), 1);
    // The reply points at the message it quotes, stored by the same batch.
    let page = MessageRepo::list(
        &store,
        a,
        TicketId(got[7].1.expect("ticket")),
        &PageStart::First,
        10,
    )
    .await
    .expect("list");
    let reply = page
        .items
        .iter()
        .find(|m| m.body == "respondendo")
        .expect("the reply");
    assert_eq!(
        reply.quoted_msg.as_ref().map(|q| q.body.as_str()),
        Some("oi 7")
    );
    // The group chat the connection ignores left no contact behind.
    let contacts = ContactRepo::search(&store, a, &Default::default(), &PageStart::First, 100)
        .await
        .expect("contacts");
    assert_eq!(contacts.items.len(), 30);
    assert!(
        contacts
            .items
            .iter()
            .all(|c| c.number != "120363000000000001")
    );
    // The events, in the batch's order: 30 contacts created, one renamed.
    let events = EventLog::read(&store, a, head_of(&head, a), 500)
        .await
        .expect("read");
    let created = created_bodies(&events);
    let mut expected: Vec<String> = (0..30).map(|k| format!("oi {k}")).collect();
    expected.extend(["sou eu de novo".to_owned(), "respondendo".to_owned()]);
    assert_eq!(created, expected);
    let contact_actions: Vec<&str> = events
        .iter()
        .filter_map(|e| match &e.event {
            Event::ContactUpdate { action, .. } => Some(action.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(
        contact_actions.iter().filter(|a| **a == "create").count(),
        30
    );
    assert_eq!(
        contact_actions.iter().filter(|a| **a == "update").count(),
        1
    );
    // Delivered again, the whole batch is duplicates and changes nothing.
    let again = ingest_batch(&store, a, &c, &refs).await;
    let kinds_again = kinds(&again);
    assert!(
        kinds_again[..32]
            .iter()
            .all(|(kind, ..)| *kind == "duplicate")
    );
    assert_eq!(kinds_again[32], ("ignored", None, false));
    assert_eq!(
        reread(&store, a, TicketId(got[3].1.expect("ticket")))
            .await
            .unread_messages,
        2
    );
}
