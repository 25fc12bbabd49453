//! The harness: runs one test function on SQLite and on PostgreSQL, and shared fixtures.

use std::future::Future;

use chatflow_core::ports::{CompanyRepo, NewCompany, NewPlan, PlanRepo};
use chatflow_core::tenancy::{Money, PlanFlags, Recurrence};
use chatflow_core::{PlanId, TenantScope};
use chatflow_store::{Stamps, Store, testing};
use chrono::NaiveDate;

/// Declares, for each listed async test function `fn(Store)`, one `#[tokio::test]` on SQLite and
/// one on PostgreSQL, both on a migrated database.
#[macro_export]
macro_rules! store_tests {
    ($($name:ident),* $(,)?) => {
        mod sqlite {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    $crate::support::on_sqlite(true, super::$name).await;
                }
            )*
        }
        mod postgres {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    $crate::support::on_postgres(true, super::$name).await;
                }
            )*
        }
    };
}

/// Like [`store_tests!`], on a database that has not been migrated.
#[macro_export]
macro_rules! unmigrated_store_tests {
    ($($name:ident),* $(,)?) => {
        mod sqlite_unmigrated {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    $crate::support::on_sqlite(false, super::$name).await;
                }
            )*
        }
        mod postgres_unmigrated {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    $crate::support::on_postgres(false, super::$name).await;
                }
            )*
        }
    };
}

/// The stamps of a test store: the wall clock and random ids, as the server's defaults.
pub fn stamps() -> Stamps {
    Stamps::new(
        std::sync::Arc::new(chatflow_system::SystemClock),
        std::sync::Arc::new(chatflow_system::RandomIds),
    )
}

/// Runs `test` on a store over a new SQLite file (see [`chatflow_store::testing::on_sqlite`]).
pub async fn on_sqlite<F, Fut>(migrate: bool, test: F)
where
    F: FnOnce(Store) -> Fut,
    Fut: Future<Output = ()> + Send + 'static,
{
    testing::on_sqlite(stamps(), migrate, |store, _| test(store)).await;
}

/// Runs `test` on a store over a new PostgreSQL database, dropped afterwards (see
/// [`chatflow_store::testing::on_postgres`]).
pub async fn on_postgres<F, Fut>(migrate: bool, test: F)
where
    F: FnOnce(Store) -> Fut + Send + 'static,
    Fut: Future<Output = ()> + Send + 'static,
{
    testing::on_postgres(stamps(), migrate, |store, _| test(store)).await;
}

/// A date, for fixtures.
pub fn date(y: i32, m: u32, d: u32) -> NaiveDate {
    NaiveDate::from_ymd_opt(y, m, d).expect("a valid date")
}

/// A plan with every feature on.
pub async fn plan(store: &Store, name: &str) -> PlanId {
    PlanRepo::create(
        store,
        &NewPlan {
            name: name.to_owned(),
            users: 10,
            connections: 5,
            queues: 8,
            amount: Money(4990),
            is_public: true,
            flags: PlanFlags::ALL,
        },
    )
    .await
    .expect("plan created")
    .id
}

/// A company on `plan`, returned as its scope.
pub async fn company(store: &Store, plan: PlanId, name: &str) -> TenantScope {
    let company = CompanyRepo::create(
        store,
        &NewCompany {
            name: name.to_owned(),
            email: Some(format!(
                "{}@example.com",
                name.to_lowercase().replace(' ', "-")
            )),
            phone: None,
            plan_id: plan,
            status: true,
            due_date: date(2030, 1, 31),
            recurrence: Recurrence::Mensal,
            document: None,
        },
    )
    .await
    .expect("company created");
    TenantScope::new(company.id)
}

/// Two companies, A and B, on one plan.
pub async fn two_companies(store: &Store) -> (TenantScope, TenantScope) {
    let plan = plan(store, "Basic").await;
    let a = company(store, plan, "Company A").await;
    let b = company(store, plan, "Company B").await;
    (a, b)
}

