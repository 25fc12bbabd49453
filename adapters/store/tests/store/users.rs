//! UserRepo.

use chatflow_core::events::Recipients;
use chatflow_core::identity::{AllTicket, MenuMode, Profile, Theme, Toggle};
use chatflow_core::ports::{
    NewUser, PageRequest, RefreshSession, SessionRepo, UserChanges, UserRepo, UserSettings,
};
use chatflow_core::{CompanyId, ErrorCode, QueueId, TenantScope, UserId, WhatsappId};
use chatflow_store::Store;

use crate::store_tests;
use crate::support::{connection, queue, two_companies};

store_tests!(
    create_then_get_round_trips_every_field,
    defaults_are_the_specifications,
    email_is_unique_across_the_platform_ignoring_case,
    find_for_login_ignores_case_and_returns_the_hash,
    search_pages_and_counts,
    search_is_case_insensitive_and_escapes_wildcards,
    list_all_and_count,
    update_changes_only_what_is_given,
    update_to_a_taken_email_fails,
    delete_and_set_online,
    create_in_unknown_company_fails,
    another_companys_users_are_out_of_reach,
    another_companys_queues_and_connections_cannot_be_linked,
    writes_append_their_user_events_in_their_transaction,
    delete_revokes_sessions_and_appends_the_event_at_once,
);

fn settings() -> UserSettings {
    UserSettings {
        all_ticket: AllTicket::Disable,
        allow_group: false,
        all_historic: Toggle::Disabled,
        all_user_chat: Toggle::Disabled,
        user_close_pending_ticket: Toggle::Disabled,
        show_dashboard: Toggle::Disabled,
        allow_real_time: Toggle::Disabled,
        allow_connections: Toggle::Disabled,
        start_work: "00:00".into(),
        end_work: "23:59".into(),
        farewell_message: None,
        default_theme: Theme::Light,
        default_menu: MenuMode::Open,
        whatsapp_id: None,
        queue_ids: Vec::new(),
    }
}

fn new_user(name: &str, email: &str) -> NewUser {
    NewUser {
        name: name.into(),
        email: email.into(),
        password_hash: format!("hash-of-{email}"),
        profile: Profile::User,
        is_super: false,
        settings: settings(),
    }
}

async fn add(store: &Store, scope: TenantScope, name: &str, email: &str) -> UserId {
    UserRepo::create(store, scope, &new_user(name, email))
        .await
        .expect("user created")
        .id
}

async fn create_then_get_round_trips_every_field(store: Store) {
    let (a, _b) = two_companies(&store).await;
    let q1 = queue(&store, a, "Sales", "#111111", None).await;
    let q2 = queue(&store, a, "Support", "#222222", None).await;
    let wa = connection(&store, a, "Main number").await;
    let new = NewUser {
        name: "Ana Admin".into(),
        email: "ana@a.test".into(),
        password_hash: "$argon2id$v=19$fake".into(),
        profile: Profile::Admin,
        is_super: true,
        settings: UserSettings {
            all_ticket: AllTicket::Enable,
            allow_group: true,
            all_historic: Toggle::Enabled,
            all_user_chat: Toggle::Enabled,
            user_close_pending_ticket: Toggle::Enabled,
            show_dashboard: Toggle::Enabled,
            allow_real_time: Toggle::Enabled,
            allow_connections: Toggle::Enabled,
            start_work: "08:00".into(),
            end_work: "18:30".into(),
            farewell_message: Some("Até logo!".into()),
            default_theme: Theme::Dark,
            default_menu: MenuMode::Closed,
            whatsapp_id: Some(WhatsappId(wa)),
            queue_ids: vec![QueueId(q2), QueueId(q1)],
        },
    };
    let created = UserRepo::create(&store, a, &new).await.expect("created");
    assert_eq!(created.company_id, a.company_id());
    assert_eq!(created.name, "Ana Admin");
    assert_eq!(created.email, "ana@a.test");
    assert_eq!(created.profile, Profile::Admin);
    assert!(created.is_super);
    assert_eq!(created.flags.all_ticket, AllTicket::Enable);
    assert!(created.flags.allow_group);
    assert_eq!(created.flags.all_historic, Toggle::Enabled);
    assert_eq!(created.flags.all_user_chat, Toggle::Enabled);
    assert_eq!(created.flags.user_close_pending_ticket, Toggle::Enabled);
    assert_eq!(created.flags.show_dashboard, Toggle::Enabled);
    assert_eq!(created.flags.allow_real_time, Toggle::Enabled);
    assert_eq!(created.flags.allow_connections, Toggle::Enabled);
    assert_eq!(
        (created.start_work.as_str(), created.end_work.as_str()),
        ("08:00", "18:30")
    );
    assert_eq!(created.farewell_message.as_deref(), Some("Até logo!"));
    assert_eq!(created.default_theme, Theme::Dark);
    assert_eq!(created.default_menu, MenuMode::Closed);
    assert_eq!(created.whatsapp_id, Some(WhatsappId(wa)));
    assert_eq!(
        created.queue_ids,
        vec![QueueId(q1), QueueId(q2)],
        "sorted by id"
    );
    assert_eq!(created.profile_image, None);
    assert!(!created.online);
    assert_eq!(created.default_tickets_manager_width, 550);
    assert_eq!(created.created_at, created.updated_at);

    let fetched = UserRepo::get(&store, a, created.id)
        .await
        .expect("read")
        .expect("found");
    assert_eq!(fetched, created);
    assert_eq!(
        UserRepo::get(&store, a, UserId(created.id.0 + 100))
            .await
            .expect("read"),
        None
    );
}

