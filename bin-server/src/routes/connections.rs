//! Connections (`/whatsapp`, `/whatsappsession`, `/whatsapp-restart`, `/closedimported`): the
//! company's channel accounts, their sessions, the tickets their import of old messages
//! opened and their gaps after an outage.
//!
//! Every handler hands the caller and the request to
//! `chatflow_core::service::inbox::connections`, which scopes each call to the caller's
//! company: another company's ids answer 404 `ERR_NO_WAPP_FOUND`.

use axum::extract::State;
use axum::http::StatusCode;
use chatflow_core::WhatsappId;
use chatflow_core::inbox::model::{Connection, ConnectionInput};
use chatflow_core::ports::ChannelKind;
use chatflow_core::service::inbox::connections;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::error::{ApiResult, ErrorBody};
use crate::extract::{Json, Path, Query, Tenant};
use crate::state::AppState;

/// The routes of this module.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_connections, create_connection))
        .routes(routes!(filter_connections))
        .routes(routes!(list_providers))
        .routes(routes!(
            get_connection,
            update_connection,
            delete_connection
        ))
        .routes(routes!(regenerate_token))
        .routes(routes!(start_session, new_qr, disconnect))
        .routes(routes!(request_pair_code))
        .routes(routes!(restart_all))
        .routes(routes!(close_imported))
        .routes(routes!(dismiss_gap))
        .routes(routes!(delivery_health))
}

/// `GET /whatsapp` query.
#[derive(Debug, Clone, Default, Deserialize, IntoParams)]
#[serde(default)]
#[into_params(parameter_in = Query)]
pub struct ListParams {
    /// `0` leaves out session details; accepted for compatibility, the list is the same.
    pub session: Option<String>,
}

/// `GET /whatsapp/filter` query.
#[derive(Debug, Clone, Default, Deserialize, IntoParams)]
#[serde(default)]
#[into_params(parameter_in = Query)]
pub struct FilterParams {
    /// Only connections of this channel.
    pub channel: Option<ChannelKind>,
}

/// The body of `POST /whatsappsession/{id}/paircode`.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
#[serde(default)]
pub struct PairCodeRequest {
    /// The phone's number in international form, country code first (`+`, spaces and dashes
    /// are ignored; 8 to 15 digits remain).
    #[schema(example = "5511988887777")]
    pub number: String,
}

/// The answer of `POST /closedimported/{id}`.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ClosedImported {
    /// How many imported tickets were closed.
    pub closed: u64,
}

/// The answer of `POST /whatsapp-restart/`.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Restarted {
    /// How many sessions were restarted.
    pub restarted: usize,
}

/// Every connection of the caller's company.
#[utoipa::path(
    get,
    path = "/whatsapp",
    tag = "connections",
    params(ListParams),
    security(("bearer" = [])),
    responses((status = 200, body = Vec<Connection>))
)]
async fn list_connections(
    State(state): State<AppState>,
    tenant: Tenant,
    Query(_params): Query<ListParams>,
) -> ApiResult<axum::Json<Vec<Connection>>> {
    Ok(axum::Json(
        connections::list(&state.ports, &tenant.actor, None).await?,
    ))
}

/// The company's connections of one channel.
#[utoipa::path(
    get,
    path = "/whatsapp/filter",
    tag = "connections",
    params(FilterParams),
    security(("bearer" = [])),
    responses((status = 200, body = Vec<Connection>))
)]
async fn filter_connections(
    State(state): State<AppState>,
    tenant: Tenant,
    Query(params): Query<FilterParams>,
) -> ApiResult<axum::Json<Vec<Connection>>> {
    Ok(axum::Json(
        connections::list(&state.ports, &tenant.actor, params.channel).await?,
    ))
}

/// The providers this server runs and what a new connection gets when its creation names none
/// (the connection dialog offers the choice when there are several).
#[utoipa::path(
    get,
    path = "/whatsapp/providers",
    tag = "connections",
    security(("bearer" = [])),
    responses((status = 200, body = connections::Providers))
)]
async fn list_providers(
    State(state): State<AppState>,
    _tenant: Tenant,
) -> ApiResult<axum::Json<connections::Providers>> {
    Ok(axum::Json(connections::providers(&state.ports)))
}

