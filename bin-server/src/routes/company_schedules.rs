//! A company's working hours (`docs/api.md` "Queues"): `GET`/`PUT /companies/{id}/schedules`,
//! for the company's admins and the super user. Handlers call
//! `chatflow_core::service::company_schedules`.

use axum::extract::State;
use chatflow_core::CompanyId;
use chatflow_core::queue::ScheduleRow;
use chatflow_core::service::company_schedules;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::error::{ApiResult, ErrorBody};
use crate::extract::{Json, Path, Tenant};
use crate::state::AppState;

/// The routes of this module.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(get_schedules, set_schedules))
}

/// The body and the answer of the schedules calls: seven rows, one per weekday.
#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema)]
pub struct Schedules {
    /// Shifts A and B of each weekday (`HH:MM`; empty shift = closed).
    #[serde(default)]
    pub schedules: Vec<ScheduleRow>,
}

/// The company's working hours (the defaults until saved).
#[utoipa::path(
    get,
    path = "/companies/{id}/schedules",
    tag = "companies",
    params(("id" = i64, Path, description = "The company's id")),
    security(("bearer" = [])),
    responses(
        (status = 200, body = Schedules),
        (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody)
    )
)]
async fn get_schedules(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(id): Path<i64>,
) -> ApiResult<axum::Json<Schedules>> {
    let schedules = company_schedules::get(&state.ports, &tenant.actor, CompanyId(id)).await?;
    Ok(axum::Json(Schedules { schedules }))
}

/// Saves the company's working hours and answers them as saved.
#[utoipa::path(
    put,
    path = "/companies/{id}/schedules",
    tag = "companies",
    params(("id" = i64, Path, description = "The company's id")),
    request_body = Schedules,
    security(("bearer" = [])),
    responses(
        (status = 200, body = Schedules),
        (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody),
        (status = 422, description = "ERR_VALIDATION", body = ErrorBody)
    )
)]
async fn set_schedules(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(id): Path<i64>,
    Json(body): Json<Schedules>,
) -> ApiResult<axum::Json<Schedules>> {
    let schedules =
        company_schedules::set(&state.ports, &tenant.actor, CompanyId(id), &body.schedules).await?;
    Ok(axum::Json(Schedules { schedules }))
}
