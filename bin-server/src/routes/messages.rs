//! Messages (`docs/api.md` "Messages"): a ticket's messages, sending (JSON, or multipart with
//! media), editing, deleting, reacting, forwarding, media download and the message count,
//! through `chatflow_core::service::inbox::messages`.
//!
//! `POST /messages/{id}` lives in [`upload_router`] (its body may carry media up to the
//! server's upload limit). Forwarding several messages sends the first at once and the rest
//! from a spawned task, 900 ms apart (there is no job queue yet).

use axum::body::Body;
use axum::extract::multipart::Multipart;
use axum::extract::{FromRequest, Request, State};
use axum::http::HeaderValue;
use axum::http::header::{CONTENT_DISPOSITION, CONTENT_TYPE};
use axum::response::Response;
use chatflow_core::inbox::channel::ContactCard;
use chatflow_core::inbox::model::{Message, Ticket};
use chatflow_core::service::inbox::messages::{self, SendMessage, Upload};
use chatflow_core::{ContactId, ErrorCode, MessageId, TicketId};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::extract::{Json, Path, Query, Tenant};
use crate::state::AppState;

/// Messages per page.
const PAGE_SIZE: u32 = 20;

/// The JSON routes of this module (see [`upload_router`] for sending).
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_messages, delete_message))
        .routes(routes!(edit_message))
        .routes(routes!(react))
        .routes(routes!(forward))
        .routes(routes!(media))
        .routes(routes!(retry_media))
        .routes(routes!(count_messages))
}

/// Sending, which may carry media and takes a larger body than the JSON routes.
pub fn upload_router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(send_message))
}

/// The query of `GET /messages/{id}`.
#[derive(Debug, Clone, Default, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase", default)]
#[into_params(parameter_in = Query)]
pub struct ListParams {
    /// The `nextCursor` of the previous (newer) page.
    pub cursor: Option<String>,
    /// A 1-based page number (used when there is no cursor).
    pub page_number: Option<u32>,
}

/// A page of a ticket's messages.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MessagePage {
    /// Oldest first within the page.
    pub messages: Vec<Message>,
    pub has_more: bool,
    pub count: Option<i64>,
    /// Pass as `cursor` for the next (older) page.
    pub next_cursor: Option<String>,
    pub ticket: Ticket,
}

/// A quoted message reference.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct QuotedRef {
    pub id: i64,
}

/// The JSON body of `POST /messages/{id}`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct SendBody {
    pub body: String,
    pub quoted_msg: Option<QuotedRef>,
    pub is_private: Option<bool>,
    /// `false` to send without the signature.
    pub sign_message: Option<bool>,
    #[serde(rename = "vCard")]
    #[schema(value_type = Option<Object>)]
    pub v_card: Option<ContactCard>,
}

/// The body of `POST /messages/edit/{id}`.
#[derive(Debug, Clone, Deserialize, ToSchema)]
pub struct EditBody {
    pub body: String,
}

/// The body of `POST /messages/{id}/react`.
#[derive(Debug, Clone, Deserialize, ToSchema)]
pub struct ReactBody {
    /// Empty removes the reaction.
    pub emoji: String,
}

/// One or several message ids.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(untagged)]
pub enum OneOrMany {
    One(i64),
    Many(Vec<i64>),
}

/// The body of `POST /message/forward`.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ForwardBody {
    pub message_id: OneOrMany,
    pub contact_id: i64,
    #[serde(default)]
    pub sign_message: Option<bool>,
}

/// What `POST /message/forward` answers.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Forwarded {
    /// The first forwarded copy.
    pub message: Message,
    /// How many more are being sent, 900 ms apart.
    pub queued: usize,
}

/// The query of `GET /messages-allMe`.
#[derive(Debug, Clone, Default, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase", default)]
#[into_params(parameter_in = Query)]
pub struct CountParams {
    pub from_me: Option<String>,
    pub date_start: Option<String>,
    pub date_end: Option<String>,
}

