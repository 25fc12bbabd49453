//! Quick messages (`/quick-messages`): the page's list, the "/" list of the ticket input, the
//! form, and the file. The rules are [`crate::quick_message`]'s; every call is scoped to the
//! caller's company, and what the caller may not see answers `ERR_NOT_FOUND`.
//!
//! Files go through [`crate::ports::MediaStore`] with the limits of message attachments
//! ([`super::inbox::messages::check_upload`]: images and audio 16 MiB, video 64 MiB, documents
//! 100 MiB, `ERR_PAYLOAD_TOO_LARGE` beyond, `ERR_VALIDATION` for types the inbox does not send),
//! since the file is sent as one.

use crate::error::{Error, ErrorCode, FieldCode, FieldError, Result};
use crate::identity::Actor;
use crate::quick_message::{
    QuickMessage, QuickMessageId, QuickMessageInput, check_shortcode_free, checked, edited,
    visible_to,
};
use crate::service::Ports;
use crate::service::inbox::messages::{Upload, check_upload};

/// Quick messages per page of `GET /quick-messages`.
pub const PAGE_SIZE: usize = 20;

/// A page of `GET /quick-messages`: `{records, hasMore, count}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QuickMessagePage {
    pub records: Vec<QuickMessage>,
    pub has_more: bool,
    pub count: i64,
}

/// Every quick message the caller sees, by shortcode (`GET /quick-messages/list`, the ticket
/// input's "/" list).
#[tracing::instrument(level = "debug", name = "quick_messages::list", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0))]
pub async fn list(ports: &Ports, actor: &Actor) -> Result<Vec<QuickMessage>> {
    Ok(ports
        .quick_messages
        .list(actor.scope())
        .await?
        .into_iter()
        .filter(|m| visible_to(actor, m))
        .collect())
}

/// The quick messages the caller sees (as [`list`]) with their variables filled for `ticket`
/// ([`crate::inbox::variables`]: the contact, the queue, the protocol, and the caller as the
/// attendant), so the ticket input inserts the text as the contact will read it. A ticket the
/// caller may not see (another company's included) answers `ERR_NO_TICKET_FOUND`.
#[tracing::instrument(level = "debug", name = "quick_messages::list_for_ticket", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0, ticket = ticket.0))]
pub async fn list_for_ticket(
    ports: &Ports,
    actor: &Actor,
    ticket: crate::ids::TicketId,
) -> Result<Vec<QuickMessage>> {
    let ticket = crate::service::inbox::tickets::visible(ports, actor, ticket).await?;
    let user = ports
        .users
        .get(actor.scope(), actor.user_id)
        .await?
        .map(|u| u.name);
    let vars = crate::inbox::variables::Variables::of(&ticket, user.as_deref());
    Ok(list(ports, actor)
        .await?
        .into_iter()
        .map(|mut m| {
            m.message = crate::inbox::variables::fill(&m.message, &vars);
            m
        })
        .collect())
}

/// A page of the quick messages the caller sees whose shortcode or message matches `search`
/// (accent- and case-insensitive).
#[tracing::instrument(level = "debug", name = "quick_messages::page", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0))]
pub async fn page(
    ports: &Ports,
    actor: &Actor,
    search: &str,
    page_number: u32,
) -> Result<QuickMessagePage> {
    let wanted = crate::inbox::search::normalize(search);
    let matching: Vec<QuickMessage> = list(ports, actor)
        .await?
        .into_iter()
        .filter(|m| {
            wanted.is_empty()
                || crate::inbox::search::normalize(&m.shortcode).contains(&wanted)
                || crate::inbox::search::normalize(&m.message).contains(&wanted)
        })
        .collect();
    let count = matching.len();
    let skip = (page_number.max(1) as usize - 1) * PAGE_SIZE;
    let records: Vec<QuickMessage> = matching.into_iter().skip(skip).take(PAGE_SIZE).collect();
    Ok(QuickMessagePage {
        has_more: skip + records.len() < count,
        records,
        count: count as i64,
    })
}

/// One quick message the caller sees (`GET /quick-messages/{id}`).
#[tracing::instrument(level = "debug", name = "quick_messages::get", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0, quick_message = id.0))]
pub async fn get(ports: &Ports, actor: &Actor, id: QuickMessageId) -> Result<QuickMessage> {
    ports
        .quick_messages
        .get(actor.scope(), id)
        .await?
        .filter(|m| visible_to(actor, m))
        .ok_or_else(|| ErrorCode::ERR_NOT_FOUND.into())
}

