//! The fake session (feature `fake`) behaves as the supervisor and the provider expect of the
//! library's: each start is seen with its parameters, events arrive in order on the run's
//! channel, a run ends on its own or by shutdown or abort, and the client records calls and
//! answers from its script.

use std::sync::Arc;
use std::sync::Mutex;
use std::time::Duration;

use async_trait::async_trait;
use chatflow_core::Result;
use chatflow_core::inbox::channel::{InboundEvent, InboundSink};
use chatflow_core::inbox::lease::LeaseToken;
use chatflow_core::ports::SecretCipher;
use chatflow_core::{TenantScope, WhatsappId};
use chatflow_store::{Stamps, Store, testing};
use chatflow_system::SealedSecrets;
use chatflow_whatsapp_web::WaBackend;
use chatflow_whatsapp_web::client::{
    MediaKind, NumberCheck, SessionParams, SessionStats, WaClient, WaClientFactory,
};
use chatflow_whatsapp_web::fake::{FakeCall, FakeEnd, FakeOp, FakeWaClient, FakeWaClientFactory};
use chatflow_whatsapp_web::inbound::Ingestor;
use chatflow_whatsapp_web::whatsapp_rust::Jid;
use chatflow_whatsapp_web::whatsapp_rust::types::events::{
    Event, EventKind, PairingQrCode, StreamReplaced,
};
use chatflow_whatsapp_web::whatsapp_rust::waproto::whatsapp as wa;
use tokio::sync::mpsc::{UnboundedReceiver, unbounded_channel};

/// A sink that keeps what it is given (the ingestor is only carried here, never called).
#[derive(Default)]
struct Kept(Mutex<Vec<InboundEvent>>);

#[async_trait]
impl InboundSink for Kept {
    async fn deliver(&self, _: TenantScope, _: WhatsappId, event: InboundEvent) -> Result<()> {
        self.0.lock().expect("lock").push(event);
        Ok(())
    }
}

fn stamps() -> Stamps {
    Stamps::new(
        Arc::new(chatflow_system::SystemClock),
        Arc::new(chatflow_system::RandomIds),
    )
}

fn params(
    store: &Store,
    connection: i64,
    pair_phone: Option<&str>,
) -> (SessionParams, UnboundedReceiver<Arc<Event>>) {
    let cipher: Arc<dyn SecretCipher> = Arc::new(
        SealedSecrets::from_key_text("a test key of at least thirty-two characters")
            .expect("a key"),
    );
    let backend = Arc::new(WaBackend::new(
        Arc::new(store.clone()),
        cipher,
        WhatsappId(connection),
        LeaseToken(1),
    ));
    let ingestor = Arc::new(Ingestor::new(
        TenantScope::new(chatflow_core::CompanyId(1)),
        WhatsappId(connection),
        Arc::new(Kept::default()),
    ));
    let (events, received) = unbounded_channel();
    (
        SessionParams {
            connection: WhatsappId(connection),
            backend,
            ingestor,
            events,
            pair_phone: pair_phone.map(str::to_owned),
            full_history: false,
        },
        received,
    )
}

fn qr(code: &str) -> Event {
    Event::PairingQrCode(
        PairingQrCode::builder()
            .code(code.to_owned())
            .timeout(Duration::from_secs(60))
            .build(),
    )
}

#[tokio::test]
async fn a_started_run_is_seen_with_its_parameters_and_carries_events_in_order() {
    testing::on_sqlite(stamps(), false, |store, _| async move {
        let factory = FakeWaClientFactory::new();
        let (first, mut events) = params(&store, 7, Some("5511999990000"));
        let ingestor = first.ingestor.clone();
        let mut session = factory.start(first).await.expect("started");

        let handle = factory.next_session().await;
        assert_eq!(handle.connection, WhatsappId(7));
        assert_eq!(handle.pair_phone.as_deref(), Some("5511999990000"));
        assert!(Arc::ptr_eq(&handle.ingestor, &ingestor));
        assert_eq!(factory.sessions().len(), 1);

        assert!(
            !session.client().is_connected(),
            "a new run is not connected"
        );
        assert!(handle.emit(qr("ref-1")));
        assert!(handle.emit(qr("ref-2")));
        assert!(handle.connect());
        let kinds: Vec<EventKind> = [
            events.recv().await,
            events.recv().await,
            events.recv().await,
        ]
        .into_iter()
        .map(|e| e.expect("an event").kind())
        .collect();
        assert_eq!(
            kinds,
            [
                EventKind::PairingQrCode,
                EventKind::PairingQrCode,
                EventKind::Connected
            ]
        );
        assert!(session.client().is_connected());

        // The library ends its loop on its own after a replaced stream.
        assert!(handle.emit(Event::StreamReplaced(StreamReplaced::builder().build())));
        assert_eq!(handle.ended(), None);
        assert!(handle.end());
        session.finished().await;
        assert_eq!(handle.ended(), Some(FakeEnd::Finished));
        assert!(!session.client().is_connected());
        // A stop after the end does not rewrite how it ended.
        session.shutdown().await;
        assert_eq!(handle.wait_ended().await, FakeEnd::Finished);
    })
    .await;
}

