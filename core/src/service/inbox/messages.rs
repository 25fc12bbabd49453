//! Messages (`/messages`, `/message/forward`, `/messages-allMe`): reading a ticket's messages,
//! sending text, media, contact cards and private notes, editing, deleting, reacting,
//! forwarding, and serving media.
//!
//! Sending stores the message first (ack 0, so it shows at once and survives a crash), sends
//! it through the connection's provider, then records the channel's id (ack 1). **A send
//! failure** marks the stored message deleted (it stays in the history as a deleted bubble,
//! with its `update` event) and the request answers `ERR_SENDING_WAPP_MSG`.
//!
//! Media limits are per kind ([`crate::inbox::messages::media_limit`]): images and audio
//! 16 MiB, video 64 MiB, documents 100 MiB; larger files answer `ERR_PAYLOAD_TOO_LARGE`, types
//! the inbox does not send `ERR_VALIDATION`. Media are stored with [`crate::ports::MediaStore`]
//! under the company's area and served only to users of that company who may see the ticket.

use chrono::{DateTime, Utc};

use crate::error::{Error, ErrorCode, Result};
use crate::identity::Actor;
use crate::ids::{ContactId, MessageId, TenantScope, TicketId, UserId};
use crate::inbox::channel::{ChannelMedia, ContactCard, Outbound, OutboundContent, QuotedContent};
use crate::inbox::messages::{
    may_delete, may_edit, media_limit, media_type_of, signed_body, validate_body,
};
use crate::inbox::model::{
    Connection, KeysetPage, MediaType, Message, NewMessage, PageStart, Ticket,
};
use crate::service::Ports;
use crate::settings::{SettingsView, to_map};

use super::tickets::{self, visible};

/// A ticket's messages (`GET /messages/{ticketUuid}`) with the ticket. The first page resets
/// the ticket's unread count.
#[tracing::instrument(level = "debug", name = "inbox.messages::list", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0))]
pub async fn list(
    ports: &Ports,
    actor: &Actor,
    uuid: uuid::Uuid,
    start: &PageStart,
    page_size: u32,
) -> Result<(KeysetPage<Message>, Ticket)> {
    let ticket = tickets::get_by_uuid(ports, actor, uuid).await?;
    let page = ports
        .messages
        .list(actor.scope(), ticket.id, start, page_size)
        .await?;
    let mut ticket = ticket;
    if matches!(start, PageStart::First) && ticket.unread_messages > 0 {
        if let Some(read) = ports.tickets.reset_unread(actor.scope(), ticket.id).await? {
            tickets::read_on_channel(ports, actor.scope(), &ticket, &read).await;
        }
        ticket.unread_messages = 0;
    }
    Ok((page, ticket))
}

/// An attachment to send.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Upload {
    pub file_name: String,
    pub mime_type: String,
    pub bytes: Vec<u8>,
}

/// What `POST /messages/{ticketId}` asks for.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SendMessage {
    pub body: String,
    pub quoted_msg_id: Option<MessageId>,
    /// A private note: stored, never sent.
    pub is_private: bool,
    /// `false` when the user turned signing off for this message.
    pub sign: bool,
    pub media: Option<Upload>,
    pub contact_card: Option<ContactCard>,
}

/// Checks an upload's type and size, returning its media kind.
pub fn check_upload(upload: &Upload) -> Result<MediaType> {
    let kind = media_type_of(&upload.mime_type).ok_or_else(|| {
        Error::with_detail(
            ErrorCode::ERR_VALIDATION,
            format!("files of type {} cannot be sent", upload.mime_type),
        )
    })?;
    if upload.bytes.len() as u64 > media_limit(kind) {
        return Err(Error::with_detail(
            ErrorCode::ERR_PAYLOAD_TOO_LARGE,
            format!(
                "{} files are limited to {} bytes",
                kind.as_str(),
                media_limit(kind)
            ),
        ));
    }
    Ok(kind)
}

