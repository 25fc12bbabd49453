//! Connections (`/whatsapp`, `/whatsappsession`): listing, creating, editing and deleting a
//! company's channel accounts, their default flag and API token, and their sessions through the
//! provider that drives them.
//!
//! Rules (spec 2 §5): writes need `ManageConnections` (admins, or users with allowConnections),
//! reads `ListConnections`; the plan's `connections` limits how many a company has; exactly one
//! connection is the default whenever the company has any.

use crate::error::{Error, ErrorCode, FieldCode, FieldError, Result};
use crate::identity::Actor;
use crate::ids::{TenantScope, WhatsappId};
use crate::inbox::connection_rules::{self, ConnectionContext, TOKEN_LEN};
use crate::inbox::model::{Connection, ConnectionInput, ProviderKind, SessionUpdate};
use crate::policy::{self, Action};
use crate::ports::ChannelKind;
use crate::service::Ports;

/// The company setting that turns ratings (NPS) on.
const USER_RATING: &str = "userRating";

/// The company's connections (`GET /whatsapp`), optionally of one channel
/// (`GET /whatsapp/filter?channel=`).
#[tracing::instrument(level = "debug", name = "inbox.connections::list", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0))]
pub async fn list(
    ports: &Ports,
    actor: &Actor,
    channel: Option<ChannelKind>,
) -> Result<Vec<Connection>> {
    policy::authorize(actor, &Action::ListConnections(actor.company_id))?;
    let all = ports.connections.list(actor.scope()).await?;
    Ok(all
        .into_iter()
        .filter(|c| channel.is_none_or(|channel| c.channel == channel))
        .map(|c| crate::inbox::connection_rules::connection_for(actor, c))
        .collect())
}

/// One connection (`GET /whatsapp/{id}`); `ERR_NO_WAPP_FOUND` when it is not the company's.
#[tracing::instrument(level = "debug", name = "inbox.connections::get", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0, connection = id.0))]
pub async fn get(ports: &Ports, actor: &Actor, id: WhatsappId) -> Result<Connection> {
    policy::authorize(actor, &Action::ListConnections(actor.company_id))?;
    let connection = find(ports, actor.scope(), id).await?;
    Ok(crate::inbox::connection_rules::connection_for(
        actor, connection,
    ))
}

/// The company's default connection; `ERR_NO_DEF_WAPP_FOUND` when it has none (a ticket
/// opened without naming a connection uses it).
#[tracing::instrument(level = "debug", name = "inbox.connections::default_connection", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0))]
pub async fn default_connection(ports: &Ports, actor: &Actor) -> Result<Connection> {
    default_in(ports, actor.scope()).await
}

/// [`default_connection`] for a scope, without an acting user (ingestion, the CLI).
#[tracing::instrument(level = "debug", name = "inbox.connections::default_in", skip_all, fields(company = scope.company_id().0))]
pub async fn default_in(ports: &Ports, scope: TenantScope) -> Result<Connection> {
    ports
        .connections
        .list(scope)
        .await?
        .into_iter()
        .find(|c| c.is_default)
        .ok_or_else(|| ErrorCode::ERR_NO_DEF_WAPP_FOUND.into())
}

/// Creates a connection (`POST /whatsapp`) with a fresh token.
///
/// Validates the fields, checks the queues and flows are the company's and the plan has room
/// (`ERR_CONNECTION_LIMIT_REACHED`). The company's first connection becomes the default; a new
/// default takes the flag from the others. The provider is the one asked for, else the host's
/// only provider, else `beta`.
#[tracing::instrument(level = "debug", name = "inbox.connections::create", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0))]
pub async fn create(ports: &Ports, actor: &Actor, input: ConnectionInput) -> Result<Connection> {
    policy::authorize(actor, &Action::ManageConnections(actor.company_id))?;
    let scope = actor.scope();
    let mut input = crate::inbox::history::cleared(normalised(input));
    validate(ports, scope, &input).await?;
    let count = ports.connections.count(scope).await?;
    check_plan_room(ports, scope, count).await?;
    if count == 0 {
        input.is_default = true;
    }
    if input.provider.is_none() {
        input.provider = Some(default_provider(ports));
    }
    if input.channel.is_none() {
        input.channel = Some(ChannelKind::Whatsapp);
    }
    let token = ports.ids.token(TOKEN_LEN);
    ports.connections.create(scope, &input, &token, &[]).await
}

