//! Scheduled and recurring messages (`/schedules`, `docs/schedules.md`). Handlers call
//! `chatflow_core::service::schedules`, which checks the plan (`useSchedules`) and scopes every
//! call to the caller's company; the attachment upload lives in [`upload_router`].

use axum::extract::State;
use axum::extract::multipart::{Multipart, MultipartRejection};
use axum::http::StatusCode;
use chatflow_core::schedule::{Schedule, ScheduleFilter, ScheduleInput};
use chatflow_core::service::schedules;
use chatflow_core::{ContactId, ErrorCode, ScheduleId};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::extract::{Json, Path, Query, Tenant};
use crate::state::AppState;

/// The JSON routes of this module (see [`upload_router`] for the attachment).
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(page_schedules, create_schedule))
        .routes(routes!(get_schedule, update_schedule, delete_schedule))
}

/// The attachment routes, under the server's upload body limit.
pub fn upload_router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(upload_media, delete_media))
}

/// The query of `GET /schedules`.
#[derive(Debug, Clone, Default, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase", default)]
#[into_params(parameter_in = Query)]
pub struct PageParams {
    /// Matches the body or the contact's name (case-insensitive).
    pub search_param: String,
    /// The page, from 1 (pages of 20).
    pub page_number: Option<u32>,
    /// Only this contact's schedules.
    pub contact_id: Option<i64>,
}

/// A page of schedules.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SchedulePage {
    pub schedules: Vec<Schedule>,
    pub has_more: bool,
    pub count: i64,
}

/// The company's schedules by next send time.
#[utoipa::path(
    get,
    path = "/schedules",
    tag = "schedules",
    params(PageParams),
    security(("bearer" = [])),
    responses((status = 200, body = SchedulePage), (status = 403, description = "ERR_NO_PERMISSION: the plan has no schedules", body = ErrorBody))
)]
async fn page_schedules(
    State(state): State<AppState>,
    tenant: Tenant,
    Query(params): Query<PageParams>,
) -> ApiResult<axum::Json<SchedulePage>> {
    let filter = ScheduleFilter {
        search: params.search_param,
        contact_id: params.contact_id.map(ContactId),
    };
    let page = schedules::page(
        &state.ports,
        &tenant.actor,
        &filter,
        params.page_number.unwrap_or(1),
    )
    .await?;
    Ok(axum::Json(SchedulePage {
        schedules: page.schedules,
        has_more: page.has_more,
        count: page.count,
    }))
}

/// Schedules a message (body at least 5 characters, a contact, a send time not in the past) and
/// queues its first send.
#[utoipa::path(
    post,
    path = "/schedules",
    tag = "schedules",
    request_body = ScheduleInput,
    security(("bearer" = [])),
    responses(
        (status = 201, body = Schedule),
        (status = 403, description = "ERR_NO_PERMISSION", body = ErrorBody),
        (status = 404, description = "ERR_NO_CONTACT_FOUND", body = ErrorBody),
        (status = 422, description = "ERR_VALIDATION", body = ErrorBody),
    )
)]
async fn create_schedule(
    State(state): State<AppState>,
    tenant: Tenant,
    Json(input): Json<ScheduleInput>,
) -> ApiResult<(StatusCode, axum::Json<Schedule>)> {
    let schedule = schedules::create(&state.ports, &tenant.actor, &input).await?;
    state.jobs_wake();
    Ok((StatusCode::CREATED, axum::Json(schedule)))
}

/// One schedule.
#[utoipa::path(
    get,
    path = "/schedules/{id}",
    tag = "schedules",
    params(("id" = i64, Path, description = "The schedule's id")),
    security(("bearer" = [])),
    responses((status = 200, body = Schedule), (status = 404, body = ErrorBody))
)]
async fn get_schedule(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(id): Path<i64>,
) -> ApiResult<axum::Json<Schedule>> {
    Ok(axum::Json(
        schedules::get(&state.ports, &tenant.actor, ScheduleId(id)).await?,
    ))
}

/// Edits a schedule that was not sent yet; its old queued send is dropped.
#[utoipa::path(
    put,
    path = "/schedules/{id}",
    tag = "schedules",
    params(("id" = i64, Path, description = "The schedule's id")),
    request_body = ScheduleInput,
    security(("bearer" = [])),
    responses(
        (status = 200, body = Schedule),
        (status = 404, body = ErrorBody),
        (status = 422, description = "ERR_VALIDATION (also once sent)", body = ErrorBody),
    )
)]
async fn update_schedule(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(id): Path<i64>,
    Json(input): Json<ScheduleInput>,
) -> ApiResult<axum::Json<Schedule>> {
    let schedule = schedules::update(&state.ports, &tenant.actor, ScheduleId(id), &input).await?;
    state.jobs_wake();
    Ok(axum::Json(schedule))
}

/// Deletes a schedule; nothing more is sent.
#[utoipa::path(
    delete,
    path = "/schedules/{id}",
    tag = "schedules",
    params(("id" = i64, Path, description = "The schedule's id")),
    security(("bearer" = [])),
    responses((status = 204), (status = 404, body = ErrorBody))
)]
async fn delete_schedule(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(id): Path<i64>,
) -> ApiResult<StatusCode> {
    schedules::delete(&state.ports, &tenant.actor, ScheduleId(id)).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// Attaches an image (png, jpg or jpeg) sent with the message.
#[utoipa::path(
    post,
    path = "/schedules/{id}/media-upload",
    tag = "schedules",
    params(("id" = i64, Path, description = "The schedule's id")),
    request_body(content_type = "multipart/form-data", description = "One file field"),
    security(("bearer" = [])),
    responses(
        (status = 200, body = Schedule),
        (status = 404, body = ErrorBody),
        (status = 422, description = "ERR_VALIDATION: not png/jpg/jpeg", body = ErrorBody),
    )
)]
async fn upload_media(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(id): Path<i64>,
    multipart: Result<Multipart, MultipartRejection>,
) -> ApiResult<axum::Json<Schedule>> {
    let upload = crate::multipart::first(multipart, crate::multipart::Select::Files, None)
        .await?
        .map(crate::multipart::Part::into_upload)
        .ok_or_else(|| ApiError::code(ErrorCode::ERR_BAD_REQUEST))?;
    let schedule = schedules::upload_media(
        &state.ports,
        &tenant.actor,
        ScheduleId(id),
        &upload.file_name,
        &upload.bytes,
    )
    .await?;
    Ok(axum::Json(schedule))
}

/// Removes the attachment.
#[utoipa::path(
    delete,
    path = "/schedules/{id}/media-upload",
    tag = "schedules",
    params(("id" = i64, Path, description = "The schedule's id")),
    security(("bearer" = [])),
    responses((status = 200, body = Schedule), (status = 404, body = ErrorBody))
)]
async fn delete_media(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(id): Path<i64>,
) -> ApiResult<axum::Json<Schedule>> {
    Ok(axum::Json(
        schedules::delete_media(&state.ports, &tenant.actor, ScheduleId(id)).await?,
    ))
}
