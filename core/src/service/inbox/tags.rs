//! Tags (`/tags`, `/contactTags`, `/ticket-tags`): the company's tags, a contact's tags and a
//! ticket's tags. Any user of the company manages them; names have at least 3 characters
//! ("Tag muito curta!"). Creating, editing and deleting a tag emit `company-{id}-tag`
//! ([`tag_event`], [`tag_deleted_event`]), appended by the store in the write's transaction.

use crate::error::{ErrorCode, Result};
use crate::events::{Event, SaveAction};
use crate::identity::Actor;
use crate::ids::{ContactId, TagId, TicketId};
use crate::inbox::model::{Contact, Tag};
use crate::policy::{self, Action};
use crate::service::Ports;
use crate::validation;

/// Tags per page of `GET /tags`.
pub const PAGE_SIZE: usize = 20;
/// Colour of a tag created without one.
pub const DEFAULT_COLOR: &str = "#A4CCCC";

/// The editable fields of a tag.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct TagInput {
    pub name: String,
    #[serde(default)]
    pub color: String,
    /// 1 for a kanban lane; accepts `true`/`false` too.
    #[serde(default, deserialize_with = "kanban_flag")]
    pub kanban: i64,
}

fn kanban_flag<'de, D: serde::Deserializer<'de>>(d: D) -> std::result::Result<i64, D::Error> {
    use serde::Deserialize;
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Flag {
        Int(i64),
        Bool(bool),
        Null(()),
    }
    Ok(match Flag::deserialize(d)? {
        Flag::Int(n) => i64::from(n != 0),
        Flag::Bool(b) => i64::from(b),
        Flag::Null(()) => 0,
    })
}

/// A page of `GET /tags`: `{tags, hasMore, count}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TagPage {
    pub tags: Vec<Tag>,
    pub has_more: bool,
    pub count: i64,
}

/// `company-{id}-tag` `{action: "create"|"update", tag}` for the whole company.
pub fn tag_event(action: SaveAction, tag: &Tag) -> Event {
    Event::TagSaved {
        action,
        tag: Box::new(tag.clone()),
    }
}

/// `company-{id}-tag` `{action: "delete", tagId}` for the whole company.
pub fn tag_deleted_event(id: TagId) -> Event {
    Event::TagDeleted { tag_id: id }
}

fn checked(input: TagInput) -> Result<TagInput> {
    validation::validate_tag_name(&input.name)?;
    Ok(TagInput {
        name: input.name.trim().to_owned(),
        color: if input.color.trim().is_empty() {
            DEFAULT_COLOR.to_owned()
        } else {
            input.color.trim().to_owned()
        },
        kanban: input.kanban,
    })
}

/// The company's tags (`GET /tags/list?kanban=`).
#[tracing::instrument(level = "debug", name = "inbox.tags::list", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0))]
pub async fn list(ports: &Ports, actor: &Actor, kanban: Option<bool>) -> Result<Vec<Tag>> {
    ports.tags.list(actor.scope(), kanban).await
}

/// A page of tags matching `search` (`GET /tags?searchParam=&pageNumber=`), accent- and
/// case-insensitive on the name.
#[tracing::instrument(level = "debug", name = "inbox.tags::page", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0))]
pub async fn page(ports: &Ports, actor: &Actor, search: &str, page_number: u32) -> Result<TagPage> {
    let wanted = crate::inbox::search::normalize(search);
    let all: Vec<Tag> = ports
        .tags
        .list(actor.scope(), None)
        .await?
        .into_iter()
        .filter(|t| wanted.is_empty() || crate::inbox::search::normalize(&t.name).contains(&wanted))
        .collect();
    let count = all.len() as i64;
    let skip = (page_number.max(1) as usize - 1) * PAGE_SIZE;
    let tags: Vec<Tag> = all.into_iter().skip(skip).take(PAGE_SIZE).collect();
    Ok(TagPage {
        has_more: (skip + tags.len()) < count as usize,
        tags,
        count,
    })
}

