//! Gaps after an outage: while a connection is down (or deaf: connected but hearing nothing),
//! the channel may not deliver everything that was sent to it when it comes back. The inbox
//! keeps when each outage began (the connection's `downSince`); when the connection is back, an
//! outage of at least [`MIN_OUTAGE_SECONDS`] becomes a *gap* that a job checks
//! ([`crate::jobs::JobPayload::CheckGap`]) as soon as the channel says it delivered what it had
//! queued ([`InboundEvent::CaughtUp`]), or [`CHECK_AFTER_SECONDS`] after the connection is back
//! when the channel never says so:
//!
//! - every conversation of the connection that was open or pending, or moved during the gap,
//!   and that has a message after the gap began asks the phone for the messages before that
//!   message ([`ChannelProvider::request_history`]); the answer is written into the
//!   conversation as history ([`decide_backfilled`]: no bot, no notification, each message at
//!   its own time; one already stored is not stored twice);
//! - a conversation with nothing to anchor the request on, or whose provider cannot ask, gets a
//!   notice line at the gap's start ([`notice`]): "messages may be missing between X and Y";
//! - when the phone was asked, the gap waits [`ANSWER_WAIT_SECONDS`] for the answers (state
//!   `asked`); a conversation none of whose contact's messages came back by then gets the
//!   notice too (a phone that is offline, or that accepted the request and never answered);
//! - the connection shows the gap (`lastGap`: when, how many conversations were asked for and
//!   how many were noted) until an admin dismisses it.
//!
//! Shorter outages (a reconnect, a server restart) are left to the channel's own queue, which
//! covers them.
//!
//! [`InboundEvent::CaughtUp`]: crate::inbox::channel::InboundEvent::CaughtUp
//! [`ChannelProvider::request_history`]: crate::inbox::channel::ChannelProvider::request_history

use async_trait::async_trait;
use chrono::{DateTime, Duration, SecondsFormat, Utc};
use serde::{Deserialize, Serialize};

use crate::error::Result;
use crate::ids::{TenantScope, TicketId, WhatsappId};
use crate::inbox::channel::{HistoryRequest, InboundMessage};
use crate::inbox::ingest::{EventIntent, IngestContext, IngestPlan, last_message_text, ticket_for};
use crate::inbox::model::{ConnectionStatus, MediaType, SessionReason};

/// The shortest outage checked for missing messages (2 minutes).
pub const MIN_OUTAGE_SECONDS: i64 = 120;

/// When a gap is checked at the latest after the connection is back, should the channel not
/// say it caught up (2 minutes).
pub const CHECK_AFTER_SECONDS: i64 = 120;

/// When a gap that ended at `to` is checked at the latest.
pub fn check_at(to: DateTime<Utc>) -> DateTime<Utc> {
    to + Duration::seconds(CHECK_AFTER_SECONDS)
}

/// How long a gap waits for the phone's answers to its history requests before the
/// conversations not answered get the notice (5 minutes; the phone answers in seconds when it
/// is online).
pub const ANSWER_WAIT_SECONDS: i64 = 300;

/// Until when the answers to requests made at `now` are waited for.
pub fn answer_by(now: DateTime<Utc>) -> DateTime<Utc> {
    now + Duration::seconds(ANSWER_WAIT_SECONDS)
}

/// How many messages one request asks the phone for, per conversation.
pub const BACKFILL_COUNT: u32 = 50;

/// A gap as a connection shows it (`lastGap`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct ConnectionGap {
    pub id: i64,
    /// When the outage began.
    pub from: DateTime<Utc>,
    /// When the connection was back.
    pub to: DateTime<Utc>,
    /// `waiting` (for the channel's queue), `checking`, `asked` (waiting for the phone's
    /// answers until `answerBy`) or `checked`.
    pub state: GapState,
    /// Conversations whose messages in the gap were asked from the phone.
    pub fetched: i64,
    /// Conversations that got the "messages may be missing" notice.
    pub noted: i64,
    /// While `asked`: when the conversations the phone has not answered for get the notice.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer_by: Option<DateTime<Utc>>,
}

/// Where the check of a gap stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum GapState {
    Waiting,
    Checking,
    Asked,
    Checked,
}

impl GapState {
    pub const fn as_str(self) -> &'static str {
        match self {
            GapState::Waiting => "waiting",
            GapState::Checking => "checking",
            GapState::Asked => "asked",
            GapState::Checked => "checked",
        }
    }

    pub fn parse(value: &str) -> Option<Self> {
        [Self::Waiting, Self::Checking, Self::Asked, Self::Checked]
            .into_iter()
            .find(|s| s.as_str() == value)
    }
}

