//! ConnectionRepo and SandboxRepo: fields round-trip, the default flag, queues, session
//! changes (with the pair code, the reason and until when), the events each write appends,
//! pairing a sandbox connection by QR code and by pair code, and company isolation.

use chatflow_core::events::Event;
use chatflow_core::flow_ports::FlowRepo;
use chatflow_core::inbox::channel::{InboundEvent, OutboundContent};
use chatflow_core::inbox::model::{
    ConnectionInput, ConnectionStatus, ProviderKind, SessionReason, SessionUpdate,
};
use chatflow_core::inbox::ports::{ConnectionRepo, EventLog};
use chatflow_core::inbox::sandbox::{SandboxChange, SandboxRepo};
use chatflow_core::ports::ChannelKind;
use chatflow_core::queue::default_schedules;
use chatflow_core::{QueueId, TenantScope};
use chatflow_store::Store;
use chrono::NaiveDate;

use crate::store_tests;
use crate::support::{queue, two_companies};

store_tests!(
    connections_round_trip_with_queues_and_events,
    routing_fields_round_trip_and_flows_stay_in_the_company,
    one_default_moves_between_connections,
    sessions_and_tokens_are_recorded,
    session_details_are_kept_while_they_apply,
    connections_of_another_company_are_invisible,
    sandbox_pairing_inbound_and_outbound,
    sandbox_pairing_by_pair_code,
    sandbox_rows_of_another_company_are_invisible,
    sandbox_lost_messages_stay_in_the_phones_history,
);

fn input(name: &str) -> ConnectionInput {
    ConnectionInput {
        name: name.into(),
        provider: Some(ProviderKind::Sandbox),
        channel: Some(ChannelKind::Whatsapp),
        ..ConnectionInput::default()
    }
}

async fn events(store: &Store, scope: TenantScope) -> Vec<Event> {
    EventLog::read(store, scope, 0, 1000)
        .await
        .expect("events read")
        .into_iter()
        .map(|e| e.event)
        .collect()
}

async fn connections_round_trip_with_queues_and_events(store: Store) {
    let (a, _) = two_companies(&store).await;
    let sales = QueueId(queue(&store, a, "Sales", "#ff0000", None).await);
    let support = QueueId(queue(&store, a, "Support", "#00ff00", None).await);
    let full = ConnectionInput {
        greeting_message: "Hello".into(),
        rating_message: "Rate us".into(),
        group_as_ticket: true,
        allow_group: true,
        time_send_queue: 5,
        send_id_queue: Some(support),
        expires_ticket_nps: 7,
        queue_ids: vec![sales, support],
        ..input("Main line")
    };
    let created = ConnectionRepo::create(&store, a, &full, "tok-1", &[])
        .await
        .expect("created");
    assert_eq!(created.name, "Main line");
    assert_eq!(created.company_id, a.company_id());
    assert_eq!(created.provider, ProviderKind::Sandbox);
    assert_eq!(created.status, ConnectionStatus::Disconnected);
    assert_eq!(created.token, "tok-1");
    assert!(created.group_as_ticket && created.allow_group);
    assert_eq!(created.send_id_queue, Some(support));
    assert_eq!(created.expires_ticket_nps, 7);
    assert_eq!(created.max_use_bot_queues, 3);
    assert_eq!(created.queue_ids, vec![sales, support]);
    assert_eq!(created.queues[0].name, "Sales");

    let read = ConnectionRepo::get(&store, a, created.id)
        .await
        .expect("read")
        .expect("found");
    assert_eq!(read, created);
    assert_eq!(ConnectionRepo::count(&store, a).await.expect("count"), 1);

    let changed = ConnectionRepo::update(
        &store,
        a,
        created.id,
        &ConnectionInput {
            queue_ids: vec![support],
            ..input("Renamed")
        },
    )
    .await
    .expect("updated")
    .expect("found");
    assert_eq!(changed.name, "Renamed");
    assert_eq!(changed.queue_ids, vec![support]);
    assert_eq!(changed.send_id_queue, None);
    assert!(!changed.group_as_ticket);

    assert!(
        ConnectionRepo::delete(&store, a, created.id)
            .await
            .expect("deleted")
    );
    assert!(
        ConnectionRepo::get(&store, a, created.id)
            .await
            .expect("read")
            .is_none()
    );

    let log = events(&store, a).await;
    assert_eq!(log.len(), 3, "{log:?}");
    assert!(matches!(&log[0], Event::WhatsappUpdate { whatsapp } if whatsapp.name == "Main line"));
    assert!(matches!(&log[1], Event::WhatsappUpdate { whatsapp } if whatsapp.name == "Renamed"));
    assert!(
        matches!(&log[2], Event::WhatsappDelete { whatsapp_id } if *whatsapp_id == created.id.0)
    );
}

