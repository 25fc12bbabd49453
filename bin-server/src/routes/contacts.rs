//! Contacts (`docs/api.md` "Contacts and tags"): the list with search and filters, the contact
//! form, block/unblock, the bot and audio toggles, spreadsheet import and export, a number's
//! profile and import from a connection's chats.
//!
//! Every handler hands the caller and the request to `chatflow_core::service::inbox::contacts`,
//! which scopes each call to the caller's company: another company's ids answer 404.
//!
//! Import is two calls: `POST /contacts/upload` reads the file (xls, xlsx, csv, txt) within the
//! spreadsheet limits of `chatflow_core::limits` and stages its rows in the store under a random
//! token bound to the caller's company (`contacts::stage_upload`); `POST /contactsImport` with
//! that token and the column mapping imports them (`contacts::import_staged`).

use axum::body::Body;
use axum::extract::State;
use axum::extract::multipart::{Multipart, MultipartRejection};
use axum::http::header::{CONTENT_DISPOSITION, CONTENT_TYPE};
use axum::http::{HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use chatflow_core::inbox::import::{ImportMapping, ImportReport};
use chatflow_core::inbox::model::{Contact, ContactFilter, ContactInput, Cursor, PageStart};
use chatflow_core::limits::UploadKind;
use chatflow_core::ports::ChannelKind;
use chatflow_core::service::inbox::contacts;
use chatflow_core::service::inbox::contacts::{ChatImportReport, ContactDetail, ContactProfile};
use chatflow_core::{ContactId, ErrorCode, TagId, WhatsappId};
use chatflow_system::spreadsheet;
use serde::{Deserialize, Serialize};
use tokio::sync::Semaphore;
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::extract::{Json, Path, Query, Tenant};
use crate::state::AppState;

/// Spreadsheets parsed at once; more uploads wait their turn, so parsing memory stays within a
/// few files' bounds however many arrive together.
static PARSING: Semaphore = Semaphore::const_new(2);

/// The JSON routes of this module (see [`upload_router`] for the file upload).
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_contacts, create_contact))
        .routes(routes!(list_brief))
        .routes(routes!(export_contacts))
        .routes(routes!(get_contact, update_contact, delete_contact))
        .routes(routes!(block_contact))
        .routes(routes!(toggle_accept_audio))
        .routes(routes!(toggle_disable_bot))
        .routes(routes!(import_contacts))
        .routes(routes!(contact_profile))
        .routes(routes!(import_from_chats))
        .routes(routes!(import_from_connection))
}

/// The spreadsheet upload, which takes a larger body than the JSON routes.
pub fn upload_router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(upload_contacts))
}

/// The query of `GET /contacts`.
#[derive(Debug, Clone, Default, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase", default)]
#[into_params(parameter_in = Query)]
pub struct ListParams {
    /// Matches name, number or e-mail (accent- and case-insensitive).
    pub search_param: String,
    /// Only this channel.
    pub channel: Option<ChannelKind>,
    /// `true`/`false`: only groups, or only one-to-one contacts.
    pub is_group: Option<String>,
    /// Contacts having any of these tags, as a JSON array of ids (`[1,2]`).
    pub contact_tag: Option<String>,
    /// The `nextCursor` of the previous page.
    pub cursor: Option<String>,
    /// A 1-based page number (used when there is no cursor).
    pub page_number: Option<u32>,
}

/// A page of contacts.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ContactPage {
    pub contacts: Vec<Contact>,
    pub has_more: bool,
    /// Total matches, on the first page only.
    pub count: Option<i64>,
    /// Pass as `cursor` for the next page.
    pub next_cursor: Option<String>,
}

/// The query of `GET /contacts/list`.
#[derive(Debug, Clone, Default, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase", default)]
#[into_params(parameter_in = Query)]
pub struct BriefParams {
    pub search_param: String,
}

