//! `chatflow tickets close-all` and the sandbox phones' acts (`sandbox send --react/--edit/
//! --delete/--media`, `sandbox call`) run for real against a temporary SQLite file (and a
//! temporary PostgreSQL database when `CHATFLOW_TEST_POSTGRES_URL` is set).

mod common;

use std::process::{Command, Output};

use chatflow_core::inbox::channel::InboundEvent;
use chatflow_core::inbox::model::{ConnectionInput, ContactInput, NewTicket, ProviderKind};
use chatflow_core::inbox::ports::{ConnectionRepo, ContactRepo, TicketRepo};
use chatflow_core::inbox::sandbox::SandboxRepo;
use chatflow_core::ports::{ChannelKind, QueueRepo};
use chatflow_core::ticket::{TicketLogType, TicketStatus};
use chatflow_core::{CompanyId, TenantScope};
use chatflow_store::Store;
use serde_json::Value;

/// Runs `chatflow args...` in `dir` against `database_url`.
fn chatflow(dir: &std::path::Path, database_url: &str, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_chatflow"))
        .args(args)
        .current_dir(dir)
        .env("DATABASE_URL", database_url)
        .env("CHATFLOW_MEDIA_DIR", dir.join("media"))
        .env_remove("CHATFLOW_ADMIN_EMAIL")
        .env_remove("CHATFLOW_ADMIN_PASSWORD")
        .output()
        .expect("the binary runs")
}

/// Runs the CLI off the async runtime.
async fn run(dir: &std::path::Path, url: &str, args: &[&str]) -> Output {
    let (dir, url) = (dir.to_owned(), url.to_owned());
    let args: Vec<String> = args.iter().map(|s| (*s).to_owned()).collect();
    tokio::task::spawn_blocking(move || {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        chatflow(&dir, &url, &args)
    })
    .await
    .expect("ran")
}

