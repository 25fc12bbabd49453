//! Delivery assurance on both engines: an outbound message still at one tick ten minutes after
//! WhatsApp took it is flagged by the connection's look (with its update event), a receipt
//! clears the flag, the health view counts and lists the flagged messages, the look runs as one
//! durable job per connected connection, and another company sees no health of ours.

use std::sync::Arc;

use chatflow_core::events::{Event, MessageAction};
use chatflow_core::identity::{Actor, Profile, UserFlags};
use chatflow_core::inbox::channel::{InboundEvent, InboundMessage};
use chatflow_core::inbox::delivery::DeliveryIssue;
use chatflow_core::inbox::model::{ConnectionStatus, MediaType, NewMessage, SessionUpdate};
use chatflow_core::inbox::ports::{EventLog, MessageRepo};
use chatflow_core::jobs::JobPayload;
use chatflow_core::ports::Clock;
use chatflow_core::service::Ports;
use chatflow_core::service::inbox::{delivery, ingest};
use chatflow_core::{ErrorCode, MessageId, TenantScope, UserId, WhatsappId};
use chatflow_store::Store;
use chatflow_system::ManualClock;
use chrono::TimeDelta;

use crate::store_tests;
use crate::support::{connection, two_companies};

store_tests!(
    a_message_left_at_one_tick_is_flagged_until_a_receipt_comes,
    the_look_is_one_durable_job_while_the_connection_is_connected,
    another_company_sees_no_health_of_ours,
);

fn admin(scope: TenantScope) -> Actor {
    Actor {
        user_id: UserId(0),
        company_id: scope.company_id(),
        profile: Profile::Admin,
        is_super: false,
        flags: UserFlags::default(),
        queue_ids: Vec::new(),
    }
}

struct Setup {
    ports: Ports,
    clock: ManualClock,
    scope: TenantScope,
    other: TenantScope,
    c: WhatsappId,
    ticket: chatflow_core::TicketId,
}

async fn setup(store: &Store) -> Setup {
    let (scope, other) = two_companies(store).await;
    let c = WhatsappId(connection(store, scope, "Main").await);
    let clock = ManualClock::starting_now();
    let ports = crate::support::ports_on(
        store,
        Arc::new(clock.clone()),
        Arc::new(chatflow_system::LogMailer),
    );
    let inbound = InboundMessage {
        external_id: "in-1".into(),
        chat: "5511911110000".into(),
        chat_name: "Ana".into(),
        is_group: false,
        participant: None,
        from_me: false,
        body: "oi".into(),
        media_type: MediaType::Chat,
        media: None,
        quoted_external_id: None,
        timestamp: clock.now(),
        aliases: Vec::new(),
        media_failed: None,
    };
    let stored = ingest::deliver(&ports, scope, c, InboundEvent::Message(inbound))
        .await
        .expect("delivered");
    let ticket = match stored.outcome {
        Some(chatflow_core::inbox::ports::IngestOutcome::Stored { ticket, .. }) => ticket,
        other => panic!("stored: {other:?}"),
    };
    Setup {
        ports,
        clock,
        scope,
        other,
        c,
        ticket,
    }
}

impl Setup {
    /// An answer WhatsApp took (one tick) under `external_id`.
    async fn sent(&self, body: &str, external_id: &str) -> MessageId {
        // Through the ports' store, which stamps with the test's clock.
        let message = self
            .ports
            .messages
            .create(self.scope, &NewMessage::text(self.ticket, body))
            .await
            .expect("created");
        self.ports
            .messages
            .set_sent(self.scope, message.id, external_id)
            .await
            .expect("sent")
            .expect("the message");
        message.id
    }

    async fn ack(&self, external_id: &str, ack: i64) {
        ingest::deliver(
            &self.ports,
            self.scope,
            self.c,
            InboundEvent::Ack {
                external_id: external_id.into(),
                ack,
            },
        )
        .await
        .expect("the receipt is applied");
    }

    async fn issue(&self, store: &Store, id: MessageId) -> Option<DeliveryIssue> {
        MessageRepo::get(store, self.scope, id)
            .await
            .expect("read")
            .expect("the message")
            .delivery_issue
    }

    /// The delivery looks due now, claimed; any other job due (the new contact's picture)
    /// is finished untouched, as it is not this test's business.
    async fn due_looks(&self) -> Vec<chatflow_core::jobs::Job> {
        let claimed = self
            .ports
            .jobs
            .claim_due(self.clock.now(), TimeDelta::seconds(60), 10)
            .await
            .expect("claimed");
        let mut looks = Vec::new();
        for job in claimed {
            if matches!(job.payload, JobPayload::CheckDelivery { .. }) {
                looks.push(job);
            } else {
                self.ports.jobs.finish(job.id, &[]).await.expect("finished");
            }
        }
        looks
    }

    async fn delivery_jobs(&self, store: &Store) -> i64 {
        chatflow_store::on_pool!(store.pool(), |p| {
            sqlx::query_scalar("SELECT COUNT(*) FROM jobs WHERE kind = 'checkDelivery'")
                .fetch_one(p)
                .await
                .expect("count")
        })
    }
}

