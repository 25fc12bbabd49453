//! Chatflow's system adapters: the core's ports that touch the machine.
//!
//! - [`SystemClock`]: the wall clock ([`chatflow_core::ports::Clock`]).
//! - [`RandomIds`]: v4 uuids and alphanumeric tokens from the operating system's randomness
//!   ([`chatflow_core::ports::IdGenerator`]).
//! - [`Argon2Hasher`]: argon2id password hashes, computed on tokio's blocking pool
//!   ([`chatflow_core::ports::PasswordHasher`]).
//! - [`LocalMediaStore`]: media files in a local directory, one sub-directory per company
//!   ([`chatflow_core::ports::MediaStore`]).
//! - [`SmtpMailer`]: e-mail through an SMTP server, configured by a URL; [`LogMailer`] when no
//!   server is configured: it sends nothing and says so ([`chatflow_core::ports::Mailer`]).
//! - [`SealedSecrets`]: secrets kept in the database sealed with XChaCha20-Poly1305 under a key
//!   kept outside it ([`chatflow_core::ports::SecretCipher`]).
//! - [`spreadsheet`]: contact spreadsheets read (xls, xlsx, csv, txt) and written (xlsx).
//! - [`fake_smtp`]: a fake SMTP server that records what it receives, for tests of any crate.
//! - [`test_engines`]: whether a test that wants PostgreSQL runs, is skipped or fails, and the
//!   log of which engine each test ran on, for every suite.
//!
//! The last two serve tests only and are compiled always: behind a feature, the tests' build
//! and the binaries' build would be two builds of this crate and of every crate above it (the
//! binaries never call them, so they add nothing to them).
//!
//! Hosts build these once and hand them to the core's use cases as trait objects.

mod clock;
mod hasher;
mod ids;
mod mail;
mod media;
pub mod secrets;
pub mod spreadsheet;

pub mod fake_smtp;
pub use chatflow_test_engines as test_engines;

pub use clock::{ManualClock, SystemClock};
pub use hasher::Argon2Hasher;
pub use ids::RandomIds;
pub use mail::{LogMailer, MailConfigError, SMTP_TIMEOUT, SmtpMailer, configured_mailer};
pub use media::LocalMediaStore;
pub use secrets::{SealedSecrets, SecretKeyError, configured_secrets};