/// One count row.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct CountRow {
    pub count: i64,
}

/// What `GET /messages-allMe` answers.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct CountBody {
    pub count: Vec<CountRow>,
}

fn bad_request() -> ApiError {
    ApiError::code(ErrorCode::ERR_BAD_REQUEST)
}

/// A ticket's messages by the ticket's uuid: newest page first, each page oldest first. The
/// first page resets the ticket's unread count.
#[utoipa::path(
    get,
    path = "/messages/{id}",
    tag = "messages",
    params(("id" = String, Path, description = "The ticket's uuid"), ListParams),
    security(("bearer" = [])),
    responses((status = 200, body = MessagePage), (status = 404, body = ErrorBody))
)]
async fn list_messages(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(id): Path<String>,
    Query(params): Query<ListParams>,
) -> ApiResult<axum::Json<MessagePage>> {
    let uuid =
        uuid::Uuid::parse_str(&id).map_err(|_| ApiError::code(ErrorCode::ERR_NO_TICKET_FOUND))?;
    let start = super::tickets::page_start(params.cursor.as_deref(), params.page_number)?;
    let (page, ticket) =
        messages::list(&state.ports, &tenant.actor, uuid, &start, PAGE_SIZE).await?;
    Ok(axum::Json(MessagePage {
        messages: page.items,
        has_more: page.has_more,
        count: page.count,
        next_cursor: page.next_cursor.map(|c| c.encode()),
        ticket,
    }))
}

/// Sends on a ticket: JSON `{body, quotedMsg?, isPrivate?, signMessage?, vCard?}`, or multipart
/// with `medias` files (and `body` captions, one per file, and `signMessage`). Answers the
/// message, or the messages for several files.
#[utoipa::path(
    post,
    path = "/messages/{id}",
    tag = "messages",
    params(("id" = i64, Path, description = "The ticket's id")),
    request_body = SendBody,
    security(("bearer" = [])),
    responses(
        (status = 200, body = Message),
        (status = 404, body = ErrorBody),
        (status = 413, description = "ERR_PAYLOAD_TOO_LARGE", body = ErrorBody),
        (status = 422, description = "ERR_VALIDATION", body = ErrorBody),
    )
)]
async fn send_message(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(id): Path<i64>,
    request: Request,
) -> Result<axum::response::Response, ApiError> {
    use axum::response::IntoResponse;
    let ticket = TicketId(id);
    let is_multipart = request
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("multipart/form-data"));
    if !is_multipart {
        let Json(body) = Json::<SendBody>::from_request(request, &state).await?;
        let input = SendMessage {
            body: body.body,
            quoted_msg_id: body.quoted_msg.map(|q| MessageId(q.id)),
            is_private: body.is_private.unwrap_or(false),
            sign: body.sign_message.unwrap_or(true),
            media: None,
            contact_card: body.v_card,
        };
        let message = messages::send(&state.ports, &tenant.actor, ticket, input).await?;
        return Ok(axum::Json(message).into_response());
    }
    let parts = crate::multipart::read(
        Multipart::from_request(request, &state).await,
        crate::multipart::Select::Fields(&["medias", "body", "signMessage"]),
        None,
    )
    .await?;
    let mut files = Vec::new();
    let mut captions = Vec::new();
    let mut sign = true;
    for part in parts {
        match part.field.as_str() {
            "medias" => {
                let file_name = part.file_name.unwrap_or_else(|| "file".to_owned());
                files.push(Upload {
                    mime_type: mime_of(&file_name, part.content_type.as_deref()),
                    file_name,
                    bytes: part.bytes,
                });
            }
            "body" => captions.push(part.text()?),
            _ => sign = part.text()?.trim() != "false",
        }
    }
    if files.is_empty() {
        return Err(ApiError::code(ErrorCode::ERR_VALIDATION));
    }
    let mut sent = Vec::new();
    for (i, upload) in files.into_iter().enumerate() {
        let input = SendMessage {
            body: captions.get(i).cloned().unwrap_or_default(),
            quoted_msg_id: None,
            is_private: false,
            sign,
            media: Some(upload),
            contact_card: None,
        };
        sent.push(messages::send(&state.ports, &tenant.actor, ticket, input).await?);
    }
    if sent.len() == 1 {
        Ok(axum::Json(sent.remove(0)).into_response())
    } else {
        Ok(axum::Json(sent).into_response())
    }
}

