//! The Meta adapter's tests: webhook verification and parsing from fixtures shaped like Meta's
//! reference payloads, and the Graph client against the fake Graph server (one binary).

mod client_cloud;
mod client_messenger;
mod connect;
mod endpoint;
mod errors;
mod media;
mod parse_cloud;
mod parse_messaging;
mod provider;
mod verify;
mod window;

use chatflow_core::inbox::channel::{InboundEvent, InboundMessage};
use chatflow_meta::webhook::{Delivery, ParseOptions, parse};
use chrono::{DateTime, Utc};

/// A fixture's bytes.
pub fn fixture(name: &str) -> Vec<u8> {
    let path = format!("{}/tests/meta/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("fixture {path}: {e}"))
}

/// When the tests' deliveries "arrived".
pub fn received_at() -> DateTime<Utc> {
    DateTime::parse_from_rfc3339("2026-11-29T12:00:00Z")
        .expect("a time")
        .with_timezone(&Utc)
}

/// A fixture parsed with `options`.
pub fn parsed_with(name: &str, options: &ParseOptions) -> Delivery {
    parse(&fixture(name), options, received_at()).expect("a readable delivery")
}

/// A fixture parsed with no own app ids.
pub fn parsed(name: &str) -> Delivery {
    parsed_with(name, &ParseOptions::default())
}

/// The message of an event, or a panic naming what it was.
pub fn message(event: &InboundEvent) -> &InboundMessage {
    match event {
        InboundEvent::Message(m) => m,
        other => panic!("expected a message, got {other:?}"),
    }
}

/// A time from seconds.
pub fn at(seconds: i64) -> DateTime<Utc> {
    DateTime::from_timestamp(seconds, 0).expect("a time")
}

/// A client for the fake.
pub fn client(fake: &chatflow_meta::fake::FakeGraph) -> chatflow_meta::GraphClient {
    chatflow_meta::GraphClient::new(fake.config()).expect("a client")
}
