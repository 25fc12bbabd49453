//! Throwaway databases for tests: one test function on a store over a
//! new SQLite file or a new PostgreSQL database, removed afterwards (also when the test fails).
//!
//! A migrated database is a copy of a template migrated once ([`migrated_sqlite_copy`],
//! [`create_postgres_database`]): running the migrations takes most of a second per database on
//! PostgreSQL (each one its own committed transaction), a copy a tenth of that. The templates are
//! named after the migrations they hold (their versions and checksums), so a test never gets a
//! schema other than the one its code embeds; the migrations themselves run from nothing in the
//! unmigrated suites and in every test that starts the server as a process.
//!
//! The test gets the store and the database's URL, so it can open the same database again, or
//! hand it to another process (a crash test's child), with [`Store::connect`]. Whether a
//! PostgreSQL test runs, is skipped (no `CHATFLOW_TEST_POSTGRES_URL`) or fails
//! (`CHATFLOW_REQUIRE_POSTGRES` on and no server) is
//! [`chatflow_test_engines::postgres_or_skip`]'s call, as for every other suite.

use std::future::Future;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::panic::resume_unwind;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::time::Duration;

use sqlx::migrate::Migrator;
use sqlx::postgres::{PgConnectOptions, PgConnection, PgPoolOptions};

use crate::db::{POSTGRES_MIGRATIONS, SQLITE_MIGRATIONS};
use crate::{Stamps, Store};

/// The advisory lock under which one test process at a time makes the PostgreSQL template.
const TEMPLATE_LOCK: i64 = 0x6368_6174_666c_6f77;

/// A short name of `migrator`'s migrations (their versions and checksums).
fn migrations_key(migrator: &Migrator) -> String {
    let mut hasher = DefaultHasher::new();
    for migration in migrator.iter() {
        migration.version.hash(&mut hasher);
        migration.checksum.hash(&mut hasher);
    }
    format!("{:016x}", hasher.finish())
}

/// Writes to `path` (creating its directory) a copy of a SQLite database migrated once per
/// migration set: the template is kept in the system's temporary directory and made, when
/// missing, under a unique name and then renamed into place, so processes running at once
/// never copy a half-made one.
pub async fn migrated_sqlite_copy(path: &Path, stamps: Stamps) {
    let template = std::env::temp_dir()
        .join("chatflow-test-templates")
        .join(format!("sqlite-{}.db", migrations_key(&SQLITE_MIGRATIONS)));
    if !template.is_file() {
        // One test of the process makes it; the others wait for it.
        static MAKING: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());
        let _making = MAKING.lock().await;
        if !template.is_file() {
            make_sqlite_template(&template, stamps).await;
        }
    }
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).expect("the database's directory");
    }
    std::fs::copy(&template, path).expect("the template copied");
}

async fn make_sqlite_template(template: &Path, stamps: Stamps) {
    let dir = template.parent().expect("the templates' directory");
    std::fs::create_dir_all(dir).expect("the templates' directory");
    let building: PathBuf = dir.join(format!("building-{}.db", uuid::Uuid::new_v4().simple()));
    let store = Store::connect(&format!("sqlite://{}", building.display()), stamps)
        .await
        .expect("SQLite opens");
    store.migrate().await.expect("migrations apply");
    // The last connection's close folds the write-ahead log into the file.
    store.close().await;
    std::fs::rename(&building, template).expect("the template published");
    for journal in ["-wal", "-shm"] {
        let mut name = building.clone().into_os_string();
        name.push(journal);
        let _ = std::fs::remove_file(name);
    }
}

