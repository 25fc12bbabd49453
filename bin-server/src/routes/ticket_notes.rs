//! Ticket notes (`docs/api.md` "Tickets"): internal notes on a ticket, listed per ticket or
//! contact, through `chatflow_core::service::inbox::tickets`.

use axum::extract::State;
use axum::http::StatusCode;
use chatflow_core::inbox::model::TicketNote;
use chatflow_core::service::inbox::tickets;
use chatflow_core::{ContactId, TicketId};
use serde::Deserialize;
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::error::{ApiResult, ErrorBody};
use crate::extract::{Json, Path, Query, Tenant};
use crate::state::AppState;

/// The routes of this module.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_notes))
        .routes(routes!(add_note))
        .routes(routes!(delete_note))
}

/// The query of `GET /ticket-notes/list`.
#[derive(Debug, Clone, Default, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase", default)]
#[into_params(parameter_in = Query)]
pub struct ListParams {
    pub ticket_id: Option<i64>,
    pub contact_id: Option<i64>,
}

/// The body of `POST /ticket-notes`.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct NoteBody {
    pub note: String,
    pub ticket_id: i64,
    /// Accepted for compatibility; the ticket's contact is used.
    #[serde(default)]
    pub contact_id: Option<i64>,
}

/// Notes of a ticket and/or a contact, newest first.
#[utoipa::path(
    get,
    path = "/ticket-notes/list",
    tag = "tickets",
    params(ListParams),
    security(("bearer" = [])),
    responses((status = 200, body = Vec<TicketNote>), (status = 404, body = ErrorBody))
)]
async fn list_notes(
    State(state): State<AppState>,
    tenant: Tenant,
    Query(params): Query<ListParams>,
) -> ApiResult<axum::Json<Vec<TicketNote>>> {
    Ok(axum::Json(
        tickets::notes(
            &state.ports,
            &tenant.actor,
            params.ticket_id.map(TicketId),
            params.contact_id.map(ContactId),
        )
        .await?,
    ))
}

/// Adds a note to a ticket.
#[utoipa::path(
    post,
    path = "/ticket-notes",
    tag = "tickets",
    request_body = NoteBody,
    security(("bearer" = [])),
    responses((status = 200, body = TicketNote), (status = 404, body = ErrorBody))
)]
async fn add_note(
    State(state): State<AppState>,
    tenant: Tenant,
    Json(body): Json<NoteBody>,
) -> ApiResult<axum::Json<TicketNote>> {
    let _ = body.contact_id;
    Ok(axum::Json(
        tickets::add_note(
            &state.ports,
            &tenant.actor,
            TicketId(body.ticket_id),
            &body.note,
        )
        .await?,
    ))
}

/// Deletes a note.
#[utoipa::path(
    delete,
    path = "/ticket-notes/{id}",
    tag = "tickets",
    params(("id" = i64, Path, description = "The note's id")),
    security(("bearer" = [])),
    responses((status = 204), (status = 404, body = ErrorBody))
)]
async fn delete_note(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(id): Path<i64>,
) -> ApiResult<StatusCode> {
    tickets::delete_note(&state.ports, &tenant.actor, id).await?;
    Ok(StatusCode::NO_CONTENT)
}