/// Sends a message on a ticket the actor may see.
#[tracing::instrument(level = "debug", name = "inbox.messages::send", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0, ticket = ticket_id.0))]
pub async fn send(
    ports: &Ports,
    actor: &Actor,
    ticket_id: TicketId,
    input: SendMessage,
) -> Result<Message> {
    let prepared = prepare_send(ports, actor, ticket_id, input).await?;
    let message = ports
        .messages
        .create(actor.scope(), &prepared.message)
        .await?;
    deliver_prepared(ports, actor.scope(), prepared, message).await
}

/// A send checked and ready to store ([`prepare_send`]): the message to store, and what the
/// channel receives once it is stored (`None` for a private note).
#[derive(Debug, Clone)]
pub struct PreparedSend {
    pub ticket: Ticket,
    pub message: NewMessage,
    pub content: Option<OutboundContent>,
    pub quoted_external_id: Option<String>,
    /// The quoted message's text and side, for channels that show the quote.
    pub quoted: Option<QuotedContent>,
}

/// Sends the stored `message` of `prepared` (nothing for a private note); see [`send`].
#[tracing::instrument(level = "debug", name = "inbox.messages::deliver_prepared", skip_all, fields(company = scope.company_id().0))]
pub async fn deliver_prepared(
    ports: &Ports,
    scope: TenantScope,
    prepared: PreparedSend,
    message: Message,
) -> Result<Message> {
    match prepared.content {
        None => Ok(message),
        Some(content) => {
            deliver_outbound(
                ports,
                scope,
                &prepared.ticket,
                message,
                content,
                prepared.quoted_external_id,
                prepared.quoted,
            )
            .await
        }
    }
}

/// Sends again a stored outbound message that never reached the channel (a send resumed after
/// a crash): its body, or its file with the body as caption. The channel's idempotency key is
/// the message's id, so a message the channel did take is not sent to the phone twice.
#[tracing::instrument(level = "debug", name = "inbox.messages::redeliver", skip_all, fields(company = scope.company_id().0))]
pub async fn redeliver(ports: &Ports, scope: TenantScope, message: Message) -> Result<Message> {
    let ticket = ports
        .tickets
        .get(scope, message.ticket_id)
        .await?
        .ok_or_else(|| Error::new(ErrorCode::ERR_NO_TICKET_FOUND))?;
    let content = match ports.messages.media_path(scope, message.id).await? {
        Some(path) => {
            let bytes = ports
                .media
                .get(scope, &path)
                .await?
                .ok_or_else(|| Error::new(ErrorCode::ERR_WAPP_DOWNLOAD_MEDIA))?;
            let file_name = message.media_name.clone().unwrap_or_default();
            OutboundContent::Media {
                media: ChannelMedia {
                    media_type: message.media_type,
                    mime_type: crate::media::mime_of(&file_name).to_owned(),
                    file_name,
                    bytes,
                },
                caption: message.body.clone(),
            }
        }
        None => OutboundContent::Text {
            body: message.body.clone(),
        },
    };
    deliver_outbound(ports, scope, &ticket, message, content, None, None).await
}