async fn a_message_left_at_one_tick_is_flagged_until_a_receipt_comes(store: Store) {
    let s = setup(&store).await;
    let stuck = s.sent("left at one tick", "X1").await;
    let delivered = s.sent("delivered", "X2").await;
    s.ack("X2", 2).await;
    s.clock.advance(TimeDelta::minutes(11));
    let fresh = s.sent("just sent", "X3").await;
    let seq = EventLog::read(&store, s.scope, 0, 10_000)
        .await
        .expect("log")
        .last()
        .map_or(0, |e| e.seq);

    delivery::look(&s.ports, s.scope, s.c)
        .await
        .expect("looked");
    assert_eq!(
        s.issue(&store, stuck).await,
        Some(DeliveryIssue::NotDelivered)
    );
    assert_eq!(s.issue(&store, delivered).await, None);
    assert_eq!(s.issue(&store, fresh).await, None, "not ten minutes yet");
    let updates: Vec<MessageId> = EventLog::read(&store, s.scope, seq, 10_000)
        .await
        .expect("log")
        .into_iter()
        .filter_map(|e| match e.event {
            Event::AppMessage {
                action: MessageAction::Update,
                message,
                ..
            } => Some(message.id),
            _ => None,
        })
        .collect();
    assert_eq!(updates, vec![stuck], "the conversation hears of the flag");

    let health = delivery::health(&s.ports, &admin(s.scope), s.c)
        .await
        .expect("health");
    assert_eq!(health.undelivered, 1);
    assert_eq!(health.messages.len(), 1);
    assert_eq!(
        (
            health.messages[0].body.as_str(),
            health.messages[0].contact_name.as_str()
        ),
        ("left at one tick", "Ana")
    );
    // Looking again flags nothing twice.
    delivery::look(&s.ports, s.scope, s.c)
        .await
        .expect("looked");
    assert_eq!(
        delivery::health(&s.ports, &admin(s.scope), s.c)
            .await
            .expect("health")
            .undelivered,
        1
    );

    // The phone comes back and confirms: the flag goes.
    s.ack("X1", 3).await;
    assert_eq!(s.issue(&store, stuck).await, None);
    assert_eq!(
        delivery::health(&s.ports, &admin(s.scope), s.c)
            .await
            .expect("health")
            .undelivered,
        0
    );
}

async fn the_look_is_one_durable_job_while_the_connection_is_connected(store: Store) {
    let s = setup(&store).await;
    let session = |status| SessionUpdate {
        status,
        qrcode: String::new(),
        retries: 0,
        number: None,
        pairing_code: None,
        reason: None,
        until: None,
    };
    ingest::deliver(
        &s.ports,
        s.scope,
        s.c,
        InboundEvent::Session(session(ConnectionStatus::Connected)),
    )
    .await
    .expect("connected");
    assert_eq!(s.delivery_jobs(&store).await, 1);

    // Due five minutes later; the look schedules the next one.
    let claimed = s.due_looks().await;
    assert!(claimed.is_empty(), "not due yet");
    s.clock.advance(TimeDelta::minutes(5));
    let claimed = s.due_looks().await;
    assert_eq!(claimed.len(), 1);
    assert!(matches!(
        claimed[0].payload,
        JobPayload::CheckDelivery { whatsapp_id } if whatsapp_id == s.c
    ));
    let outcome = chatflow_core::service::jobs::run(&s.ports, &claimed[0]).await;
    chatflow_core::service::jobs::settle(&s.ports, &claimed[0], &outcome)
        .await
        .expect("settled");
    outcome.expect("the look ran");
    assert_eq!(s.delivery_jobs(&store).await, 1, "the next look, only one");

    // Down: the next look is the last until the connection is back.
    ingest::deliver(
        &s.ports,
        s.scope,
        s.c,
        InboundEvent::Session(session(ConnectionStatus::Disconnected)),
    )
    .await
    .expect("down");
    s.clock.advance(TimeDelta::minutes(5));
    let claimed = s.due_looks().await;
    assert_eq!(claimed.len(), 1);
    let outcome = chatflow_core::service::jobs::run(&s.ports, &claimed[0]).await;
    chatflow_core::service::jobs::settle(&s.ports, &claimed[0], &outcome)
        .await
        .expect("settled");
    assert_eq!(s.delivery_jobs(&store).await, 0, "no look while down");
}

async fn another_company_sees_no_health_of_ours(store: Store) {
    let s = setup(&store).await;
    s.sent("left at one tick", "X1").await;
    s.clock.advance(TimeDelta::minutes(11));
    delivery::look(&s.ports, s.scope, s.c)
        .await
        .expect("looked");
    let error = delivery::health(&s.ports, &admin(s.other), s.c)
        .await
        .expect_err("not theirs");
    assert_eq!(error.code, ErrorCode::ERR_NO_WAPP_FOUND);
    // Their own look at our connection's id flags nothing of ours.
    let other_look = delivery::look(&s.ports, s.other, s.c).await;
    assert!(other_look.is_ok());
    assert_eq!(
        delivery::health(&s.ports, &admin(s.scope), s.c)
            .await
            .expect("health")
            .undelivered,
        1
    );
}
