//! The ingestor over the real ingestion: mapped messages committed through a sink that does what
//! the server's sink does (the core's ingestion use case over the real store, on SQLite and
//! PostgreSQL), so what the mapping produces is what the inbox stores: contacts by number, by
//! LID and by group, quotes, edits, reactions, deletions, receipts; a redelivered batch is stored
//! once; an event the inbox can never store is set aside and acknowledged.

use std::future::Future;
use std::sync::Arc;

use async_trait::async_trait;
use chatflow_core::inbox::channel::{BatchDelivery, InboundEvent, InboundSink, Queued};
use chatflow_core::ports::{CompanyRepo, NewCompany, NewPlan, PlanRepo};
use chatflow_core::service::Ports;
use chatflow_core::service::inbox::ingest;
use chatflow_core::tenancy::{Money, PlanFlags, Recurrence};
use chatflow_core::{Result, TenantScope, WhatsappId};
use chatflow_store::{Store, testing};
use chatflow_whatsapp_web::inbound::{Ingestor, map_event};
use chatflow_whatsapp_web::whatsapp_rust::Jid;
use chatflow_whatsapp_web::whatsapp_rust::buffa::MessageField;
use chatflow_whatsapp_web::whatsapp_rust::chrono::Utc;
use chatflow_whatsapp_web::whatsapp_rust::types::events::{Event, InboundMessage, Receipt};
use chatflow_whatsapp_web::whatsapp_rust::types::message::{MessageInfo, MessageSource};
use chatflow_whatsapp_web::whatsapp_rust::types::presence::ReceiptType;
use chatflow_whatsapp_web::whatsapp_rust::waproto::whatsapp as wa;
use chatflow_whatsapp_web::whatsapp_rust::waproto::whatsapp::message::protocol_message::Type as ProtocolType;

const ANA: &str = "5511999990000";
const BRUNO_LID: &str = "123456789012345@lid";
const GROUP: &str = "120363000000000001@g.us";
const CARLA: &str = "5521988887777";

/// The server's sink, without the realtime wake-ups: the core's ingestion over the ports.
struct HostSink {
    ports: Ports,
}

#[async_trait]
impl InboundSink for HostSink {
    async fn deliver(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        event: InboundEvent,
    ) -> Result<()> {
        ingest::deliver(&self.ports, scope, connection, event)
            .await
            .map(|_| ())
    }

    async fn deliver_queued(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        event: InboundEvent,
        attempts: u32,
    ) -> Result<()> {
        ingest::deliver_or_set_aside(&self.ports, scope, connection, event, attempts)
            .await
            .map(|_| ())
    }

    async fn deliver_batch(
        &self,
        scope: TenantScope,
        connection: WhatsappId,
        events: Vec<Queued>,
    ) -> BatchDelivery {
        let done = ingest::deliver_batch(&self.ports, scope, connection, events).await;
        BatchDelivery {
            handled: done.handled.len(),
            failed: done.failed,
        }
    }
}

/// The use cases' ports over `store`, assembled as the hosts assemble them.
fn ports_on(store: &Store) -> Ports {
    let wiring = chatflow_wiring::Wiring::new().with_hasher(Arc::new(
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
                    std::env::temp_dir().join("chatflow-whatsapp-web-tests-media"),
                )),
                mailer: Arc::new(chatflow_system::LogMailer),
                channels: chatflow_core::inbox::channel::ChannelRegistry::default(),
                // Nothing listens here: automation reaching an integration fails at once.
                openai_base_url: "http://127.0.0.1:9/v1".to_owned(),
            },
        )
        .expect("ports")
}

struct Fixture {
    store: Store,
    scope: TenantScope,
    connection: WhatsappId,
    /// A connection of another company.
    foreign: WhatsappId,
    ports: Ports,
}

impl Fixture {
    fn ingestor(&self, connection: WhatsappId) -> Ingestor {
        Ingestor::new(
            self.scope,
            connection,
            Arc::new(HostSink {
                ports: self.ports.clone(),
            }),
        )
    }
}