/// The body of `PUT /contacts/block/{id}`.
#[derive(Debug, Clone, Copy, Deserialize, ToSchema)]
pub struct BlockBody {
    /// `false` blocks the contact, `true` unblocks it.
    pub active: bool,
}

/// What `POST /contacts/upload` answers.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct UploadPreview {
    /// The header row.
    pub columns: Vec<String>,
    /// The first 50 data rows.
    pub rows: Vec<Vec<String>>,
    /// How many data rows the file has.
    pub total: usize,
    /// Pass to `POST /contactsImport`.
    pub token: String,
}

/// The body of `POST /contactsImport`.
#[derive(Debug, Clone, Deserialize, ToSchema)]
pub struct ImportBody {
    /// The upload's token.
    pub token: String,
    /// Which column feeds which field.
    pub mapping: ImportMapping,
}

/// Parses `isGroup` leniently (`true`, `false`, `1`, `0`; anything else means both).
fn flag(value: Option<&str>) -> Option<bool> {
    match value?.trim() {
        "true" | "1" => Some(true),
        "false" | "0" => Some(false),
        _ => None,
    }
}

fn bad_request() -> ApiError {
    ApiError::code(ErrorCode::ERR_BAD_REQUEST)
}

/// The company's contacts: search, channel, group and tag filters; keyset pages of 20.
#[utoipa::path(
    get,
    path = "/contacts",
    tag = "contacts",
    params(ListParams),
    security(("bearer" = [])),
    responses((status = 200, body = ContactPage), (status = 400, body = ErrorBody))
)]
async fn list_contacts(
    State(state): State<AppState>,
    tenant: Tenant,
    Query(params): Query<ListParams>,
) -> ApiResult<axum::Json<ContactPage>> {
    let tag_ids = match params.contact_tag.as_deref().map(str::trim) {
        None | Some("") => Vec::new(),
        Some(text) => serde_json::from_str::<Vec<i64>>(text)
            .map_err(|_| bad_request())?
            .into_iter()
            .map(TagId)
            .collect(),
    };
    let filter = ContactFilter {
        search: params.search_param,
        channel: params.channel,
        is_group: flag(params.is_group.as_deref()),
        tag_ids,
    };
    let start = match (params.cursor.as_deref(), params.page_number) {
        (Some(cursor), _) if !cursor.is_empty() => {
            PageStart::After(Cursor::decode(cursor).ok_or_else(bad_request)?)
        }
        (_, Some(n)) if n > 1 => PageStart::PageNumber(n),
        _ => PageStart::First,
    };
    let page = contacts::list(&state.ports, &tenant.actor, &filter, &start).await?;
    Ok(axum::Json(ContactPage {
        contacts: page.items,
        has_more: page.has_more,
        count: page.count,
        next_cursor: page.next_cursor.map(|c| c.encode()),
    }))
}

/// A brief list of matching contacts for pickers.
#[utoipa::path(
    get,
    path = "/contacts/list",
    tag = "contacts",
    params(BriefParams),
    security(("bearer" = [])),
    responses((status = 200, body = Vec<Contact>))
)]
async fn list_brief(
    State(state): State<AppState>,
    tenant: Tenant,
    Query(params): Query<BriefParams>,
) -> ApiResult<axum::Json<Vec<Contact>>> {
    Ok(axum::Json(
        contacts::list_brief(&state.ports, &tenant.actor, &params.search_param).await?,
    ))
}

/// One contact of the caller's company, with its aliases.
#[utoipa::path(
    get,
    path = "/contacts/{id}",
    tag = "contacts",
    params(("id" = i64, Path, description = "The contact's id")),
    security(("bearer" = [])),
    responses((status = 200, body = ContactDetail), (status = 404, body = ErrorBody))
)]
async fn get_contact(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(id): Path<i64>,
) -> ApiResult<axum::Json<ContactDetail>> {
    Ok(axum::Json(
        contacts::detail(&state.ports, &tenant.actor, ContactId(id)).await?,
    ))
}