/// Creates the database `name` on the server `admin` is connected to (`server_url`): empty, or,
/// with `migrated`, a copy of the server's template of the current migrations, made once under
/// an advisory lock by whichever test asks first and published by a rename (templates of other
/// migrations are dropped then, when nothing uses them).
pub async fn create_postgres_database(
    admin: &mut PgConnection,
    server_url: &str,
    name: &str,
    migrated: Option<Stamps>,
) {
    let template = match migrated {
        Some(stamps) => Some(postgres_template(admin, server_url, stamps).await),
        None => None,
    };
    // The names are fixed prefixes and hex digits.
    let sql = match &template {
        Some(template) => format!("CREATE DATABASE {name} TEMPLATE {template}"),
        None => format!("CREATE DATABASE {name}"),
    };
    sqlx::query(sqlx::AssertSqlSafe(sql))
        .execute(&mut *admin)
        .await
        .expect("test database created");
}

async fn postgres_template(admin: &mut PgConnection, server_url: &str, stamps: Stamps) -> String {
    let name = format!("chatflow_tpl_{}", migrations_key(&POSTGRES_MIGRATIONS));
    sqlx::query("SELECT pg_advisory_lock($1)")
        .bind(TEMPLATE_LOCK)
        .execute(&mut *admin)
        .await
        .expect("the template lock");
    let exists: bool =
        sqlx::query_scalar("SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)")
            .bind(&name)
            .fetch_one(&mut *admin)
            .await
            .expect("the template looked up");
    if !exists {
        let stale: Vec<String> = sqlx::query_scalar(
            "SELECT datname FROM pg_database WHERE datname LIKE 'chatflow\\_tpl\\_%'",
        )
        .fetch_all(&mut *admin)
        .await
        .expect("the old templates listed");
        for old in stale {
            // Busy (another checkout's tests use it): left for later.
            let _ = sqlx::query(sqlx::AssertSqlSafe(format!(
                "DROP DATABASE IF EXISTS {old}"
            )))
            .execute(&mut *admin)
            .await;
        }
        let building = format!("chatflow_tplb_{}", uuid::Uuid::new_v4().simple());
        sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE {building}")))
            .execute(&mut *admin)
            .await
            .expect("the template created");
        let store = Store::connect(&database_url_for(server_url, &building), stamps)
            .await
            .expect("the template reachable");
        store.migrate().await.expect("migrations apply");
        store.close().await;
        // The closed connections' backends may take a moment to leave.
        let mut attempts = 0;
        loop {
            let renamed = sqlx::query(sqlx::AssertSqlSafe(format!(
                "ALTER DATABASE {building} RENAME TO {name}"
            )))
            .execute(&mut *admin)
            .await;
            match renamed {
                Ok(_) => break,
                Err(_) if attempts < 50 => {
                    attempts += 1;
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
                Err(e) => panic!("the template was not published: {e}"),
            }
        }
    }
    sqlx::query("SELECT pg_advisory_unlock($1)")
        .bind(TEMPLATE_LOCK)
        .execute(&mut *admin)
        .await
        .expect("the template lock released");
    name
}

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
    if migrate {
        migrated_sqlite_copy(&path, stamps.clone()).await;
    }
    let store = Store::connect(&url, stamps).await.expect("SQLite opens");
    assert!(path.is_file(), "the database file is created");
    if migrate {
        // Nothing left to apply on the template's copy: checks it is current.
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
    let template = migrate.then(|| stamps.clone());
    throwaway_postgres("chatflow_test", template, |url| async move {
        let store = Store::connect(&url, stamps)
            .await
            .expect("test database reachable");
        if migrate {
            // Nothing left to apply on the template's copy: checks it is current.
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
    throwaway_postgres(prefix, None, exercise).await;
}

/// [`on_throwaway_postgres`] on an empty database, or on a migrated one (a copy of the
/// template, see [`create_postgres_database`]) when given the stamps to make the template with.
async fn throwaway_postgres<F, Fut>(prefix: &str, migrated: Option<Stamps>, exercise: F)
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
    {
        let mut conn = admin
            .acquire()
            .await
            .expect("the PostgreSQL server answers");
        create_postgres_database(&mut conn, &server_url, &name, migrated).await;
    }
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
