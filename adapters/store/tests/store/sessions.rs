//! SessionRepo, including the atomicity of refresh-token rotation.

use chatflow_core::events::{Event, Recipients};
use chatflow_core::identity::{AllTicket, MenuMode, Profile, Theme, Toggle};
use chatflow_core::inbox::ports::EventLog;
use chatflow_core::ports::{NewUser, RefreshSession, SessionRepo, UserRepo, UserSettings};
use chatflow_core::{ErrorCode, TenantScope, UserId};
use chatflow_store::Store;
use chrono::{DateTime, Duration, TimeZone, Utc};
use uuid::Uuid;

use crate::store_tests;
use crate::support::two_companies;

store_tests!(
    create_and_find_by_token_hash,
    rotate_marks_the_old_token_and_stores_the_new,
    second_rotation_of_the_same_token_fails,
    concurrent_rotations_let_exactly_one_through,
    revoked_tokens_do_not_rotate,
    revoke_family_and_revoke_user,
    another_companys_sessions_are_out_of_reach,
    revoke_user_except_keeps_one_family,
    the_signed_in_user_needs_a_live_session,
    a_sign_in_appends_its_event_with_the_session,
);

fn t0() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 5, 9, 0, 0)
        .single()
        .expect("a valid instant")
}

async fn user(store: &Store, scope: TenantScope, email: &str) -> UserId {
    let settings = UserSettings {
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
    };
    let new = NewUser {
        name: "Session Owner".into(),
        email: email.into(),
        password_hash: "x".into(),
        profile: Profile::User,
        is_super: false,
        settings,
    };
    UserRepo::create(store, scope, &new)
        .await
        .expect("user created")
        .id
}

fn session(scope: TenantScope, user: UserId, family: Uuid, hash: &str) -> RefreshSession {
    RefreshSession {
        id: Uuid::new_v4(),
        family,
        company_id: scope.company_id(),
        user_id: user,
        token_hash: hash.into(),
        expires_at: t0() + Duration::days(7),
        used_at: None,
        revoked: false,
    }
}

async fn create_and_find_by_token_hash(store: Store) {
    let (a, _b) = two_companies(&store).await;
    let owner = user(&store, a, "owner@a.test").await;
    let s = session(a, owner, Uuid::new_v4(), "hash-1");
    SessionRepo::create(&store, a, &s, &[])
        .await
        .expect("stored");
    let found = store
        .find_by_token_hash("hash-1")
        .await
        .expect("read")
        .expect("found");
    assert_eq!(found, s);
    assert_eq!(
        store.find_by_token_hash("hash-2").await.expect("read"),
        None
    );
}

async fn rotate_marks_the_old_token_and_stores_the_new(store: Store) {
    let (a, _b) = two_companies(&store).await;
    let owner = user(&store, a, "owner@a.test").await;
    let family = Uuid::new_v4();
    let old = session(a, owner, family, "old");
    SessionRepo::create(&store, a, &old, &[])
        .await
        .expect("stored");
    let new = session(a, owner, family, "new");
    let at = t0() + Duration::minutes(20);
    assert!(store.rotate(a, old.id, &new, at).await.expect("rotated"));

    let old_now = store
        .find_by_token_hash("old")
        .await
        .expect("read")
        .expect("kept");
    assert_eq!(old_now.used_at, Some(at));
    assert!(!old_now.revoked);
    assert_eq!(
        store.find_by_token_hash("new").await.expect("read"),
        Some(new)
    );
}

async fn second_rotation_of_the_same_token_fails(store: Store) {
    let (a, _b) = two_companies(&store).await;
    let owner = user(&store, a, "owner@a.test").await;
    let family = Uuid::new_v4();
    let old = session(a, owner, family, "old");
    SessionRepo::create(&store, a, &old, &[])
        .await
        .expect("stored");
    let first = session(a, owner, family, "first");
    let second = session(a, owner, family, "second");
    assert!(
        store
            .rotate(a, old.id, &first, t0())
            .await
            .expect("rotated")
    );
    assert!(
        !store
            .rotate(a, old.id, &second, t0())
            .await
            .expect("refused, not failed")
    );
    // Nothing of the refused rotation was stored, and the first rotation's use time stands.
    assert_eq!(
        store.find_by_token_hash("second").await.expect("read"),
        None
    );
    assert_eq!(
        store
            .find_by_token_hash("old")
            .await
            .expect("read")
            .expect("kept")
            .used_at,
        Some(t0())
    );
}

