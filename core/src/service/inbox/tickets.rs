//! Tickets (`/tickets`, `/tickets-log`, `/ticket-notes`): the inbox list, opening a ticket,
//! creating one by hand, every transition through the core state machine
//! ([`crate::ticket::apply`]), deleting, closing all, logs and notes.
//!
//! A ticket the actor may not see ([`crate::inbox::visibility::may_see_ticket`]) answers
//! `ERR_NO_TICKET_FOUND`, exactly like one that does not exist, so nothing about it leaks.
//! Numbers are masked for plain users under LGPD ([`crate::inbox::lgpd`]).

use crate::error::{Error, ErrorCode, Result};
use crate::events::RecipientSettings;
use crate::identity::Actor;
use crate::ids::{ContactId, QueueId, TenantScope, TicketId, UserId, WhatsappId};
use crate::inbox::lgpd;
use crate::inbox::model::{
    KeysetPage, NewTicket, PageStart, Ticket, TicketLogEntry, TicketNote, TicketQuery,
};
use crate::inbox::visibility::{may_see_ticket, ticket_filter};
use crate::policy::{self, Action};
use crate::service::Ports;
use crate::settings::{SettingsView, to_map};
use crate::ticket::{self, Command, Context, Effect, TicketStatus};

/// How many times a transition is retried when another writer changed the ticket meanwhile.
const TRANSITION_ATTEMPTS: usize = 3;

/// The recipient settings (LGPD) of the actor's company.
#[tracing::instrument(level = "debug", name = "inbox.tickets::recipient_settings", skip_all, fields(company = scope.company_id().0))]
pub async fn recipient_settings(ports: &Ports, scope: TenantScope) -> Result<RecipientSettings> {
    let stored = ports.settings.company_settings(scope).await?;
    Ok(RecipientSettings::from_company_settings(&stored))
}

/// `ticket` as `actor` may receive it (LGPD masking).
pub fn masked(actor: &Actor, settings: RecipientSettings, ticket: &Ticket) -> Ticket {
    lgpd::ticket_for(actor, settings, ticket)
}

/// The inbox (`GET /tickets`): the query narrowed to what the actor may see, keyset-paginated.
#[tracing::instrument(level = "debug", name = "inbox.tickets::list", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0))]
pub async fn list(
    ports: &Ports,
    actor: &Actor,
    query: &TicketQuery,
    start: &PageStart,
    page_size: u32,
) -> Result<KeysetPage<Ticket>> {
    let scope = actor.scope();
    let filter = ticket_filter(actor, query);
    let mut page = ports.tickets.list(scope, &filter, start, page_size).await?;
    let settings = match page.seq {
        Some(seq) => RecipientSettings::from_company_settings(
            &ports.settings.company_settings_at(scope, seq).await?,
        ),
        None => recipient_settings(ports, scope).await?,
    };
    page.items = page
        .items
        .iter()
        .map(|t| masked(actor, settings, t))
        .collect();
    Ok(page)
}

/// Loads a ticket the actor may see (unmasked; for use cases).
#[tracing::instrument(level = "debug", name = "inbox.tickets::visible", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0, ticket = id.0))]
pub async fn visible(ports: &Ports, actor: &Actor, id: TicketId) -> Result<Ticket> {
    let ticket = ports
        .tickets
        .get(actor.scope(), id)
        .await?
        .filter(|t| may_see_ticket(actor, t))
        .ok_or_else(|| Error::new(ErrorCode::ERR_NO_TICKET_FOUND))?;
    Ok(ticket)
}

/// One ticket (`GET /tickets/{id}`), masked for the actor.
#[tracing::instrument(level = "debug", name = "inbox.tickets::get", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0, ticket = id.0))]
pub async fn get(ports: &Ports, actor: &Actor, id: TicketId) -> Result<Ticket> {
    let ticket = visible(ports, actor, id).await?;
    let settings = recipient_settings(ports, actor.scope()).await?;
    Ok(masked(actor, settings, &ticket))
}

/// One ticket by uuid (`GET /tickets/u/{uuid}`), masked for the actor.
#[tracing::instrument(level = "debug", name = "inbox.tickets::get_by_uuid", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0))]
pub async fn get_by_uuid(ports: &Ports, actor: &Actor, uuid: uuid::Uuid) -> Result<Ticket> {
    let ticket = ports
        .tickets
        .get_by_uuid(actor.scope(), uuid)
        .await?
        .filter(|t| may_see_ticket(actor, t))
        .ok_or_else(|| Error::new(ErrorCode::ERR_NO_TICKET_FOUND))?;
    let settings = recipient_settings(ports, actor.scope()).await?;
    Ok(masked(actor, settings, &ticket))
}

