//! The flow builder's flows (`/flowbuilder`; spec 3 §2.12-2.14, §7 "Flow builder").
//!
//! Every user of the company reads flows; admins ([`Action::ManageFlows`]) write them. Editing
//! saves a **draft**, whatever its validation issues (they are returned, not refused);
//! **publishing** validates the draft with [`crate::flow::validate`] and makes it the next
//! numbered version, live at once, in one store transaction; conversations already running keep
//! the version they started on. An earlier version can be **restored** as the draft. A flow is
//! exported to, and imported from, a `{format: "chatflow-flow", version: 1, name, flow}` file.
//!
//! Every write emits `company-{id}-flowbuilder` ([`flow_event`], [`flow_deleted_event`]),
//! appended by the store in the write's transaction.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::error::{Error, ErrorCode, FieldCode, FieldError, Result};
use crate::events::{Event, SaveAction};
use crate::flow::{Flow, FlowIssue, FlowMedia, MAX_CONNECTIONS, MAX_NODES, media_extensions};
use crate::flow_ports::{
    FlowDeleteOutcome, FlowId, FlowRecord, FlowRunRecord, FlowSummary, FlowVersion, PublishOutcome,
};
use crate::identity::Actor;
use crate::policy::{Action, authorize};
use crate::service::Ports;
use crate::validation;

/// Flows per page of `GET /flowbuilder`.
pub const PAGE_SIZE: usize = 20;
/// The `format` of an exported flow file.
pub const FILE_FORMAT: &str = "chatflow-flow";
/// The `version` of the exported flow file's format.
pub const FILE_VERSION: i64 = 1;
/// The longest flow name, in characters.
pub const NAME_MAX_CHARS: usize = 50;
/// What a duplicate's name ends with.
pub const COPY_SUFFIX: &str = " - cópia";

/// `company-{id}-flowbuilder` `{action: "create"|"update", flow}` for the whole company.
pub fn flow_event(action: SaveAction, flow: &FlowSummary) -> Event {
    Event::FlowSaved {
        action,
        flow: Box::new(flow.clone()),
    }
}

/// `company-{id}-flowbuilder` `{action: "delete", flowId}` for the whole company.
pub fn flow_deleted_event(id: FlowId) -> Event {
    Event::FlowDeleted { flow_id: id }
}

/// A page of `GET /flowbuilder`: `{flows, hasMore, count}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FlowPage {
    /// The flows of the page, ordered by name.
    pub flows: Vec<FlowSummary>,
    /// Whether a next page exists.
    pub has_more: bool,
    /// How many flows match in all.
    pub count: i64,
}

/// The editor's view of a flow (`GET /flowbuilder/flow/{id}`): the draft graph when there is
/// one, else the live one, else `null`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FlowView {
    /// The flow's id.
    pub id: FlowId,
    /// Its name.
    pub name: String,
    /// Whether it is active.
    pub active: bool,
    /// The graph to edit.
    pub flow: Option<Flow>,
    /// The live version's number, `None` while never published.
    pub version: Option<i64>,
    /// Whether [`FlowView::flow`] is the draft.
    pub draft: bool,
}

/// A validation issue on the wire: `{nodeId, code, severity, message}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct IssueView {
    /// The node it concerns, if any.
    pub node_id: Option<String>,
    /// The issue's code; the web app translates it.
    pub code: crate::flow::FlowIssueCode,
    /// Error or warning.
    pub severity: crate::flow::Severity,
    /// The message in Portuguese, from the core.
    pub message: String,
}

impl From<FlowIssue> for IssueView {
    fn from(issue: FlowIssue) -> Self {
        Self {
            node_id: issue.node_id,
            code: issue.code,
            severity: issue.severity,
            message: issue.message_pt,
        }
    }
}

/// What saving a draft answers: the flow and the draft's issues.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SavedDraft {
    /// The flow after the save.
    pub flow: FlowSummary,
    /// Every issue of the saved draft (errors and warnings).
    pub issues: Vec<IssueView>,
}

