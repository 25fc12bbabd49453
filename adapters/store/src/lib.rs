//! Chatflow's storage adapter: the core's repository ports on SQLite and PostgreSQL.
//!
//! # Design
//! - [`Store`] holds a [`DbPool`], an enum of the two sqlx pools. [`Store::connect`] picks the
//!   engine from the URL (`sqlite://path` by default, `postgres://...` at scale), and
//!   [`Store::migrate`] runs the embedded migrations of that engine (`migrations/sqlite`,
//!   `migrations/postgres`: the same tables, columns and indexes in two dialects).
//! - Each repository method is written once. The [`on_pool!`] macro expands the same query code
//!   for either pool, so SQL stays portable: `$1, $2` placeholders (SQLite accepts them),
//!   `RETURNING`, `ON CONFLICT`, `lower(x) LIKE lower($1)` instead of `ILIKE`, and native Rust
//!   values (chrono, uuid) that sqlx encodes for each engine.
//! - Rows are read into private wrapper structs deriving `sqlx::FromRow` and converted to the
//!   core's domain types, which never derive sqlx traits.
//! - Every tenant query carries the [`chatflow_core::TenantScope`]'s company in its `WHERE`
//!   clause; the platform-level calls of the ports (plans, the company list, sign-in by e-mail,
//!   refresh-token lookup) say so in their names.
//! - Database failures never reach clients as text: unique and foreign-key violations that mean
//!   something to a user become catalogue codes (`ERR_DUPLICATED_EMAIL`, `ERR_NO_PLAN_FOUND`...),
//!   everything else becomes `ERR_INTERNAL` with the detail kept for logs.
//!
//! # Wiring
//! `Store` implements every repository port; hosts share one store behind an `Arc`:
//! ```no_run
//! use std::sync::Arc;
//! use chatflow_core::ports::{CompanyRepo, UserRepo};
//!
//! // `stamps`: the clock and id generator of the use cases' ports (see `chatflow-wiring`).
//! # async fn wire(stamps: chatflow_store::Stamps) -> Result<(), chatflow_store::Error> {
//! let store = Arc::new(chatflow_store::Store::connect("sqlite://data/chatflow.db", stamps).await?);
//! store.migrate().await?;
//! let companies: Arc<dyn CompanyRepo> = store.clone();
//! let users: Arc<dyn UserRepo> = store.clone();
//! # let _ = (companies, users);
//! # Ok(())
//! # }
//! ```

pub mod bulk;
mod db;
mod error;
mod repo;
pub mod testing;

pub use db::{Backend, DbPool, Stamps, Store};
pub use error::{Error, Result};