async fn routing_fields_round_trip_and_flows_stay_in_the_company(store: Store) {
    let (a, b) = two_companies(&store).await;
    let welcome = FlowRepo::create(&store, a, "Boas-vindas", None)
        .await
        .expect("flow a");
    let fallback = FlowRepo::create(&store, a, "Sem frase", None)
        .await
        .expect("flow a 2");
    let foreign = FlowRepo::create(&store, b, "De B", None)
        .await
        .expect("flow b");
    let mut hours = default_schedules();
    hours[6].start_time_a = String::new();
    hours[6].end_time_a = String::new();
    let day = |d: u32| NaiveDate::from_ymd_opt(2026, 12, d);
    let full = ConnectionInput {
        flow_id_welcome: Some(welcome.id),
        flow_id_not_phrase: Some(fallback.id),
        collective_vacation_start: day(24),
        collective_vacation_end: day(31),
        collective_vacation_message: "Férias coletivas".into(),
        schedules: hours.clone(),
        time_inactive_message: 15,
        inactive_message: "Ainda está aí?".into(),
        when_expires_ticket: 1,
        ..input("Main line")
    };
    let created = ConnectionRepo::create(&store, a, &full, "tok-1", &[])
        .await
        .expect("created");
    assert_eq!(created.flow_id_welcome, Some(welcome.id));
    assert_eq!(created.flow_id_not_phrase, Some(fallback.id));
    assert_eq!(created.collective_vacation_start, day(24));
    assert_eq!(created.collective_vacation_end, day(31));
    assert_eq!(created.collective_vacation_message, "Férias coletivas");
    assert_eq!(created.schedules, hours);
    assert_eq!(created.time_inactive_message, 15);
    assert_eq!(created.inactive_message, "Ainda está aí?");
    assert_eq!(created.when_expires_ticket, 1);
    let read = ConnectionRepo::get(&store, a, created.id)
        .await
        .expect("read")
        .expect("found");
    assert_eq!(read, created);

    // A flow of company B is never stored on A's connection, whatever the caller passes.
    let changed = ConnectionRepo::update(
        &store,
        a,
        created.id,
        &ConnectionInput {
            flow_id_welcome: Some(foreign.id),
            flow_id_not_phrase: Some(fallback.id),
            ..input("Main line")
        },
    )
    .await
    .expect("updated")
    .expect("found");
    assert_eq!(changed.flow_id_welcome, None);
    assert_eq!(changed.flow_id_not_phrase, Some(fallback.id));
    assert_eq!(changed.collective_vacation_start, None);
    assert_eq!(changed.collective_vacation_end, None);
    assert!(changed.schedules.is_empty());
    assert_eq!(changed.time_inactive_message, 0);

    let other = ConnectionRepo::create(
        &store,
        a,
        &ConnectionInput {
            flow_id_welcome: Some(foreign.id),
            ..input("Second")
        },
        "tok-2",
        &[],
    )
    .await
    .expect("created");
    assert_eq!(other.flow_id_welcome, None);
}

