//! Inbound: the library's decrypted messages and events mapped to the core's
//! [`chatflow_core::inbox::channel::InboundEvent`]s, and the durability hook that commits them
//! through the [`chatflow_core::inbox::channel::InboundSink`] before WhatsApp gets its ack.

use std::sync::Arc;

use chatflow_core::inbox::channel::InboundSink;
use chatflow_core::{TenantScope, WhatsappId};

/// Commits batches of decrypted messages of one connection (see the module's documentation).
pub struct Ingestor {
    pub scope: TenantScope,
    pub connection: WhatsappId,
    pub sink: Arc<dyn InboundSink>,
}
