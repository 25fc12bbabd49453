//! Chatflow's HTTP + socket.io host.
//!
//! The server translates HTTP requests and socket events into calls of the core's use cases
//! (`chatflow_core::service`) and their results back into responses; it holds no business rules.
//! [`build`] wires everything from a [`Config`]: the store (connected and migrated), the system
//! adapters, first-start seeding, the access-token key, the realtime bus, and the router.
//! [`App::serve`] runs it until a shutdown signal. Tests start the same [`App`] on port 0.
//!
//! Modules:
//! - [`config`]: flags and environment variables (table in the README).
//! - [`channels`]: the channel providers (WhatsApp Web, the sandbox) and their start.
//! - [`routes`]: the handlers of `docs/api.md`, with their OpenAPI description.
//! - [`extract`]: bodies, parameters and the signed-in caller.
//! - [`error`]: the one table from error codes to HTTP statuses.
//! - [`tokens`]: access tokens (JWT).
//! - [`rate_limit`]: the sign-in rate limit.
//! - [`request_log`]: request spans with secrets taken out of URIs.
//! - [`realtime`]: socket.io rooms and client events (`sync` replay).
//! - [`dispatcher`]: tails the event log and emits to the sockets that may see each event.
//! - [`jobs`]: the durable job worker (claims due jobs, runs them through the core).
//! - [`web`]: the web app (on disk or embedded in the binary), SPA fallback and JSON
//!   404/405/413.
//! - [`state`]: what handlers share.

pub mod automation_lines;
pub mod channels;
pub mod config;
pub mod dispatcher;
pub mod error;
pub mod extract;
pub mod inbound;
pub mod jobs;
pub mod listen;
pub mod multipart;
pub mod rate_limit;
pub mod realtime;
pub mod request_log;
pub mod routes;
pub mod state;
pub mod tokens;
pub mod web;

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use axum::Router;
use axum::middleware;
use axum::routing::get;
use chatflow_core::ports::{IdGenerator, PasswordHasher, SecretCipher};
use chatflow_core::service::Ports;
use chatflow_core::service::auth::SessionPolicy;
use chatflow_core::service::bootstrap::{self, SeedOptions, SeedReport};
use chatflow_store::Store;
use chatflow_system::{LocalMediaStore, configured_mailer};
use chatflow_whatsapp_web::supervisor::SupervisorConfig;
use chatflow_wiring::{HostParts, Wiring};
use socketioxide::SocketIo;
use socketioxide::layer::SocketIoLayer;
use tokio::net::TcpListener;
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::limit::RequestBodyLimitLayer;
use tower_http::timeout::RequestBodyTimeoutLayer;
use tower_http::trace::{DefaultOnResponse, TraceLayer};

pub use config::Config;

use crate::dispatcher::Realtime;
use crate::rate_limit::LoginLimiter;
use crate::request_log::RequestSpan;
use crate::state::{AppState, Shared};
use crate::tokens::TokenKeys;

/// The platform setting that keeps the generated access-token key (sealed) across restarts.
pub const JWT_SECRET_SETTING: &str = "jwtSecret";
/// Characters of a generated access-token key (alphanumeric, about 380 bits).
const JWT_SECRET_CHARS: usize = 64;

/// A built server, bound to its address and ready to serve.
pub struct App {
    listener: TcpListener,
    router: Router,
    limits: listen::Limits,
    io: SocketIo,
    state: AppState,
    store: Arc<Store>,
    seed: SeedReport,
    realtime: Realtime,
    job_lease: chrono::TimeDelta,
}

impl std::fmt::Debug for App {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("App")
            .field("addr", &self.listener.local_addr().ok())
            .finish_non_exhaustive()
    }
}

impl App {
    /// The address the server listens on (the real port when the configuration said 0).
    pub fn local_addr(&self) -> std::io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    /// What first-start seeding did (the generated admin password, if any, is printed once by
    /// the binary).
    pub fn seed_report(&self) -> &SeedReport {
        &self.seed
    }

    /// The store, for tests and embedding.
    pub fn store(&self) -> &Arc<Store> {
        &self.store
    }

    /// The shared state (ports, token keys...), for tests and embedding.
    pub fn state(&self) -> &AppState {
        &self.state
    }

    /// Something that runs the jobs due now on this server's clock, as the background worker
    /// would, and lets the dispatcher emit their events (tests on a manual clock; see
    /// [`JobRunner::Explicit`]).
    pub fn due_jobs(&self) -> jobs::DueJobs {
        jobs::DueJobs::new(
            self.state.ports.clone(),
            self.realtime.clone(),
            self.job_lease,
        )
    }

