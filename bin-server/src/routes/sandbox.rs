//! The sandbox channel's routes (mounted only when `CHATFLOW_SANDBOX` is on; admins of the
//! company only, as they act as any phone and read what any chat received): pair a simulated
//! phone with a connection (scan its QR code, or type its pair code); have a simulated phone send a message (text or a file), react to,
//! edit or delete one, or call without answer; read what simulated phones received, and the
//! connection's reaction to a message a phone sent; drop a connected session as a network
//! outage would, and bring it back. The sandbox is started with the other
//! providers (`crate::channels::start`).

use axum::extract::State;
use axum::http::StatusCode;
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use chatflow_core::inbox::model::ProviderKind;
use chatflow_core::inbox::sandbox::SandboxReceived;
use chatflow_core::policy::{Action, authorize};
use chatflow_core::service::inbox::connections;
use chatflow_core::{ErrorCode, TenantScope, WhatsappId};
use chatflow_sandbox::{PhoneAct, PhoneFile, PhoneMessage, SandboxProvider};
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
        .routes(routes!(drop_connection))
        .routes(routes!(reconnect))
        .routes(routes!(pair_code))
        .routes(routes!(phone_send))
        .routes(routes!(phone_call))
        .routes(routes!(phone_inbox))
        .routes(routes!(phone_sent))
}

/// The body of `POST /sandbox/{whatsappId}/paircode`.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
#[serde(default)]
pub struct PhonePairCode {
    /// The code the connection shows, as shown (`XXXX-XXXX`) or without the dash, any case.
    #[schema(example = "ABCD-2345")]
    pub code: String,
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
    /// React to this message (by its external id) with `emoji` instead of sending one.
    pub react_to: Option<String>,
    /// The reaction's emoji, with `reactTo` (empty removes the phone's reaction).
    pub emoji: Option<String>,
    /// Edit this message the phone sent (by its external id): `body` is the new text.
    pub edit: Option<String>,
    /// Delete this message the phone sent (by its external id), for everyone.
    pub delete: Option<String>,
    /// The network loses the message (as WhatsApp may after an outage): it stays in the
    /// phone's history, which answers the inbox's history requests, but is never delivered
    /// live. Only for a message, not with `reactTo`, `edit` or `delete`.
    pub lost: bool,
}

/// The body of `POST /sandbox/{whatsappId}/call`.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct PhoneCall {
    /// The simulated phone's number.
    pub from: String,
    /// The contact's push name.
    pub name: Option<String>,
}

/// The answer of `POST /sandbox/{whatsappId}/send` and `/call`.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PhoneSent {
    /// The id on the channel of the new message or call, or of the message reacted to, edited
    /// or deleted.
    pub external_id: String,
}

/// The answer of `GET /sandbox/{whatsappId}/sent/{externalId}`: a message a simulated phone
/// sent, as that phone sees it.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PhoneSentMessage {
    /// The message's id on the channel (what `send` answered).
    pub external_id: String,
    /// The connection's reaction to it (empty for none).
    pub reaction: String,
}

/// `GET /sandbox/{whatsappId}/inbox` query.
#[derive(Debug, Clone, Default, Deserialize, IntoParams)]
#[serde(default)]
#[into_params(parameter_in = Query)]
pub struct InboxParams {
    /// Only what this number received.
    pub to: Option<String>,
}