/// What `POST /tickets` asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CreateTicket {
    pub contact_id: ContactId,
    pub queue_id: Option<QueueId>,
    pub whatsapp_id: Option<WhatsappId>,
    pub user_id: Option<UserId>,
    pub status: Option<TicketStatus>,
}

/// Opens a ticket by hand for a contact on a connection (the company's default when none is
/// named). With an owner the ticket starts `open` (`group` for a group contact), else `pending`.
/// `ERR_OTHER_OPEN_TICKET` when the contact already has a ticket that is not closed on that
/// connection: [`active_for`] finds it for the 409 body.
#[tracing::instrument(level = "debug", name = "inbox.tickets::create", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0))]
pub async fn create(ports: &Ports, actor: &Actor, input: &CreateTicket) -> Result<Ticket> {
    let scope = actor.scope();
    let contact = ports
        .contacts
        .get(scope, input.contact_id)
        .await?
        .ok_or_else(|| Error::new(ErrorCode::ERR_NO_CONTACT_FOUND))?;
    let connection = match input.whatsapp_id {
        Some(id) => ports
            .connections
            .get(scope, id)
            .await?
            .ok_or_else(|| Error::new(ErrorCode::ERR_NO_WAPP_FOUND))?,
        None => super::connections::default_in(ports, scope).await?,
    };
    if let Some(queue) = input.queue_id {
        ensure_company_queue(ports, scope, queue).await?;
    }
    let owner = match input.status {
        Some(TicketStatus::Pending) => None,
        _ => Some(input.user_id.unwrap_or(actor.user_id)),
    };
    if let Some(owner) = owner
        && owner != actor.user_id
    {
        policy::authorize(actor, &Action::ShowAllTickets(actor.company_id))?;
        if ports.users.get(scope, owner).await?.is_none() {
            return Err(Error::new(ErrorCode::ERR_NO_USER_FOUND));
        }
    }
    let status = match (owner, contact.is_group) {
        (None, _) => TicketStatus::Pending,
        (Some(_), true) => TicketStatus::Group,
        (Some(_), false) => TicketStatus::Open,
    };
    let new = NewTicket {
        contact_id: contact.id,
        whatsapp_id: Some(connection.id),
        queue_id: input.queue_id,
        user_id: owner,
        status,
        is_group: contact.is_group,
        channel: connection.channel,
    };
    let ticket = ports.tickets.create(scope, &new, ports.ids.uuid()).await?;
    let settings = recipient_settings(ports, scope).await?;
    Ok(masked(actor, settings, &ticket))
}

/// Refuses (`ERR_VALIDATION`) a queue that is not the scope's company's.
#[tracing::instrument(level = "debug", name = "inbox.tickets::ensure_company_queue", skip_all, fields(company = scope.company_id().0, queue = queue.0))]
pub async fn ensure_company_queue(ports: &Ports, scope: TenantScope, queue: QueueId) -> Result<()> {
    if ports
        .queues
        .list(scope)
        .await?
        .iter()
        .any(|q| q.id == queue)
    {
        Ok(())
    } else {
        Err(Error::with_detail(
            ErrorCode::ERR_VALIDATION,
            "the queue is not the company's",
        ))
    }
}

/// Refuses (`ERR_NO_USER_FOUND`) a user that is not the scope's company's.
#[tracing::instrument(level = "debug", name = "inbox.tickets::ensure_company_user", skip_all, fields(company = scope.company_id().0, user = user.0))]
pub async fn ensure_company_user(ports: &Ports, scope: TenantScope, user: UserId) -> Result<()> {
    match ports.users.get(scope, user).await? {
        Some(_) => Ok(()),
        None => Err(Error::new(ErrorCode::ERR_NO_USER_FOUND)),
    }
}

/// The contact's ticket that is not closed on that connection (the default one when `None`).
#[tracing::instrument(level = "debug", name = "inbox.tickets::active_for", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0, contact = contact.0))]
pub async fn active_for(
    ports: &Ports,
    actor: &Actor,
    contact: ContactId,
    whatsapp: Option<WhatsappId>,
) -> Result<Option<Ticket>> {
    let scope = actor.scope();
    let whatsapp = match whatsapp {
        Some(id) => Some(id),
        None => super::connections::default_in(ports, scope)
            .await
            .ok()
            .map(|c| c.id),
    };
    ports
        .tickets
        .active_for_contact(scope, contact, whatsapp)
        .await
}

