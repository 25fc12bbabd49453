//! Scheduled and recurring messages (`/schedules`): the calls of the schedules page and the
//! ticket view's "schedule message" dialog, and the send a [`JobPayload::SendSchedule`] job makes
//! when it falls due. Every call needs a plan with `useSchedules` (`ERR_NO_PERMISSION`
//! otherwise). The rules are in [`crate::schedule`] and `docs/schedules.md`.
//!
//! [`JobPayload::SendSchedule`]: crate::jobs::JobPayload::SendSchedule

use crate::error::{Error, ErrorCode, Result};
use crate::identity::{Actor, Toggle};
use crate::ids::{ScheduleId, TenantScope};
use crate::inbox::model::{NewTicket, Ticket};
use crate::schedule::{
    self, NewSchedule, PAGE_SIZE, Schedule, ScheduleFilter, ScheduleInput, media_allowed,
};
use crate::service::Ports;
use crate::service::inbox::messages::{self, SendMessage, Upload};
use crate::settings::{SettingsView, to_map};
use crate::ticket::TicketStatus;

/// A page of `GET /schedules`: `{schedules, hasMore, count}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchedulePage {
    pub schedules: Vec<Schedule>,
    pub has_more: bool,
    pub count: i64,
}

/// Refuses unless the company's plan allows schedules.
async fn plan_allows(ports: &Ports, scope: TenantScope) -> Result<()> {
    if super::companies::plan_of(ports, scope)
        .await?
        .flags
        .use_schedules
    {
        Ok(())
    } else {
        Err(Error::with_detail(
            ErrorCode::ERR_NO_PERMISSION,
            "the company's plan does not include schedules",
        ))
    }
}

/// The company's time zone (setting `timezone`).
async fn time_zone(ports: &Ports, scope: TenantScope) -> Result<chrono_tz::Tz> {
    let stored = ports.settings.company_settings(scope).await?;
    let map = to_map(&stored);
    Ok(SettingsView::new(&map).time_zone())
}

/// A page of the company's schedules (`GET /schedules?searchParam=&pageNumber=&contactId=`).
#[tracing::instrument(level = "debug", name = "schedules::page", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0))]
pub async fn page(
    ports: &Ports,
    actor: &Actor,
    filter: &ScheduleFilter,
    page_number: u32,
) -> Result<SchedulePage> {
    plan_allows(ports, actor.scope()).await?;
    let offset = (page_number.max(1) - 1).saturating_mul(PAGE_SIZE);
    let (schedules, count) = ports
        .schedules
        .list(actor.scope(), filter, offset, PAGE_SIZE)
        .await?;
    Ok(SchedulePage {
        has_more: i64::from(offset) + (schedules.len() as i64) < count,
        schedules,
        count,
    })
}

/// One schedule (`GET /schedules/{id}`); `ERR_NOT_FOUND` when it is not the company's.
#[tracing::instrument(level = "debug", name = "schedules::get", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0, schedule = id.0))]
pub async fn get(ports: &Ports, actor: &Actor, id: ScheduleId) -> Result<Schedule> {
    plan_allows(ports, actor.scope()).await?;
    ports
        .schedules
        .get(actor.scope(), id)
        .await?
        .ok_or_else(|| ErrorCode::ERR_NOT_FOUND.into())
}

/// Checks an input against the rules and the company's rows (contact, connection, user, queue).
async fn checked(ports: &Ports, actor: &Actor, input: &ScheduleInput) -> Result<NewSchedule> {
    let scope = actor.scope();
    let (body, contact_id, send_at, recurrence) = schedule::validate(input, ports.clock.now())?;
    ports
        .contacts
        .get(scope, contact_id)
        .await?
        .ok_or(ErrorCode::ERR_NO_CONTACT_FOUND)?;
    let whatsapp_id = match input.whatsapp_id {
        Some(id) => {
            ports
                .connections
                .get(scope, id)
                .await?
                .ok_or(ErrorCode::ERR_NO_WAPP_FOUND)?
                .id
        }
        None => {
            super::inbox::connections::default_in(ports, scope)
                .await?
                .id
        }
    };
    if let Some(user) = input.ticket_user_id {
        ports
            .users
            .get(scope, user)
            .await?
            .ok_or(ErrorCode::ERR_NO_USER_FOUND)?;
    }
    if let Some(queue) = input.queue_id {
        super::inbox::tickets::ensure_company_queue(ports, scope, queue).await?;
    }
    Ok(NewSchedule {
        body,
        contact_id,
        send_at,
        open_ticket: input.open_ticket,
        ticket_user_id: input.ticket_user_id,
        queue_id: input.queue_id,
        status_ticket: input.status_ticket,
        whatsapp_id: Some(whatsapp_id),
        user_id: actor.user_id,
        assinar: input.assinar,
        recurrence,
    })
}

