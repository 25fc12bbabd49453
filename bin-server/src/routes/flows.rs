//! The flow builder and phrase campaigns (`docs/api.md` "Flows"): flows with their drafts,
//! numbered versions, stats, export and import (`/flowbuilder`), node media, and phrase campaigns
//! (`/flowcampaign`). Handlers call `chatflow_core::service::{flows, flow_campaigns}`, which
//! scope every call to the caller's company; the media uploads live in [`upload_router`].

use axum::body::Body;
use axum::extract::State;
use axum::extract::multipart::{Multipart, MultipartRejection};
use axum::http::header::{CONTENT_DISPOSITION, CONTENT_TYPE};
use axum::http::{HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use chatflow_core::ErrorCode;
use chatflow_core::flow::Flow;
use chatflow_core::flow_ports::{FlowCampaign, FlowCampaignId, FlowId, FlowSummary, FlowVersion};
use chatflow_core::service::flow_campaigns::{self, CampaignBody};
use chatflow_core::service::flows::{self, FlowFile, MediaKind, MediaUpload, Publish};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::extract::{Json, Path, Query, Tenant};
use crate::state::AppState;

/// The JSON routes of this module (see [`upload_router`] for media).
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(page_flows, create_flow, rename_flow))
        .routes(routes!(delete_flow))
        .routes(routes!(duplicate_flow))
        .routes(routes!(get_flow))
        .routes(routes!(save_draft))
        .routes(routes!(publish_flow))
        .routes(routes!(list_versions))
        .routes(routes!(restore_version))
        .routes(routes!(flow_stats))
        .routes(routes!(export_flow))
        .routes(routes!(import_flow))
        .routes(routes!(flow_media))
        .routes(routes!(list_campaigns, create_campaign, update_campaign))
        .routes(routes!(get_campaign, delete_campaign))
}

/// Node media uploads, which take a larger body than the JSON routes.
pub fn upload_router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(upload_image))
        .routes(routes!(upload_audio))
        .routes(routes!(upload_video))
        .routes(routes!(upload_content))
}

/// The query of `GET /flowbuilder`.
#[derive(Debug, Clone, Default, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase", default)]
#[into_params(parameter_in = Query)]
pub struct PageParams {
    /// Matches the name (accent- and case-insensitive).
    pub search_param: String,
    /// The page, from 1.
    pub page_number: Option<u32>,
}

/// A page of flows: `{flows, hasMore, count}`.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct FlowPage {
    /// The flows, ordered by name, 20 per page.
    pub flows: Vec<FlowSummary>,
    /// Whether a next page exists.
    pub has_more: bool,
    /// How many flows match.
    pub count: i64,
}

/// The body of `POST /flowbuilder`.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
#[serde(default)]
pub struct NameBody {
    /// The name, 2 to 50 characters.
    pub name: String,
}

/// The body of `PUT /flowbuilder`.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RenameBody {
    /// The flow.
    pub flow_id: i64,
    /// Its new name, 2 to 50 characters.
    #[serde(default)]
    pub name: String,
}

/// The body of `POST /flowbuilder/duplicate`.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct FlowRef {
    /// The flow.
    pub flow_id: i64,
}

/// `{flow: ...}` around the editor's view of a flow.
#[derive(Debug, Clone, Serialize)]
pub struct FlowEnvelope {
    /// `{id, name, active, flow, version, draft}`.
    pub flow: flows::FlowView,
}

/// The answer of a successful publication.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Published {
    /// The new live version.
    pub version: i64,
    /// When it was published.
    pub published_at: chrono::DateTime<chrono::Utc>,
}

/// The `422 ERR_FLOW_INVALID` body: the usual error body plus the issues.
#[derive(Debug, Clone, Serialize)]
pub struct InvalidFlow {
    /// `ERR_FLOW_INVALID`.
    pub error: ErrorCode,
    /// A human-readable English message.
    pub message: &'static str,
    /// Every issue of the draft.
    pub issues: Vec<flows::IssueView>,
}

/// `{names}`: the stored names of uploaded media.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct StoredNames {
    /// The names to put in the nodes' data, in upload order.
    pub names: Vec<String>,
}