/// Updates a connection's fields (`PUT /whatsapp/{id}`).
///
/// Setting the default flag moves it here; taking it off the default moves it to another
/// connection, and is refused with `ERR_NO_OTHER_WHATSAPP` when there is none.
#[tracing::instrument(level = "debug", name = "inbox.connections::update", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0, connection = id.0))]
pub async fn update(
    ports: &Ports,
    actor: &Actor,
    id: WhatsappId,
    input: ConnectionInput,
) -> Result<Connection> {
    policy::authorize(actor, &Action::ManageConnections(actor.company_id))?;
    let scope = actor.scope();
    let current = find(ports, scope, id).await?;
    let mut input = crate::inbox::history::cleared(normalised(input));
    validate(ports, scope, &input).await?;
    // The provider and channel of an existing connection stay unless named.
    input.provider = input.provider.or(Some(current.provider));
    input.channel = input.channel.or(Some(current.channel));
    if current.is_default && !input.is_default {
        let all = ports.connections.list(scope).await?;
        let other = all.iter().find(|c| c.id != id);
        if !connection_rules::may_unset_default(true, usize::from(other.is_some())) {
            return Err(ErrorCode::ERR_NO_OTHER_WHATSAPP.into());
        }
        if let Some(other) = other {
            ports.connections.set_default(scope, other.id).await?;
        }
    }
    let relink = current.status == crate::inbox::model::ConnectionStatus::Connected
        && crate::inbox::history::relink_needed(&current, &input);
    let updated: Connection = ports
        .connections
        .update(scope, id, &input)
        .await?
        .ok_or(ErrorCode::ERR_NO_WAPP_FOUND)?;
    if relink {
        // WhatsApp sends a phone's history only right after a new link: the session is
        // dropped and a new QR code asked for (the dialog warned).
        provider_for(ports, scope, &updated)
            .await?
            .new_qr(scope, id)
            .await?;
    }
    Ok(updated)
}

/// Deletes a connection (`DELETE /whatsapp/{id}`), ending its session first. When it was the
/// default, another connection (the oldest) becomes the default.
#[tracing::instrument(level = "debug", name = "inbox.connections::delete", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0, connection = id.0))]
pub async fn delete(ports: &Ports, actor: &Actor, id: WhatsappId) -> Result<()> {
    policy::authorize(actor, &Action::ManageConnections(actor.company_id))?;
    let scope = actor.scope();
    let current = find(ports, scope, id).await?;
    if let Ok(provider) = ports.channels.get(current.provider) {
        // A session that cannot be ended cleanly must not keep the row alive.
        let _ = provider.disconnect(scope, id).await;
    }
    if !ports.connections.delete(scope, id).await? {
        return Err(ErrorCode::ERR_NO_WAPP_FOUND.into());
    }
    if current.is_default
        && let Some(next) = ports.connections.list(scope).await?.into_iter().next()
    {
        ports.connections.set_default(scope, next.id).await?;
    }
    Ok(())
}

/// Replaces the connection's API token with a fresh one (`POST /whatsapp/{id}/token`).
#[tracing::instrument(level = "debug", name = "inbox.connections::regenerate_token", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0, connection = id.0))]
pub async fn regenerate_token(ports: &Ports, actor: &Actor, id: WhatsappId) -> Result<Connection> {
    policy::authorize(actor, &Action::ManageConnections(actor.company_id))?;
    let scope = actor.scope();
    find(ports, scope, id).await?;
    let token = ports.ids.token(TOKEN_LEN);
    if !ports.connections.set_token(scope, id, &token).await? {
        return Err(ErrorCode::ERR_NO_WAPP_FOUND.into());
    }
    find(ports, scope, id).await
}

/// Starts (or retries) the session (`POST /whatsappsession/{id}`); progress arrives as session
/// events.
#[tracing::instrument(level = "debug", name = "inbox.connections::start_session", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0, connection = id.0))]
pub async fn start_session(ports: &Ports, actor: &Actor, id: WhatsappId) -> Result<()> {
    let (scope, connection) = for_session(ports, actor, id).await?;
    provider_for(ports, scope, &connection)
        .await?
        .start(scope, id)
        .await
}

/// Drops the session and asks for a fresh QR code (`PUT /whatsappsession/{id}`).
#[tracing::instrument(level = "debug", name = "inbox.connections::new_qr", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0, connection = id.0))]
pub async fn new_qr(ports: &Ports, actor: &Actor, id: WhatsappId) -> Result<()> {
    let (scope, connection) = for_session(ports, actor, id).await?;
    provider_for(ports, scope, &connection)
        .await?
        .new_qr(scope, id)
        .await
}

/// Asks to link the connection by phone number instead of a QR code
/// (`POST /whatsappsession/{id}/paircode`): the number is checked by
/// [`connection_rules::pair_code_phone`] (`ERR_WAPP_INVALID_CONTACT` on the field `number`) and
/// handed to the provider digits only. The code to type on the phone arrives as a session event
/// (status `PAIRING` with its `pairingCode`); providers that cannot link by code answer
/// `ERR_CHANNEL_NOT_SUPPORTED`.
#[tracing::instrument(level = "debug", name = "inbox.connections::request_pair_code", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0, connection = id.0))]
pub async fn request_pair_code(
    ports: &Ports,
    actor: &Actor,
    id: WhatsappId,
    number: &str,
) -> Result<()> {
    let (scope, connection) = for_session(ports, actor, id).await?;
    let phone = connection_rules::pair_code_phone(number)?;
    provider_for(ports, scope, &connection)
        .await?
        .request_pair_code(scope, id, &phone)
        .await
}

