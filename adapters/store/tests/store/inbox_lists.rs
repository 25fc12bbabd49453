//! How the inbox lists stay exact while they are fast: the first-page cache follows every write
//! (also writes made through another store on the same database, as a second server would), and
//! searches walked in list order give the same tickets as the text-index path, frequent and rare
//! terms alike, across the walk's batches.

use std::collections::HashSet;

use chatflow_core::TenantScope;
use chatflow_core::identity::{Actor, Profile, UserFlags};
use chatflow_core::ids::WhatsappId;
use chatflow_core::ids::{TicketId, UserId};
use chatflow_core::inbox::channel::InboundMessage;
use chatflow_core::inbox::model::{Connection, PageStart, Ticket, TicketQuery};
use chatflow_core::inbox::ports::{ConnectionRepo, ContactRepo, TagRepo, TicketRepo};
use chatflow_core::inbox::visibility::ticket_filter;
use chatflow_core::ticket::TicketStatus;
use chatflow_store::Store;
use chatflow_store::bulk::{BulkContact, BulkMessage, BulkTicket};
use chrono::{Duration, Utc};

use crate::store_tests;
use crate::support::{connection, two_companies};
use crate::tickets::inbound;

store_tests!(
    first_pages_follow_every_write,
    cached_pages_show_what_writes_change,
    searches_walk_in_list_order_and_agree_with_the_index
);

fn admin(scope: TenantScope) -> Actor {
    Actor {
        user_id: UserId(1),
        company_id: scope.company_id(),
        profile: Profile::Admin,
        is_super: false,
        flags: UserFlags::default(),
        queue_ids: vec![],
    }
}

async fn ingest(store: &Store, scope: TenantScope, c: &Connection, m: &InboundMessage) {
    crate::tickets::ingest(store, scope, c, m).await;
}

async fn first_page(
    store: &Store,
    scope: TenantScope,
    query: &TicketQuery,
) -> (Vec<TicketId>, i64) {
    let filter = ticket_filter(&admin(scope), query);
    let page = TicketRepo::list(store, scope, &filter, &PageStart::First, 20)
        .await
        .expect("page");
    (
        page.items.iter().map(|t| t.id).collect(),
        page.count.expect("a first page counts"),
    )
}

async fn first_pages_follow_every_write(store: Store) {
    let (a, b) = two_companies(&store).await;
    let whatsapp = connection(&store, a, "main").await;
    let c = ConnectionRepo::get(&store, a, WhatsappId(whatsapp))
        .await
        .expect("get")
        .expect("exists");
    // A second server on the same database: its own cache, the same rows.
    let other = Store::from_pool(store.pool().clone(), store.stamps().clone());
    for i in 0..3 {
        ingest(
            &store,
            a,
            &c,
            &inbound(&format!("p{i}"), &format!("551195000000{i}"), "oi"),
        )
        .await;
    }
    let pending = TicketQuery {
        show_all: true,
        statuses: vec![TicketStatus::Pending],
        ..TicketQuery::default()
    };
    let (ids, count) = first_page(&store, a, &pending).await;
    assert_eq!((ids.len(), count), (3, 3));
    assert_eq!(
        first_page(&store, a, &pending).await,
        (ids.clone(), 3),
        "same answer twice"
    );

    // A new conversation written by the other server shows up first.
    ingest(&other, a, &c, &inbound("p9", "5511950000009", "novo")).await;
    let (after_new, count) = first_page(&store, a, &pending).await;
    assert_eq!(count, 4);
    let newest = after_new[0];
    assert!(!ids.contains(&newest));

    // An older ticket that receives a message moves to the top.
    ingest(&other, a, &c, &inbound("p10", "5511950000000", "de novo")).await;
    let (reordered, _) = first_page(&store, a, &pending).await;
    assert_eq!(
        reordered[0], ids[2],
        "the oldest ticket got the newest message"
    );

    // Deleting a ticket (other server) removes it from the cached tab.
    assert!(TicketRepo::delete(&other, a, newest).await.expect("delete"));
    let (after_delete, count) = first_page(&store, a, &pending).await;
    assert_eq!(count, 3);
    assert!(!after_delete.contains(&newest));

    // Closing all of them empties the tab.
    let closer = crate::tickets::user(&store, a, "closer@a.test").await;
    let closed = TicketRepo::close_all(&other, a, &ticket_filter(&admin(a), &pending), closer)
        .await
        .expect("close all");
    assert_eq!(closed, 3);
    assert_eq!(first_page(&store, a, &pending).await, (vec![], 0));

    // Another company's writes and pages never mix with A's.
    let (b_ids, b_count) = first_page(&store, b, &pending).await;
    assert_eq!((b_ids.len(), b_count), (0, 0));
}

/// The first page as rendered (tickets with their contact and tags), for an admin.
async fn rendered(store: &Store, scope: TenantScope, query: &TicketQuery) -> Vec<Ticket> {
    let filter = ticket_filter(&admin(scope), query);
    TicketRepo::list(store, scope, &filter, &PageStart::First, 20)
        .await
        .expect("page")
        .items
}