    /// Serves until `shutdown` completes, then closes the sockets, finishes the requests in
    /// flight and closes the database.
    pub async fn serve(
        self,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> std::io::Result<()> {
        let App {
            listener,
            router,
            limits,
            io,
            store,
            realtime,
            state,
            ..
        } = self;
        let signal = async move {
            shutdown.await;
            tracing::info!("shutting down");
            realtime.shutdown();
            // Open sockets would otherwise keep the graceful shutdown waiting.
            io.close().await;
        };
        listen::serve(listener, router, limits, signal).await;
        // The WhatsApp sessions stop gracefully (their keys flushed) and hand their leases
        // over, so another server of this database takes them at once.
        state.whatsapp.shutdown().await;
        // The automation already accepted for stored messages finishes (bounded: a server
        // that must stop keeps the messages, as after a crash).
        if !state.automation.drain(AUTOMATION_DRAIN).await {
            tracing::warn!("stopping with inbound messages whose automation did not finish");
        }
        store.close().await;
        Ok(())
    }
}

/// How long a stopping server waits for the automation of stored inbound messages.
const AUTOMATION_DRAIN: std::time::Duration = std::time::Duration::from_secs(10);

/// Builds the server with argon2id's default cost, the system clock and random ids.
pub async fn build(config: Config) -> anyhow::Result<App> {
    build_with(config, Wiring::new(), JobRunner::Background).await
}

/// Builds the server with a given password hasher (tests use a cheap argon2id).
pub async fn build_with_hasher(
    config: Config,
    hasher: Arc<dyn PasswordHasher>,
) -> anyhow::Result<App> {
    build_with(
        config,
        Wiring::new().with_hasher(hasher),
        JobRunner::Background,
    )
    .await
}

/// Who runs due jobs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobRunner {
    /// The background worker (production): it claims due jobs as they fall due.
    Background,
    /// Nobody by themselves: the embedder (a test on a manual clock) runs them with
    /// [`App::run_due_jobs`] / [`jobs::run_due_now`] when it chooses.
    Explicit,
}

/// Builds the server on `wiring` (its clock, ids and hasher; see [`chatflow_wiring`]), with due
/// jobs run as `jobs` says.
///
/// Connects to and migrates the database, seeds the first start, loads or creates the
/// access-token key, and binds the listener.
pub async fn build_with(config: Config, wiring: Wiring, jobs: JobRunner) -> anyhow::Result<App> {
    build_with_whatsapp(config, wiring, jobs, channels::real_whatsapp_factory()?).await
}

