//! Meta's official channels over the Graph API (issue 18): the WhatsApp Cloud API (provider
//! `cloud`), Facebook Messenger (`facebook`) and Instagram Direct (`instagram`).
//!
//! This crate is the adapter's first step: everything that talks to Meta or reads what Meta
//! sends, tested against a local fake Graph server, with no server wiring yet.
//!
//! - [`verify`]: the webhook's subscription challenge and `X-Hub-Signature-256` check (raw
//!   bytes, HMAC-SHA256, constant time, several secrets for rotation, fails closed).
//! - [`webhook`]: a verified delivery parsed into the core's
//!   [`InboundEvent`](chatflow_core::inbox::channel::InboundEvent)s, each routed by channel and
//!   account (phone number id, page id, Instagram account id). The mapping tables are in
//!   [`webhook::cloud`] and [`webhook::messaging`].
//! - [`graph`]: the Graph client. Cloud API sends of every kind, uploads, read marks,
//!   templates, media downloads with their sha256 checked; the Messenger/Instagram Send API
//!   with the send mode of the window; the connect flow; Graph's errors classified (retryable,
//!   window closed, uncertain, permanent), retried with backoff, and mapped to the core's codes.
//! - [`window`]: the 24-hour customer-service window and the `HUMAN_AGENT` rule, pure.
//! - [`provider`]: the core's channel port for the Cloud API over the client, with the
//!   connection's credentials from the host ([`provider::CloudAccounts`]).
//! - [`fake`]: the fake Graph server that checks what the client sends and answers like Graph,
//!   and the signed-webhook driver, for tests (compiled always, see `Cargo.toml`).
//!
//! # Acks
//!
//! | Meta | ack |
//! |---|---|
//! | Cloud `sent` | [`ACK_SENT`] (1) |
//! | Cloud `delivered`, Messenger/Instagram `delivery` | [`ACK_DELIVERED`] (2) |
//! | Cloud `read`, Messenger/Instagram `read` with a `mid` | [`ACK_READ`] (3) |
//! | Cloud `played` | [`ACK_PLAYED`] (4) |
//! | Cloud `failed` | [`ACK_FAILED`] (-1), with the reason beside the event ([`webhook::SendFailure`]) |
//!
//! The values are the WhatsApp Web adapter's. The core's acks only move forward and its ack
//! event has no place for a failure's reason yet, so a failure is reported but not shown until
//! the core takes it (as for WhatsApp Web's server errors).

#![warn(missing_docs)]

pub mod graph;
pub mod provider;
pub mod verify;
pub mod webhook;
pub mod window;

pub mod fake;

pub use graph::{GraphClient, GraphConfig, GraphError};
pub use provider::{CloudAccounts, CloudProvider};

/// The ack of a message Meta could not deliver (a `failed` status): below the 0 a sent message
/// starts at, as WhatsApp Web's server errors.
pub const ACK_FAILED: i64 = -1;
/// The ack of a message Meta took (one tick).
pub const ACK_SENT: i64 = 1;
/// The ack of a message delivered to the contact's device (two ticks).
pub const ACK_DELIVERED: i64 = 2;
/// The ack of a message the contact read.
pub const ACK_READ: i64 = 3;
/// The ack of a voice note the contact played.
pub const ACK_PLAYED: i64 = 4;
