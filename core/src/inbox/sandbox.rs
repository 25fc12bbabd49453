//! The sandbox channel's persistence port: the built-in simulated phone network keeps its state
//! in the database so the CLI (another process), the HTTP routes and the server share it.
//!
//! - Pairing: one row per connection with the current pairing nonce and whether a phone scanned
//!   it (a paired connection reconnects without a new QR after a restart); when linking by phone
//!   number instead, the code the phone must type and the number it was asked for.
//! - Inbound: what simulated phones sent to a connection, in order; a row is marked delivered
//!   only after the inbox committed it, so a crash replays it. A message the network lost is
//!   kept but never delivered: it is part of the phone's history, which answers history
//!   requests.
//! - Outbound: what simulated phones received from a connection, with the delivery ack.

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::error::Result;
use crate::ids::{CompanyId, TenantScope, WhatsappId};
use crate::inbox::channel::{InboundEvent, InboundMessage, OutboundContent};

/// The pairing state of one sandbox connection.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SandboxPairing {
    pub whatsapp_id: WhatsappId,
    /// The nonce of the QR code currently shown.
    pub nonce: String,
    /// A phone scanned the code; the connection stays paired until it disconnects.
    pub paired: bool,
    /// The code a phone must type to pair, while the connection links by phone number.
    #[serde(default)]
    pub pair_code: Option<String>,
    /// The number the pair code was asked for: the connection's number once paired by code
    /// (none when paired by QR code).
    #[serde(default)]
    pub pair_number: Option<String>,
    pub updated_at: DateTime<Utc>,
}

/// A message (or reaction, edit, missed call) a simulated phone sent to a connection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SandboxInbound {
    pub id: i64,
    pub company_id: CompanyId,
    pub whatsapp_id: WhatsappId,
    pub event: InboundEvent,
    pub created_at: DateTime<Utc>,
    pub delivered_at: Option<DateTime<Utc>>,
    /// Failed deliveries so far.
    pub attempts: i64,
    /// After a failed delivery: not before this time (the connection's later rows wait too).
    pub retry_at: Option<DateTime<Utc>>,
}

/// How long delivered rows of the sandbox's inbound queue are kept (7 days); the newest row of
/// each phone stays, so the connection's chats and the phones' names are not forgotten.
pub const INBOUND_RETENTION_DAYS: i64 = 7;

/// A message a simulated phone received from a connection.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SandboxReceived {
    pub id: i64,
    pub whatsapp_id: WhatsappId,
    /// The simulated phone's number (or group id).
    pub to: String,
    /// The channel's id of the message (what the inbox stored as the message's external id).
    pub external_id: String,
    pub content: OutboundContent,
    /// The text shown on the phone: the body, the caption, or a short description.
    pub body: String,
    /// 1 sent, 2 delivered, 3 read.
    pub ack: i64,
    /// Deleted for everyone by the sender.
    pub deleted: bool,
    /// The sender's reaction (empty for none).
    pub reaction: String,
    /// When the phone saw the chat read (the connection marked it read).
    pub read_at: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

/// A simulated phone that has talked with a connection.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SandboxChat {
    /// The phone's number.
    pub number: String,
    /// The name the phone last sent (empty when it only received messages).
    pub name: String,
}

/// A change to a message a phone received.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SandboxChange {
    /// The sender edited the text.
    Edit(String),
    /// The sender deleted it for everyone.
    Delete,
    /// The sender reacted (empty removes).
    React(String),
}