async fn defaults_are_the_specifications(store: Store) {
    let (a, _b) = two_companies(&store).await;
    let id = add(&store, a, "Bruno", "bruno@a.test").await;
    let user = UserRepo::get(&store, a, id)
        .await
        .expect("read")
        .expect("found");
    assert_eq!(user.profile, Profile::User);
    assert!(!user.is_super);
    assert_eq!(user.flags, chatflow_core::identity::UserFlags::default());
    assert_eq!(
        (user.start_work.as_str(), user.end_work.as_str()),
        ("00:00", "23:59")
    );
    assert!(user.queue_ids.is_empty());
    assert_eq!(user.whatsapp_id, None);
}

async fn email_is_unique_across_the_platform_ignoring_case(store: Store) {
    let (a, b) = two_companies(&store).await;
    add(&store, a, "First", "same@example.com").await;
    for (scope, email) in [
        (a, "same@example.com"),
        (b, "same@example.com"),
        (b, "SAME@Example.COM"),
    ] {
        let err = UserRepo::create(&store, scope, &new_user("Second", email))
            .await
            .expect_err("the e-mail is taken");
        assert_eq!(err.code, ErrorCode::ERR_DUPLICATED_EMAIL, "{email}");
        assert_eq!(
            err.detail, None,
            "no database text in a client-facing error"
        );
    }
    assert_eq!(UserRepo::count(&store, a).await.expect("counted"), 1);
    assert_eq!(UserRepo::count(&store, b).await.expect("counted"), 0);
}

async fn find_for_login_ignores_case_and_returns_the_hash(store: Store) {
    let (_a, b) = two_companies(&store).await;
    let q = queue(&store, b, "Sales", "#123456", None).await;
    let mut user = new_user("Carla", "carla@b.test");
    user.settings.queue_ids = vec![QueueId(q)];
    let id = UserRepo::create(&store, b, &user)
        .await
        .expect("created")
        .id;
    for email in ["carla@b.test", "CARLA@B.TEST", "  Carla@b.test "] {
        let login = store
            .find_for_login(email)
            .await
            .expect("read")
            .expect("found");
        assert_eq!(login.user.id, id);
        assert_eq!(login.user.company_id, b.company_id());
        assert_eq!(login.user.queue_ids, vec![QueueId(q)]);
        assert_eq!(login.password_hash, "hash-of-carla@b.test");
    }
    assert!(
        store
            .find_for_login("nobody@b.test")
            .await
            .expect("read")
            .is_none()
    );
    assert!(
        store
            .find_for_login("carla@b")
            .await
            .expect("read")
            .is_none()
    );
}