/// `{flow: [...]}`: the company's phrase campaigns.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct CampaignList {
    /// The campaigns, ordered by name.
    pub flow: Vec<FlowCampaign>,
}

/// `{details: ...}`: one phrase campaign.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct CampaignDetails {
    /// The campaign.
    pub details: FlowCampaign,
}

fn bad_request(detail: impl Into<String>) -> ApiError {
    ApiError::from(chatflow_core::Error::with_detail(
        ErrorCode::ERR_BAD_REQUEST,
        detail,
    ))
}

/// The flows page: search and pages of 20.
#[utoipa::path(
    get,
    path = "/flowbuilder",
    tag = "flows",
    params(PageParams),
    security(("bearer" = [])),
    responses((status = 200, body = FlowPage), (status = 401, body = ErrorBody))
)]
async fn page_flows(
    State(state): State<AppState>,
    tenant: Tenant,
    Query(params): Query<PageParams>,
) -> ApiResult<axum::Json<FlowPage>> {
    let page = flows::page(
        &state.ports,
        &tenant.actor,
        &params.search_param,
        params.page_number.unwrap_or(1),
    )
    .await?;
    Ok(axum::Json(FlowPage {
        flows: page.flows,
        has_more: page.has_more,
        count: page.count,
    }))
}

/// Creates an empty, unpublished flow: admins.
#[utoipa::path(
    post,
    path = "/flowbuilder",
    tag = "flows",
    request_body = NameBody,
    security(("bearer" = [])),
    responses(
        (status = 201, body = FlowSummary),
        (status = 403, description = "ERR_NO_PERMISSION", body = ErrorBody),
        (status = 422, description = "ERR_VALIDATION on `name`", body = ErrorBody),
    )
)]
async fn create_flow(
    State(state): State<AppState>,
    tenant: Tenant,
    Json(body): Json<NameBody>,
) -> ApiResult<(StatusCode, axum::Json<FlowSummary>)> {
    let flow = flows::create(&state.ports, &tenant.actor, &body.name).await?;
    Ok((StatusCode::CREATED, axum::Json(flow)))
}

/// Renames a flow: admins.
#[utoipa::path(
    put,
    path = "/flowbuilder",
    tag = "flows",
    request_body = RenameBody,
    security(("bearer" = [])),
    responses(
        (status = 200, body = FlowSummary),
        (status = 404, description = "ERR_NO_FLOW_FOUND", body = ErrorBody),
        (status = 422, description = "ERR_VALIDATION on `name`", body = ErrorBody),
    )
)]
async fn rename_flow(
    State(state): State<AppState>,
    tenant: Tenant,
    Json(body): Json<RenameBody>,
) -> ApiResult<axum::Json<FlowSummary>> {
    Ok(axum::Json(
        flows::rename(
            &state.ports,
            &tenant.actor,
            FlowId(body.flow_id),
            &body.name,
        )
        .await?,
    ))
}

/// Deletes a flow with its versions: admins; refused while a connection or a phrase campaign
/// uses it.
#[utoipa::path(
    delete,
    path = "/flowbuilder/{id}",
    tag = "flows",
    params(("id" = i64, Path, description = "The flow's id")),
    security(("bearer" = [])),
    responses(
        (status = 204, description = "Deleted"),
        (status = 404, description = "ERR_NO_FLOW_FOUND", body = ErrorBody),
        (status = 409, description = "ERR_FLOW_IN_USE", body = ErrorBody),
    )
)]
async fn delete_flow(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(id): Path<i64>,
) -> ApiResult<StatusCode> {
    flows::delete(&state.ports, &tenant.actor, FlowId(id)).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// Copies a flow as "<name> - cópia", unpublished, its graph as the draft: admins.
#[utoipa::path(
    post,
    path = "/flowbuilder/duplicate",
    tag = "flows",
    request_body = FlowRef,
    security(("bearer" = [])),
    responses(
        (status = 201, body = FlowSummary),
        (status = 404, description = "ERR_NO_FLOW_FOUND", body = ErrorBody),
    )
)]
async fn duplicate_flow(
    State(state): State<AppState>,
    tenant: Tenant,
    Json(body): Json<FlowRef>,
) -> ApiResult<(StatusCode, axum::Json<FlowSummary>)> {
    let flow = flows::duplicate(&state.ports, &tenant.actor, FlowId(body.flow_id)).await?;
    Ok((StatusCode::CREATED, axum::Json(flow)))
}