/// Checks a send on a ticket the actor may see and builds the message to store (the file, if
/// any, is put in the media store); nothing is stored as a message yet.
#[tracing::instrument(level = "debug", name = "inbox.messages::prepare_send", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0, ticket = ticket_id.0))]
pub async fn prepare_send(
    ports: &Ports,
    actor: &Actor,
    ticket_id: TicketId,
    input: SendMessage,
) -> Result<PreparedSend> {
    let scope = actor.scope();
    let ticket = visible(ports, actor, ticket_id).await?;
    let kind = match &input.media {
        Some(upload) => Some(check_upload(upload)?),
        None => None,
    };
    if input.contact_card.is_none() {
        validate_body(&input.body, kind.is_some())?;
    }
    let stored = ports.settings.company_settings(scope).await?;
    let map = to_map(&stored);
    let company_signs = SettingsView::new(&map).is_enabled("sendSignMessage");
    let user = ports.users.get(scope, actor.user_id).await?;
    let name = user.as_ref().map_or("", |u| u.name.as_str());
    let body = if input.is_private || input.body.trim().is_empty() {
        input.body.clone()
    } else {
        signed_body(&input.body, name, company_signs, input.sign)
    };
    let media_path = match &input.media {
        Some(upload) => Some(
            ports
                .media
                .put(scope, &upload.file_name, &upload.bytes)
                .await?,
        ),
        None => None,
    };
    let (media_type, card_body) = match (&input.contact_card, kind) {
        (Some(card), _) => (
            MediaType::ContactCard,
            Some(format!("{}\n{}", card.name, card.number)),
        ),
        (None, Some(k)) => (k, None),
        (None, None) => (MediaType::Chat, None),
    };
    let quoted = match input.quoted_msg_id {
        Some(q) => ports
            .messages
            .get(scope, q)
            .await?
            .filter(|m| m.ticket_id == ticket.id),
        None => None,
    };
    let message = NewMessage {
        ticket_id: ticket.id,
        body: card_body.unwrap_or_else(|| body.clone()),
        from_me: true,
        is_private: input.is_private,
        is_forwarded: false,
        media_type,
        media_path,
        media_name: input.media.as_ref().map(|m| m.file_name.clone()),
        quoted_msg_id: quoted.as_ref().map(|q| q.id),
        user_id: Some(actor.user_id),
        external_id: None,
        ack: 0,
    };
    if input.is_private {
        return Ok(PreparedSend {
            ticket,
            message,
            content: None,
            quoted_external_id: None,
            quoted: None,
        });
    }
    let content = match (&input.contact_card, &input.media, kind) {
        (Some(card), _, _) => OutboundContent::Contact { card: card.clone() },
        (None, Some(upload), Some(k)) => OutboundContent::Media {
            media: ChannelMedia {
                media_type: k,
                file_name: upload.file_name.clone(),
                mime_type: upload.mime_type.clone(),
                bytes: upload.bytes.clone(),
            },
            caption: body,
        },
        _ => OutboundContent::Text { body },
    };
    Ok(PreparedSend {
        ticket,
        message,
        content: Some(content),
        quoted: quoted.as_ref().map(QuotedContent::of),
        quoted_external_id: quoted.and_then(|q| q.external_id),
    })
}

/// Sends a stored message through the ticket's connection and records the channel's id; on
/// failure marks it deleted and answers `ERR_SENDING_WAPP_MSG` (see the module documentation).
async fn deliver_outbound(
    ports: &Ports,
    scope: TenantScope,
    ticket: &Ticket,
    message: Message,
    content: OutboundContent,
    quoted_external_id: Option<String>,
    quoted: Option<QuotedContent>,
) -> Result<Message> {
    let sent = async {
        let connection_id = ticket
            .whatsapp_id
            .ok_or_else(|| Error::new(ErrorCode::ERR_NO_WAPP_FOUND))?;
        let connection = ports
            .connections
            .get(scope, connection_id)
            .await?
            .ok_or_else(|| Error::new(ErrorCode::ERR_NO_WAPP_FOUND))?;
        channel_send(
            ports,
            scope,
            ticket,
            &connection,
            &message,
            content,
            quoted_external_id,
            quoted,
        )
        .await
    }
    .await;
    match sent {
        Ok(external_id) => Ok(ports
            .messages
            .set_sent(scope, message.id, &external_id)
            .await?
            .unwrap_or(message)),
        Err(e) => {
            ports.messages.mark_deleted(scope, message.id).await?;
            Err(send_failed(e))
        }
    }
}

/// Hands a stored message to `connection`'s channel (the message's id is the idempotency key);
/// the channel's id of the sent message.
#[allow(clippy::too_many_arguments)]
async fn channel_send(
    ports: &Ports,
    scope: TenantScope,
    ticket: &Ticket,
    connection: &Connection,
    message: &Message,
    content: OutboundContent,
    quoted_external_id: Option<String>,
    quoted: Option<QuotedContent>,
) -> Result<String> {
    ports
        .channels
        .get(connection.provider)?
        .send(
            scope,
            &Outbound {
                connection: connection.id,
                to: ticket.contact.number.clone(),
                content,
                quoted_external_id,
                quoted: quoted.map(|q| q.through(&connection.number)),
                idempotency_key: Some(message.id.0.to_string()),
            },
        )
        .await
}

