//! Connecting, migrating, and the schema's foreign keys and cascades on both engines.

use chatflow_core::identity::{AllTicket, MenuMode, Profile, Theme, Toggle};
use chatflow_core::ports::{
    NewPasswordReset, NewUser, PasswordResetRepo, RefreshSession, SessionRepo, SettingsRepo,
    UserRepo, UserSettings,
};
use chatflow_core::{QueueId, TenantScope};
use chatflow_store::{Backend, DbPool, Error, Store};
use chrono::Utc;
use uuid::Uuid;

use crate::support::{connection, queue, two_companies};
use crate::{store_tests, unmigrated_store_tests};

/// Every table of the foundation schema.
const TABLES: &[&str] = &[
    "plans",
    "companies",
    "platform_settings",
    "company_settings",
    "queues",
    "whatsapps",
    "whatsapp_queues",
    "users",
    "user_queues",
    "refresh_sessions",
    "contacts",
    "contact_custom_fields",
    "tags",
    "contact_tags",
    "tickets",
    "ticket_tags",
    "messages",
    "ticket_notes",
    "ticket_logs",
    "helps",
    "announcements",
    "password_resets",
];

/// The tables that belong to a company (everything but plans, platform settings, helps,
/// announcements and companies itself).
const TENANT_TABLES: &[&str] = &[
    "company_settings",
    "queues",
    "whatsapps",
    "whatsapp_queues",
    "users",
    "user_queues",
    "refresh_sessions",
    "contacts",
    "contact_custom_fields",
    "tags",
    "contact_tags",
    "tickets",
    "ticket_tags",
    "messages",
    "ticket_notes",
    "ticket_logs",
    "password_resets",
];

unmigrated_store_tests!(migrations_apply_from_empty);
store_tests!(
    deleting_a_company_cascades_to_every_tenant_table,
    foreign_keys_are_enforced
);

async fn count_rows(store: &Store, table: &str, company: Option<i64>) -> i64 {
    assert!(
        TABLES.contains(&table),
        "only known table names are formatted into SQL"
    );
    match company {
        None => chatflow_store::on_pool!(store.pool(), |p| {
            sqlx::query_scalar::<_, i64>(sqlx::AssertSqlSafe(format!(
                "SELECT COUNT(*) FROM {table}"
            )))
            .fetch_one(p)
            .await
            .expect("counted")
        }),
        Some(company) => chatflow_store::on_pool!(store.pool(), |p| {
            sqlx::query_scalar::<_, i64>(sqlx::AssertSqlSafe(format!(
                "SELECT COUNT(*) FROM {table} WHERE company_id = $1"
            )))
            .bind(company)
            .fetch_one(p)
            .await
            .expect("counted")
        }),
    }
}

async fn migrations_apply_from_empty(store: Store) {
    let pending = store.pending_migrations().await.expect("inspected");
    assert!(
        !pending.is_empty(),
        "an empty database has every migration pending"
    );
    store.migrate().await.expect("migrated");
    assert!(
        store
            .pending_migrations()
            .await
            .expect("inspected")
            .is_empty()
    );
    store.migrate().await.expect("migrating again is a no-op");
    for table in TABLES {
        assert_eq!(
            count_rows(&store, table, None).await,
            0,
            "{table} exists and is empty"
        );
    }
}

fn user_settings(queue: i64) -> UserSettings {
    UserSettings {
        all_ticket: AllTicket::Disable,
        allow_group: false,
        all_historic: Toggle::Disabled,
        all_user_chat: Toggle::Disabled,
        user_close_pending_ticket: Toggle::Disabled,
        show_dashboard: Toggle::Disabled,
        allow_real_time: Toggle::Disabled,
        allow_connections: Toggle::Disabled,
        start_work: "00:00".into(),
        end_work: "23:59".into(),
        farewell_message: None,
        default_theme: Theme::Light,
        default_menu: MenuMode::Open,
        whatsapp_id: None,
        queue_ids: vec![QueueId(queue)],
    }
}

