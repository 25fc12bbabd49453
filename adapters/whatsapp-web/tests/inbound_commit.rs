//! Ack after commit: `Ingestor::commit` answers `Ok` (so the library acknowledges the batch to
//! WhatsApp) only once the sink handled every event, retrying with the core's delays on a paused
//! clock, and `Err` only once the ingestor is shut down.
//!
//! The sink here stands in for the host's (the server's sink over the ingestion use case): it
//! records what it was given and fails the deliveries a test tells it to, and, like the host's,
//! sets an event aside (answering `Ok`) on its last allowed attempt when asked to.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use chatflow_core::inbox::channel::{InboundEvent, InboundSink};
use chatflow_core::inbox::inbound::{MAX_INBOUND_ATTEMPTS, retry_delay};
use chatflow_core::{CompanyId, Error, Result, TenantScope, WhatsappId};
use chatflow_whatsapp_web::inbound::{EVENT_ATTEMPTS, Ingestor};
use chatflow_whatsapp_web::whatsapp_rust::Jid;
use chatflow_whatsapp_web::whatsapp_rust::types::events::InboundMessage;
use chatflow_whatsapp_web::whatsapp_rust::types::message::{MessageInfo, MessageSource};
use chatflow_whatsapp_web::whatsapp_rust::waproto::whatsapp as wa;
use tokio::sync::mpsc;
use tokio::time::Instant;

const SCOPE: TenantScope = TenantScope::new(CompanyId(7));
const CONNECTION: WhatsappId = WhatsappId(3);

/// One delivery the sink was asked for.
#[derive(Debug, Clone, PartialEq)]
struct Call {
    id: String,
    attempts: u32,
    /// Seconds since the test started, on the test's clock.
    at: u64,
    /// What the sink answered: stored, failed, or set aside.
    outcome: &'static str,
}

/// How the sink answers.
enum Plan {
    /// Fails these deliveries (counted from 1 over the whole test), stores the others.
    FailCalls(Vec<usize>),
    /// Fails every delivery; with `set_aside`, answers `Ok` on an event's last allowed attempt
    /// as the host's sink does.
    FailAlways { set_aside: bool },
}

struct TestSink {
    plan: Plan,
    start: Instant,
    calls: Mutex<Vec<Call>>,
    /// Told of every delivery, so a test can wait for one.
    seen: mpsc::UnboundedSender<Call>,
}

impl TestSink {
    fn new(plan: Plan) -> (Arc<Self>, mpsc::UnboundedReceiver<Call>) {
        let (seen, rx) = mpsc::unbounded_channel();
        let sink = Arc::new(Self {
            plan,
            start: Instant::now(),
            calls: Mutex::new(Vec::new()),
            seen,
        });
        (sink, rx)
    }

    fn calls(&self) -> Vec<Call> {
        self.calls.lock().expect("calls").clone()
    }

    /// `(id, attempts, outcome)` of every delivery, in order.
    fn trail(&self) -> Vec<(String, u32, &'static str)> {
        self.calls()
            .into_iter()
            .map(|c| (c.id, c.attempts, c.outcome))
            .collect()
    }
}

fn id_of(event: &InboundEvent) -> String {
    match event {
        InboundEvent::Message(m) => m.external_id.clone(),
        InboundEvent::Ack { external_id, .. } => format!("ack:{external_id}"),
        other => format!("{other:?}"),
    }
}

#[async_trait]
impl InboundSink for TestSink {
    async fn deliver(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        event: InboundEvent,
    ) -> Result<()> {
        self.deliver_queued(scope, connection, event, 1).await
    }

    async fn deliver_queued(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        event: InboundEvent,
        attempts: u32,
    ) -> Result<()> {
        assert_eq!((scope, connection), (SCOPE, CONNECTION));
        let mut calls = self.calls.lock().expect("calls");
        let n = calls.len() + 1;
        let fails = match &self.plan {
            Plan::FailCalls(which) => which.contains(&n),
            Plan::FailAlways { .. } => true,
        };
        let outcome = match (&self.plan, fails) {
            (_, false) => "stored",
            (Plan::FailAlways { set_aside: true }, true) if attempts >= MAX_INBOUND_ATTEMPTS => {
                "set aside"
            }
            _ => "failed",
        };
        let call = Call {
            id: id_of(&event),
            attempts,
            at: self.start.elapsed().as_secs(),
            outcome,
        };
        calls.push(call.clone());
        drop(calls);
        let _ = self.seen.send(call);
        if outcome == "failed" {
            Err(Error::internal("the database is unreachable"))
        } else {
            Ok(())
        }
    }
}

fn ingestor(sink: Arc<TestSink>) -> Arc<Ingestor> {
    Arc::new(Ingestor::new(SCOPE, CONNECTION, sink))
}