/// What a session change does to the connection's outage.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutageChange {
    /// The connection went down: the outage began at this time (kept when one is already
    /// under way).
    Began(DateTime<Utc>),
    /// The connection is back: the outage that began at `from` ended at `to`; it is a gap
    /// when [`counts`].
    Ended {
        from: DateTime<Utc>,
        to: DateTime<Utc>,
    },
    Nothing,
}

/// How a session change from `before` (with the outage under way since `down_since`) to
/// `after` (for `reason`) changes the outage, at `now`. A deaf session lost messages since the
/// last one it received (`last_inbound`), not since the watchdog noticed.
pub fn outage_change(
    before: ConnectionStatus,
    down_since: Option<DateTime<Utc>>,
    after: ConnectionStatus,
    reason: Option<&SessionReason>,
    last_inbound: Option<DateTime<Utc>>,
    now: DateTime<Utc>,
) -> OutageChange {
    let connected = ConnectionStatus::Connected;
    match (before == connected, after == connected, down_since) {
        (_, true, Some(from)) => OutageChange::Ended { from, to: now },
        (true, false, None) => {
            let since = match (reason, last_inbound) {
                (Some(SessionReason::Deaf), Some(last)) if last < now => last,
                _ => now,
            };
            OutageChange::Began(since)
        }
        _ => OutageChange::Nothing,
    }
}

/// Whether an outage from `from` to `to` is long enough to be checked.
pub fn counts(from: DateTime<Utc>, to: DateTime<Utc>) -> bool {
    to - from >= Duration::seconds(MIN_OUTAGE_SECONDS)
}

/// A conversation a gap may have touched, as the store found it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AffectedTicket {
    pub ticket_id: TicketId,
    /// The chat as messages name it (the contact's number or LID, or the group's id).
    pub chat: String,
    pub chat_name: String,
    pub is_group: bool,
    /// The conversation's oldest message after the gap began that the channel knows (it has
    /// an external id), if any.
    pub anchor: Option<Anchor>,
}

/// A stored message a history request is anchored on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Anchor {
    pub external_id: String,
    pub from_me: bool,
    pub at: DateTime<Utc>,
}

/// What the check does for one conversation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GapAction {
    /// Ask the phone for the messages before the anchor.
    Fetch(HistoryRequest),
    /// Write the notice: nothing to ask with.
    Note,
}

/// The action for `ticket`: fetch when it has an anchor, note otherwise.
pub fn action_for(ticket: &AffectedTicket) -> GapAction {
    match &ticket.anchor {
        Some(anchor) => GapAction::Fetch(HistoryRequest {
            chat: ticket.chat.clone(),
            is_group: ticket.is_group,
            anchor_external_id: anchor.external_id.clone(),
            anchor_from_me: anchor.from_me,
            anchor_time: anchor.at,
            count: BACKFILL_COUNT,
        }),
        None => GapAction::Note,
    }
}

/// Whether the wait for the phone's answers to gap `gap`'s requests is over at `now` (an
/// earlier `checkGap` job, such as the fallback of a gap checked as soon as the channel caught
/// up, finds it is not and leaves the gap alone).
pub fn answers_due(gap: &ConnectionGap, now: DateTime<Utc>) -> bool {
    gap.answer_by.is_none_or(|by| now >= by)
}

/// The notices for the conversations of `affected` still in `unanswered` once the wait for the
/// phone's answers is over.
pub fn unanswered_notices(
    gap: &ConnectionGap,
    affected: &[AffectedTicket],
    unanswered: &[TicketId],
) -> Vec<InboundMessage> {
    affected
        .iter()
        .filter(|ticket| unanswered.contains(&ticket.ticket_id))
        .map(|ticket| notice(gap, ticket))
        .collect()
}

/// The notice line of gap `gap` in `ticket`'s conversation, placed at the gap's start; its id
/// makes it once per gap and conversation, however often the check runs.
pub fn notice(gap: &ConnectionGap, ticket: &AffectedTicket) -> InboundMessage {
    InboundMessage {
        external_id: format!("chatflow-gap-{}-{}", gap.id, ticket.ticket_id.0),
        chat: ticket.chat.clone(),
        chat_name: ticket.chat_name.clone(),
        is_group: ticket.is_group,
        participant: None,
        from_me: false,
        body: interval(gap.from, gap.to),
        media_type: MediaType::Gap,
        media: None,
        quoted_external_id: None,
        timestamp: gap.from,
        aliases: Vec::new(),
        media_failed: None,
    }
}

