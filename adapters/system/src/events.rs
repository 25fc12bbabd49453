//! An in-process realtime event bus.

use async_trait::async_trait;
use chatflow_core::ports::{EventBus, RealtimeEvent};
use tokio::sync::broadcast;

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
