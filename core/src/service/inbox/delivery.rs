//! Delivery assurance (rules in [`crate::inbox::delivery`]): the `checkDelivery` job that
//! flags a connection's messages left at one tick ([`look`]), started when a connection is
//! connected ([`on_connected`]), and the connection's health view ([`health`]).

use crate::error::{ErrorCode, Result};
use crate::identity::Actor;
use crate::ids::{TenantScope, WhatsappId};
use crate::inbox::delivery::{self, DeliveryHealth};
use crate::inbox::model::ConnectionStatus;
use crate::policy::{self, Action};
use crate::service::Ports;

/// The connection is connected: its looks start (one due after the first interval).
pub(super) async fn on_connected(ports: &Ports, scope: TenantScope, id: WhatsappId) -> Result<()> {
    if let Some(at) = delivery::next_look(ports.clock.now(), true) {
        ports.delivery.schedule(scope, id, at).await?;
    }
    Ok(())
}

/// The `checkDelivery` job: flags the connection's messages left at one tick and, while it is
/// connected, schedules the next look. A connection that is gone needs nothing.
#[tracing::instrument(level = "debug", name = "inbox.delivery::look", skip_all, fields(company = scope.company_id().0, connection = id.0))]
pub async fn look(ports: &Ports, scope: TenantScope, id: WhatsappId) -> Result<()> {
    let Some(connection) = ports.connections.get(scope, id).await? else {
        return Ok(());
    };
    let now = ports.clock.now();
    let (since, before) = delivery::window(now);
    let flagged = ports
        .delivery
        .flag_undelivered(scope, id, since, before)
        .await?;
    if flagged > 0 {
        tracing::warn!(flagged, "outbound messages were not delivered");
    }
    let connected = connection.status == ConnectionStatus::Connected;
    if let Some(at) = delivery::next_look(now, connected) {
        ports.delivery.schedule(scope, id, at).await?;
    }
    Ok(())
}

/// The connection's delivery health (`GET /whatsapp/{id}/health`): its messages flagged in the
/// last day. Needs `ManageConnections`; `ERR_NO_WAPP_FOUND` for a connection not of the company.
#[tracing::instrument(level = "debug", name = "inbox.delivery::health", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0, connection = id.0))]
pub async fn health(ports: &Ports, actor: &Actor, id: WhatsappId) -> Result<DeliveryHealth> {
    policy::authorize(actor, &Action::ManageConnections(actor.company_id))?;
    let scope = actor.scope();
    if ports.connections.get(scope, id).await?.is_none() {
        return Err(ErrorCode::ERR_NO_WAPP_FOUND.into());
    }
    let (since, _) = delivery::window(ports.clock.now());
    ports.delivery.health(scope, id, since).await
}