/// Cached pages keep the tickets as rendered; every write that changes what a row shows moves
/// the company's sequence, so the next read renders afresh — also for writes made by another
/// server on the same database.
async fn cached_pages_show_what_writes_change(store: Store) {
    let (a, _) = two_companies(&store).await;
    let whatsapp = connection(&store, a, "main").await;
    let c = ConnectionRepo::get(&store, a, WhatsappId(whatsapp))
        .await
        .expect("get")
        .expect("exists");
    let other = Store::from_pool(store.pool().clone(), store.stamps().clone());
    ingest(&store, a, &c, &inbound("r1", "5511950001111", "oi")).await;
    let tab = TicketQuery {
        show_all: true,
        statuses: vec![TicketStatus::Pending],
        ..TicketQuery::default()
    };
    let before = rendered(&store, a, &tab).await;
    assert_eq!(before.len(), 1);
    assert!(before[0].tags.is_empty());
    assert_eq!(
        rendered(&store, a, &tab).await,
        before,
        "served from the cache"
    );
    let ticket = before[0].id;

    // A ticket tag added elsewhere shows on the cached tab.
    let tag = TagRepo::create(&other, a, "Urgente", "#ff0000", 0)
        .await
        .expect("tag");
    assert!(
        TagRepo::set_ticket_tag(&other, a, ticket, tag.id)
            .await
            .expect("link")
    );
    let tagged = rendered(&store, a, &tab).await;
    assert_eq!(
        tagged[0]
            .tags
            .iter()
            .map(|t| t.name.as_str())
            .collect::<Vec<_>>(),
        ["Urgente"]
    );
    // Linking again changes nothing and is still done.
    assert!(
        TagRepo::set_ticket_tag(&other, a, ticket, tag.id)
            .await
            .expect("again")
    );

    // Renaming the tag renames it on the page.
    TagRepo::update(&other, a, tag.id, "Muito urgente", "#ff0000", 0)
        .await
        .expect("rename")
        .expect("exists");
    assert_eq!(
        rendered(&store, a, &tab).await[0].tags[0].name,
        "Muito urgente"
    );

    // Renaming the contact renames the row.
    let contact = ContactRepo::get(&other, a, before[0].contact.id)
        .await
        .expect("contact")
        .expect("exists");
    let input = chatflow_core::inbox::model::ContactInput {
        name: "Maria Renomeada".into(),
        number: contact.number.clone(),
        email: contact.email.clone(),
        channel: None,
        is_group: false,
        whatsapp_id: None,
        disable_bot: None,
        accept_audio_message: None,
        extra_info: vec![],
    };
    ContactRepo::update(&other, a, contact.id, &input)
        .await
        .expect("update")
        .expect("exists");
    assert_eq!(
        rendered(&store, a, &tab).await[0].contact.name,
        "Maria Renomeada"
    );

    // Clearing the ticket's tags clears them on the page.
    assert!(
        TagRepo::clear_ticket_tags(&other, a, ticket)
            .await
            .expect("clear")
    );
    assert!(rendered(&store, a, &tab).await[0].tags.is_empty());
}

/// Every ticket of a search, page after page, with the page's count when known.
async fn all_pages(store: &Store, scope: TenantScope, term: &str) -> (Vec<Ticket>, Option<i64>) {
    let filter = ticket_filter(
        &admin(scope),
        &TicketQuery {
            show_all: true,
            search: term.to_owned(),
            search_on_messages: true,
            ..TicketQuery::default()
        },
    );
    let mut start = PageStart::First;
    let mut all = Vec::new();
    let mut count = None;
    loop {
        let page = TicketRepo::list(store, scope, &filter, &start, 20)
            .await
            .expect("search page");
        if matches!(start, PageStart::First) {
            count = page.count;
        }
        all.extend(page.items);
        match page.next_cursor {
            Some(cursor) => start = PageStart::After(cursor),
            None => break,
        }
    }
    (all, count)
}

