//! One person, one contact, on both engines and through the ingestion use case: a person seen
//! under a LID and then under their phone number (or the other way round, or both at once in
//! one batch) is one contact with one open ticket; two contacts made before WhatsApp told they
//! are one person are merged (tickets, messages, tags, extra information); a number change moves
//! the contact; another company's contacts and aliases are never touched.

use std::sync::Arc;

use chatflow_core::inbox::channel::{InboundEvent, InboundMessage, Queued};
use chatflow_core::inbox::model::{ContactFilter, MediaType, PageStart};
use chatflow_core::inbox::ports::{ContactRepo, IngestOutcome, MessageRepo, TagRepo, TicketRepo};
use chatflow_core::ports::ChannelKind;
use chatflow_core::service::Ports;
use chatflow_core::service::inbox::ingest;
use chatflow_core::{TenantScope, TicketId, WhatsappId};
use chatflow_store::Store;

use crate::store_tests;
use crate::support::{connection, logged_events, two_companies};

store_tests!(
    a_lid_then_its_phone_number_is_one_contact_and_one_ticket,
    one_batch_under_both_identities_makes_one_contact,
    two_contacts_of_one_person_are_merged,
    a_number_change_moves_the_contact_to_the_new_number,
    another_company_is_never_touched,
);

const PHONE: &str = "5511999990000";
const LID: &str = "123456789@lid";

fn message(external_id: &str, chat: &str, aliases: &[&str]) -> InboundEvent {
    InboundEvent::Message(InboundMessage {
        external_id: external_id.into(),
        chat: chat.into(),
        chat_name: "Ana".into(),
        is_group: false,
        participant: None,
        from_me: false,
        body: format!("text {external_id}"),
        media_type: MediaType::Chat,
        media: None,
        quoted_external_id: None,
        timestamp: chrono::Utc::now(),
        aliases: aliases.iter().map(|a| (*a).to_owned()).collect(),
        media_failed: None,
    })
}

fn ports(store: &Store) -> Ports {
    crate::support::ports_on(
        store,
        Arc::new(chatflow_system::SystemClock),
        Arc::new(chatflow_system::LogMailer),
    )
}

/// Delivers `event` and answers the ticket it was stored on.
async fn deliver(
    ports: &Ports,
    scope: TenantScope,
    c: WhatsappId,
    event: InboundEvent,
) -> TicketId {
    let delivery = ingest::deliver(ports, scope, c, event)
        .await
        .expect("delivered");
    match delivery.outcome {
        Some(IngestOutcome::Stored { ticket, .. }) => ticket,
        other => panic!("not stored: {other:?}"),
    }
}

async fn contacts(store: &Store, scope: TenantScope) -> Vec<chatflow_core::inbox::model::Contact> {
    ContactRepo::search(
        store,
        scope,
        &ContactFilter::default(),
        &PageStart::First,
        100,
    )
    .await
    .expect("contacts")
    .items
}

async fn bodies(store: &Store, scope: TenantScope, ticket: TicketId) -> Vec<String> {
    MessageRepo::list(store, scope, ticket, &PageStart::First, 100)
        .await
        .expect("messages")
        .items
        .into_iter()
        .map(|m| m.body)
        .collect()
}

async fn a_lid_then_its_phone_number_is_one_contact_and_one_ticket(store: Store) {
    let (a, _) = two_companies(&store).await;
    let c = WhatsappId(connection(&store, a, "Main").await);
    let ports = ports(&store);

    // First seen by the LID alone: a contact under the LID.
    let first = deliver(&ports, a, c, message("m1", LID, &[])).await;
    let all = contacts(&store, a).await;
    assert_eq!(all.len(), 1);
    assert_eq!(all[0].number, LID);
    let id = all[0].id;

    // Then by the phone number with the LID along: the same contact takes the number.
    let second = deliver(&ports, a, c, message("m2", PHONE, &[LID])).await;
    assert_eq!(second, first, "the same open ticket");
    let all = contacts(&store, a).await;
    assert_eq!(all.len(), 1);
    assert_eq!((all[0].id, all[0].number.as_str()), (id, PHONE));
    assert_eq!(
        ContactRepo::aliases(&store, a, id)
            .await
            .expect("the store answers"),
        vec![LID]
    );

    // The LID alone again, and the number alone: still the one contact and ticket.
    assert_eq!(deliver(&ports, a, c, message("m3", LID, &[])).await, first);
    assert_eq!(
        deliver(&ports, a, c, message("m4", PHONE, &[])).await,
        first
    );
    assert_eq!(contacts(&store, a).await.len(), 1);
    assert_eq!(
        bodies(&store, a, first).await,
        vec!["text m1", "text m2", "text m3", "text m4"]
    );
    let ticket = TicketRepo::get(&store, a, first)
        .await
        .expect("the store answers")
        .expect("it exists");
    assert_eq!(ticket.unread_messages, 4);
}