fn text(id: &str, body: &str) -> InboundMessage {
    let sender: Jid = "5511999990000@s.whatsapp.net".parse().expect("address");
    InboundMessage::builder()
        .message(Arc::new(wa::Message {
            conversation: Some(body.into()),
            ..Default::default()
        }))
        .info(Arc::new(MessageInfo {
            source: MessageSource {
                chat: sender.clone(),
                sender,
                ..Default::default()
            },
            id: id.into(),
            push_name: "Ana".into(),
            ..Default::default()
        }))
        .build()
}

/// A message the inbox shows nothing of (a key distribution).
fn nothing(id: &str) -> InboundMessage {
    let mut message = text(id, "");
    message.message = Arc::new(wa::Message {
        sender_key_distribution_message: wa::message::SenderKeyDistributionMessage::default()
            .into(),
        ..Default::default()
    });
    message
}

#[tokio::test(start_paused = true)]
async fn a_batch_is_delivered_once_in_order() {
    let (sink, _seen) = TestSink::new(Plan::FailCalls(vec![]));
    let ingestor = ingestor(sink.clone());
    let batch = [text("A", "um"), nothing("N"), text("B", "dois")];
    ingestor.commit(&batch).await.expect("committed");
    assert_eq!(
        sink.trail(),
        [("A".into(), 1, "stored"), ("B".into(), 1, "stored")]
    );
}

#[tokio::test(start_paused = true)]
async fn a_failed_delivery_is_retried_with_growing_attempts_and_delays() {
    // The first three deliveries fail: the fourth, 1 + 2 + 4 seconds later, commits.
    let (sink, _seen) = TestSink::new(Plan::FailCalls(vec![1, 2, 3]));
    let ingestor = ingestor(sink.clone());
    ingestor
        .commit(&[text("A", "oi")])
        .await
        .expect("committed once delivered");
    let calls = sink.calls();
    assert_eq!(
        calls
            .iter()
            .map(|c| (c.attempts, c.at, c.outcome))
            .collect::<Vec<_>>(),
        [
            (1, 0, "failed"),
            (2, 1, "failed"),
            (3, 3, "failed"),
            (4, 7, "stored")
        ]
    );
    assert_eq!(
        (1..=3)
            .map(|a| retry_delay(a).num_seconds())
            .collect::<Vec<_>>(),
        [1, 2, 4],
        "the core's delays the ingestor waits"
    );
}

#[tokio::test(start_paused = true)]
async fn only_the_failed_event_and_those_after_it_are_retried() {
    // The batch's second event fails once: the first is not delivered again, the second comes
    // back with its second attempt, the third with its first.
    let (sink, _seen) = TestSink::new(Plan::FailCalls(vec![2]));
    let ingestor = ingestor(sink.clone());
    ingestor
        .commit(&[text("A", "um"), text("B", "dois"), text("C", "três")])
        .await
        .expect("committed");
    assert_eq!(
        sink.trail(),
        [
            ("A".into(), 1, "stored"),
            ("B".into(), 1, "failed"),
            ("B".into(), 2, "stored"),
            ("C".into(), 1, "stored"),
        ]
    );
}

#[tokio::test(start_paused = true)]
async fn an_event_the_sink_sets_aside_is_acknowledged() {
    // The host's sink sets an event aside on its eighth failed attempt and answers Ok: the
    // commit then answers Ok too, about two minutes after the first attempt, and the rest of
    // the batch follows.
    let (sink, _seen) = TestSink::new(Plan::FailAlways { set_aside: true });
    let ingestor = ingestor(sink.clone());
    ingestor
        .commit(&[text("A", "oi")])
        .await
        .expect("acknowledged once set aside");
    let calls = sink.calls();
    let attempts: Vec<u32> = calls.iter().map(|c| c.attempts).collect();
    assert_eq!(attempts, (1..=MAX_INBOUND_ATTEMPTS).collect::<Vec<_>>());
    let waited: i64 = (1..MAX_INBOUND_ATTEMPTS)
        .map(|a| retry_delay(a).num_seconds())
        .sum();
    assert_eq!(waited, 123);
    assert_eq!(
        calls.last().map(|c| (c.at, c.outcome)),
        Some((123, "set aside"))
    );
}

#[tokio::test(start_paused = true)]
async fn a_shut_down_ingestor_stops_retrying_and_answers_err() {
    let (sink, mut seen) = TestSink::new(Plan::FailAlways { set_aside: false });
    let ingestor = ingestor(sink.clone());
    let commit = tokio::spawn({
        let ingestor = ingestor.clone();
        async move {
            ingestor
                .commit(&[text("A", "oi"), text("B", "tchau")])
                .await
        }
    });
    // Three failed attempts, then the session stops while the commit waits for the fourth.
    for attempt in 1..=3 {
        let call = seen.recv().await.expect("a delivery");
        assert_eq!((call.id.as_str(), call.attempts), ("A", attempt));
    }
    ingestor.shutdown();
    let answer = commit.await.expect("the commit task");
    assert!(
        answer.is_err(),
        "a stopping session leaves the batch unacknowledged"
    );
    // Nothing more is delivered, however long one waits.
    tokio::time::sleep(Duration::from_secs(600)).await;
    assert_eq!(sink.calls().len(), 3);
    assert!(seen.try_recv().is_err());
}

