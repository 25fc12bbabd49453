//! Contacts on both engines: CRUD with events, the duplicate key, accent-insensitive search over
//! the text index, keyset paging, tags and extra fields, and company isolation.

use std::collections::HashSet;

use chatflow_core::events::Event;
use chatflow_core::ids::{ContactId, TagId, WhatsappId};
use chatflow_core::inbox::model::{ContactFilter, ContactInput, ExtraInfo, PageStart};
use chatflow_core::inbox::ports::{ContactRepo, EventLog, TagRepo};
use chatflow_core::ports::ChannelKind;
use chatflow_core::{ErrorCode, TenantScope};
use chatflow_store::Store;

use crate::store_tests;
use crate::support::{connection, two_companies};

fn input(name: &str, number: &str) -> ContactInput {
    ContactInput {
        name: name.to_owned(),
        number: number.to_owned(),
        email: String::new(),
        channel: None,
        is_group: false,
        whatsapp_id: None,
        disable_bot: None,
        accept_audio_message: None,
        extra_info: Vec::new(),
    }
}

fn search(text: &str) -> ContactFilter {
    ContactFilter {
        search: text.to_owned(),
        ..ContactFilter::default()
    }
}

async fn names(store: &Store, scope: TenantScope, filter: &ContactFilter) -> Vec<String> {
    ContactRepo::search(store, scope, filter, &PageStart::First, 100)
        .await
        .expect("search")
        .items
        .into_iter()
        .map(|c| c.name)
        .collect()
}

async fn creates_reads_updates_and_deletes_with_events(store: Store) {
    let (a, _) = two_companies(&store).await;
    let wa = connection(&store, a, "Sales").await;
    let mut new = input("João Silva", "5511999990001");
    new.email = "joao@example.com".into();
    new.whatsapp_id = Some(WhatsappId(wa));
    new.extra_info = vec![ExtraInfo {
        id: None,
        name: "CPF".into(),
        value: "123".into(),
    }];
    let created = ContactRepo::create(&store, a, &new).await.expect("created");
    assert_eq!(created.name, "João Silva");
    assert_eq!(created.whatsapp_name.as_deref(), Some("Sales"));
    assert_eq!(created.extra_info.len(), 1);
    assert_eq!(created.channel, ChannelKind::Whatsapp);
    assert!(created.active && created.accept_audio_message && !created.disable_bot);

    let got = ContactRepo::get(&store, a, created.id).await.expect("get");
    assert_eq!(got.as_ref(), Some(&created));

    let mut edit = new.clone();
    edit.name = "João S.".into();
    edit.extra_info = Vec::new();
    let updated = ContactRepo::update(&store, a, created.id, &edit)
        .await
        .expect("update")
        .expect("found");
    assert_eq!(updated.name, "João S.");
    assert!(updated.extra_info.is_empty());

    let blocked = ContactRepo::set_active(&store, a, created.id, false)
        .await
        .expect("block")
        .expect("found");
    assert!(!blocked.active);
    let flags = ContactRepo::set_flags(&store, a, created.id, Some(true), Some(false))
        .await
        .expect("flags")
        .expect("found");
    assert!(flags.disable_bot && !flags.accept_audio_message);

    assert!(
        ContactRepo::delete(&store, a, created.id)
            .await
            .expect("delete")
    );
    assert_eq!(
        ContactRepo::get(&store, a, created.id).await.expect("get"),
        None
    );
    assert!(
        !ContactRepo::delete(&store, a, created.id)
            .await
            .expect("again")
    );

    let events = EventLog::read(&store, a, 0, 100).await.expect("events");
    let kinds: Vec<String> = events
        .iter()
        .map(|e| match &e.event {
            Event::ContactUpdate { action, .. } => action.clone(),
            Event::ContactDelete { contact_id } => {
                assert_eq!(*contact_id, created.id);
                "delete".into()
            }
            other => panic!("unexpected event {other:?}"),
        })
        .collect();
    assert_eq!(kinds, ["create", "update", "update", "update", "delete"]);
}

