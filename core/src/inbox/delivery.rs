//! Delivery assurance: an outbound message WhatsApp accepted (one tick, ack 1) that no phone
//! confirmed for [`UNDELIVERED_AFTER_MINUTES`] is flagged `notDelivered` on the message (the
//! conversation shows it) and counted in the connection's health view
//! (`GET /whatsapp/{id}/health`). A later delivery receipt clears the flag.
//!
//! A durable job per connected connection ([`crate::jobs::JobPayload::CheckDelivery`]) looks
//! every [`SWEEP_EVERY_SECONDS`] at the last [`LOOK_BACK_HOURS`] of its messages; it starts when
//! the connection is CONNECTED and stops once it is not (the next connection starts it again).
//!
//! Messages are not sent again by themselves: a message at one tick reached WhatsApp's server,
//! and sending it again could deliver it twice once the phone comes back. Sends already go to the
//! address WhatsApp uses for the person (the library addresses a contact known by LID by its LID).

use async_trait::async_trait;
use chrono::{DateTime, Duration, Utc};
use serde::{Deserialize, Serialize};

use crate::error::Result;
use crate::ids::{MessageId, TenantScope, TicketId, WhatsappId};

/// How long a message may stay at one tick before it is flagged (10 minutes).
pub const UNDELIVERED_AFTER_MINUTES: i64 = 10;

/// How often a connected connection's messages are looked at (5 minutes).
pub const SWEEP_EVERY_SECONDS: i64 = 300;

/// How far back a look goes (24 hours): older messages are left as they are.
pub const LOOK_BACK_HOURS: i64 = 24;

/// The most messages one look flags.
pub const FLAG_LIMIT: u32 = 500;

/// How many flagged messages the health view lists.
pub const HEALTH_LIST: u32 = 20;

/// What is wrong with an outbound message's delivery.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub enum DeliveryIssue {
    /// WhatsApp's server took it, no phone confirmed it.
    NotDelivered,
}

impl DeliveryIssue {
    pub const fn as_str(self) -> &'static str {
        match self {
            DeliveryIssue::NotDelivered => "notDelivered",
        }
    }

    pub fn parse(value: &str) -> Option<Self> {
        (value == "notDelivered").then_some(DeliveryIssue::NotDelivered)
    }
}

/// The messages a look at `now` flags: sent between the two times (`since`, `before`).
pub fn window(now: DateTime<Utc>) -> (DateTime<Utc>, DateTime<Utc>) {
    (
        now - Duration::hours(LOOK_BACK_HOURS),
        now - Duration::minutes(UNDELIVERED_AFTER_MINUTES),
    )
}

/// When the next look runs after one at `now`: only while the connection is connected.
pub fn next_look(now: DateTime<Utc>, connected: bool) -> Option<DateTime<Utc>> {
    connected.then(|| now + Duration::seconds(SWEEP_EVERY_SECONDS))
}

/// A flagged message as the health view lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct UndeliveredMessage {
    pub id: MessageId,
    pub ticket_id: TicketId,
    pub contact_name: String,
    pub body: String,
    pub created_at: DateTime<Utc>,
}

/// A connection's delivery health (`GET /whatsapp/{id}/health`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct DeliveryHealth {
    /// Flagged messages of the last [`LOOK_BACK_HOURS`].
    pub undelivered: i64,
    /// The newest of them, at most [`HEALTH_LIST`].
    pub messages: Vec<UndeliveredMessage>,
}

/// Flags and health of outbound deliveries.
#[async_trait]
pub trait DeliveryRepo: Send + Sync {
    /// Flags `notDelivered` the connection's outbound messages still at one tick sent between
    /// `since` and `before` (at most [`FLAG_LIMIT`]), each with its message update event, in one
    /// transaction; answers how many.
    async fn flag_undelivered(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        since: DateTime<Utc>,
        before: DateTime<Utc>,
    ) -> Result<u64>;
    /// Makes sure a look at the connection is due by `at`: adds one unless one waits unclaimed.
    async fn schedule(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        at: DateTime<Utc>,
    ) -> Result<()>;
    /// The connection's flagged messages sent since `since`.
    async fn health(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        since: DateTime<Utc>,
    ) -> Result<DeliveryHealth>;
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn a_look_flags_what_waited_ten_minutes_within_a_day_and_runs_again_while_connected() {
        let now = Utc.with_ymd_and_hms(2026, 11, 29, 12, 0, 0).unwrap();
        let (since, before) = window(now);
        assert_eq!(since, Utc.with_ymd_and_hms(2026, 11, 28, 12, 0, 0).unwrap());
        assert_eq!(
            before,
            Utc.with_ymd_and_hms(2026, 11, 29, 11, 50, 0).unwrap()
        );
        assert_eq!(
            next_look(now, true),
            Some(Utc.with_ymd_and_hms(2026, 11, 29, 12, 5, 0).unwrap())
        );
        assert_eq!(next_look(now, false), None);
        assert_eq!(
            DeliveryIssue::parse("notDelivered"),
            Some(DeliveryIssue::NotDelivered)
        );
        assert_eq!(DeliveryIssue::parse("other"), None);
    }
}