async fn one_default_moves_between_connections(store: Store) {
    let (a, _) = two_companies(&store).await;
    let first = ConnectionRepo::create(
        &store,
        a,
        &ConnectionInput {
            is_default: true,
            ..input("First")
        },
        "t1",
        &[],
    )
    .await
    .expect("first");
    assert!(first.is_default);
    let second = ConnectionRepo::create(
        &store,
        a,
        &ConnectionInput {
            is_default: true,
            ..input("Second")
        },
        "t2",
        &[],
    )
    .await
    .expect("second");
    let defaults = |list: Vec<chatflow_core::inbox::model::Connection>| {
        list.into_iter()
            .filter(|c| c.is_default)
            .map(|c| c.id)
            .collect::<Vec<_>>()
    };
    assert_eq!(
        defaults(ConnectionRepo::list(&store, a).await.expect("list")),
        vec![second.id]
    );
    // The second create announced both rows.
    let log = events(&store, a).await;
    assert_eq!(log.len(), 3);

    assert!(
        ConnectionRepo::set_default(&store, a, first.id)
            .await
            .expect("moved")
    );
    assert_eq!(
        defaults(ConnectionRepo::list(&store, a).await.expect("list")),
        vec![first.id]
    );

    // Updating with the flag moves it too.
    ConnectionRepo::update(
        &store,
        a,
        second.id,
        &ConnectionInput {
            is_default: true,
            ..input("Second")
        },
    )
    .await
    .expect("updated");
    assert_eq!(
        defaults(ConnectionRepo::list(&store, a).await.expect("list")),
        vec![second.id]
    );
}

async fn sessions_and_tokens_are_recorded(store: Store) {
    let (a, _) = two_companies(&store).await;
    let c = ConnectionRepo::create(&store, a, &input("Phone"), "t1", &[])
        .await
        .expect("created");
    let qr = SessionUpdate {
        status: ConnectionStatus::Qrcode,
        qrcode: "data:image/svg+xml;base64,AAA".into(),
        retries: 1,
        number: None,
        ..Default::default()
    };
    let after = ConnectionRepo::set_session(&store, a, c.id, &qr)
        .await
        .expect("set")
        .expect("found");
    assert_eq!(after.status, ConnectionStatus::Qrcode);
    assert_eq!(after.qrcode, qr.qrcode);
    assert_eq!(after.retries, 1);
    let connected = SessionUpdate {
        status: ConnectionStatus::Connected,
        qrcode: String::new(),
        retries: 0,
        number: Some("5500000000".into()),
        ..Default::default()
    };
    let after = ConnectionRepo::set_session(&store, a, c.id, &connected)
        .await
        .expect("set")
        .expect("found");
    assert_eq!(after.number, "5500000000");
    assert!(after.qrcode.is_empty());
    // A later update without a number keeps it.
    let after = ConnectionRepo::set_session(
        &store,
        a,
        c.id,
        &SessionUpdate {
            status: ConnectionStatus::Disconnected,
            number: None,
            ..connected
        },
    )
    .await
    .expect("set")
    .expect("found");
    assert_eq!(after.number, "5500000000");

    assert!(
        ConnectionRepo::set_token(&store, a, c.id, "t2")
            .await
            .expect("token")
    );
    let read = ConnectionRepo::get(&store, a, c.id)
        .await
        .expect("read")
        .expect("found");
    assert_eq!(read.token, "t2");

    let log = events(&store, a).await;
    let sessions = log
        .iter()
        .filter(|e| matches!(e, Event::WhatsappSession { .. }))
        .count();
    assert_eq!(sessions, 3);
    assert!(
        matches!(log.last(), Some(Event::WhatsappUpdate { whatsapp }) if whatsapp.token == "t2")
    );

    let all = ConnectionRepo::list_all_platform(&store)
        .await
        .expect("all");
    assert!(all.iter().any(|x| x.id == c.id));
}

