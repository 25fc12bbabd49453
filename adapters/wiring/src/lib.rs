//! The one place the use cases' [`Ports`] are assembled, for the server and the CLI alike.
//!
//! [`Wiring`] holds the three parts a host or a test may choose — the clock, the id generator
//! and the password hasher (by default the system clock, random ids and argon2id) — and hands
//! the very same clock and id generator to the store ([`Wiring::stamps`]), so every time a use
//! case decides with and every time the store writes come from one clock. A test that builds
//! the server on a [`chatflow_system::ManualClock`] moves both.
//!
//! This crate is a host-side assembly, not an adapter: it depends on the adapters (store,
//! system, integrations) so that neither host repeats the list, and nothing but hosts and
//! their tests depend on it (the core depends on no adapter, adapters on no other adapter).

use std::sync::Arc;

use chatflow_core::Result;
use chatflow_core::inbox::channel::ChannelRegistry;
use chatflow_core::ports::{Clock, IdGenerator, Mailer, MediaStore, PasswordHasher, SecretCipher};
use chatflow_core::service::Ports;
use chatflow_store::{Stamps, Store};
use chatflow_system::{Argon2Hasher, RandomIds, SystemClock};

/// The clock, id generator and hasher a process runs on, and the builder of its ports.
#[derive(Clone)]
pub struct Wiring {
    clock: Arc<dyn Clock>,
    ids: Arc<dyn IdGenerator>,
    hasher: Arc<dyn PasswordHasher>,
}

impl Default for Wiring {
    fn default() -> Self {
        Wiring::new()
    }
}

impl std::fmt::Debug for Wiring {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Wiring").finish_non_exhaustive()
    }
}

/// What the host supplies beside the store: the parts whose configuration is the host's.
pub struct HostParts {
    /// Seals and opens the secrets kept in the database.
    pub secrets: Arc<dyn SecretCipher>,
    /// Stored media.
    pub media: Arc<dyn MediaStore>,
    /// Outgoing e-mail.
    pub mailer: Arc<dyn Mailer>,
    /// Messaging providers the host runs.
    pub channels: ChannelRegistry,
    /// The OpenAI-compatible endpoint flows use when they name none.
    pub openai_base_url: String,
}

impl Wiring {
    /// The production choice: the system clock, random ids and argon2id at its default cost.
    pub fn new() -> Wiring {
        Wiring {
            clock: Arc::new(SystemClock),
            ids: Arc::new(RandomIds),
            hasher: Arc::new(Argon2Hasher::new()),
        }
    }

    /// Runs on `clock` (tests: a [`chatflow_system::ManualClock`]).
    pub fn with_clock(mut self, clock: Arc<dyn Clock>) -> Wiring {
        self.clock = clock;
        self
    }

    /// Draws ids and tokens from `ids`.
    pub fn with_ids(mut self, ids: Arc<dyn IdGenerator>) -> Wiring {
        self.ids = ids;
        self
    }

    /// Hashes passwords with `hasher` (tests: a cheap argon2id).
    pub fn with_hasher(mut self, hasher: Arc<dyn PasswordHasher>) -> Wiring {
        self.hasher = hasher;
        self
    }

    /// The clock.
    pub fn clock(&self) -> Arc<dyn Clock> {
        self.clock.clone()
    }

    /// The id generator.
    pub fn ids(&self) -> Arc<dyn IdGenerator> {
        self.ids.clone()
    }

    /// What the store stamps its writes with: this wiring's clock and ids.
    pub fn stamps(&self) -> Stamps {
        Stamps::new(self.clock.clone(), self.ids.clone())
    }

    /// Opens the store at `url` on this wiring's clock and ids (not migrated).
    pub async fn connect(&self, url: &str) -> chatflow_store::Result<Store> {
        Store::connect(url, self.stamps()).await
    }

