//! The inbox's inbound sink: providers deliver every [`InboundEvent`] here and it hands them to
//! `chatflow_core::service::inbox::ingest::deliver` (exactly-once ingestion of messages;
//! receipts, edits, deletions, reactions; session changes), then wakes the realtime dispatcher.
//! It returns only once the event is committed (or known as a duplicate), so a provider
//! acknowledges an event only after it is durable. Providers that queue and retry deliver with
//! `deliver_queued`: an event that can never be stored is set aside in the company's inbound
//! failures (logged at warn) and acknowledged, so nothing behind it waits.
//!
//! The automation after a stored message runs on the sink's [`Lines`] (one line per ticket),
//! so the sink returns once the events are committed and their automation accepted, without
//! waiting for flows, routing or integrations to answer.

use std::sync::{Arc, Weak};

use async_trait::async_trait;
use chatflow_core::inbox::channel::{BatchDelivery, InboundEvent, InboundSink, Queued};
use chatflow_core::service::inbox::ingest::{self, Handled};
use chatflow_core::{Error, Result, TenantScope, WhatsappId};

use crate::automation_lines::Lines;
use crate::state::{AppState, Shared};

/// The sink every provider of this server delivers to.
#[derive(Debug, Clone)]
pub struct Sink {
    state: Weak<Shared>,
    lines: Lines,
}

impl Sink {
    /// A sink reaching the ports through `state` (weakly, so a provider does not keep the state
    /// alive), running the automation on `state`'s lines.
    pub fn new(state: &AppState) -> Arc<Self> {
        Arc::new(Self {
            state: state.downgrade(),
            lines: state.automation.clone(),
        })
    }
}

#[async_trait]
impl InboundSink for Sink {
    async fn deliver(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        event: InboundEvent,
    ) -> Result<()> {
        let state = self
            .state
            .upgrade()
            .ok_or_else(|| Error::internal("the server is shutting down"))?;
        let delivery =
            ingest::deliver_on(&state.ports, scope, connection, event, &self.lines).await;
        state.realtime.wake();
        state.jobs.wake();
        delivery.map(|_| ())
    }

    async fn deliver_queued(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        event: InboundEvent,
        attempts: u32,
    ) -> Result<()> {
        let state = self
            .state
            .upgrade()
            .ok_or_else(|| Error::internal("the server is shutting down"))?;
        let handled = ingest::deliver_or_set_aside_on(
            &state.ports,
            scope,
            connection,
            event,
            attempts,
            &self.lines,
        )
        .await;
        state.realtime.wake();
        state.jobs.wake();
        log_handled(scope, connection, &handled?);
        Ok(())
    }

    async fn deliver_batch(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        events: Vec<Queued>,
    ) -> BatchDelivery {
        let Some(state) = self.state.upgrade() else {
            return BatchDelivery {
                handled: 0,
                failed: Some(Error::internal("the server is shutting down")),
            };
        };
        let done =
            ingest::deliver_batch_on(&state.ports, scope, connection, events, &self.lines).await;
        state.realtime.wake();
        state.jobs.wake();
        for handled in &done.handled {
            log_handled(scope, connection, handled);
        }
        BatchDelivery {
            handled: done.handled.len(),
            failed: done.failed,
        }
    }
}

/// Logs an event set aside (the automation logs its own failures).
fn log_handled(scope: TenantScope, connection: WhatsappId, handled: &Handled) {
    match handled {
        Handled::Delivered(_) => {}
        Handled::SetAside { id, error } => tracing::warn!(
            company = scope.company_id().0,
            connection = connection.0,
            failure = id,
            "an inbound event could not be stored and was set aside: {error}"
        ),
    }
}