/// Creates a quick message owned by the caller (`POST /quick-messages`).
#[tracing::instrument(level = "debug", name = "quick_messages::create", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0))]
pub async fn create(
    ports: &Ports,
    actor: &Actor,
    input: QuickMessageInput,
) -> Result<QuickMessage> {
    let fields = checked(&input, input.is_media)?;
    let all = ports.quick_messages.list(actor.scope()).await?;
    check_shortcode_free(&fields.shortcode, actor.user_id, None, &all)?;
    ports
        .quick_messages
        .create(actor.scope(), actor.user_id, &fields)
        .await
}

/// Edits a quick message the caller sees (`PUT /quick-messages/{id}`); only the owner changes
/// `geral`.
#[tracing::instrument(level = "debug", name = "quick_messages::update", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0, quick_message = id.0))]
pub async fn update(
    ports: &Ports,
    actor: &Actor,
    id: QuickMessageId,
    input: QuickMessageInput,
) -> Result<QuickMessage> {
    let current = get(ports, actor, id).await?;
    let fields = edited(
        actor,
        &current,
        checked(&input, current.is_media || input.is_media)?,
    );
    let all = ports.quick_messages.list(actor.scope()).await?;
    check_shortcode_free(&fields.shortcode, current.user_id, Some(id), &all)?;
    ports
        .quick_messages
        .update(actor.scope(), id, &fields, current.geral)
        .await?
        .ok_or_else(|| ErrorCode::ERR_NOT_FOUND.into())
}

/// Deletes a quick message the caller sees, and its file (`DELETE /quick-messages/{id}`).
#[tracing::instrument(level = "debug", name = "quick_messages::delete", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0, quick_message = id.0))]
pub async fn delete(ports: &Ports, actor: &Actor, id: QuickMessageId) -> Result<()> {
    get(ports, actor, id).await?;
    let deleted = ports
        .quick_messages
        .delete(actor.scope(), id)
        .await?
        .ok_or(ErrorCode::ERR_NOT_FOUND)?;
    if let Some(file) = &deleted.media_file {
        ports.media.delete(actor.scope(), file).await?;
    }
    Ok(())
}

/// Attaches a file, replacing any earlier one (`POST /quick-messages/{id}/media-upload`).
#[tracing::instrument(level = "debug", name = "quick_messages::upload_media", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0, quick_message = id.0))]
pub async fn upload_media(
    ports: &Ports,
    actor: &Actor,
    id: QuickMessageId,
    upload: Upload,
) -> Result<QuickMessage> {
    let current = get(ports, actor, id).await?;
    check_upload(&upload)?;
    let stored = ports
        .media
        .put(actor.scope(), &upload.file_name, &upload.bytes)
        .await?;
    let updated = ports
        .quick_messages
        .set_media(actor.scope(), id, Some((&stored, &upload.file_name)))
        .await?
        .ok_or(ErrorCode::ERR_NOT_FOUND)?;
    if let Some(old) = &current.media_file {
        ports.media.delete(actor.scope(), old).await?;
    }
    Ok(updated)
}

/// Removes the file (`DELETE /quick-messages/{id}/media-upload`); refused (`message` required)
/// when the quick message has no text to stand without it.
#[tracing::instrument(level = "debug", name = "quick_messages::delete_media", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0, quick_message = id.0))]
pub async fn delete_media(
    ports: &Ports,
    actor: &Actor,
    id: QuickMessageId,
) -> Result<QuickMessage> {
    let current = get(ports, actor, id).await?;
    if current.message.trim().is_empty() {
        return Err(Error::validation(vec![FieldError::new(
            "message",
            FieldCode::Required,
        )]));
    }
    let updated = ports
        .quick_messages
        .set_media(actor.scope(), id, None)
        .await?
        .ok_or(ErrorCode::ERR_NOT_FOUND)?;
    if let Some(old) = &current.media_file {
        ports.media.delete(actor.scope(), old).await?;
    }
    Ok(updated)
}

/// The file of a quick message the caller sees, with its original name
/// (`GET /quick-messages/{id}/media`).
#[tracing::instrument(level = "debug", name = "quick_messages::media", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0, quick_message = id.0))]
pub async fn media(ports: &Ports, actor: &Actor, id: QuickMessageId) -> Result<(String, Vec<u8>)> {
    let current = get(ports, actor, id).await?;
    let file = current.media_file.ok_or(ErrorCode::ERR_NOT_FOUND)?;
    let bytes = ports
        .media
        .get(actor.scope(), &file)
        .await?
        .ok_or(ErrorCode::ERR_NOT_FOUND)?;
    Ok((current.media_name.unwrap_or_else(|| "file".into()), bytes))
}
