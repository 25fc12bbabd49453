//! Opening the database, migrating it, and the pool enum the repositories run on.

use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use chatflow_core::ports::{Clock, IdGenerator};
use chrono::{DateTime, SubsecRound, Utc};
use sqlx::Connection;
use sqlx::migrate::Migrator;
use sqlx::postgres::{PgConnectOptions, PgConnection, PgPool, PgPoolOptions};
use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous,
};

use crate::error::{Error, Result};

/// The SQLite migrations, embedded at build time.
pub(crate) static SQLITE_MIGRATIONS: Migrator = sqlx::migrate!("./migrations/sqlite");
/// The PostgreSQL migrations, embedded at build time.
pub(crate) static POSTGRES_MIGRATIONS: Migrator = sqlx::migrate!("./migrations/postgres");

/// Keeps a SQLite database readable by its owner only: creates `file` with mode 0600 when
/// `create` and it is missing (SQLite then creates `-wal` and `-shm` with the same mode), and
/// narrows the file and its journal files to 0600 when others may read them.
fn private_database_files(file: &std::path::Path, create: bool) -> Result<()> {
    let failed = |path: &std::path::Path, source| Error::FileMode {
        path: path.display().to_string(),
        source,
    };
    if create {
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create(true).truncate(false);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        options.open(file).map_err(|e| failed(file, e))?;
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mut paths = vec![file.to_owned()];
        for suffix in ["-wal", "-shm", "-journal"] {
            let mut name = file.as_os_str().to_owned();
            name.push(suffix);
            paths.push(std::path::PathBuf::from(name));
        }
        for path in paths {
            let mode = match std::fs::metadata(&path) {
                Ok(meta) => meta.permissions().mode(),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                Err(e) => return Err(failed(&path, e)),
            };
            if mode & 0o077 != 0 {
                std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode & 0o600))
                    .map_err(|e| failed(&path, e))?;
            }
        }
    }
    Ok(())
}

/// How long a SQLite connection waits for another writer before failing.
const SQLITE_BUSY_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a caller waits for a free pooled connection.
const ACQUIRE_TIMEOUT: Duration = Duration::from_secs(15);

/// Which database engine a store speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Backend {
    /// One SQLite file (WAL journal): the default for one machine.
    Sqlite,
    /// A PostgreSQL server: for several servers or larger companies.
    Postgres,
}

impl std::fmt::Display for Backend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Backend::Sqlite => "sqlite",
            Backend::Postgres => "postgres",
        })
    }
}

/// A connection pool to one of the two engines.
///
/// Repository code matches on it through [`on_pool!`](crate::on_pool), which runs the same query
/// code against either pool.
#[derive(Debug, Clone)]
pub enum DbPool {
    /// A SQLite pool.
    Sqlite(SqlitePool),
    /// A PostgreSQL pool.
    Postgres(PgPool),
}

/// Runs the same query code against whichever pool a [`DbPool`] holds.
///
/// `on_pool!(pool_expr, |p| body)` expands `body` twice, once with `p` bound to the
/// `&SqlitePool` and once to the `&PgPool`, so each query is written once and type-checked for
/// both engines. Write portable SQL: `$1` placeholders, `RETURNING`, `ON CONFLICT`, no `ILIKE`.
#[macro_export]
macro_rules! on_pool {
    ($pool:expr, |$p:ident| $body:expr) => {
        match $pool {
            $crate::DbPool::Sqlite($p) => $body,
            $crate::DbPool::Postgres($p) => $body,
        }
    };
}

/// Chatflow's storage: implements every repository port of the core.
///
/// Cloning is cheap (the pool is shared).
#[derive(Clone)]
pub struct Store {
    pool: DbPool,
    /// First pages of the inbox tabs per company event sequence (shared by clones).
    lists: std::sync::Arc<crate::repo::list_cache::ListCache>,
    /// Where written times and new ids come from: the same clock and id generator the use
    /// cases' ports hold (the store never reads the wall clock or draws randomness itself).
    stamps: Stamps,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store")
            .field("pool", &self.pool)
            .finish_non_exhaustive()
    }
}

