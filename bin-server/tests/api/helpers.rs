//! The harness: a real server on port 0 over a fresh database, and request helpers.
//!
//! [`app_tests!`] declares each test twice: on a new SQLite file and, when
//! `CHATFLOW_TEST_POSTGRES_URL` is set, on a new uniquely named PostgreSQL database that is
//! dropped afterwards (without it the PostgreSQL twin is skipped and logged as skipped, or fails
//! when `CHATFLOW_REQUIRE_POSTGRES=1`: `chatflow_system::test_engines`). Fixtures (plans,
//! companies, users) go through the same ports and use cases the server uses.

use std::future::Future;
use std::panic::resume_unwind;
use std::path::PathBuf;
use std::sync::Arc;

use chatflow_core::identity::{Profile, Toggle};
use chatflow_core::inbox::sandbox::SandboxRepo;
use chatflow_core::ports::{NewCompany, NewPlan};
use chatflow_core::service::Ports;
use chatflow_core::service::users::{self, NewUserInput};
use chatflow_core::tenancy::{Money, PlanFlags, Recurrence};
use chatflow_core::{CompanyId, PlanId, TenantScope, UserId};
use chatflow_server::JobRunner;
use chatflow_server::config::{Config, Secret};
use chatflow_server::jobs::DueJobs;

/// Jobs that keep connections and contacts up to date on their own (a connected connection's
/// delivery look, a new ticket's picture lookup): [`TestApp::run_due_jobs`] runs them but does
/// not count them, so a test counts the jobs its conversation queued.
const UPKEEP_JOBS: [&str; 3] = ["checkDelivery", "refreshPicture", "refreshPictures"];
use chatflow_system::{Argon2Hasher, ManualClock, test_engines};
use chatflow_whatsapp_web::fake::FakeWaClientFactory;
use chatflow_wiring::Wiring;
use chrono::{DateTime, Days, NaiveDate, TimeDelta, Utc};
use reqwest::{Client, Response, StatusCode};
use serde_json::{Value, json};
use sqlx::postgres::PgPoolOptions;
use tokio::sync::oneshot;

/// The seeded super admin.
pub const ADMIN_EMAIL: &str = "root@chatflow.test";
/// The seeded super admin's password.
pub const ADMIN_PASSWORD: &str = "Root-password-1";
/// The password of every fixture user.
pub const PASSWORD: &str = "Secret-pass-1";

/// Declares, for each listed `async fn(TestApp)`, one test on SQLite and one on PostgreSQL.
#[macro_export]
macro_rules! app_tests {
    ($($name:ident),* $(,)?) => {
        mod sqlite {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    $crate::helpers::run($crate::helpers::Backend::Sqlite, |_| {}, super::$name).await;
                }
            )*
        }
        mod postgres {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    $crate::helpers::run($crate::helpers::Backend::Postgres, |_| {}, super::$name).await;
                }
            )*
        }
    };
}

/// Declares, for each listed `async fn(TestApp)`, one test on SQLite and one on PostgreSQL, on a
/// server with the sandbox on, a manual clock and no background job worker ([`Time::Manual`]).
#[macro_export]
macro_rules! clocked_tests {
    ($($name:ident),* $(,)?) => {
        mod sqlite {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    $crate::helpers::run_on($crate::helpers::Backend::Sqlite, $crate::helpers::Time::Manual, |c| c.sandbox = Some(true), super::$name).await;
                }
            )*
        }
        mod postgres {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    $crate::helpers::run_on($crate::helpers::Backend::Postgres, $crate::helpers::Time::Manual, |c| c.sandbox = Some(true), super::$name).await;
                }
            )*
        }
    };
}

/// How a test's server keeps time and runs due jobs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Time {
    /// The system clock, and the background worker runs jobs as they fall due.
    Wall,
    /// A [`ManualClock`] (showing the wall clock's time when the server starts, then standing
    /// still) and no background worker: the test moves time with [`TestApp::advance`] and runs
    /// the due jobs with [`TestApp::run_due_jobs`], so what it checks does not depend on how
    /// fast the machine is.
    Manual,
}

/// The database engine of a test run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

