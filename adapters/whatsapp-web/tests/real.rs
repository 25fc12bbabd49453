//! The library's session behind our traits, tested without WhatsApp: a `Bot` builds on our key
//! store (a throwaway SQLite database) offline; a run started against a closed local port stays
//! disconnected, refuses calls as not connected, and stops by shutdown or abort; events reach
//! the run's channel in order; the HTTP client keeps 4xx/5xx as answers and refuses slow or
//! oversized ones (against a local server).

use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use chatflow_core::inbox::channel::{InboundEvent, InboundSink};
use chatflow_core::inbox::lease::{ChannelLeaseRepo, LeaseToken};
use chatflow_core::ports::{CompanyRepo, NewCompany, NewPlan, PlanRepo, SecretCipher};
use chatflow_core::tenancy::{Money, PlanFlags, Recurrence};
use chatflow_core::{TenantScope, WhatsappId};
use chatflow_store::{Stamps, Store, testing};
use chatflow_system::SealedSecrets;
use chatflow_whatsapp_web::WaBackend;
use chatflow_whatsapp_web::client::{NotConnected, SessionParams, WaClientFactory};
use chatflow_whatsapp_web::inbound::Ingestor;
use chatflow_whatsapp_web::real::{
    DEVICE_NAME, FULL_HISTORY_DAYS, ForwardEvents, HookFactory, HttpLimits, RealWaClientFactory,
    ReqwestHttp,
};
use chatflow_whatsapp_web::whatsapp_rust::client::Client;
use chatflow_whatsapp_web::whatsapp_rust::http::{HttpClient, HttpRequest};
use chatflow_whatsapp_web::whatsapp_rust::types::events::{
    Connected, Event, EventHandler, EventKind, InboundMessage, StreamReplaced,
};
use chatflow_whatsapp_web::whatsapp_rust::wacore::store::traits::DeviceStore;
use chatflow_whatsapp_web::whatsapp_rust::waproto::whatsapp as wa;
use chatflow_whatsapp_web::whatsapp_rust::waproto::whatsapp::device_props::PlatformType;
use chatflow_whatsapp_web::whatsapp_rust::{InboundDurabilityHook, Jid};
use chrono::{TimeDelta, Utc};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;
use tokio::sync::mpsc::{UnboundedReceiver, unbounded_channel};

// =============================================================================================
// A leased connection on a throwaway store
// =============================================================================================

#[derive(Default)]
struct Kept(Mutex<Vec<InboundEvent>>);

#[async_trait]
impl InboundSink for Kept {
    async fn deliver(
        &self,
        _: TenantScope,
        _: WhatsappId,
        event: InboundEvent,
    ) -> chatflow_core::Result<()> {
        self.0.lock().expect("lock").push(event);
        Ok(())
    }
}

/// A hook that refuses every batch (nothing arrives offline); the factory's seam is what is
/// tested: it is asked for a hook with the run's ingestor.
struct Refuse;

#[async_trait]
impl InboundDurabilityHook for Refuse {
    async fn on_messages(&self, _: Arc<Client>, _: &[InboundMessage]) -> anyhow::Result<()> {
        anyhow::bail!("no commits in this test")
    }
}

/// A hook factory that remembers the ingestors it was given.
fn hooks() -> (HookFactory, Arc<Mutex<Vec<Arc<Ingestor>>>>) {
    let seen: Arc<Mutex<Vec<Arc<Ingestor>>>> = Arc::default();
    let record = seen.clone();
    let factory: HookFactory = Arc::new(move |ingestor| {
        record.lock().expect("lock").push(ingestor);
        Arc::new(Refuse)
    });
    (factory, seen)
}

fn stamps() -> Stamps {
    Stamps::new(
        Arc::new(chatflow_system::SystemClock),
        Arc::new(chatflow_system::RandomIds),
    )
}

struct Leased {
    scope: TenantScope,
    connection: WhatsappId,
    token: LeaseToken,
}