    /// The ports of the use cases: every repository from `store`, the host's parts, and this
    /// wiring's clock, ids and hasher. `store` must have been opened with [`Wiring::stamps`]
    /// (through [`Wiring::connect`]) so that the store and the use cases share one clock.
    pub fn ports(&self, store: Arc<Store>, host: HostParts) -> Result<Ports> {
        let options = chatflow_integrations::HttpOptions::default;
        Ok(Ports {
            clock: self.clock.clone(),
            ids: self.ids.clone(),
            hasher: self.hasher.clone(),
            companies: store.clone(),
            plans: store.clone(),
            users: store.clone(),
            settings: store.clone(),
            sessions: store.clone(),
            secrets: host.secrets,
            queues: store.clone(),
            helps: store.clone(),
            media: host.media,
            mailer: host.mailer,
            resets: store.clone(),
            channels: host.channels,
            event_log: store.clone(),
            contacts: store.clone(),
            tags: store.clone(),
            tickets: store.clone(),
            messages: store.clone(),
            jobs: store.clone(),
            schedules: store.clone(),
            flows: store.clone(),
            flow_campaigns: store.clone(),
            quick_messages: store.clone(),
            staged_uploads: store.clone(),
            inbound_failures: store.clone(),
            session_state: store.clone(),
            leases: store.clone(),
            history: store.clone(),
            gaps: store.clone(),
            delivery: store.clone(),
            assistant: Arc::new(chatflow_integrations::HttpAssistant::new(
                host.openai_base_url,
                options(),
            )?),
            typebot: Arc::new(chatflow_integrations::HttpTypebot::new(options())?),
            connections: store,
        })
    }
}

#[cfg(test)]
mod tests {
    use chatflow_core::ports::{NewCompany, NewPlan};
    use chatflow_core::tenancy::{Money, PlanFlags, Recurrence};
    use chatflow_system::{LocalMediaStore, LogMailer, ManualClock};
    use chrono::{DateTime, TimeDelta};

    use super::*;

    /// The ports over a fresh SQLite database in `dir`, on `wiring`.
    async fn ports_in(dir: &tempfile::TempDir, wiring: &Wiring) -> Ports {
        let url = format!("sqlite://{}", dir.path().join("w.db").display());
        let store = Arc::new(wiring.connect(&url).await.expect("opens"));
        store.migrate().await.expect("migrates");
        wiring
            .ports(
                store,
                HostParts {
                    secrets: Arc::new(
                        chatflow_system::SealedSecrets::from_key_text(
                            "a test key of at least enough characters",
                        )
                        .expect("a key"),
                    ),
                    media: Arc::new(LocalMediaStore::new(dir.path().join("media"))),
                    mailer: Arc::new(LogMailer),
                    channels: ChannelRegistry::default(),
                    openai_base_url: chatflow_integrations::OPENAI_BASE_URL.to_owned(),
                },
            )
            .expect("ports")
    }

    /// A plan and a company on `ports`.
    async fn company(ports: &Ports) -> chatflow_core::tenancy::Company {
        let plan = ports
            .plans
            .create(&NewPlan {
                name: "Basic".into(),
                users: 1,
                connections: 1,
                queues: 1,
                amount: Money(0),
                is_public: true,
                flags: PlanFlags::ALL,
            })
            .await
            .expect("plan");
        ports
            .companies
            .create(&NewCompany {
                name: "Clocked".into(),
                email: None,
                phone: None,
                plan_id: plan.id,
                status: true,
                due_date: chrono::NaiveDate::from_ymd_opt(2030, 1, 1).expect("a date"),
                recurrence: Recurrence::Mensal,
                document: None,
            })
            .await
            .expect("created")
    }

    #[tokio::test]
    async fn the_store_and_the_use_cases_share_the_wiring_clock() {
        let start = DateTime::from_timestamp(1_800_000_000, 0).expect("a valid time");
        let clock = ManualClock::at(start);
        let wiring = Wiring::new().with_clock(Arc::new(clock.clone()));
        let dir = tempfile::tempdir().expect("a temporary directory");
        let ports = ports_in(&dir, &wiring).await;
        clock.advance(TimeDelta::minutes(5));
        assert_eq!(ports.clock.now(), start + TimeDelta::minutes(5));
        let company = company(&ports).await;
        assert_eq!(
            company.created_at,
            start + TimeDelta::minutes(5),
            "the store stamps the row with the wiring's clock"
        );
    }