async fn search_pages_and_counts(store: Store) {
    let (a, _b) = two_companies(&store).await;
    for i in 0..5 {
        add(
            &store,
            a,
            &format!("Agent {i}"),
            &format!("agent{i}@a.test"),
        )
        .await;
    }
    add(&store, a, "Zed", "zed@a.test").await;

    let page1 = store
        .search(
            a,
            "agent",
            PageRequest {
                page_number: 1,
                page_size: 2,
            },
        )
        .await
        .expect("searched");
    assert_eq!(page1.count, 5);
    assert!(page1.has_more);
    assert_eq!(
        page1
            .items
            .iter()
            .map(|u| u.name.as_str())
            .collect::<Vec<_>>(),
        ["Agent 0", "Agent 1"]
    );

    let page3 = store
        .search(
            a,
            "agent",
            PageRequest {
                page_number: 3,
                page_size: 2,
            },
        )
        .await
        .expect("searched");
    assert_eq!(page3.count, 5);
    assert!(!page3.has_more);
    assert_eq!(
        page3
            .items
            .iter()
            .map(|u| u.name.as_str())
            .collect::<Vec<_>>(),
        ["Agent 4"]
    );

    let beyond = store
        .search(
            a,
            "agent",
            PageRequest {
                page_number: 9,
                page_size: 2,
            },
        )
        .await
        .expect("searched");
    assert!(beyond.items.is_empty());
    assert!(!beyond.has_more);

    let everyone = store
        .search(
            a,
            "",
            PageRequest {
                page_number: 1,
                page_size: 20,
            },
        )
        .await
        .expect("searched");
    assert_eq!(everyone.count, 6);
    assert!(!everyone.has_more);
}

async fn search_is_case_insensitive_and_escapes_wildcards(store: Store) {
    let (a, _b) = two_companies(&store).await;
    add(&store, a, "Maria Silva", "maria@a.test").await;
    add(&store, a, "100% Real", "real@a.test").await;
    add(&store, a, "under_score", "under@a.test").await;
    add(&store, a, "underXscore", "x@a.test").await;
    let page = PageRequest {
        page_number: 1,
        page_size: 20,
    };
    let names = |p: chatflow_core::ports::Page<chatflow_core::identity::User>| {
        p.items.into_iter().map(|u| u.name).collect::<Vec<_>>()
    };

    assert_eq!(
        names(store.search(a, "MARIA", page).await.expect("searched")),
        ["Maria Silva"]
    );
    assert_eq!(
        names(store.search(a, "silva", page).await.expect("searched")),
        ["Maria Silva"]
    );
    // Matches on the e-mail too.
    assert_eq!(
        names(store.search(a, "REAL@A", page).await.expect("searched")),
        ["100% Real"]
    );
    // % and _ are literal characters, not wildcards.
    assert_eq!(
        names(store.search(a, "%", page).await.expect("searched")),
        ["100% Real"]
    );
    assert_eq!(
        names(store.search(a, "under_", page).await.expect("searched")),
        ["under_score"]
    );
    // A quote is data, not SQL.
    assert!(
        names(
            store
                .search(a, "' OR '1'='1", page)
                .await
                .expect("searched")
        )
        .is_empty()
    );
}

async fn list_all_and_count(store: Store) {
    let (a, b) = two_companies(&store).await;
    let q = queue(&store, a, "Sales", "#abcdef", None).await;
    let mut with_queue = new_user("beto", "beto@a.test");
    with_queue.settings.queue_ids = vec![QueueId(q)];
    UserRepo::create(&store, a, &with_queue)
        .await
        .expect("created");
    add(&store, a, "Alice", "alice@a.test").await;
    add(&store, b, "Bob", "bob@b.test").await;

    let all = store.list_all(a).await.expect("listed");
    assert_eq!(
        all.iter().map(|u| u.name.as_str()).collect::<Vec<_>>(),
        ["Alice", "beto"]
    );
    assert_eq!(all[1].queue_ids, vec![QueueId(q)]);
    assert!(all[0].queue_ids.is_empty());
    assert_eq!(UserRepo::count(&store, a).await.expect("counted"), 2);
    assert_eq!(UserRepo::count(&store, b).await.expect("counted"), 1);
}