async fn leased(store: &Store) -> Leased {
    let plan = PlanRepo::create(
        store,
        &NewPlan {
            name: "Basic".to_owned(),
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
    .id;
    let company = CompanyRepo::create(
        store,
        &NewCompany {
            name: "Company A".to_owned(),
            email: Some("company-a@example.com".to_owned()),
            phone: None,
            plan_id: plan,
            status: true,
            due_date: chrono::NaiveDate::from_ymd_opt(2030, 1, 31).expect("a date"),
            recurrence: Recurrence::Mensal,
            document: None,
        },
    )
    .await
    .expect("company created");
    let scope = TenantScope::new(company.id);
    let connection = WhatsappId(chatflow_store::on_pool!(store.pool(), |p| {
        sqlx::query_scalar::<_, i64>(
            "INSERT INTO whatsapps (company_id, name) VALUES ($1, 'A''s number') RETURNING id",
        )
        .bind(company.id.0)
        .fetch_one(p)
        .await
        .expect("connection inserted")
    }));
    let token = store
        .acquire(connection, "server-a", Utc::now(), TimeDelta::hours(1))
        .await
        .expect("acquired")
        .expect("free");
    Leased {
        scope,
        connection,
        token,
    }
}

fn params(
    store: &Store,
    leased: &Leased,
    pair_phone: Option<&str>,
) -> (SessionParams, Arc<WaBackend>, UnboundedReceiver<Arc<Event>>) {
    let cipher: Arc<dyn SecretCipher> = Arc::new(
        SealedSecrets::from_key_text("a test key of at least thirty-two characters")
            .expect("a key"),
    );
    let backend = Arc::new(WaBackend::new(
        Arc::new(store.clone()),
        cipher,
        leased.connection,
        leased.token,
    ));
    let (events, received) = unbounded_channel();
    let params = SessionParams {
        connection: leased.connection,
        backend: backend.clone(),
        ingestor: Arc::new(Ingestor::new(
            leased.scope,
            leased.connection,
            Arc::new(Kept::default()),
        )),
        events,
        pair_phone: pair_phone.map(str::to_owned),
        full_history: false,
    };
    (params, backend, received)
}

async fn on_sqlite<F, Fut>(test: F)
where
    F: FnOnce(Store) -> Fut + Send + 'static,
    Fut: Future<Output = ()> + Send + 'static,
{
    testing::on_sqlite(stamps(), true, |store, _| test(store)).await;
}

/// A local address nothing listens on.
async fn closed_port() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("a port");
    let address = listener.local_addr().expect("an address");
    drop(listener);
    format!("ws://{address}/ws/chat")
}

fn factory(hook: HookFactory) -> RealWaClientFactory {
    RealWaClientFactory::new(hook, ReqwestHttp::new(HttpLimits::default()).expect("http"))
        // No version fetch: nothing here reaches the internet.
        .with_version((2, 3000, 1))
        .with_shutdown_timeout(Duration::from_secs(20))
}

// =============================================================================================
// Building and running
// =============================================================================================

#[tokio::test]
async fn a_bot_builds_offline_on_our_key_store() {
    on_sqlite(|store| async move {
        let leased = leased(&store).await;
        let (hook, seen) = hooks();
        let (params, backend, _events) = params(&store, &leased, Some("5511999990000"));
        let ingestor = params.ingestor.clone();
        assert!(
            !backend.exists().await.expect("read"),
            "a new connection has no device"
        );

        let bot = factory(hook).build(params).await.expect("built");

        // The device row is written (and the hook's probe row came and went) through our store.
        assert!(backend.exists().await.expect("read"));
        let device = backend.load().await.expect("read").expect("a device");
        assert_eq!(bot.client().push_name(), DEVICE_NAME);
        assert!(device.pn.is_none(), "not paired");
        let seen = seen.lock().expect("lock");
        assert_eq!(seen.len(), 1);
        assert!(
            Arc::ptr_eq(&seen[0], &ingestor),
            "the hook commits to the run's ingestor"
        );
        assert!(!bot.client().is_connected());
    })
    .await;
}

#[tokio::test]
async fn a_run_asking_for_the_whole_history_links_as_the_windows_app() {
    use chatflow_whatsapp_web::whatsapp_rust::buffa::Message as _;
    on_sqlite(|store| async move {
        let leased = leased(&store).await;
        let (hook, _) = hooks();
        // What a run would announce when it links a phone (the registration payload).
        let announced = |bot: &chatflow_whatsapp_web::whatsapp_rust::bot::Bot| {
            let device = bot.client().persistence_manager().get_device_snapshot();
            let bytes = device
                .get_client_payload()
                .device_pairing_data
                .into_option()
                .expect("an unlinked device registers")
                .device_props
                .expect("with its properties");
            wa::DeviceProps::decode_from_slice(&bytes).expect("decoded")
        };

        // Without the wish: our name, and no request for the whole history (WhatsApp sends the
        // recent part).
        let (plain, _, _events) = params(&store, &leased, None);
        let plain = announced(&factory(hook.clone()).build(plain).await.expect("built"));
        assert_eq!(plain.os.as_deref(), Some(DEVICE_NAME));
        assert_ne!(plain.platform_type, Some(PlatformType::UWP));
        assert_ne!(plain.require_full_sync, Some(true));
        let config = plain.history_sync_config.as_option();
        assert_eq!(config.and_then(|c| c.full_sync_days_limit), None);
        assert_eq!(config.and_then(|c| c.on_demand_ready), None);

        // With it (the same device, not linked yet): the Windows app's shape.
        let (mut wanting, _, _events) = params(&store, &leased, None);
        wanting.full_history = true;
        let full = announced(&factory(hook).build(wanting).await.expect("built"));
        assert_eq!(full.os.as_deref(), Some(DEVICE_NAME));
        assert_eq!(full.platform_type, Some(PlatformType::UWP));
        assert_eq!(full.require_full_sync, Some(true));
        let config = full
            .history_sync_config
            .as_option()
            .expect("a history config");
        assert_eq!(config.full_sync_days_limit, Some(FULL_HISTORY_DAYS));
        assert_eq!(FULL_HISTORY_DAYS, 730);
        assert_eq!(config.on_demand_ready, Some(true));
        assert_eq!(config.complete_on_demand_ready, Some(true));
        // The library's other history settings are kept.
        assert_eq!(config.support_group_history, Some(true));
        assert_eq!(config.inline_initial_payload_in_e2_ee_msg, Some(true));
    })
    .await;
}

#[tokio::test]
async fn a_run_that_cannot_connect_refuses_calls_and_stops_gracefully() {
    on_sqlite(|store| async move {
        let leased = leased(&store).await;
        let (hook, _) = hooks();
        let (params, _, _events) = params(&store, &leased, None);
        // A local socket that takes the connection and closes it: no WebSocket answers.
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("a port");
        let url = format!(
            "ws://{}/ws/chat",
            listener.local_addr().expect("an address")
        );
        let session = factory(hook)
            .with_socket_url(url)
            .start(params)
            .await
            .expect("started");
        let (socket, _) = tokio::time::timeout(Duration::from_secs(15), listener.accept())
            .await
            .expect("the run connects to the configured address")
            .expect("accepted");
        drop(socket);
        let client = session.client();
        assert!(!client.is_connected());

        let to: Jid = "5511999990000@s.whatsapp.net".parse().expect("a jid");
        let error = client
            .send(&to, wa::Message::default(), "3EB0000000000000000001")
            .await
            .expect_err("not connected");
        assert!(error.downcast_ref::<NotConnected>().is_some(), "{error:#}");
        let error = client
            .upload(
                b"x".to_vec(),
                chatflow_whatsapp_web::client::MediaKind::Image,
            )
            .await
            .expect_err("not connected");
        assert!(error.downcast_ref::<NotConnected>().is_some(), "{error:#}");
        assert_eq!(client.stats().messages_sent, 0);

        // The library's graceful stop interrupts its reconnect backoff.
        tokio::time::timeout(Duration::from_secs(15), session.shutdown())
            .await
            .expect("the stop ends well before the shutdown timeout");
    })
    .await;
}

#[tokio::test]
async fn an_aborted_run_finishes() {
    on_sqlite(|store| async move {
        let leased = leased(&store).await;
        let (hook, _) = hooks();
        let (params, _, _events) = params(&store, &leased, None);
        let mut session = factory(hook)
            .with_socket_url(closed_port().await)
            .start(params)
            .await
            .expect("started");
        session.abort();
        tokio::time::timeout(Duration::from_secs(15), session.finished())
            .await
            .expect("an aborted run is finished");
        // Stopping a finished run is harmless.
        session.shutdown().await;
    })
    .await;
}

#[test]
fn events_are_forwarded_in_order_without_waiting() {
    let (sender, mut received) = unbounded_channel();
    let forward = ForwardEvents(sender);
    forward.handle_event(Arc::new(Event::Connected(Connected::builder().build())));
    forward.handle_event(Arc::new(Event::StreamReplaced(
        StreamReplaced::builder().build(),
    )));
    let kinds: Vec<EventKind> = std::iter::from_fn(|| received.try_recv().ok())
        .map(|e| e.kind())
        .collect();
    assert_eq!(kinds, [EventKind::Connected, EventKind::StreamReplaced]);
    // With nobody listening, an event is dropped, not waited on.
    drop(received);
    forward.handle_event(Arc::new(Event::Connected(Connected::builder().build())));
}

// =============================================================================================
// The HTTP client
// =============================================================================================

/// Serves one connection: reads the request (head and body), answers `response` unless it is
/// `None` (then holds the connection open), and hands back the raw request.
async fn serve_once(response: Option<Vec<u8>>) -> (String, tokio::task::JoinHandle<Vec<u8>>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("a port");
    let url = format!("http://{}", listener.local_addr().expect("an address"));
    let task = tokio::spawn(async move {
        let (mut socket, _) = listener.accept().await.expect("a connection");
        let mut request = Vec::new();
        let mut buffer = [0u8; 4096];
        loop {
            let n = socket.read(&mut buffer).await.expect("read");
            request.extend_from_slice(&buffer[..n]);
            let text = String::from_utf8_lossy(&request).to_string();
            if let Some(end) = text.find("\r\n\r\n") {
                let length = text[..end]
                    .lines()
                    .find_map(|l| {
                        l.to_ascii_lowercase()
                            .strip_prefix("content-length:")
                            .map(|v| v.trim().parse::<usize>().expect("a length"))
                    })
                    .unwrap_or(0);
                if request.len() >= end + 4 + length {
                    break;
                }
            }
            if n == 0 {
                break;
            }
        }
        match response {
            Some(response) => {
                socket.write_all(&response).await.expect("write");
                socket.shutdown().await.expect("close");
            }
            None => {
                // Never answers; the client gives up first.
                let _ = socket.read(&mut buffer).await;
            }
        }
        request
    });
    (url, task)
}

fn http(limits: HttpLimits) -> ReqwestHttp {
    ReqwestHttp::new(limits).expect("a client")
}

#[tokio::test]
async fn an_error_status_is_an_answer_with_its_body() {
    let (url, server) = serve_once(Some(
        b"HTTP/1.1 404 Not Found\r\nContent-Length: 7\r\n\r\nexpired".to_vec(),
    ))
    .await;
    let request = HttpRequest::post(format!("{url}/mms/image"))
        .with_header("origin", "https://web.whatsapp.com")
        .with_body(b"encrypted".to_vec());
    let response = http(HttpLimits::default())
        .execute(request)
        .await
        .expect("a completed exchange is Ok");
    assert_eq!(response.status_code, 404);
    assert_eq!(response.body, b"expired");
    let raw = String::from_utf8(server.await.expect("served")).expect("text");
    assert!(raw.starts_with("POST /mms/image HTTP/1.1\r\n"), "{raw}");
    assert!(
        raw.contains("origin: https://web.whatsapp.com\r\n"),
        "{raw}"
    );
    assert!(raw.ends_with("\r\n\r\nencrypted"), "{raw}");
}

#[tokio::test]
async fn a_body_over_the_cap_is_refused() {
    let limits = HttpLimits {
        max_body_bytes: 8,
        ..HttpLimits::default()
    };
    // Declared too long.
    let (url, _server) = serve_once(Some(
        b"HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\n123456789".to_vec(),
    ))
    .await;
    let error = http(limits)
        .execute(HttpRequest::get(url))
        .await
        .expect_err("over the cap");
    assert!(error.to_string().contains("over 8 bytes"), "{error:#}");

    // Undeclared (chunked), found too long while reading.
    let (url, _server) = serve_once(Some(
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n12345\r\n5\r\n67890\r\n0\r\n\r\n"
            .to_vec(),
    ))
    .await;
    let error = http(limits)
        .execute(HttpRequest::get(url))
        .await
        .expect_err("over the cap");
    assert!(error.to_string().contains("over 8 bytes"), "{error:#}");

    // At the cap is fine.
    let (url, _server) = serve_once(Some(
        b"HTTP/1.1 200 OK\r\nContent-Length: 8\r\n\r\n12345678".to_vec(),
    ))
    .await;
    let response = http(limits)
        .execute(HttpRequest::get(url))
        .await
        .expect("at the cap");
    assert_eq!(response.body, b"12345678");
}

#[tokio::test]
async fn a_server_that_does_not_answer_times_out() {
    let (url, _server) = serve_once(None).await;
    let limits = HttpLimits {
        timeout: Duration::from_millis(300),
        ..HttpLimits::default()
    };
    let error = http(limits)
        .execute(HttpRequest::get(url))
        .await
        .expect_err("timed out");
    let reqwest_error = error
        .downcast_ref::<reqwest::Error>()
        .expect("a transport error");
    assert!(reqwest_error.is_timeout(), "{error:#}");
}