#[tokio::test(start_paused = true)]
async fn after_shutdown_a_commit_delivers_nothing_and_answers_err() {
    let (sink, _seen) = TestSink::new(Plan::FailCalls(vec![]));
    let ingestor = ingestor(sink.clone());
    assert!(!ingestor.is_shut_down());
    ingestor.shutdown();
    assert!(ingestor.is_shut_down());
    assert!(ingestor.commit(&[text("A", "oi")]).await.is_err());
    assert_eq!(sink.calls(), []);
}

#[tokio::test(start_paused = true)]
async fn a_batch_that_maps_to_nothing_is_acknowledged_without_a_delivery() {
    let (sink, _seen) = TestSink::new(Plan::FailAlways { set_aside: false });
    let ingestor = ingestor(sink.clone());
    ingestor
        .commit(&[nothing("N1"), nothing("N2")])
        .await
        .expect("nothing to commit");
    ingestor.commit(&[]).await.expect("an empty batch");
    // Even a stopping session acknowledges what it has nothing to keep of.
    ingestor.shutdown();
    ingestor
        .commit(&[nothing("N3")])
        .await
        .expect("nothing to commit");
    assert_eq!(sink.calls(), []);
}

fn ack(id: &str) -> InboundEvent {
    InboundEvent::Ack {
        external_id: id.into(),
        ack: 3,
    }
}

#[tokio::test(start_paused = true)]
async fn events_outside_the_hook_are_tried_a_few_times_then_dropped() {
    let (sink, _seen) = TestSink::new(Plan::FailAlways { set_aside: false });
    let ingestor = ingestor(sink.clone());
    ingestor.deliver_events(vec![ack("X"), ack("Y")]).await;
    let calls = sink.calls();
    assert_eq!(
        calls
            .iter()
            .map(|c| (c.id.as_str(), c.attempts, c.at))
            .collect::<Vec<_>>(),
        [("ack:X", 1, 0), ("ack:X", 2, 1), ("ack:X", 3, 3)]
    );
    assert_eq!(calls.len(), EVENT_ATTEMPTS as usize);
}

#[tokio::test(start_paused = true)]
async fn events_outside_the_hook_survive_a_passing_failure() {
    let (sink, _seen) = TestSink::new(Plan::FailCalls(vec![2]));
    let ingestor = ingestor(sink.clone());
    ingestor.deliver_events(vec![ack("X"), ack("Y")]).await;
    assert_eq!(
        sink.trail(),
        [
            ("ack:X".into(), 1, "stored"),
            ("ack:Y".into(), 1, "failed"),
            ("ack:Y".into(), 2, "stored"),
        ]
    );
    // Nothing is delivered after shutdown.
    ingestor.shutdown();
    ingestor.deliver_events(vec![ack("Z")]).await;
    assert_eq!(sink.calls().len(), 3);
}

/// Concurrent commits (the library runs one per chat) are independent: one chat's retries do
/// not hold another's messages.
#[tokio::test(start_paused = true)]
async fn one_chats_retries_do_not_hold_another_chat() {
    let (sink, mut seen) = TestSink::new(Plan::FailCalls(vec![1]));
    let ingestor = ingestor(sink.clone());
    let slow = tokio::spawn({
        let ingestor = ingestor.clone();
        async move { ingestor.commit(&[text("A", "primeiro")]).await }
    });
    let first = seen.recv().await.expect("a delivery");
    assert_eq!((first.id.as_str(), first.outcome), ("A", "failed"));
    ingestor
        .commit(&[text("B", "segundo")])
        .await
        .expect("committed");
    assert_eq!(
        sink.calls().last().map(|c| (c.id.as_str(), c.at)),
        Some(("B", 0))
    );
    slow.await.expect("task").expect("committed after a retry");
    assert_eq!(
        sink.trail(),
        [
            ("A".into(), 1, "failed"),
            ("B".into(), 1, "stored"),
            ("A".into(), 2, "stored"),
        ]
    );
}

// The hook the library calls is the ingestor's commit.
const _: fn() = || {
    fn is_hook<T: chatflow_whatsapp_web::whatsapp_rust::InboundDurabilityHook>() {}
    is_hook::<chatflow_whatsapp_web::inbound::IngestHook>();
};