/// The editor's view of a flow: the draft graph when there is one, else the live one.
#[utoipa::path(
    get,
    path = "/flowbuilder/flow/{id}",
    tag = "flows",
    params(("id" = i64, Path, description = "The flow's id")),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "`{flow: {id, name, active, flow, version, draft}}`"),
        (status = 404, description = "ERR_NO_FLOW_FOUND", body = ErrorBody),
    )
)]
async fn get_flow(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(id): Path<i64>,
) -> ApiResult<axum::Json<FlowEnvelope>> {
    Ok(axum::Json(FlowEnvelope {
        flow: flows::get(&state.ports, &tenant.actor, FlowId(id)).await?,
    }))
}

/// Saves the draft graph `{idFlow, nodes, connections}`: admins; answers the validation issues
/// without refusing.
#[utoipa::path(
    post,
    path = "/flowbuilder/flow",
    tag = "flows",
    request_body(content = Object, description = "`{idFlow, nodes, connections}`"),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "`{flow: FlowSummary, issues: FlowIssue[]}`"),
        (status = 404, description = "ERR_NO_FLOW_FOUND", body = ErrorBody),
    )
)]
async fn save_draft(
    State(state): State<AppState>,
    tenant: Tenant,
    Json(body): Json<Value>,
) -> ApiResult<axum::Json<flows::SavedDraft>> {
    let id = body
        .get("idFlow")
        .and_then(|v| {
            v.as_i64()
                .or_else(|| v.as_str().and_then(|s| s.parse().ok()))
        })
        .ok_or_else(|| bad_request("idFlow must be a flow's id"))?;
    let graph = serde_json::json!({
        "nodes": body.get("nodes").cloned().unwrap_or(Value::Null),
        "connections": body.get("connections").cloned().unwrap_or(Value::Null),
    });
    let flow: Flow =
        serde_json::from_value(graph).map_err(|e| bad_request(format!("flow JSON: {e}")))?;
    Ok(axum::Json(
        flows::save_draft(&state.ports, &tenant.actor, FlowId(id), &flow).await?,
    ))
}

/// Validates the draft and makes it the next live version, atomically: admins.
#[utoipa::path(
    post,
    path = "/flowbuilder/{id}/publish",
    tag = "flows",
    params(("id" = i64, Path, description = "The flow's id")),
    security(("bearer" = [])),
    responses(
        (status = 200, body = Published),
        (status = 404, description = "ERR_NO_FLOW_FOUND", body = ErrorBody),
        (status = 422, description = "ERR_FLOW_INVALID with `issues`"),
    )
)]
async fn publish_flow(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(id): Path<i64>,
) -> ApiResult<Response> {
    Ok(
        match flows::publish(&state.ports, &tenant.actor, FlowId(id)).await? {
            Publish::Published(version) => axum::Json(Published {
                version: version.version,
                published_at: version.published_at,
            })
            .into_response(),
            Publish::Invalid(issues) => (
                StatusCode::UNPROCESSABLE_ENTITY,
                axum::Json(InvalidFlow {
                    error: ErrorCode::ERR_FLOW_INVALID,
                    message: crate::error::message_of(ErrorCode::ERR_FLOW_INVALID),
                    issues,
                }),
            )
                .into_response(),
        },
    )
}

/// The flow's published versions, newest first.
#[utoipa::path(
    get,
    path = "/flowbuilder/{id}/versions",
    tag = "flows",
    params(("id" = i64, Path, description = "The flow's id")),
    security(("bearer" = [])),
    responses(
        (status = 200, body = Vec<FlowVersion>),
        (status = 404, description = "ERR_NO_FLOW_FOUND", body = ErrorBody),
    )
)]
async fn list_versions(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(id): Path<i64>,
) -> ApiResult<axum::Json<Vec<FlowVersion>>> {
    Ok(axum::Json(
        flows::versions(&state.ports, &tenant.actor, FlowId(id)).await?,
    ))
}

