//! The WhatsApp Web channel (provider `beta`) on the `whatsapp-rust` crate (issue 17).
//!
//! Built in steps (see `docs/design/whatsapp-web.md`). What is here so far:
//!
//! - [`storage::WaBackend`]: the library's storage traits (`wacore::store::traits::Backend`)
//!   over the core's [`chatflow_core::inbox::session_state::SessionStateRepo`], for one
//!   connection, with writes fenced by its lease token and key material sealed with the core's
//!   [`chatflow_core::ports::SecretCipher`].
//! - [`inbound`]: the library's decrypted messages, receipts and missed calls mapped to the
//!   core's inbound events, and the durability hook that commits them through the inbound sink
//!   before WhatsApp gets its ack, attachments downloaded first.
//! - [`supervisor::Supervisor`]: the sessions of this process, one task per connection: the
//!   lease, a fresh client per run, the session events mapped to status updates, rebuilds
//!   after a backoff, takeover of connections whose owner died, a deaf-session watchdog.
//! - [`client`]: the live session of a connection behind our own traits; [`real`] runs them on
//!   the library (a fresh `Bot` per run), `fake` (feature `fake`) on a scripted stand-in.
//! - [`outbound`]: the core's outbound messages as WhatsApp protos, sent under idempotent ids.
//! - [`directory`]: the people the phone knows (address book, one-to-one chats), kept from
//!   what it syncs, for the contacts import.
//! - [`provider`]: the core's channel port over all of the above (provider `beta`).
//!
//! The library's types stay in this crate: the core and the store know only namespaces of byte
//! rows.

pub mod client;
pub mod directory;
pub mod fake;
pub mod inbound;
pub mod outbound;
pub mod provider;
pub mod real;
pub mod storage;
pub mod supervisor;

pub use storage::WaBackend;
/// The library, re-exported so tests and later steps name one version of it.
pub use whatsapp_rust;