/// A running server and a client for it.
pub struct TestApp {
    /// `http://127.0.0.1:PORT`.
    pub address: String,
    /// `127.0.0.1:PORT`.
    pub host: String,
    /// A client that keeps cookies, like a browser.
    pub client: Client,
    /// The server's ports, for fixtures and checks.
    pub ports: Ports,
    /// The server's shared state (token keys...).
    pub state: chatflow_server::state::AppState,
    /// The media directory.
    pub media_dir: PathBuf,
    /// The server's clock, when the test runs on [`Time::Manual`].
    pub clock: Option<ManualClock>,
    /// Runs the jobs due on the server's clock.
    pub due_jobs: DueJobs,
    /// The server's store (for checks the API does not answer, such as the sandbox's queue).
    pub store: Arc<chatflow_store::Store>,
    /// The server's WhatsApp Web sessions (provider `beta`) run on this scripted fake: no test
    /// reaches WhatsApp.
    pub whatsapp: FakeWaClientFactory,
    /// The configuration the server was built with.
    pub config: Config,
}

/// Runs `test` against a fresh server on `backend`, with `configure` applied to its config, on
/// the wall clock.
pub async fn run<C, F, Fut>(backend: Backend, configure: C, test: F)
where
    C: FnOnce(&mut Config),
    F: FnOnce(TestApp) -> Fut,
    Fut: Future<Output = ()> + Send + 'static,
{
    run_on(backend, Time::Wall, configure, test).await;
}

/// Runs `test` against a fresh server on `backend` keeping `time`, with `configure` applied to
/// its config.
pub async fn run_on<C, F, Fut>(backend: Backend, time: Time, configure: C, test: F)
where
    C: FnOnce(&mut Config),
    F: FnOnce(TestApp) -> Fut,
    Fut: Future<Output = ()> + Send + 'static,
{
    let dir = tempfile::tempdir().expect("a temporary directory");
    let mut pg = None;
    let database_url = match backend {
        Backend::Sqlite => {
            test_engines::record_sqlite();
            // Migrated already (a copy of the template): the server's start finds nothing to
            // apply. The migrations run from nothing in the store's and the process tests.
            let file = dir.path().join("chatflow.db");
            chatflow_store::testing::migrated_sqlite_copy(&file, template_stamps()).await;
            format!("sqlite://{}", file.display())
        }
        Backend::Postgres => {
            let Some(server) = test_engines::postgres_or_skip() else {
                return;
            };
            let db = PgTestDb::create(&server).await;
            let url = db.url.clone();
            pg = Some(db);
            url
        }
    };
    let mut config = Config::defaults();
    config.database_url = Secret::new(database_url);
    config.host = [127, 0, 0, 1].into();
    config.port = 0;
    config.admin_email = Some(ADMIN_EMAIL.to_owned());
    config.admin_password = Some(Secret::new(ADMIN_PASSWORD));
    config.web_dir = Some(dir.path().join("no-web"));
    config.media_dir = dir.path().join("media");
    config.secret_key_file = Some(dir.path().join("secret.key"));
    config.login_rate_per_minute = 1000;
    // Strict reuse detection unless a test asks for the grace window of two tabs.
    config.refresh_reuse_grace = 0;
    if time == Time::Manual {
        // Tokens expire on the server's clock: a test that moves it by days keeps its sign-ins
        // (a test of expiry reads the TTL from the server).
        config.access_token_ttl = 60 * 24 * 3600;
    }
    configure(&mut config);
    let (test_app, running) = start(config, time).await;
    let outcome = tokio::spawn(test(test_app)).await;
    running.stop().await;
    if let Some(db) = pg {
        db.drop_database().await;
    }
    drop(dir);
    if let Err(failure) = outcome {
        resume_unwind(failure.into_panic());
    }
}

/// A server a test started, until [`Running::stop`].
pub struct Running {
    stop: oneshot::Sender<()>,
    server: tokio::task::JoinHandle<std::io::Result<()>>,
}

impl Running {
    /// Shuts the server down gracefully (its WhatsApp sessions hand their leases over) and
    /// waits until it stopped.
    pub async fn stop(self) {
        let _ = self.stop.send(());
        let _ = self.server.await;
    }
}

