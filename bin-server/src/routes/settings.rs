//! Company and platform settings, and the public appearance settings.
//!
//! Reads stay open to companies whose subscription expired; changes do not.

use std::collections::BTreeMap;

use axum::extract::State;
use chatflow_core::CompanyId;
use chatflow_core::service::settings::{self, Setting};
use serde::Deserialize;
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::error::{ApiResult, ErrorBody};
use crate::extract::{Json, Path, Query, Session, Tenant};
use crate::state::AppState;

/// The routes of this module.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_settings))
        .routes(routes!(update_setting))
        .routes(routes!(get_setting))
        .routes(routes!(public_setting))
        .routes(routes!(company_settings))
        .routes(routes!(company_setting_one))
        .routes(routes!(update_company_setting))
}

/// The body of `PUT /settings/{key}`.
#[derive(Debug, Clone, Deserialize, ToSchema)]
pub struct SettingValue {
    /// The new value.
    pub value: String,
}

/// The body of `PUT /companySettings`.
#[derive(Debug, Clone, Deserialize, ToSchema)]
pub struct ColumnChange {
    /// The setting's key.
    pub column: String,
    /// The new value.
    pub data: String,
}

/// The query of `GET /companySettingOne`.
#[derive(Debug, Clone, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ColumnQuery {
    /// The setting's key.
    pub column: String,
}

/// Every setting of the caller's company with defaults (plus the platform keys for the super
/// user).
#[utoipa::path(
    get,
    path = "/settings",
    tag = "settings",
    security(("bearer" = [])),
    responses((status = 200, body = Vec<Setting>), (status = 403, body = ErrorBody))
)]
async fn list_settings(
    State(state): State<AppState>,
    session: Session,
) -> ApiResult<axum::Json<Vec<Setting>>> {
    Ok(axum::Json(
        settings::list(&state.ports, &session.actor).await?,
    ))
}

/// Changes one setting (company keys: admins; platform keys: the super user).
#[utoipa::path(
    put,
    path = "/settings/{key}",
    tag = "settings",
    params(("key" = String, Path, description = "The setting's key")),
    request_body = SettingValue,
    security(("bearer" = [])),
    responses(
        (status = 200, body = Setting),
        (status = 403, body = ErrorBody),
        (status = 422, description = "ERR_INVALID_SETTING or ERR_SETTING_MESSAGE_REQUIRED", body = ErrorBody),
    )
)]
async fn update_setting(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(key): Path<String>,
    Json(body): Json<SettingValue>,
) -> ApiResult<axum::Json<Setting>> {
    Ok(axum::Json(
        settings::set(&state.ports, &tenant.actor, &key, &body.value).await?,
    ))
}

/// One setting.
#[utoipa::path(
    get,
    path = "/setting/{key}",
    tag = "settings",
    params(("key" = String, Path, description = "The setting's key")),
    security(("bearer" = [])),
    responses((status = 200, body = Setting), (status = 404, body = ErrorBody))
)]
async fn get_setting(
    State(state): State<AppState>,
    session: Session,
    Path(key): Path<String>,
) -> ApiResult<axum::Json<Setting>> {
    Ok(axum::Json(
        settings::get(&state.ports, &session.actor, &key).await?,
    ))
}

/// A public appearance setting (no sign-in): primaryColorLight, primaryColorDark, appName,
/// appLogoLight, appLogoDark, appLogoFavicon, allowSignup.
#[utoipa::path(
    get,
    path = "/public-settings/{key}",
    tag = "settings",
    params(("key" = String, Path, description = "A whitelisted key")),
    responses((status = 200, body = Setting), (status = 404, body = ErrorBody))
)]
async fn public_setting(
    State(state): State<AppState>,
    Path(key): Path<String>,
) -> ApiResult<axum::Json<Setting>> {
    Ok(axum::Json(settings::public_get(&state.ports, &key).await?))
}

/// Every company key of a company as an object (its admins, or the super user).
#[utoipa::path(
    get,
    path = "/companySettings/{companyId}",
    tag = "settings",
    params(("companyId" = i64, Path, description = "The company's id")),
    security(("bearer" = [])),
    responses((status = 200, body = BTreeMap<String, String>), (status = 404, body = ErrorBody))
)]
async fn company_settings(
    State(state): State<AppState>,
    session: Session,
    Path(company_id): Path<i64>,
) -> ApiResult<axum::Json<BTreeMap<String, String>>> {
    Ok(axum::Json(
        settings::company_settings(&state.ports, &session.actor, CompanyId(company_id)).await?,
    ))
}

/// One setting by column name.
#[utoipa::path(
    get,
    path = "/companySettingOne",
    tag = "settings",
    params(ColumnQuery),
    security(("bearer" = [])),
    responses((status = 200, body = Setting), (status = 404, body = ErrorBody))
)]
async fn company_setting_one(
    State(state): State<AppState>,
    session: Session,
    Query(query): Query<ColumnQuery>,
) -> ApiResult<axum::Json<Setting>> {
    Ok(axum::Json(
        settings::get(&state.ports, &session.actor, &query.column).await?,
    ))
}

/// Changes one setting by column name.
#[utoipa::path(
    put,
    path = "/companySettings",
    tag = "settings",
    request_body = ColumnChange,
    security(("bearer" = [])),
    responses((status = 200, body = Setting), (status = 403, body = ErrorBody), (status = 422, body = ErrorBody))
)]
async fn update_company_setting(
    State(state): State<AppState>,
    tenant: Tenant,
    Json(body): Json<ColumnChange>,
) -> ApiResult<axum::Json<Setting>> {
    Ok(axum::Json(
        settings::set(&state.ports, &tenant.actor, &body.column, &body.data).await?,
    ))
}
