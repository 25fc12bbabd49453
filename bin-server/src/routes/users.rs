//! The users of the caller's company: table, colleague list, CRUD, avatar and panel width.
//!
//! Every handler hands the caller and the request to `chatflow_core::service::users`, which
//! scopes each call to the caller's company: another company's ids answer 404.

use axum::body::Body;
use axum::extract::State;
use axum::extract::multipart::{Multipart, MultipartRejection};
use axum::http::header::{CACHE_CONTROL, CONTENT_TYPE};
use axum::http::{HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use chatflow_core::UserId;
use chatflow_core::service::users::{
    self, AvatarUpload, NewUserInput, UserPage, UserSummary, UserUpdate, UserView,
};
use serde::Deserialize;
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::extract::{Json, Path, Query, Tenant};
use crate::state::AppState;

/// The routes of this module except the upload (see [`upload_router`]).
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(search_users))
        .routes(routes!(list_users))
        .routes(routes!(create_user))
        .routes(routes!(get_user, update_user, delete_user))
        .routes(routes!(set_panel_width))
        .routes(routes!(get_avatar))
}

/// The avatar upload route, which takes a larger body than the JSON routes.
pub fn upload_router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(upload_avatar))
}

/// The users table's query.
#[derive(Debug, Clone, Default, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase", default)]
#[into_params(parameter_in = Query)]
pub struct SearchParams {
    /// Matches name and e-mail, case-insensitively.
    pub search_param: String,
    /// The page, from 1.
    pub page_number: Option<u32>,
}

/// The body of `PUT /users/toggleChangeWidht/{id}`.
#[derive(Debug, Clone, Copy, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PanelWidth {
    /// Width of the tickets panel in pixels, 404 to 700.
    pub default_tickets_manager_width: i64,
}

/// The users table: search and pages of 20 (admins and the administration section).
#[utoipa::path(
    get,
    path = "/users/",
    tag = "users",
    params(SearchParams),
    security(("bearer" = [])),
    responses((status = 200, body = UserPage), (status = 403, body = ErrorBody))
)]
async fn search_users(
    State(state): State<AppState>,
    tenant: Tenant,
    Query(params): Query<SearchParams>,
) -> ApiResult<axum::Json<UserPage>> {
    let page = params.page_number.unwrap_or(1);
    Ok(axum::Json(
        users::search(&state.ports, &tenant.actor, &params.search_param, page).await?,
    ))
}

/// Every user of the company, briefly (any user of the company).
#[utoipa::path(
    get,
    path = "/users/list",
    tag = "users",
    security(("bearer" = [])),
    responses((status = 200, body = Vec<UserSummary>))
)]
async fn list_users(
    State(state): State<AppState>,
    tenant: Tenant,
) -> ApiResult<axum::Json<Vec<UserSummary>>> {
    Ok(axum::Json(users::list(&state.ports, &tenant.actor).await?))
}

/// Creates a user in the caller's company (admins).
#[utoipa::path(
    post,
    path = "/users",
    tag = "users",
    request_body = NewUserInput,
    security(("bearer" = [])),
    responses(
        (status = 201, body = UserView),
        (status = 403, description = "ERR_NO_PERMISSION, ERR_USER_LIMIT_REACHED or ERR_USER_CREATION_DISABLED", body = ErrorBody),
        (status = 409, description = "ERR_DUPLICATED_EMAIL", body = ErrorBody),
        (status = 422, description = "ERR_VALIDATION", body = ErrorBody),
    )
)]
async fn create_user(
    State(state): State<AppState>,
    tenant: Tenant,
    Json(input): Json<NewUserInput>,
) -> ApiResult<(StatusCode, axum::Json<UserView>)> {
    let user = users::create(&state.ports, &tenant.actor, input).await?;
    Ok((StatusCode::CREATED, axum::Json(user)))
}

/// One user of the caller's company.
#[utoipa::path(
    get,
    path = "/users/{id}",
    tag = "users",
    params(("id" = i64, Path, description = "The user's id")),
    security(("bearer" = [])),
    responses((status = 200, body = UserView), (status = 404, body = ErrorBody))
)]
async fn get_user(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(id): Path<i64>,
) -> ApiResult<axum::Json<UserView>> {
    Ok(axum::Json(
        users::get(&state.ports, &tenant.actor, UserId(id)).await?,
    ))
}