/// What publishing answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Publish {
    /// The draft is now this live version.
    Published(FlowVersion),
    /// The draft has errors (`ERR_FLOW_INVALID`); nothing changed.
    Invalid(Vec<IssueView>),
}

/// Per node of the live version: how many runs entered it and how many stopped there.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct NodeStats {
    /// Runs that entered the node.
    pub entered: i64,
    /// Runs whose last node is this one and that ended or still wait there.
    pub stopped: i64,
}

/// `GET /flowbuilder/{id}/stats`: `{version, nodes}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FlowStats {
    /// The live version counted, `None` while never published (and `nodes` is empty).
    pub version: Option<i64>,
    /// Counts per node id.
    pub nodes: BTreeMap<String, NodeStats>,
}

/// An exported flow: `{format: "chatflow-flow", version: 1, name, flow}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FlowFile {
    /// Always [`FILE_FORMAT`].
    pub format: String,
    /// The file format's version, [`FILE_VERSION`].
    pub version: i64,
    /// The flow's name.
    pub name: String,
    /// The graph (the draft when there is one, else the live one).
    pub flow: Flow,
}

fn read(actor: &Actor) -> Result<()> {
    authorize(actor, &Action::ListUsersBrief(actor.company_id))
}

fn write(actor: &Actor) -> Result<()> {
    authorize(actor, &Action::ManageFlows(actor.company_id))
}

/// Checks and trims a flow's name: field `name`, 2 to 50 characters.
pub fn checked_name(name: &str) -> Result<String> {
    validation::validate_connection_name(name)?;
    Ok(name.trim().to_owned())
}

/// Refuses a graph beyond the size limits ([`MAX_NODES`], [`MAX_CONNECTIONS`]) as field errors
/// on `nodes` / `connections`.
pub fn check_size(flow: &Flow) -> Result<()> {
    let mut fields = Vec::new();
    if flow.nodes.len() > MAX_NODES {
        fields.push(FieldError::new("nodes", FieldCode::TooLong));
    }
    if flow.connections.len() > MAX_CONNECTIONS {
        fields.push(FieldError::new("connections", FieldCode::TooLong));
    }
    if fields.is_empty() {
        Ok(())
    } else {
        Err(Error::validation(fields))
    }
}

/// Every issue of a graph, as the wire shows them. The one place flows are validated here.
pub fn issues_of(flow: &Flow) -> Vec<IssueView> {
    crate::flow::check(flow)
        .into_iter()
        .map(IssueView::from)
        .collect()
}

/// The name of a duplicate: `"<name> - cópia"`, the original cut so it fits in 50 characters.
pub fn copy_name(name: &str) -> String {
    let room = NAME_MAX_CHARS - COPY_SUFFIX.chars().count();
    let head: String = name.trim().chars().take(room).collect();
    format!("{}{COPY_SUFFIX}", head.trim_end())
}

async fn record(ports: &Ports, actor: &Actor, id: FlowId) -> Result<FlowRecord> {
    ports
        .flows
        .get(actor.scope(), id)
        .await?
        .ok_or_else(|| ErrorCode::ERR_NO_FLOW_FOUND.into())
}

fn view(record: FlowRecord) -> FlowView {
    let draft = record.draft.is_some();
    FlowView {
        id: record.summary.id,
        name: record.summary.name,
        active: record.summary.active,
        flow: record.draft.or(record.published),
        version: record.summary.published_version,
        draft,
    }
}

/// A page of flows matching `search` (`GET /flowbuilder?searchParam=&pageNumber=`), accent- and
/// case-insensitive on the name, ordered by name.
#[tracing::instrument(level = "debug", name = "flows::page", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0))]
pub async fn page(
    ports: &Ports,
    actor: &Actor,
    search: &str,
    page_number: u32,
) -> Result<FlowPage> {
    read(actor)?;
    let wanted = crate::inbox::search::normalize(search);
    let all: Vec<FlowSummary> = ports
        .flows
        .list(actor.scope())
        .await?
        .into_iter()
        .filter(|f| wanted.is_empty() || crate::inbox::search::normalize(&f.name).contains(&wanted))
        .collect();
    let count = all.len();
    let skip = (page_number.max(1) as usize - 1).saturating_mul(PAGE_SIZE);
    let flows: Vec<FlowSummary> = all.into_iter().skip(skip).take(PAGE_SIZE).collect();
    Ok(FlowPage {
        has_more: skip.saturating_add(flows.len()) < count,
        flows,
        count: i64::try_from(count).unwrap_or(i64::MAX),
    })
}