async fn one_batch_under_both_identities_makes_one_contact(store: Store) {
    let (a, _) = two_companies(&store).await;
    let c = WhatsappId(connection(&store, a, "Main").await);
    let ports = ports(&store);
    let events = vec![
        message("b1", PHONE, &[LID]),
        message("b2", LID, &[]),
        message("b3", PHONE, &[]),
        message("b1", PHONE, &[LID]),
    ];
    let out = ingest::deliver_batch(
        &ports,
        a,
        c,
        events
            .into_iter()
            .map(|event| Queued { event, attempts: 1 })
            .collect(),
    )
    .await;
    assert!(out.failed.is_none(), "{:?}", out.failed);
    assert_eq!(out.handled.len(), 4);
    let all = contacts(&store, a).await;
    assert_eq!(all.len(), 1, "{all:?}");
    assert_eq!(all[0].number, PHONE);
    assert_eq!(
        ContactRepo::aliases(&store, a, all[0].id)
            .await
            .expect("the store answers"),
        vec![LID]
    );
    let ticket = TicketRepo::active_for_contact(&store, a, all[0].id, Some(c))
        .await
        .expect("the store answers")
        .expect("one open ticket");
    assert_eq!(
        bodies(&store, a, ticket.id).await,
        vec!["text b1", "text b2", "text b3"],
        "the redelivery is stored once"
    );
}

async fn two_contacts_of_one_person_are_merged(store: Store) {
    let (a, _) = two_companies(&store).await;
    let c = WhatsappId(connection(&store, a, "Main").await);
    let other = WhatsappId(connection(&store, a, "Other").await);
    let ports = ports(&store);

    // Before WhatsApp told they are one person: two contacts, each with an open ticket on the
    // main connection, and the LID one with a ticket on another connection too.
    let lid_ticket = deliver(&ports, a, c, message("l1", LID, &[])).await;
    let phone_ticket = deliver(&ports, a, c, message("p1", PHONE, &[])).await;
    let elsewhere = deliver(&ports, a, other, message("o1", LID, &[])).await;
    assert_ne!(lid_ticket, phone_ticket);
    let lid = ContactRepo::find_by_number(&store, a, ChannelKind::Whatsapp, LID)
        .await
        .expect("the store answers")
        .expect("the LID contact");
    let phone = ContactRepo::find_by_number(&store, a, ChannelKind::Whatsapp, PHONE)
        .await
        .expect("the store answers")
        .expect("the phone contact");
    let tag = TagRepo::create(&store, a, "VIP", "#ff0000", 0)
        .await
        .expect("tag");
    assert!(
        ContactRepo::set_tags(&store, a, lid.id, &[tag.id])
            .await
            .expect("the store answers")
    );

    // Now one message tells both: one contact, under the number, with everything.
    let merged_ticket = deliver(&ports, a, c, message("p2", PHONE, &[LID])).await;
    let all = contacts(&store, a).await;
    assert_eq!(all.len(), 1, "{all:?}");
    let kept = &all[0];
    assert_eq!((kept.id, kept.number.as_str()), (phone.id, PHONE));
    assert_eq!(
        kept.tags.iter().map(|t| t.id).collect::<Vec<_>>(),
        vec![tag.id]
    );
    assert_eq!(
        ContactRepo::aliases(&store, a, kept.id)
            .await
            .expect("the store answers"),
        vec![LID]
    );
    assert!(
        ContactRepo::get(&store, a, lid.id)
            .await
            .expect("the store answers")
            .is_none()
    );

    // The older open ticket took the newer one's messages; the newer one is gone.
    assert_eq!(merged_ticket, lid_ticket);
    assert!(
        TicketRepo::get(&store, a, phone_ticket)
            .await
            .expect("the store answers")
            .is_none()
    );
    let ticket = TicketRepo::get(&store, a, lid_ticket)
        .await
        .expect("the store answers")
        .expect("the store answers");
    assert_eq!(ticket.contact_id, phone.id);
    assert_eq!(ticket.unread_messages, 3);
    assert_eq!(
        bodies(&store, a, lid_ticket).await,
        vec!["text l1", "text p1", "text p2"]
    );
    // The ticket on the other connection moved to the kept contact.
    let moved = TicketRepo::get(&store, a, elsewhere)
        .await
        .expect("the store answers")
        .expect("the store answers");
    assert_eq!(moved.contact_id, phone.id);

    // Everyone watching heard of it.
    let deleted = logged_events(&store, a, "contact").await;
    assert!(
        deleted
            .iter()
            .any(|(p, _)| p["action"] == "delete" && p["contactId"] == lid.id.0),
        "{deleted:?}"
    );
    let tickets = logged_events(&store, a, "ticket").await;
    assert!(
        tickets
            .iter()
            .any(|(p, _)| p["action"] == "delete" && p["ticketId"] == phone_ticket.0),
        "{tickets:?}"
    );
}

