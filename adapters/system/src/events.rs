//! Realtime event buses: [`LogBus`], which appends what use cases publish to the company's
//! event log (the server and the CLI), and [`BroadcastBus`], in process only (tests).

use std::sync::Arc;

use async_trait::async_trait;
use chatflow_core::TenantScope;
use chatflow_core::inbox::events::InboxEvent;
use chatflow_core::inbox::ports::EventLog;
use chatflow_core::ports::{EventBus, RealtimeEvent};
use tokio::sync::broadcast;

/// The event bus on top of the event log: each published event is appended to its company's
/// log, so it gets a sequence number (clients replay it after a reconnect, and caches keyed by
/// the sequence see the change), then the optional waker runs (the server's dispatcher emits
/// it at once; without one, a server sharing the database picks it up on its next poll).
#[derive(Clone)]
pub struct LogBus {
    log: Arc<dyn EventLog>,
    waker: Option<Arc<dyn Fn() + Send + Sync>>,
}

impl LogBus {
    /// A bus appending to `log`.
    pub fn new(log: Arc<dyn EventLog>) -> Self {
        Self { log, waker: None }
    }

    /// The same bus, calling `wake` after each append.
    pub fn waking(mut self, wake: impl Fn() + Send + Sync + 'static) -> Self {
        self.waker = Some(Arc::new(wake));
        self
    }
}

impl std::fmt::Debug for LogBus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LogBus")
            .field("waking", &self.waker.is_some())
            .finish()
    }
}

#[async_trait]
impl EventBus for LogBus {
    async fn publish(&self, event: RealtimeEvent) {
        let scope = TenantScope::new(event.company_id);
        match self
            .log
            .append(scope, &[InboxEvent::from_published(&event)])
            .await
        {
            Ok(_) => {
                if let Some(wake) = &self.waker {
                    wake();
                }
            }
            Err(e) => {
                tracing::warn!(company = %event.company_id, event = %event.name, "cannot log a realtime event: {e}");
            }
        }
    }
}

/// How many events a slow subscriber may fall behind before it misses some.
const DEFAULT_CAPACITY: usize = 1024;

/// Publishes events to every subscriber in this process (a tokio broadcast channel).
///
/// With no subscriber, events are dropped: what the CLI wants, as it has no sockets. A
/// subscriber that falls more than the capacity behind misses the oldest events and is told so
/// by its receiver (`RecvError::Lagged`).
#[derive(Debug, Clone)]
pub struct BroadcastBus {
    sender: broadcast::Sender<RealtimeEvent>,
}

impl Default for BroadcastBus {
    fn default() -> Self {
        Self::new(DEFAULT_CAPACITY)
    }
}

impl BroadcastBus {
    /// A bus keeping up to `capacity` events for slow subscribers (at least one).
    pub fn new(capacity: usize) -> Self {
        let (sender, _) = broadcast::channel(capacity.max(1));
        Self { sender }
    }

    /// A receiver of every event published from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<RealtimeEvent> {
        self.sender.subscribe()
    }
}

#[async_trait]
impl EventBus for BroadcastBus {
    async fn publish(&self, event: RealtimeEvent) {
        // An error only means nobody is listening.
        let _nobody_listening = self.sender.send(event);
    }
}

#[cfg(test)]
mod tests {
    use chatflow_core::CompanyId;
    use chatflow_core::ports::Audience;

    use super::*;

    fn event(name: &str) -> RealtimeEvent {
        RealtimeEvent {
            company_id: CompanyId(7),
            audience: Audience::Company,
            name: name.into(),
            payload: serde_json::json!({ "action": "update" }),
        }
    }

    #[tokio::test]
    async fn subscribers_receive_events_in_order() {
        let bus = BroadcastBus::default();
        let mut first = bus.subscribe();
        let mut second = bus.subscribe();
        bus.publish(event("company-7-user")).await;
        bus.publish(event("company-7-settings")).await;
        for receiver in [&mut first, &mut second] {
            assert_eq!(receiver.recv().await.expect("event").name, "company-7-user");
            assert_eq!(
                receiver.recv().await.expect("event").name,
                "company-7-settings"
            );
        }
    }

    #[tokio::test]
    async fn publishing_without_subscribers_is_fine() {
        let bus = BroadcastBus::new(0);
        bus.publish(event("company-7-user")).await;
        let mut late = bus.subscribe();
        assert!(
            late.try_recv().is_err(),
            "events before subscribing are not replayed"
        );
    }
}