/// Creates an empty, unpublished flow (`POST /flowbuilder`): admins.
#[tracing::instrument(level = "debug", name = "flows::create", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0))]
pub async fn create(ports: &Ports, actor: &Actor, name: &str) -> Result<FlowSummary> {
    write(actor)?;
    let name = checked_name(name)?;
    ports.flows.create(actor.scope(), &name, None).await
}

/// Renames a flow (`PUT /flowbuilder`): admins.
#[tracing::instrument(level = "debug", name = "flows::rename", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0, flow = id.0))]
pub async fn rename(ports: &Ports, actor: &Actor, id: FlowId, name: &str) -> Result<FlowSummary> {
    write(actor)?;
    let name = checked_name(name)?;
    ports
        .flows
        .rename(actor.scope(), id, &name)
        .await?
        .ok_or_else(|| ErrorCode::ERR_NO_FLOW_FOUND.into())
}

/// Deletes a flow with its versions (`DELETE /flowbuilder/{id}`): admins; `ERR_FLOW_IN_USE`
/// while a connection or a phrase campaign uses it.
#[tracing::instrument(level = "debug", name = "flows::delete", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0, flow = id.0))]
pub async fn delete(ports: &Ports, actor: &Actor, id: FlowId) -> Result<()> {
    write(actor)?;
    match ports.flows.delete(actor.scope(), id).await? {
        FlowDeleteOutcome::Deleted => Ok(()),
        FlowDeleteOutcome::NotFound => Err(ErrorCode::ERR_NO_FLOW_FOUND.into()),
        FlowDeleteOutcome::InUse => Err(ErrorCode::ERR_FLOW_IN_USE.into()),
    }
}

/// Copies a flow (`POST /flowbuilder/duplicate`): admins; the copy is named
/// [`copy_name`], holds the original's draft (or live graph) as its draft, and is unpublished.
#[tracing::instrument(level = "debug", name = "flows::duplicate", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0, flow = id.0))]
pub async fn duplicate(ports: &Ports, actor: &Actor, id: FlowId) -> Result<FlowSummary> {
    write(actor)?;
    let original = record(ports, actor, id).await?;
    let name = copy_name(&original.summary.name);
    let graph = original.draft.or(original.published);
    ports
        .flows
        .create(actor.scope(), &name, graph.as_ref())
        .await
}

/// The editor's view of a flow (`GET /flowbuilder/flow/{id}`).
#[tracing::instrument(level = "debug", name = "flows::get", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0, flow = id.0))]
pub async fn get(ports: &Ports, actor: &Actor, id: FlowId) -> Result<FlowView> {
    read(actor)?;
    Ok(view(record(ports, actor, id).await?))
}

/// Saves the draft (`POST /flowbuilder/flow`): admins; any graph within the size limits is
/// saved, and its issues are returned.
#[tracing::instrument(level = "debug", name = "flows::save_draft", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0, flow = id.0))]
pub async fn save_draft(
    ports: &Ports,
    actor: &Actor,
    id: FlowId,
    flow: &Flow,
) -> Result<SavedDraft> {
    write(actor)?;
    check_size(flow)?;
    let summary = ports
        .flows
        .save_draft(actor.scope(), id, flow)
        .await?
        .ok_or(ErrorCode::ERR_NO_FLOW_FOUND)?;
    Ok(SavedDraft {
        flow: summary,
        issues: issues_of(flow),
    })
}

