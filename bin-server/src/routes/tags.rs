//! Tags (`docs/api.md` "Contacts and tags"): the company's tags, a contact's tags (sync and
//! list) and a ticket's tags. Handlers call `chatflow_core::service::inbox::tags`, which scopes
//! every call to the caller's company.

use axum::extract::State;
use axum::http::StatusCode;
use chatflow_core::inbox::model::{Contact, Tag};
use chatflow_core::service::inbox::tags::{self, TagInput};
use chatflow_core::{ContactId, TagId, TicketId};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::error::{ApiResult, ErrorBody};
use crate::extract::{Json, Path, Query, Tenant};
use crate::state::AppState;

/// The routes of this module.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_tags))
        .routes(routes!(page_tags, create_tag))
        .routes(routes!(update_tag, delete_tag))
        .routes(routes!(sync_tags))
        .routes(routes!(contact_tags))
        .routes(routes!(tag_ticket))
        .routes(routes!(clear_ticket_tags))
}

/// The query of `GET /tags/list`.
#[derive(Debug, Clone, Default, Deserialize, IntoParams)]
#[serde(default)]
#[into_params(parameter_in = Query)]
pub struct ListParams {
    /// `1`/`true`: only kanban lanes; `0`/`false`: only plain tags; absent: all.
    pub kanban: Option<String>,
}

/// The query of `GET /tags`.
#[derive(Debug, Clone, Default, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase", default)]
#[into_params(parameter_in = Query)]
pub struct PageParams {
    /// Matches the name (accent- and case-insensitive).
    pub search_param: String,
    /// The page, from 1.
    pub page_number: Option<u32>,
}

/// A page of tags.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TagPage {
    pub tags: Vec<Tag>,
    pub has_more: bool,
    pub count: i64,
}

/// A tag reference in `POST /tags/sync`.
#[derive(Debug, Clone, Copy, Deserialize, ToSchema)]
pub struct TagRef {
    pub id: i64,
}

/// The body of `POST /tags/sync`.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SyncBody {
    pub contact_id: i64,
    #[serde(default)]
    pub tags: Vec<TagRef>,
}

/// The company's tags, optionally only kanban lanes or only plain tags.
#[utoipa::path(
    get,
    path = "/tags/list",
    tag = "tags",
    params(ListParams),
    security(("bearer" = [])),
    responses((status = 200, body = Vec<Tag>))
)]
async fn list_tags(
    State(state): State<AppState>,
    tenant: Tenant,
    Query(params): Query<ListParams>,
) -> ApiResult<axum::Json<Vec<Tag>>> {
    let kanban = match params.kanban.as_deref().map(str::trim) {
        Some("1" | "true") => Some(true),
        Some("0" | "false") => Some(false),
        _ => None,
    };
    Ok(axum::Json(
        tags::list(&state.ports, &tenant.actor, kanban).await?,
    ))
}

/// The tags page: search and pages of 20.
#[utoipa::path(
    get,
    path = "/tags",
    tag = "tags",
    params(PageParams),
    security(("bearer" = [])),
    responses((status = 200, body = TagPage))
)]
async fn page_tags(
    State(state): State<AppState>,
    tenant: Tenant,
    Query(params): Query<PageParams>,
) -> ApiResult<axum::Json<TagPage>> {
    let page = tags::page(
        &state.ports,
        &tenant.actor,
        &params.search_param,
        params.page_number.unwrap_or(1),
    )
    .await?;
    Ok(axum::Json(TagPage {
        tags: page.tags,
        has_more: page.has_more,
        count: page.count,
    }))
}

/// Creates a tag (name at least 3 characters).
#[utoipa::path(
    post,
    path = "/tags",
    tag = "tags",
    request_body = TagInput,
    security(("bearer" = [])),
    responses((status = 200, body = Tag), (status = 422, description = "ERR_VALIDATION", body = ErrorBody))
)]
async fn create_tag(
    State(state): State<AppState>,
    tenant: Tenant,
    Json(input): Json<TagInput>,
) -> ApiResult<axum::Json<Tag>> {
    Ok(axum::Json(
        tags::create(&state.ports, &tenant.actor, input).await?,
    ))
}