/// Builds and serves a server on `config` keeping `time`.
async fn start(config: Config, time: Time) -> (TestApp, Running) {
    let media_dir = config.media_dir.clone();
    let hasher = Arc::new(Argon2Hasher::with_params(8, 1, 1).expect("cheap argon2 parameters"));
    let mut wiring = Wiring::new().with_hasher(hasher);
    let (clock, runner) = match time {
        Time::Wall => (None, JobRunner::Background),
        Time::Manual => {
            let clock = ManualClock::starting_now();
            wiring = wiring.with_clock(Arc::new(clock.clone()));
            (Some(clock), JobRunner::Explicit)
        }
    };
    let whatsapp = FakeWaClientFactory::new();
    let app = chatflow_server::build_with_whatsapp(
        config.clone(),
        wiring,
        runner,
        Arc::new(whatsapp.clone()),
    )
    .await
    .expect("the server builds");
    let addr = app.local_addr().expect("bound");
    let state = app.state().clone();
    let due_jobs = app.due_jobs();
    let store = app.store().clone();
    let (stop, stopped) = oneshot::channel::<()>();
    let server = tokio::spawn(app.serve(async move {
        let _ = stopped.await;
    }));
    let test_app = TestApp {
        address: format!("http://{addr}"),
        host: addr.to_string(),
        client: browser(),
        ports: state.ports.clone(),
        state,
        media_dir,
        clock,
        due_jobs,
        store,
        whatsapp,
        config,
    };
    (test_app, Running { stop, server })
}

/// A new client with its own cookie jar (another browser).
pub fn browser() -> Client {
    Client::builder()
        .cookie_store(true)
        .build()
        .expect("an HTTP client")
}

/// A throwaway PostgreSQL database.
struct PgTestDb {
    server: String,
    name: String,
    url: String,
}

/// The stamps the migration templates are made with (their migrations stamp nothing).
fn template_stamps() -> chatflow_store::Stamps {
    chatflow_store::Stamps::new(
        Arc::new(chatflow_system::SystemClock),
        Arc::new(chatflow_system::RandomIds),
    )
}

impl PgTestDb {
    /// A database migrated already (a copy of the server's template).
    async fn create(server: &str) -> Self {
        let admin = PgPoolOptions::new()
            .max_connections(1)
            .connect(server)
            .await
            .expect("PostgreSQL answers");
        let name = format!("chatflow_api_{}", uuid::Uuid::new_v4().simple());
        {
            let mut conn = admin.acquire().await.expect("PostgreSQL answers");
            chatflow_store::testing::create_postgres_database(
                &mut conn,
                server,
                &name,
                Some(template_stamps()),
            )
            .await;
        }
        admin.close().await;
        let url = with_database(server, &name);
        Self {
            server: server.to_owned(),
            name,
            url,
        }
    }

    async fn drop_database(self) {
        let admin = PgPoolOptions::new()
            .max_connections(1)
            .connect(&self.server)
            .await
            .expect("PostgreSQL answers");
        sqlx::query(sqlx::AssertSqlSafe(format!(
            "DROP DATABASE IF EXISTS {} WITH (FORCE)",
            self.name
        )))
        .execute(&admin)
        .await
        .expect("test database dropped");
        admin.close().await;
    }
}

/// `server` (a PostgreSQL URL) with its database replaced by `name`.
fn with_database(server: &str, name: &str) -> String {
    let (scheme, rest) = server.split_once("://").expect("a URL with a scheme");
    let (before_query, query) = match rest.split_once('?') {
        Some((a, q)) => (a, Some(q)),
        None => (rest, None),
    };
    let authority = before_query.split('/').next().unwrap_or(before_query);
    match query {
        Some(q) => format!("{scheme}://{authority}/{name}?{q}"),
        None => format!("{scheme}://{authority}/{name}"),
    }
}

/// Today plus (or minus) days.
pub fn days_from_today(days: i64) -> NaiveDate {
    let today = Utc::now().date_naive();
    if days >= 0 {
        today
            .checked_add_days(Days::new(days.unsigned_abs()))
            .expect("a date")
    } else {
        today
            .checked_sub_days(Days::new(days.unsigned_abs()))
            .expect("a date")
    }
}

/// A created user: ids and credentials.
#[derive(Debug, Clone)]
pub struct Member {
    pub id: UserId,
    pub email: String,
}

/// Options of a fixture user.
#[derive(Debug, Clone, Default)]
pub struct MemberOptions {
    pub admin: bool,
    pub allow_connections: bool,
    pub show_dashboard: bool,
}