/// Publishes the draft (`POST /flowbuilder/{id}/publish`): admins. A draft with errors is
/// [`Publish::Invalid`]; without a draft, the live version is answered as it is (publishing
/// twice is harmless), and a flow with neither is validated as an empty graph (invalid).
#[tracing::instrument(level = "debug", name = "flows::publish", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0, flow = id.0))]
pub async fn publish(ports: &Ports, actor: &Actor, id: FlowId) -> Result<Publish> {
    write(actor)?;
    let current = record(ports, actor, id).await?;
    let Some(draft) = current.draft else {
        if let Some(live) = current.summary.published_version
            && let Some(version) = ports
                .flows
                .versions(actor.scope(), id)
                .await?
                .into_iter()
                .find(|v| v.version == live)
        {
            return Ok(Publish::Published(version));
        }
        return Ok(Publish::Invalid(issues_of(&Flow::default())));
    };
    if crate::flow::validate(&draft).is_err() {
        return Ok(Publish::Invalid(issues_of(&draft)));
    }
    match ports
        .flows
        .publish(actor.scope(), id, &draft, Some(actor.user_id))
        .await?
    {
        PublishOutcome::Published(version) => Ok(Publish::Published(version)),
        PublishOutcome::NotFound => Err(ErrorCode::ERR_NO_FLOW_FOUND.into()),
    }
}

/// The flow's published versions, newest first (`GET /flowbuilder/{id}/versions`).
#[tracing::instrument(level = "debug", name = "flows::versions", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0, flow = id.0))]
pub async fn versions(ports: &Ports, actor: &Actor, id: FlowId) -> Result<Vec<FlowVersion>> {
    read(actor)?;
    record(ports, actor, id).await?;
    ports.flows.versions(actor.scope(), id).await
}

/// Makes a version's graph the draft, unpublished
/// (`POST /flowbuilder/{id}/versions/{version}/restore`): admins; `ERR_NOT_FOUND` for an
/// unknown version.
#[tracing::instrument(level = "debug", name = "flows::restore", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0, flow = id.0))]
pub async fn restore(ports: &Ports, actor: &Actor, id: FlowId, version: i64) -> Result<FlowView> {
    write(actor)?;
    record(ports, actor, id).await?;
    let graph = ports
        .flows
        .version_graph(actor.scope(), id, version)
        .await?
        .ok_or(ErrorCode::ERR_NOT_FOUND)?;
    ports
        .flows
        .save_draft(actor.scope(), id, &graph)
        .await?
        .ok_or(ErrorCode::ERR_NO_FLOW_FOUND)?;
    get(ports, actor, id).await
}

/// Counts, per node, the runs that entered it (the run state's `visited` list; the current
/// node when the state cannot be read) and the runs that stopped there (their current node,
/// status `ended` or `waiting`).
pub fn tally(runs: &[FlowRunRecord]) -> BTreeMap<String, NodeStats> {
    let mut nodes: BTreeMap<String, NodeStats> = BTreeMap::new();
    for run in runs {
        let mut entered: Vec<String> = serde_json::from_str::<serde_json::Value>(&run.state)
            .ok()
            .and_then(|state| {
                state.get("visited").and_then(|v| v.as_array()).map(|list| {
                    list.iter()
                        .filter_map(|n| n.as_str().map(str::to_owned))
                        .collect()
                })
            })
            .unwrap_or_default();
        if let Some(current) = &run.current_node
            && !entered.contains(current)
        {
            entered.push(current.clone());
        }
        entered.sort();
        entered.dedup();
        for node in entered {
            nodes.entry(node).or_default().entered += 1;
        }
        if let Some(current) = &run.current_node
            && matches!(run.status.as_str(), "ended" | "waiting")
        {
            nodes.entry(current.clone()).or_default().stopped += 1;
        }
    }
    nodes
}