/// Creates a schedule (`POST /schedules`) and queues its first send, in one transaction.
#[tracing::instrument(level = "debug", name = "schedules::create", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0))]
pub async fn create(ports: &Ports, actor: &Actor, input: &ScheduleInput) -> Result<Schedule> {
    plan_allows(ports, actor.scope()).await?;
    let new = checked(ports, actor, input).await?;
    ports.schedules.create(actor.scope(), &new).await
}

/// Edits a schedule (`PUT /schedules/{id}`) while nothing was sent (status `PENDENTE`);
/// `ERR_VALIDATION` once a send was made, `ERR_NOT_FOUND` when it is not the company's.
#[tracing::instrument(level = "debug", name = "schedules::update", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0, schedule = id.0))]
pub async fn update(
    ports: &Ports,
    actor: &Actor,
    id: ScheduleId,
    input: &ScheduleInput,
) -> Result<Schedule> {
    let current = get(ports, actor, id).await?;
    let sent = || {
        Error::with_detail(
            ErrorCode::ERR_VALIDATION,
            "a schedule cannot be edited once it was sent",
        )
    };
    if current.status != schedule::ScheduleStatus::Pendente {
        return Err(sent());
    }
    let new = checked(ports, actor, input).await?;
    ports
        .schedules
        .update(actor.scope(), id, &new)
        .await?
        .ok_or_else(sent)
}

/// Deletes a schedule (`DELETE /schedules/{id}`); a queued send then does nothing.
#[tracing::instrument(level = "debug", name = "schedules::delete", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0, schedule = id.0))]
pub async fn delete(ports: &Ports, actor: &Actor, id: ScheduleId) -> Result<()> {
    plan_allows(ports, actor.scope()).await?;
    if ports.schedules.delete(actor.scope(), id).await? {
        Ok(())
    } else {
        Err(ErrorCode::ERR_NOT_FOUND.into())
    }
}

/// Attaches an image (`POST /schedules/{id}/media-upload`): png, jpg or jpeg only.
#[tracing::instrument(level = "debug", name = "schedules::upload_media", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0, schedule = id.0))]
pub async fn upload_media(
    ports: &Ports,
    actor: &Actor,
    id: ScheduleId,
    file_name: &str,
    bytes: &[u8],
) -> Result<Schedule> {
    let current = get(ports, actor, id).await?;
    if !media_allowed(file_name) {
        return Err(Error::validation(vec![crate::error::FieldError::new(
            "file",
            crate::error::FieldCode::InvalidFormat,
        )]));
    }
    let limit = crate::inbox::messages::media_limit(crate::inbox::model::MediaType::Image);
    if bytes.len() as u64 > limit {
        return Err(ErrorCode::ERR_PAYLOAD_TOO_LARGE.into());
    }
    let path = ports.media.put(actor.scope(), file_name, bytes).await?;
    ports
        .schedules
        .set_media(actor.scope(), current.id, Some((&path, file_name)))
        .await?
        .ok_or_else(|| ErrorCode::ERR_NOT_FOUND.into())
}

/// Removes the attachment (`DELETE /schedules/{id}/media-upload`).
#[tracing::instrument(level = "debug", name = "schedules::delete_media", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0, schedule = id.0))]
pub async fn delete_media(ports: &Ports, actor: &Actor, id: ScheduleId) -> Result<Schedule> {
    let current = get(ports, actor, id).await?;
    ports
        .schedules
        .set_media(actor.scope(), current.id, None)
        .await?
        .ok_or_else(|| ErrorCode::ERR_NOT_FOUND.into())
}

/// The send of `revision` fell due: claims it (a schedule edited, deleted or done since does
/// nothing), sends the body and the image on the contact's ticket as the scheduling user, and
/// records the outcome with the next send's job. A failed send is recorded as `ERRO` with its
/// reason; the job itself then succeeds, so it is not repeated.
///
/// A server that dies mid-send leaves the claim open ([`ScheduleRepo::send_claim`]); the job,
/// claimed again once its lease runs out, finds the claim made by its own revision and
/// **resumes** it instead of dropping it: the outbound message stored with the claim (in one
/// transaction) is sent again under its idempotency key, or recorded when it already reached
/// the channel. Errors of our own side (the store) fail the job, so it is retried and resumes.
///
/// [`ScheduleRepo::send_claim`]: crate::schedule::ScheduleRepo::send_claim
#[tracing::instrument(level = "debug", name = "schedules::on_send_due", skip_all, fields(company = scope.company_id().0, schedule = id.0))]
pub async fn on_send_due(
    ports: &Ports,
    scope: TenantScope,
    id: ScheduleId,
    revision: i64,
) -> Result<()> {
    let Some(current) = ports.schedules.get(scope, id).await? else {
        return Ok(());
    };
    if !current.status.is_waiting() {
        return Ok(());
    }
    let claimed = revision + 1;
    let open_claim = ports.schedules.send_claim(scope, id).await?;
    let resumed = current.revision == claimed && open_claim.is_some_and(|c| c.revision == claimed);
    if !resumed {
        if current.revision != revision {
            return Ok(());
        }
        if !ports.schedules.claim_send(scope, id, revision).await? {
            return Ok(());
        }
    }
    let message_id = if resumed {
        open_claim.and_then(|c| c.message_id)
    } else {
        None
    };
    let error = match send_claimed(ports, scope, &current, claimed, message_id).await {
        Ok(()) => None,
        // Our own side failed (the store, a lost race): the claim stays open for the retry.
        Err(e) if e.code == ErrorCode::ERR_INTERNAL => return Err(e),
        Err(e) => Some(match e.detail {
            Some(detail) => format!("{}: {detail}", e.code),
            None => e.code.to_string(),
        }),
    };
    let tz = time_zone(ports, scope).await?;
    let outcome = schedule::after_send(&current, ports.clock.now(), error, tz);
    ports
        .schedules
        .record_send(scope, id, claimed, &outcome)
        .await?;
    Ok(())
}