/// Creates a contact.
#[utoipa::path(
    post,
    path = "/contacts",
    tag = "contacts",
    request_body = ContactInput,
    security(("bearer" = [])),
    responses(
        (status = 200, body = Contact),
        (status = 409, description = "ERR_DUPLICATED_CONTACT", body = ErrorBody),
        (status = 422, description = "ERR_VALIDATION", body = ErrorBody),
    )
)]
async fn create_contact(
    State(state): State<AppState>,
    tenant: Tenant,
    Json(input): Json<ContactInput>,
) -> ApiResult<axum::Json<Contact>> {
    Ok(axum::Json(
        contacts::create(&state.ports, &tenant.actor, input).await?,
    ))
}

/// Edits a contact.
#[utoipa::path(
    put,
    path = "/contacts/{id}",
    tag = "contacts",
    params(("id" = i64, Path, description = "The contact's id")),
    request_body = ContactInput,
    security(("bearer" = [])),
    responses(
        (status = 200, body = Contact),
        (status = 404, body = ErrorBody),
        (status = 409, description = "ERR_DUPLICATED_CONTACT", body = ErrorBody),
        (status = 422, description = "ERR_VALIDATION", body = ErrorBody),
    )
)]
async fn update_contact(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(id): Path<i64>,
    Json(input): Json<ContactInput>,
) -> ApiResult<axum::Json<Contact>> {
    Ok(axum::Json(
        contacts::update(&state.ports, &tenant.actor, ContactId(id), input).await?,
    ))
}

/// Deletes a contact (`contacts-page:deleteContact`).
#[utoipa::path(
    delete,
    path = "/contacts/{id}",
    tag = "contacts",
    params(("id" = i64, Path, description = "The contact's id")),
    security(("bearer" = [])),
    responses(
        (status = 204),
        (status = 403, description = "ERR_NO_PERMISSION", body = ErrorBody),
        (status = 404, body = ErrorBody),
    )
)]
async fn delete_contact(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(id): Path<i64>,
) -> ApiResult<StatusCode> {
    contacts::delete(&state.ports, &tenant.actor, ContactId(id)).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// Blocks (`active: false`) or unblocks (`active: true`) a contact.
#[utoipa::path(
    put,
    path = "/contacts/block/{id}",
    tag = "contacts",
    params(("id" = i64, Path, description = "The contact's id")),
    request_body = BlockBody,
    security(("bearer" = [])),
    responses((status = 200, body = Contact), (status = 404, body = ErrorBody))
)]
async fn block_contact(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(id): Path<i64>,
    Json(body): Json<BlockBody>,
) -> ApiResult<axum::Json<Contact>> {
    Ok(axum::Json(
        contacts::set_active(&state.ports, &tenant.actor, ContactId(id), body.active).await?,
    ))
}

/// Flips whether the contact may send audio messages.
#[utoipa::path(
    put,
    path = "/contacts/toggleAcceptAudio/{id}",
    tag = "contacts",
    params(("id" = i64, Path, description = "The contact's id")),
    security(("bearer" = [])),
    responses((status = 200, body = Contact), (status = 404, body = ErrorBody))
)]
async fn toggle_accept_audio(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(id): Path<i64>,
) -> ApiResult<axum::Json<Contact>> {
    Ok(axum::Json(
        contacts::toggle_accept_audio(&state.ports, &tenant.actor, ContactId(id)).await?,
    ))
}

/// Flips whether the bot skips the contact.
#[utoipa::path(
    put,
    path = "/contacts/toggleDisableBot/{id}",
    tag = "contacts",
    params(("id" = i64, Path, description = "The contact's id")),
    security(("bearer" = [])),
    responses((status = 200, body = Contact), (status = 404, body = ErrorBody))
)]
async fn toggle_disable_bot(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(id): Path<i64>,
) -> ApiResult<axum::Json<Contact>> {
    Ok(axum::Json(
        contacts::toggle_disable_bot(&state.ports, &tenant.actor, ContactId(id)).await?,
    ))
}