/// What `PUT /tickets/{id}` asks for.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UpdateTicket {
    pub status: Option<TicketStatus>,
    pub user_id: Option<UserId>,
    pub queue_id: Option<QueueId>,
    /// The attendant's transfer note for the contact.
    pub msg_transfer: Option<String>,
    pub send_farewell_message: Option<bool>,
    pub use_integration: Option<bool>,
}

/// The state-machine command an update asks for, given the ticket's current state.
pub fn command_for(
    current: &ticket::TicketState,
    me: UserId,
    input: &UpdateTicket,
) -> Option<Command> {
    let moves_queue = input.queue_id.is_some() && input.queue_id != current.queue_id;
    let moves_user =
        input.user_id.is_some() && input.user_id != current.user_id && input.user_id != Some(me);
    let closed = current.status == TicketStatus::Closed;
    if !closed && (moves_queue || moves_user) && input.status != Some(TicketStatus::Closed) {
        return Some(Command::Transfer {
            to_user: input.user_id,
            to_queue: input.queue_id.or(current.queue_id),
            message: input.msg_transfer.clone(),
        });
    }
    match (input.status?, current.status) {
        (TicketStatus::Open | TicketStatus::Group, TicketStatus::Closed) => Some(Command::Reopen),
        (TicketStatus::Open | TicketStatus::Group, _) => Some(Command::Accept),
        (TicketStatus::Pending, _) => Some(Command::ReturnToQueue),
        (TicketStatus::Closed, TicketStatus::Pending | TicketStatus::Lgpd)
            if input.send_farewell_message != Some(true) =>
        {
            Some(Command::Ignore)
        }
        (TicketStatus::Closed, _) => Some(Command::Resolve {
            send_farewell: input.send_farewell_message.unwrap_or(true),
        }),
        _ => None,
    }
}

/// Updates a ticket (`PUT /tickets/{id}`): a transition through the state machine, saved with
/// the optimistic check (retried when another writer won), then its effects (greeting,
/// farewell, transfer notice sent to the contact as outbound messages). `useIntegration` alone
/// just sets the flag.
#[tracing::instrument(level = "debug", name = "inbox.tickets::update", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0, ticket = id.0))]
pub async fn update(
    ports: &Ports,
    actor: &Actor,
    id: TicketId,
    input: &UpdateTicket,
) -> Result<Ticket> {
    let scope = actor.scope();
    let ticket = visible(ports, actor, id).await?;
    // Foreign ids are the company's or the update is refused, as on `POST /tickets`.
    if let Some(queue) = input.queue_id {
        ensure_company_queue(ports, scope, queue).await?;
    }
    if let Some(user) = input.user_id {
        ensure_company_user(ports, scope, user).await?;
    }
    if let Some(on) = input.use_integration {
        ports.tickets.set_use_integration(scope, id, on).await?;
    }
    let mut last_error = None;
    for _ in 0..TRANSITION_ATTEMPTS {
        let row = ports
            .tickets
            .row(scope, id)
            .await?
            .ok_or_else(|| Error::new(ErrorCode::ERR_NO_TICKET_FOUND))?;
        let Some(command) = command_for(&row.state, actor.user_id, input) else {
            return get(ports, actor, id).await;
        };
        let stored = ports.settings.company_settings(scope).await?;
        let map = to_map(&stored);
        let view = SettingsView::new(&map);
        let connection = match row.whatsapp_id {
            Some(w) => ports.connections.get(scope, w).await?,
            None => None,
        };
        let user = ports.users.get(scope, actor.user_id).await?;
        let farewell = user
            .as_ref()
            .and_then(|u| u.farewell_message.clone())
            .filter(|f| !f.trim().is_empty())
            .or_else(|| connection.as_ref().map(|c| c.complation_message.clone()))
            .unwrap_or_default();
        let mut ctx = Context::new(actor).with_settings(&view);
        ctx.contact_tag_count = ticket.contact.tags.len();
        ctx.group_as_ticket = connection.as_ref().is_some_and(|c| c.group_as_ticket);
        ctx.farewell_message = &farewell;
        let transition = ticket::apply(&row.state, &command, &ctx)?;
        let logs: Vec<_> = transition
            .effects
            .iter()
            .filter_map(|e| match e {
                Effect::Log(log) => Some(*log),
                _ => None,
            })
            .collect();
        match ports
            .tickets
            .save_transition(
                scope,
                id,
                &row.state,
                &transition.state,
                &logs,
                Some(actor.user_id),
            )
            .await?
        {
            Some(saved) => {
                for effect in &transition.effects {
                    let text = match effect {
                        Effect::SendGreeting(t)
                        | Effect::SendFarewell(t)
                        | Effect::SendTransferMessage(t) => t,
                        _ => continue,
                    };
                    let body = render(text, &saved, user.as_ref().map(|u| u.name.as_str()));
                    // The transition is committed; a failed automatic message does not undo it.
                    let _ =
                        super::messages::send_automatic(ports, scope, &saved, &body, actor.user_id)
                            .await;
                }
                let settings = recipient_settings(ports, scope).await?;
                return Ok(masked(actor, settings, &saved));
            }
            None => {
                last_error = Some(Error::with_detail(
                    ErrorCode::ERR_INVALID_TICKET_TRANSITION,
                    "the ticket changed meanwhile; reload it",
                ));
            }
        }
    }
    Err(last_error.unwrap_or_else(|| Error::new(ErrorCode::ERR_INVALID_TICKET_TRANSITION)))
}