/// Sends the claimed occurrence `claimed` of a schedule, or finishes the one a crashed run
/// began (`message`: the outbound message stored with the claim).
async fn send_claimed(
    ports: &Ports,
    scope: TenantScope,
    schedule: &Schedule,
    claimed: i64,
    message: Option<crate::ids::MessageId>,
) -> Result<()> {
    let stored = match message {
        Some(id) => ports.messages.get(scope, id).await?,
        None => None,
    };
    match stored {
        // It reached the channel before the crash: nothing more to send.
        Some(m) if m.external_id.is_some() => Ok(()),
        Some(m) if m.is_deleted => Err(ErrorCode::ERR_SENDING_WAPP_MSG.into()),
        Some(m) => messages::redeliver(ports, scope, m).await.map(|_| ()),
        None => send(ports, scope, schedule, claimed).await,
    }
}

/// Sends one occurrence of a schedule: the message is stored with the claim, then sent.
async fn send(ports: &Ports, scope: TenantScope, schedule: &Schedule, claimed: i64) -> Result<()> {
    let user_id = schedule.user_id.ok_or(ErrorCode::ERR_NO_USER_FOUND)?;
    let user = ports
        .users
        .get(scope, user_id)
        .await?
        .ok_or(ErrorCode::ERR_NO_USER_FOUND)?;
    let actor = Actor::of(&user);
    let ticket = ticket_for(ports, &actor, schedule).await?;
    let media = match (&schedule.media_path, &schedule.media_name) {
        (Some(path), Some(name)) => {
            let bytes = ports
                .media
                .get(scope, path)
                .await?
                .ok_or(ErrorCode::ERR_WAPP_DOWNLOAD_MEDIA)?;
            Some(Upload {
                file_name: name.clone(),
                mime_type: crate::media::mime_of(name).to_owned(),
                bytes,
            })
        }
        _ => None,
    };
    let prepared = messages::prepare_send(
        ports,
        &actor,
        ticket.id,
        SendMessage {
            body: schedule.body.clone(),
            sign: schedule.assinar,
            media,
            ..SendMessage::default()
        },
    )
    .await?;
    let Some(message) = ports
        .schedules
        .attach_send_message(scope, schedule.id, claimed, &prepared.message)
        .await?
    else {
        return Err(Error::internal(
            "the schedule's claim moved while its message was stored",
        ));
    };
    messages::deliver_prepared(ports, scope, prepared, message)
        .await
        .map(|_| ())
}

/// The ticket a send goes to: the contact's ticket that is not closed on the schedule's
/// connection, or a new one — `open`, owned by `ticketUserId` (the scheduling user when none) in
/// `queueId` when `openTicket` is enabled; else with `statusTicket`, owned by the scheduling user.
async fn ticket_for(ports: &Ports, actor: &Actor, schedule: &Schedule) -> Result<Ticket> {
    let scope = actor.scope();
    if let Some(ticket) = ports
        .tickets
        .active_for_contact(scope, schedule.contact_id, schedule.whatsapp_id)
        .await?
    {
        return Ok(ticket);
    }
    let contact = ports
        .contacts
        .get(scope, schedule.contact_id)
        .await?
        .ok_or(ErrorCode::ERR_NO_CONTACT_FOUND)?;
    let connection = match schedule.whatsapp_id {
        Some(id) => ports
            .connections
            .get(scope, id)
            .await?
            .ok_or(ErrorCode::ERR_NO_WAPP_FOUND)?,
        None => super::inbox::connections::default_in(ports, scope).await?,
    };
    let (status, user_id, queue_id) = if schedule.open_ticket == Toggle::Enabled {
        (
            TicketStatus::Open,
            schedule.ticket_user_id.unwrap_or(actor.user_id),
            schedule.queue_id,
        )
    } else {
        (schedule.status_ticket, actor.user_id, None)
    };
    let new = NewTicket {
        contact_id: contact.id,
        whatsapp_id: Some(connection.id),
        queue_id,
        user_id: Some(user_id),
        status,
        is_group: contact.is_group,
        channel: connection.channel,
    };
    ports.tickets.create(scope, &new, ports.ids.uuid()).await
}