async fn a_number_is_unique_per_company_and_channel(store: Store) {
    let (a, b) = two_companies(&store).await;
    ContactRepo::create(&store, a, &input("Ana", "5511900000001"))
        .await
        .expect("first");
    let err = ContactRepo::create(&store, a, &input("Ana 2", "5511900000001"))
        .await
        .expect_err("duplicate");
    assert_eq!(err.code, ErrorCode::ERR_DUPLICATED_CONTACT);
    // Another channel or another company may hold the same number.
    let mut ig = input("Ana IG", "5511900000001");
    ig.channel = Some(ChannelKind::Instagram);
    ContactRepo::create(&store, a, &ig)
        .await
        .expect("other channel");
    ContactRepo::create(&store, b, &input("Ana B", "5511900000001"))
        .await
        .expect("other company");
    // Editing onto a taken number is the same error.
    let other = ContactRepo::create(&store, a, &input("Bia", "5511900000002"))
        .await
        .expect("second");
    let err = ContactRepo::update(&store, a, other.id, &input("Bia", "5511900000001"))
        .await
        .expect_err("duplicate on update");
    assert_eq!(err.code, ErrorCode::ERR_DUPLICATED_CONTACT);
}

async fn upsert_creates_then_updates(store: Store) {
    let (a, _) = two_companies(&store).await;
    let mut first = input("Caio", "5511900000003");
    first.email = "caio@example.com".into();
    let (created, was_new) = ContactRepo::upsert(&store, a, &first)
        .await
        .expect("upsert");
    assert!(was_new);
    let (again, was_new) = ContactRepo::upsert(&store, a, &input("Caio Lima", "5511900000003"))
        .await
        .expect("upsert again");
    assert!(!was_new);
    assert_eq!(again.id, created.id);
    assert_eq!(again.name, "Caio Lima");
    assert_eq!(
        again.email, "caio@example.com",
        "an empty e-mail keeps the stored one"
    );
    assert_eq!(
        names(&store, a, &search("lima")).await,
        ["Caio Lima"],
        "the search text follows the update"
    );
}

async fn search_is_accent_and_case_insensitive(store: Store) {
    let (a, b) = two_companies(&store).await;
    let mut joao = input("João Ação", "5511911110001");
    joao.email = "Contato@Empresa.com".into();
    ContactRepo::create(&store, a, &joao).await.expect("joão");
    ContactRepo::create(&store, a, &input("Maria", "5511911110002"))
        .await
        .expect("maria");
    ContactRepo::create(&store, b, &input("Joao de B", "5511911110003"))
        .await
        .expect("b");
    assert_eq!(names(&store, a, &search("joao")).await, ["João Ação"]);
    assert_eq!(names(&store, a, &search("JOÃO")).await, ["João Ação"]);
    assert_eq!(names(&store, a, &search("acao")).await, ["João Ação"]);
    assert_eq!(names(&store, a, &search("1110002")).await, ["Maria"]);
    assert_eq!(
        names(&store, a, &search("empresa.com")).await,
        ["João Ação"]
    );
    assert_eq!(
        names(&store, a, &search("ma")).await,
        ["Maria"],
        "short: name prefix"
    );
    assert!(names(&store, a, &search("zzz")).await.is_empty());
    // Wildcards and quotes are plain text.
    assert!(names(&store, a, &search("%%%")).await.is_empty());
    assert!(names(&store, a, &search("\"jo")).await.is_empty());
    assert_eq!(names(&store, b, &search("joao")).await, ["Joao de B"]);
}