impl TestApp {
    /// The company's logged events named `company-{id}-{suffix}`, in order, as (seq, payload
    /// an admin of the company receives without `seq`, whose sockets it goes to).
    pub async fn logged_events(
        &self,
        company: CompanyId,
        suffix: &str,
    ) -> Vec<(i64, Value, chatflow_core::events::Recipients)> {
        use chatflow_core::events::RecipientSettings;
        use chatflow_core::identity::{Actor, UserFlags};
        let admin = Actor {
            user_id: UserId(0),
            company_id: company,
            profile: Profile::Admin,
            is_super: false,
            flags: UserFlags::default(),
            queue_ids: Vec::new(),
        };
        self.ports
            .event_log
            .read(TenantScope::new(company), 0, 10_000)
            .await
            .expect("the log reads")
            .into_iter()
            .filter(|e| e.event.suffix() == suffix)
            .map(|e| {
                let mut payload =
                    e.event
                        .for_recipient(&admin, RecipientSettings::default(), e.seq);
                payload.as_object_mut().map(|p| p.remove("seq"));
                (e.seq, payload, e.event.recipients())
            })
            .collect()
    }

    /// The server's time now.
    pub fn now(&self) -> DateTime<Utc> {
        self.ports.clock.now()
    }

    /// Moves the server's manual clock on by `by` (the test must run on [`Time::Manual`]).
    pub fn advance(&self, by: TimeDelta) {
        self.clock
            .as_ref()
            .expect("advance needs a test on the manual clock (Time::Manual)")
            .advance(by);
    }

    /// A second server process on this one's database, key file and media directory (on its
    /// own port, the wall clock, its own WhatsApp fake): what several servers sharing one
    /// database look like.
    pub async fn another_server(&self) -> (TestApp, Running) {
        start(self.config.clone(), Time::Wall).await
    }

    /// Runs every job due on the server's clock now, as the background worker would; answers
    /// how many ran.
    pub async fn run_due_jobs(&self) -> usize {
        self.due_jobs
            .run()
            .await
            .expect("the due jobs run")
            .into_iter()
            .filter(|kind| !UPKEEP_JOBS.contains(kind))
            .count()
    }

    /// The company's jobs waiting or failed, upkeep left out (see [`UPKEEP_JOBS`]).
    pub async fn pending_jobs(
        &self,
        scope: chatflow_core::TenantScope,
    ) -> Vec<chatflow_core::jobs::Job> {
        let mut jobs = chatflow_core::jobs::JobQueue::pending(self.ports.jobs.as_ref(), scope)
            .await
            .expect("jobs");
        jobs.retain(|job| !UPKEEP_JOBS.contains(&job.payload.kind()));
        jobs
    }

    /// Waits until the sandbox has delivered everything phones sent and the automation lines
    /// are idle. A phone's message is marked delivered once the server stored it and accepted
    /// its automation (flows, routing, integrations); the lines are idle once every accepted
    /// automation ended. So after this, whatever the messages cause has happened, and what has
    /// not happened will not (panics after 10 s).
    pub async fn inbound_settled(&self) {
        for _ in 0..400 {
            let waiting = SandboxRepo::undelivered(self.store.as_ref(), 1)
                .await
                .expect("the sandbox queue");
            if waiting.is_empty() && self.state.automation.idle() {
                return;
            }
            tokio::time::sleep(std::time::Duration::from_millis(25)).await;
        }
        panic!("the sandbox never delivered what phones sent, or their automation never ended");
    }