async fn update_changes_only_what_is_given(store: Store) {
    let (a, _b) = two_companies(&store).await;
    let q1 = queue(&store, a, "Sales", "#111111", None).await;
    let q2 = queue(&store, a, "Support", "#222222", None).await;
    let wa = connection(&store, a, "Main").await;
    let mut new = new_user("Dora", "dora@a.test");
    new.settings.queue_ids = vec![QueueId(q1)];
    new.settings.farewell_message = Some("Tchau".into());
    let before = UserRepo::create(&store, a, &new).await.expect("created");

    // Name only.
    let renamed = store
        .update(
            a,
            before.id,
            &UserChanges {
                name: Some("Dora Lima".into()),
                ..UserChanges::default()
            },
        )
        .await
        .expect("updated")
        .expect("found");
    assert_eq!(renamed.name, "Dora Lima");
    assert_eq!(renamed.email, before.email);
    assert_eq!(renamed.queue_ids, vec![QueueId(q1)]);
    assert_eq!(renamed.farewell_message.as_deref(), Some("Tchau"));
    assert!(renamed.updated_at >= before.updated_at);
    assert_eq!(renamed.created_at, before.created_at);

    // Settings replace the queue links, the default connection and the farewell message.
    let mut changed = settings();
    changed.queue_ids = vec![QueueId(q2)];
    changed.whatsapp_id = Some(WhatsappId(wa));
    changed.show_dashboard = Toggle::Enabled;
    changed.default_theme = Theme::Dark;
    let resettled = store
        .update(
            a,
            before.id,
            &UserChanges {
                profile: Some(Profile::Admin),
                email: Some("dora.lima@a.test".into()),
                password_hash: Some("new-hash".into()),
                settings: Some(changed),
                profile_image: Some(Some("avatar.png".into())),
                default_tickets_manager_width: Some(620),
                ..UserChanges::default()
            },
        )
        .await
        .expect("updated")
        .expect("found");
    assert_eq!(resettled.profile, Profile::Admin);
    assert_eq!(resettled.email, "dora.lima@a.test");
    assert_eq!(resettled.queue_ids, vec![QueueId(q2)]);
    assert_eq!(resettled.whatsapp_id, Some(WhatsappId(wa)));
    assert_eq!(resettled.flags.show_dashboard, Toggle::Enabled);
    assert_eq!(resettled.default_theme, Theme::Dark);
    assert_eq!(resettled.farewell_message, None);
    assert_eq!(resettled.profile_image.as_deref(), Some("avatar.png"));
    assert_eq!(resettled.default_tickets_manager_width, 620);
    let login = store
        .find_for_login("dora.lima@a.test")
        .await
        .expect("read")
        .expect("found");
    assert_eq!(login.password_hash, "new-hash");

    // Some(None) clears the avatar; an empty change set changes nothing but the stamp.
    let cleared = store
        .update(
            a,
            before.id,
            &UserChanges {
                profile_image: Some(None),
                ..UserChanges::default()
            },
        )
        .await
        .expect("updated")
        .expect("found");
    assert_eq!(cleared.profile_image, None);
    let untouched = store
        .update(a, before.id, &UserChanges::default())
        .await
        .expect("updated")
        .expect("found");
    assert_eq!(untouched.name, "Dora Lima");
    assert_eq!(untouched.queue_ids, vec![QueueId(q2)]);

    // An unknown user is None.
    assert_eq!(
        store
            .update(a, UserId(9999), &UserChanges::default())
            .await
            .expect("no error"),
        None
    );
}

async fn update_to_a_taken_email_fails(store: Store) {
    let (a, b) = two_companies(&store).await;
    add(&store, b, "Taken", "taken@b.test").await;
    let id = add(&store, a, "Eva", "eva@a.test").await;
    let err = store
        .update(
            a,
            id,
            &UserChanges {
                email: Some("TAKEN@b.test".into()),
                ..UserChanges::default()
            },
        )
        .await
        .expect_err("the e-mail is taken");
    assert_eq!(err.code, ErrorCode::ERR_DUPLICATED_EMAIL);
    let eva = UserRepo::get(&store, a, id)
        .await
        .expect("read")
        .expect("found");
    assert_eq!(eva.email, "eva@a.test");
}

