//! Tickets (`docs/api.md` "Tickets"): the inbox list with its tabs and filters, one ticket by id
//! or uuid, creating one by hand, transitions, deletion, close-all and the ticket log.
//!
//! Every handler hands the caller and the request to `chatflow_core::service::inbox::tickets`,
//! which applies visibility and LGPD masking: another company's (or an invisible) ticket is 404.

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use chatflow_core::inbox::model::{
    Cursor, PageStart, SortOrder, Ticket, TicketLogEntry, TicketQuery,
};
use chatflow_core::service::inbox::tickets::{self, CreateTicket, UpdateTicket};
use chatflow_core::ticket::TicketStatus;
use chatflow_core::{ContactId, ErrorCode, QueueId, TagId, TicketId, UserId, WhatsappId};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::extract::{Json, Path, Query, Tenant};
use crate::state::AppState;

/// Tickets per inbox page.
const PAGE_SIZE: u32 = 20;

/// The routes of this module.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_tickets, create_ticket))
        .routes(routes!(close_all))
        .routes(routes!(get_by_uuid))
        .routes(routes!(get_ticket, update_ticket, delete_ticket))
        .routes(routes!(ticket_logs))
        .routes(routes!(mark_read))
}

/// The query of `GET /tickets`.
#[derive(Debug, Clone, Default, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase", default)]
#[into_params(parameter_in = Query)]
pub struct ListParams {
    /// Contact name or number (and message bodies with `searchOnMessages`).
    pub search_param: String,
    /// `true` to search message bodies too.
    pub search_on_messages: Option<String>,
    /// One tab: `open`, `pending`, `group`, `closed`; `search` or empty for every status.
    pub status: Option<String>,
    /// `true` to see other users' tickets (needs `tickets-manager:showall`).
    pub show_all: Option<String>,
    /// JSON array of queue ids.
    pub queue_ids: Option<String>,
    /// JSON array of tag ids.
    pub tags: Option<String>,
    /// JSON array of user ids.
    pub users: Option<String>,
    /// JSON array of connection ids.
    pub whatsapps: Option<String>,
    /// `true` for only tickets with unread messages.
    pub with_unread_messages: Option<String>,
    /// `ASC` or `DESC` (default) by last update.
    pub sort_tickets: Option<String>,
    /// Only tickets updated that day (`YYYY-MM-DD`).
    pub date: Option<String>,
    /// The `nextCursor` of the previous page.
    pub cursor: Option<String>,
    /// A 1-based page number (used when there is no cursor).
    pub page_number: Option<u32>,
}

/// A page of tickets.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TicketPage {
    pub tickets: Vec<Ticket>,
    pub has_more: bool,
    /// Total matches, on the first page only.
    pub count: Option<i64>,
    /// Pass as `cursor` for the next page.
    pub next_cursor: Option<String>,
}

/// The body of `POST /tickets`.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CreateBody {
    pub contact_id: i64,
    #[serde(default)]
    pub queue_id: Option<i64>,
    #[serde(default)]
    pub whatsapp_id: Option<i64>,
    #[serde(default)]
    pub user_id: Option<i64>,
    #[serde(default)]
    pub status: Option<TicketStatus>,
}

/// The body of `PUT /tickets/{id}`.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct UpdateBody {
    pub status: Option<TicketStatus>,
    pub user_id: Option<i64>,
    pub queue_id: Option<i64>,
    /// A transfer note for the contact.
    pub msg_transfer: Option<String>,
    /// Accepted for compatibility; the state machine sets it on transfers.
    #[serde(rename = "isTransfered")]
    pub is_transferred: Option<bool>,
    pub send_farewell_message: Option<bool>,
    pub use_integration: Option<bool>,
}

/// The body of `POST /tickets/closeAll`.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CloseAllBody {
    pub status: TicketStatus,
    #[serde(default)]
    pub selected_queue_ids: Vec<i64>,
}

/// What `POST /tickets/closeAll` answers.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Closed {
    /// How many tickets were closed.
    pub closed: u64,
}

/// The existing ticket named by a 409 `ERR_OTHER_OPEN_TICKET`.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ConflictTicket {
    pub id: TicketId,
    pub uuid: uuid::Uuid,
    pub user_id: Option<UserId>,
    pub user: Option<chatflow_core::inbox::model::TicketUser>,
    pub queue: Option<chatflow_core::ports::QueueSummary>,
}

/// The 409 body of `POST /tickets`.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ConflictBody {
    #[schema(value_type = String)]
    pub error: ErrorCode,
    pub message: String,
    pub ticket: Option<ConflictTicket>,
}

fn bad_request() -> ApiError {
    ApiError::code(ErrorCode::ERR_BAD_REQUEST)
}

fn truthy(value: Option<&str>) -> bool {
    matches!(value.map(str::trim), Some("true" | "1"))
}

fn ids(value: Option<&str>) -> Result<Vec<i64>, ApiError> {
    match value.map(str::trim) {
        None | Some("") => Ok(Vec::new()),
        Some(text) => serde_json::from_str::<Vec<i64>>(text).map_err(|_| bad_request()),
    }
}