async fn concurrent_rotations_let_exactly_one_through(store: Store) {
    let (a, _b) = two_companies(&store).await;
    let owner = user(&store, a, "owner@a.test").await;
    let family = Uuid::new_v4();
    let old = session(a, owner, family, "old");
    SessionRepo::create(&store, a, &old, &[])
        .await
        .expect("stored");

    let attempts: Vec<_> = (0..8)
        .map(|i| {
            let store = store.clone();
            let new = session(a, owner, family, &format!("attempt-{i}"));
            tokio::spawn(async move { store.rotate(a, old.id, &new, t0()).await })
        })
        .collect();
    let mut winners = 0;
    for attempt in attempts {
        if attempt
            .await
            .expect("task finished")
            .expect("no database error")
        {
            winners += 1;
        }
    }
    assert_eq!(winners, 1);
    let mut stored = 0;
    for i in 0..8 {
        if store
            .find_by_token_hash(&format!("attempt-{i}"))
            .await
            .expect("read")
            .is_some()
        {
            stored += 1;
        }
    }
    assert_eq!(stored, 1, "only the winning rotation stored its token");
}

async fn revoked_tokens_do_not_rotate(store: Store) {
    let (a, _b) = two_companies(&store).await;
    let owner = user(&store, a, "owner@a.test").await;
    let family = Uuid::new_v4();
    let old = session(a, owner, family, "old");
    SessionRepo::create(&store, a, &old, &[])
        .await
        .expect("stored");
    store.revoke_family(a, family).await.expect("revoked");
    let new = session(a, owner, family, "new");
    assert!(!store.rotate(a, old.id, &new, t0()).await.expect("refused"));
    assert_eq!(store.find_by_token_hash("new").await.expect("read"), None);
}

async fn revoke_family_and_revoke_user(store: Store) {
    let (a, _b) = two_companies(&store).await;
    let one = user(&store, a, "one@a.test").await;
    let two = user(&store, a, "two@a.test").await;
    let family_1 = Uuid::new_v4();
    let family_2 = Uuid::new_v4();
    for s in [
        session(a, one, family_1, "f1-a"),
        session(a, one, family_1, "f1-b"),
        session(a, one, family_2, "f2"),
        session(a, two, Uuid::new_v4(), "other-user"),
    ] {
        SessionRepo::create(&store, a, &s, &[])
            .await
            .expect("stored");
    }
    let revoked = |hash: &'static str| {
        let store = store.clone();
        async move {
            store
                .find_by_token_hash(hash)
                .await
                .expect("read")
                .expect("found")
                .revoked
        }
    };

    store.revoke_family(a, family_1).await.expect("revoked");
    assert!(revoked("f1-a").await && revoked("f1-b").await);
    assert!(!revoked("f2").await);

    store.revoke_user(a, one).await.expect("revoked");
    assert!(revoked("f2").await);
    assert!(!revoked("other-user").await);
}

async fn another_companys_sessions_are_out_of_reach(store: Store) {
    let (a, b) = two_companies(&store).await;
    let alice = user(&store, a, "alice@a.test").await;
    let family = Uuid::new_v4();
    let s = session(a, alice, family, "alice-token");
    SessionRepo::create(&store, a, &s, &[])
        .await
        .expect("stored");

    // B cannot rotate, revoke by family or revoke by user A's session.
    let stolen = RefreshSession {
        company_id: b.company_id(),
        ..session(b, alice, family, "stolen")
    };
    assert!(!store.rotate(b, s.id, &stolen, t0()).await.expect("refused"));
    store.revoke_family(b, family).await.expect("no error");
    store.revoke_user(b, alice).await.expect("no error");
    let after = store
        .find_by_token_hash("alice-token")
        .await
        .expect("read")
        .expect("found");
    assert_eq!(after.used_at, None);
    assert!(!after.revoked);
    assert_eq!(
        store.find_by_token_hash("stolen").await.expect("read"),
        None
    );

    // B cannot store a session for A's user either.
    let planted = session(b, alice, Uuid::new_v4(), "planted");
    let err = SessionRepo::create(&store, b, &planted, &[])
        .await
        .expect_err("A's user is not in B");
    assert_eq!(err.code, ErrorCode::ERR_NO_USER_FOUND);
    assert_eq!(
        store.find_by_token_hash("planted").await.expect("read"),
        None
    );

    // A session must be stored under its own company.
    let mismatched = session(a, alice, Uuid::new_v4(), "mismatched");
    let err = SessionRepo::create(&store, b, &mismatched, &[])
        .await
        .expect_err("wrong scope");
    assert_eq!(err.code, ErrorCode::ERR_INTERNAL);
}