    /// The channel providers reach the session key state and the leases through the ports:
    /// a lease taken through `leases` fences the writes through `session_state`.
    #[tokio::test]
    async fn the_ports_hold_the_session_state_and_the_leases() {
        use chatflow_core::inbox::model::ConnectionInput;
        use chatflow_core::inbox::session_state::{StateNamespace, StateOp};

        let dir = tempfile::tempdir().expect("a temporary directory");
        let ports = ports_in(&dir, &Wiring::new()).await;
        let company = company(&ports).await;
        let scope = chatflow_core::TenantScope::new(company.id);
        let connection = ports
            .connections
            .create(
                scope,
                &ConnectionInput {
                    name: "Keys".into(),
                    ..ConnectionInput::default()
                },
                "token",
                &[],
            )
            .await
            .expect("a connection");
        let now = ports.clock.now();
        let token = ports
            .leases
            .acquire(connection.id, "this-process", now, TimeDelta::seconds(30))
            .await
            .expect("acquired")
            .expect("free");
        let written = ports
            .session_state
            .apply(
                connection.id,
                token,
                &[StateOp::Put {
                    ns: StateNamespace::Device,
                    key: b"device".to_vec(),
                    value: b"identity".to_vec(),
                    aux: 0,
                }],
            )
            .await
            .expect("applied");
        assert_eq!(written, 1);
        let row = ports
            .session_state
            .get(connection.id, StateNamespace::Device, b"device")
            .await
            .expect("read")
            .expect("stored");
        assert_eq!(row.value, b"identity");
        let lease = ports
            .leases
            .lease(connection.id)
            .await
            .expect("read")
            .expect("held");
        assert!(lease.is_held_at(now));
    }

    /// A span opened: its name, its parent's name, and its fields as `key=value`.
    type Opened = (String, Option<String>, String);

    /// The spans opened while a test runs.
    #[derive(Clone, Default)]
    struct Spans(Arc<std::sync::Mutex<Vec<Opened>>>);

    impl<S> tracing_subscriber::Layer<S> for Spans
    where
        S: tracing::Subscriber + for<'a> tracing_subscriber::registry::LookupSpan<'a>,
    {
        fn on_new_span(
            &self,
            attrs: &tracing::span::Attributes<'_>,
            id: &tracing::span::Id,
            ctx: tracing_subscriber::layer::Context<'_, S>,
        ) {
            let mut fields = Vec::new();
            attrs.record(
                &mut |field: &tracing::field::Field, value: &dyn std::fmt::Debug| {
                    fields.push(format!("{field}={value:?}"));
                },
            );
            let parent = ctx
                .span(id)
                .and_then(|span| span.parent())
                .map(|parent| parent.name().to_owned());
            self.0.lock().expect("spans").push((
                attrs.metadata().name().to_owned(),
                parent,
                fields.join(" "),
            ));
        }
    }