/// The sandbox provider of this server and the caller's sandbox connection: a caller who is not
/// an admin answers 403 (`ERR_NO_PERMISSION`); a connection that is not the company's, or not on
/// the sandbox, 404.
async fn sandbox_connection(
    state: &AppState,
    tenant: &Tenant,
    id: i64,
) -> ApiResult<(SandboxProvider, TenantScope, WhatsappId)> {
    authorize(&tenant.actor, &Action::UseSandbox(tenant.actor.company_id))?;
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
        (status = 403, description = "ERR_NO_PERMISSION: not an admin", body = ErrorBody),
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

/// The simulated network drops the connected session: it shows OPENING (reason
/// `reconnecting`) and delivers nothing, what phones send meanwhile waiting in its queue, until
/// `POST /sandbox/{whatsappId}/reconnect`. It stays paired.
#[utoipa::path(
    post,
    path = "/sandbox/{whatsappId}/drop",
    tag = "sandbox",
    params(("whatsappId" = i64, Path, description = "The connection's id")),
    security(("bearer" = [])),
    responses(
        (status = 204),
        (status = 403, description = "ERR_NO_PERMISSION: not an admin", body = ErrorBody),
        (status = 404, body = ErrorBody),
        (status = 502, description = "ERR_WAPP_NOT_INITIALIZED: the session is not connected", body = ErrorBody),
    )
)]
async fn drop_connection(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(id): Path<i64>,
) -> ApiResult<StatusCode> {
    let (provider, scope, id) = sandbox_connection(&state, &tenant, id).await?;
    provider.drop_connection(scope, id).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// The simulated network is back for a dropped session: it is CONNECTED again, delivers what
/// phones sent meanwhile, then says it caught up (a gap after the outage is checked then).
#[utoipa::path(
    post,
    path = "/sandbox/{whatsappId}/reconnect",
    tag = "sandbox",
    params(("whatsappId" = i64, Path, description = "The connection's id")),
    security(("bearer" = [])),
    responses(
        (status = 204),
        (status = 403, description = "ERR_NO_PERMISSION: not an admin", body = ErrorBody),
        (status = 404, body = ErrorBody),
        (status = 502, description = "ERR_WAPP_NOT_INITIALIZED: the session was not dropped", body = ErrorBody),
    )
)]
async fn reconnect(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(id): Path<i64>,
) -> ApiResult<StatusCode> {
    let (provider, scope, id) = sandbox_connection(&state, &tenant, id).await?;
    provider.reconnect(scope, id).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// A simulated phone types the pair code the connection shows (after
/// `POST /whatsappsession/{id}/paircode`); the session becomes CONNECTED with the number the code
/// was asked for.
#[utoipa::path(
    post,
    path = "/sandbox/{whatsappId}/paircode",
    tag = "sandbox",
    params(("whatsappId" = i64, Path, description = "The connection's id")),
    request_body = PhonePairCode,
    security(("bearer" = [])),
    responses(
        (status = 204),
        (status = 403, description = "ERR_NO_PERMISSION: not an admin", body = ErrorBody),
        (status = 404, body = ErrorBody),
        (status = 422, description = "ERR_VALIDATION (field `code`): not a code, or not the one the connection shows", body = ErrorBody),
        (status = 502, description = "ERR_WAPP_NOT_INITIALIZED: the connection shows no pair code", body = ErrorBody),
    )
)]
async fn pair_code(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(id): Path<i64>,
    Json(body): Json<PhonePairCode>,
) -> ApiResult<StatusCode> {
    let (provider, scope, id) = sandbox_connection(&state, &tenant, id).await?;
    provider.type_pair_code(scope, id, &body.code).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// A simulated phone sends a message to the connection (text, or a file with a caption), or,
/// with `reactTo`, `edit` or `delete`, reacts to a message of its chat or edits or deletes one it
/// sent. The inbox receives it within a moment, through the sandbox's durable queue.
#[utoipa::path(
    post,
    path = "/sandbox/{whatsappId}/send",
    tag = "sandbox",
    params(("whatsappId" = i64, Path, description = "The connection's id")),
    request_body = PhoneSend,
    security(("bearer" = [])),
    responses(
        (status = 200, body = PhoneSent),
        (status = 400, description = "ERR_BAD_REQUEST: no sender, no text or file, more than one of reactTo/edit/delete, or `lost` with one of them", body = ErrorBody),
        (status = 403, description = "ERR_NO_PERMISSION: not an admin", body = ErrorBody),
        (status = 404, description = "ERR_NO_WAPP_FOUND, or ERR_NOT_FOUND: the phone has no such message it may change", body = ErrorBody),
    )
)]
async fn phone_send(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(id): Path<i64>,
    Json(body): Json<PhoneSend>,
) -> ApiResult<axum::Json<PhoneSent>> {
    let (provider, scope, id) = sandbox_connection(&state, &tenant, id).await?;
    let act = phone_act_of(body)?;
    let external_id = provider.phone_act(scope, id, &act).await?;
    Ok(axum::Json(PhoneSent { external_id }))
}