fn succeeded(out: &Output) -> String {
    assert!(
        out.status.success(),
        "failed with {:?}\nstdout: {}\nstderr: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout.clone()).expect("UTF-8 output")
}

/// A ticket of `status` for a new contact `number` of company 1, in `queue`.
async fn ticket(
    store: &Store,
    number: &str,
    status: TicketStatus,
    queue: Option<chatflow_core::QueueId>,
) -> chatflow_core::TicketId {
    let scope = TenantScope::new(CompanyId(1));
    let contact = ContactRepo::create(
        store,
        scope,
        &ContactInput {
            name: format!("Contact {number}"),
            number: number.to_owned(),
            email: String::new(),
            channel: Some(ChannelKind::Whatsapp),
            is_group: false,
            whatsapp_id: None,
            disable_bot: None,
            accept_audio_message: None,
            extra_info: Vec::new(),
        },
    )
    .await
    .expect("contact");
    TicketRepo::create(
        store,
        scope,
        &NewTicket {
            contact_id: contact.id,
            whatsapp_id: None,
            queue_id: queue,
            user_id: None,
            status,
            is_group: false,
            channel: ChannelKind::Whatsapp,
        },
        uuid::Uuid::new_v4(),
    )
    .await
    .expect("ticket")
    .id
}

async fn status_of(store: &Store, id: chatflow_core::TicketId) -> TicketStatus {
    TicketRepo::get(store, TenantScope::new(CompanyId(1)), id)
        .await
        .expect("read")
        .expect("the ticket")
        .status
}

/// Every command of this file against one database.
async fn exercise(url: String) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path();
    succeeded(&run(path, &url, &["migrate"]).await);
    let store = chatflow_wiring::Wiring::new()
        .connect(&url)
        .await
        .expect("the database opens");
    let scope = TenantScope::new(CompanyId(1));

    // close-all: only the status asked for, only in the queues named.
    let sales = QueueRepo::create(&store, scope, "Vendas", "#ff0000")
        .await
        .expect("queue")
        .id;
    let support = QueueRepo::create(&store, scope, "Suporte", "#00ff00")
        .await
        .expect("queue")
        .id;
    let p_sales = ticket(&store, "5511911110001", TicketStatus::Pending, Some(sales)).await;
    let p_support = ticket(
        &store,
        "5511911110002",
        TicketStatus::Pending,
        Some(support),
    )
    .await;
    let p_none = ticket(&store, "5511911110003", TicketStatus::Pending, None).await;
    let open = ticket(&store, "5511911110004", TicketStatus::Open, Some(sales)).await;

    let sales_arg = sales.0.to_string();
    let out = run(
        path,
        &url,
        &[
            "tickets",
            "close-all",
            "--company",
            "1",
            "--status",
            "pending",
            "--queue",
            &sales_arg,
        ],
    )
    .await;
    assert_eq!(succeeded(&out).trim(), "Closed 1 ticket of company 1.");
    assert_eq!(status_of(&store, p_sales).await, TicketStatus::Closed);
    assert_eq!(status_of(&store, p_support).await, TicketStatus::Pending);
    let logs = TicketRepo::logs(&store, scope, p_sales)
        .await
        .expect("logs");
    assert!(
        logs.iter()
            .any(|l| l.kind == TicketLogType::Closed && l.user.is_some()),
        "{logs:?}"
    );

    let out = run(
        path,
        &url,
        &[
            "--json",
            "tickets",
            "close-all",
            "--company",
            "1",
            "--status",
            "pending",
        ],
    )
    .await;
    let closed: Value = serde_json::from_str(&succeeded(&out)).expect("JSON");
    assert_eq!(closed["closed"], 2);
    assert_eq!(closed["status"], "pending");
    assert_eq!(status_of(&store, p_support).await, TicketStatus::Closed);
    assert_eq!(status_of(&store, p_none).await, TicketStatus::Closed);
    assert_eq!(status_of(&store, open).await, TicketStatus::Open);

    // A status close-all does not take is a usage error; an unknown company a domain error.
    let out = run(
        path,
        &url,
        &[
            "tickets",
            "close-all",
            "--company",
            "1",
            "--status",
            "closed",
        ],
    )
    .await;
    assert_eq!(out.status.code(), Some(2));
    let out = run(
        path,
        &url,
        &[
            "tickets",
            "close-all",
            "--company",
            "999",
            "--status",
            "open",
        ],
    )
    .await;
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("ERR_NO_COMPANY_FOUND"));
    assert_eq!(status_of(&store, open).await, TicketStatus::Open);

    // The sandbox phones' acts are queued for the server, in order.
    let connection = ConnectionRepo::create(
        &store,
        scope,
        &ConnectionInput {
            name: "Sandbox".into(),
            provider: Some(ProviderKind::Sandbox),
            ..ConnectionInput::default()
        },
        "token",
        &[],
    )
    .await
    .expect("connection created");
    let id = connection.id.0.to_string();
    let maria = "5511999990001";
    let send = |extra: &[&str]| {
        let mut args = vec![
            "--json",
            "sandbox",
            "send",
            "--connection",
            &id,
            "--from",
            maria,
        ];
        args.extend_from_slice(extra);
        args.into_iter().map(str::to_owned).collect::<Vec<String>>()
    };
    let external = |out: &Output| -> String {
        let sent: Value = serde_json::from_str(&succeeded(out)).expect("JSON");
        sent["externalId"].as_str().expect("externalId").to_owned()
    };
    let as_refs = |v: &[String]| v.to_vec();
    let first = {
        let args = as_refs(&send(&["--name", "Maria", "Bom dia"]));
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        external(&run(path, &url, &refs).await)
    };
    let file = path.join("foto.png");
    std::fs::write(&file, [137u8, 80, 78, 71]).expect("written");
    let file_arg = file.display().to_string();
    let acts: Vec<Vec<String>> = vec![
        send(&["--react", &first, "👍"]),
        send(&["--edit", &first, "Bom dia!"]),
        send(&["--media", &file_arg, "a foto"]),
        send(&["--delete", &first]),
        vec![
            "--json".into(),
            "sandbox".into(),
            "call".into(),
            "--connection".into(),
            id.clone(),
            "--from".into(),
            maria.into(),
            "--name".into(),
            "Maria".into(),
        ],
    ];
    for act in &acts {
        let refs: Vec<&str> = act.iter().map(String::as_str).collect();
        external(&run(path, &url, &refs).await);
    }
    // Another phone may not edit Maria's message; one act at a time.
    let out = run(
        path,
        &url,
        &[
            "sandbox",
            "send",
            "--connection",
            &id,
            "--from",
            "5511999990002",
            "--edit",
            &first,
            "x",
        ],
    )
    .await;
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("ERR_NOT_FOUND"));
    let out = run(
        path,
        &url,
        &[
            "sandbox",
            "send",
            "--connection",
            &id,
            "--from",
            maria,
            "--delete",
            &first,
            "--edit",
            &first,
        ],
    )
    .await;
    assert_eq!(out.status.code(), Some(2));

    ConnectionRepo::set_session(
        &store,
        scope,
        connection.id,
        &chatflow_core::inbox::model::SessionUpdate {
            status: chatflow_core::inbox::model::ConnectionStatus::Connected,
            qrcode: String::new(),
            retries: 0,
            number: None,
            ..Default::default()
        },
    )
    .await
    .expect("connected");
    let queued: Vec<InboundEvent> = SandboxRepo::undelivered(&store, 50)
        .await
        .expect("queued")
        .into_iter()
        .map(|row| row.event)
        .collect();
    assert_eq!(queued.len(), 6, "{queued:?}");
    assert!(matches!(&queued[0], InboundEvent::Message(m) if m.external_id == first));
    assert!(
        matches!(&queued[1], InboundEvent::Reaction { external_id, emoji, chat } if external_id == &first && emoji == "👍" && chat == maria)
    );
    assert!(
        matches!(&queued[2], InboundEvent::Edit { external_id, body, .. } if external_id == &first && body == "Bom dia!")
    );
    assert!(
        matches!(&queued[3], InboundEvent::Message(m) if m.media.as_ref().is_some_and(|f| f.mime_type == "image/png") && m.body == "a foto")
    );
    assert!(matches!(&queued[4], InboundEvent::Delete { external_id } if external_id == &first));
    assert!(
        matches!(&queued[5], InboundEvent::MissedCall { chat, chat_name, .. } if chat == maria && chat_name == "Maria")
    );
    store.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn close_all_and_phone_acts_on_sqlite() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let url = common::sqlite_url(dir.path());
    exercise(url).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn close_all_and_phone_acts_on_postgres() {
    common::on_throwaway_postgres("chatflow_cli_tickets", exercise).await;
}