/// What a send the channel refused answers: `ERR_SENDING_WAPP_MSG` with the channel's reason.
fn send_failed(e: Error) -> Error {
    Error::with_detail(
        ErrorCode::ERR_SENDING_WAPP_MSG,
        e.detail.unwrap_or_else(|| e.code.to_string()),
    )
}

/// Sends an automatic text (greeting, farewell, transfer notice) on `ticket` as `user`.
#[tracing::instrument(level = "debug", name = "inbox.messages::send_automatic", skip_all, fields(company = scope.company_id().0, user = user.0))]
pub async fn send_automatic(
    ports: &Ports,
    scope: TenantScope,
    ticket: &Ticket,
    body: &str,
    user: UserId,
) -> Result<Message> {
    send_text_as(ports, scope, ticket, body, Some(user)).await
}

/// Sends a text of the bot (a flow, the queue menus) on `ticket`: no user, from the connection.
#[tracing::instrument(level = "debug", name = "inbox.messages::send_bot_text", skip_all, fields(company = scope.company_id().0))]
pub async fn send_bot_text(
    ports: &Ports,
    scope: TenantScope,
    ticket: &Ticket,
    body: &str,
) -> Result<Message> {
    send_text_as(ports, scope, ticket, body, None).await
}

/// Sends texts of the bot on `ticket`, in order, as [`send_bot_text`] sends each, with two
/// writes for all of them: stored together ([`crate::inbox::ports::MessageRepo::create_many`]),
/// handed to the channel one by one, their channel ids recorded together
/// ([`crate::inbox::ports::MessageRepo::set_sent_many`]). A text the channel refused is marked
/// deleted and the others still go; the first error is answered.
#[tracing::instrument(level = "debug", name = "inbox.messages::send_bot_texts", skip_all, fields(company = scope.company_id().0, ticket = ticket.id.0, texts = bodies.len()))]
pub async fn send_bot_texts(
    ports: &Ports,
    scope: TenantScope,
    ticket: &Ticket,
    bodies: &[String],
) -> Result<()> {
    if bodies.is_empty() {
        return Ok(());
    }
    let new: Vec<NewMessage> = bodies
        .iter()
        .map(|body| NewMessage::text(ticket.id, body))
        .collect();
    let stored = ports.messages.create_many(scope, &new).await?;
    let connection = match ticket.whatsapp_id {
        Some(id) => ports.connections.get(scope, id).await,
        None => Ok(None),
    };
    let mut sent = Vec::with_capacity(stored.len());
    let mut first_error = None;
    for (message, body) in stored.into_iter().zip(bodies) {
        let content = OutboundContent::Text { body: body.clone() };
        let result = match &connection {
            Ok(Some(connection)) => {
                channel_send(
                    ports, scope, ticket, connection, &message, content, None, None,
                )
                .await
            }
            Ok(None) => Err(Error::new(ErrorCode::ERR_NO_WAPP_FOUND)),
            Err(e) => Err(e.clone()),
        };
        match result {
            Ok(external_id) => sent.push((message.id, external_id)),
            Err(e) => {
                ports.messages.mark_deleted(scope, message.id).await?;
                first_error.get_or_insert(send_failed(e));
            }
        }
    }
    ports.messages.set_sent_many(scope, &sent).await?;
    first_error.map_or(Ok(()), Err)
}

/// A stored file the bot sends (a flow's image, audio or video).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BotMedia {
    pub media_type: MediaType,
    /// The media store's name of the file.
    pub stored_name: String,
    /// The name the contact sees.
    pub file_name: String,
    pub mime_type: String,
    pub bytes: Vec<u8>,
}