/// Creates a tag (`POST /tags`).
#[tracing::instrument(level = "debug", name = "inbox.tags::create", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0))]
pub async fn create(ports: &Ports, actor: &Actor, input: TagInput) -> Result<Tag> {
    let input = checked(input)?;
    ports
        .tags
        .create(actor.scope(), &input.name, &input.color, input.kanban)
        .await
}

/// Edits a tag (`PUT /tags/{id}`); `ERR_NOT_FOUND` when it is not the company's.
#[tracing::instrument(level = "debug", name = "inbox.tags::update", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0, tag = id.0))]
pub async fn update(ports: &Ports, actor: &Actor, id: TagId, input: TagInput) -> Result<Tag> {
    let input = checked(input)?;
    ports
        .tags
        .update(actor.scope(), id, &input.name, &input.color, input.kanban)
        .await?
        .ok_or_else(|| ErrorCode::ERR_NOT_FOUND.into())
}

/// Deletes a tag (`DELETE /tags/{id}`): admins only ([`Action::DeleteTag`]).
#[tracing::instrument(level = "debug", name = "inbox.tags::delete", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0, tag = id.0))]
pub async fn delete(ports: &Ports, actor: &Actor, id: TagId) -> Result<()> {
    policy::authorize(actor, &Action::DeleteTag(actor.company_id))?;
    if ports.tags.delete(actor.scope(), id).await? {
        Ok(())
    } else {
        Err(ErrorCode::ERR_NOT_FOUND.into())
    }
}

/// Replaces a contact's tags (`POST /tags/sync`) and returns the contact; tags of other companies
/// are ignored. `ERR_NO_CONTACT_FOUND` when the contact is not the company's.
#[tracing::instrument(level = "debug", name = "inbox.tags::sync_contact", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0, contact = contact.0))]
pub async fn sync_contact(
    ports: &Ports,
    actor: &Actor,
    contact: ContactId,
    tags: &[TagId],
) -> Result<Contact> {
    if !ports
        .contacts
        .set_tags(actor.scope(), contact, tags)
        .await?
    {
        return Err(ErrorCode::ERR_NO_CONTACT_FOUND.into());
    }
    super::contacts::get(ports, actor, contact).await
}

/// A contact's tags (`GET /contactTags/{contactId}`).
#[tracing::instrument(level = "debug", name = "inbox.tags::contact_tags", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0, contact = contact.0))]
pub async fn contact_tags(ports: &Ports, actor: &Actor, contact: ContactId) -> Result<Vec<Tag>> {
    ports
        .contacts
        .get(actor.scope(), contact)
        .await?
        .ok_or(ErrorCode::ERR_NO_CONTACT_FOUND)?;
    ports.tags.contact_tags(actor.scope(), contact).await
}

/// Adds a tag to a ticket (`PUT /ticket-tags/{ticketId}/{tagId}`); `ERR_NOT_FOUND` when the
/// ticket or the tag is not the company's.
#[tracing::instrument(level = "debug", name = "inbox.tags::tag_ticket", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0, ticket = ticket.0, tag = tag.0))]
pub async fn tag_ticket(ports: &Ports, actor: &Actor, ticket: TicketId, tag: TagId) -> Result<()> {
    if ports
        .tags
        .set_ticket_tag(actor.scope(), ticket, tag)
        .await?
    {
        Ok(())
    } else {
        Err(ErrorCode::ERR_NOT_FOUND.into())
    }
}

/// Removes every tag of a ticket (`DELETE /ticket-tags/{ticketId}`); `ERR_NO_TICKET_FOUND` when
/// the ticket is not the company's.
#[tracing::instrument(level = "debug", name = "inbox.tags::clear_ticket", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0, ticket = ticket.0))]
pub async fn clear_ticket(ports: &Ports, actor: &Actor, ticket: TicketId) -> Result<()> {
    if ports.tags.clear_ticket_tags(actor.scope(), ticket).await? {
        Ok(())
    } else {
        Err(ErrorCode::ERR_NO_TICKET_FOUND.into())
    }
}