async fn filters_by_channel_group_and_tags(store: Store) {
    let (a, b) = two_companies(&store).await;
    let ana = ContactRepo::create(&store, a, &input("Ana", "5511922220001"))
        .await
        .expect("ana");
    let mut group = input("Equipe", "120363000001@g.us");
    group.is_group = true;
    ContactRepo::create(&store, a, &group).await.expect("group");
    let mut fb = input("Facebook Fan", "9000001");
    fb.channel = Some(ChannelKind::Facebook);
    ContactRepo::create(&store, a, &fb).await.expect("fb");
    let vip = TagRepo::create(&store, a, "vip", "#fff", 0)
        .await
        .expect("tag");
    let foreign = TagRepo::create(&store, b, "foreign", "#000", 0)
        .await
        .expect("b tag");
    assert!(
        ContactRepo::set_tags(&store, a, ana.id, &[vip.id, foreign.id])
            .await
            .expect("tags")
    );
    let ana = ContactRepo::get(&store, a, ana.id)
        .await
        .expect("get")
        .expect("ana");
    assert_eq!(
        ana.tags.iter().map(|t| t.id).collect::<Vec<_>>(),
        vec![vip.id],
        "another company's tag is not linked"
    );
    let by_tag = ContactFilter {
        tag_ids: vec![vip.id],
        ..ContactFilter::default()
    };
    assert_eq!(names(&store, a, &by_tag).await, ["Ana"]);
    let groups = ContactFilter {
        is_group: Some(true),
        ..ContactFilter::default()
    };
    assert_eq!(names(&store, a, &groups).await, ["Equipe"]);
    let facebook = ContactFilter {
        channel: Some(ChannelKind::Facebook),
        ..ContactFilter::default()
    };
    assert_eq!(names(&store, a, &facebook).await, ["Facebook Fan"]);
    // B cannot tag A's contact.
    assert!(
        !ContactRepo::set_tags(&store, b, ana.id, &[foreign.id])
            .await
            .expect("b")
    );
}

async fn keyset_pages_have_no_gaps_or_repeats(store: Store) {
    let (a, b) = two_companies(&store).await;
    // Duplicate names make the id tie-breaker matter.
    for i in 0..47 {
        let name = format!("Contact {:02}", i % 20);
        ContactRepo::create(&store, a, &input(&name, &format!("55119333{i:05}")))
            .await
            .expect("created");
    }
    ContactRepo::create(&store, b, &input("Other", "5511933399999"))
        .await
        .expect("b");
    let mut seen: Vec<(String, i64)> = Vec::new();
    let mut start = PageStart::First;
    let mut pages = 0;
    loop {
        let page = ContactRepo::search(&store, a, &ContactFilter::default(), &start, 10)
            .await
            .expect("page");
        pages += 1;
        if pages == 1 {
            assert_eq!(page.count, Some(47));
        } else {
            assert_eq!(page.count, None, "count only on the first page");
        }
        seen.extend(page.items.iter().map(|c| (c.name.clone(), c.id.0)));
        match page.next_cursor {
            Some(cursor) => {
                assert!(page.has_more);
                start = PageStart::After(cursor);
            }
            None => {
                assert!(!page.has_more);
                break;
            }
        }
    }
    assert_eq!(pages, 5);
    assert_eq!(seen.len(), 47);
    let unique: HashSet<i64> = seen.iter().map(|(_, id)| *id).collect();
    assert_eq!(unique.len(), 47, "no repeats");
    let mut sorted = seen.clone();
    sorted.sort();
    assert_eq!(seen, sorted, "ordered by name then id");
    // The page-number form still works.
    let third = ContactRepo::search(
        &store,
        a,
        &ContactFilter::default(),
        &PageStart::PageNumber(3),
        10,
    )
    .await
    .expect("page 3");
    assert_eq!(
        third.items.iter().map(|c| c.id.0).collect::<Vec<_>>(),
        seen[20..30].iter().map(|(_, id)| *id).collect::<Vec<_>>()
    );
}