/// Entered/stopped counts per node of the live version (`GET /flowbuilder/{id}/stats`).
#[tracing::instrument(level = "debug", name = "flows::stats", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0, flow = id.0))]
pub async fn stats(ports: &Ports, actor: &Actor, id: FlowId) -> Result<FlowStats> {
    read(actor)?;
    let current = record(ports, actor, id).await?;
    let Some(version) = current.summary.published_version else {
        return Ok(FlowStats {
            version: None,
            nodes: BTreeMap::new(),
        });
    };
    let runs = ports.flows.runs(actor.scope(), id, version).await?;
    Ok(FlowStats {
        version: Some(version),
        nodes: tally(&runs),
    })
}

/// The file of a stored flow: its draft, else its live graph, else an empty graph.
pub fn file_of(record: FlowRecord) -> FlowFile {
    FlowFile {
        format: FILE_FORMAT.to_owned(),
        version: FILE_VERSION,
        name: record.summary.name,
        flow: record.draft.or(record.published).unwrap_or_default(),
    }
}

/// The flow as a file (`GET /flowbuilder/{id}/export`), see [`file_of`].
#[tracing::instrument(level = "debug", name = "flows::export", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0, flow = id.0))]
pub async fn export(ports: &Ports, actor: &Actor, id: FlowId) -> Result<FlowFile> {
    read(actor)?;
    Ok(file_of(record(ports, actor, id).await?))
}

/// Checks a flow file to import and answers the new flow's name: `name` when given, else the
/// file's. `ERR_BAD_REQUEST` for another format or version; the name and size rules as ever.
pub fn checked_import(name: Option<&str>, file: &FlowFile) -> Result<String> {
    if file.format != FILE_FORMAT || file.version != FILE_VERSION {
        return Err(Error::with_detail(
            ErrorCode::ERR_BAD_REQUEST,
            format!("not a {FILE_FORMAT} file of version {FILE_VERSION}"),
        ));
    }
    let name = checked_name(name.filter(|n| !n.trim().is_empty()).unwrap_or(&file.name))?;
    check_size(&file.flow)?;
    Ok(name)
}

/// Creates a flow from a file (`POST /flowbuilder/import`): admins; see [`checked_import`]. The
/// graph becomes the new flow's draft.
#[tracing::instrument(level = "debug", name = "flows::import", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0))]
pub async fn import(
    ports: &Ports,
    actor: &Actor,
    name: Option<&str>,
    file: &FlowFile,
) -> Result<FlowSummary> {
    write(actor)?;
    let name = checked_import(name, file)?;
    ports
        .flows
        .create(actor.scope(), &name, Some(&file.flow))
        .await
}

/// The kinds of media a flow's nodes upload.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MediaKind {
    /// `POST /flowbuilder/img`: png, jpg, jpeg up to 2 MB.
    Image,
    /// `POST /flowbuilder/audio`: ogg, mp3 (opus content too) up to 5 MB.
    Audio,
    /// `POST /flowbuilder/video`: mp4 up to 20 MB.
    Video,
    /// `POST /flowbuilder/content`: any of the above, each with its own limit.
    Content,
}

/// The largest image (2 MB, as the spec's messages count: "2MB máximo").
pub const IMAGE_MAX_BYTES: usize = crate::limits::UploadKind::FlowImage.max_bytes() as usize;
/// The largest audio.
pub const AUDIO_MAX_BYTES: usize = crate::limits::UploadKind::FlowAudio.max_bytes() as usize;
/// The largest video.
pub const VIDEO_MAX_BYTES: usize = crate::limits::UploadKind::FlowVideo.max_bytes() as usize;

/// The type of one upload as its name's extension or its content type says, with its limit.
fn medium_of(file_name: &str, content_type: Option<&str>) -> Option<(MediaKind, usize)> {
    let ext = file_name
        .rsplit_once('.')
        .map(|(_, e)| e.to_ascii_lowercase())
        .unwrap_or_default();
    let mime = content_type
        .unwrap_or_default()
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase();
    let image = (MediaKind::Image, IMAGE_MAX_BYTES);
    let audio = (MediaKind::Audio, AUDIO_MAX_BYTES);
    let video = (MediaKind::Video, VIDEO_MAX_BYTES);
    // The editor's lists (one table, `flow::media_extensions`); any node's audio upload takes the
    // content element's wider list, as a voice note recorded in the browser is opus.
    let has = |kind: FlowMedia| media_extensions(kind).contains(&ext.as_str());
    if has(FlowMedia::Image) {
        return Some(image);
    }
    if has(FlowMedia::ContentAudio) {
        return Some(audio);
    }
    if has(FlowMedia::Video) {
        return Some(video);
    }
    match mime.as_str() {
        "image/png" | "image/jpeg" | "image/jpg" => Some(image),
        "audio/ogg" | "audio/opus" | "audio/mpeg" | "audio/mp3" => Some(audio),
        "video/mp4" => Some(video),
        _ => None,
    }
}

