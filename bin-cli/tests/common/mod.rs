//! Shared by the CLI test files: the database a test runs the CLI on, a SQLite file or a
//! throwaway PostgreSQL database, each logged by `chatflow_system::test_engines`.

// Each test binary uses some of these helpers.
#![allow(dead_code)]

use std::future::Future;
use std::path::Path;
use std::str::FromStr;

use chatflow_system::test_engines;

/// The URL of the SQLite file `chatflow.db` in `dir` (which need not exist yet), for the running
/// test (logged as a SQLite run).
pub fn sqlite_url(dir: &Path) -> String {
    test_engines::record_sqlite();
    format!("sqlite://{}", dir.join("chatflow.db").display())
}

/// Runs `exercise` with the URL of a new, empty PostgreSQL database named `{prefix}_{hex}` on
/// the server of `CHATFLOW_TEST_POSTGRES_URL`, and drops the database afterwards, also when the
/// exercise fails. Whether it runs, is skipped or fails is
/// [`test_engines::postgres_or_skip`]'s call.
pub async fn on_throwaway_postgres<F, Fut>(prefix: &str, exercise: F)
where
    F: FnOnce(String) -> Fut,
    Fut: Future<Output = ()> + Send + 'static,
{
    let Some(server_url) = test_engines::postgres_or_skip() else {
        return;
    };
    let server = sqlx::postgres::PgConnectOptions::from_str(&server_url).expect("a PostgreSQL URL");
    let admin = sqlx::PgPool::connect_with(server)
        .await
        .expect("the server answers");
    let name = format!("{prefix}_{}", uuid::Uuid::new_v4().simple());
    // The name is a fixed prefix and hex digits.
    sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
        .execute(&admin)
        .await
        .expect("database created");
    let outcome = tokio::spawn(exercise(database_url_for(&server_url, &name))).await;
    sqlx::query(sqlx::AssertSqlSafe(format!(
        "DROP DATABASE IF EXISTS {name} WITH (FORCE)"
    )))
    .execute(&admin)
    .await
    .expect("database dropped");
    if let Err(failure) = outcome {
        std::panic::resume_unwind(failure.into_panic());
    }
}

/// `server_url` with its database replaced by `database`.
pub fn database_url_for(server_url: &str, database: &str) -> String {
    let (base, query) = match server_url.split_once('?') {
        Some((base, query)) => (base, Some(query)),
        None => (server_url, None),
    };
    let after_scheme = base.find("://").map_or(0, |i| i + 3);
    let base = match base[after_scheme..].find('/') {
        Some(slash) => &base[..after_scheme + slash],
        None => base,
    };
    match query {
        Some(query) => format!("{base}/{database}?{query}"),
        None => format!("{base}/{database}"),
    }
}
