//! Queues as the inbox needs them: list (any user of the company) and create (admins).

use axum::extract::State;
use axum::http::StatusCode;
use chatflow_core::ports::QueueSummary;
use chatflow_core::service::queues::{self, QueueInput};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::error::{ApiResult, ErrorBody};
use crate::extract::{Json, Tenant};
use crate::state::AppState;

/// The routes of this module.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(list_queues, create_queue))
}

/// The company's queues, in their order.
#[utoipa::path(
    get,
    path = "/queue",
    tag = "queues",
    security(("bearer" = [])),
    responses((status = 200, body = Vec<QueueSummary>), (status = 401, body = ErrorBody))
)]
async fn list_queues(
    State(state): State<AppState>,
    tenant: Tenant,
) -> ApiResult<axum::Json<Vec<QueueSummary>>> {
    Ok(axum::Json(queues::list(&state.ports, &tenant.actor).await?))
}

/// Creates a queue (admins): name 2-50, colour 3-9 characters and unique in the company.
#[utoipa::path(
    post,
    path = "/queue",
    tag = "queues",
    request_body = QueueInput,
    security(("bearer" = [])),
    responses(
        (status = 201, body = QueueSummary),
        (status = 403, body = ErrorBody),
        (status = 409, body = ErrorBody),
        (status = 422, body = ErrorBody)
    )
)]
async fn create_queue(
    State(state): State<AppState>,
    tenant: Tenant,
    Json(input): Json<QueueInput>,
) -> ApiResult<(StatusCode, axum::Json<QueueSummary>)> {
    let queue = queues::create(&state.ports, &tenant.actor, &input).await?;
    Ok((StatusCode::CREATED, axum::Json(queue)))
}