async fn a_number_change_moves_the_contact_to_the_new_number(store: Store) {
    let (a, _) = two_companies(&store).await;
    let c = WhatsappId(connection(&store, a, "Main").await);
    let ports = ports(&store);
    let ticket = deliver(&ports, a, c, message("n1", PHONE, &[])).await;
    let before = contacts(&store, a).await[0].id;

    let new_number = "5511888880000";
    ingest::deliver(
        &ports,
        a,
        c,
        InboundEvent::Identities {
            chat: new_number.into(),
            aliases: vec![PHONE.into(), LID.into()],
        },
    )
    .await
    .expect("delivered");
    let all = contacts(&store, a).await;
    assert_eq!(all.len(), 1);
    assert_eq!((all[0].id, all[0].number.as_str()), (before, new_number));
    assert_eq!(
        ContactRepo::aliases(&store, a, before)
            .await
            .expect("the store answers"),
        vec![LID.to_owned(), PHONE.to_owned()]
    );
    assert_eq!(
        deliver(&ports, a, c, message("n2", new_number, &[])).await,
        ticket
    );
    assert_eq!(deliver(&ports, a, c, message("n3", LID, &[])).await, ticket);

    // Identities of nobody known: nothing is created.
    ingest::deliver(
        &ports,
        a,
        c,
        InboundEvent::Identities {
            chat: "5521777770000".into(),
            aliases: vec!["42@lid".into()],
        },
    )
    .await
    .expect("delivered");
    assert_eq!(contacts(&store, a).await.len(), 1);
}

async fn another_company_is_never_touched(store: Store) {
    let (a, b) = two_companies(&store).await;
    let ca = WhatsappId(connection(&store, a, "A").await);
    let cb = WhatsappId(connection(&store, b, "B").await);
    let ports = ports(&store);
    deliver(&ports, b, cb, message("x1", LID, &[])).await;
    let theirs = contacts(&store, b).await[0].clone();

    // Company A meets the same person: its own contact; B's stays as it was.
    deliver(&ports, a, ca, message("y1", PHONE, &[LID])).await;
    let ours = contacts(&store, a).await;
    assert_eq!(ours.len(), 1);
    assert_eq!(ours[0].number, PHONE);
    assert_ne!(ours[0].id, theirs.id);
    let after = contacts(&store, b).await;
    assert_eq!(after.len(), 1);
    assert_eq!((after[0].id, after[0].number.as_str()), (theirs.id, LID));
    assert!(
        ContactRepo::aliases(&store, b, theirs.id)
            .await
            .expect("the store answers")
            .is_empty()
    );

    // A cannot give B's contact an alias, nor read its aliases, nor merge it.
    ContactRepo::add_aliases(
        &store,
        a,
        ChannelKind::Whatsapp,
        &[(theirs.id, "999@lid".into())],
    )
    .await
    .expect("the store answers");
    assert!(
        ContactRepo::aliases(&store, b, theirs.id)
            .await
            .expect("the store answers")
            .is_empty()
    );
    assert!(
        ContactRepo::aliases(&store, a, ours[0].id)
            .await
            .expect("the store answers")
            == vec![LID]
    );
    let plan = chatflow_core::inbox::identities::IdentityPlan {
        number: PHONE.into(),
        keep: Some(ours[0].id),
        renumber: false,
        merge: vec![theirs.id],
        aliases: vec![],
    };
    assert!(
        ContactRepo::apply_identities(&store, a, ChannelKind::Whatsapp, &plan)
            .await
            .expect("the store answers")
    );
    assert!(
        ContactRepo::get(&store, b, theirs.id)
            .await
            .expect("the store answers")
            .is_some()
    );
    let foreign_keep = chatflow_core::inbox::identities::IdentityPlan {
        keep: Some(theirs.id),
        merge: vec![ours[0].id],
        ..plan
    };
    assert!(
        !ContactRepo::apply_identities(&store, a, ChannelKind::Whatsapp, &foreign_keep)
            .await
            .expect("the store answers")
    );
    assert!(
        ContactRepo::get(&store, a, ours[0].id)
            .await
            .expect("the store answers")
            .is_some()
    );
}