#[tokio::test]
async fn a_run_is_stopped_by_shutdown_or_abort_and_the_test_can_tell_which() {
    testing::on_sqlite(stamps(), false, |store, _| async move {
        let factory = FakeWaClientFactory::new();
        let (a, _a_events) = params(&store, 1, None);
        let (b, _b_events) = params(&store, 2, None);
        let first = factory.start(a).await.expect("started");
        let mut second = factory.start(b).await.expect("started");
        let (one, two) = (factory.next_session().await, factory.next_session().await);
        assert_eq!(
            (one.connection, two.connection),
            (WhatsappId(1), WhatsappId(2))
        );
        assert_eq!(one.pair_phone, None);

        first.shutdown().await;
        assert!(one.was_shutdown());
        assert!(!one.was_aborted());

        second.abort();
        second.finished().await;
        assert!(two.was_aborted());
        assert_eq!(two.wait_ended().await, FakeEnd::Aborted);
    })
    .await;
}

#[tokio::test]
async fn a_scripted_start_failure_fails_that_start_only() {
    testing::on_sqlite(stamps(), false, |store, _| async move {
        let factory = FakeWaClientFactory::new();
        factory.fail_next_start("the store is unreachable");
        let (a, _a) = params(&store, 1, None);
        let (b, _b) = params(&store, 1, None);
        let error = match factory.start(a).await {
            Ok(_) => panic!("the scripted failure"),
            Err(error) => error,
        };
        assert_eq!(error.to_string(), "the store is unreachable");
        assert!(factory.sessions().is_empty());
        factory.start(b).await.expect("the next start works");
        assert_eq!(factory.sessions().len(), 1);
    })
    .await;
}

#[tokio::test]
async fn the_client_records_calls_and_answers_from_its_script() {
    let client = FakeWaClient::new();
    let to: Jid = "5511999990000@s.whatsapp.net".parse().expect("a jid");
    let message = wa::Message {
        conversation: Some("hello".to_owned()),
        ..Default::default()
    };

    client.fail_next(FakeOp::Send, "socket closed");
    let failed = client.send(&to, message.clone(), "3EB0AA").await;
    assert_eq!(failed.expect_err("scripted").to_string(), "socket closed");
    assert_eq!(
        client
            .send(&to, message.clone(), "3EB0AA")
            .await
            .expect("sent"),
        "3EB0AA"
    );
    assert_eq!(client.sent().len(), 2, "the failed call is recorded too");
    assert_eq!(client.stats().messages_sent, 1);

    let registered = NumberCheck {
        jid: to.clone(),
        is_registered: true,
        lid: Some("123456@lid".parse().expect("a jid")),
        pn: Some(to.clone()),
    };
    client.set_number(registered.clone());
    let unknown: Jid = "5511000000000@s.whatsapp.net".parse().expect("a jid");
    let checks = client
        .is_on_whatsapp(&[to.clone(), unknown.clone()])
        .await
        .expect("checked");
    assert_eq!(checks[0], registered);
    assert!(!checks[1].is_registered);

    let uploaded = client
        .upload(b"picture".to_vec(), MediaKind::Image)
        .await
        .expect("uploaded");
    assert_eq!(
        uploaded,
        FakeWaClient::uploaded_for(b"picture", MediaKind::Image)
    );
    assert_ne!(
        uploaded,
        FakeWaClient::uploaded_for(b"another", MediaKind::Image)
    );

    client.set_pair_code("ABCD1234");
    assert_eq!(
        client
            .pair_with_code("5511999990000")
            .await
            .expect("a code"),
        "ABCD1234"
    );
    client.set_stats(SessionStats {
        frames_received: 9,
        ..SessionStats::default()
    });
    assert_eq!(client.stats().frames_received, 9);

    client.set_connected(false);
    assert!(client.send(&to, message, "3EB0BB").await.is_err());
    assert_eq!(
        client.calls().last(),
        Some(&FakeCall::Send {
            to,
            message: wa::Message {
                conversation: Some("hello".to_owned()),
                ..Default::default()
            },
            id: "3EB0BB".to_owned(),
        })
    );
}

#[tokio::test]
async fn pair_code_and_logout_emit_what_the_library_emits() {
    testing::on_sqlite(stamps(), false, |store, _| async move {
        let factory = FakeWaClientFactory::new();
        let (p, mut events) = params(&store, 3, Some("5511999990000"));
        let mut session = factory.start(p).await.expect("started");
        let handle = factory.next_session().await;
        handle.client().set_pair_code("WXYZ9876");
        handle.connect();
        assert_eq!(
            events.recv().await.expect("connected").kind(),
            EventKind::Connected
        );

        let client = session.client();
        assert_eq!(
            client.pair_with_code("5511999990000").await.expect("code"),
            "WXYZ9876"
        );
        match events.recv().await.as_deref() {
            Some(Event::PairingCode(code)) => assert_eq!(code.code, "WXYZ9876"),
            other => panic!("a pairing code, got {other:?}"),
        }
        handle
            .client()
            .fail_next(FakeOp::PairWithCode, "rate-overlimit");
        assert!(client.pair_with_code("5511999990000").await.is_err());
        match events.recv().await.as_deref() {
            Some(Event::PairingCodeError(e)) => assert_eq!(e.error, "rate-overlimit"),
            other => panic!("a pairing code error, got {other:?}"),
        }

        client.logout().await.expect("logged out");
        assert_eq!(
            events.recv().await.expect("logged out").kind(),
            EventKind::LoggedOut
        );
        session.finished().await;
        assert_eq!(handle.ended(), Some(FakeEnd::Finished));
        assert_eq!(handle.client().calls().last(), Some(&FakeCall::Logout));
    })
    .await;
}