/// The notice's body: `{from}/{to}` in RFC 3339 (seconds, UTC), which the web app shows in the
/// reader's language and time zone.
pub fn interval(from: DateTime<Utc>, to: DateTime<Utc>) -> String {
    format!(
        "{}/{}",
        from.to_rfc3339_opts(SecondsFormat::Secs, true),
        to.to_rfc3339_opts(SecondsFormat::Secs, true)
    )
}

/// The plan for a message the phone sent back for a gap (or for a notice): into the chat's
/// open conversation (a new one, marked imported, when it has none), as history at its own
/// time, nothing unread, shown live in an open conversation (the message's `create` event).
pub fn decide_backfilled(ctx: &IngestContext, message: &InboundMessage) -> IngestPlan {
    if message.is_group && !ctx.connection.allow_group {
        return IngestPlan::Ignore;
    }
    let (ticket, logs) = ticket_for(ctx, message, None, true);
    IngestPlan::Store {
        ticket,
        unread_increment: 0,
        last_message: last_message_text(&message.body, message.media_type),
        logs,
        events: vec![EventIntent::MessageCreate],
        history: true,
    }
}

/// Outages and gaps of connections.
#[async_trait]
pub trait GapRepo: Send + Sync {
    /// Sets the connection's `downSince` to `since` unless an outage is under way already, and
    /// appends the connection's update event. Answers whether it changed.
    async fn began(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        since: DateTime<Utc>,
    ) -> Result<bool>;
    /// Clears `downSince` and, when `gap` (the outage counts), records a `waiting` gap from
    /// `from` to `to` with its [`crate::jobs::JobPayload::CheckGap`] job due at `check_at`, in
    /// one transaction, with the connection's update event.
    async fn ended(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        from: DateTime<Utc>,
        to: DateTime<Utc>,
        gap: bool,
        check_at: DateTime<Utc>,
    ) -> Result<()>;
    /// The connection's waiting gaps become `checking`, each with a
    /// [`crate::jobs::JobPayload::CheckGap`] job due `at`, in one transaction. Answers how many.
    async fn caught_up(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        at: DateTime<Utc>,
    ) -> Result<u64>;
    /// A gap by id, with its connection.
    async fn get(
        &self,
        scope: TenantScope,
        gap: i64,
    ) -> Result<Option<(WhatsappId, ConnectionGap)>>;
    /// The conversations of `connection` that gap `gap` may have touched: open or pending, or
    /// updated since its start; each with its oldest message since then that has an external
    /// id (notices left out).
    async fn affected(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        gap: &ConnectionGap,
    ) -> Result<Vec<AffectedTicket>>;
    /// Marks the gap `checked` with its counts, with the connection's update event.
    async fn checked(&self, scope: TenantScope, gap: i64, fetched: i64, noted: i64) -> Result<()>;
    /// Marks the gap `asked` with its counts until `answer_by`: records a request for each
    /// of `tickets` (once, however often this runs) and the
    /// [`crate::jobs::JobPayload::CheckGap`] job due `answer_by`, with the connection's update
    /// event, in one transaction.
    async fn asked(
        &self,
        scope: TenantScope,
        gap: i64,
        tickets: &[TicketId],
        counts: (i64, i64),
        answer_by: DateTime<Utc>,
    ) -> Result<()>;
    /// The phone answered with these messages of `connection` (already stored): the requests of
    /// its `asked` gaps for the conversations of their contacts are answered. Answers the gaps
    /// that had a request answered.
    async fn answered(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        external_ids: &[&str],
    ) -> Result<Vec<i64>>;
    /// The conversations gap `gap` asked the phone for that are still unanswered.
    async fn unanswered(&self, scope: TenantScope, gap: i64) -> Result<Vec<TicketId>>;
    /// Hides the connection's gaps (`DELETE /whatsapp/{id}/gap`), with the connection's update
    /// event. Answers whether there was one to hide.
    async fn dismiss(&self, scope: TenantScope, connection: WhatsappId) -> Result<bool>;
    /// When the connection last received a message from a contact.
    async fn last_inbound(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
    ) -> Result<Option<DateTime<Utc>>>;
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn at(minute: u32) -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 11, 29, 10, minute, 0).unwrap()
    }

    #[test]
    fn an_outage_begins_when_a_connected_session_drops_and_ends_when_it_is_back() {
        use ConnectionStatus::*;
        assert_eq!(
            outage_change(Connected, None, Opening, None, Some(at(1)), at(5)),
            OutageChange::Began(at(5))
        );
        // Still down: the first time stays.
        assert_eq!(
            outage_change(Opening, Some(at(5)), Disconnected, None, None, at(7)),
            OutageChange::Nothing
        );
        assert_eq!(
            outage_change(Opening, Some(at(5)), Connected, None, None, at(9)),
            OutageChange::Ended {
                from: at(5),
                to: at(9)
            }
        );
        // A first link is no outage.
        assert_eq!(
            outage_change(Qrcode, None, Connected, None, None, at(9)),
            OutageChange::Nothing
        );
    }

    #[test]
    fn a_deaf_session_lost_messages_since_the_last_one_it_heard() {
        use ConnectionStatus::*;
        let deaf = SessionReason::Deaf;
        assert_eq!(
            outage_change(Connected, None, Opening, Some(&deaf), Some(at(2)), at(40)),
            OutageChange::Began(at(2))
        );
        // Never heard anything: from now.
        assert_eq!(
            outage_change(Connected, None, Opening, Some(&deaf), None, at(40)),
            OutageChange::Began(at(40))
        );
    }

    #[test]
    fn only_outages_of_two_minutes_or_more_count() {
        assert!(!counts(at(0), at(1)));
        assert!(counts(at(0), at(2)));
    }

    #[test]
    fn a_conversation_with_an_anchor_is_fetched_and_one_without_is_noted() {
        let mut ticket = AffectedTicket {
            ticket_id: TicketId(7),
            chat: "5511999990001".into(),
            chat_name: "Maria".into(),
            is_group: false,
            anchor: None,
        };
        assert_eq!(action_for(&ticket), GapAction::Note);
        ticket.anchor = Some(Anchor {
            external_id: "ABC".into(),
            from_me: true,
            at: at(12),
        });
        let GapAction::Fetch(request) = action_for(&ticket) else {
            panic!("expected a fetch");
        };
        assert_eq!(request.anchor_external_id, "ABC");
        assert!(request.anchor_from_me);
        assert_eq!(request.count, BACKFILL_COUNT);
        let gap = ConnectionGap {
            id: 3,
            from: at(1),
            to: at(9),
            state: GapState::Checking,
            fetched: 0,
            noted: 0,
            answer_by: None,
        };
        let line = notice(&gap, &ticket);
        assert_eq!(line.external_id, "chatflow-gap-3-7");
        assert_eq!(line.timestamp, at(1));
        assert_eq!(line.body, "2026-11-29T10:01:00Z/2026-11-29T10:09:00Z");
        assert_eq!(line.media_type, MediaType::Gap);
    }

    #[test]
    fn conversations_the_phone_did_not_answer_for_get_the_notice_once_the_wait_is_over() {
        let asked_at = at(10);
        let gap = ConnectionGap {
            id: 3,
            from: at(1),
            to: at(9),
            state: GapState::Asked,
            fetched: 2,
            noted: 0,
            answer_by: Some(answer_by(asked_at)),
        };
        assert_eq!(gap.answer_by, Some(at(15)));
        // The fallback check, due before the wait is over, leaves the gap alone.
        assert!(!answers_due(&gap, at(12)));
        assert!(answers_due(&gap, at(15)));
        let ticket = |id: i64| AffectedTicket {
            ticket_id: TicketId(id),
            chat: format!("55119999900{id:02}"),
            chat_name: format!("Contact {id}"),
            is_group: false,
            anchor: None,
        };
        let affected = [ticket(7), ticket(8), ticket(9)];
        let notices = unanswered_notices(&gap, &affected, &[TicketId(8), TicketId(40)]);
        assert_eq!(notices.len(), 1);
        assert_eq!(notices[0].external_id, "chatflow-gap-3-8");
        // The wait is shown on the connection, not once checked.
        let json = serde_json::to_value(&gap).expect("serialises");
        assert_eq!(json["state"], "asked");
        assert_eq!(json["answerBy"], "2026-11-29T10:15:00Z");
        let checked = ConnectionGap {
            state: GapState::Checked,
            answer_by: None,
            ..gap
        };
        assert!(
            serde_json::to_value(&checked)
                .expect("serialises")
                .get("answerBy")
                .is_none()
        );
    }
}