async fn session_details_are_kept_while_they_apply(store: Store) {
    let (a, b) = two_companies(&store).await;
    let c = ConnectionRepo::create(&store, a, &input("Phone"), "t1", &[])
        .await
        .expect("created");
    let set = |update: SessionUpdate| {
        let store = store.clone();
        async move {
            ConnectionRepo::set_session(&store, a, c.id, &update)
                .await
                .expect("set")
                .expect("found")
        }
    };
    // Linking by phone number: the code is stored, and stays while the session goes on
    // PAIRING.
    let pairing = set(SessionUpdate {
        status: ConnectionStatus::Pairing,
        pairing_code: Some("ABCD2345".into()),
        ..Default::default()
    })
    .await;
    assert_eq!(pairing.pairing_code.as_deref(), Some("ABCD2345"));
    let again = set(SessionUpdate {
        status: ConnectionStatus::Pairing,
        ..Default::default()
    })
    .await;
    assert_eq!(again.pairing_code.as_deref(), Some("ABCD2345"));
    // The event carries it, and a read finds it.
    let last = events(&store, a).await.pop();
    assert!(
        matches!(&last, Some(Event::WhatsappSession { session }) if session.pairing_code.as_deref() == Some("ABCD2345")),
        "{last:?}"
    );
    // CONNECTED clears it.
    let connected = set(SessionUpdate {
        status: ConnectionStatus::Connected,
        number: Some("5511988887777".into()),
        ..Default::default()
    })
    .await;
    assert_eq!(connected.pairing_code, None);
    assert_eq!(connected.number, "5511988887777");

    // A ban is stored with its end (as JSON text, read back as the reason), and kept while the
    // status is reported again.
    let until = chrono::DateTime::parse_from_rfc3339("2031-05-06T07:08:09Z")
        .expect("a time")
        .to_utc();
    let banned = set(SessionUpdate {
        status: ConnectionStatus::Disconnected,
        reason: Some(SessionReason::TemporaryBan { code: 102 }),
        until: Some(until),
        ..Default::default()
    })
    .await;
    assert_eq!(
        banned.session_reason,
        Some(SessionReason::TemporaryBan { code: 102 })
    );
    assert_eq!(banned.session_until, Some(until));
    let kept = set(SessionUpdate {
        status: ConnectionStatus::Disconnected,
        ..Default::default()
    })
    .await;
    assert_eq!(kept.session_reason, banned.session_reason);
    assert_eq!(kept.session_until, Some(until));
    let read = ConnectionRepo::get(&store, a, c.id)
        .await
        .expect("read")
        .expect("found");
    assert_eq!(read.session_reason, banned.session_reason);
    assert_eq!(read.session_until, Some(until));
    // Another status without a reason clears both.
    let opening = set(SessionUpdate {
        status: ConnectionStatus::Opening,
        ..Default::default()
    })
    .await;
    assert_eq!(opening.session_reason, None);
    assert_eq!(opening.session_until, None);
    // A reason with a message round-trips whole.
    let refused = SessionReason::PairCodeError {
        throttled: true,
        message: "wait «1 min»".into(),
    };
    let failed = set(SessionUpdate {
        status: ConnectionStatus::Qrcode,
        reason: Some(refused.clone()),
        ..Default::default()
    })
    .await;
    assert_eq!(failed.session_reason, Some(refused.clone()));
    let listed = ConnectionRepo::list(&store, a).await.expect("list");
    assert_eq!(listed[0].session_reason, Some(refused));
    // Another company's update touches nothing.
    assert!(
        ConnectionRepo::set_session(
            &store,
            b,
            c.id,
            &SessionUpdate {
                status: ConnectionStatus::Connected,
                ..Default::default()
            }
        )
        .await
        .expect("session")
        .is_none()
    );
    let unchanged = ConnectionRepo::get(&store, a, c.id)
        .await
        .expect("read")
        .expect("found");
    assert_eq!(unchanged.status, ConnectionStatus::Qrcode);
    assert!(unchanged.session_reason.is_some());
}

