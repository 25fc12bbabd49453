//! Throwaway databases for tests (feature `test-support`): one test function on a store over a
//! new SQLite file or a new PostgreSQL database, removed afterwards (also when the test fails).
//!
//! The test gets the store and the database's URL, so it can open the same database again, or
//! hand it to another process (a crash test's child), with [`Store::connect`]. Whether a
//! PostgreSQL test runs, is skipped (no `CHATFLOW_TEST_POSTGRES_URL`) or fails
//! (`CHATFLOW_REQUIRE_POSTGRES` on and no server) is
//! [`chatflow_test_engines::postgres_or_skip`]'s call, as for every other suite.

use std::future::Future;
use std::panic::resume_unwind;
use std::str::FromStr;

use sqlx::postgres::{PgConnectOptions, PgPoolOptions};

use crate::{Stamps, Store};

/// Runs `test` on a store over a new SQLite file in a temporary directory (in a sub-directory
/// that does not exist yet, so connecting must create it), migrated when `migrate`.
pub async fn on_sqlite<F, Fut>(stamps: Stamps, migrate: bool, test: F)
where
    F: FnOnce(Store, String) -> Fut,
    Fut: Future<Output = ()> + Send + 'static,
{
    chatflow_test_engines::record_sqlite();
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("nested").join("chatflow.db");
    let url = format!("sqlite://{}", path.display());
    let store = Store::connect(&url, stamps).await.expect("SQLite opens");
    assert!(path.is_file(), "the database file is created");
    if migrate {
        store.migrate().await.expect("migrations apply");
    }
    let outcome = tokio::spawn(test(store.clone(), url)).await;
    store.close().await;
    if let Err(failure) = outcome {
        resume_unwind(failure.into_panic());
    }
}

/// Runs `test` on a store over a new PostgreSQL database ([`on_throwaway_postgres`]),
/// migrated when `migrate`.
pub async fn on_postgres<F, Fut>(stamps: Stamps, migrate: bool, test: F)
where
    F: FnOnce(Store, String) -> Fut + Send + 'static,
    Fut: Future<Output = ()> + Send + 'static,
{
    on_throwaway_postgres("chatflow_test", |url| async move {
        let store = Store::connect(&url, stamps)
            .await
            .expect("test database reachable");
        if migrate {
            store.migrate().await.expect("migrations apply");
        }
        test(store.clone(), url).await;
        store.close().await;
    })
    .await;
}

/// Runs `exercise` with the URL of a new, empty PostgreSQL database named `{prefix}_{hex}` on
/// the server of `CHATFLOW_TEST_POSTGRES_URL`, and drops the database afterwards, also when the
/// exercise fails.
pub async fn on_throwaway_postgres<F, Fut>(prefix: &str, exercise: F)
where
    F: FnOnce(String) -> Fut,
    Fut: Future<Output = ()> + Send + 'static,
{
    let Some(server_url) = chatflow_test_engines::postgres_or_skip() else {
        return;
    };
    let server = PgConnectOptions::from_str(&server_url).expect("a PostgreSQL URL");
    let admin = PgPoolOptions::new()
        .max_connections(1)
        .connect_with(server)
        .await
        .expect("the PostgreSQL server answers");
    let name = format!("{prefix}_{}", uuid::Uuid::new_v4().simple());
    // The name is a fixed prefix and hex digits.
    sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
        .execute(&admin)
        .await
        .expect("test database created");
    let outcome = tokio::spawn(exercise(database_url_for(&server_url, &name))).await;
    sqlx::query(sqlx::AssertSqlSafe(format!(
        "DROP DATABASE IF EXISTS {name} WITH (FORCE)"
    )))
    .execute(&admin)
    .await
    .expect("test database dropped");
    admin.close().await;
    if let Err(failure) = outcome {
        resume_unwind(failure.into_panic());
    }
}

/// `server_url` with its database replaced by `database` (query parameters kept).
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

#[cfg(test)]
mod tests {
    use super::database_url_for;

    #[test]
    fn database_urls_are_rewritten_to_the_test_database() {
        assert_eq!(
            database_url_for("postgres://u@h:5432/postgres", "t"),
            "postgres://u@h:5432/t"
        );
        assert_eq!(
            database_url_for("postgres://u@h/postgres?sslmode=disable", "t"),
            "postgres://u@h/t?sslmode=disable"
        );
        assert_eq!(database_url_for("postgres://u@h", "t"), "postgres://u@h/t");
    }
}