/// Sends a file of the bot on `ticket` (no user, no caption).
#[tracing::instrument(level = "debug", name = "inbox.messages::send_bot_media", skip_all, fields(company = scope.company_id().0))]
pub async fn send_bot_media(
    ports: &Ports,
    scope: TenantScope,
    ticket: &Ticket,
    media: BotMedia,
) -> Result<Message> {
    let message = ports
        .messages
        .create(
            scope,
            &NewMessage {
                media_type: media.media_type,
                media_path: Some(media.stored_name),
                media_name: Some(media.file_name.clone()),
                ..NewMessage::text(ticket.id, "")
            },
        )
        .await?;
    deliver_outbound(
        ports,
        scope,
        ticket,
        message,
        OutboundContent::Media {
            media: ChannelMedia {
                media_type: media.media_type,
                file_name: media.file_name,
                mime_type: media.mime_type,
                bytes: media.bytes,
            },
            caption: String::new(),
        },
        None,
        None,
    )
    .await
}

async fn send_text_as(
    ports: &Ports,
    scope: TenantScope,
    ticket: &Ticket,
    body: &str,
    user: Option<UserId>,
) -> Result<Message> {
    let message = ports
        .messages
        .create(
            scope,
            &NewMessage {
                user_id: user,
                ..NewMessage::text(ticket.id, body)
            },
        )
        .await?;
    deliver_outbound(
        ports,
        scope,
        ticket,
        message,
        OutboundContent::Text {
            body: body.to_owned(),
        },
        None,
        None,
    )
    .await
}

/// Loads a message and its ticket, both visible to the actor.
async fn visible_message(ports: &Ports, actor: &Actor, id: MessageId) -> Result<(Message, Ticket)> {
    let message = ports
        .messages
        .get(actor.scope(), id)
        .await?
        .ok_or_else(|| Error::new(ErrorCode::ERR_NOT_FOUND))?;
    let ticket = visible(ports, actor, message.ticket_id)
        .await
        .map_err(|_| Error::new(ErrorCode::ERR_NOT_FOUND))?;
    Ok((message, ticket))
}

/// Edits one's own message within 15 minutes (`POST /messages/edit/{id}`).
#[tracing::instrument(level = "debug", name = "inbox.messages::edit", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0, message = id.0))]
pub async fn edit(
    ports: &Ports,
    actor: &Actor,
    id: MessageId,
    body: &str,
    now: DateTime<Utc>,
) -> Result<Message> {
    validate_body(body, false)?;
    let (message, ticket) = visible_message(ports, actor, id).await?;
    may_edit(actor, ticket.company_id, &message, now)?;
    if let (Some(external), Some(connection)) = (&message.external_id, ticket.whatsapp_id)
        && let Some(c) = ports.connections.get(actor.scope(), connection).await?
    {
        ports
            .channels
            .get(c.provider)?
            .edit(
                actor.scope(),
                connection,
                &ticket.contact.number,
                external,
                body,
            )
            .await?;
    }
    ports
        .messages
        .edit(actor.scope(), id, body)
        .await?
        .ok_or_else(|| Error::new(ErrorCode::ERR_NOT_FOUND))
}

/// Deletes one's own message for everyone (`DELETE /messages/{id}`).
#[tracing::instrument(level = "debug", name = "inbox.messages::delete", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0, message = id.0))]
pub async fn delete(ports: &Ports, actor: &Actor, id: MessageId) -> Result<Message> {
    let (message, ticket) = visible_message(ports, actor, id).await?;
    may_delete(actor, ticket.company_id, &message)?;
    if let (Some(external), Some(connection)) = (&message.external_id, ticket.whatsapp_id)
        && let Some(c) = ports.connections.get(actor.scope(), connection).await?
    {
        ports
            .channels
            .get(c.provider)?
            .delete(actor.scope(), connection, &ticket.contact.number, external)
            .await
            .map_err(|_| Error::new(ErrorCode::ERR_DELETE_WAPP_MSG))?;
    }
    ports
        .messages
        .mark_deleted(actor.scope(), id)
        .await?
        .ok_or_else(|| Error::new(ErrorCode::ERR_NOT_FOUND))
}