async fn connections_of_another_company_are_invisible(store: Store) {
    let (a, b) = two_companies(&store).await;
    let b_queue = QueueId(queue(&store, b, "B's", "#123456", None).await);
    let c = ConnectionRepo::create(&store, a, &input("A's"), "ta", &[])
        .await
        .expect("created");
    assert!(
        ConnectionRepo::list(&store, b)
            .await
            .expect("list")
            .is_empty()
    );
    assert!(
        ConnectionRepo::get(&store, b, c.id)
            .await
            .expect("get")
            .is_none()
    );
    assert_eq!(ConnectionRepo::count(&store, b).await.expect("count"), 0);
    assert!(
        ConnectionRepo::update(&store, b, c.id, &input("Stolen"))
            .await
            .expect("update")
            .is_none()
    );
    assert!(
        !ConnectionRepo::set_token(&store, b, c.id, "x")
            .await
            .expect("token")
    );
    assert!(
        !ConnectionRepo::set_default(&store, b, c.id)
            .await
            .expect("default")
    );
    let update = SessionUpdate {
        status: ConnectionStatus::Connected,
        qrcode: String::new(),
        retries: 0,
        number: None,
        ..Default::default()
    };
    assert!(
        ConnectionRepo::set_session(&store, b, c.id, &update)
            .await
            .expect("session")
            .is_none()
    );
    assert!(
        !ConnectionRepo::delete(&store, b, c.id)
            .await
            .expect("delete")
    );
    // Another company's queue is not linked.
    let linked = ConnectionRepo::update(
        &store,
        a,
        c.id,
        &ConnectionInput {
            queue_ids: vec![b_queue],
            send_id_queue: Some(b_queue),
            ..input("A's")
        },
    )
    .await
    .expect("update")
    .expect("found");
    assert!(linked.queue_ids.is_empty());
    assert_eq!(linked.send_id_queue, None);
    let kept = ConnectionRepo::get(&store, a, c.id)
        .await
        .expect("get")
        .expect("found");
    assert_eq!(kept.name, "A's");
    assert_eq!(kept.status, ConnectionStatus::Disconnected);
    assert!(events(&store, b).await.is_empty());
}

fn text(external_id: &str, body: &str) -> InboundEvent {
    InboundEvent::Message(chatflow_core::inbox::channel::InboundMessage {
        external_id: external_id.into(),
        chat: "5511999990000".into(),
        chat_name: "Ana".into(),
        is_group: false,
        participant: None,
        from_me: false,
        body: body.into(),
        media_type: chatflow_core::inbox::model::MediaType::Chat,
        media: None,
        quoted_external_id: None,
        timestamp: chrono::Utc::now(),
        aliases: Vec::new(),
        media_failed: None,
    })
}