/// Creates a connection (admins, or users with allowConnections).
#[utoipa::path(
    post,
    path = "/whatsapp",
    tag = "connections",
    request_body = ConnectionInput,
    security(("bearer" = [])),
    responses(
        (status = 200, body = Connection),
        (status = 403, description = "ERR_NO_PERMISSION or ERR_CONNECTION_LIMIT_REACHED", body = ErrorBody),
        (status = 422, description = "ERR_VALIDATION", body = ErrorBody),
    )
)]
async fn create_connection(
    State(state): State<AppState>,
    tenant: Tenant,
    Json(input): Json<ConnectionInput>,
) -> ApiResult<axum::Json<Connection>> {
    Ok(axum::Json(
        connections::create(&state.ports, &tenant.actor, input).await?,
    ))
}

/// One connection of the caller's company.
#[utoipa::path(
    get,
    path = "/whatsapp/{id}",
    tag = "connections",
    params(("id" = i64, Path, description = "The connection's id"), ListParams),
    security(("bearer" = [])),
    responses((status = 200, body = Connection), (status = 404, body = ErrorBody))
)]
async fn get_connection(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(id): Path<i64>,
    Query(_params): Query<ListParams>,
) -> ApiResult<axum::Json<Connection>> {
    Ok(axum::Json(
        connections::get(&state.ports, &tenant.actor, WhatsappId(id)).await?,
    ))
}

/// Changes a connection's settings.
#[utoipa::path(
    put,
    path = "/whatsapp/{id}",
    tag = "connections",
    params(("id" = i64, Path, description = "The connection's id")),
    request_body = ConnectionInput,
    security(("bearer" = [])),
    responses(
        (status = 200, body = Connection),
        (status = 409, description = "ERR_NO_OTHER_WHATSAPP", body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody),
        (status = 422, description = "ERR_VALIDATION", body = ErrorBody),
    )
)]
async fn update_connection(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(id): Path<i64>,
    Json(input): Json<ConnectionInput>,
) -> ApiResult<axum::Json<Connection>> {
    Ok(axum::Json(
        connections::update(&state.ports, &tenant.actor, WhatsappId(id), input).await?,
    ))
}

/// Deletes a connection (its session ends first).
#[utoipa::path(
    delete,
    path = "/whatsapp/{id}",
    tag = "connections",
    params(("id" = i64, Path, description = "The connection's id")),
    security(("bearer" = [])),
    responses((status = 204), (status = 403, body = ErrorBody), (status = 404, body = ErrorBody))
)]
async fn delete_connection(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(id): Path<i64>,
) -> ApiResult<StatusCode> {
    connections::delete(&state.ports, &tenant.actor, WhatsappId(id)).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// Replaces the connection's API token with a new random one.
#[utoipa::path(
    post,
    path = "/whatsapp/{id}/token",
    tag = "connections",
    params(("id" = i64, Path, description = "The connection's id")),
    security(("bearer" = [])),
    responses((status = 200, body = Connection), (status = 403, body = ErrorBody), (status = 404, body = ErrorBody))
)]
async fn regenerate_token(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(id): Path<i64>,
) -> ApiResult<axum::Json<Connection>> {
    Ok(axum::Json(
        connections::regenerate_token(&state.ports, &tenant.actor, WhatsappId(id)).await?,
    ))
}

/// Starts (or retries) the session; progress arrives on `company-{id}-whatsappSession`.
#[utoipa::path(
    post,
    path = "/whatsappsession/{id}",
    tag = "connections",
    params(("id" = i64, Path, description = "The connection's id")),
    security(("bearer" = [])),
    responses((status = 204), (status = 502, description = "ERR_WAPP_NOT_INITIALIZED", body = ErrorBody), (status = 404, body = ErrorBody))
)]
async fn start_session(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(id): Path<i64>,
) -> ApiResult<StatusCode> {
    connections::start_session(&state.ports, &tenant.actor, WhatsappId(id)).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// Drops the session and shows a new QR code.
#[utoipa::path(
    put,
    path = "/whatsappsession/{id}",
    tag = "connections",
    params(("id" = i64, Path, description = "The connection's id")),
    security(("bearer" = [])),
    responses((status = 204), (status = 404, body = ErrorBody))
)]
async fn new_qr(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(id): Path<i64>,
) -> ApiResult<StatusCode> {
    connections::new_qr(&state.ports, &tenant.actor, WhatsappId(id)).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// Links the connection by phone number instead of a QR code: the code to type on the phone
/// (WhatsApp > Linked devices > Link a device > Link with phone number instead) arrives on
/// `company-{id}-whatsappSession` as status `PAIRING` with its `pairingCode`.
#[utoipa::path(
    post,
    path = "/whatsappsession/{id}/paircode",
    tag = "connections",
    params(("id" = i64, Path, description = "The connection's id")),
    request_body = PairCodeRequest,
    security(("bearer" = [])),
    responses(
        (status = 204),
        (status = 403, description = "ERR_NO_PERMISSION: the caller does not manage connections", body = ErrorBody),
        (status = 404, description = "ERR_NO_WAPP_FOUND: not a connection of the company", body = ErrorBody),
        (status = 422, description = "ERR_WAPP_INVALID_CONTACT: the number is not 8 to 15 digits (field `number`); ERR_CHANNEL_NOT_SUPPORTED: the connection's provider cannot link by code", body = ErrorBody),
        (status = 502, description = "ERR_WAPP_NOT_INITIALIZED: the session is not waiting to be paired (start it first)", body = ErrorBody),
    )
)]
async fn request_pair_code(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(id): Path<i64>,
    Json(body): Json<PairCodeRequest>,
) -> ApiResult<StatusCode> {
    connections::request_pair_code(&state.ports, &tenant.actor, WhatsappId(id), &body.number)
        .await?;
    Ok(StatusCode::NO_CONTENT)
}