/// Puts one row in every tenant table of `scope`'s company.
async fn fill_company(store: &Store, scope: TenantScope, tag: &str) {
    let company = scope.company_id().0;
    let queue = queue(store, scope, "Queue", "#999999", Some(1)).await;
    let whatsapp = connection(store, scope, "Number").await;
    let user = UserRepo::create(
        store,
        scope,
        &NewUser {
            name: "Filler".into(),
            email: format!("filler-{tag}@test"),
            password_hash: "x".into(),
            profile: Profile::Admin,
            is_super: false,
            settings: user_settings(queue),
        },
    )
    .await
    .expect("user created")
    .id;
    store
        .set_company_setting(scope, "userRating", "enabled", &[])
        .await
        .expect("setting stored");
    SessionRepo::create(
        store,
        scope,
        &RefreshSession {
            id: Uuid::new_v4(),
            family: Uuid::new_v4(),
            company_id: scope.company_id(),
            user_id: user,
            token_hash: format!("hash-{tag}"),
            expires_at: Utc::now(),
            used_at: None,
            revoked: false,
        },
        &[],
    )
    .await
    .expect("session stored");
    PasswordResetRepo::create(
        store,
        scope,
        &NewPasswordReset {
            user_id: user,
            code_hash: format!("reset-{tag}"),
            expires_at: Utc::now(),
        },
        Utc::now(),
    )
    .await
    .expect("password reset stored");
    let now = Utc::now();
    let ticket_uuid = Uuid::new_v4();
    chatflow_store::on_pool!(store.pool(), |p| {
        let mut tx = p.begin().await.expect("transaction");
        sqlx::query(
            "INSERT INTO whatsapp_queues (company_id, whatsapp_id, queue_id) VALUES ($1, $2, $3)",
        )
        .bind(company)
        .bind(whatsapp)
        .bind(queue)
        .execute(&mut *tx)
        .await
        .expect("whatsapp_queues");
        let contact = sqlx::query_scalar::<_, i64>(
            "INSERT INTO contacts (company_id, name, number, whatsapp_id, lgpd_accepted_at) \
             VALUES ($1, 'Client', $2, $3, $4) RETURNING id",
        )
        .bind(company)
        .bind(format!("55119{tag}"))
        .bind(whatsapp)
        .bind(now)
        .fetch_one(&mut *tx)
        .await
        .expect("contacts");
        sqlx::query("INSERT INTO contact_custom_fields (company_id, contact_id, name, value) VALUES ($1, $2, 'cpf', '1')")
            .bind(company)
            .bind(contact)
            .execute(&mut *tx)
            .await
            .expect("contact_custom_fields");
        let tag_id = sqlx::query_scalar::<_, i64>(
            "INSERT INTO tags (company_id, name, color, kanban) VALUES ($1, 'vip', '#fff', 1) RETURNING id",
        )
        .bind(company)
        .fetch_one(&mut *tx)
        .await
        .expect("tags");
        sqlx::query(
            "INSERT INTO contact_tags (company_id, contact_id, tag_id) VALUES ($1, $2, $3)",
        )
        .bind(company)
        .bind(contact)
        .bind(tag_id)
        .execute(&mut *tx)
        .await
        .expect("contact_tags");
        let ticket = sqlx::query_scalar::<_, i64>(
            "INSERT INTO tickets (company_id, uuid, status, user_id, queue_id, whatsapp_id, contact_id, \
             created_at, updated_at) VALUES ($1, $2, 'open', $3, $4, $5, $6, $7, $7) RETURNING id",
        )
        .bind(company)
        .bind(ticket_uuid)
        .bind(user.0)
        .bind(queue)
        .bind(whatsapp)
        .bind(contact)
        .bind(now)
        .fetch_one(&mut *tx)
        .await
        .expect("tickets");
        sqlx::query("INSERT INTO ticket_tags (company_id, ticket_id, tag_id) VALUES ($1, $2, $3)")
            .bind(company)
            .bind(ticket)
            .bind(tag_id)
            .execute(&mut *tx)
            .await
            .expect("ticket_tags");
        let mut quoted: Option<i64> = None;
        for external in [format!("msg-{tag}-1"), format!("msg-{tag}-2")] {
            let id: i64 = sqlx::query_scalar(
                "INSERT INTO messages (company_id, ticket_id, contact_id, queue_id, whatsapp_id, \
                 external_id, body, from_me, quoted_msg_id, ack, created_at, updated_at) \
                 VALUES ($1, $2, $3, $4, $5, $6, 'hello', TRUE, $7, 2, $8, $8) RETURNING id",
            )
            .bind(company)
            .bind(ticket)
            .bind(contact)
            .bind(queue)
            .bind(whatsapp)
            .bind(external)
            .bind(quoted)
            .bind(now)
            .fetch_one(&mut *tx)
            .await
            .expect("messages");
            quoted = Some(id);
        }
        sqlx::query("INSERT INTO ticket_notes (company_id, note, user_id, ticket_id, contact_id) VALUES ($1, 'note', $2, $3, $4)")
            .bind(company)
            .bind(user.0)
            .bind(ticket)
            .bind(contact)
            .execute(&mut *tx)
            .await
            .expect("ticket_notes");
        sqlx::query("INSERT INTO ticket_logs (company_id, ticket_id, type, user_id, queue_id) VALUES ($1, $2, 'open', $3, $4)")
            .bind(company)
            .bind(ticket)
            .bind(user.0)
            .bind(queue)
            .execute(&mut *tx)
            .await
            .expect("ticket_logs");
        tx.commit().await.expect("committed");
    });
}