async fn company(store: &Store, plan: chatflow_core::PlanId, name: &str) -> TenantScope {
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
            due_date: chrono::NaiveDate::from_ymd_opt(2030, 1, 31).expect("a date"),
            recurrence: Recurrence::Mensal,
            document: None,
        },
    )
    .await
    .expect("company created");
    TenantScope::new(company.id)
}

async fn connection(store: &Store, scope: TenantScope, name: &str) -> WhatsappId {
    let company = scope.company_id().0;
    WhatsappId(chatflow_store::on_pool!(store.pool(), |p| {
        sqlx::query_scalar::<_, i64>(
            "INSERT INTO whatsapps (company_id, name, allow_group) VALUES ($1, $2, $3) \
             RETURNING id",
        )
        .bind(company)
        .bind(name)
        // Group messages are stored only on connections that take them.
        .bind(true)
        .fetch_one(p)
        .await
        .expect("connection inserted")
    }))
}

async fn fixture(store: Store) -> Fixture {
    let plan = PlanRepo::create(
        &store,
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
    let scope = company(&store, plan, "Company A").await;
    let other = company(&store, plan, "Company B").await;
    let connection = connection(&store, scope, "A's number").await;
    let foreign = self::connection(&store, other, "B's number").await;
    let ports = ports_on(&store);
    Fixture {
        store,
        scope,
        connection,
        foreign,
        ports,
    }
}

fn jid(s: &str) -> Jid {
    s.parse().expect("a valid address")
}

fn message(id: &str, source: MessageSource, push_name: &str, body: wa::Message) -> InboundMessage {
    InboundMessage::builder()
        .message(Arc::new(body))
        .info(Arc::new(MessageInfo {
            source,
            id: id.into(),
            push_name: push_name.into(),
            timestamp: Utc::now(),
            ..Default::default()
        }))
        .build()
}

fn from_ana(id: &str, body: wa::Message) -> InboundMessage {
    let sender = jid(&format!("{ANA}:2@s.whatsapp.net"));
    let source = MessageSource {
        chat: sender.to_non_ad(),
        sender,
        ..Default::default()
    };
    message(id, source, "Ana", body)
}

fn text(body: &str) -> wa::Message {
    wa::Message {
        conversation: Some(body.into()),
        ..Default::default()
    }
}

fn key(id: &str) -> MessageField<wa::MessageKey> {
    MessageField::some(wa::MessageKey {
        remote_jid: Some(format!("{ANA}@s.whatsapp.net")),
        id: Some(id.into()),
        ..Default::default()
    })
}

fn first_batch() -> Vec<InboundMessage> {
    let bruno = jid("123456789012345:1@lid");
    let in_group = MessageSource {
        chat: jid(GROUP),
        sender: jid("987654321098765:3@lid"),
        is_group: true,
        sender_alt: Some(jid(&format!("{CARLA}@s.whatsapp.net"))),
        ..Default::default()
    };
    vec![
        from_ana("A", text("Olá")),
        message(
            "B",
            MessageSource {
                chat: bruno.to_non_ad(),
                sender: bruno,
                ..Default::default()
            },
            "Bruno",
            text("oi, sou o Bruno"),
        ),
        message("C", in_group, "Carla", text("bom dia, grupo")),
        from_ana(
            "D",
            wa::Message {
                extended_text_message: MessageField::some(wa::message::ExtendedTextMessage {
                    text: Some("era isso".into()),
                    context_info: MessageField::some(wa::ContextInfo {
                        stanza_id: Some("A".into()),
                        ..Default::default()
                    }),
                    ..Default::default()
                }),
                ..Default::default()
            },
        ),
        from_ana(
            "E",
            wa::Message {
                document_message: MessageField::some(wa::message::DocumentMessage {
                    file_name: Some("contrato.pdf".into()),
                    mimetype: Some("application/pdf".into()),
                    ..Default::default()
                }),
                ..Default::default()
            },
        ),
        // A key distribution: nothing to store.
        from_ana(
            "K",
            wa::Message {
                sender_key_distribution_message: MessageField::some(
                    wa::message::SenderKeyDistributionMessage::default(),
                ),
                ..Default::default()
            },
        ),
    ]
}

fn changes() -> Vec<InboundMessage> {
    let protocol = |kind, edited: Option<wa::Message>, target: &str| wa::Message {
        protocol_message: MessageField::some(wa::message::ProtocolMessage {
            key: key(target),
            r#type: Some(kind),
            edited_message: edited.map(MessageField::some).unwrap_or_default(),
            ..Default::default()
        }),
        ..Default::default()
    };
    // Sent from the connected phone to Ana, under her LID, with her number along.
    let ana_lid = jid("555555555555555@lid");
    let from_phone = MessageInfo {
        source: MessageSource {
            chat: ana_lid.clone(),
            sender: jid("444444444444444:0@lid"),
            is_from_me: true,
            recipient: Some(ana_lid),
            ..Default::default()
        },
        id: "F".into(),
        push_name: "Company A".into(),
        timestamp: Utc::now(),
        peer_recipient_pn: Some(jid(&format!("{ANA}@s.whatsapp.net"))),
        ..Default::default()
    };
    vec![
        from_ana(
            "G",
            protocol(ProtocolType::MESSAGE_EDIT, Some(text("Olá!")), "A"),
        ),
        from_ana(
            "H",
            wa::Message {
                reaction_message: MessageField::some(wa::message::ReactionMessage {
                    key: key("A"),
                    text: Some("👍".into()),
                    ..Default::default()
                }),
                ..Default::default()
            },
        ),
        from_ana("I", protocol(ProtocolType::REVOKE, None, "E")),
        InboundMessage::builder()
            .message(Arc::new(text("já enviamos")))
            .info(Arc::new(from_phone))
            .build(),
    ]
}

type Row = (
    Option<String>,
    String,
    String,
    bool,
    bool,
    bool,
    Option<String>,
    i64,
);

/// `(external id, body, media type, from me, edited, deleted, participant, ack)` of the
/// company's messages, in order.
async fn messages(f: &Fixture) -> Vec<Row> {
    let company = f.scope.company_id().0;
    chatflow_store::on_pool!(f.store.pool(), |p| {
        sqlx::query_as::<_, Row>(
            "SELECT external_id, body, media_type, from_me, is_edited, is_deleted, participant, \
             ack FROM messages WHERE company_id = $1 ORDER BY id",
        )
        .bind(company)
        .fetch_all(p)
        .await
        .expect("messages")
    })
}

/// `(number, name, is group)` of the company's contacts, by number.
async fn contacts(f: &Fixture) -> Vec<(String, String, bool)> {
    let company = f.scope.company_id().0;
    chatflow_store::on_pool!(f.store.pool(), |p| {
        sqlx::query_as::<_, (String, String, bool)>(
            "SELECT number, name, is_group FROM contacts WHERE company_id = $1 ORDER BY number",
        )
        .bind(company)
        .fetch_all(p)
        .await
        .expect("contacts")
    })
}

fn row(
    id: &str,
    body: &str,
    media: &str,
    flags: (bool, bool, bool),
    participant: Option<&str>,
    ack: i64,
) -> Row {
    (
        Some(id.to_owned()),
        body.to_owned(),
        media.to_owned(),
        flags.0,
        flags.1,
        flags.2,
        participant.map(str::to_owned),
        ack,
    )
}

async fn the_inbox_stores_what_the_mapping_says(f: Fixture) {
    let ingestor = f.ingestor(f.connection);
    let batch = first_batch();
    ingestor.commit(&batch).await.expect("committed");
    // WhatsApp delivers the batch again (the ack was lost): nothing is stored twice.
    ingestor.commit(&batch).await.expect("committed again");
    ingestor
        .commit(&changes())
        .await
        .expect("changes committed");
    // Ana read what the phone sent her.
    let read = Event::Receipt(
        Receipt::builder()
            .source(MessageSource {
                chat: jid(&format!("{ANA}@s.whatsapp.net")),
                sender: jid(&format!("{ANA}@s.whatsapp.net")),
                ..Default::default()
            })
            .message_ids(vec!["F".to_owned()])
            .timestamp(Utc::now())
            .r#type(ReceiptType::Read)
            .offline(false)
            .build(),
    );
    ingestor.deliver_events(map_event(&read)).await;

    let none = (false, false, false);
    assert_eq!(
        messages(&f).await,
        [
            row("A", "Olá!", "chat", (false, true, false), None, 0),
            row("B", "oi, sou o Bruno", "chat", none, None, 0),
            row("C", "bom dia, grupo", "chat", none, Some(CARLA), 0),
            row("D", "era isso", "chat", none, None, 0),
            row(
                "E",
                "contrato.pdf",
                "application",
                (false, false, true),
                None,
                0
            ),
            row("F", "já enviamos", "chat", (true, false, false), None, 3),
        ]
    );
    assert_eq!(
        contacts(&f).await,
        [
            // A group without its subject yet is named by its id.
            (GROUP.to_owned(), GROUP.to_owned(), true),
            (BRUNO_LID.to_owned(), "Bruno".to_owned(), false),
            (ANA.to_owned(), "Ana".to_owned(), false),
        ]
    );
    let company = f.scope.company_id().0;
    let (quoted, reaction): (Option<String>, Vec<(String, bool)>) =
        chatflow_store::on_pool!(f.store.pool(), |p| {
            let quoted = sqlx::query_scalar::<_, Option<String>>(
                "SELECT q.external_id FROM messages m JOIN messages q ON q.id = m.quoted_msg_id \
                 WHERE m.company_id = $1 AND m.external_id = 'D'",
            )
            .bind(company)
            .fetch_optional(p)
            .await
            .expect("quote")
            .flatten();
            let reaction = sqlx::query_as::<_, (String, bool)>(
                "SELECT r.emoji, r.from_me FROM message_reactions r \
                 JOIN messages m ON m.id = r.message_id \
                 WHERE m.company_id = $1 AND m.external_id = 'A'",
            )
            .bind(company)
            .fetch_all(p)
            .await
            .expect("reactions");
            (quoted, reaction)
        });
    assert_eq!(
        quoted.as_deref(),
        Some("A"),
        "the reply quotes Ana's message"
    );
    assert_eq!(reaction, [("👍".to_owned(), false)], "Ana's reaction");
}

async fn an_event_the_inbox_cannot_store_is_set_aside_and_acknowledged(f: Fixture) {
    // A connection that is not the company's: the ingestion refuses the message for good, the
    // sink sets it aside, and the commit answers Ok (WhatsApp gets its ack).
    let ingestor = f.ingestor(f.foreign);
    ingestor
        .commit(&[from_ana("X", text("perdido"))])
        .await
        .expect("acknowledged once set aside");
    assert_eq!(messages(&f).await, []);
    let company = f.scope.company_id().0;
    let failures: Vec<(String, i64)> = chatflow_store::on_pool!(f.store.pool(), |p| {
        sqlx::query_as::<_, (String, i64)>(
            "SELECT error_code, attempts FROM inbound_failures WHERE company_id = $1",
        )
        .bind(company)
        .fetch_all(p)
        .await
        .expect("failures")
    });
    assert_eq!(failures, [("ERR_NO_WAPP_FOUND".to_owned(), 1)]);
}

fn stamps() -> chatflow_store::Stamps {
    chatflow_store::Stamps::new(
        Arc::new(chatflow_system::SystemClock),
        Arc::new(chatflow_system::RandomIds),
    )
}

async fn on_sqlite<F, Fut>(test: F)
where
    F: FnOnce(Fixture) -> Fut + Send + 'static,
    Fut: Future<Output = ()> + Send + 'static,
{
    testing::on_sqlite(stamps(), true, |store, _| async move {
        test(fixture(store).await).await;
    })
    .await;
}

async fn on_postgres<F, Fut>(test: F)
where
    F: FnOnce(Fixture) -> Fut + Send + 'static,
    Fut: Future<Output = ()> + Send + 'static,
{
    testing::on_postgres(stamps(), true, |store, _| async move {
        test(fixture(store).await).await;
    })
    .await;
}

/// One test per engine for each listed `async fn(Fixture)`.
macro_rules! engine_tests {
    ($($name:ident),* $(,)?) => {
        mod sqlite {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    super::on_sqlite(super::$name).await;
                }
            )*
        }
        mod postgres {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    super::on_postgres(super::$name).await;
                }
            )*
        }
    };
}

engine_tests!(
    the_inbox_stores_what_the_mapping_says,
    an_event_the_inbox_cannot_store_is_set_aside_and_acknowledged,
);