/// Ends the session (`DELETE /whatsappsession/{id}`).
#[tracing::instrument(level = "debug", name = "inbox.connections::disconnect", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0, connection = id.0))]
pub async fn disconnect(ports: &Ports, actor: &Actor, id: WhatsappId) -> Result<()> {
    let (scope, connection) = for_session(ports, actor, id).await?;
    ports
        .channels
        .get(connection.provider)?
        .disconnect(scope, id)
        .await
}

/// Restarts every session of the company (`POST /whatsapp-restart/`); returns how many
/// started. Connections whose provider this host does not run are skipped.
#[tracing::instrument(level = "debug", name = "inbox.connections::restart_all", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0))]
pub async fn restart_all(ports: &Ports, actor: &Actor) -> Result<usize> {
    policy::authorize(actor, &Action::ManageConnections(actor.company_id))?;
    let scope = actor.scope();
    let mut started = 0;
    for connection in ports.connections.list(scope).await? {
        if ports.channels.get(connection.provider).is_ok() {
            provider_for(ports, scope, &connection)
                .await?
                .start(scope, connection.id)
                .await?;
            started += 1;
        }
    }
    Ok(started)
}

/// Platform-level, at startup: restarts the sessions of every connection that was CONNECTED
/// (on a provider this host runs). Returns how many restarted; failures are returned per
/// connection so the host can log them.
#[tracing::instrument(
    level = "debug",
    name = "inbox.connections::restore_sessions",
    skip_all
)]
pub async fn restore_sessions(ports: &Ports) -> Result<Vec<(WhatsappId, Result<()>)>> {
    let mut outcomes = Vec::new();
    for connection in ports.connections.list_all_platform().await? {
        if connection.status != crate::inbox::model::ConnectionStatus::Connected {
            continue;
        }
        let Ok(provider) = ports.channels.get(connection.provider) else {
            continue;
        };
        let scope = TenantScope::new(connection.company_id);
        let wanted = crate::inbox::history::window_of(&connection).is_some();
        let started = match provider.want_history(scope, connection.id, wanted).await {
            Ok(()) => provider.start(scope, connection.id).await,
            Err(error) => Err(error),
        };
        outcomes.push((connection.id, started));
    }
    Ok(outcomes)
}

/// Records a session change a provider reported (status, QR code, number, pair code, reason;
/// what no longer applies is cleared by [`connection_rules::session_details_after`]) and appends
/// the `whatsappSession` event. Ingestion calls it for [`crate::inbox::channel::InboundEvent::Session`].
#[tracing::instrument(level = "debug", name = "inbox.connections::record_session", skip_all, fields(company = scope.company_id().0, connection = id.0))]
pub async fn record_session(
    ports: &Ports,
    scope: TenantScope,
    id: WhatsappId,
    update: &SessionUpdate,
) -> Result<Connection> {
    let before = find(ports, scope, id).await?;
    let after = ports
        .connections
        .set_session(scope, id, update)
        .await?
        .ok_or_else(|| crate::Error::from(ErrorCode::ERR_NO_WAPP_FOUND))?;
    super::gaps::on_session(ports, scope, &before, update).await?;
    if update.status == crate::inbox::model::ConnectionStatus::Connected
        && before.status != update.status
    {
        super::delivery::on_connected(ports, scope, id).await?;
    }
    Ok(after)
}

// ------------------------------------------------------------------ helpers

async fn find(ports: &Ports, scope: TenantScope, id: WhatsappId) -> Result<Connection> {
    ports
        .connections
        .get(scope, id)
        .await?
        .ok_or_else(|| ErrorCode::ERR_NO_WAPP_FOUND.into())
}

/// The connection's provider, told first whether the next linking asks for the phone's whole
/// history ([`crate::inbox::channel::ChannelProvider::want_history`]).
async fn provider_for(
    ports: &Ports,
    scope: TenantScope,
    connection: &Connection,
) -> Result<std::sync::Arc<dyn crate::inbox::channel::ChannelProvider>> {
    let provider = ports.channels.get(connection.provider)?;
    let wanted = crate::inbox::history::window_of(connection).is_some();
    provider.want_history(scope, connection.id, wanted).await?;
    Ok(provider)
}

