//! The store's own errors (connecting and migrating), and the translation of sqlx failures into
//! the core's catalogue errors for repository calls.

use chatflow_core::ErrorCode;

/// Why the store could not be opened or brought up to date.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The database URL names no engine this store speaks (`sqlite:` or `postgres:`).
    #[error("unsupported database URL (expected sqlite://... or postgres://...): {0}")]
    UnsupportedUrl(String),
    /// The directory for a SQLite file could not be created.
    #[error("cannot create the database directory {path}: {source}")]
    CreateDir {
        /// The directory that could not be created.
        path: String,
        /// The underlying I/O failure.
        source: std::io::Error,
    },
    /// The SQLite file could not be created or kept private (mode 0600).
    #[error("cannot keep the database file {path} private: {source}")]
    FileMode {
        /// The file.
        path: String,
        /// The underlying I/O failure.
        source: std::io::Error,
    },
    /// The database could not be reached or opened.
    #[error("cannot connect to the database: {0}")]
    Connect(#[source] sqlx::Error),
    /// A migration failed.
    #[error("cannot migrate the database: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    /// A query outside the repositories (schema inspection) failed.
    #[error("database query failed: {0}")]
    Query(#[from] sqlx::Error),
}

/// The result of opening and migrating the store.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl From<Error> for chatflow_core::Error {
    fn from(error: Error) -> Self {
        chatflow_core::Error::internal(error.to_string())
    }
}

/// A unique or foreign-key constraint that means something to users, and the catalogue code it
/// becomes. Anything not listed is an internal error.
const CONSTRAINT_CODES: &[(&str, ErrorCode)] = &[
    ("users_email_lower_key", ErrorCode::ERR_DUPLICATED_EMAIL),
    (
        "queues_company_color_key",
        ErrorCode::ERR_QUEUE_COLOR_ALREADY_EXISTS,
    ),
    (
        "contacts_company_channel_number_key",
        ErrorCode::ERR_DUPLICATED_CONTACT,
    ),
    (
        "quick_messages_shared_shortcode_key",
        ErrorCode::ERR_QUICK_MESSAGE_SHORTCODE_EXISTS,
    ),
    (
        "quick_messages_owner_shortcode_key",
        ErrorCode::ERR_QUICK_MESSAGE_SHORTCODE_EXISTS,
    ),
    // SQLite names the columns of plain unique indexes rather than the index.
    (
        "queues.company_id, queues.color",
        ErrorCode::ERR_QUEUE_COLOR_ALREADY_EXISTS,
    ),
    (
        "contacts.company_id, contacts.channel, contacts.number",
        ErrorCode::ERR_DUPLICATED_CONTACT,
    ),
];

/// Whether the database refused the data itself, so that running the same statement again can
/// never succeed: PostgreSQL's SQLSTATE classes 22 (data exception: a NUL in text, a value out
/// of range, an invalid encoding) and 23 (integrity constraint violation); SQLite's constraint
/// (19 and its extended codes), too-big (18) and datatype-mismatch (20) results. Lost
/// connections, timeouts, locks and the like are not.
pub(crate) fn is_data_refused(error: &sqlx::Error) -> bool {
    let sqlx::Error::Database(db) = error else {
        return false;
    };
    if !matches!(db.kind(), sqlx::error::ErrorKind::Other) {
        // Unique, foreign-key, not-null and check violations on either engine.
        return true;
    }
    let Some(code) = db.code() else {
        return false;
    };
    if db
        .try_downcast_ref::<sqlx::postgres::PgDatabaseError>()
        .is_some()
    {
        code.starts_with("22") || code.starts_with("23")
    } else {
        // SQLite reports the (extended) result code as a number; the primary code is its low
        // byte.
        code.parse::<i64>()
            .is_ok_and(|c| matches!(c & 0xff, 18..=20))
    }
}

/// Translates a sqlx failure of a repository call into a catalogue error. Data the database
/// refuses ([`is_data_refused`]) that no constraint below names becomes `ERR_VALIDATION` (the
/// request cannot succeed as sent; the database's words are logged, not sent). Other database
/// text only ever lands in the detail of `ERR_INTERNAL`, which is logged and never sent to
/// clients.
pub(crate) fn db_error(error: sqlx::Error) -> chatflow_core::Error {
    if let sqlx::Error::Database(db) = &error
        && db.is_unique_violation()
    {
        let message = db.message();
        let constraint = db.constraint();
        for (name, code) in CONSTRAINT_CODES {
            // PostgreSQL names the index; SQLite names it in the message of expression
            // indexes ("index 'users_email_lower_key'").
            if constraint == Some(*name) || message.contains(name) {
                return chatflow_core::Error::new(*code);
            }
        }
    }
    if is_data_refused(&error) {
        tracing::warn!(%error, "the database refused the data");
        return chatflow_core::Error::with_detail(
            ErrorCode::ERR_VALIDATION,
            "the database cannot store this data",
        );
    }
    chatflow_core::Error::internal(format!("database: {error}"))
}

/// Like [`db_error`], but a foreign-key violation becomes `code` (the referenced row is missing).
pub(crate) fn db_error_missing(error: sqlx::Error, code: ErrorCode) -> chatflow_core::Error {
    if let sqlx::Error::Database(db) = &error
        && db.is_foreign_key_violation()
    {
        return chatflow_core::Error::new(code);
    }
    db_error(error)
}
