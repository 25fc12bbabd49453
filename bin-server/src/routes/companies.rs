//! The caller's company record and plan (any company for the super user).
//!
//! These stay open to companies whose subscription expired: the web app needs them to show the
//! renewal page.

use axum::extract::State;
use chatflow_core::CompanyId;
use chatflow_core::service::auth;
use chatflow_core::tenancy::{Company, Plan};
use serde::Serialize;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::error::{ApiResult, ErrorBody};
use crate::extract::{Path, Session};
use crate::state::AppState;

/// The routes of this module.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(company_plan))
        .routes(routes!(get_company))
}

/// The answer of `GET /companies/listPlan/{companyId}`.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct PlanOfCompany {
    /// The company's plan with its use flags.
    pub plan: Plan,
}

/// The plan of the caller's company.
#[utoipa::path(
    get,
    path = "/companies/listPlan/{companyId}",
    tag = "companies",
    params(("companyId" = i64, Path, description = "The company's id")),
    security(("bearer" = [])),
    responses((status = 200, body = PlanOfCompany), (status = 404, body = ErrorBody))
)]
async fn company_plan(
    State(state): State<AppState>,
    session: Session,
    Path(company_id): Path<i64>,
) -> ApiResult<axum::Json<PlanOfCompany>> {
    let plan = auth::company_plan(&state.ports, &session.actor, CompanyId(company_id)).await?;
    Ok(axum::Json(PlanOfCompany { plan }))
}

/// The caller's company record.
#[utoipa::path(
    get,
    path = "/companies/{id}",
    tag = "companies",
    params(("id" = i64, Path, description = "The company's id")),
    security(("bearer" = [])),
    responses((status = 200, body = Company), (status = 404, body = ErrorBody))
)]
async fn get_company(
    State(state): State<AppState>,
    session: Session,
    Path(id): Path<i64>,
) -> ApiResult<axum::Json<Company>> {
    Ok(axum::Json(
        auth::company(&state.ports, &session.actor, CompanyId(id)).await?,
    ))
}