/// Sets the company side's reaction on a message (`POST /messages/{id}/react`; empty removes).
#[tracing::instrument(level = "debug", name = "inbox.messages::react", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0, message = id.0))]
pub async fn react(ports: &Ports, actor: &Actor, id: MessageId, emoji: &str) -> Result<Message> {
    if emoji.chars().count() > 8 {
        return Err(Error::with_detail(ErrorCode::ERR_VALIDATION, "one emoji"));
    }
    let (message, ticket) = visible_message(ports, actor, id).await?;
    if let (Some(external), Some(connection)) = (&message.external_id, ticket.whatsapp_id)
        && let Some(c) = ports.connections.get(actor.scope(), connection).await?
        && let Ok(provider) = ports.channels.get(c.provider)
    {
        provider
            .react(
                actor.scope(),
                connection,
                &ticket.contact.number,
                external,
                message.from_me,
                emoji,
            )
            .await?;
    }
    ports
        .messages
        .react(actor.scope(), id, emoji, true)
        .await?
        .ok_or_else(|| Error::new(ErrorCode::ERR_NOT_FOUND))
}

/// Forwards messages to a contact (`POST /message/forward`): the first at once, the others as
/// one durable chain of jobs, each copy
/// [`FORWARD_SPACING_MS`](crate::inbox::messages::FORWARD_SPACING_MS) after the one before
/// ([`crate::jobs::follow_ups`]), so a restart neither loses nor repeats them, only one server
/// sends each, and a late worker never sends two at once. Every message is
/// checked up front (the actor may see it); returns the first copy and how many were queued.
#[tracing::instrument(level = "debug", name = "inbox.messages::forward_many", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0, contact = contact.0))]
pub async fn forward_many(
    ports: &Ports,
    actor: &Actor,
    ids: &[MessageId],
    contact: ContactId,
    sign: bool,
) -> Result<(Message, usize)> {
    let Some((&first, rest)) = ids.split_first() else {
        return Err(Error::new(ErrorCode::ERR_VALIDATION));
    };
    for id in rest {
        visible_message(ports, actor, *id).await?;
    }
    let message = forward(ports, actor, first, contact, sign).await?;
    let chain = crate::jobs::forward_chain(actor.user_id, contact, sign, rest, ports.clock.now());
    if let Some(job) = chain {
        ports.jobs.enqueue(actor.scope(), &[job]).await?;
    }
    Ok((message, rest.len()))
}

/// Forwards one message to a contact (`POST /message/forward`): to the contact's active ticket
/// on the original connection, or a new ticket opened for the actor. The caller spaces several
/// forwards by [`crate::inbox::messages::FORWARD_SPACING_MS`].
#[tracing::instrument(level = "debug", name = "inbox.messages::forward", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0, message = id.0, contact = contact.0))]
pub async fn forward(
    ports: &Ports,
    actor: &Actor,
    id: MessageId,
    contact: ContactId,
    sign: bool,
) -> Result<Message> {
    let scope = actor.scope();
    let (original, from) = visible_message(ports, actor, id).await?;
    let target = match ports
        .tickets
        .active_for_contact(scope, contact, from.whatsapp_id)
        .await?
    {
        Some(t) => t,
        None => {
            let input = tickets::CreateTicket {
                contact_id: contact,
                queue_id: from.queue_id,
                whatsapp_id: from.whatsapp_id,
                user_id: Some(actor.user_id),
                status: None,
            };
            let created = tickets::create(ports, actor, &input).await?;
            visible(ports, actor, created.id).await?
        }
    };
    let media_path = ports.messages.media_path(scope, id).await?;
    let media = match &media_path {
        Some(path) => ports.media.get(scope, path).await?,
        None => None,
    };
    let stored = ports.settings.company_settings(scope).await?;
    let map = to_map(&stored);
    let company_signs = SettingsView::new(&map).is_enabled("sendSignMessage");
    let name = ports
        .users
        .get(scope, actor.user_id)
        .await?
        .map(|u| u.name)
        .unwrap_or_default();
    let mut copy = crate::inbox::messages::forwarded(actor, &original, media_path, target.id);
    if !copy.body.trim().is_empty() {
        copy.body = signed_body(&copy.body, &name, company_signs, sign);
    }
    let body = copy.body.clone();
    let message = ports.messages.create(scope, &copy).await?;
    let content = match media {
        Some(bytes) => OutboundContent::Media {
            media: ChannelMedia {
                media_type: original.media_type,
                file_name: original.media_name.clone().unwrap_or_else(|| "file".into()),
                mime_type: "application/octet-stream".into(),
                bytes,
            },
            caption: body,
        },
        None => OutboundContent::Text { body },
    };
    deliver_outbound(ports, scope, &target, message, content, None, None).await
}

