//! The inbox's inbound sink: providers deliver every [`InboundEvent`] here and it hands them to
//! `chatflow_core::service::inbox::ingest::deliver` (exactly-once ingestion of messages;
//! receipts, edits, deletions, reactions; session changes), then wakes the realtime dispatcher.
//! It returns only once the event is committed (or known as a duplicate), so a provider
//! acknowledges an event only after it is durable.

use std::sync::{Arc, Weak};

use async_trait::async_trait;
use chatflow_core::inbox::channel::{InboundEvent, InboundSink};
use chatflow_core::service::inbox::ingest;
use chatflow_core::{Error, Result, TenantScope, WhatsappId};

use crate::state::{AppState, Shared};

/// The sink every provider of this server delivers to.
#[derive(Debug, Clone)]
pub struct Sink {
    state: Weak<Shared>,
}

impl Sink {
    /// A sink reaching the ports through `state` (weakly, so a provider does not keep the state
    /// alive).
    pub fn new(state: &AppState) -> Arc<Self> {
        Arc::new(Self {
            state: state.downgrade(),
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
        let delivery = ingest::deliver(&state.ports, scope, connection, event).await;
        state.realtime.wake();
        state.jobs.wake();
        let delivery = delivery?;
        if let Err(e) = delivery.automation {
            tracing::warn!(
                company = scope.company_id().0,
                connection = connection.0,
                "automation after an inbound message failed: {e}"
            );
        }
        Ok(())
    }
}