async fn another_company_sees_and_changes_nothing(store: Store) {
    let (a, b) = two_companies(&store).await;
    let ana = ContactRepo::create(&store, a, &input("Ana", "5511944440001"))
        .await
        .expect("ana");
    let id: ContactId = ana.id;
    assert_eq!(ContactRepo::get(&store, b, id).await.expect("get"), None);
    assert!(names(&store, b, &ContactFilter::default()).await.is_empty());
    assert!(
        ContactRepo::list_brief(&store, b, "ana", 10)
            .await
            .expect("brief")
            .is_empty()
    );
    assert_eq!(
        ContactRepo::update(&store, b, id, &input("Hacked", "5511944440009"))
            .await
            .expect("update"),
        None
    );
    assert_eq!(
        ContactRepo::set_active(&store, b, id, false)
            .await
            .expect("block"),
        None
    );
    assert_eq!(
        ContactRepo::set_flags(&store, b, id, Some(true), Some(true))
            .await
            .expect("flags"),
        None
    );
    assert!(!ContactRepo::delete(&store, b, id).await.expect("delete"));
    // B's upsert of the same number makes B's own contact.
    let (mine, created) = ContactRepo::upsert(&store, b, &input("Ana B", "5511944440001"))
        .await
        .expect("upsert");
    assert!(created);
    assert_ne!(mine.id, id);
    let still = ContactRepo::get(&store, a, id)
        .await
        .expect("get")
        .expect("still there");
    assert_eq!(still, ana);
    // A's contact cannot point at B's connection.
    let b_conn = connection(&store, b, "B line").await;
    let mut edit = input("Ana", "5511944440001");
    edit.whatsapp_id = Some(WhatsappId(b_conn));
    let edited = ContactRepo::update(&store, a, id, &edit)
        .await
        .expect("update")
        .expect("found");
    assert_eq!(edited.whatsapp_id, None);
    assert!(
        EventLog::read(&store, b, 0, 100)
            .await
            .expect("b events")
            .len()
            == 1
    );
    let _ = TagId(0);
}

/// A picture looked up is written (and announced) only when it changed: none after none, or
/// the same address again, leaves the contact and the event log as they were; the lookup's
/// time is kept either way.
async fn a_picture_is_announced_only_when_it_changed(store: Store) {
    let (a, _) = two_companies(&store).await;
    let contact = ContactRepo::create(&store, a, &input("Ana", "5511999990077"))
        .await
        .expect("created");
    let events = || async {
        EventLog::read(&store, a, 0, 100)
            .await
            .expect("events")
            .len()
    };
    let before = events().await;
    let at = chrono::Utc::now();
    let none = ContactRepo::set_picture(&store, a, contact.id, None, at)
        .await
        .expect("none after none");
    assert_eq!(none, None, "nothing changed");
    assert_eq!(events().await, before, "no event for an unchanged picture");
    let looked_up = ContactRepo::get(&store, a, contact.id)
        .await
        .expect("get")
        .expect("found");
    assert!(!looked_up.picture_due(at), "the lookup's time is kept");

    let url = "https://pictures.example/ana.jpg";
    let set = ContactRepo::set_picture(&store, a, contact.id, Some(url), at)
        .await
        .expect("set")
        .expect("changed");
    assert_eq!(set.url_picture.as_deref(), Some(url));
    assert_eq!(events().await, before + 1);
    let same = ContactRepo::set_picture(&store, a, contact.id, Some(url), at)
        .await
        .expect("same");
    assert_eq!(same, None);
    assert_eq!(events().await, before + 1);
    let cleared = ContactRepo::set_picture(&store, a, contact.id, None, at)
        .await
        .expect("cleared")
        .expect("changed");
    assert_eq!(cleared.url_picture, None);
    assert_eq!(events().await, before + 2);
}

store_tests!(
    creates_reads_updates_and_deletes_with_events,
    a_number_is_unique_per_company_and_channel,
    upsert_creates_then_updates,
    search_is_accent_and_case_insensitive,
    filters_by_channel_group_and_tags,
    keyset_pages_have_no_gaps_or_repeats,
    another_company_sees_and_changes_nothing,
    a_picture_is_announced_only_when_it_changed,
);