async fn delete_and_set_online(store: Store) {
    let (a, _b) = two_companies(&store).await;
    let id = add(&store, a, "Fabio", "fabio@a.test").await;
    store.set_online(a, id, true).await.expect("set");
    assert!(
        UserRepo::get(&store, a, id)
            .await
            .expect("read")
            .expect("found")
            .online
    );
    store.set_online(a, id, false).await.expect("set");
    assert!(
        !UserRepo::get(&store, a, id)
            .await
            .expect("read")
            .expect("found")
            .online
    );

    assert!(store.delete(a, id).await.expect("deleted"));
    assert!(!store.delete(a, id).await.expect("already gone"));
    assert_eq!(UserRepo::get(&store, a, id).await.expect("read"), None);
    assert!(
        store
            .find_for_login("fabio@a.test")
            .await
            .expect("read")
            .is_none()
    );
    // The e-mail is free again.
    add(&store, a, "Fabio again", "fabio@a.test").await;
}

async fn create_in_unknown_company_fails(store: Store) {
    let err = UserRepo::create(
        &store,
        TenantScope::new(CompanyId(31337)),
        &new_user("Ghost", "ghost@x.test"),
    )
    .await
    .expect_err("no such company");
    assert_eq!(err.code, ErrorCode::ERR_NO_COMPANY_FOUND);
}

async fn another_companys_users_are_out_of_reach(store: Store) {
    let (a, b) = two_companies(&store).await;
    let alice = add(&store, a, "Alice", "alice@a.test").await;
    add(&store, b, "Bob", "bob@b.test").await;

    // Company B's scope can neither read, change nor delete A's user.
    assert_eq!(UserRepo::get(&store, b, alice).await.expect("read"), None);
    let page = store
        .search(
            b,
            "alice",
            PageRequest {
                page_number: 1,
                page_size: 20,
            },
        )
        .await
        .expect("searched");
    assert_eq!(page.count, 0);
    assert!(page.items.is_empty());
    assert!(
        store
            .list_all(b)
            .await
            .expect("listed")
            .iter()
            .all(|u| u.company_id == b.company_id())
    );
    let changed = store
        .update(
            b,
            alice,
            &UserChanges {
                name: Some("Hijacked".into()),
                password_hash: Some("attacker".into()),
                ..UserChanges::default()
            },
        )
        .await
        .expect("no error");
    assert_eq!(changed, None);
    store.set_online(b, alice, true).await.expect("no error");
    assert!(!store.delete(b, alice).await.expect("no error"));

    let still = UserRepo::get(&store, a, alice)
        .await
        .expect("read")
        .expect("still there");
    assert_eq!(still.name, "Alice");
    assert!(!still.online);
    let login = store
        .find_for_login("alice@a.test")
        .await
        .expect("read")
        .expect("found");
    assert_eq!(login.password_hash, "hash-of-alice@a.test");
}

async fn another_companys_queues_and_connections_cannot_be_linked(store: Store) {
    let (a, b) = two_companies(&store).await;
    let own_queue = queue(&store, a, "Own", "#010101", None).await;
    let foreign_queue = queue(&store, b, "Foreign", "#020202", None).await;
    let foreign_connection = connection(&store, b, "B's number").await;

    let mut new = new_user("Hugo", "hugo@a.test");
    new.settings.queue_ids = vec![QueueId(own_queue), QueueId(foreign_queue)];
    new.settings.whatsapp_id = Some(WhatsappId(foreign_connection));
    let created = UserRepo::create(&store, a, &new).await.expect("created");
    assert_eq!(created.queue_ids, vec![QueueId(own_queue)]);
    assert_eq!(created.whatsapp_id, None);

    let mut changed = settings();
    changed.queue_ids = vec![QueueId(foreign_queue)];
    changed.whatsapp_id = Some(WhatsappId(foreign_connection));
    let updated = store
        .update(
            a,
            created.id,
            &UserChanges {
                settings: Some(changed),
                ..UserChanges::default()
            },
        )
        .await
        .expect("updated")
        .expect("found");
    assert!(updated.queue_ids.is_empty());
    assert_eq!(updated.whatsapp_id, None);
}

