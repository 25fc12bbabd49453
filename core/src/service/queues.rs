//! Queues as the inbox needs them: every user of the company lists them (filters, transfer),
//! admins create them. The queues issue adds editing, chatbots and hours.

use serde::{Deserialize, Serialize};

use crate::error::Result;
use crate::identity::Actor;
use crate::policy::{Action, authorize};
use crate::ports::QueueSummary;
use crate::service::Ports;
use crate::validation;

/// The fields of a new queue.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", default)]
pub struct QueueInput {
    pub name: String,
    pub color: String,
}

/// The company's queues, in their order.
pub async fn list(ports: &Ports, actor: &Actor) -> Result<Vec<QueueSummary>> {
    authorize(actor, &Action::ListUsersBrief(actor.company_id))?;
    ports.queues.list(actor.scope()).await
}

/// Creates a queue (name 2-50, colour 3-9 characters, colour unique in the company).
pub async fn create(ports: &Ports, actor: &Actor, input: &QueueInput) -> Result<QueueSummary> {
    authorize(actor, &Action::ManageQueues(actor.company_id))?;
    let name = input.name.trim();
    let color = input.color.trim();
    validation::validate_queue(name, color)?;
    ports.queues.create(actor.scope(), name, color).await
}
