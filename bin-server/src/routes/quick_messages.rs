//! Quick messages (`docs/quick-messages.md`): the page's list, the "/" list of the ticket input,
//! the form and the file, through `chatflow_core::service::quick_messages`, which scopes every
//! call to the caller's company and hides other users' private quick messages.
//!
//! `POST /quick-messages/{id}/media-upload` lives in [`upload_router`] (its body may carry a file
//! up to the server's upload limit).

use axum::extract::State;
use axum::extract::multipart::{Multipart, MultipartRejection};
use axum::http::StatusCode;
use axum::response::Response;
use chatflow_core::ErrorCode;
use chatflow_core::quick_message::{QuickMessage, QuickMessageId, QuickMessageInput};
use chatflow_core::service::quick_messages;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::extract::{Json, Path, Query, Tenant};
use crate::state::AppState;

/// The JSON routes of this module (see [`upload_router`] for the file).
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(page_quick_messages, create_quick_message))
        .routes(routes!(list_quick_messages))
        .routes(routes!(
            get_quick_message,
            update_quick_message,
            delete_quick_message
        ))
        .routes(routes!(delete_media))
        .routes(routes!(media))
}

/// The file upload, which takes a larger body than the JSON routes.
pub fn upload_router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(upload_media))
}

/// The query of `GET /quick-messages`. `companyId` and `userId` are accepted and ignored: the
/// list is always the caller's company's, as the caller sees it.
#[derive(Debug, Clone, Default, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase", default)]
#[into_params(parameter_in = Query)]
pub struct PageParams {
    /// Matches the shortcode or the message (accent- and case-insensitive).
    pub search_param: String,
    /// The page, from 1.
    pub page_number: Option<u32>,
    /// Ignored (the caller's company).
    pub company_id: Option<String>,
    /// Ignored (the caller).
    pub user_id: Option<String>,
}

/// A page of quick messages.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct QuickMessagePage {
    pub records: Vec<QuickMessage>,
    pub has_more: bool,
    pub count: i64,
}

/// The quick messages page: the shared ones and the caller's own, search and pages of 20.
#[utoipa::path(
    get,
    path = "/quick-messages",
    tag = "quick-messages",
    params(PageParams),
    security(("bearer" = [])),
    responses((status = 200, body = QuickMessagePage))
)]
async fn page_quick_messages(
    State(state): State<AppState>,
    tenant: Tenant,
    Query(params): Query<PageParams>,
) -> ApiResult<axum::Json<QuickMessagePage>> {
    let page = quick_messages::page(
        &state.ports,
        &tenant.actor,
        &params.search_param,
        params.page_number.unwrap_or(1),
    )
    .await?;
    Ok(axum::Json(QuickMessagePage {
        records: page.records,
        has_more: page.has_more,
        count: page.count,
    }))
}

/// The query of `GET /quick-messages/list`.
#[derive(Debug, Clone, Default, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase", default)]
#[into_params(parameter_in = Query)]
pub struct ListParams {
    /// Fill the messages' variables (`{{name}}`, `{{firstName}}`, `{{queue}}`, `{{protocol}}`,
    /// `{{user}}`) for this ticket; a ticket the caller may not see answers 404.
    pub ticket_id: Option<i64>,
}

/// Every quick message the caller sees, by shortcode (the ticket input's "/" list); with
/// `ticketId`, their variables filled for that ticket.
#[utoipa::path(
    get,
    path = "/quick-messages/list",
    tag = "quick-messages",
    params(ListParams),
    security(("bearer" = [])),
    responses(
        (status = 200, body = Vec<QuickMessage>),
        (status = 404, description = "ERR_NO_TICKET_FOUND: the caller may not see the ticket", body = ErrorBody),
    )
)]
async fn list_quick_messages(
    State(state): State<AppState>,
    tenant: Tenant,
    Query(params): Query<ListParams>,
) -> ApiResult<axum::Json<Vec<QuickMessage>>> {
    Ok(axum::Json(match params.ticket_id {
        Some(ticket) => {
            quick_messages::list_for_ticket(
                &state.ports,
                &tenant.actor,
                chatflow_core::ids::TicketId(ticket),
            )
            .await?
        }
        None => quick_messages::list(&state.ports, &tenant.actor).await?,
    }))
}

/// Creates a quick message owned by the caller.
#[utoipa::path(
    post,
    path = "/quick-messages",
    tag = "quick-messages",
    request_body = QuickMessageInput,
    security(("bearer" = [])),
    responses(
        (status = 200, body = QuickMessage),
        (status = 409, description = "ERR_QUICK_MESSAGE_SHORTCODE_EXISTS", body = ErrorBody),
        (status = 422, description = "ERR_VALIDATION", body = ErrorBody),
    )
)]
async fn create_quick_message(
    State(state): State<AppState>,
    tenant: Tenant,
    Json(input): Json<QuickMessageInput>,
) -> ApiResult<axum::Json<QuickMessage>> {
    Ok(axum::Json(
        quick_messages::create(&state.ports, &tenant.actor, input).await?,
    ))
}