/// [`build_with`] with the WhatsApp Web sessions built by `whatsapp` (tests run them on a
/// scripted fake, `chatflow_whatsapp_web::fake`).
pub async fn build_with_whatsapp(
    config: Config,
    wiring: Wiring,
    jobs: JobRunner,
    whatsapp: Arc<dyn chatflow_whatsapp_web::client::WaClientFactory>,
) -> anyhow::Result<App> {
    tokens::install_crypto_provider();
    let store = Arc::new(
        wiring
            .connect(config.database_url.expose())
            .await
            .context("cannot open the database")?,
    );
    store
        .migrate()
        .await
        .context("cannot migrate the database")?;

    let smtp_url = config.smtp_url.as_ref().map(|url| url.expose());
    let mailer = configured_mailer(smtp_url, &config.mail_from)
        .context("invalid CHATFLOW_SMTP_URL or CHATFLOW_MAIL_FROM")?;
    if smtp_url.is_none_or(|url| url.trim().is_empty()) {
        tracing::warn!(
            "CHATFLOW_SMTP_URL is not set: password-reset codes cannot be mailed \
             (requests answer 503 ERR_MAIL_NOT_CONFIGURED)"
        );
    }

    // Room for bursts (a bulk close, a replayed backlog) before a slow socket drops events; a
    // client that sees a gap in `seq` asks for the rest with `sync`.
    let (socket_layer, io) = SocketIo::builder()
        .max_buffer_size(dispatcher::SOCKET_BUFFER)
        .build_layer();
    let (secrets, created_key) = chatflow_system::configured_secrets(
        config.secret_key.as_ref().map(|key| key.expose()),
        config.secret_key_file.as_deref(),
        config.database_url.expose(),
    )
    .context("invalid CHATFLOW_SECRET_KEY or CHATFLOW_SECRET_KEY_FILE")?;
    if let Some(path) = created_key {
        tracing::warn!(
            file = %path.display(),
            "generated the secret key that seals the secrets kept in the database: back it up \
             with the database, and give every server of this database the same key"
        );
    }
    let secrets: Arc<dyn SecretCipher> = Arc::new(secrets);
    let ids: Arc<dyn IdGenerator> = wiring.ids();
    let realtime = Realtime::new();
    let whatsapp = channels::whatsapp_provider(
        store.clone(),
        secrets.clone(),
        wiring.clock(),
        whatsapp,
        channels::lease_owner(ids.uuid()),
        SupervisorConfig::default(),
    );
    let sandbox = config.sandbox_enabled().then(|| {
        chatflow_sandbox::SandboxProvider::new(
            store.clone(),
            ids.clone(),
            wiring.clock(),
            chatflow_sandbox::SandboxConfig::default(),
        )
    });
    let mut channels =
        chatflow_core::inbox::channel::ChannelRegistry::default().with(Arc::new(whatsapp.clone()));
    if let Some(sandbox) = &sandbox {
        channels = channels.with(Arc::new(sandbox.clone()));
    }
    let ports = wiring
        .ports(
            store.clone(),
            HostParts {
                secrets,
                media: Arc::new(LocalMediaStore::new(config.media_dir.clone())),
                mailer,
                channels,
                openai_base_url: config.openai_base_url.clone(),
            },
        )
        .map_err(|e| anyhow::anyhow!("cannot build the integration clients: {e}"))?;

    let seed = bootstrap::ensure_seeded(
        &ports,
        &SeedOptions {
            admin_email: config.admin_email.clone(),
            admin_password: config
                .admin_password
                .as_ref()
                .map(|s| s.expose().to_owned()),
        },
    )
    .await
    .map_err(|e| anyhow::anyhow!("first-start seeding failed: {e}"))?;

    let sealed = chatflow_core::service::settings::seal_stored_secrets(&ports)
        .await
        .map_err(|e| anyhow::anyhow!("cannot seal the stored secrets: {e}"))?;
    if sealed > 0 {
        tracing::info!(sealed, "sealed secrets that were stored in plain text");
    }
    let secret = jwt_secret(&config, &ports).await?;
    let access_ttl = chrono::Duration::seconds(
        i64::try_from(config.access_token_ttl).unwrap_or(i64::MAX / 1000),
    );
    let refresh_ttl = chrono::Duration::seconds(
        i64::try_from(config.refresh_token_ttl).unwrap_or(i64::MAX / 1000),
    );
    let reuse_grace = chrono::Duration::seconds(
        i64::try_from(config.refresh_reuse_grace).unwrap_or(i64::MAX / 1000),
    );
    let web = web::resolve(config.web_dir.as_deref());
    let job_waker = jobs::JobWaker::default();
    let automation = {
        let (realtime, jobs) = (realtime.clone(), job_waker.clone());
        automation_lines::Lines::new(move || {
            realtime.wake();
            jobs.wake();
        })
    };
    let state = AppState::new(Shared {
        ports,
        tokens: TokenKeys::new(secret.as_bytes(), access_ttl),
        sessions: SessionPolicy {
            refresh_ttl,
            reuse_grace,
        },
        limiter: LoginLimiter::new(config.login_rate_per_minute),
        cookie_secure: config.cookie_secure,
        trust_proxy: config.trust_proxy,
        web,
        realtime: realtime.clone(),
        sandbox,
        whatsapp,
        jobs: job_waker,
        automation,
    });
    realtime::attach(&io, state.clone());
    dispatcher::start(realtime.clone(), io.clone(), state.ports.clone())
        .await
        .map_err(|e| anyhow::anyhow!("cannot start the realtime dispatcher: {e}"))?;
    dispatcher::spawn_pruner(realtime.clone(), state.ports.clone());
    spawn_limiter_cleanup(&state);
    // The channels' sessions come back first, so a job due while the server was down (a
    // scheduled message) finds its connection up instead of failing as not initialised.
    channels::start(&state).await;
    let job_lease =
        chrono::TimeDelta::seconds(i64::try_from(config.job_lease).unwrap_or(120).max(1));
    if jobs == JobRunner::Background {
        jobs::spawn(
            state.ports.clone(),
            state.jobs.clone(),
            &realtime,
            job_lease,
        );
    }

    let router = router(state.clone(), socket_layer, &config);
    let limits = listen::Limits {
        per_address: config.max_connections_per_address.max(1),
        read_timeout: Duration::from_secs(config.read_timeout.max(1)),
    };
    let listener = TcpListener::bind((config.host, config.port))
        .await
        .with_context(|| format!("cannot listen on {}:{}", config.host, config.port))?;
    Ok(App {
        listener,
        router,
        limits,
        io,
        state,
        store,
        seed,
        realtime,
        job_lease,
    })
}

