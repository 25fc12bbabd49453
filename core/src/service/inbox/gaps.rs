//! Gaps after an outage (rules in [`crate::inbox::gaps`]): the outage recorded as sessions
//! change ([`on_session`]), the gap checked once the channel caught up ([`caught_up`], then the
//! `checkGap` job [`check`]), the phone's answers written into their conversations
//! ([`receive`]) and the connection's gap dismissed by an admin ([`dismiss`]).

use crate::error::{ErrorCode, Result};
use crate::identity::Actor;
use crate::ids::{TenantScope, WhatsappId};
use crate::inbox::channel::InboundMessage;
use crate::inbox::gaps::{self, GapAction, GapState, OutageChange};
use crate::inbox::inbound::INBOUND_TEXT_MAX_BYTES;
use crate::inbox::model::{Connection, SessionUpdate};
use crate::policy::{self, Action};
use crate::service::Ports;

/// Records what a session change (from the connection as it was, `before`) does to the
/// connection's outage: one begins when a connected session drops, and ends when it is back
/// (a gap when it lasted long enough).
pub(super) async fn on_session(
    ports: &Ports,
    scope: TenantScope,
    before: &Connection,
    update: &SessionUpdate,
) -> Result<()> {
    let now = ports.clock.now();
    let deaf = matches!(
        update.reason,
        Some(crate::inbox::model::SessionReason::Deaf)
    );
    let last_inbound = if deaf && before.down_since.is_none() {
        ports.gaps.last_inbound(scope, before.id).await?
    } else {
        None
    };
    match gaps::outage_change(
        before.status,
        before.down_since,
        update.status,
        update.reason.as_ref(),
        last_inbound,
        now,
    ) {
        OutageChange::Began(since) => {
            ports.gaps.began(scope, before.id, since).await?;
        }
        OutageChange::Ended { from, to } => {
            ports
                .gaps
                .ended(
                    scope,
                    before.id,
                    from,
                    to,
                    gaps::counts(from, to),
                    gaps::check_at(to),
                )
                .await?;
        }
        OutageChange::Nothing => {}
    }
    Ok(())
}

/// The channel delivered what it had queued ([`crate::inbox::channel::InboundEvent::CaughtUp`]):
/// the connection's waiting gap is checked now.
#[tracing::instrument(level = "debug", name = "inbox.gaps::caught_up", skip_all, fields(company = scope.company_id().0, connection = id.0))]
pub async fn caught_up(ports: &Ports, scope: TenantScope, id: WhatsappId) -> Result<()> {
    let checks = ports.gaps.caught_up(scope, id, ports.clock.now()).await?;
    if checks > 0 {
        tracing::info!(
            checks,
            "a connection back from an outage is checked for gaps"
        );
    }
    Ok(())
}

/// The `checkGap` job: asks the phone for what each conversation the gap touched may have
/// missed, and writes the notice into those it cannot ask for; a gap whose phone was asked then
/// waits for the answers ([`gaps::ANSWER_WAIT_SECONDS`]), and the same job, run again once the
/// wait is over, writes the notice into the conversations the phone did not answer for. Then
/// the connection shows the gap as checked. Running it again (a retry after a crash) asks
/// again and writes no notice twice.
#[tracing::instrument(level = "debug", name = "inbox.gaps::check", skip_all, fields(company = scope.company_id().0, gap = gap_id))]
pub async fn check(ports: &Ports, scope: TenantScope, gap_id: i64) -> Result<()> {
    let Some((id, gap)) = ports.gaps.get(scope, gap_id).await? else {
        return Ok(());
    };
    let now = ports.clock.now();
    match gap.state {
        GapState::Checked => return Ok(()),
        GapState::Asked if !gaps::answers_due(&gap, now) => return Ok(()),
        _ => {}
    }
    let Some(connection) = ports.connections.get(scope, id).await? else {
        return Ok(());
    };
    let affected = ports.gaps.affected(scope, id, &gap).await?;
    if gap.state == GapState::Asked {
        let unanswered = ports.gaps.unanswered(scope, gap_id).await?;
        let notices = gaps::unanswered_notices(&gap, &affected, &unanswered);
        let noted = gap.noted + i64::try_from(notices.len()).unwrap_or(i64::MAX);
        store_notices(ports, scope, &connection, &notices).await?;
        ports
            .gaps
            .checked(scope, gap_id, gap.fetched, noted)
            .await?;
        tracing::info!(
            fetched = gap.fetched,
            noted,
            unanswered = notices.len(),
            "a connection's gap was checked once the phone's answers were waited for"
        );
        return Ok(());
    }
    let provider = ports.channels.get(connection.provider).ok();
    let mut asked = Vec::new();
    let mut notices = Vec::new();
    for ticket in &affected {
        let sent = match (gaps::action_for(ticket), &provider) {
            (GapAction::Fetch(request), Some(provider)) => {
                match provider.request_history(scope, id, &request).await {
                    Ok(()) => true,
                    Err(error) => {
                        tracing::debug!(%error, ticket = ticket.ticket_id.0, "the phone was not asked for a conversation's gap");
                        false
                    }
                }
            }
            _ => false,
        };
        if sent {
            asked.push(ticket.ticket_id);
        } else {
            notices.push(gaps::notice(&gap, ticket));
        }
    }
    let fetched = i64::try_from(asked.len()).unwrap_or(i64::MAX);
    let noted = i64::try_from(notices.len()).unwrap_or(i64::MAX);
    store_notices(ports, scope, &connection, &notices).await?;
    if asked.is_empty() {
        ports.gaps.checked(scope, gap_id, fetched, noted).await?;
    } else {
        ports
            .gaps
            .asked(
                scope,
                gap_id,
                &asked,
                (fetched, noted),
                gaps::answer_by(now),
            )
            .await?;
    }
    tracing::info!(fetched, noted, "a connection's gap was checked");
    Ok(())
}