/// The company's contacts as an xlsx file.
#[utoipa::path(
    get,
    path = "/contacts/export",
    tag = "contacts",
    security(("bearer" = [])),
    responses((status = 200, description = "The spreadsheet",
        content_type = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"))
)]
async fn export_contacts(State(state): State<AppState>, tenant: Tenant) -> ApiResult<Response> {
    let all = contacts::export(&state.ports, &tenant.actor).await?;
    let bytes = tokio::task::spawn_blocking(move || spreadsheet::contacts_xlsx(&all))
        .await
        .map_err(|e| chatflow_core::Error::internal(format!("export task: {e}")))??;
    let mut response = Body::from(bytes).into_response();
    let headers = response.headers_mut();
    headers.insert(
        CONTENT_TYPE,
        HeaderValue::from_static(
            "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        ),
    );
    headers.insert(
        CONTENT_DISPOSITION,
        HeaderValue::from_static("attachment; filename=\"contatos.xlsx\""),
    );
    Ok(response)
}

// ------------------------------------------------------------------- import

/// Reads a spreadsheet (multipart field `file`: xls, xlsx, csv or txt) and answers its columns, a
/// preview and a token for `POST /contactsImport`.
#[utoipa::path(
    post,
    path = "/contacts/upload",
    tag = "contacts",
    request_body(content_type = "multipart/form-data", description = "Field `file`: the spreadsheet"),
    security(("bearer" = [])),
    responses(
        (status = 200, body = UploadPreview),
        (status = 400, description = "ERR_INVALID_FILE or ERR_BAD_REQUEST", body = ErrorBody),
        (status = 413, description = "ERR_PAYLOAD_TOO_LARGE: past a spreadsheet limit (file size, rows, columns, cells, cell length, decompressed size)", body = ErrorBody),
    )
)]
async fn upload_contacts(
    State(state): State<AppState>,
    tenant: Tenant,
    multipart: Result<Multipart, MultipartRejection>,
) -> ApiResult<axum::Json<UploadPreview>> {
    let limit = crate::multipart::Limit {
        bytes: UploadKind::Spreadsheet.max_bytes(),
        what: "spreadsheet",
    };
    let part = crate::multipart::first(
        multipart,
        crate::multipart::Select::Fields(&["file"]),
        Some(limit),
    )
    .await?
    .ok_or_else(|| ApiError::code(ErrorCode::ERR_INVALID_FILE))?;
    let (name, bytes) = (part.file_name.unwrap_or_default(), part.bytes);
    let sheet = {
        let _turn = PARSING
            .acquire()
            .await
            .map_err(|e| chatflow_core::Error::internal(format!("upload turn: {e}")))?;
        tokio::task::spawn_blocking(move || spreadsheet::read(&name, &bytes))
            .await
            .map_err(|e| {
                if e.is_panic() {
                    // A reader that trips over a malformed file: the file is invalid.
                    tracing::warn!("the spreadsheet reader panicked on an upload");
                    chatflow_core::inbox::import::invalid_file()
                } else {
                    chatflow_core::Error::internal(format!("upload task: {e}"))
                }
            })??
    };
    let staged = contacts::stage_upload(&state.ports, &tenant.actor, &sheet).await?;
    Ok(axum::Json(UploadPreview {
        columns: staged.columns,
        rows: staged.rows,
        total: staged.total,
        token: staged.token,
    }))
}

/// Imports an uploaded spreadsheet with a column mapping: `{imported, ignored, failed, errors}`.
/// An unknown or expired token (or another company's) is `ERR_INVALID_FILE`.
#[utoipa::path(
    post,
    path = "/contactsImport",
    tag = "contacts",
    request_body = ImportBody,
    security(("bearer" = [])),
    responses(
        (status = 200, body = ImportReport),
        (status = 400, description = "ERR_INVALID_FILE", body = ErrorBody),
        (status = 422, description = "ERR_VALIDATION: name or number not mapped", body = ErrorBody),
    )
)]
async fn import_contacts(
    State(state): State<AppState>,
    tenant: Tenant,
    Json(body): Json<ImportBody>,
) -> ApiResult<axum::Json<ImportReport>> {
    Ok(axum::Json(
        contacts::import_staged(&state.ports, &tenant.actor, &body.token, &body.mapping).await?,
    ))
}