/// A queue of a company, inserted directly (the queues port grows with its own issue).
pub async fn queue(
    store: &Store,
    scope: TenantScope,
    name: &str,
    color: &str,
    order: Option<i64>,
) -> i64 {
    let company = scope.company_id().0;
    chatflow_store::on_pool!(store.pool(), |p| {
        sqlx::query_scalar::<_, i64>(
            "INSERT INTO queues (company_id, name, color, order_queue) VALUES ($1, $2, $3, $4) RETURNING id",
        )
        .bind(company)
        .bind(name)
        .bind(color)
        .bind(order)
        .fetch_one(p)
        .await
        .expect("queue inserted")
    })
}

/// A connection of a company, inserted directly.
pub async fn connection(store: &Store, scope: TenantScope, name: &str) -> i64 {
    let company = scope.company_id().0;
    chatflow_store::on_pool!(store.pool(), |p| {
        sqlx::query_scalar::<_, i64>(
            "INSERT INTO whatsapps (company_id, name) VALUES ($1, $2) RETURNING id",
        )
        .bind(company)
        .bind(name)
        .fetch_one(p)
        .await
        .expect("connection inserted")
    })
}

/// The company's logged events named `company-{id}-{suffix}`, in order, as an admin of the
/// company receives them (payload without `seq`) with whose sockets they go to.
pub async fn logged_events(
    store: &Store,
    scope: TenantScope,
    suffix: &str,
) -> Vec<(serde_json::Value, chatflow_core::events::Recipients)> {
    use chatflow_core::events::RecipientSettings;
    use chatflow_core::identity::{Actor, Profile, UserFlags};
    use chatflow_core::inbox::ports::EventLog;
    let admin = Actor {
        user_id: chatflow_core::UserId(0),
        company_id: scope.company_id(),
        profile: Profile::Admin,
        is_super: false,
        flags: UserFlags::default(),
        queue_ids: Vec::new(),
    };
    EventLog::read(store, scope, 0, 10_000)
        .await
        .expect("the log reads")
        .into_iter()
        .filter(|e| e.event.suffix() == suffix)
        .map(|e| {
            let mut payload = e
                .event
                .for_recipient(&admin, RecipientSettings::default(), e.seq);
            payload.as_object_mut().map(|p| p.remove("seq"));
            (payload, e.event.recipients())
        })
        .collect()
}

/// The use cases' ports over `store`, assembled as the hosts assemble them
/// ([`chatflow_wiring::Wiring`]): on `clock` (which the store then stamps its writes with
/// too), a cheap argon2id, and `mailer`. Nothing listens at the assistant's address, so a use
/// case reaching an integration fails at once.
pub fn ports_on(
    store: &Store,
    clock: std::sync::Arc<dyn chatflow_core::ports::Clock>,
    mailer: std::sync::Arc<dyn chatflow_core::ports::Mailer>,
) -> chatflow_core::service::Ports {
    use std::sync::Arc;
    let wiring = chatflow_wiring::Wiring::new()
        .with_clock(clock)
        .with_hasher(Arc::new(
            chatflow_system::Argon2Hasher::with_params(8, 1, 1).expect("valid argon2 parameters"),
        ));
    let store = Arc::new(Store::from_pool(store.pool().clone(), wiring.stamps()));
    wiring
        .ports(
            store,
            chatflow_wiring::HostParts {
                secrets: Arc::new(
                    chatflow_system::SealedSecrets::from_key_text(
                        "a test key of thirty-two characters",
                    )
                    .expect("a key"),
                ),
                media: Arc::new(chatflow_system::LocalMediaStore::new(
                    std::env::temp_dir().join("chatflow-store-tests-media"),
                )),
                mailer,
                channels: chatflow_core::inbox::channel::ChannelRegistry::default(),
                openai_base_url: "http://127.0.0.1:9/v1".to_owned(),
            },
        )
        .expect("ports")
}