/// Changes a user of the caller's company; a plain user may change only their own name,
/// e-mail, password, theme, menu and farewell message.
#[utoipa::path(
    put,
    path = "/users/{id}",
    tag = "users",
    params(("id" = i64, Path, description = "The user's id")),
    request_body = UserUpdate,
    security(("bearer" = [])),
    responses(
        (status = 200, body = UserView),
        (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody),
        (status = 422, body = ErrorBody),
    )
)]
async fn update_user(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(id): Path<i64>,
    Json(changes): Json<UserUpdate>,
) -> ApiResult<axum::Json<UserView>> {
    Ok(axum::Json(
        users::update(
            &state.ports,
            &tenant.actor,
            Some(tenant.claims.sid),
            UserId(id),
            changes,
        )
        .await?,
    ))
}

/// Deletes a user of the caller's company (admins; never oneself).
#[utoipa::path(
    delete,
    path = "/users/{id}",
    tag = "users",
    params(("id" = i64, Path, description = "The user's id")),
    security(("bearer" = [])),
    responses((status = 204), (status = 403, body = ErrorBody), (status = 404, body = ErrorBody))
)]
async fn delete_user(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(id): Path<i64>,
) -> ApiResult<StatusCode> {
    users::delete(&state.ports, &tenant.actor, UserId(id)).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// Saves the width of one's own tickets panel.
#[utoipa::path(
    put,
    path = "/users/toggleChangeWidht/{id}",
    tag = "users",
    params(("id" = i64, Path, description = "The user's id (the caller)")),
    request_body = PanelWidth,
    security(("bearer" = [])),
    responses((status = 200, body = UserView), (status = 422, body = ErrorBody))
)]
async fn set_panel_width(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(id): Path<i64>,
    Json(body): Json<PanelWidth>,
) -> ApiResult<axum::Json<UserView>> {
    let user = users::toggle_tickets_manager_width(
        &state.ports,
        &tenant.actor,
        UserId(id),
        body.default_tickets_manager_width,
    )
    .await?;
    Ok(axum::Json(user))
}

/// Replaces a user's avatar: multipart field `profileImage`, a PNG, JPEG, GIF or WebP image of
/// at most 2 MiB.
#[utoipa::path(
    post,
    path = "/users/{id}/media-upload",
    tag = "users",
    params(("id" = i64, Path, description = "The user's id")),
    request_body(content_type = "multipart/form-data", description = "Field `profileImage`: the image"),
    security(("bearer" = [])),
    responses(
        (status = 200, body = UserView),
        (status = 413, description = "ERR_PAYLOAD_TOO_LARGE", body = ErrorBody),
        (status = 422, description = "ERR_VALIDATION: not an accepted image", body = ErrorBody),
    )
)]
async fn upload_avatar(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(id): Path<i64>,
    multipart: Result<Multipart, MultipartRejection>,
) -> ApiResult<axum::Json<UserView>> {
    let upload = crate::multipart::first(
        multipart,
        crate::multipart::Select::Fields(&["profileImage"]),
        None,
    )
    .await?
    .map(|part| AvatarUpload {
        content_type: part.content_type,
        bytes: part.bytes,
    })
    .ok_or_else(|| {
        ApiError::from(chatflow_core::Error::validation(vec![
            chatflow_core::FieldError::new(
                "profileImage",
                chatflow_core::error::FieldCode::Required,
            ),
        ]))
    })?;
    Ok(axum::Json(
        users::upload_avatar(&state.ports, &tenant.actor, UserId(id), upload).await?,
    ))
}

/// A user's avatar image, for the users of the same company.
#[utoipa::path(
    get,
    path = "/users/{id}/avatar",
    tag = "users",
    params(("id" = i64, Path, description = "The user's id")),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The image", content_type = "image/*"),
        (status = 404, body = ErrorBody),
    )
)]
async fn get_avatar(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(id): Path<i64>,
) -> ApiResult<Response> {
    let avatar = users::avatar(&state.ports, &tenant.actor, UserId(id)).await?;
    let mut response = Body::from(avatar.bytes).into_response();
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static(avatar.content_type));
    response.headers_mut().insert(
        CACHE_CONTROL,
        HeaderValue::from_static("private, max-age=300"),
    );
    Ok(response)
}