/// Makes a version's graph the draft (not published): admins.
#[utoipa::path(
    post,
    path = "/flowbuilder/{id}/versions/{version}/restore",
    tag = "flows",
    params(
        ("id" = i64, Path, description = "The flow's id"),
        ("version" = i64, Path, description = "The version's number"),
    ),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "As `GET /flowbuilder/flow/{id}`"),
        (status = 404, description = "ERR_NO_FLOW_FOUND, or ERR_NOT_FOUND for the version", body = ErrorBody),
    )
)]
async fn restore_version(
    State(state): State<AppState>,
    tenant: Tenant,
    Path((id, version)): Path<(i64, i64)>,
) -> ApiResult<axum::Json<FlowEnvelope>> {
    Ok(axum::Json(FlowEnvelope {
        flow: flows::restore(&state.ports, &tenant.actor, FlowId(id), version).await?,
    }))
}

/// Per node of the live version: runs that entered it and runs that stopped there.
#[utoipa::path(
    get,
    path = "/flowbuilder/{id}/stats",
    tag = "flows",
    params(("id" = i64, Path, description = "The flow's id")),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "`{version, nodes: {[nodeId]: {entered, stopped}}}`"),
        (status = 404, description = "ERR_NO_FLOW_FOUND", body = ErrorBody),
    )
)]
async fn flow_stats(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(id): Path<i64>,
) -> ApiResult<axum::Json<flows::FlowStats>> {
    Ok(axum::Json(
        flows::stats(&state.ports, &tenant.actor, FlowId(id)).await?,
    ))
}

/// The flow as a file `{format: "chatflow-flow", version: 1, name, flow}` (an attachment).
#[utoipa::path(
    get,
    path = "/flowbuilder/{id}/export",
    tag = "flows",
    params(("id" = i64, Path, description = "The flow's id")),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The flow file", content_type = "application/json"),
        (status = 404, description = "ERR_NO_FLOW_FOUND", body = ErrorBody),
    )
)]
async fn export_flow(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(id): Path<i64>,
) -> ApiResult<Response> {
    let file = flows::export(&state.ports, &tenant.actor, FlowId(id)).await?;
    let safe: String = file
        .name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_') {
                c
            } else {
                '_'
            }
        })
        .collect();
    let mut response = axum::Json(file).into_response();
    if let Ok(value) = HeaderValue::from_str(&format!("attachment; filename=\"{safe}.json\"")) {
        response.headers_mut().insert(CONTENT_DISPOSITION, value);
    }
    Ok(response)
}

/// The body of `POST /flowbuilder/import`: the exported file itself, or `{name?, file}`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct ImportBody {
    /// The new flow's name (else the file's).
    pub name: Option<String>,
    /// The file, when sent wrapped.
    pub file: Option<FlowFile>,
    /// The file's `format`, when sent as the body.
    pub format: Option<String>,
    /// The file format's version, when sent as the body.
    pub version: Option<i64>,
    /// The graph, when sent as the body.
    pub flow: Option<Flow>,
}

/// Creates a flow from an exported file; its graph becomes the draft: admins.
#[utoipa::path(
    post,
    path = "/flowbuilder/import",
    tag = "flows",
    request_body(content = Object, description = "`{format: \"chatflow-flow\", version: 1, name, flow}` or `{name?, file}`"),
    security(("bearer" = [])),
    responses(
        (status = 201, body = FlowSummary),
        (status = 400, description = "ERR_BAD_REQUEST: not a flow file", body = ErrorBody),
    )
)]
async fn import_flow(
    State(state): State<AppState>,
    tenant: Tenant,
    Json(body): Json<ImportBody>,
) -> ApiResult<(StatusCode, axum::Json<FlowSummary>)> {
    let (file, name) = match body.file {
        Some(file) => (file, body.name),
        None => (
            FlowFile {
                format: body.format.unwrap_or_default(),
                version: body.version.unwrap_or_default(),
                name: body.name.clone().unwrap_or_default(),
                flow: body
                    .flow
                    .ok_or_else(|| bad_request("the file has no flow"))?,
            },
            None,
        ),
    };
    let flow = flows::import(&state.ports, &tenant.actor, name.as_deref(), &file).await?;
    Ok((StatusCode::CREATED, axum::Json(flow)))
}