    /// Five new phones' messages delivered as one batch: one ingestion, and the automation of
    /// the five new tickets reads the company's settings, queues, working hours and flow
    /// campaigns once for the batch, and the tickets' bot memories and flow runs together, not
    /// once per message.
    #[tokio::test]
    async fn a_batch_reads_the_company_once_for_its_automation() {
        use chatflow_core::inbox::channel::{InboundEvent, InboundMessage, Queued};
        use chatflow_core::inbox::model::{ConnectionInput, MediaType};
        use chatflow_core::service::inbox::ingest::deliver_batch;
        use tracing_subscriber::layer::SubscriberExt;

        let dir = tempfile::tempdir().expect("a temporary directory");
        let ports = ports_in(&dir, &Wiring::new()).await;
        let company = company(&ports).await;
        let scope = chatflow_core::TenantScope::new(company.id);
        let connection = ports
            .connections
            .create(
                scope,
                &ConnectionInput {
                    name: "Batch".into(),
                    ..ConnectionInput::default()
                },
                "token",
                &[],
            )
            .await
            .expect("a connection");
        let events: Vec<Queued> = (0..5)
            .map(|k| Queued {
                event: InboundEvent::Message(InboundMessage {
                    external_id: format!("batch-{k}"),
                    chat: format!("55119990000{k}"),
                    chat_name: format!("Phone {k}"),
                    is_group: false,
                    participant: None,
                    from_me: false,
                    body: "oi".into(),
                    media_type: MediaType::Chat,
                    media: None,
                    quoted_external_id: None,
                    timestamp: ports.clock.now(),
                    aliases: Vec::new(),
                    media_failed: None,
                }),
                attempts: 1,
            })
            .collect();
        let spans = Spans::default();
        let _guard =
            tracing::subscriber::set_default(tracing_subscriber::registry().with(spans.clone()));
        let outcome = deliver_batch(&ports, scope, connection.id, events).await;
        assert!(outcome.failed.is_none(), "{:?}", outcome.failed);
        assert_eq!(outcome.handled.len(), 5);
        let seen = spans.0.lock().expect("spans").clone();
        let count = |name: &str| seen.iter().filter(|(n, ..)| n == name).count();
        assert_eq!(count("MessageRepo::ingest_batch"), 1, "{seen:?}");
        // What the automation reads of each ticket (bot memory, flow runs) was read for the five
        // tickets at once, and not again per ticket.
        assert_eq!(count("TicketRepo::bot_memories"), 1, "{seen:?}");
        assert_eq!(count("FlowRepo::runs_of_tickets"), 1, "{seen:?}");
        for per_ticket in [
            "TicketRepo::bot_memory",
            "FlowRepo::active_run",
            "FlowRepo::ticket_had_run",
        ] {
            assert_eq!(count(per_ticket), 0, "{per_ticket}: {seen:?}");
        }
        for shared in [
            "SettingsRepo::company_settings",
            "QueueRepo::list_queues",
            "CompanyRepo::schedules",
            "FlowCampaignRepo::list",
        ] {
            assert_eq!(count(shared), 1, "{shared}: {seen:?}");
        }
    }

    #[tokio::test]
    async fn a_use_case_and_its_store_calls_leave_spans_naming_company_user_and_ids() {
        use tracing_subscriber::layer::SubscriberExt;

        let dir = tempfile::tempdir().expect("a temporary directory");
        let ports = ports_in(&dir, &Wiring::new()).await;
        let company = company(&ports).await;
        let spans = Spans::default();
        let _guard =
            tracing::subscriber::set_default(tracing_subscriber::registry().with(spans.clone()));
        let actor = chatflow_core::identity::Actor {
            user_id: chatflow_core::UserId(7),
            company_id: company.id,
            profile: chatflow_core::identity::Profile::Admin,
            is_super: false,
            flags: Default::default(),
            queue_ids: Vec::new(),
        };
        let missing = chatflow_core::service::flows::get(
            &ports,
            &actor,
            chatflow_core::flow_ports::FlowId(42),
        )
        .await
        .expect_err("no such flow");
        assert_eq!(missing.code, chatflow_core::ErrorCode::ERR_NO_FLOW_FOUND);
        let seen = spans.0.lock().expect("spans").clone();
        let company = company.id;
        assert!(
            seen.contains(&(
                "flows::get".to_owned(),
                None,
                format!("company={company} user=7 flow=42")
            )),
            "the use case's span: {seen:?}"
        );
        assert!(
            seen.iter()
                .any(|(name, parent, fields)| name.starts_with("FlowRepo::")
                    && parent.as_deref() == Some("flows::get")
                    && fields.starts_with(&format!("company={company}"))),
            "a store call inside it: {seen:?}"
        );
    }
}
