//! Phrase campaigns (`/flowcampaign`; spec 3 §7 "Flow campaigns", the /phrase-lists page): a
//! phrase that, written by a contact on a connection (or on any), starts a flow.
//!
//! Every user of the company reads them; admins ([`Action::ManageFlows`]) write them. `name`,
//! `flowId` and `phrase` are required; the flow and the connection must be the company's. Every
//! write emits `company-{id}-flowcampaign` ([`campaign_event`], [`campaign_deleted_event`]),
//! appended by the store in the write's transaction.

use serde::Deserialize;

use crate::error::{Error, ErrorCode, FieldCode, FieldError, Result};
use crate::events::{Event, SaveAction};
use crate::flow_ports::{FlowCampaign, FlowCampaignId, FlowCampaignInput, FlowId};
use crate::identity::Actor;
use crate::ids::WhatsappId;
use crate::policy::{Action, authorize};
use crate::service::Ports;

/// The longest campaign name, in characters.
pub const NAME_MAX_CHARS: usize = 100;
/// The longest phrase, in characters.
pub const PHRASE_MAX_CHARS: usize = 1000;

/// `company-{id}-flowcampaign` `{action: "create"|"update", flowCampaign}`.
pub fn campaign_event(action: SaveAction, campaign: &FlowCampaign) -> Event {
    Event::FlowCampaignSaved {
        action,
        flow_campaign: Box::new(campaign.clone()),
    }
}

/// `company-{id}-flowcampaign` `{action: "delete", flowCampaignId}`.
pub fn campaign_deleted_event(id: FlowCampaignId) -> Event {
    Event::FlowCampaignDeleted {
        flow_campaign_id: id,
    }
}

/// The body of `POST /flowcampaign` and `PUT /flowcampaign`: every field optional on the wire
/// so that missing ones become field errors.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", default)]
pub struct CampaignBody {
    /// The campaign's id (`PUT` only).
    pub id: Option<i64>,
    /// Its name, required.
    pub name: Option<String>,
    /// The flow it starts, required.
    pub flow_id: Option<i64>,
    /// The connection, or `null` for every connection.
    pub whatsapp_id: Option<i64>,
    /// The phrase, required.
    pub phrase: Option<String>,
    /// On or off (`PUT`; a new campaign is on).
    pub status: Option<bool>,
}

fn read(actor: &Actor) -> Result<()> {
    authorize(actor, &Action::ListUsersBrief(actor.company_id))
}

fn write(actor: &Actor) -> Result<()> {
    authorize(actor, &Action::ManageFlows(actor.company_id))
}

fn text_field(fields: &mut Vec<FieldError>, name: &str, value: Option<&str>, max: usize) -> String {
    let value = value.unwrap_or_default().trim();
    if value.is_empty() {
        fields.push(FieldError::new(name, FieldCode::Required));
    } else if value.chars().count() > max {
        fields.push(FieldError::new(name, FieldCode::TooLong));
    }
    value.to_owned()
}

/// Checks a body against the rules and the company's flows and connections; `status` defaults
/// to `default_status`.
async fn checked(
    ports: &Ports,
    actor: &Actor,
    body: &CampaignBody,
    default_status: bool,
) -> Result<FlowCampaignInput> {
    let mut fields = Vec::new();
    let name = text_field(&mut fields, "name", body.name.as_deref(), NAME_MAX_CHARS);
    let phrase = text_field(
        &mut fields,
        "phrase",
        body.phrase.as_deref(),
        PHRASE_MAX_CHARS,
    );
    if body.flow_id.is_none() {
        fields.push(FieldError::new("flowId", FieldCode::Required));
    }
    if !fields.is_empty() {
        return Err(Error::validation(fields));
    }
    let flow_id = FlowId(body.flow_id.unwrap_or_default());
    if ports.flows.get(actor.scope(), flow_id).await?.is_none() {
        return Err(ErrorCode::ERR_NO_FLOW_FOUND.into());
    }
    let whatsapp_id = body.whatsapp_id.filter(|id| *id > 0).map(WhatsappId);
    if let Some(id) = whatsapp_id
        && ports.connections.get(actor.scope(), id).await?.is_none()
    {
        return Err(ErrorCode::ERR_NO_WAPP_FOUND.into());
    }
    Ok(FlowCampaignInput {
        name,
        flow_id,
        whatsapp_id,
        phrase,
        status: body.status.unwrap_or(default_status),
    })
}

/// The company's phrase campaigns (`GET /flowcampaign`).
#[tracing::instrument(level = "debug", name = "flow_campaigns::list", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0))]
pub async fn list(ports: &Ports, actor: &Actor) -> Result<Vec<FlowCampaign>> {
    read(actor)?;
    ports.flow_campaigns.list(actor.scope()).await
}

/// One campaign (`GET /flowcampaign/{id}`).
#[tracing::instrument(level = "debug", name = "flow_campaigns::get", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0, flow_campaign = id.0))]
pub async fn get(ports: &Ports, actor: &Actor, id: FlowCampaignId) -> Result<FlowCampaign> {
    read(actor)?;
    ports
        .flow_campaigns
        .get(actor.scope(), id)
        .await?
        .ok_or_else(|| ErrorCode::ERR_NO_FLOW_CAMPAIGN_FOUND.into())
}

/// Creates a campaign, on (`POST /flowcampaign`): admins.
#[tracing::instrument(level = "debug", name = "flow_campaigns::create", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0))]
pub async fn create(ports: &Ports, actor: &Actor, body: &CampaignBody) -> Result<FlowCampaign> {
    write(actor)?;
    let mut input = checked(ports, actor, body, true).await?;
    input.status = true;
    ports.flow_campaigns.create(actor.scope(), &input).await
}

/// Replaces a campaign (`PUT /flowcampaign`, id in the body): admins.
#[tracing::instrument(level = "debug", name = "flow_campaigns::update", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0))]
pub async fn update(ports: &Ports, actor: &Actor, body: &CampaignBody) -> Result<FlowCampaign> {
    write(actor)?;
    let id = FlowCampaignId(body.id.ok_or(ErrorCode::ERR_NO_FLOW_CAMPAIGN_FOUND)?);
    let current = ports
        .flow_campaigns
        .get(actor.scope(), id)
        .await?
        .ok_or(ErrorCode::ERR_NO_FLOW_CAMPAIGN_FOUND)?;
    let input = checked(ports, actor, body, current.status).await?;
    ports
        .flow_campaigns
        .update(actor.scope(), id, &input)
        .await?
        .ok_or_else(|| ErrorCode::ERR_NO_FLOW_CAMPAIGN_FOUND.into())
}

/// Deletes a campaign (`DELETE /flowcampaign/{id}`): admins.
#[tracing::instrument(level = "debug", name = "flow_campaigns::delete", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0, flow_campaign = id.0))]
pub async fn delete(ports: &Ports, actor: &Actor, id: FlowCampaignId) -> Result<()> {
    write(actor)?;
    if ports.flow_campaigns.delete(actor.scope(), id).await? {
        Ok(())
    } else {
        Err(ErrorCode::ERR_NO_FLOW_CAMPAIGN_FOUND.into())
    }
}