/// The page start from `cursor` / `pageNumber`.
pub fn page_start(cursor: Option<&str>, page_number: Option<u32>) -> Result<PageStart, ApiError> {
    Ok(match (cursor, page_number) {
        (Some(cursor), _) if !cursor.is_empty() => {
            PageStart::After(Cursor::decode(cursor).ok_or_else(bad_request)?)
        }
        (_, Some(n)) if n > 1 => PageStart::PageNumber(n),
        _ => PageStart::First,
    })
}

fn query_of(params: &ListParams) -> Result<TicketQuery, ApiError> {
    let statuses = match params.status.as_deref().map(str::trim) {
        None | Some("" | "search" | "all") => Vec::new(),
        Some(text) => vec![
            serde_json::from_value::<TicketStatus>(serde_json::Value::String(text.to_owned()))
                .map_err(|_| bad_request())?,
        ],
    };
    let updated_on = match params.date.as_deref().map(str::trim) {
        None | Some("") => None,
        Some(text) => Some(
            chrono::NaiveDate::parse_from_str(text.get(..10).unwrap_or(text), "%Y-%m-%d")
                .map_err(|_| bad_request())?,
        ),
    };
    Ok(TicketQuery {
        search: params.search_param.clone(),
        search_on_messages: truthy(params.search_on_messages.as_deref()),
        statuses,
        show_all: truthy(params.show_all.as_deref()),
        queue_ids: ids(params.queue_ids.as_deref())?
            .into_iter()
            .map(QueueId)
            .collect(),
        tag_ids: ids(params.tags.as_deref())?
            .into_iter()
            .map(TagId)
            .collect(),
        user_ids: ids(params.users.as_deref())?
            .into_iter()
            .map(UserId)
            .collect(),
        whatsapp_ids: ids(params.whatsapps.as_deref())?
            .into_iter()
            .map(WhatsappId)
            .collect(),
        with_unread_messages: truthy(params.with_unread_messages.as_deref()),
        sort: match params.sort_tickets.as_deref() {
            Some(s) if s.eq_ignore_ascii_case("asc") => SortOrder::Asc,
            _ => SortOrder::Desc,
        },
        updated_on,
    })
}

/// The inbox: tickets the caller may see, by tab and filters; keyset pages of 20 (unread
/// first on the open and pending tabs).
#[utoipa::path(
    get,
    path = "/tickets",
    tag = "tickets",
    params(ListParams),
    security(("bearer" = [])),
    responses((status = 200, body = TicketPage), (status = 400, body = ErrorBody))
)]
async fn list_tickets(
    State(state): State<AppState>,
    tenant: Tenant,
    Query(params): Query<ListParams>,
) -> ApiResult<axum::Json<TicketPage>> {
    let query = query_of(&params)?;
    let start = page_start(params.cursor.as_deref(), params.page_number)?;
    let page = tickets::list(&state.ports, &tenant.actor, &query, &start, PAGE_SIZE).await?;
    Ok(axum::Json(TicketPage {
        tickets: page.items,
        has_more: page.has_more,
        count: page.count,
        next_cursor: page.next_cursor.map(|c| c.encode()),
    }))
}

/// One ticket by its uuid (the web app's ticket URLs).
#[utoipa::path(
    get,
    path = "/tickets/u/{uuid}",
    tag = "tickets",
    params(("uuid" = String, Path, description = "The ticket's uuid")),
    security(("bearer" = [])),
    responses((status = 200, body = Ticket), (status = 404, body = ErrorBody))
)]
async fn get_by_uuid(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(uuid): Path<String>,
) -> ApiResult<axum::Json<Ticket>> {
    let uuid =
        uuid::Uuid::parse_str(&uuid).map_err(|_| ApiError::code(ErrorCode::ERR_NO_TICKET_FOUND))?;
    Ok(axum::Json(
        tickets::get_by_uuid(&state.ports, &tenant.actor, uuid).await?,
    ))
}

/// One ticket.
#[utoipa::path(
    get,
    path = "/tickets/{id}",
    tag = "tickets",
    params(("id" = i64, Path, description = "The ticket's id")),
    security(("bearer" = [])),
    responses((status = 200, body = Ticket), (status = 404, body = ErrorBody))
)]
async fn get_ticket(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(id): Path<i64>,
) -> ApiResult<axum::Json<Ticket>> {
    Ok(axum::Json(
        tickets::get(&state.ports, &tenant.actor, TicketId(id)).await?,
    ))
}

