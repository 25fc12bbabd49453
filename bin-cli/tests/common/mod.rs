//! Shared by the CLI test files: the database a test runs the CLI on, a SQLite file or a
//! throwaway PostgreSQL database, each logged by `chatflow_system::test_engines`.

// Each test binary uses some of these helpers.
#![allow(dead_code)]

use std::path::Path;

use chatflow_system::test_engines;

/// The URL of the SQLite file `chatflow.db` in `dir` (which need not exist yet), for the running
/// test (logged as a SQLite run).
pub fn sqlite_url(dir: &Path) -> String {
    test_engines::record_sqlite();
    format!("sqlite://{}", dir.join("chatflow.db").display())
}

/// A throwaway PostgreSQL database per test, and how its URL is made (shared with the store's
/// suites).
#[allow(unused_imports)]
pub use chatflow_store::testing::{database_url_for, on_throwaway_postgres};