/// Ends the session.
#[utoipa::path(
    delete,
    path = "/whatsappsession/{id}",
    tag = "connections",
    params(("id" = i64, Path, description = "The connection's id")),
    security(("bearer" = [])),
    responses((status = 204), (status = 404, body = ErrorBody))
)]
async fn disconnect(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(id): Path<i64>,
) -> ApiResult<StatusCode> {
    connections::disconnect(&state.ports, &tenant.actor, WhatsappId(id)).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// Restarts every session of the company.
#[utoipa::path(
    post,
    path = "/whatsapp-restart/",
    tag = "connections",
    security(("bearer" = [])),
    responses((status = 200, body = Restarted), (status = 403, body = ErrorBody))
)]
async fn restart_all(
    State(state): State<AppState>,
    tenant: Tenant,
) -> ApiResult<axum::Json<Restarted>> {
    let restarted = connections::restart_all(&state.ports, &tenant.actor).await?;
    Ok(axum::Json(Restarted { restarted }))
}

/// Closes the tickets the connection's import of old messages opened that are still pending
/// (no message goes to the contacts); the connection's `statusImportMessages` is cleared once
/// its import is over.
#[utoipa::path(
    post,
    path = "/closedimported/{id}",
    tag = "connections",
    params(("id" = i64, Path, description = "Connection id")),
    security(("bearer" = [])),
    responses(
        (status = 200, body = ClosedImported),
        (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody)
    )
)]
async fn close_imported(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(id): Path<i64>,
) -> ApiResult<axum::Json<ClosedImported>> {
    let closed = chatflow_core::service::inbox::history::close_imported(
        &state.ports,
        &tenant.actor,
        WhatsappId(id),
    )
    .await?;
    Ok(axum::Json(ClosedImported { closed }))
}

/// Hides the connection's last gap (`lastGap`: messages may be missing between two times after
/// an outage); the connection's `whatsapp` update follows.
#[utoipa::path(
    delete,
    path = "/whatsapp/{id}/gap",
    tag = "connections",
    params(("id" = i64, Path, description = "Connection id")),
    security(("bearer" = [])),
    responses(
        (status = 204),
        (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody)
    )
)]
async fn dismiss_gap(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(id): Path<i64>,
) -> ApiResult<StatusCode> {
    chatflow_core::service::inbox::gaps::dismiss(&state.ports, &tenant.actor, WhatsappId(id))
        .await?;
    Ok(StatusCode::NO_CONTENT)
}

/// The connection's delivery health: its outbound messages still at one tick ten minutes after
/// WhatsApp took them, in the last day (the count and the newest 20).
#[utoipa::path(
    get,
    path = "/whatsapp/{id}/health",
    tag = "connections",
    params(("id" = i64, Path, description = "Connection id")),
    security(("bearer" = [])),
    responses(
        (status = 200, body = chatflow_core::inbox::delivery::DeliveryHealth),
        (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody)
    )
)]
async fn delivery_health(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(id): Path<i64>,
) -> ApiResult<axum::Json<chatflow_core::inbox::delivery::DeliveryHealth>> {
    let health = chatflow_core::service::inbox::delivery::health(
        &state.ports,
        &tenant.actor,
        WhatsappId(id),
    )
    .await?;
    Ok(axum::Json(health))
}
