//! The company's inbound failures (`/inbound-failures`, `chatflow inbound-failures`): inbound
//! events a channel delivered that could not be stored and were set aside
//! ([`crate::inbox::inbound`]). Admins list them, retry one (delivered again; on success it
//! leaves the list) or discard one.

use crate::error::{Error, ErrorCode, Result};
use crate::identity::Actor;
use crate::ids::TenantScope;
use crate::inbox::channel::InboundEvent;
use crate::inbox::inbound::{InboundFailure, InboundFailurePage};
use crate::policy::{Action, authorize};
use crate::service::Ports;

/// Failures per page.
pub const PAGE_SIZE: u32 = 20;

fn without_file_bytes(mut failure: InboundFailure) -> InboundFailure {
    if let InboundEvent::Message(m) = &mut failure.event
        && let Some(media) = &mut m.media
    {
        media.bytes.clear();
    }
    failure
}

/// Page `page_number` (from 1) of the company's failures, newest first; file bytes are left out.
#[tracing::instrument(level = "debug", name = "inbox.inbound_failures::page", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0))]
pub async fn page(ports: &Ports, actor: &Actor, page_number: u32) -> Result<InboundFailurePage> {
    authorize(actor, &Action::ManageInboundFailures(actor.company_id))?;
    page_in_company(ports, actor.scope(), page_number).await
}

/// [`page`] for the platform's operator (the CLI), in the company of `scope`.
#[tracing::instrument(level = "debug", name = "inbox.inbound_failures::page_in_company", skip_all, fields(company = scope.company_id().0))]
pub async fn page_in_company(
    ports: &Ports,
    scope: TenantScope,
    page_number: u32,
) -> Result<InboundFailurePage> {
    let offset = page_number
        .max(1)
        .saturating_sub(1)
        .saturating_mul(PAGE_SIZE);
    let mut page = ports
        .inbound_failures
        .list(scope, offset, PAGE_SIZE)
        .await?;
    page.failures = page.failures.into_iter().map(without_file_bytes).collect();
    Ok(page)
}

/// Delivers a kept event again. Delivered: it leaves the list (`None`). Failed again: the
/// attempt is recorded and the failure returned as it is now.
#[tracing::instrument(level = "debug", name = "inbox.inbound_failures::retry", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0, id = id))]
pub async fn retry(ports: &Ports, actor: &Actor, id: i64) -> Result<Option<InboundFailure>> {
    authorize(actor, &Action::ManageInboundFailures(actor.company_id))?;
    retry_in_company(ports, actor.scope(), id).await
}

/// [`retry`] for the platform's operator (the CLI), in the company of `scope`.
#[tracing::instrument(level = "debug", name = "inbox.inbound_failures::retry_in_company", skip_all, fields(company = scope.company_id().0, id = id))]
pub async fn retry_in_company(
    ports: &Ports,
    scope: TenantScope,
    id: i64,
) -> Result<Option<InboundFailure>> {
    let failure = ports
        .inbound_failures
        .get(scope, id)
        .await?
        .ok_or_else(|| Error::new(ErrorCode::ERR_NOT_FOUND))?;
    match super::ingest::deliver(ports, scope, failure.whatsapp_id, failure.event).await {
        Ok(_) => {
            ports.inbound_failures.delete(scope, id).await?;
            Ok(None)
        }
        Err(error) => {
            ports
                .inbound_failures
                .record_attempt(scope, id, &error)
                .await?;
            Ok(ports
                .inbound_failures
                .get(scope, id)
                .await?
                .map(without_file_bytes))
        }
    }
}

/// Forgets a kept event.
#[tracing::instrument(level = "debug", name = "inbox.inbound_failures::discard", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0, id = id))]
pub async fn discard(ports: &Ports, actor: &Actor, id: i64) -> Result<()> {
    authorize(actor, &Action::ManageInboundFailures(actor.company_id))?;
    discard_in_company(ports, actor.scope(), id).await
}

/// [`discard`] for the platform's operator (the CLI), in the company of `scope`.
#[tracing::instrument(level = "debug", name = "inbox.inbound_failures::discard_in_company", skip_all, fields(company = scope.company_id().0, id = id))]
pub async fn discard_in_company(ports: &Ports, scope: TenantScope, id: i64) -> Result<()> {
    if ports.inbound_failures.delete(scope, id).await? {
        Ok(())
    } else {
        Err(Error::new(ErrorCode::ERR_NOT_FOUND))
    }
}