/// The clock and id generator a [`Store`] stamps its writes with (`created_at`, `updated_at`,
/// new uuids). Hosts give the store the very clock and id generator of the use cases'
/// [`chatflow_core::service::Ports`], so there is one time in the whole process (a test's
/// manual clock moves the store's times too).
#[derive(Clone)]
pub struct Stamps {
    /// The time of every write.
    pub clock: Arc<dyn Clock>,
    /// New uuids.
    pub ids: Arc<dyn IdGenerator>,
}

impl Stamps {
    /// Stamps from `clock` and `ids`.
    pub fn new(clock: Arc<dyn Clock>, ids: Arc<dyn IdGenerator>) -> Stamps {
        Stamps { clock, ids }
    }
}

impl Store {
    /// Opens the database named by `url`.
    ///
    /// - `sqlite://path/to/file.db` (or `sqlite:path`, `sqlite::memory:`): the parent directory
    ///   and the file are created when missing, the file readable by its owner only (mode 0600,
    ///   which SQLite gives its `-wal` and `-shm` files too; wider modes of existing files are
    ///   narrowed); the connection uses the WAL journal, foreign
    ///   keys, a busy timeout and `synchronous = NORMAL`.
    /// - `postgres://...` or `postgresql://...`: a PostgreSQL pool.
    ///
    /// Nothing is migrated here: call [`Store::migrate`].
    pub async fn connect(url: &str, stamps: Stamps) -> Result<Store> {
        if url.starts_with("sqlite:") {
            Self::connect_sqlite(url, stamps).await
        } else if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            let options = PgConnectOptions::from_str(url).map_err(Error::Connect)?;
            // One direct connection first: an unreachable server fails at once instead of
            // after the pool's acquire timeout of retries.
            PgConnection::connect_with(&options)
                .await
                .map_err(Error::Connect)?
                .close()
                .await
                .map_err(Error::Connect)?;
            let pool = PgPoolOptions::new()
                .max_connections(16)
                .acquire_timeout(ACQUIRE_TIMEOUT)
                .connect_with(options)
                .await
                .map_err(Error::Connect)?;
            Ok(Store::from_pool(DbPool::Postgres(pool), stamps))
        } else {
            Err(Error::UnsupportedUrl(redact(url)))
        }
    }

    async fn connect_sqlite(url: &str, stamps: Stamps) -> Result<Store> {
        /// The map's size: the file's first 256 MiB (the OS pages it in and out as needed).
        const MMAP_BYTES: u64 = 256 * 1024 * 1024;
        let in_memory = url.contains(":memory:") || url.contains("mode=memory");
        let mut options = SqliteConnectOptions::from_str(url)
            .map_err(Error::Connect)?
            .create_if_missing(true)
            .foreign_keys(true)
            .busy_timeout(SQLITE_BUSY_TIMEOUT)
            .synchronous(SqliteSynchronous::Normal)
            // Pages are read through a shared memory map instead of a read() call each: the
            // inbox reads the same hot pages over and over from several connections.
            .pragma("mmap_size", MMAP_BYTES.to_string());
        if !in_memory {
            options = options.journal_mode(SqliteJournalMode::Wal);
            if let Some(parent) = options.get_filename().parent()
                && !parent.as_os_str().is_empty()
            {
                std::fs::create_dir_all(parent).map_err(|source| Error::CreateDir {
                    path: parent.display().to_string(),
                    source,
                })?;
            }
            private_database_files(options.get_filename(), true)?;
        }
        let file = options.get_filename().to_owned();
        let pool = SqlitePoolOptions::new()
            // WAL lets readers run beside the one writer; writers queue on the busy timeout.
            .max_connections(if in_memory { 1 } else { 8 })
            .acquire_timeout(ACQUIRE_TIMEOUT)
            .connect_with(options)
            .await
            .map_err(Error::Connect)?;
        if !in_memory {
            // The journal files exist now; ones left by an older version may be wider.
            private_database_files(&file, false)?;
        }
        Ok(Store::from_pool(DbPool::Sqlite(pool), stamps))
    }

    /// A store over an existing pool (tests and tools that build their own pool).
    pub fn from_pool(pool: DbPool, stamps: Stamps) -> Store {
        Store {
            pool,
            stamps,
            lists: std::sync::Arc::new(crate::repo::list_cache::ListCache::new()),
        }
    }

    /// The time a write is stamped with: the ports' clock, at microsecond precision (what
    /// PostgreSQL keeps), so a value read back equals the value written on both engines.
    pub(crate) fn now(&self) -> DateTime<Utc> {
        self.stamps.clock.now().trunc_subsecs(6)
    }

    /// A new uuid from the ports' id generator.
    pub(crate) fn new_uuid(&self) -> uuid::Uuid {
        self.stamps.ids.uuid()
    }

    /// The clock and id generator this store stamps its writes with.
    pub fn stamps(&self) -> &Stamps {
        &self.stamps
    }

    /// The inbox first-page cache.
    pub(crate) fn lists(&self) -> &crate::repo::list_cache::ListCache {
        &self.lists
    }

    /// The pool, for adapters that add their own tables through later migrations.
    pub fn pool(&self) -> &DbPool {
        &self.pool
    }

    /// Which engine this store speaks.
    pub fn backend(&self) -> Backend {
        match self.pool {
            DbPool::Sqlite(_) => Backend::Sqlite,
            DbPool::Postgres(_) => Backend::Postgres,
        }
    }

    fn migrator(&self) -> &'static Migrator {
        match self.pool {
            DbPool::Sqlite(_) => &SQLITE_MIGRATIONS,
            DbPool::Postgres(_) => &POSTGRES_MIGRATIONS,
        }
    }

    /// Applies every embedded migration not yet applied. Safe to call on every start.
    pub async fn migrate(&self) -> Result<()> {
        let migrator = self.migrator();
        on_pool!(&self.pool, |p| migrator.run(p).await)?;
        Ok(())
    }

    /// Versions of the embedded migrations that the database has not applied yet (all of them
    /// on an empty database). Hosts that do not migrate by themselves check this is empty.
    pub async fn pending_migrations(&self) -> Result<Vec<i64>> {
        let table_exists: bool = match &self.pool {
            DbPool::Sqlite(p) => {
                sqlx::query_scalar::<_, i64>(
                    "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = '_sqlx_migrations'",
                )
                .fetch_one(p)
                .await?
                    > 0
            }
            DbPool::Postgres(p) => {
                sqlx::query_scalar::<_, bool>("SELECT to_regclass('_sqlx_migrations') IS NOT NULL")
                    .fetch_one(p)
                    .await?
            }
        };
        let applied: Vec<i64> = if table_exists {
            on_pool!(&self.pool, |p| {
                sqlx::query_scalar::<_, i64>("SELECT version FROM _sqlx_migrations WHERE success")
                    .fetch_all(p)
                    .await?
            })
        } else {
            Vec::new()
        };
        Ok(self
            .migrator()
            .iter()
            .map(|m| m.version)
            .filter(|v| !applied.contains(v))
            .collect())
    }

    /// Closes every pooled connection (SQLite checkpoints its WAL on the last close).
    pub async fn close(&self) {
        on_pool!(&self.pool, |p| p.close().await);
    }
}

/// The URL without its password, for error messages.
fn redact(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(scheme_end), Some(at)) if at > scheme_end => {
            let credentials = &url[scheme_end + 3..at];
            match credentials.split_once(':') {
                Some((user, _password)) => {
                    format!("{}{user}:***{}", &url[..scheme_end + 3], &url[at..])
                }
                None => url.to_owned(),
            }
        }
        _ => url.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::redact;

    #[test]
    fn redacts_passwords_only() {
        assert_eq!(redact("mysql://u:secret@host/db"), "mysql://u:***@host/db");
        assert_eq!(redact("mysql://u@host/db"), "mysql://u@host/db");
        assert_eq!(redact("nothing"), "nothing");
    }
}