/// Storage of the sandbox channel. Tenant-scoped except where named platform-level.
#[async_trait]
pub trait SandboxRepo: Send + Sync {
    /// Starts (or restarts) pairing with a fresh `nonce`, keeping `paired` as it was unless
    /// `reset` (a new QR was asked for). A pair code shown before is forgotten; the number paired
    /// by code stays only with the pairing.
    async fn begin_pairing(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        nonce: &str,
        reset: bool,
    ) -> Result<SandboxPairing>;
    /// The pairing state, if pairing ever started.
    async fn pairing(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
    ) -> Result<Option<SandboxPairing>>;
    /// A phone scanned the connection's QR code (any pair code shown is forgotten). `false` when
    /// the connection is not pairing (or is not the company's).
    async fn mark_scanned(&self, scope: TenantScope, connection: WhatsappId) -> Result<bool>;
    /// The connection links by phone number instead: it shows `code` (replacing any code shown
    /// before) for the phone `number`. `false` when it is not pairing, is paired already, or is
    /// not the company's.
    async fn show_pair_code(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        code: &str,
        number: &str,
    ) -> Result<bool>;
    /// A phone typed `code`: when it is the code the connection shows, the connection is paired
    /// (with the number the code was asked for) and the code is used up. `false` otherwise.
    async fn confirm_pair_code(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        code: &str,
    ) -> Result<bool>;
    /// Forgets the pairing (disconnect).
    async fn unpair(&self, scope: TenantScope, connection: WhatsappId) -> Result<()>;
    /// Queues what a phone sent (its chat, name and message id are kept with it); `None` when
    /// the connection is not the company's.
    async fn push_inbound(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        event: &InboundEvent,
    ) -> Result<Option<i64>>;
    /// Keeps a message a phone sent that the network lost: it is in the phone's history
    /// ([`SandboxRepo::phone_history`]) but never delivered live ([`SandboxRepo::undelivered`]
    /// leaves it out). `None` when the connection is not the company's.
    async fn push_lost(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        message: &InboundMessage,
    ) -> Result<Option<i64>>;
    /// The phone `chat`'s history with the connection: up to `count` of the messages it sent
    /// (lost ones included) before the message `anchor_external_id`, the newest of them, oldest
    /// first. When the phone did not send the anchor (the connection did), the messages sent
    /// at or before `anchor_time` count as before it. Calls, reactions and edits are no
    /// messages.
    async fn phone_history(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        chat: &str,
        anchor_external_id: &str,
        anchor_time: DateTime<Utc>,
        count: u32,
    ) -> Result<Vec<InboundMessage>>;
    /// Platform-level: the oldest `per_connection` undelivered inbound rows of each connection
    /// whose status is CONNECTED, in order (one connection's backlog never hides another's);
    /// lost messages are left out.
    async fn undelivered(&self, per_connection: u32) -> Result<Vec<SandboxInbound>>;
    /// Marks inbound rows delivered (after the sink handled them), in one statement.
    async fn mark_delivered(&self, scope: TenantScope, ids: &[i64]) -> Result<()>;
    /// Records a failed delivery of an inbound row: its attempts so far, when to try again and
    /// why it failed.
    async fn mark_failed(
        &self,
        scope: TenantScope,
        id: i64,
        attempts: i64,
        retry_at: DateTime<Utc>,
        error: &str,
    ) -> Result<()>;
    /// Platform-level: forgets inbound rows delivered (or lost) before `before`, except each
    /// phone's newest row of a connection (its chat and name); returns how many were removed.
    async fn prune_delivered(&self, before: DateTime<Utc>) -> Result<u64>;
    /// The connection reacts to a message phone sent (empty removes); `false` when the
    /// phone sent no such message.
    async fn react_to_sent(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        external_id: &str,
        emoji: &str,
    ) -> Result<bool>;
    /// The connection's reaction to a message a phone sent (empty for none); `None` when
    /// unknown.
    async fn reaction_to_sent(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        external_id: &str,
    ) -> Result<Option<String>>;
    /// Records a message a phone received, with ack 1. The same `external_id` on the connection
    /// again changes nothing and answers the first record (an idempotent resend).
    async fn record_received(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        to: &str,
        external_id: &str,
        content: &OutboundContent,
        body: &str,
    ) -> Result<SandboxReceived>;
    /// Raises the ack of a received message (never lowers it); `false` when unknown.
    async fn set_ack(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        external_id: &str,
        ack: i64,
    ) -> Result<bool>;
    /// Raises the acks of received messages and, in the same transaction, queues each receipt
    /// that raised one as the connection's next inbound event (delivered in order with what
    /// phones sent, so receipts in a row are applied together); unknown messages and acks
    /// already that high queue nothing. Answers how many receipts were queued.
    async fn report_acks(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        acks: &[(String, i64)],
    ) -> Result<usize>;
    /// Applies a change to a received message; `false` when unknown.
    async fn change_received(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        external_id: &str,
        change: &SandboxChange,
    ) -> Result<bool>;
    /// Marks the phone `to`'s received messages read.
    async fn mark_chat_read(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        to: &str,
    ) -> Result<()>;
    /// What phones received from the connection (only `to`'s when given), oldest first.
    async fn received(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        to: Option<&str>,
    ) -> Result<Vec<SandboxReceived>>;
    /// Whether phone `chat` sent the message `external_id` to the connection (a message, not a
    /// call).
    async fn phone_sent(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        chat: &str,
        external_id: &str,
    ) -> Result<bool>;
    /// The one-to-one phones that wrote to the connection or received from it, in the order
    /// they first did, each with the name it last sent.
    async fn chats(&self, scope: TenantScope, connection: WhatsappId) -> Result<Vec<SandboxChat>>;
    /// One phone of [`SandboxRepo::chats`], if it is one of them (stores answer it without
    /// listing them all).
    async fn chat(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        number: &str,
    ) -> Result<Option<SandboxChat>> {
        Ok(self
            .chats(scope, connection)
            .await?
            .into_iter()
            .find(|c| c.number == number))
    }
}

/// The pairing string a sandbox QR code holds.
pub fn pairing_string(company: CompanyId, connection: WhatsappId, nonce: &str) -> String {
    format!("chatflow-sandbox:{company}:{connection}:{nonce}")
}

/// The number a sandbox connection gets once paired.
pub fn paired_number(connection: WhatsappId) -> String {
    format!("5500000000{connection}")
}

/// The text a phone shows for outbound content.
pub fn display_body(content: &OutboundContent) -> String {
    match content {
        OutboundContent::Text { body } => body.clone(),
        OutboundContent::Media { media, caption } => {
            if caption.is_empty() {
                media.file_name.clone()
            } else {
                caption.clone()
            }
        }
        OutboundContent::Contact { card } => format!("{} {}", card.name, card.number),
        OutboundContent::Location {
            latitude,
            longitude,
            name,
        } => format!("{name} ({}, {})", latitude.get(), longitude.get()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairing_strings_and_numbers() {
        assert_eq!(
            pairing_string(CompanyId(2), WhatsappId(7), "abc"),
            "chatflow-sandbox:2:7:abc"
        );
        assert_eq!(paired_number(WhatsappId(12)), "550000000012");
    }

    #[test]
    fn phones_show_captions_or_file_names() {
        let text = OutboundContent::Text { body: "hi".into() };
        assert_eq!(display_body(&text), "hi");
        let card = OutboundContent::Contact {
            card: crate::inbox::channel::ContactCard {
                name: "Ana".into(),
                number: "5511".into(),
            },
        };
        assert_eq!(display_body(&card), "Ana 5511");
    }
}