/// One quick message the caller sees.
#[utoipa::path(
    get,
    path = "/quick-messages/{id}",
    tag = "quick-messages",
    params(("id" = i64, Path, description = "The quick message's id")),
    security(("bearer" = [])),
    responses((status = 200, body = QuickMessage), (status = 404, body = ErrorBody))
)]
async fn get_quick_message(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(id): Path<i64>,
) -> ApiResult<axum::Json<QuickMessage>> {
    Ok(axum::Json(
        quick_messages::get(&state.ports, &tenant.actor, QuickMessageId(id)).await?,
    ))
}

/// Edits a quick message the caller sees; only its owner changes `geral`.
#[utoipa::path(
    put,
    path = "/quick-messages/{id}",
    tag = "quick-messages",
    params(("id" = i64, Path, description = "The quick message's id")),
    request_body = QuickMessageInput,
    security(("bearer" = [])),
    responses(
        (status = 200, body = QuickMessage),
        (status = 404, body = ErrorBody),
        (status = 409, description = "ERR_QUICK_MESSAGE_SHORTCODE_EXISTS", body = ErrorBody),
        (status = 422, description = "ERR_VALIDATION", body = ErrorBody),
    )
)]
async fn update_quick_message(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(id): Path<i64>,
    Json(input): Json<QuickMessageInput>,
) -> ApiResult<axum::Json<QuickMessage>> {
    Ok(axum::Json(
        quick_messages::update(&state.ports, &tenant.actor, QuickMessageId(id), input).await?,
    ))
}

/// Deletes a quick message the caller sees, with its file.
#[utoipa::path(
    delete,
    path = "/quick-messages/{id}",
    tag = "quick-messages",
    params(("id" = i64, Path, description = "The quick message's id")),
    security(("bearer" = [])),
    responses((status = 204), (status = 404, body = ErrorBody))
)]
async fn delete_quick_message(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(id): Path<i64>,
) -> ApiResult<StatusCode> {
    quick_messages::delete(&state.ports, &tenant.actor, QuickMessageId(id)).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// Attaches a file (multipart field `file`; `typeArch` is accepted and ignored), replacing any
/// earlier one; the limits of message attachments apply.
#[utoipa::path(
    post,
    path = "/quick-messages/{id}/media-upload",
    tag = "quick-messages",
    params(("id" = i64, Path, description = "The quick message's id")),
    request_body(content_type = "multipart/form-data", description = "Fields `typeArch` and `file`"),
    security(("bearer" = [])),
    responses(
        (status = 200, body = QuickMessage),
        (status = 404, body = ErrorBody),
        (status = 413, description = "ERR_PAYLOAD_TOO_LARGE", body = ErrorBody),
        (status = 422, description = "ERR_VALIDATION", body = ErrorBody),
    )
)]
async fn upload_media(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(id): Path<i64>,
    multipart: Result<Multipart, MultipartRejection>,
) -> ApiResult<axum::Json<QuickMessage>> {
    let upload =
        crate::multipart::first(multipart, crate::multipart::Select::Fields(&["file"]), None)
            .await?
            .map(crate::multipart::Part::into_upload)
            .ok_or_else(|| ApiError::code(ErrorCode::ERR_VALIDATION))?;
    Ok(axum::Json(
        quick_messages::upload_media(&state.ports, &tenant.actor, QuickMessageId(id), upload)
            .await?,
    ))
}

/// Removes the file; refused while the message is empty.
#[utoipa::path(
    delete,
    path = "/quick-messages/{id}/media-upload",
    tag = "quick-messages",
    params(("id" = i64, Path, description = "The quick message's id")),
    security(("bearer" = [])),
    responses(
        (status = 200, body = QuickMessage),
        (status = 404, body = ErrorBody),
        (status = 422, description = "ERR_VALIDATION", body = ErrorBody),
    )
)]
async fn delete_media(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(id): Path<i64>,
) -> ApiResult<axum::Json<QuickMessage>> {
    Ok(axum::Json(
        quick_messages::delete_media(&state.ports, &tenant.actor, QuickMessageId(id)).await?,
    ))
}

/// The file of a quick message the caller sees.
#[utoipa::path(
    get,
    path = "/quick-messages/{id}/media",
    tag = "quick-messages",
    params(("id" = i64, Path, description = "The quick message's id")),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The file, with the MIME type its name says (application/octet-stream when unknown)"),
        (status = 404, body = ErrorBody),
    )
)]
async fn media(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(id): Path<i64>,
) -> ApiResult<Response> {
    let (name, bytes) =
        quick_messages::media(&state.ports, &tenant.actor, QuickMessageId(id)).await?;
    Ok(super::messages::attachment(&name, bytes))
}