async fn revoke_user_except_keeps_one_family(store: Store) {
    let (a, b) = two_companies(&store).await;
    let owner = user(&store, a, "owner@a.test").await;
    let (kept, ended) = (Uuid::new_v4(), Uuid::new_v4());
    for (family, hash) in [(kept, "kept"), (ended, "ended")] {
        SessionRepo::create(&store, a, &session(a, owner, family, hash), &[])
            .await
            .expect("stored");
    }
    // Another company's scope reaches nothing.
    store
        .revoke_user_except(b, owner, kept)
        .await
        .expect("no-op");
    assert!(
        !store
            .find_by_token_hash("ended")
            .await
            .expect("read")
            .expect("found")
            .revoked
    );
    store
        .revoke_user_except(a, owner, kept)
        .await
        .expect("revoked");
    let revoked = |hash: &'static str| {
        let store = store.clone();
        async move {
            store
                .find_by_token_hash(hash)
                .await
                .expect("read")
                .expect("found")
                .revoked
        }
    };
    assert!(!revoked("kept").await);
    assert!(revoked("ended").await);
}

async fn the_signed_in_user_needs_a_live_session(store: Store) {
    let (a, b) = two_companies(&store).await;
    let owner = user(&store, a, "owner@a.test").await;
    let family = Uuid::new_v4();
    SessionRepo::create(&store, a, &session(a, owner, family, "live"), &[])
        .await
        .expect("stored");
    let signed_in = store
        .get_in_session(a, owner, family)
        .await
        .expect("read")
        .expect("a live session");
    assert_eq!(signed_in.user.id, owner);
    assert!(signed_in.company_active);
    // Unknown family, another company's scope: nothing.
    assert!(
        store
            .get_in_session(a, owner, Uuid::new_v4())
            .await
            .expect("read")
            .is_none()
    );
    assert!(
        store
            .get_in_session(b, owner, family)
            .await
            .expect("read")
            .is_none()
    );
    // A revoked family: nothing.
    store.revoke_family(a, family).await.expect("revoked");
    assert!(
        store
            .get_in_session(a, owner, family)
            .await
            .expect("read")
            .is_none()
    );
}

async fn a_sign_in_appends_its_event_with_the_session(store: Store) {
    let (a, b) = two_companies(&store).await;
    let alice = user(&store, a, "alice@a.test").await;
    let family = Uuid::new_v4();
    let signed_in = |scope_user: UserId| Event::SignedIn {
        user_id: scope_user,
        session_id: family,
    };
    SessionRepo::create(
        &store,
        a,
        &session(a, alice, family, "signed-in"),
        &[signed_in(alice)],
    )
    .await
    .expect("stored");
    let logged = crate::support::logged_events(&store, a, "auth").await;
    assert_eq!(
        logged,
        vec![(
            serde_json::json!({"action": "update", "user": {"id": alice}, "sessionId": family}),
            Recipients::User(alice),
        )]
    );
    // A refused session appends nothing.
    let before = store.heads().await.expect("heads");
    SessionRepo::create(
        &store,
        b,
        &session(b, alice, Uuid::new_v4(), "planted"),
        &[signed_in(alice)],
    )
    .await
    .expect_err("A's user is not in B");
    assert_eq!(store.heads().await.expect("heads"), before);
}