/// Checks one upload for a kind of media: `ERR_FLOW_MEDIA_TYPE` for a type the kind does not
/// accept, `ERR_FLOW_MEDIA_TOO_LARGE` beyond its limit.
pub fn check_media(
    kind: MediaKind,
    file_name: &str,
    content_type: Option<&str>,
    size: usize,
) -> Result<()> {
    let Some((found, limit)) = medium_of(file_name, content_type) else {
        return Err(ErrorCode::ERR_FLOW_MEDIA_TYPE.into());
    };
    if kind != MediaKind::Content && kind != found {
        return Err(ErrorCode::ERR_FLOW_MEDIA_TYPE.into());
    }
    if size > limit {
        return Err(Error::with_detail(
            ErrorCode::ERR_FLOW_MEDIA_TOO_LARGE,
            format!("{} MB at most", limit as u64 / crate::limits::MIB),
        ));
    }
    Ok(())
}

/// One uploaded file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MediaUpload {
    /// The name the client gave.
    pub file_name: String,
    /// The content type the client gave.
    pub content_type: Option<String>,
    /// The bytes.
    pub bytes: Vec<u8>,
}

/// Stores a node's media (`POST /flowbuilder/{img,audio,video,content}`): admins; every file
/// is checked before any is stored. Answers the stored names, in order.
#[tracing::instrument(level = "debug", name = "flows::upload_media", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0))]
pub async fn upload_media(
    ports: &Ports,
    actor: &Actor,
    kind: MediaKind,
    uploads: &[MediaUpload],
) -> Result<Vec<String>> {
    write(actor)?;
    if uploads.is_empty() {
        return Err(Error::validation(vec![FieldError::new(
            "medias",
            FieldCode::Required,
        )]));
    }
    for upload in uploads {
        check_media(
            kind,
            &upload.file_name,
            upload.content_type.as_deref(),
            upload.bytes.len(),
        )?;
    }
    let mut names = Vec::with_capacity(uploads.len());
    for upload in uploads {
        names.push(
            ports
                .media
                .put(actor.scope(), &upload.file_name, &upload.bytes)
                .await?,
        );
    }
    Ok(names)
}