/// Opens a ticket by hand; 409 names the contact's ticket that is already open.
#[utoipa::path(
    post,
    path = "/tickets",
    tag = "tickets",
    request_body = CreateBody,
    security(("bearer" = [])),
    responses(
        (status = 200, body = Ticket),
        (status = 404, body = ErrorBody),
        (status = 409, description = "ERR_OTHER_OPEN_TICKET", body = ConflictBody),
    )
)]
async fn create_ticket(
    State(state): State<AppState>,
    tenant: Tenant,
    Json(body): Json<CreateBody>,
) -> Result<Response, ApiError> {
    let input = CreateTicket {
        contact_id: ContactId(body.contact_id),
        queue_id: body.queue_id.map(QueueId),
        whatsapp_id: body.whatsapp_id.map(WhatsappId),
        user_id: body.user_id.map(UserId),
        status: body.status,
    };
    match tickets::create(&state.ports, &tenant.actor, &input).await {
        Ok(ticket) => Ok(axum::Json(ticket).into_response()),
        Err(e) if e.code == ErrorCode::ERR_OTHER_OPEN_TICKET => {
            let existing = tickets::active_for(
                &state.ports,
                &tenant.actor,
                input.contact_id,
                input.whatsapp_id,
            )
            .await?;
            let body = ConflictBody {
                error: ErrorCode::ERR_OTHER_OPEN_TICKET,
                message: crate::error::message_of(ErrorCode::ERR_OTHER_OPEN_TICKET).to_owned(),
                ticket: existing.map(|t| ConflictTicket {
                    id: t.id,
                    uuid: t.uuid,
                    user_id: t.user_id,
                    user: t.user,
                    queue: t.queue,
                }),
            };
            Ok((StatusCode::CONFLICT, axum::Json(body)).into_response())
        }
        Err(e) => Err(e.into()),
    }
}

/// Changes a ticket through the state machine: accept, return to the queue, resolve (with or
/// without farewell), ignore, reopen, transfer; or sets `useIntegration`.
#[utoipa::path(
    put,
    path = "/tickets/{id}",
    tag = "tickets",
    params(("id" = i64, Path, description = "The ticket's id")),
    request_body = UpdateBody,
    security(("bearer" = [])),
    responses(
        (status = 200, body = Ticket),
        (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody),
        (status = 409, description = "ERR_INVALID_TICKET_TRANSITION", body = ErrorBody),
    )
)]
async fn update_ticket(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(id): Path<i64>,
    Json(body): Json<UpdateBody>,
) -> ApiResult<axum::Json<Ticket>> {
    let _ = body.is_transferred;
    let input = UpdateTicket {
        status: body.status,
        user_id: body.user_id.map(UserId),
        queue_id: body.queue_id.map(QueueId),
        msg_transfer: body.msg_transfer,
        send_farewell_message: body.send_farewell_message,
        use_integration: body.use_integration,
    };
    Ok(axum::Json(
        tickets::update(&state.ports, &tenant.actor, TicketId(id), &input).await?,
    ))
}

/// Deletes a ticket (`ticket-options:deleteTicket`).
#[utoipa::path(
    delete,
    path = "/tickets/{id}",
    tag = "tickets",
    params(("id" = i64, Path, description = "The ticket's id")),
    security(("bearer" = [])),
    responses(
        (status = 204),
        (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody),
    )
)]
async fn delete_ticket(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(id): Path<i64>,
) -> ApiResult<StatusCode> {
    tickets::delete(&state.ports, &tenant.actor, TicketId(id)).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// Marks a ticket as read (the web app calls it when a message arrives in the open ticket).
#[utoipa::path(
    post,
    path = "/tickets/{id}/read",
    tag = "tickets",
    params(("id" = i64, Path, description = "The ticket's id")),
    security(("bearer" = [])),
    responses((status = 204), (status = 404, body = ErrorBody))
)]
async fn mark_read(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(id): Path<i64>,
) -> ApiResult<StatusCode> {
    tickets::mark_read(&state.ports, &tenant.actor, TicketId(id)).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// Closes every ticket of a status in the selected queues (`tickets-manager:closeAll`).
#[utoipa::path(
    post,
    path = "/tickets/closeAll",
    tag = "tickets",
    request_body = CloseAllBody,
    security(("bearer" = [])),
    responses((status = 200, body = Closed), (status = 403, body = ErrorBody))
)]
async fn close_all(
    State(state): State<AppState>,
    tenant: Tenant,
    Json(body): Json<CloseAllBody>,
) -> ApiResult<axum::Json<Closed>> {
    let queues: Vec<QueueId> = body.selected_queue_ids.into_iter().map(QueueId).collect();
    let closed = tickets::close_all(&state.ports, &tenant.actor, body.status, &queues).await?;
    Ok(axum::Json(Closed { closed }))
}

/// A ticket's history.
#[utoipa::path(
    get,
    path = "/tickets-log/{ticketId}",
    tag = "tickets",
    params(("ticketId" = i64, Path, description = "The ticket's id")),
    security(("bearer" = [])),
    responses((status = 200, body = Vec<TicketLogEntry>), (status = 404, body = ErrorBody))
)]
async fn ticket_logs(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(id): Path<i64>,
) -> ApiResult<axum::Json<Vec<TicketLogEntry>>> {
    Ok(axum::Json(
        tickets::logs(&state.ports, &tenant.actor, TicketId(id)).await?,
    ))
}
