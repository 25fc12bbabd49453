//! `chatflow sandbox ...` run for real against a temporary SQLite file (and a temporary
//! PostgreSQL database when `CHATFLOW_TEST_POSTGRES_URL` is set): scanning, typing a pair code,
//! phones sending, and reading what phones received.

mod common;

use std::process::{Command, Output};

use chatflow_core::CompanyId;
use chatflow_core::TenantScope;
use chatflow_core::inbox::channel::{InboundEvent, OutboundContent};
use chatflow_core::inbox::model::{ConnectionInput, ConnectionStatus, ProviderKind, SessionUpdate};
use chatflow_core::inbox::ports::ConnectionRepo;
use chatflow_core::inbox::sandbox::SandboxRepo;
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

fn ok(dir: &std::path::Path, database_url: &str, args: &[&str]) -> String {
    let out = chatflow(dir, database_url, args);
    assert!(
        out.status.success(),
        "chatflow {args:?} failed with {:?}\nstdout: {}\nstderr: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

/// The whole sandbox command set against one database.
async fn exercise(database_url: String) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().to_owned();
    let url = database_url.clone();
    tokio::task::spawn_blocking(move || ok(&path, &url, &["migrate"]))
        .await
        .expect("migrated");

    let store = chatflow_wiring::Wiring::new()
        .connect(&database_url)
        .await
        .expect("the database opens");
    let scope = TenantScope::new(CompanyId(1));
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
    let dir_path = dir.path().to_owned();
    let run = move |args: Vec<String>| {
        let dir_path = dir_path.clone();
        let url = database_url.clone();
        async move {
            tokio::task::spawn_blocking(move || {
                let args: Vec<&str> = args.iter().map(String::as_str).collect();
                chatflow(&dir_path, &url, &args)
            })
            .await
            .expect("ran")
        }
    };
    let args = |list: &[&str]| list.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();

    // Scanning needs a QR code on screen.
    let out = run(args(&["sandbox", "scan", "--connection", &id])).await;
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("ERR_WAPP_NOT_INITIALIZED"));
    SandboxRepo::begin_pairing(&store, scope, connection.id, "nonce", false)
        .await
        .expect("pairing");
    let out = run(args(&["sandbox", "scan", "--connection", &id])).await;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let pairing = SandboxRepo::pairing(&store, scope, connection.id)
        .await
        .expect("read")
        .expect("pairing");
    assert!(pairing.paired);

    // A phone sends a text and a file; both wait for the connection to be CONNECTED.
    let out = run(args(&[
        "--json",
        "sandbox",
        "send",
        "--connection",
        &id,
        "--from",
        "5511999990000",
        "--name",
        "Ana",
        "hello",
    ]))
    .await;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let sent: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let external_id = sent["externalId"].as_str().expect("id").to_owned();
    let file = dir.path().join("photo.png");
    std::fs::write(&file, [1u8, 2, 3]).expect("written");
    let file_arg = file.display().to_string();
    let out = run(args(&[
        "sandbox",
        "send",
        "--connection",
        &id,
        "--from",
        "5511999990000",
        "--file",
        &file_arg,
        "a caption",
    ]))
    .await;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // A message the network loses is kept in the phone's history, never queued for delivery.
    let out = run(args(&[
        "--json",
        "sandbox",
        "send",
        "--connection",
        &id,
        "--from",
        "5511999990000",
        "--lost",
        "gone missing",
    ]))
    .await;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lost: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let lost_id = lost["externalId"].as_str().expect("id").to_owned();
    let out = run(args(&[
        "sandbox",
        "send",
        "--connection",
        &id,
        "--from",
        "5511999990000",
        "--lost",
        "--delete",
        &external_id,
    ]))
    .await;
    assert!(!out.status.success(), "only a message can be lost");
    ConnectionRepo::set_session(
        &store,
        scope,
        connection.id,
        &SessionUpdate {
            status: ConnectionStatus::Connected,
            qrcode: String::new(),
            retries: 0,
            number: None,
            ..Default::default()
        },
    )
    .await
    .expect("connected");
    let pending = SandboxRepo::undelivered(&store, 10).await.expect("pending");
    assert_eq!(pending.len(), 2);
    let InboundEvent::Message(first) = &pending[0].event else {
        panic!("a message")
    };
    assert_eq!(first.external_id, external_id);
    assert_eq!(first.chat_name, "Ana");
    assert_eq!(first.body, "hello");
    let InboundEvent::Message(second) = &pending[1].event else {
        panic!("a message")
    };
    let media = second.media.as_ref().expect("media");
    assert_eq!(media.mime_type, "image/png");
    assert_eq!(media.bytes, vec![1, 2, 3]);
    assert_eq!(second.body, "a caption");
    let history = SandboxRepo::phone_history(
        &store,
        scope,
        connection.id,
        "5511999990000",
        "NOT-A-PHONE-MESSAGE",
        chrono::Utc::now() + chrono::Duration::hours(1),
        10,
    )
    .await
    .expect("the phone's history");
    let ids: Vec<&str> = history.iter().map(|m| m.external_id.as_str()).collect();
    assert_eq!(ids, [external_id.as_str(), &second.external_id, &lost_id]);
    assert_eq!(history[2].body, "gone missing");

    // What phones received, as a table and as JSON.
    let content = OutboundContent::Text {
        body: "Welcome!".into(),
    };
    SandboxRepo::record_received(
        &store,
        scope,
        connection.id,
        "5511999990000",
        "OUT1",
        &content,
        "Welcome!",
    )
    .await
    .expect("recorded");
    SandboxRepo::set_ack(&store, scope, connection.id, "OUT1", 3)
        .await
        .expect("ack");
    let out = run(args(&["sandbox", "inbox", "--connection", &id])).await;
    let table = String::from_utf8(out.stdout).expect("UTF-8");
    assert!(
        table.contains("Welcome!") && table.contains("OUT1"),
        "{table}"
    );
    let out = run(args(&[
        "--json",
        "sandbox",
        "inbox",
        "--connection",
        &id,
        "--to",
        "5511999990000",
    ]))
    .await;
    let listed: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(listed[0]["ack"], 3);
    assert_eq!(listed[0]["body"], "Welcome!");
    let out = run(args(&[
        "--json",
        "sandbox",
        "inbox",
        "--connection",
        &id,
        "--to",
        "1",
    ]))
    .await;
    let listed: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert!(listed.as_array().expect("list").is_empty());

    // An unknown connection is refused.
    let out = run(args(&["sandbox", "scan", "--connection", "9999"])).await;
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("ERR_NO_WAPP_FOUND"));
    let out = run(args(&["sandbox", "pair-code", "9999", "ABCD-2345"])).await;
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("ERR_NO_WAPP_FOUND"));

    // Linking by phone number: a second connection shows a pair code (as the server's sandbox
    // does when a code is asked for).
    let by_code = ConnectionRepo::create(
        &store,
        scope,
        &ConnectionInput {
            name: "By code".into(),
            provider: Some(ProviderKind::Sandbox),
            ..ConnectionInput::default()
        },
        "token2",
        &[],
    )
    .await
    .expect("connection created");
    let code_id = by_code.id.0.to_string();
    // No code shown yet.
    let out = run(args(&["sandbox", "pair-code", &code_id, "ABCD-2345"])).await;
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(stderr.contains("ERR_WAPP_NOT_INITIALIZED"), "{stderr}");
    SandboxRepo::begin_pairing(&store, scope, by_code.id, "nonce2", false)
        .await
        .expect("pairing");
    SandboxRepo::show_pair_code(&store, scope, by_code.id, "WXYZ6789", "5511988887777")
        .await
        .expect("code shown");
    // A wrong code is refused, clearly.
    let out = run(args(&["sandbox", "pair-code", &code_id, "ABCD-2345"])).await;
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(stderr.contains("ERR_VALIDATION"), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "ABCD-2345 is not the code connection {code_id} shows"
        )),
        "{stderr}"
    );
    let pairing = SandboxRepo::pairing(&store, scope, by_code.id)
        .await
        .expect("read")
        .expect("pairing");
    assert!(!pairing.paired);
    // The right one, as shown in lower case, pairs with the number it was asked for.
    let out = run(args(&[
        "--json",
        "sandbox",
        "pair-code",
        &code_id,
        "wxyz-6789",
    ]))
    .await;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let typed: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(typed["paired"], true);
    let pairing = SandboxRepo::pairing(&store, scope, by_code.id)
        .await
        .expect("read")
        .expect("pairing");
    assert!(pairing.paired);
    assert_eq!(pairing.pair_number.as_deref(), Some("5511988887777"));
    store.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sandbox_commands_on_sqlite() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let url = common::sqlite_url(dir.path());
    exercise(url).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sandbox_commands_on_postgres() {
    common::on_throwaway_postgres("chatflow_cli_sandbox", exercise).await;
}