/// Fills the variables of an automatic message ([`crate::inbox::variables`]): `{{name}}`,
/// `{{firstName}}`, `{{queue}}`, `{{user}}`, `{{protocol}}` (the ticket id).
pub fn render(text: &str, ticket: &Ticket, user: Option<&str>) -> String {
    crate::inbox::variables::fill(text, &crate::inbox::variables::Variables::of(ticket, user))
}

/// Deletes a ticket (`DELETE /tickets/{id}`): `ticket-options:deleteTicket`.
#[tracing::instrument(level = "debug", name = "inbox.tickets::delete", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0, ticket = id.0))]
pub async fn delete(ports: &Ports, actor: &Actor, id: TicketId) -> Result<()> {
    policy::authorize(actor, &Action::DeleteTicket(actor.company_id))?;
    visible(ports, actor, id).await?;
    if ports.tickets.delete(actor.scope(), id).await? {
        Ok(())
    } else {
        Err(Error::new(ErrorCode::ERR_NO_TICKET_FOUND))
    }
}

/// Marks a ticket the actor may see as read (`POST /tickets/{id}/read`): the web app calls it
/// when a message arrives in the ticket it shows, so the unread count and the notification bell
/// follow what the attendant is looking at. Emits `updateUnread` only when something was unread.
#[tracing::instrument(level = "debug", name = "inbox.tickets::mark_read", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0, ticket = id.0))]
pub async fn mark_read(ports: &Ports, actor: &Actor, id: TicketId) -> Result<()> {
    let ticket = visible(ports, actor, id).await?;
    if ticket.unread_messages > 0
        && let Some(read) = ports.tickets.reset_unread(actor.scope(), id).await?
    {
        read_on_channel(ports, actor.scope(), &ticket, &read).await;
    }
    Ok(())
}

/// Tells the ticket's channel that the contact's messages `read` were read (the blue ticks on
/// the contact's phone). Best effort: the read stands in the inbox whatever the channel answers
/// (a session that is down, a channel that cannot say it); a failure is logged.
pub(crate) async fn read_on_channel(
    ports: &Ports,
    scope: TenantScope,
    ticket: &Ticket,
    read: &[crate::inbox::channel::ReadMessage],
) {
    let Some(connection) = ticket.whatsapp_id else {
        return;
    };
    if read.is_empty() {
        return;
    }
    let provider = match ports.connections.get(scope, connection).await {
        Ok(Some(found)) => ports.channels.get(found.provider),
        _ => return,
    };
    let Ok(provider) = provider else {
        return;
    };
    if let Err(error) = provider
        .mark_read(scope, connection, &ticket.contact.number, read)
        .await
    {
        tracing::debug!(
            company = scope.company_id().0,
            ticket = ticket.id.0,
            %error,
            "the channel was not told the messages were read"
        );
    }
}

