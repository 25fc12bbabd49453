//! Tags on both engines: CRUD, kanban filter, contact and ticket tags, company isolation.

use chatflow_core::TenantScope;
use chatflow_core::ids::{ContactId, TicketId};
use chatflow_core::inbox::model::ContactInput;
use chatflow_core::inbox::ports::{ContactRepo, TagRepo};
use chatflow_store::Store;

use crate::store_tests;
use crate::support::two_companies;

async fn contact(store: &Store, scope: TenantScope, number: &str) -> ContactId {
    ContactRepo::create(
        store,
        scope,
        &ContactInput {
            name: "Ana".into(),
            number: number.into(),
            email: String::new(),
            channel: None,
            is_group: false,
            whatsapp_id: None,
            disable_bot: None,
            accept_audio_message: None,
            extra_info: Vec::new(),
        },
    )
    .await
    .expect("contact")
    .id
}

/// A ticket inserted directly (the tickets port belongs to another part of the inbox).
async fn ticket(store: &Store, scope: TenantScope, contact: ContactId) -> TicketId {
    let company = scope.company_id().0;
    let id = chatflow_store::on_pool!(store.pool(), |p| {
        sqlx::query_scalar::<_, i64>(
            "INSERT INTO tickets (company_id, uuid, contact_id) VALUES ($1, $2, $3) RETURNING id",
        )
        .bind(company)
        .bind(uuid::Uuid::new_v4())
        .bind(contact.0)
        .fetch_one(p)
        .await
        .expect("ticket inserted")
    });
    TicketId(id)
}

async fn creates_lists_updates_and_deletes(store: Store) {
    let (a, b) = two_companies(&store).await;
    let lead = TagRepo::create(&store, a, "lead", "#111", 0)
        .await
        .expect("lead");
    let lane = TagRepo::create(&store, a, "Em andamento", "#222", 1)
        .await
        .expect("lane");
    TagRepo::create(&store, b, "b-tag", "#333", 0)
        .await
        .expect("b");
    let all = TagRepo::list(&store, a, None).await.expect("list");
    assert_eq!(
        all.iter().map(|t| t.name.as_str()).collect::<Vec<_>>(),
        ["Em andamento", "lead"]
    );
    assert_eq!(
        TagRepo::list(&store, a, Some(true)).await.expect("kanban"),
        vec![lane.clone()]
    );
    assert_eq!(
        TagRepo::list(&store, a, Some(false)).await.expect("plain"),
        vec![lead.clone()]
    );
    let renamed = TagRepo::update(&store, a, lead.id, "hot lead", "#999", 0)
        .await
        .expect("update")
        .expect("found");
    assert_eq!(renamed.name, "hot lead");
    assert_eq!(renamed.color, "#999");
    // B sees and changes none of A's tags.
    assert_eq!(
        TagRepo::update(&store, b, lead.id, "x", "#000", 0)
            .await
            .expect("b update"),
        None
    );
    assert!(!TagRepo::delete(&store, b, lead.id).await.expect("b delete"));
    assert!(TagRepo::delete(&store, a, lead.id).await.expect("delete"));
    assert_eq!(TagRepo::list(&store, a, None).await.expect("list").len(), 1);
}

async fn contact_and_ticket_tags_stay_in_the_company(store: Store) {
    let (a, b) = two_companies(&store).await;
    let vip = TagRepo::create(&store, a, "vip", "#111", 0)
        .await
        .expect("vip");
    let b_tag = TagRepo::create(&store, b, "b-tag", "#333", 0)
        .await
        .expect("b");
    let ana = contact(&store, a, "5511955550001").await;
    ContactRepo::set_tags(&store, a, ana, &[vip.id])
        .await
        .expect("sync");
    assert_eq!(
        TagRepo::contact_tags(&store, a, ana).await.expect("tags"),
        vec![vip.clone()]
    );
    assert!(
        TagRepo::contact_tags(&store, b, ana)
            .await
            .expect("b view")
            .is_empty()
    );

    let t = ticket(&store, a, ana).await;
    assert!(
        TagRepo::set_ticket_tag(&store, a, t, vip.id)
            .await
            .expect("tag ticket")
    );
    assert!(
        TagRepo::set_ticket_tag(&store, a, t, vip.id)
            .await
            .expect("idempotent")
    );
    assert!(
        !TagRepo::set_ticket_tag(&store, a, t, b_tag.id)
            .await
            .expect("foreign tag")
    );
    assert!(
        !TagRepo::set_ticket_tag(&store, b, t, b_tag.id)
            .await
            .expect("foreign ticket")
    );
    assert!(
        !TagRepo::clear_ticket_tags(&store, b, t)
            .await
            .expect("b clear")
    );
    let linked: i64 = chatflow_store::on_pool!(store.pool(), |p| {
        sqlx::query_scalar("SELECT COUNT(*) FROM ticket_tags WHERE ticket_id = $1")
            .bind(t.0)
            .fetch_one(p)
            .await
            .expect("count")
    });
    assert_eq!(linked, 1);
    assert!(
        TagRepo::clear_ticket_tags(&store, a, t)
            .await
            .expect("clear")
    );
    // Deleting a tag unlinks it from contacts.
    assert!(TagRepo::delete(&store, a, vip.id).await.expect("delete"));
    assert!(
        TagRepo::contact_tags(&store, a, ana)
            .await
            .expect("tags")
            .is_empty()
    );
}

store_tests!(
    creates_lists_updates_and_deletes,
    contact_and_ticket_tags_stay_in_the_company,
);