async fn sandbox_pairing_inbound_and_outbound(store: Store) {
    let (a, b) = two_companies(&store).await;
    let c = ConnectionRepo::create(&store, a, &input("Sandbox"), "t", &[])
        .await
        .expect("created");
    assert!(
        SandboxRepo::pairing(&store, a, c.id)
            .await
            .expect("read")
            .is_none()
    );
    assert!(
        !SandboxRepo::mark_scanned(&store, a, c.id)
            .await
            .expect("scan")
    );
    let pairing = SandboxRepo::begin_pairing(&store, a, c.id, "n1", false)
        .await
        .expect("pairing");
    assert_eq!(pairing.nonce, "n1");
    assert!(!pairing.paired);
    assert!(
        SandboxRepo::mark_scanned(&store, a, c.id)
            .await
            .expect("scan")
    );
    // A restart keeps the pairing; a new QR resets it.
    let again = SandboxRepo::begin_pairing(&store, a, c.id, "n2", false)
        .await
        .expect("pairing");
    assert!(again.paired);
    assert_eq!(again.nonce, "n2");
    let reset = SandboxRepo::begin_pairing(&store, a, c.id, "n3", true)
        .await
        .expect("pairing");
    assert!(!reset.paired);
    SandboxRepo::unpair(&store, a, c.id).await.expect("unpair");
    assert!(
        SandboxRepo::pairing(&store, a, c.id)
            .await
            .expect("read")
            .is_none()
    );

    // Inbound waits until the connection is CONNECTED, then comes in order.
    let first = SandboxRepo::push_inbound(&store, a, c.id, &text("m1", "hello"))
        .await
        .expect("pushed")
        .expect("own connection");
    SandboxRepo::push_inbound(&store, a, c.id, &text("m2", "again"))
        .await
        .expect("pushed");
    assert!(
        SandboxRepo::undelivered(&store, 10)
            .await
            .expect("pending")
            .is_empty()
    );
    ConnectionRepo::set_session(
        &store,
        a,
        c.id,
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
    let pending = SandboxRepo::undelivered(&store, 10).await.expect("pending");
    assert_eq!(pending.len(), 2);
    assert_eq!(pending[0].id, first);
    assert!(
        matches!(&pending[0].event, InboundEvent::Message(m) if m.external_id == "m1" && m.body == "hello")
    );
    SandboxRepo::mark_delivered(&store, a, &[first])
        .await
        .expect("delivered");
    let pending = SandboxRepo::undelivered(&store, 10).await.expect("pending");
    assert_eq!(pending.len(), 1);
    assert_eq!(pending[0].company_id, a.company_id());

    // Outbound with acks and changes.
    let body = OutboundContent::Text { body: "hi".into() };
    let got = SandboxRepo::record_received(&store, a, c.id, "5511", "x1", &body, "hi")
        .await
        .expect("recorded");
    assert_eq!(got.ack, 1);
    assert!(
        SandboxRepo::set_ack(&store, a, c.id, "x1", 3)
            .await
            .expect("ack")
    );
    assert!(
        SandboxRepo::set_ack(&store, a, c.id, "x1", 2)
            .await
            .expect("ack")
    );
    assert!(
        SandboxRepo::change_received(&store, a, c.id, "x1", &SandboxChange::Edit("hey".into()))
            .await
            .expect("edit")
    );
    assert!(
        SandboxRepo::change_received(&store, a, c.id, "x1", &SandboxChange::React("👍".into()))
            .await
            .expect("react")
    );
    SandboxRepo::mark_chat_read(&store, a, c.id, "5511")
        .await
        .expect("read");
    SandboxRepo::record_received(&store, a, c.id, "5522", "x2", &body, "hi")
        .await
        .expect("recorded");
    let all = SandboxRepo::received(&store, a, c.id, None)
        .await
        .expect("all");
    assert_eq!(all.len(), 2);
    let to = SandboxRepo::received(&store, a, c.id, Some("5511"))
        .await
        .expect("to");
    assert_eq!(to.len(), 1);
    assert_eq!(to[0].ack, 3, "acks never go down");
    assert_eq!(to[0].body, "hey");
    assert_eq!(to[0].reaction, "👍");
    assert!(to[0].read_at.is_some());
    assert_eq!(to[0].content, body);
    assert!(
        SandboxRepo::change_received(&store, a, c.id, "x1", &SandboxChange::Delete)
            .await
            .expect("delete")
    );
    let to = SandboxRepo::received(&store, a, c.id, Some("5511"))
        .await
        .expect("to");
    assert!(to[0].deleted);

    // Receipts the phones report: queued after what the phones sent, only those that raised
    // an ack, and none on another company's connection.
    let before = SandboxRepo::undelivered(&store, 10)
        .await
        .expect("pending")
        .len();
    let acks: Vec<(String, i64)> = [("x1", 3), ("x2", 2), ("x2", 3), ("x2", 2), ("nope", 2)]
        .iter()
        .map(|(id, ack)| ((*id).to_owned(), *ack))
        .collect();
    assert_eq!(
        SandboxRepo::report_acks(&store, b, c.id, &acks)
            .await
            .expect("other company"),
        0
    );
    assert_eq!(
        SandboxRepo::report_acks(&store, a, c.id, &acks)
            .await
            .expect("acks"),
        2
    );
    let receipts: Vec<(String, i64)> = SandboxRepo::undelivered(&store, 10)
        .await
        .expect("pending")
        .into_iter()
        .skip(before)
        .filter_map(|row| match row.event {
            InboundEvent::Ack { external_id, ack } => Some((external_id, ack)),
            _ => None,
        })
        .collect();
    assert_eq!(receipts, vec![("x2".to_owned(), 2), ("x2".to_owned(), 3)]);
}

async fn sandbox_pairing_by_pair_code(store: Store) {
    let (a, b) = two_companies(&store).await;
    let c = ConnectionRepo::create(&store, a, &input("Sandbox"), "t", &[])
        .await
        .expect("created");
    // No pairing yet: no code to show.
    assert!(
        !SandboxRepo::show_pair_code(&store, a, c.id, "ABCD2345", "5511988887777")
            .await
            .expect("show")
    );
    SandboxRepo::begin_pairing(&store, a, c.id, "n1", false)
        .await
        .expect("pairing");
    assert!(
        SandboxRepo::show_pair_code(&store, a, c.id, "ABCD2345", "5511988887777")
            .await
            .expect("show")
    );
    // A new code replaces the first.
    assert!(
        SandboxRepo::show_pair_code(&store, a, c.id, "WXYZ6789", "5511977776666")
            .await
            .expect("show")
    );
    let shown = SandboxRepo::pairing(&store, a, c.id)
        .await
        .expect("read")
        .expect("pairing");
    assert_eq!(shown.pair_code.as_deref(), Some("WXYZ6789"));
    assert_eq!(shown.pair_number.as_deref(), Some("5511977776666"));
    assert!(!shown.paired);
    // Another company cannot show, see or type the code.
    assert!(
        !SandboxRepo::show_pair_code(&store, b, c.id, "BBBB2222", "5511")
            .await
            .expect("show")
    );
    assert!(
        !SandboxRepo::confirm_pair_code(&store, b, c.id, "WXYZ6789")
            .await
            .expect("confirm")
    );
    // The replaced code, or a wrong one, pairs nothing; the shown one pairs, once.
    for wrong in ["ABCD2345", "WXYZ6788"] {
        assert!(
            !SandboxRepo::confirm_pair_code(&store, a, c.id, wrong)
                .await
                .expect("confirm")
        );
    }
    assert!(
        SandboxRepo::confirm_pair_code(&store, a, c.id, "WXYZ6789")
            .await
            .expect("confirm")
    );
    assert!(
        !SandboxRepo::confirm_pair_code(&store, a, c.id, "WXYZ6789")
            .await
            .expect("confirm")
    );
    let paired = SandboxRepo::pairing(&store, a, c.id)
        .await
        .expect("read")
        .expect("pairing");
    assert!(paired.paired);
    assert_eq!(paired.pair_code, None);
    assert_eq!(paired.pair_number.as_deref(), Some("5511977776666"));
    // A paired connection shows no code.
    assert!(
        !SandboxRepo::show_pair_code(&store, a, c.id, "CCCC3333", "5511")
            .await
            .expect("show")
    );
    // Restarting keeps the pairing and its number; a new QR code forgets both.
    let restarted = SandboxRepo::begin_pairing(&store, a, c.id, "n2", false)
        .await
        .expect("restart");
    assert!(restarted.paired);
    assert_eq!(restarted.pair_number.as_deref(), Some("5511977776666"));
    let reset = SandboxRepo::begin_pairing(&store, a, c.id, "n3", true)
        .await
        .expect("new QR");
    assert!(!reset.paired);
    assert_eq!(reset.pair_number, None);
    // A QR scan forgets a code shown meanwhile (the phone that scanned is the sandbox's own).
    SandboxRepo::show_pair_code(&store, a, c.id, "DDDD4444", "5511966665555")
        .await
        .expect("show");
    assert!(
        SandboxRepo::mark_scanned(&store, a, c.id)
            .await
            .expect("scan")
    );
    let scanned = SandboxRepo::pairing(&store, a, c.id)
        .await
        .expect("read")
        .expect("pairing");
    assert!(scanned.paired);
    assert_eq!((scanned.pair_code, scanned.pair_number), (None, None));
}

async fn sandbox_rows_of_another_company_are_invisible(store: Store) {
    let (a, b) = two_companies(&store).await;
    let c = ConnectionRepo::create(&store, a, &input("Sandbox"), "t", &[])
        .await
        .expect("created");
    assert_eq!(
        SandboxRepo::begin_pairing(&store, b, c.id, "n", false)
            .await
            .expect_err("not B's")
            .code,
        chatflow_core::ErrorCode::ERR_NO_WAPP_FOUND
    );
    SandboxRepo::begin_pairing(&store, a, c.id, "n", false)
        .await
        .expect("pairing");
    assert!(
        !SandboxRepo::mark_scanned(&store, b, c.id)
            .await
            .expect("scan")
    );
    assert!(
        SandboxRepo::pairing(&store, b, c.id)
            .await
            .expect("read")
            .is_none()
    );
    assert!(
        SandboxRepo::push_inbound(&store, b, c.id, &text("m", "x"))
            .await
            .expect("push")
            .is_none()
    );
    let body = OutboundContent::Text { body: "hi".into() };
    assert!(
        SandboxRepo::record_received(&store, b, c.id, "1", "x", &body, "hi")
            .await
            .is_err()
    );
    SandboxRepo::record_received(&store, a, c.id, "1", "x", &body, "hi")
        .await
        .expect("recorded");
    assert!(
        !SandboxRepo::set_ack(&store, b, c.id, "x", 3)
            .await
            .expect("ack")
    );
    assert!(
        !SandboxRepo::change_received(&store, b, c.id, "x", &SandboxChange::Delete)
            .await
            .expect("change")
    );
    assert!(
        SandboxRepo::received(&store, b, c.id, None)
            .await
            .expect("list")
            .is_empty()
    );
}

async fn sandbox_lost_messages_stay_in_the_phones_history(store: Store) {
    let (a, b) = two_companies(&store).await;
    let c = ConnectionRepo::create(&store, a, &input("Sandbox"), "t", &[])
        .await
        .expect("created");
    let message = |id: &str, body: &str| match text(id, body) {
        InboundEvent::Message(m) => m,
        _ => unreachable!("a message"),
    };
    let first = SandboxRepo::push_inbound(&store, a, c.id, &text("m1", "hello"))
        .await
        .expect("pushed")
        .expect("own connection");
    SandboxRepo::push_lost(&store, a, c.id, &message("m2", "lost"))
        .await
        .expect("kept")
        .expect("own connection");
    let third = SandboxRepo::push_inbound(&store, a, c.id, &text("m3", "after"))
        .await
        .expect("pushed")
        .expect("own connection");
    // Another phone's message is another chat's history.
    let mut other = message("o1", "other chat");
    other.chat = "5511999990001".into();
    SandboxRepo::push_inbound(&store, a, c.id, &InboundEvent::Message(other))
        .await
        .expect("pushed");
    assert!(
        SandboxRepo::push_lost(&store, b, c.id, &message("m9", "x"))
            .await
            .expect("push")
            .is_none(),
        "not B's connection"
    );
    ConnectionRepo::set_session(
        &store,
        a,
        c.id,
        &SessionUpdate {
            status: ConnectionStatus::Connected,
            ..Default::default()
        },
    )
    .await
    .expect("connected");
    // The lost message is never delivered.
    let pending = SandboxRepo::undelivered(&store, 10).await.expect("pending");
    let ids: Vec<i64> = pending.iter().map(|r| r.id).collect();
    assert_eq!(ids.len(), 3);
    assert_eq!(ids[..2], [first, third]);

    // The phone's history before a message it sent: its earlier messages, lost ones included,
    // the newest `count`, oldest first.
    let bodies = |list: Vec<chatflow_core::inbox::channel::InboundMessage>| -> Vec<String> {
        list.into_iter().map(|m| m.body).collect()
    };
    let chat = "5511999990000";
    let now = chrono::Utc::now();
    let history = SandboxRepo::phone_history(&store, a, c.id, chat, "m3", now, 50)
        .await
        .expect("history");
    assert_eq!(bodies(history), ["hello", "lost"]);
    let history = SandboxRepo::phone_history(&store, a, c.id, chat, "m3", now, 1)
        .await
        .expect("history");
    assert_eq!(bodies(history), ["lost"]);
    // Anchored on a message the connection sent: what the phone sent up to its time.
    let later = now + chrono::Duration::hours(1);
    let history = SandboxRepo::phone_history(&store, a, c.id, chat, "SENT1", later, 50)
        .await
        .expect("history");
    assert_eq!(bodies(history), ["hello", "lost", "after"]);
    let earlier = now - chrono::Duration::hours(1);
    assert!(
        SandboxRepo::phone_history(&store, a, c.id, chat, "SENT1", earlier, 50)
            .await
            .expect("history")
            .is_empty()
    );
    assert!(
        SandboxRepo::phone_history(&store, b, c.id, chat, "m3", later, 50)
            .await
            .expect("history")
            .is_empty(),
        "B reads nothing of A's phones"
    );

    // Delivered and lost rows are pruned alike, each phone's newest row kept.
    SandboxRepo::mark_delivered(&store, a, &ids)
        .await
        .expect("delivered");
    let removed = SandboxRepo::prune_delivered(&store, later)
        .await
        .expect("pruned");
    assert_eq!(
        removed, 2,
        "m1 and the lost m2; m3 and o1 are their phones' newest"
    );
}
