//! Inbound failures (`docs/api.md` "Inbound failures"): events a channel delivered that could not
//! be stored and were set aside so nothing behind them waits. Admins of the company list them
//! (newest first, pages of 20), retry one or discard one.

use axum::extract::State;
use axum::http::StatusCode;
use chatflow_core::inbox::inbound::{InboundFailure, InboundFailurePage};
use chatflow_core::service::inbox::inbound_failures;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::error::{ApiResult, ErrorBody};
use crate::extract::{Path, Query, Tenant};
use crate::state::AppState;

/// The routes of this module.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list))
        .routes(routes!(retry))
        .routes(routes!(discard))
}

/// The query of `GET /inbound-failures`.
#[derive(Debug, Clone, Default, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase", default)]
#[into_params(parameter_in = Query)]
pub struct PageParams {
    /// The page, from 1 (20 per page).
    pub page_number: Option<u32>,
}

/// The answer of `POST /inbound-failures/{id}/retry`.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RetryOutcome {
    /// The event is now stored, and left the list.
    pub delivered: bool,
    /// When it failed again: the failure as it is now.
    pub failure: Option<InboundFailure>,
}

/// The company's inbound failures, newest first (a file's bytes are left out).
#[utoipa::path(
    get,
    path = "/inbound-failures",
    tag = "connections",
    params(PageParams),
    security(("bearer" = [])),
    responses(
        (status = 200, body = InboundFailurePage),
        (status = 403, description = "ERR_NO_PERMISSION: not an admin", body = ErrorBody),
    )
)]
async fn list(
    State(state): State<AppState>,
    tenant: Tenant,
    Query(params): Query<PageParams>,
) -> ApiResult<axum::Json<InboundFailurePage>> {
    Ok(axum::Json(
        inbound_failures::page(&state.ports, &tenant.actor, params.page_number.unwrap_or(1))
            .await?,
    ))
}

/// Delivers a kept event again: stored, it leaves the list; failing again, the attempt is
/// recorded.
#[utoipa::path(
    post,
    path = "/inbound-failures/{id}/retry",
    tag = "connections",
    params(("id" = i64, Path, description = "The failure's id")),
    security(("bearer" = [])),
    responses(
        (status = 200, body = RetryOutcome),
        (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody),
    )
)]
async fn retry(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(id): Path<i64>,
) -> ApiResult<axum::Json<RetryOutcome>> {
    let failure = inbound_failures::retry(&state.ports, &tenant.actor, id).await?;
    state.realtime.wake();
    Ok(axum::Json(RetryOutcome {
        delivered: failure.is_none(),
        failure,
    }))
}

/// Forgets a kept event.
#[utoipa::path(
    delete,
    path = "/inbound-failures/{id}",
    tag = "connections",
    params(("id" = i64, Path, description = "The failure's id")),
    security(("bearer" = [])),
    responses(
        (status = 204),
        (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody),
    )
)]
async fn discard(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(id): Path<i64>,
) -> ApiResult<StatusCode> {
    inbound_failures::discard(&state.ports, &tenant.actor, id).await?;
    Ok(StatusCode::NO_CONTENT)
}