async fn store_media(
    state: &AppState,
    tenant: &Tenant,
    kind: MediaKind,
    multipart: Result<Multipart, MultipartRejection>,
) -> ApiResult<axum::Json<StoredNames>> {
    let files: Vec<MediaUpload> =
        crate::multipart::read(multipart, crate::multipart::Select::Files, None)
            .await?
            .into_iter()
            .map(|part| MediaUpload {
                file_name: part.file_name.unwrap_or_default(),
                content_type: part.content_type,
                bytes: part.bytes,
            })
            .collect();
    let names = flows::upload_media(&state.ports, &tenant.actor, kind, &files).await?;
    Ok(axum::Json(StoredNames { names }))
}

/// An image for an `img` node: png, jpg or jpeg up to 2 MB.
#[utoipa::path(
    post,
    path = "/flowbuilder/img",
    tag = "flows",
    request_body(content_type = "multipart/form-data", description = "One file field"),
    security(("bearer" = [])),
    responses(
        (status = 200, body = StoredNames),
        (status = 413, description = "ERR_FLOW_MEDIA_TOO_LARGE", body = ErrorBody),
        (status = 422, description = "ERR_FLOW_MEDIA_TYPE", body = ErrorBody),
    )
)]
async fn upload_image(
    State(state): State<AppState>,
    tenant: Tenant,
    multipart: Result<Multipart, MultipartRejection>,
) -> ApiResult<axum::Json<StoredNames>> {
    store_media(&state, &tenant, MediaKind::Image, multipart).await
}

/// An audio for an `audio` node: ogg or mp3 (opus content too) up to 5 MB.
#[utoipa::path(
    post,
    path = "/flowbuilder/audio",
    tag = "flows",
    request_body(content_type = "multipart/form-data", description = "One file field"),
    security(("bearer" = [])),
    responses(
        (status = 200, body = StoredNames),
        (status = 413, description = "ERR_FLOW_MEDIA_TOO_LARGE", body = ErrorBody),
        (status = 422, description = "ERR_FLOW_MEDIA_TYPE", body = ErrorBody),
    )
)]
async fn upload_audio(
    State(state): State<AppState>,
    tenant: Tenant,
    multipart: Result<Multipart, MultipartRejection>,
) -> ApiResult<axum::Json<StoredNames>> {
    store_media(&state, &tenant, MediaKind::Audio, multipart).await
}

/// A video for a `video` node: mp4 up to 20 MB.
#[utoipa::path(
    post,
    path = "/flowbuilder/video",
    tag = "flows",
    request_body(content_type = "multipart/form-data", description = "One file field"),
    security(("bearer" = [])),
    responses(
        (status = 200, body = StoredNames),
        (status = 413, description = "ERR_FLOW_MEDIA_TOO_LARGE", body = ErrorBody),
        (status = 422, description = "ERR_FLOW_MEDIA_TYPE", body = ErrorBody),
    )
)]
async fn upload_video(
    State(state): State<AppState>,
    tenant: Tenant,
    multipart: Result<Multipart, MultipartRejection>,
) -> ApiResult<axum::Json<StoredNames>> {
    store_media(&state, &tenant, MediaKind::Video, multipart).await
}

/// Media for a `content` node: several files (field `medias`) of any accepted kind.
#[utoipa::path(
    post,
    path = "/flowbuilder/content",
    tag = "flows",
    request_body(content_type = "multipart/form-data", description = "File fields `medias`"),
    security(("bearer" = [])),
    responses(
        (status = 200, body = StoredNames),
        (status = 413, description = "ERR_FLOW_MEDIA_TOO_LARGE", body = ErrorBody),
        (status = 422, description = "ERR_FLOW_MEDIA_TYPE", body = ErrorBody),
    )
)]
async fn upload_content(
    State(state): State<AppState>,
    tenant: Tenant,
    multipart: Result<Multipart, MultipartRejection>,
) -> ApiResult<axum::Json<StoredNames>> {
    store_media(&state, &tenant, MediaKind::Content, multipart).await
}