async fn deleting_a_company_cascades_to_every_tenant_table(store: Store) {
    let (a, b) = two_companies(&store).await;
    fill_company(&store, a, "1").await;
    fill_company(&store, b, "2").await;
    for table in TENANT_TABLES {
        assert!(
            count_rows(&store, table, Some(a.company_id().0)).await > 0,
            "{table} filled"
        );
    }
    let company = a.company_id().0;
    chatflow_store::on_pool!(store.pool(), |p| {
        sqlx::query("DELETE FROM companies WHERE id = $1")
            .bind(company)
            .execute(p)
            .await
            .map(|_| ())
            .expect("company deleted")
    });
    for table in TENANT_TABLES {
        assert_eq!(
            count_rows(&store, table, Some(a.company_id().0)).await,
            0,
            "{table} emptied for A"
        );
        assert!(
            count_rows(&store, table, Some(b.company_id().0)).await > 0,
            "{table} kept for B"
        );
    }
}

async fn foreign_keys_are_enforced(store: Store) {
    let (a, _b) = two_companies(&store).await;
    let company = a.company_id().0;
    let refused = chatflow_store::on_pool!(store.pool(), |p| {
        sqlx::query("INSERT INTO tickets (company_id, uuid, contact_id) VALUES ($1, $2, 424242)")
            .bind(company)
            .bind(Uuid::new_v4())
            .execute(p)
            .await
            .is_err()
    });
    assert!(refused, "a ticket needs an existing contact");
}

#[tokio::test]
async fn sqlite_connections_use_wal_foreign_keys_and_normal_sync() {
    chatflow_system::test_engines::record_sqlite();
    let dir = tempfile::tempdir().expect("a temporary directory");
    let url = format!("sqlite://{}", dir.path().join("a/b/c.db").display());
    let store = Store::connect(&url, crate::support::stamps())
        .await
        .expect("opened");
    assert_eq!(store.backend(), Backend::Sqlite);
    let DbPool::Sqlite(pool) = store.pool() else {
        panic!("a SQLite URL gives a SQLite pool");
    };
    let journal: String = sqlx::query_scalar("PRAGMA journal_mode")
        .fetch_one(pool)
        .await
        .expect("read");
    let foreign_keys: i64 = sqlx::query_scalar("PRAGMA foreign_keys")
        .fetch_one(pool)
        .await
        .expect("read");
    let synchronous: i64 = sqlx::query_scalar("PRAGMA synchronous")
        .fetch_one(pool)
        .await
        .expect("read");
    let busy_timeout: i64 = sqlx::query_scalar("PRAGMA busy_timeout")
        .fetch_one(pool)
        .await
        .expect("read");
    assert_eq!(journal.to_lowercase(), "wal");
    assert_eq!(foreign_keys, 1);
    assert_eq!(synchronous, 1, "NORMAL");
    assert!(busy_timeout >= 1000, "{busy_timeout}");
    store.close().await;
}

#[tokio::test]
async fn in_memory_sqlite_works() {
    let store = Store::connect("sqlite::memory:", crate::support::stamps())
        .await
        .expect("opened");
    store.migrate().await.expect("migrated");
    assert!(
        store
            .pending_migrations()
            .await
            .expect("inspected")
            .is_empty()
    );
}

#[tokio::test]
async fn unsupported_urls_are_refused_without_their_password() {
    let err = Store::connect(
        "mysql://root:hunter2@localhost/db",
        crate::support::stamps(),
    )
    .await
    .expect_err("not supported");
    assert!(matches!(err, Error::UnsupportedUrl(_)), "{err:?}");
    assert!(!err.to_string().contains("hunter2"), "{err}");
}

#[tokio::test]
async fn an_unreachable_postgres_is_a_connect_error() {
    let err = Store::connect(
        "postgres://postgres@127.0.0.1:1/none",
        crate::support::stamps(),
    )
    .await
    .expect_err("nothing listens on port 1");
    assert!(matches!(err, Error::Connect(_)), "{err:?}");
}

#[tokio::test]
async fn postgres_urls_give_a_postgres_store() {
    let Some(url) = chatflow_system::test_engines::postgres_or_skip() else {
        return;
    };
    let store = Store::connect(&url, crate::support::stamps())
        .await
        .expect("opened");
    assert_eq!(store.backend(), Backend::Postgres);
    store.close().await;
}