async fn searches_walk_in_list_order_and_agree_with_the_index(store: Store) {
    let (a, b) = two_companies(&store).await;
    let whatsapp = store.bulk_connection(a, "Carga").await.expect("connection");
    let other_whatsapp = store.bulk_connection(b, "Carga").await.expect("B's");
    // 2 500 tickets, newest last: every one says "segunda via"; every 100th also says
    // "boleto vencido"; only the oldest says "reembolso", and the 2 400th "cancelamento".
    let total = 2500usize;
    let start = Utc::now() - Duration::days(30);
    let contacts: Vec<BulkContact> = (0..total)
        .map(|i| BulkContact {
            name: format!("Cliente {i}"),
            number: format!("55118{i:07}"),
            email: String::new(),
            created_at: start,
        })
        .collect();
    let contact_ids = store
        .bulk_contacts(a, whatsapp, &contacts)
        .await
        .expect("contacts");
    let tickets: Vec<BulkTicket> = contact_ids
        .iter()
        .enumerate()
        .map(|(i, contact)| BulkTicket {
            uuid: uuid::Uuid::from_u64_pair(9, i as u64),
            contact_id: *contact,
            status: "open".into(),
            unread_messages: 0,
            last_message: "segunda via".into(),
            user_id: None,
            queue_id: None,
            created_at: start,
            updated_at: start + Duration::seconds(i as i64),
        })
        .collect();
    let ticket_ids = store
        .bulk_tickets(a, whatsapp, &tickets)
        .await
        .expect("tickets");
    let messages: Vec<BulkMessage> = ticket_ids
        .iter()
        .zip(&contact_ids)
        .enumerate()
        .map(|(i, (ticket, contact))| {
            let mut body = String::from("Preciso da Segunda Via");
            if i % 100 == 0 {
                body.push_str(" do boleto vencido");
            }
            if i == 0 {
                body.push_str(", ou um reembolso");
            }
            if i == 2400 {
                body.push_str(", quero o cancelamento");
            }
            BulkMessage {
                ticket_id: *ticket,
                contact_id: *contact,
                external_id: format!("w{i}"),
                body,
                from_me: false,
                read: true,
                created_at: start + Duration::seconds(i as i64),
            }
        })
        .collect();
    store
        .bulk_messages(a, whatsapp, &messages)
        .await
        .expect("messages");
    // B has the same words: never found from A.
    let b_contact = store
        .bulk_contacts(
            b,
            other_whatsapp,
            &[BulkContact {
                name: "Cliente B".into(),
                number: "5511700000000".into(),
                email: String::new(),
                created_at: start,
            }],
        )
        .await
        .expect("B contact");
    let b_ticket = store
        .bulk_tickets(
            b,
            other_whatsapp,
            &[BulkTicket {
                uuid: uuid::Uuid::from_u64_pair(10, 0),
                contact_id: b_contact[0],
                status: "open".into(),
                unread_messages: 0,
                last_message: String::new(),
                user_id: None,
                queue_id: None,
                created_at: start,
                updated_at: Utc::now(),
            }],
        )
        .await
        .expect("B ticket");
    store
        .bulk_messages(
            b,
            other_whatsapp,
            &[BulkMessage {
                ticket_id: b_ticket[0],
                contact_id: b_contact[0],
                external_id: "b0".into(),
                body: "segunda via reembolso cancelamento boleto vencido".into(),
                from_me: false,
                read: true,
                created_at: start,
            }],
        )
        .await
        .expect("B message");

    let newest_first: Vec<i64> = ticket_ids.iter().rev().copied().collect();
    let ids = |tickets: &[Ticket]| tickets.iter().map(|t| t.id.0).collect::<Vec<i64>>();

    // Frequent: the walk fills every page; all 2 500, in list order, no repeats.
    let (found, count) = all_pages(&store, a, "segunda via").await;
    assert_eq!(ids(&found), newest_first);
    assert_eq!(
        count, None,
        "not counted: the walk stopped at the first page"
    );

    // Every 100th: spread over the walk's batches and beyond them.
    let (found, _) = all_pages(&store, a, "boleto vencido").await;
    let expected: Vec<i64> = newest_first
        .iter()
        .copied()
        .filter(|id| {
            let i = ticket_ids.iter().position(|t| t == id).expect("known");
            i % 100 == 0
        })
        .collect();
    assert_eq!(ids(&found), expected);

    // Rare (one ticket among the newest): the walk gives up, the text index answers.
    let (found, count) = all_pages(&store, a, "cancelamento").await;
    assert_eq!(ids(&found), vec![ticket_ids[2400]]);
    assert_eq!(count, Some(1));

    // Rare and the oldest ticket, in capitals.
    let (found, count) = all_pages(&store, a, "REEMBOLSO").await;
    assert_eq!(ids(&found), vec![ticket_ids[0]]);
    assert_eq!(count, Some(1));

    // A contact name within the walk, and one beyond it.
    let (found, _) = all_pages(&store, a, "Cliente 2499").await;
    assert_eq!(ids(&found), vec![ticket_ids[2499]]);
    let (found, _) = all_pages(&store, a, "Cliente 7").await;
    let unique: HashSet<i64> = ids(&found).into_iter().collect();
    assert_eq!(unique.len(), found.len());
    assert!(unique.contains(&ticket_ids[7]) && unique.contains(&ticket_ids[789]));
    assert!(
        found
            .iter()
            .all(|t| t.contact.name.starts_with("Cliente 7"))
    );

    // Nothing of B's, whichever path answers.
    for term in ["segunda via", "reembolso", "Cliente B"] {
        let (found, _) = all_pages(&store, a, term).await;
        assert!(!ids(&found).contains(&b_ticket[0]), "{term}");
    }
}