/// The phone's act a `send` body describes.
fn phone_act_of(body: PhoneSend) -> ApiResult<PhoneAct> {
    let named = |v: &Option<String>| v.as_deref().is_some_and(|t| !t.trim().is_empty());
    let targets = [&body.react_to, &body.edit, &body.delete]
        .into_iter()
        .filter(|t| named(t))
        .count();
    if targets > 1 {
        return Err(ApiError::from(chatflow_core::Error::with_detail(
            ErrorCode::ERR_BAD_REQUEST,
            "name one of reactTo, edit or delete",
        )));
    }
    if targets > 0 && body.lost {
        return Err(ApiError::from(chatflow_core::Error::with_detail(
            ErrorCode::ERR_BAD_REQUEST,
            "only a message can be lost, not a reaction, edit or deletion",
        )));
    }
    if let Some(external_id) = body.react_to.filter(|t| !t.trim().is_empty()) {
        return Ok(PhoneAct::React {
            from: body.from,
            external_id,
            emoji: body.emoji.unwrap_or_default(),
        });
    }
    if let Some(external_id) = body.edit.filter(|t| !t.trim().is_empty()) {
        return Ok(PhoneAct::Edit {
            from: body.from,
            external_id,
            body: body.body,
        });
    }
    if let Some(external_id) = body.delete.filter(|t| !t.trim().is_empty()) {
        return Ok(PhoneAct::Delete {
            from: body.from,
            external_id,
        });
    }
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
    Ok(PhoneAct::Message(PhoneMessage {
        from: body.from,
        name: body.name.unwrap_or_default(),
        body: body.body,
        is_group: body.is_group,
        file,
        lost: body.lost,
    }))
}

/// A simulated phone calls the connection and nobody answers: the ticket gets a call-log line.
#[utoipa::path(
    post,
    path = "/sandbox/{whatsappId}/call",
    tag = "sandbox",
    params(("whatsappId" = i64, Path, description = "The connection's id")),
    request_body = PhoneCall,
    security(("bearer" = [])),
    responses((status = 200, body = PhoneSent), (status = 400, body = ErrorBody), (status = 403, body = ErrorBody), (status = 404, body = ErrorBody))
)]
async fn phone_call(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(id): Path<i64>,
    Json(body): Json<PhoneCall>,
) -> ApiResult<axum::Json<PhoneSent>> {
    let (provider, scope, id) = sandbox_connection(&state, &tenant, id).await?;
    let act = PhoneAct::Call {
        from: body.from,
        name: body.name.unwrap_or_default(),
    };
    let external_id = provider.phone_act(scope, id, &act).await?;
    Ok(axum::Json(PhoneSent { external_id }))
}

/// What simulated phones received from the connection, oldest first, with acks.
#[utoipa::path(
    get,
    path = "/sandbox/{whatsappId}/inbox",
    tag = "sandbox",
    params(("whatsappId" = i64, Path, description = "The connection's id"), InboxParams),
    security(("bearer" = [])),
    responses((status = 200, body = Vec<serde_json::Value>), (status = 403, body = ErrorBody), (status = 404, body = ErrorBody))
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

/// A message a simulated phone sent to the connection, with the connection's reaction to it as
/// the phone sees it (an attendant's reaction in the ticket view reaches the phone here).
#[utoipa::path(
    get,
    path = "/sandbox/{whatsappId}/sent/{externalId}",
    tag = "sandbox",
    params(
        ("whatsappId" = i64, Path, description = "The connection's id"),
        ("externalId" = String, Path, description = "The message's id on the channel, as `send` answered it"),
    ),
    security(("bearer" = [])),
    responses(
        (status = 200, body = PhoneSentMessage),
        (status = 403, description = "ERR_NO_PERMISSION: not an admin", body = ErrorBody),
        (status = 404, description = "ERR_NO_WAPP_FOUND, or ERR_NOT_FOUND: no phone sent such a message to this connection", body = ErrorBody),
    )
)]
async fn phone_sent(
    State(state): State<AppState>,
    tenant: Tenant,
    Path((id, external_id)): Path<(i64, String)>,
) -> ApiResult<axum::Json<PhoneSentMessage>> {
    let (provider, scope, id) = sandbox_connection(&state, &tenant, id).await?;
    let reaction = provider
        .reaction_to_sent(scope, id, &external_id)
        .await?
        .ok_or(ErrorCode::ERR_NOT_FOUND)?;
    Ok(axum::Json(PhoneSentMessage {
        external_id,
        reaction,
    }))
}