    /// A URL on the server.
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.address)
    }

    /// A plan allowing `users` users.
    pub async fn plan(&self, name: &str, users: i64, public: bool) -> PlanId {
        self.ports
            .plans
            .create(&NewPlan {
                name: name.to_owned(),
                users,
                connections: 3,
                queues: 3,
                amount: Money(4990),
                is_public: public,
                flags: PlanFlags::ALL,
            })
            .await
            .expect("plan created")
            .id
    }

    /// A company on `plan`, due on `due_date`.
    pub async fn company_on(&self, name: &str, plan: PlanId, due_date: NaiveDate) -> CompanyId {
        self.ports
            .companies
            .create(&NewCompany {
                name: name.to_owned(),
                email: None,
                phone: None,
                plan_id: plan,
                status: true,
                due_date,
                recurrence: Recurrence::Mensal,
                document: None,
            })
            .await
            .expect("company created")
            .id
    }

    /// A company on a roomy plan, due in 30 days.
    pub async fn company(&self, name: &str) -> CompanyId {
        let plan = self.plan(&format!("{name} plan"), 50, false).await;
        self.company_on(name, plan, days_from_today(30)).await
    }

    /// A user of `company` with password [`PASSWORD`].
    pub async fn member(&self, company: CompanyId, email: &str, options: MemberOptions) -> Member {
        let on = |flag: bool| if flag { Some(Toggle::Enabled) } else { None };
        let user = users::create_in_company(
            &self.ports,
            TenantScope::new(company),
            NewUserInput {
                name: email.split('@').next().unwrap_or("user").to_owned(),
                email: email.to_owned(),
                password: PASSWORD.to_owned(),
                profile: Some(if options.admin {
                    Profile::Admin
                } else {
                    Profile::User
                }),
                allow_connections: on(options.allow_connections),
                show_dashboard: on(options.show_dashboard),
                ..NewUserInput::default()
            },
        )
        .await
        .expect("user created");
        Member {
            id: user.id,
            email: user.email,
        }
    }

    /// Signs in with a fresh client and returns the access token.
    pub async fn token(&self, email: &str, password: &str) -> String {
        let response = self.login_with(&browser(), email, password).await;
        assert_eq!(response.status(), StatusCode::OK, "sign-in of {email}");
        let body: Value = response.json().await.expect("JSON");
        body["token"].as_str().expect("a token").to_owned()
    }

    /// The access token of a fixture member.
    pub async fn token_of(&self, member: &Member) -> String {
        self.token(&member.email, PASSWORD).await
    }

    /// The seeded super admin's access token.
    pub async fn super_token(&self) -> String {
        self.token(ADMIN_EMAIL, ADMIN_PASSWORD).await
    }

    /// `POST /auth/login` with `client`.
    pub async fn login_with(&self, client: &Client, email: &str, password: &str) -> Response {
        client
            .post(self.url("/auth/login"))
            .json(&json!({ "email": email, "password": password }))
            .send()
            .await
            .expect("request sent")
    }

    /// A GET with a bearer token.
    pub async fn get(&self, path: &str, token: &str) -> Response {
        self.client
            .get(self.url(path))
            .bearer_auth(token)
            .send()
            .await
            .expect("request sent")
    }

    /// A DELETE with a bearer token.
    pub async fn delete(&self, path: &str, token: &str) -> Response {
        self.client
            .delete(self.url(path))
            .bearer_auth(token)
            .send()
            .await
            .expect("request sent")
    }

    /// A POST of JSON with a bearer token.
    pub async fn post(&self, path: &str, token: &str, body: &Value) -> Response {
        self.client
            .post(self.url(path))
            .bearer_auth(token)
            .json(body)
            .send()
            .await
            .expect("request sent")
    }

    /// A PUT of JSON with a bearer token.
    pub async fn put(&self, path: &str, token: &str, body: &Value) -> Response {
        self.client
            .put(self.url(path))
            .bearer_auth(token)
            .json(body)
            .send()
            .await
            .expect("request sent")
    }
}

/// Reads an error response: its status and `error` code, checking the error format on the way
/// and that no storage text leaked.
pub async fn error_of(response: Response) -> (StatusCode, String) {
    let status = response.status();
    let is_json = response
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|t| t.starts_with("application/json"));
    let text = response.text().await.expect("a body");
    assert!(is_json, "error bodies are JSON, got {status}: {text}");
    assert_no_storage_text(&text);
    let body: Value = serde_json::from_str(&text).expect("JSON error body");
    let code = body["error"].as_str().expect("an error code").to_owned();
    assert!(code.starts_with("ERR_"), "{code}");
    assert!(body["message"].is_string(), "a message: {text}");
    (status, code)
}

/// Asserts an error response has `status` and `code`.
pub async fn assert_error(response: Response, status: StatusCode, code: &str) {
    let (got_status, got_code) = error_of(response).await;
    assert_eq!((got_status, got_code.as_str()), (status, code));
}

/// Fails when `text` carries database or SQL vocabulary.
pub fn assert_no_storage_text(text: &str) {
    let lower = text.to_lowercase();
    for word in [
        "sqlite",
        "postgres",
        "sqlx",
        "constraint",
        "select ",
        "insert ",
        "syntax",
        "database",
    ] {
        assert!(
            !lower.contains(word),
            "storage text `{word}` leaked: {text}"
        );
    }
}

/// The JSON of a successful response, checking its status.
pub async fn json_of(response: Response, status: StatusCode) -> Value {
    let got = response.status();
    let text = response.text().await.expect("a body");
    assert_eq!(got, status, "{text}");
    serde_json::from_str(&text).expect("a JSON body")
}