async fn for_session(
    ports: &Ports,
    actor: &Actor,
    id: WhatsappId,
) -> Result<(TenantScope, Connection)> {
    policy::authorize(actor, &Action::ManageConnections(actor.company_id))?;
    let scope = actor.scope();
    let connection = find(ports, scope, id).await?;
    Ok((scope, connection))
}

/// Trims text fields and drops duplicate queue ids.
fn normalised(mut input: ConnectionInput) -> ConnectionInput {
    input.name = input.name.trim().to_owned();
    let mut seen = Vec::with_capacity(input.queue_ids.len());
    input.queue_ids.retain(|q| {
        if seen.contains(q) {
            false
        } else {
            seen.push(*q);
            true
        }
    });
    input
}

async fn validate(ports: &Ports, scope: TenantScope, input: &ConnectionInput) -> Result<()> {
    let stored = ports.settings.company_settings(scope).await?;
    let context = ConnectionContext {
        ratings_enabled: crate::settings::is_enabled(
            &crate::settings::to_map(&stored),
            USER_RATING,
        ),
        now: ports.clock.now(),
    };
    connection_rules::validate(input, context)?;
    check_flows(ports, scope, input).await?;
    // Every queue named (and the redirect queue) must be one of the company's.
    let named: Vec<_> = input
        .queue_ids
        .iter()
        .chain(&input.send_id_queue)
        .chain(&input.queue_id_import_messages)
        .collect();
    if named.is_empty() {
        return Ok(());
    }
    let known = ports.queues.list(scope).await?;
    let mut errors = Vec::new();
    if !input
        .queue_ids
        .iter()
        .all(|id| known.iter().any(|q| q.id == *id))
    {
        errors.push(FieldError::new("queueIds", FieldCode::InvalidFormat));
    }
    if let Some(queue) = input.send_id_queue
        && !known.iter().any(|q| q.id == queue)
    {
        errors.push(FieldError::new("sendIdQueue", FieldCode::InvalidFormat));
    }
    if let Some(queue) = input.queue_id_import_messages
        && !known.iter().any(|q| q.id == queue)
    {
        errors.push(FieldError::new(
            "queueIdImportMessages",
            FieldCode::InvalidFormat,
        ));
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(Error::validation(errors))
    }
}

/// The flows a connection names (`flowIdWelcome`, `flowIdNotPhrase`) must be the company's:
/// `ERR_NO_FLOW_FOUND` otherwise, with the field that names the missing flow.
async fn check_flows(ports: &Ports, scope: TenantScope, input: &ConnectionInput) -> Result<()> {
    for (field, flow) in [
        ("flowIdWelcome", input.flow_id_welcome),
        ("flowIdNotPhrase", input.flow_id_not_phrase),
    ] {
        let Some(flow) = flow else { continue };
        if ports.flows.get(scope, flow).await?.is_none() {
            return Err(Error {
                code: ErrorCode::ERR_NO_FLOW_FOUND,
                detail: Some(format!("{field} names no flow of the company")),
                fields: vec![FieldError::new(field, FieldCode::InvalidFormat)],
            });
        }
    }
    Ok(())
}

async fn check_plan_room(ports: &Ports, scope: TenantScope, count: i64) -> Result<()> {
    let plan = crate::service::companies::plan_of(ports, scope).await?;
    if count >= plan.connections {
        return Err(ErrorCode::ERR_CONNECTION_LIMIT_REACHED.into());
    }
    Ok(())
}

/// The provider of a new connection when none is named: the sandbox on a host that runs it (a
/// development or test host: API callers and scripts there get the simulated phone), else the
/// host's only provider, else `beta` (spec 2's default).
fn default_provider(ports: &Ports) -> ProviderKind {
    let all = ports.channels.all();
    if all.iter().any(|p| p.kind() == ProviderKind::Sandbox) {
        return ProviderKind::Sandbox;
    }
    match all {
        [only] => only.kind(),
        _ => ProviderKind::Beta,
    }
}

/// The providers this host runs (`GET /whatsapp/providers`), for the connection dialog's choice.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Providers {
    /// The providers, real ones first: `beta`, then the others in a fixed order, `sandbox` last.
    pub providers: Vec<ProviderKind>,
    /// What a new connection gets when its creation names no provider.
    pub default: ProviderKind,
}

/// The providers this host runs and the default of a new connection. Any signed-in user may
/// ask (it says nothing about the company).
pub fn providers(ports: &Ports) -> Providers {
    const ORDER: [ProviderKind; 5] = [
        ProviderKind::Beta,
        ProviderKind::Cloud,
        ProviderKind::Facebook,
        ProviderKind::Instagram,
        ProviderKind::Sandbox,
    ];
    let running: Vec<ProviderKind> = ports.channels.all().iter().map(|p| p.kind()).collect();
    Providers {
        providers: ORDER
            .into_iter()
            .filter(|kind| running.contains(kind))
            .collect(),
        default: default_provider(ports),
    }
}