/// Closes every ticket of `status` in the selected queues (`POST /tickets/closeAll`); an empty
/// selection means every queue. Returns how many were closed.
#[tracing::instrument(level = "debug", name = "inbox.tickets::close_all", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0))]
pub async fn close_all(
    ports: &Ports,
    actor: &Actor,
    status: TicketStatus,
    selected_queues: &[QueueId],
) -> Result<u64> {
    policy::authorize(actor, &Action::CloseAllTickets(actor.company_id))?;
    if status == TicketStatus::Closed {
        return Err(Error::with_detail(
            ErrorCode::ERR_VALIDATION,
            "closed tickets cannot be closed again",
        ));
    }
    let query = TicketQuery {
        statuses: vec![status],
        queue_ids: selected_queues.to_vec(),
        show_all: true,
        ..TicketQuery::default()
    };
    let mut filter = ticket_filter(actor, &query);
    // Closing the tickets of named queues closes those queues' tickets only, not the ones still
    // waiting for a queue that a list of those queues also shows.
    if !selected_queues.is_empty() {
        filter.include_no_queue = false;
    }
    ports
        .tickets
        .close_all(actor.scope(), &filter, actor.user_id)
        .await
}

/// [`close_all`] run by the platform for one company (`chatflow tickets close-all`): it acts as
/// the company's first admin, whom the tickets' `closed` logs name, so the same policy, filter
/// and logs apply as for `POST /tickets/closeAll`. `ERR_NO_COMPANY_FOUND` for an unknown
/// company, `ERR_NO_USER_FOUND` when the company has no admin.
#[tracing::instrument(level = "debug", name = "inbox.tickets::close_all_in_company", skip_all, fields(company = scope.company_id().0))]
pub async fn close_all_in_company(
    ports: &Ports,
    scope: TenantScope,
    status: TicketStatus,
    selected_queues: &[QueueId],
) -> Result<u64> {
    ports
        .companies
        .get(scope)
        .await?
        .ok_or(ErrorCode::ERR_NO_COMPANY_FOUND)?;
    let admin = ports
        .users
        .list_all(scope)
        .await?
        .into_iter()
        .filter(|u| u.profile == crate::identity::Profile::Admin)
        .min_by_key(|u| u.id.0)
        .ok_or_else(|| {
            Error::with_detail(ErrorCode::ERR_NO_USER_FOUND, "the company has no admin")
        })?;
    close_all(ports, &Actor::of(&admin), status, selected_queues).await
}

/// A ticket's log (`GET /tickets-log/{ticketId}`).
#[tracing::instrument(level = "debug", name = "inbox.tickets::logs", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0, ticket = id.0))]
pub async fn logs(ports: &Ports, actor: &Actor, id: TicketId) -> Result<Vec<TicketLogEntry>> {
    visible(ports, actor, id).await?;
    ports.tickets.logs(actor.scope(), id).await
}

/// Notes of a ticket or a contact (`GET /ticket-notes/list`).
#[tracing::instrument(level = "debug", name = "inbox.tickets::notes", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0))]
pub async fn notes(
    ports: &Ports,
    actor: &Actor,
    ticket: Option<TicketId>,
    contact: Option<ContactId>,
) -> Result<Vec<TicketNote>> {
    if let Some(t) = ticket {
        visible(ports, actor, t).await?;
    }
    ports.tickets.notes(actor.scope(), ticket, contact).await
}

/// Adds a note to a ticket (`POST /ticket-notes`); empty notes are refused.
#[tracing::instrument(level = "debug", name = "inbox.tickets::add_note", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0, ticket = ticket.0))]
pub async fn add_note(
    ports: &Ports,
    actor: &Actor,
    ticket: TicketId,
    note: &str,
) -> Result<TicketNote> {
    if note.trim().is_empty() {
        return Err(Error::with_detail(
            ErrorCode::ERR_VALIDATION,
            "the note is empty",
        ));
    }
    if note.trim().chars().count() > crate::validation::NOTE_MAX_CHARS {
        return Err(Error::with_detail(
            ErrorCode::ERR_VALIDATION,
            format!(
                "a note holds at most {} characters",
                crate::validation::NOTE_MAX_CHARS
            ),
        ));
    }
    visible(ports, actor, ticket).await?;
    ports
        .tickets
        .add_note(actor.scope(), ticket, actor.user_id, note.trim())
        .await?
        .ok_or_else(|| Error::new(ErrorCode::ERR_NO_TICKET_FOUND))
}

/// Deletes a note (`DELETE /ticket-notes/{id}`).
#[tracing::instrument(level = "debug", name = "inbox.tickets::delete_note", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0, id = id))]
pub async fn delete_note(ports: &Ports, actor: &Actor, id: i64) -> Result<()> {
    if ports.tickets.delete_note(actor.scope(), id).await? {
        Ok(())
    } else {
        Err(Error::new(ErrorCode::ERR_NOT_FOUND))
    }
}