/// A message's media (`GET /messages/{id}/media`): `(file name, bytes)`; `ERR_NOT_FOUND` for
/// another company's message or one without media.
#[tracing::instrument(level = "debug", name = "inbox.messages::media", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0, message = id.0))]
pub async fn media(ports: &Ports, actor: &Actor, id: MessageId) -> Result<(String, Vec<u8>)> {
    let (message, _) = visible_message(ports, actor, id).await?;
    let path = ports
        .messages
        .media_path(actor.scope(), id)
        .await?
        .ok_or_else(|| Error::new(ErrorCode::ERR_NOT_FOUND))?;
    let bytes = ports
        .media
        .get(actor.scope(), &path)
        .await?
        .ok_or_else(|| Error::new(ErrorCode::ERR_NOT_FOUND))?;
    Ok((message.media_name.unwrap_or(path), bytes))
}

/// Tries again to download a received attachment that could not be had when its message
/// arrived (`POST /messages/{id}/media/retry`): through the provider of the message's
/// connection; on success the file is stored and the message shows it (its update event goes
/// out). A message whose file is there already is answered as it is. `ERR_WAPP_DOWNLOAD_MEDIA`
/// when it fails again (the message keeps its error and can be tried later);
/// `ERR_WAPP_NOT_INITIALIZED` when the session is not connected here.
#[tracing::instrument(level = "debug", name = "inbox.messages::retry_media", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0, message = id.0))]
pub async fn retry_media(ports: &Ports, actor: &Actor, id: MessageId) -> Result<Message> {
    let scope = actor.scope();
    let (message, ticket) = visible_message(ports, actor, id).await?;
    let Some(mut failed) = ports.messages.failed_media(scope, id).await? else {
        return Ok(message);
    };
    let connection = ticket
        .whatsapp_id
        .ok_or_else(|| Error::new(ErrorCode::ERR_NO_WAPP_FOUND))?;
    let provider = ports
        .connections
        .get(scope, connection)
        .await?
        .ok_or_else(|| Error::new(ErrorCode::ERR_NO_WAPP_FOUND))?
        .provider;
    failed.locator = ports.secrets.open(&failed.locator)?;
    let media = ports
        .channels
        .get(provider)?
        .download_media(scope, connection, &failed)
        .await?;
    let path = ports
        .media
        .put(scope, &media.file_name, &media.bytes)
        .await?;
    ports
        .messages
        .media_recovered(scope, id, &path)
        .await?
        .ok_or_else(|| Error::new(ErrorCode::ERR_NOT_FOUND))
}

/// How many messages in a range (`GET /messages-allMe`).
#[tracing::instrument(level = "debug", name = "inbox.messages::count", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0))]
pub async fn count(
    ports: &Ports,
    actor: &Actor,
    from_me: Option<bool>,
    from: Option<DateTime<Utc>>,
    to: Option<DateTime<Utc>>,
) -> Result<i64> {
    ports.messages.count(actor.scope(), from_me, from, to).await
}