/// A stored medium of the company (`GET /flowbuilder/media/{name}`): any user of the company;
/// `ERR_NOT_FOUND` when there is no such file.
#[tracing::instrument(level = "debug", name = "flows::media", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0))]
pub async fn media(ports: &Ports, actor: &Actor, name: &str) -> Result<Vec<u8>> {
    read(actor)?;
    ports
        .media
        .get(actor.scope(), name)
        .await?
        .ok_or_else(|| ErrorCode::ERR_NOT_FOUND.into())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(visited: &[&str], node: Option<&str>, status: &str) -> FlowRunRecord {
        FlowRunRecord {
            current_node: node.map(str::to_owned),
            status: status.to_owned(),
            state: serde_json::json!({ "visited": visited }).to_string(),
        }
    }

    #[test]
    fn tally_counts_entries_once_per_run_and_stops_where_runs_rest() {
        let runs = [
            run(&["1", "m", "1", "m"], Some("m"), "ended"),
            run(&["1"], Some("1"), "waiting"),
            run(&["1", "m"], Some("m"), "running"),
            FlowRunRecord {
                current_node: Some("q".into()),
                status: "waiting".into(),
                state: "not json".into(),
            },
        ];
        let stats = tally(&runs);
        assert_eq!(
            stats["1"],
            NodeStats {
                entered: 3,
                stopped: 1
            }
        );
        assert_eq!(
            stats["m"],
            NodeStats {
                entered: 2,
                stopped: 1
            }
        );
        assert_eq!(
            stats["q"],
            NodeStats {
                entered: 1,
                stopped: 1
            }
        );
        assert_eq!(stats.len(), 3);
        assert!(tally(&[]).is_empty());
    }

    #[test]
    fn media_are_checked_by_kind_and_size() {
        use ErrorCode::{ERR_FLOW_MEDIA_TOO_LARGE, ERR_FLOW_MEDIA_TYPE};
        let code = |r: Result<()>| r.err().map(|e| e.code);
        assert_eq!(code(check_media(MediaKind::Image, "a.PNG", None, 10)), None);
        assert_eq!(
            code(check_media(
                MediaKind::Image,
                "a.jpg",
                None,
                IMAGE_MAX_BYTES + 1
            )),
            Some(ERR_FLOW_MEDIA_TOO_LARGE)
        );
        assert_eq!(
            code(check_media(MediaKind::Image, "a.mp3", None, 10)),
            Some(ERR_FLOW_MEDIA_TYPE)
        );
        assert_eq!(
            code(check_media(
                MediaKind::Audio,
                "voz",
                Some("audio/ogg; codecs=opus"),
                10
            )),
            None
        );
        assert_eq!(
            code(check_media(
                MediaKind::Audio,
                "a.mp3",
                None,
                AUDIO_MAX_BYTES
            )),
            None
        );
        assert_eq!(
            code(check_media(
                MediaKind::Video,
                "a.mp4",
                None,
                VIDEO_MAX_BYTES + 1
            )),
            Some(ERR_FLOW_MEDIA_TOO_LARGE)
        );
        assert_eq!(
            code(check_media(MediaKind::Content, "a.mp4", None, 10)),
            None
        );
        // The editor's lists: opus is a content element's audio, and any audio upload takes it.
        assert_eq!(
            code(check_media(MediaKind::Audio, "voz.opus", None, 10)),
            None
        );
        assert_eq!(
            code(check_media(
                MediaKind::Image,
                "a.gif",
                Some("image/gif"),
                10
            )),
            Some(ERR_FLOW_MEDIA_TYPE)
        );
        assert_eq!(
            code(check_media(
                MediaKind::Content,
                "a.pdf",
                Some("application/pdf"),
                10
            )),
            Some(ERR_FLOW_MEDIA_TYPE)
        );
    }

    #[test]
    fn copies_are_named_within_the_limit() {
        assert_eq!(copy_name("Vendas"), "Vendas - cópia");
        let long = "x".repeat(50);
        let copy = copy_name(&long);
        assert_eq!(copy.chars().count(), NAME_MAX_CHARS);
        assert!(copy.ends_with(COPY_SUFFIX));
        assert!(checked_name(&copy).is_ok());
    }

    #[test]
    fn imports_check_format_version_and_name() {
        let file = FlowFile {
            format: FILE_FORMAT.into(),
            version: FILE_VERSION,
            name: "Fluxo".into(),
            flow: Flow::default(),
        };
        assert_eq!(checked_import(None, &file).ok().as_deref(), Some("Fluxo"));
        assert_eq!(
            checked_import(Some(" Outro "), &file).ok().as_deref(),
            Some("Outro")
        );
        assert_eq!(
            checked_import(Some("  "), &file).ok().as_deref(),
            Some("Fluxo")
        );
        let other = FlowFile {
            version: 2,
            ..file.clone()
        };
        assert_eq!(
            checked_import(None, &other).err().map(|e| e.code),
            Some(ErrorCode::ERR_BAD_REQUEST)
        );
        let unnamed = FlowFile {
            name: "x".into(),
            ..file
        };
        assert_eq!(
            checked_import(None, &unnamed).err().map(|e| e.code),
            Some(ErrorCode::ERR_VALIDATION)
        );
    }
}
