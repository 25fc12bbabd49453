//! Inbound hardening on both engines: the sandbox's queue is read fairly per connection, records
//! failed attempts and prunes delivered rows (keeping undelivered ones and each phone's chat);
//! inbound failures are kept per company; data the database refuses is a validation error,
//! never an internal one.

use chatflow_core::inbox::channel::{InboundEvent, InboundMessage};
use chatflow_core::inbox::inbound::InboundFailureRepo;
use chatflow_core::inbox::model::{ConnectionStatus, MediaType, SessionUpdate};
use chatflow_core::inbox::ports::{ConnectionRepo, TagRepo};
use chatflow_core::inbox::sandbox::SandboxRepo;
use chatflow_core::{CompanyId, Error, ErrorCode, TenantScope, WhatsappId};
use chatflow_store::Store;

use crate::store_tests;
use crate::support::{connection, two_companies};

store_tests!(
    sandbox_queue_is_fair_records_failures_and_prunes,
    inbound_failures_are_kept_per_company,
    refused_data_is_a_validation_error,
);

fn message(external_id: &str, chat: &str, body: &str) -> InboundEvent {
    InboundEvent::Message(InboundMessage {
        external_id: external_id.into(),
        chat: chat.into(),
        chat_name: format!("Phone {chat}"),
        is_group: false,
        participant: None,
        from_me: false,
        body: body.into(),
        media_type: MediaType::Chat,
        media: None,
        quoted_external_id: None,
        timestamp: chrono::Utc::now(),
        aliases: Vec::new(),
        media_failed: None,
    })
}

async fn connected(store: &Store, scope: TenantScope, name: &str) -> WhatsappId {
    let id = WhatsappId(connection(store, scope, name).await);
    ConnectionRepo::set_session(
        store,
        scope,
        id,
        &SessionUpdate {
            status: ConnectionStatus::Connected,
            qrcode: String::new(),
            retries: 0,
            number: None,
            ..Default::default()
        },
    )
    .await
    .expect("connected");
    id
}

async fn push(store: &Store, scope: TenantScope, c: WhatsappId, event: &InboundEvent) -> i64 {
    SandboxRepo::push_inbound(store, scope, c, event)
        .await
        .expect("pushed")
        .expect("own connection")
}

async fn sandbox_queue_is_fair_records_failures_and_prunes(store: Store) {
    let (a, b) = two_companies(&store).await;
    let busy = connected(&store, a, "Busy").await;
    let quiet = connected(&store, b, "Quiet").await;
    let mut busy_rows = Vec::new();
    for i in 0..4 {
        busy_rows.push(push(&store, a, busy, &message(&format!("b{i}"), "5511", "x")).await);
    }
    // A NUL in the name is kept in the event but not in the chat columns (PostgreSQL stores no
    // NUL in text).
    let quiet_row = push(&store, b, quiet, &message("q0", "5522\0", "poison \0 body")).await;

    // Each connection's oldest rows: the busy backlog does not hide the quiet connection.
    let pending = SandboxRepo::undelivered(&store, 2).await.expect("pending");
    let ids: Vec<i64> = pending.iter().map(|r| r.id).collect();
    assert_eq!(ids, vec![busy_rows[0], busy_rows[1], quiet_row]);
    let InboundEvent::Message(poison) = &pending[2].event else {
        panic!("a message")
    };
    assert_eq!(poison.body, "poison \0 body", "the event is kept as sent");
    assert_eq!(pending[0].attempts, 0);
    assert!(pending[0].retry_at.is_none());

    // A failed attempt is recorded with the time of the next one.
    let retry_at = chrono::Utc::now() + chrono::Duration::seconds(30);
    SandboxRepo::mark_failed(&store, a, busy_rows[0], 1, retry_at, "database: lost\0")
        .await
        .expect("recorded");
    // Another company cannot touch the row.
    SandboxRepo::mark_failed(&store, b, busy_rows[0], 7, retry_at, "x")
        .await
        .expect("no-op");
    let pending = SandboxRepo::undelivered(&store, 1).await.expect("pending");
    assert_eq!(pending[0].id, busy_rows[0]);
    assert_eq!(pending[0].attempts, 1);
    let at = pending[0].retry_at.expect("retry time");
    assert!(
        (at - retry_at).num_milliseconds().abs() < 1000,
        "{at} {retry_at}"
    );

    // Delivered rows are pruned; undelivered ones and each phone's newest named row stay.
    for id in &busy_rows[..3] {
        SandboxRepo::mark_delivered(&store, a, &[*id])
            .await
            .expect("delivered");
    }
    let later = chrono::Utc::now() + chrono::Duration::days(1);
    let removed = SandboxRepo::prune_delivered(&store, later)
        .await
        .expect("pruned");
    // busy_rows[3] (undelivered, the phone's newest) and quiet_row stay; rows 0..3 go.
    assert_eq!(removed, 3);
    let pending = SandboxRepo::undelivered(&store, 10).await.expect("pending");
    let ids: Vec<i64> = pending.iter().map(|r| r.id).collect();
    assert_eq!(ids, vec![busy_rows[3], quiet_row]);
    SandboxRepo::mark_delivered(&store, a, &[busy_rows[3]])
        .await
        .expect("delivered");
    assert_eq!(
        SandboxRepo::prune_delivered(&store, later)
            .await
            .expect("pruned"),
        0,
        "the phone's newest row keeps its chat"
    );
    let chats = SandboxRepo::chats(&store, a, busy).await.expect("chats");
    assert_eq!(chats.len(), 1);
    assert_eq!(chats[0].name, "Phone 5511");
    // Rows delivered after the cutoff stay.
    let before = chrono::Utc::now() - chrono::Duration::days(1);
    SandboxRepo::mark_delivered(&store, b, &[quiet_row])
        .await
        .expect("delivered");
    assert_eq!(
        SandboxRepo::prune_delivered(&store, before)
            .await
            .expect("pruned"),
        0
    );
}

