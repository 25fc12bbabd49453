//! Queues and their chatbot menus (`docs/api.md` "Queues"): every user of the company lists and
//! reads them; the administration section creates, edits and deletes queues (`/queue`) and
//! single chatbot options (`/chatbot`). Handlers call `chatflow_core::service::queues`, which
//! scopes every call to the caller's company.

use axum::extract::State;
use axum::http::StatusCode;
use chatflow_core::QueueId;
use chatflow_core::queue::{ChatbotId, ChatbotNode, ChatbotOption, Queue, QueueInput};
use chatflow_core::service::queues;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::error::{ApiResult, ErrorBody};
use crate::extract::{Json, Path, Tenant};
use crate::state::AppState;

/// The routes of this module.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_queues, create_queue))
        .routes(routes!(get_queue, update_queue, delete_queue))
        .routes(routes!(create_chatbot))
        .routes(routes!(get_chatbot, update_chatbot, delete_chatbot))
}

/// The company's queues with their chatbot menus, in their order.
#[utoipa::path(
    get,
    path = "/queue",
    tag = "queues",
    security(("bearer" = [])),
    responses((status = 200, body = Vec<Queue>), (status = 401, body = ErrorBody))
)]
async fn list_queues(
    State(state): State<AppState>,
    tenant: Tenant,
) -> ApiResult<axum::Json<Vec<Queue>>> {
    Ok(axum::Json(queues::list(&state.ports, &tenant.actor).await?))
}

/// One queue with its chatbot menu.
#[utoipa::path(
    get,
    path = "/queue/{id}",
    tag = "queues",
    params(("id" = i64, Path, description = "The queue's id")),
    security(("bearer" = [])),
    responses((status = 200, body = Queue), (status = 404, body = ErrorBody))
)]
async fn get_queue(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(id): Path<i64>,
) -> ApiResult<axum::Json<Queue>> {
    Ok(axum::Json(
        queues::get(&state.ports, &tenant.actor, QueueId(id)).await?,
    ))
}

/// Creates a queue with its chatbot menu (administration): spec 2 §5 rules, the plan's queue
/// limit.
#[utoipa::path(
    post,
    path = "/queue",
    tag = "queues",
    request_body = QueueInput,
    security(("bearer" = [])),
    responses(
        (status = 201, body = Queue),
        (status = 403, description = "ERR_NO_PERMISSION (also the plan's queue limit)", body = ErrorBody),
        (status = 409, description = "ERR_QUEUE_COLOR_ALREADY_EXISTS", body = ErrorBody),
        (status = 422, description = "ERR_VALIDATION, ERR_WAPP_GREETING_REQUIRED", body = ErrorBody)
    )
)]
async fn create_queue(
    State(state): State<AppState>,
    tenant: Tenant,
    Json(input): Json<QueueInput>,
) -> ApiResult<(StatusCode, axum::Json<Queue>)> {
    let queue = queues::create(&state.ports, &tenant.actor, &input).await?;
    Ok((StatusCode::CREATED, axum::Json(queue)))
}

/// Replaces a queue and its chatbot menu in one transaction (options sent with their ids keep
/// them; options not sent are deleted).
#[utoipa::path(
    put,
    path = "/queue/{id}",
    tag = "queues",
    params(("id" = i64, Path, description = "The queue's id")),
    request_body = QueueInput,
    security(("bearer" = [])),
    responses(
        (status = 200, body = Queue),
        (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody),
        (status = 409, description = "ERR_QUEUE_COLOR_ALREADY_EXISTS", body = ErrorBody),
        (status = 422, description = "ERR_VALIDATION, ERR_WAPP_GREETING_REQUIRED", body = ErrorBody)
    )
)]
async fn update_queue(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(id): Path<i64>,
    Json(input): Json<QueueInput>,
) -> ApiResult<axum::Json<Queue>> {
    Ok(axum::Json(
        queues::update(&state.ports, &tenant.actor, QueueId(id), &input).await?,
    ))
}

/// Deletes a queue and its chatbot menu; its tickets stay, without a queue.
#[utoipa::path(
    delete,
    path = "/queue/{id}",
    tag = "queues",
    params(("id" = i64, Path, description = "The queue's id")),
    security(("bearer" = [])),
    responses((status = 204), (status = 403, body = ErrorBody), (status = 404, body = ErrorBody))
)]
async fn delete_queue(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(id): Path<i64>,
) -> ApiResult<StatusCode> {
    queues::delete(&state.ports, &tenant.actor, QueueId(id)).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// One chatbot option with its nested options, its queue and its parent.
#[utoipa::path(
    get,
    path = "/chatbot/{id}",
    tag = "queues",
    params(("id" = i64, Path, description = "The option's id")),
    security(("bearer" = [])),
    responses((status = 200, body = ChatbotNode), (status = 404, body = ErrorBody))
)]
async fn get_chatbot(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(id): Path<i64>,
) -> ApiResult<axum::Json<ChatbotNode>> {
    Ok(axum::Json(
        queues::get_chatbot(&state.ports, &tenant.actor, ChatbotId(id)).await?,
    ))
}

/// Appends an option (with its sub-options) to a queue's menu, or under `parentId`.
#[utoipa::path(
    post,
    path = "/chatbot",
    tag = "queues",
    request_body = ChatbotNode,
    security(("bearer" = [])),
    responses(
        (status = 201, body = ChatbotNode),
        (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody),
        (status = 422, description = "ERR_VALIDATION", body = ErrorBody)
    )
)]
async fn create_chatbot(
    State(state): State<AppState>,
    tenant: Tenant,
    Json(node): Json<ChatbotNode>,
) -> ApiResult<(StatusCode, axum::Json<ChatbotNode>)> {
    let node = queues::create_chatbot(&state.ports, &tenant.actor, &node).await?;
    Ok((StatusCode::CREATED, axum::Json(node)))
}

/// Replaces one option and its sub-options; it keeps its place in the menu.
#[utoipa::path(
    put,
    path = "/chatbot/{id}",
    tag = "queues",
    params(("id" = i64, Path, description = "The option's id")),
    request_body = ChatbotOption,
    security(("bearer" = [])),
    responses(
        (status = 200, body = ChatbotNode),
        (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody),
        (status = 422, description = "ERR_VALIDATION", body = ErrorBody)
    )
)]
async fn update_chatbot(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(id): Path<i64>,
    Json(option): Json<ChatbotOption>,
) -> ApiResult<axum::Json<ChatbotNode>> {
    Ok(axum::Json(
        queues::update_chatbot(&state.ports, &tenant.actor, ChatbotId(id), &option).await?,
    ))
}

/// Deletes one option and its sub-options.
#[utoipa::path(
    delete,
    path = "/chatbot/{id}",
    tag = "queues",
    params(("id" = i64, Path, description = "The option's id")),
    security(("bearer" = [])),
    responses((status = 204), (status = 403, body = ErrorBody), (status = 404, body = ErrorBody))
)]
async fn delete_chatbot(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(id): Path<i64>,
) -> ApiResult<StatusCode> {
    queues::delete_chatbot(&state.ports, &tenant.actor, ChatbotId(id)).await?;
    Ok(StatusCode::NO_CONTENT)
}