/// Edits a tag.
#[utoipa::path(
    put,
    path = "/tags/{id}",
    tag = "tags",
    params(("id" = i64, Path, description = "The tag's id")),
    request_body = TagInput,
    security(("bearer" = [])),
    responses(
        (status = 200, body = Tag),
        (status = 404, body = ErrorBody),
        (status = 422, description = "ERR_VALIDATION", body = ErrorBody),
    )
)]
async fn update_tag(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(id): Path<i64>,
    Json(input): Json<TagInput>,
) -> ApiResult<axum::Json<Tag>> {
    Ok(axum::Json(
        tags::update(&state.ports, &tenant.actor, TagId(id), input).await?,
    ))
}

/// Deletes a tag.
#[utoipa::path(
    delete,
    path = "/tags/{id}",
    tag = "tags",
    params(("id" = i64, Path, description = "The tag's id")),
    security(("bearer" = [])),
    responses((status = 204), (status = 404, body = ErrorBody))
)]
async fn delete_tag(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(id): Path<i64>,
) -> ApiResult<StatusCode> {
    tags::delete(&state.ports, &tenant.actor, TagId(id)).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// Replaces a contact's tags; answers the contact.
#[utoipa::path(
    post,
    path = "/tags/sync",
    tag = "tags",
    request_body = SyncBody,
    security(("bearer" = [])),
    responses((status = 200, body = Contact), (status = 404, body = ErrorBody))
)]
async fn sync_tags(
    State(state): State<AppState>,
    tenant: Tenant,
    Json(body): Json<SyncBody>,
) -> ApiResult<axum::Json<Contact>> {
    let ids: Vec<TagId> = body.tags.iter().map(|t| TagId(t.id)).collect();
    Ok(axum::Json(
        tags::sync_contact(
            &state.ports,
            &tenant.actor,
            ContactId(body.contact_id),
            &ids,
        )
        .await?,
    ))
}

/// A contact's tags.
#[utoipa::path(
    get,
    path = "/contactTags/{contactId}",
    tag = "tags",
    params(("contactId" = i64, Path, description = "The contact's id")),
    security(("bearer" = [])),
    responses((status = 200, body = Vec<Tag>), (status = 404, body = ErrorBody))
)]
async fn contact_tags(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(contact_id): Path<i64>,
) -> ApiResult<axum::Json<Vec<Tag>>> {
    Ok(axum::Json(
        tags::contact_tags(&state.ports, &tenant.actor, ContactId(contact_id)).await?,
    ))
}

/// Adds a tag to a ticket.
#[utoipa::path(
    put,
    path = "/ticket-tags/{ticketId}/{tagId}",
    tag = "tags",
    params(
        ("ticketId" = i64, Path, description = "The ticket's id"),
        ("tagId" = i64, Path, description = "The tag's id"),
    ),
    security(("bearer" = [])),
    responses((status = 204), (status = 404, body = ErrorBody))
)]
async fn tag_ticket(
    State(state): State<AppState>,
    tenant: Tenant,
    Path((ticket_id, tag_id)): Path<(i64, i64)>,
) -> ApiResult<StatusCode> {
    tags::tag_ticket(
        &state.ports,
        &tenant.actor,
        TicketId(ticket_id),
        TagId(tag_id),
    )
    .await?;
    Ok(StatusCode::NO_CONTENT)
}

/// Removes every tag of a ticket.
#[utoipa::path(
    delete,
    path = "/ticket-tags/{ticketId}",
    tag = "tags",
    params(("ticketId" = i64, Path, description = "The ticket's id")),
    security(("bearer" = [])),
    responses((status = 204), (status = 404, body = ErrorBody))
)]
async fn clear_ticket_tags(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(ticket_id): Path<i64>,
) -> ApiResult<StatusCode> {
    tags::clear_ticket(&state.ports, &tenant.actor, TicketId(ticket_id)).await?;
    Ok(StatusCode::NO_CONTENT)
}
