//! The sandbox channel's routes (mounted only when `CHATFLOW_SANDBOX` is on): pair a simulated
//! phone with a connection, send from a simulated phone, and read what simulated phones
//! received. At startup the sandbox delivers to the server's shared
//! inbound sink (`crate::inbound::Sink`).

use axum::extract::State;
use axum::http::StatusCode;
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use chatflow_core::inbox::model::ProviderKind;
use chatflow_core::inbox::sandbox::SandboxReceived;
use chatflow_core::service::inbox::connections;
use chatflow_core::{ErrorCode, TenantScope, WhatsappId};
use chatflow_sandbox::{PhoneFile, PhoneMessage, SandboxProvider};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::extract::{Json, Path, Query, Tenant};
use crate::state::AppState;

/// The routes of this module.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(scan))
        .routes(routes!(phone_send))
        .routes(routes!(phone_inbox))
}

/// The body of `POST /sandbox/{whatsappId}/send`.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct PhoneSend {
    /// The simulated phone's number (or group id).
    pub from: String,
    /// The contact's push name.
    pub name: Option<String>,
    /// The text (the caption with a file).
    pub body: String,
    /// Ignored: the type follows the file's MIME type.
    pub media_type: Option<String>,
    /// The file's name, with `base64`.
    pub file_name: Option<String>,
    /// The file's bytes, base64.
    pub base64: Option<String>,
    /// The sender is a group.
    pub is_group: bool,
}

/// The answer of `POST /sandbox/{whatsappId}/send`.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PhoneSent {
    /// The message's id on the channel.
    pub external_id: String,
}

/// `GET /sandbox/{whatsappId}/inbox` query.
#[derive(Debug, Clone, Default, Deserialize, IntoParams)]
#[serde(default)]
#[into_params(parameter_in = Query)]
pub struct InboxParams {
    /// Only what this number received.
    pub to: Option<String>,
}

/// The sandbox provider of this server and the caller's sandbox connection: a connection that
/// is not the company's, or not on the sandbox, answers 404.
async fn sandbox_connection(
    state: &AppState,
    tenant: &Tenant,
    id: i64,
) -> ApiResult<(SandboxProvider, TenantScope, WhatsappId)> {
    let provider = state
        .sandbox
        .clone()
        .ok_or(ErrorCode::ERR_WAPP_NOT_INITIALIZED)?;
    let connection = connections::get(&state.ports, &tenant.actor, WhatsappId(id)).await?;
    if connection.provider != ProviderKind::Sandbox {
        return Err(ApiError::code(ErrorCode::ERR_NO_WAPP_FOUND));
    }
    Ok((provider, tenant.scope(), connection.id))
}

/// A simulated phone scans the connection's QR code; the session becomes CONNECTED.
#[utoipa::path(
    post,
    path = "/sandbox/{whatsappId}/scan",
    tag = "sandbox",
    params(("whatsappId" = i64, Path, description = "The connection's id")),
    security(("bearer" = [])),
    responses(
        (status = 204),
        (status = 404, body = ErrorBody),
        (status = 502, description = "ERR_WAPP_NOT_INITIALIZED: the connection is not pairing", body = ErrorBody),
    )
)]
async fn scan(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(id): Path<i64>,
) -> ApiResult<StatusCode> {
    let (provider, scope, id) = sandbox_connection(&state, &tenant, id).await?;
    provider.scan(scope, id).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// A simulated phone sends a message to the connection.
#[utoipa::path(
    post,
    path = "/sandbox/{whatsappId}/send",
    tag = "sandbox",
    params(("whatsappId" = i64, Path, description = "The connection's id")),
    request_body = PhoneSend,
    security(("bearer" = [])),
    responses((status = 200, body = PhoneSent), (status = 400, body = ErrorBody), (status = 404, body = ErrorBody))
)]
async fn phone_send(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(id): Path<i64>,
    Json(body): Json<PhoneSend>,
) -> ApiResult<axum::Json<PhoneSent>> {
    let (provider, scope, id) = sandbox_connection(&state, &tenant, id).await?;
    let file = match body.base64 {
        Some(data) if !data.is_empty() => Some(PhoneFile {
            file_name: body.file_name.unwrap_or_else(|| "file".to_owned()),
            mime_type: String::new(),
            bytes: STANDARD
                .decode(data.trim())
                .map_err(|_| ApiError::code(ErrorCode::ERR_BAD_REQUEST))?,
        }),
        _ => None,
    };
    let message = PhoneMessage {
        from: body.from,
        name: body.name.unwrap_or_default(),
        body: body.body,
        is_group: body.is_group,
        file,
    };
    let external_id = provider.phone_send(scope, id, &message).await?;
    Ok(axum::Json(PhoneSent { external_id }))
}

/// What simulated phones received from the connection, oldest first, with acks.
#[utoipa::path(
    get,
    path = "/sandbox/{whatsappId}/inbox",
    tag = "sandbox",
    params(("whatsappId" = i64, Path, description = "The connection's id"), InboxParams),
    security(("bearer" = [])),
    responses((status = 200, body = Vec<serde_json::Value>), (status = 404, body = ErrorBody))
)]
async fn phone_inbox(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(id): Path<i64>,
    Query(params): Query<InboxParams>,
) -> ApiResult<axum::Json<Vec<SandboxReceived>>> {
    let (provider, scope, id) = sandbox_connection(&state, &tenant, id).await?;
    let to = params.to.filter(|t| !t.is_empty());
    Ok(axum::Json(
        provider.received(scope, id, to.as_deref()).await?,
    ))
}

/// At startup, when the sandbox runs: attaches the inbound sink, starts the background task and
/// restarts the sessions of connections that were CONNECTED.
pub async fn start(state: &AppState) {
    let Some(sandbox) = &state.sandbox else {
        return;
    };
    sandbox.attach_sink(crate::inbound::Sink::new(state));
    sandbox.spawn();
    match connections::restore_sessions(&state.ports).await {
        Ok(outcomes) => {
            for (connection, outcome) in outcomes {
                if let Err(e) = outcome {
                    tracing::warn!(connection = connection.0, error = %e, "cannot restart a session");
                }
            }
        }
        Err(e) => tracing::warn!(error = %e, "cannot list the connections to restart"),
    }
}
