//! Calls to a connection's phone ([`InboundEvent::IncomingCall`](crate::inbox::channel::InboundEvent::IncomingCall)):
//! the company's `acceptCallWhatsapp` setting decides ([`crate::settings::incoming_call`]).
//!
//! - Taken (the default): nothing happens here; the phone rings, and a call nobody answers comes
//!   back as a missed call.
//! - Not taken: the call is declined on the channel (best effort: a call that stopped ringing
//!   meanwhile cannot be; a redelivered call is declined again, which changes nothing), stored in the contact's ticket as a call-log line (once per call: a
//!   redelivery, or the missed-call event WhatsApp may send for the same call, is a duplicate),
//!   and answered with `AcceptCallWhatsappMessage` when the company wrote one. The answer goes
//!   out once, by the delivery that stored the call, after its commit, as the bot's other
//!   automatic messages do.

use chrono::{DateTime, Utc};

use crate::error::Result;
use crate::ids::TenantScope;
use crate::inbox::channel::InboundMessage;
use crate::inbox::model::Connection;
use crate::inbox::ports::IngestOutcome;
use crate::service::Ports;
use crate::settings::{self, CallAnswer};

/// A call a contact is making, as the channel reported it.
pub struct IncomingCall {
    pub external_id: String,
    pub chat: String,
    pub chat_name: String,
    pub timestamp: DateTime<Utc>,
}

/// Handles an incoming call on `connection` (see the module); answers what ingestion did with
/// its call-log line (`None` when the phone rings).
#[tracing::instrument(level = "debug", name = "inbox.calls::on_incoming", skip_all, fields(company = scope.company_id().0, connection = connection.id.0))]
pub async fn on_incoming(
    ports: &Ports,
    scope: TenantScope,
    connection: &Connection,
    call: IncomingCall,
) -> Result<Option<IngestOutcome>> {
    let stored_settings = settings::to_map(&ports.settings.company_settings(scope).await?);
    let CallAnswer::Decline { reply } = settings::incoming_call(&stored_settings) else {
        return Ok(None);
    };
    match ports.channels.get(connection.provider) {
        Ok(provider) => {
            if let Err(error) = provider
                .reject_call(scope, connection.id, &call.external_id, &call.chat)
                .await
            {
                tracing::warn!(%error, "a call could not be declined");
            }
        }
        Err(error) => tracing::warn!(%error, "a call could not be declined"),
    }
    let line =
        InboundMessage::call_log(call.external_id, call.chat, call.chat_name, call.timestamp);
    let stored = super::ingest::store_one(ports, scope, connection, &line).await?;
    if let (IngestOutcome::Stored { ticket, .. }, Some(reply)) = (&stored.outcome, reply) {
        let ticket = match stored.ticket.as_deref() {
            Some(ticket) => Some(ticket.clone()),
            None => ports.tickets.get(scope, *ticket).await?,
        };
        if let Some(ticket) = ticket
            && let Err(error) = super::messages::send_bot_text(ports, scope, &ticket, &reply).await
        {
            tracing::warn!(%error, "the answer to a declined call was not sent");
        }
    }
    Ok(Some(stored.outcome))
}