/// The body of `POST /contacts/import/chats` and `POST /contacts/import`.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct ChatImportBody {
    /// The connection whose chats to import (default: the company's default connection).
    pub whatsapp_id: Option<i64>,
}

/// The profile of a number: the company's contact with it, else what the company's connected
/// (default) connection's channel knows (for the sandbox: the simulated phone's name).
#[utoipa::path(
    get,
    path = "/contacts/profile/{number}",
    tag = "contacts",
    params(("number" = String, Path, description = "The phone number; formatting is ignored")),
    security(("bearer" = [])),
    responses(
        (status = 200, body = ContactProfile),
        (status = 404, description = "ERR_NO_CONTACT_FOUND", body = ErrorBody),
        (status = 422, description = "ERR_WAPP_INVALID_CONTACT: not a phone number; ERR_CHANNEL_NOT_SUPPORTED", body = ErrorBody),
    )
)]
async fn contact_profile(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(number): Path<String>,
) -> ApiResult<axum::Json<ContactProfile>> {
    Ok(axum::Json(
        contacts::profile(&state.ports, &tenant.actor, &number).await?,
    ))
}

/// Imports the contacts of a connection's chats (`whatsappId`, default the company's default
/// connection): `{whatsappId, chats, imported, existing, ignored}`.
#[utoipa::path(
    post,
    path = "/contacts/import/chats",
    tag = "contacts",
    request_body = ChatImportBody,
    security(("bearer" = [])),
    responses(
        (status = 200, body = ChatImportReport),
        (status = 404, description = "ERR_NO_WAPP_FOUND or ERR_NO_DEF_WAPP_FOUND", body = ErrorBody),
        (status = 422, description = "ERR_CHANNEL_NOT_SUPPORTED: the channel cannot list chats", body = ErrorBody),
        (status = 502, description = "ERR_WAPP_NOT_INITIALIZED: the connection is not connected", body = ErrorBody),
    )
)]
async fn import_from_chats(
    State(state): State<AppState>,
    tenant: Tenant,
    body: axum::body::Bytes,
) -> ApiResult<axum::Json<ChatImportReport>> {
    // The body is optional: no body (or `{}`) means the default connection.
    let body: ChatImportBody = if body.iter().all(u8::is_ascii_whitespace) {
        ChatImportBody::default()
    } else {
        serde_json::from_slice(&body).map_err(|_| bad_request())?
    };
    let whatsapp = body.whatsapp_id.map(WhatsappId);
    Ok(axum::Json(
        contacts::import_chats(&state.ports, &tenant.actor, whatsapp).await?,
    ))
}

/// The same import as `POST /contacts/import/chats`, under the name the web app's "import from
/// phone" uses (`{whatsappId}`).
#[utoipa::path(
    post,
    path = "/contacts/import",
    tag = "contacts",
    request_body = ChatImportBody,
    security(("bearer" = [])),
    responses(
        (status = 200, body = ChatImportReport),
        (status = 404, description = "ERR_NO_WAPP_FOUND or ERR_NO_DEF_WAPP_FOUND", body = ErrorBody),
        (status = 422, description = "ERR_CHANNEL_NOT_SUPPORTED", body = ErrorBody),
        (status = 502, description = "ERR_WAPP_NOT_INITIALIZED", body = ErrorBody),
    )
)]
async fn import_from_connection(
    state: State<AppState>,
    tenant: Tenant,
    body: axum::body::Bytes,
) -> ApiResult<axum::Json<ChatImportReport>> {
    import_from_chats(state, tenant, body).await
}