/// Edits one's own message within 15 minutes.
#[utoipa::path(
    post,
    path = "/messages/edit/{id}",
    tag = "messages",
    params(("id" = i64, Path, description = "The message's id")),
    request_body = EditBody,
    security(("bearer" = [])),
    responses(
        (status = 200, body = Message),
        (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody),
    )
)]
async fn edit_message(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(id): Path<i64>,
    Json(body): Json<EditBody>,
) -> ApiResult<axum::Json<Message>> {
    let now = state.ports.clock.now();
    Ok(axum::Json(
        messages::edit(&state.ports, &tenant.actor, MessageId(id), &body.body, now).await?,
    ))
}

/// Deletes one's own message for everyone.
#[utoipa::path(
    delete,
    path = "/messages/{id}",
    tag = "messages",
    params(("id" = i64, Path, description = "The message's id")),
    security(("bearer" = [])),
    responses(
        (status = 200, body = Message),
        (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody),
    )
)]
async fn delete_message(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(id): Path<String>,
) -> ApiResult<axum::Json<Message>> {
    let id: i64 = id
        .parse()
        .map_err(|_| ApiError::code(ErrorCode::ERR_NOT_FOUND))?;
    Ok(axum::Json(
        messages::delete(&state.ports, &tenant.actor, MessageId(id)).await?,
    ))
}

/// Sets (or, with an empty emoji, removes) the company's reaction on a message.
#[utoipa::path(
    post,
    path = "/messages/{id}/react",
    tag = "messages",
    params(("id" = i64, Path, description = "The message's id")),
    request_body = ReactBody,
    security(("bearer" = [])),
    responses((status = 200, body = Message), (status = 404, body = ErrorBody))
)]
async fn react(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(id): Path<i64>,
    Json(body): Json<ReactBody>,
) -> ApiResult<axum::Json<Message>> {
    Ok(axum::Json(
        messages::react(&state.ports, &tenant.actor, MessageId(id), &body.emoji).await?,
    ))
}

/// Forwards messages to a contact: the first at once, the rest 900 ms apart.
#[utoipa::path(
    post,
    path = "/message/forward",
    tag = "messages",
    request_body = ForwardBody,
    security(("bearer" = [])),
    responses((status = 200, body = Forwarded), (status = 404, body = ErrorBody))
)]
async fn forward(
    State(state): State<AppState>,
    tenant: Tenant,
    Json(body): Json<ForwardBody>,
) -> ApiResult<axum::Json<Forwarded>> {
    let ids = match body.message_id {
        OneOrMany::One(id) => vec![id],
        OneOrMany::Many(ids) => ids,
    };
    let ids: Vec<MessageId> = ids.into_iter().map(MessageId).collect();
    let (message, queued) = messages::forward_many(
        &state.ports,
        &tenant.actor,
        &ids,
        ContactId(body.contact_id),
        body.sign_message.unwrap_or(true),
    )
    .await?;
    state.jobs_wake();
    Ok(axum::Json(Forwarded { message, queued }))
}

/// A message's media, for users of the owning company who may see its ticket.
#[utoipa::path(
    get,
    path = "/messages/{id}/media",
    tag = "messages",
    params(("id" = i64, Path, description = "The message's id")),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The file, with the MIME type its name says (application/octet-stream when unknown)"),
        (status = 404, body = ErrorBody),
    )
)]
async fn media(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(id): Path<i64>,
) -> Result<Response, ApiError> {
    let (name, bytes) = messages::media(&state.ports, &tenant.actor, MessageId(id)).await?;
    Ok(attachment(&name, bytes))
}