/// The company's user events as (action, user id), in order.
async fn user_events(store: &Store, scope: TenantScope) -> Vec<(String, i64)> {
    crate::support::logged_events(store, scope, "user")
        .await
        .into_iter()
        .map(|(payload, recipients)| {
            assert_eq!(recipients, Recipients::Company);
            let id = payload["user"]["id"]
                .as_i64()
                .or_else(|| payload["userId"].as_i64())
                .expect("a user id");
            (payload["action"].as_str().unwrap_or("").to_owned(), id)
        })
        .collect()
}

async fn writes_append_their_user_events_in_their_transaction(store: Store) {
    let (a, b) = two_companies(&store).await;
    let id = add(&store, a, "Ana", "ana@a.test").await;
    let renamed = UserChanges {
        name: Some("Ana Maria".into()),
        ..UserChanges::default()
    };
    UserRepo::update(&store, a, id, &renamed)
        .await
        .expect("updated")
        .expect("found");
    for quiet in [
        UserChanges {
            default_tickets_manager_width: Some(600),
            ..UserChanges::default()
        },
        UserChanges {
            password_hash: Some("another-hash".into()),
            ..UserChanges::default()
        },
    ] {
        UserRepo::update(&store, a, id, &quiet)
            .await
            .expect("updated")
            .expect("found");
    }
    store.set_online(a, id, true).await.expect("set");
    let logged = crate::support::logged_events(&store, a, "user").await;
    assert_eq!(
        logged.len(),
        3,
        "the panel width is not announced: {logged:?}"
    );
    assert_eq!(logged[0].0["action"], "create");
    assert_eq!(logged[1].0["user"]["name"], "Ana Maria");
    assert_eq!(logged[2].0["user"]["online"], true);
    assert_eq!(
        logged[2].0["user"],
        serde_json::json!({
            "id": id, "name": "Ana Maria", "profile": "user", "online": true,
            "profileImage": null,
        }),
        "only the colleague summary"
    );
    // Writes that find nothing append nothing, in either company.
    store.set_online(b, id, false).await.expect("no error");
    assert!(
        UserRepo::update(&store, b, id, &renamed)
            .await
            .expect("no error")
            .is_none()
    );
    assert!(user_events(&store, b).await.is_empty());
    assert_eq!(user_events(&store, a).await.len(), 3);
    // A refused create appends nothing either.
    UserRepo::create(&store, a, &new_user("Dup", "ANA@a.test"))
        .await
        .expect_err("a taken e-mail");
    assert_eq!(user_events(&store, a).await.len(), 3);
}

async fn delete_revokes_sessions_and_appends_the_event_at_once(store: Store) {
    let (a, b) = two_companies(&store).await;
    let id = add(&store, a, "Ana", "ana@a.test").await;
    let family = uuid::Uuid::new_v4();
    SessionRepo::create(
        &store,
        a,
        &RefreshSession {
            id: uuid::Uuid::new_v4(),
            family,
            company_id: a.company_id(),
            user_id: id,
            token_hash: "ana-token".into(),
            expires_at: chrono::Utc::now() + chrono::Duration::days(1),
            used_at: None,
            revoked: false,
        },
        &[],
    )
    .await
    .expect("session stored");
    assert!(!UserRepo::delete(&store, b, id).await.expect("no error"));
    assert!(
        store
            .find_by_token_hash("ana-token")
            .await
            .expect("reads")
            .is_some_and(|s| !s.revoked),
        "another company's delete touches nothing"
    );
    assert_eq!(user_events(&store, a).await.len(), 1, "only the create");
    assert!(UserRepo::delete(&store, a, id).await.expect("deleted"));
    assert!(
        store
            .find_by_token_hash("ana-token")
            .await
            .expect("reads")
            .is_none_or(|s| s.revoked),
        "the user's sessions are gone"
    );
    assert_eq!(
        user_events(&store, a).await,
        vec![("create".to_owned(), id.0), ("delete".to_owned(), id.0)]
    );
    assert!(!UserRepo::delete(&store, a, id).await.expect("no error"));
    assert_eq!(
        user_events(&store, a).await.len(),
        2,
        "a second delete appends nothing"
    );
}
