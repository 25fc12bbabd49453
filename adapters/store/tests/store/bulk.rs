//! The bulk path of `chatflow dev seed` on both engines: ids come back in input order, search
//! columns are filled (accents folded), rows stay in their company, the one-open-ticket rule
//! still holds and a failed call writes nothing.

use chatflow_core::TenantScope;
use chatflow_core::ids::ContactId;
use chatflow_core::inbox::model::{ContactFilter, PageStart};
use chatflow_core::inbox::ports::ContactRepo;
use chatflow_store::Store;
use chatflow_store::bulk::{BulkContact, BulkMessage, BulkTicket};
use chrono::{Duration, Utc};

use crate::store_tests;
use crate::support::two_companies;

store_tests!(bulk_rows_are_written_in_order_and_stay_in_their_company);

async fn count(store: &Store, sql: &'static str, scope: TenantScope) -> i64 {
    chatflow_store::on_pool!(store.pool(), |p| {
        sqlx::query_scalar::<_, i64>(sql)
            .bind(scope.company_id().0)
            .fetch_one(p)
            .await
            .expect("count")
    })
}

fn ticket(contact: i64, status: &str, n: u64) -> BulkTicket {
    let at = Utc::now();
    BulkTicket {
        uuid: uuid::Uuid::from_u64_pair(7, n),
        contact_id: contact,
        status: status.into(),
        unread_messages: 1,
        last_message: "Preciso da segunda via".into(),
        user_id: None,
        queue_id: None,
        created_at: at,
        updated_at: at + Duration::minutes(1),
    }
}

async fn bulk_rows_are_written_in_order_and_stay_in_their_company(store: Store) {
    let (a, b) = two_companies(&store).await;
    let whatsapp = store.bulk_connection(a, "Carga").await.expect("connection");
    assert_eq!(
        store.bulk_connection(a, "Carga").await.expect("again"),
        whatsapp
    );
    let other = store.bulk_connection(b, "Carga").await.expect("B's");
    assert_ne!(other, whatsapp);

    let at = Utc::now();
    let people = ["Conceição Gonçalves", "João Araújo", "Zé Brandão"];
    let rows: Vec<BulkContact> = people
        .iter()
        .enumerate()
        .map(|(i, name)| BulkContact {
            name: (*name).into(),
            number: format!("55119000000{i:02}"),
            email: String::new(),
            created_at: at,
        })
        .collect();
    let contacts = store
        .bulk_contacts(a, whatsapp, &rows)
        .await
        .expect("contacts");
    assert_eq!(contacts.len(), 3);
    for (id, name) in contacts.iter().zip(people) {
        let found = ContactRepo::get(&store, a, ContactId(*id))
            .await
            .expect("read")
            .expect("A's contact");
        assert_eq!(found.name, name);
        assert!(
            ContactRepo::get(&store, b, ContactId(*id))
                .await
                .expect("read")
                .is_none()
        );
    }
    assert_eq!(store.bulk_contact_count(a).await.expect("count"), 3);
    assert_eq!(store.bulk_contact_count(b).await.expect("count"), 0);
    let found = ContactRepo::search(
        &store,
        a,
        &ContactFilter {
            search: "goncalves".into(),
            ..Default::default()
        },
        &PageStart::First,
        20,
    )
    .await
    .expect("search");
    assert_eq!(found.items.len(), 1);
    assert_eq!(found.items[0].id, ContactId(contacts[0]));

    let tickets = store
        .bulk_tickets(
            a,
            whatsapp,
            &[
                ticket(contacts[0], "closed", 1),
                ticket(contacts[0], "open", 2),
                ticket(contacts[1], "pending", 3),
            ],
        )
        .await
        .expect("tickets");
    assert_eq!(tickets.len(), 3);
    // A second ticket that is not closed for the same contact and connection is refused, and
    // the whole call writes nothing.
    let refused = store
        .bulk_tickets(
            a,
            whatsapp,
            &[
                ticket(contacts[2], "open", 4),
                ticket(contacts[0], "pending", 5),
            ],
        )
        .await;
    assert!(refused.is_err());
    let sql = "SELECT COUNT(*) FROM tickets WHERE company_id = $1";
    assert_eq!(count(&store, sql, a).await, 3);
    assert_eq!(count(&store, sql, b).await, 0);

    let contacts = &contacts;
    let messages: Vec<BulkMessage> = tickets
        .iter()
        .enumerate()
        .flat_map(|(i, ticket)| {
            (0..2).map(move |j| BulkMessage {
                ticket_id: *ticket,
                contact_id: contacts[i.min(1)],
                external_id: format!("SEED-{i}-{j}"),
                body: "Preciso da SEGUNDA VIA da fatura de março".into(),
                from_me: j == 1,
                read: true,
                created_at: at,
            })
        })
        .collect();
    assert_eq!(
        store
            .bulk_messages(a, whatsapp, &messages)
            .await
            .expect("messages"),
        6
    );
    let sql = "SELECT COUNT(*) FROM messages WHERE company_id = $1 \
               AND search_text LIKE '%segunda via da fatura de marco%'";
    assert_eq!(count(&store, sql, a).await, 6);
    assert_eq!(count(&store, sql, b).await, 0);
    store.bulk_analyze().await.expect("analyze");
}