/// Writes gap notices into their conversations.
async fn store_notices(
    ports: &Ports,
    scope: TenantScope,
    connection: &Connection,
    notices: &[InboundMessage],
) -> Result<()> {
    super::ingest::store_history_with(ports, scope, connection, notices, &gaps::decide_backfilled)
        .await
}

/// Writes the phone's answer to a history request into the chats' conversations
/// ([`gaps::decide_backfilled`]); attachments are downloaded where the provider can. Returns
/// once committed.
#[tracing::instrument(level = "debug", name = "inbox.gaps::receive", skip_all, fields(company = scope.company_id().0, connection = connection.id.0, messages = messages.len()))]
pub async fn receive(
    ports: &Ports,
    scope: TenantScope,
    connection: &Connection,
    mut messages: Vec<InboundMessage>,
) -> Result<()> {
    // A message too long to store is left out rather than the whole answer.
    messages.retain(|m| m.body.len() <= INBOUND_TEXT_MAX_BYTES);
    super::history::download_attachments(ports, scope, connection, &mut messages).await;
    super::ingest::store_history_with(
        ports,
        scope,
        connection,
        &messages,
        &gaps::decide_backfilled,
    )
    .await?;
    // After the commit: the conversations answered for get no notice once the wait is over,
    // and a gap the phone answered for in full is checked now.
    let ids: Vec<&str> = messages.iter().map(|m| m.external_id.as_str()).collect();
    if ids.is_empty() {
        return Ok(());
    }
    for gap_id in ports.gaps.answered(scope, connection.id, &ids).await? {
        if !ports.gaps.unanswered(scope, gap_id).await?.is_empty() {
            continue;
        }
        if let Some((_, gap)) = ports.gaps.get(scope, gap_id).await?
            && gap.state == GapState::Asked
        {
            ports
                .gaps
                .checked(scope, gap_id, gap.fetched, gap.noted)
                .await?;
            tracing::info!(
                gap = gap_id,
                "the phone answered for every conversation of a gap"
            );
        }
    }
    Ok(())
}

/// Hides the connection's gap (`DELETE /whatsapp/{id}/gap`). Needs `ManageConnections`;
/// `ERR_NO_WAPP_FOUND` for a connection not of the company.
#[tracing::instrument(level = "debug", name = "inbox.gaps::dismiss", skip_all, fields(company = actor.company_id.0, user = actor.user_id.0, connection = id.0))]
pub async fn dismiss(ports: &Ports, actor: &Actor, id: WhatsappId) -> Result<()> {
    policy::authorize(actor, &Action::ManageConnections(actor.company_id))?;
    let scope = actor.scope();
    if ports.connections.get(scope, id).await?.is_none() {
        return Err(ErrorCode::ERR_NO_WAPP_FOUND.into());
    }
    ports.gaps.dismiss(scope, id).await?;
    Ok(())
}
