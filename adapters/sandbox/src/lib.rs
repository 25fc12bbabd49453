//! The sandbox channel: a built-in simulated phone network implementing the core's
//! [`ChannelProvider`] (kind [`ProviderKind::Sandbox`]), so the whole inbox works without an
//! external account.
//!
//! - Pairing: [`ChannelProvider::start`] reports OPENING, then a QR code (an SVG data URL of the
//!   pairing string `chatflow-sandbox:{companyId}:{whatsappId}:{nonce}`), renewed every
//!   [`SandboxConfig::qr_interval`]; after [`SandboxConfig::max_qr_codes`] unscanned codes the
//!   session times out (reason `QrExhausted`). A "scan" ([`SandboxRepo::mark_scanned`], from
//!   the CLI or the HTTP route) connects it with the number `5500000000{whatsappId}`. A paired
//!   connection reconnects directly on restart.
//! - Pairing by phone number: [`ChannelProvider::request_pair_code`] on a session waiting to be
//!   paired reports PAIRING with an eight-character code ([`PAIR_CODE_ALPHABET`], shown
//!   `XXXX-XXXX`) instead of QR codes; a simulated phone that types it ([`type_pair_code`], from
//!   the CLI or the HTTP route) connects the session with the number the code was asked for. An
//!   untyped code expires after [`SandboxConfig::pair_code_ttl`] (TIMEOUT).
//! - Outbound: [`ChannelProvider::send`] stores the message in the phone's received list with
//!   ack 1 and reports acks 2 and 3 after [`SandboxConfig::ack_delay`] each, queued with what
//!   the phones sent by the background round ([`SandboxRepo::report_acks`], one transaction
//!   for the receipts due by then), so the receipts that pile up while the server is busy
//!   reach the sink in one batch and are applied in one transaction.
//! - Inbound: what simulated phones do ([`PhoneAct`]: messages with or without a file, reactions,
//!   edits and deletions of their own messages, missed calls) is queued durably
//!   ([`SandboxRepo::push_inbound`]), drained in order by the background task
//!   ([`SandboxProvider::spawn`]) and marked delivered only after the [`InboundSink`] returned
//!   Ok, so a crash replays it (and ingestion's unique key makes the replay harmless).
//! - Outages and lost messages: [`SandboxProvider::drop_connection`] drops a connected session
//!   (OPENING, reason `reconnecting`, still paired) until [`SandboxProvider::reconnect`]; a
//!   session that becomes CONNECTED reports [`InboundEvent::CaughtUp`] once the backlog is
//!   delivered. A phone's message may be lost on the way ([`PhoneMessage::lost`]): kept in the
//!   phone's history, never delivered live. [`ChannelProvider::request_history`] answers from
//!   that history (lost messages included) with a later on-demand
//!   [`InboundEvent::History`], queued like everything phones send.
//! - Chats: the phones that talked with a connection are its chats
//!   ([`ChannelProvider::list_chats`]); a phone's profile is the name it last sent
//!   ([`ChannelProvider::profile`]).
//!
//! State shared with other processes lives in the database (the [`SandboxRepo`] port); the task
//! polls it every [`SandboxConfig::poll_interval`] and wakes at once after in-process writes.

mod pair_code;
mod phone;
mod provider;
mod qr;

use std::time::Duration;

#[cfg(doc)]
use chatflow_core::inbox::channel::{ChannelProvider, InboundEvent, InboundSink};
#[cfg(doc)]
use chatflow_core::inbox::model::ProviderKind;
#[cfg(doc)]
use chatflow_core::inbox::sandbox::SandboxRepo;

pub use pair_code::{
    PAIR_CODE_ALPHABET, PAIR_CODE_LEN, display_pair_code, fresh_pair_code, normalise_pair_code,
    pair_code_of, type_pair_code,
};
pub use phone::{PhoneAct, PhoneFile, PhoneMessage, phone_act_event, phone_event, queue_phone_act};
pub use provider::SandboxProvider;
pub use qr::qr_data_url;

/// Inbound rows read per connection and round.
pub const DRAIN_PER_CONNECTION: u32 = 50;

/// Timings of the simulated network.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SandboxConfig {
    /// How long one QR code stays valid before a new one is shown (30 s).
    pub qr_interval: Duration,
    /// Unscanned QR codes before the session times out (5).
    pub max_qr_codes: i64,
    /// How long a pair code may be typed before the session times out (3 minutes).
    pub pair_code_ttl: Duration,
    /// Delay before each ack step (sent → delivered → read; 500 ms).
    pub ack_delay: Duration,
    /// How often the database is polled for scans and phone messages written by other
    /// processes (200 ms).
    pub poll_interval: Duration,
}

impl Default for SandboxConfig {
    fn default() -> Self {
        Self {
            qr_interval: Duration::from_secs(30),
            max_qr_codes: 5,
            pair_code_ttl: Duration::from_secs(180),
            ack_delay: Duration::from_millis(500),
            poll_interval: Duration::from_millis(200),
        }
    }
}