/// Tries again to download a received attachment that could not be had when its message
/// arrived (the message's `mediaError`); answers the message, with its file on success.
#[utoipa::path(
    post,
    path = "/messages/{id}/media/retry",
    tag = "messages",
    params(("id" = i64, Path, description = "The message's id")),
    security(("bearer" = [])),
    responses(
        (status = 200, body = Message),
        (status = 502, description = "ERR_WAPP_DOWNLOAD_MEDIA (WhatsApp did not give the file this time either) or ERR_WAPP_NOT_INITIALIZED (the session is not connected)", body = ErrorBody),
        (status = 404, body = ErrorBody),
    )
)]
async fn retry_media(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(id): Path<i64>,
) -> ApiResult<axum::Json<Message>> {
    Ok(axum::Json(
        messages::retry_media(&state.ports, &tenant.actor, MessageId(id)).await?,
    ))
}

/// A download of `bytes` as an attachment named after `name` (reduced to safe characters).
pub(crate) fn attachment(name: &str, bytes: Vec<u8>) -> Response {
    let safe: String = name
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_'))
        .collect();
    let mut response = Response::new(Body::from(bytes));
    let headers = response.headers_mut();
    let content_type = HeaderValue::from_str(&mime_of(name, None))
        .unwrap_or_else(|_| HeaderValue::from_static("application/octet-stream"));
    headers.insert(CONTENT_TYPE, content_type);
    headers.insert(
        axum::http::header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    if let Ok(value) = HeaderValue::from_str(&format!("attachment; filename=\"{safe}\"")) {
        headers.insert(CONTENT_DISPOSITION, value);
    }
    response
}

/// A file's MIME type: the declared one, unless it is missing or the generic
/// `application/octet-stream`, then the one its name's extension says (a quick message's image
/// fetched back from the server, or a client that declares nothing, is still sent as an image).
pub(crate) fn mime_of(file_name: &str, declared: Option<&str>) -> String {
    match declared.map(str::trim) {
        Some(d) if !d.is_empty() && !d.eq_ignore_ascii_case("application/octet-stream") => {
            d.to_owned()
        }
        _ => chatflow_core::media::mime_of(file_name).to_owned(),
    }
}

fn parse_day(
    text: Option<&str>,
    end: bool,
) -> Result<Option<chrono::DateTime<chrono::Utc>>, ApiError> {
    match text.map(str::trim) {
        None | Some("") => Ok(None),
        Some(t) => {
            let day = chrono::NaiveDate::parse_from_str(t.get(..10).unwrap_or(t), "%Y-%m-%d")
                .map_err(|_| bad_request())?;
            let time = if end {
                day.and_hms_opt(23, 59, 59)
            } else {
                day.and_hms_opt(0, 0, 0)
            };
            Ok(time.map(|t| t.and_utc()))
        }
    }
}

/// How many messages the company has in a date range, optionally only sent ones.
#[utoipa::path(
    get,
    path = "/messages-allMe",
    tag = "messages",
    params(CountParams),
    security(("bearer" = [])),
    responses((status = 200, body = CountBody))
)]
async fn count_messages(
    State(state): State<AppState>,
    tenant: Tenant,
    Query(params): Query<CountParams>,
) -> ApiResult<axum::Json<CountBody>> {
    let from_me = match params.from_me.as_deref().map(str::trim) {
        Some("true" | "1") => Some(true),
        Some("false" | "0") => Some(false),
        _ => None,
    };
    let from = parse_day(params.date_start.as_deref(), false)?;
    let to = parse_day(params.date_end.as_deref(), true)?;
    let count = messages::count(&state.ports, &tenant.actor, from_me, from, to).await?;
    Ok(axum::Json(CountBody {
        count: vec![CountRow { count }],
    }))
}
