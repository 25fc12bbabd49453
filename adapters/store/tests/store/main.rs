//! The store's test suite: every test is an async function taking a fresh, migrated [`Store`],
//! run once on SQLite (a temporary file) and once on PostgreSQL when
//! `CHATFLOW_TEST_POSTGRES_URL` names a server (each PostgreSQL test creates its own uniquely
//! named database and drops it at the end). Without that server the PostgreSQL half is skipped
//! and logged as skipped, or fails when `CHATFLOW_REQUIRE_POSTGRES=1`
//! (`chatflow_system::test_engines`).
//!
//! [`Store`]: chatflow_store::Store

mod support;

mod automation;
mod bulk;
mod channel_sessions;
mod companies;
mod connections;
mod contacts;
mod delivery;
mod flows;
mod gaps;
mod history;
mod identities;
mod inbound;
mod inbox_lists;
mod jobs;
mod password_resets;
mod plans;
mod queues;
mod queues_helps;
mod quick_messages;
mod schedules;
mod schema;
mod services;
mod sessions;
mod settings;
mod staged_uploads;
mod tags;
mod tickets;
mod users;