/// A stored medium of the company, for its users.
#[utoipa::path(
    get,
    path = "/flowbuilder/media/{name}",
    tag = "flows",
    params(("name" = String, Path, description = "The stored name")),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The file", content_type = "application/octet-stream"),
        (status = 404, body = ErrorBody),
    )
)]
async fn flow_media(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(name): Path<String>,
) -> ApiResult<Response> {
    let bytes = flows::media(&state.ports, &tenant.actor, &name).await?;
    let mut response = Response::new(Body::from(bytes));
    response.headers_mut().insert(
        CONTENT_TYPE,
        HeaderValue::from_static(chatflow_core::media::mime_of(&name)),
    );
    Ok(response)
}

/// The company's phrase campaigns.
#[utoipa::path(
    get,
    path = "/flowcampaign",
    tag = "flows",
    security(("bearer" = [])),
    responses((status = 200, body = CampaignList))
)]
async fn list_campaigns(
    State(state): State<AppState>,
    tenant: Tenant,
) -> ApiResult<axum::Json<CampaignList>> {
    Ok(axum::Json(CampaignList {
        flow: flow_campaigns::list(&state.ports, &tenant.actor).await?,
    }))
}

/// Creates a phrase campaign, on: admins.
#[utoipa::path(
    post,
    path = "/flowcampaign",
    tag = "flows",
    request_body(content = Object, description = "`{name, flowId, whatsappId, phrase}`"),
    security(("bearer" = [])),
    responses(
        (status = 201, body = FlowCampaign),
        (status = 404, description = "ERR_NO_FLOW_FOUND / ERR_NO_WAPP_FOUND", body = ErrorBody),
        (status = 422, description = "ERR_VALIDATION", body = ErrorBody),
    )
)]
async fn create_campaign(
    State(state): State<AppState>,
    tenant: Tenant,
    Json(body): Json<CampaignBody>,
) -> ApiResult<(StatusCode, axum::Json<FlowCampaign>)> {
    let campaign = flow_campaigns::create(&state.ports, &tenant.actor, &body).await?;
    Ok((StatusCode::CREATED, axum::Json(campaign)))
}

/// Replaces a phrase campaign (`id` in the body): admins.
#[utoipa::path(
    put,
    path = "/flowcampaign",
    tag = "flows",
    request_body(content = Object, description = "`{id, name, flowId, whatsappId, phrase, status}`"),
    security(("bearer" = [])),
    responses(
        (status = 200, body = FlowCampaign),
        (status = 404, description = "ERR_NO_FLOW_CAMPAIGN_FOUND", body = ErrorBody),
        (status = 422, description = "ERR_VALIDATION", body = ErrorBody),
    )
)]
async fn update_campaign(
    State(state): State<AppState>,
    tenant: Tenant,
    Json(body): Json<CampaignBody>,
) -> ApiResult<axum::Json<FlowCampaign>> {
    Ok(axum::Json(
        flow_campaigns::update(&state.ports, &tenant.actor, &body).await?,
    ))
}

/// One phrase campaign.
#[utoipa::path(
    get,
    path = "/flowcampaign/{id}",
    tag = "flows",
    params(("id" = i64, Path, description = "The campaign's id")),
    security(("bearer" = [])),
    responses(
        (status = 200, body = CampaignDetails),
        (status = 404, description = "ERR_NO_FLOW_CAMPAIGN_FOUND", body = ErrorBody),
    )
)]
async fn get_campaign(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(id): Path<i64>,
) -> ApiResult<axum::Json<CampaignDetails>> {
    Ok(axum::Json(CampaignDetails {
        details: flow_campaigns::get(&state.ports, &tenant.actor, FlowCampaignId(id)).await?,
    }))
}

/// Deletes a phrase campaign: admins.
#[utoipa::path(
    delete,
    path = "/flowcampaign/{id}",
    tag = "flows",
    params(("id" = i64, Path, description = "The campaign's id")),
    security(("bearer" = [])),
    responses(
        (status = 204, description = "Deleted"),
        (status = 404, description = "ERR_NO_FLOW_CAMPAIGN_FOUND", body = ErrorBody),
    )
)]
async fn delete_campaign(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(id): Path<i64>,
) -> ApiResult<StatusCode> {
    flow_campaigns::delete(&state.ports, &tenant.actor, FlowCampaignId(id)).await?;
    Ok(StatusCode::NO_CONTENT)
}