async fn inbound_failures_are_kept_per_company(store: Store) {
    let (a, b) = two_companies(&store).await;
    let c = WhatsappId(connection(&store, a, "Line").await);
    let event = message("x1", "5511", "poison \0 body");
    let error = Error::with_detail(ErrorCode::ERR_VALIDATION, "too\0 long");
    let id = InboundFailureRepo::set_aside(&store, a, c, &event, &error, 3)
        .await
        .expect("kept");
    let page = InboundFailureRepo::list(&store, a, 0, 20)
        .await
        .expect("listed");
    assert_eq!(page.count, 1);
    assert!(!page.has_more);
    let kept = &page.failures[0];
    assert_eq!(kept.id, id);
    assert_eq!(kept.whatsapp_id, c);
    assert_eq!(kept.event, event, "kept exactly as delivered");
    assert_eq!(kept.error, ErrorCode::ERR_VALIDATION);
    assert_eq!(kept.detail, "too long");
    assert_eq!(kept.attempts, 3);

    // Company B sees nothing and can change nothing.
    assert_eq!(
        InboundFailureRepo::list(&store, b, 0, 20)
            .await
            .expect("listed")
            .count,
        0
    );
    assert!(
        InboundFailureRepo::get(&store, b, id)
            .await
            .expect("read")
            .is_none()
    );
    assert!(
        !InboundFailureRepo::delete(&store, b, id)
            .await
            .expect("delete")
    );

    InboundFailureRepo::record_attempt(&store, a, id, &Error::internal("lost"))
        .await
        .expect("recorded");
    let again = InboundFailureRepo::get(&store, a, id)
        .await
        .expect("read")
        .expect("still there");
    assert_eq!(again.attempts, 4);
    assert_eq!(again.error, ErrorCode::ERR_INTERNAL);

    // Pages, newest first.
    let second = InboundFailureRepo::set_aside(&store, a, c, &event, &error, 1)
        .await
        .expect("kept");
    let first_page = InboundFailureRepo::list(&store, a, 0, 1)
        .await
        .expect("listed");
    assert_eq!(first_page.count, 2);
    assert!(first_page.has_more);
    assert_eq!(first_page.failures[0].id, second);
    let next = InboundFailureRepo::list(&store, a, 1, 1)
        .await
        .expect("listed");
    assert_eq!(next.failures[0].id, id);
    assert!(!next.has_more);

    assert!(
        InboundFailureRepo::delete(&store, a, id)
            .await
            .expect("delete")
    );
    assert!(
        InboundFailureRepo::get(&store, a, id)
            .await
            .expect("read")
            .is_none()
    );
}

async fn refused_data_is_a_validation_error(store: Store) {
    let (a, _) = two_companies(&store).await;
    // An integrity violation (no such company) on either engine.
    let nowhere = TenantScope::new(CompanyId(999_999));
    let error = InboundFailureRepo::set_aside(
        &store,
        nowhere,
        WhatsappId(1),
        &message("x", "1", "y"),
        &Error::internal("x"),
        1,
    )
    .await
    .expect_err("no such company");
    assert_eq!(error.code, ErrorCode::ERR_VALIDATION, "{error:?}");
    // A NUL in text: PostgreSQL refuses it (a data exception), SQLite stores it; never an
    // internal error.
    match TagRepo::create(&store, a, "vip\0tag", "#fff", 0).await {
        Ok(tag) => assert_eq!(tag.name, "vip\0tag"),
        Err(e) => assert_eq!(e.code, ErrorCode::ERR_VALIDATION, "{e:?}"),
    }
}