/// The whole HTTP application: API routes with their OpenAPI document, socket.io, the web app
/// and the cross-cutting layers (tracing, panics, body limits and read timeouts, JSON errors,
/// security headers).
pub fn router(state: AppState, socket_layer: SocketIoLayer, config: &Config) -> Router {
    let max_body_bytes = config.max_body_bytes;
    let mut api = routes::api(max_body_bytes);
    if state.sandbox.is_some() {
        api = api.merge(routes::sandbox::router());
    }
    let (api, openapi) = api.split_for_parts();
    // Serialised once: the document does not change while the server runs.
    let document = axum::body::Bytes::from(serde_json::to_vec(&openapi).unwrap_or_default());
    let api = api
        .route(
            "/api-docs/openapi.json",
            get(move || {
                let document = document.clone();
                async move {
                    (
                        [(axum::http::header::CONTENT_TYPE, "application/json")],
                        document,
                    )
                }
            }),
        )
        .method_not_allowed_fallback(web::method_not_allowed);
    let app = web::with_app(api, state.web.as_ref());
    app.layer(middleware::from_fn_with_state(
        state.clone(),
        dispatcher::wake_after_writes,
    ))
    .layer(middleware::from_fn(extract::reject_unstorable_uri))
    .layer(socket_layer)
    .layer(RequestBodyLimitLayer::new(max_body_bytes))
    .layer(RequestBodyTimeoutLayer::new(Duration::from_secs(
        config.read_timeout.max(1),
    )))
    .layer(middleware::from_fn(web::json_errors))
    .layer(CatchPanicLayer::custom(web::panic_response))
    .layer(middleware::from_fn(web::security_headers))
    .layer(
        TraceLayer::new_for_http()
            .make_span_with(RequestSpan)
            .on_response(DefaultOnResponse::new().level(tracing::Level::INFO)),
    )
    .with_state(state)
}

/// The access-token key: the configured one, else the one kept (sealed) in the platform
/// settings, else a new random key stored there, sealed, for the next start. A key stored in
/// plain text by an earlier version is sealed in place.
async fn jwt_secret(config: &Config, ports: &Ports) -> anyhow::Result<String> {
    if let Some(secret) = &config.jwt_secret {
        anyhow::ensure!(
            secret.expose().len() >= 32,
            "CHATFLOW_JWT_SECRET must have at least 32 characters"
        );
        return Ok(secret.expose().to_owned());
    }
    let stored = ports
        .settings
        .platform_settings()
        .await
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    if let Some((_, stored)) = stored
        .iter()
        .find(|(key, value)| key == JWT_SECRET_SETTING && !value.is_empty())
    {
        if ports.secrets.is_sealed(stored) {
            return ports.secrets.open(stored).map_err(|e| {
                anyhow::anyhow!(
                    "cannot open the stored access-token key ({e}): is this the secret key \
                     (CHATFLOW_SECRET_KEY or its key file) the database was sealed with?"
                )
            });
        }
        store_jwt_secret(ports, stored).await?;
        tracing::info!("sealed the access-token key kept in the platform settings");
        return Ok(stored.clone());
    }
    let secret = ports.ids.token(JWT_SECRET_CHARS);
    store_jwt_secret(ports, &secret).await?;
    tracing::info!("generated a new access-token key (kept sealed in the platform settings)");
    Ok(secret)
}

async fn store_jwt_secret(ports: &Ports, secret: &str) -> anyhow::Result<()> {
    let sealed = ports
        .secrets
        .seal(secret)
        .map_err(|e| anyhow::anyhow!("cannot seal the access-token key: {e}"))?;
    ports
        .settings
        .set_platform_setting(JWT_SECRET_SETTING, &sealed, None)
        .await
        .map_err(|e| anyhow::anyhow!("cannot store the access-token key: {e}"))
}

/// Forgets idle rate-limit keys and prunes expired staged contact uploads every minute while the
/// server lives.
fn spawn_limiter_cleanup(state: &AppState) {
    let weak = state.downgrade();
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(std::time::Duration::from_secs(60));
        tick.tick().await;
        loop {
            tick.tick().await;
            match weak.upgrade() {
                Some(shared) => {
                    shared.limiter.forget_idle();
                    let now = shared.ports.clock.now();
                    if let Err(error) = shared
                        .ports
                        .staged_uploads
                        .prune_expired_across_companies(now)
                        .await
                    {
                        tracing::warn!(%error, "cannot prune expired staged uploads");
                    }
                }
                None => break,
            }
        }
    });
}
